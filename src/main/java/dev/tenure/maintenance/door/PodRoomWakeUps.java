package dev.tenure.maintenance.door;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.placement.AwaitedPods;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * Pods that free room wake the maintenances {@code spec.drain.placement: Wait} holds (issue 49): a bound pod deleted,
 * or one that reached {@code Succeeded} or {@code Failed} (kube-scheduler counts neither on its node any more), may
 * be the room a pod to evict waits for, on another node or on the drained node itself (a pod gone needs no room).
 * Without it they waited for a Node change or their recheck ({@code tenure.maintenance.placement-recheck}).
 *
 * <p>Cheap by construction: a plain watch of pods in every namespace, no informer and no cache (memory does not grow
 * with the cluster's pods), open only while at least one maintenance waits for placement, and started from the
 * resourceVersion of a one-item LIST ({@code limit=1}), so the API server sends changes only, never the initial
 * ADDED events of every pod. A pod that arrives (added bound, bound, or changed while bound) only takes room, except
 * for a pod that a stranded pod's required affinity term selects or its {@code DoNotSchedule} spread constraint
 * counts: such a pod wakes the maintenances whose last forecast awaits it ({@link AwaitedPods}, told by the forecast
 * through {@link #await}; kept in memory only while they wait, and rebuilt by their next forecast after a restart,
 * the recheck covering the gap). A deletion or a finished pod makes every waiting maintenance forecast again; JOSDK runs one reconcile per maintenance at a time and folds the events that arrive meanwhile into
 * one more, so a stream of deletions keeps at most one forecast running and one queued per waiting maintenance (no
 * further rate limit: a steady stream makes forecasts back to back).
 *
 * <p>When the watch ends (410 Gone, or any error fabric8 does not reconnect from), changes may have been missed: the
 * waiting maintenances are woken at once, and their reconciles open it again ({@link #refresh}).
 */
final class PodRoomWakeUps extends AbstractEventSource<Pod, NodeMaintenance> {

    private static final Logger LOG = Logger.getLogger(PodRoomWakeUps.class);

    /** The event source's name. */
    static final String NAME = "pod-room-changes";

    private final KubernetesClient client;
    private final IndexerResourceCache<NodeMaintenance> primaries;
    /** The status this reconciler last wrote on a maintenance (its cache may not show it yet); null: none. */
    private final Function<String, NodeMaintenanceStatus> lastWritten;

    /** What each waiting maintenance's last forecast awaits, by name; none: no arrival wakes it. */
    private final Map<String, AwaitedPods> awaited = new ConcurrentHashMap<>();

    /** The open watch, null while none; each has its own watcher, so a late close of an old one is told apart. */
    private Watch watch;

    private RoomWatcher watcher;

    PodRoomWakeUps(
            KubernetesClient client,
            IndexerResourceCache<NodeMaintenance> primaries,
            Function<String, NodeMaintenanceStatus> lastWritten) {
        super(Pod.class, NAME);
        this.client = Objects.requireNonNull(client, "client");
        this.primaries = Objects.requireNonNull(primaries, "primaries");
        this.lastWritten = Objects.requireNonNull(lastWritten, "lastWritten");
    }

    /** Whether a pod change ({@code action} on {@code pod}) may free room: a bound pod deleted, or one that finished. */
    static boolean freesRoom(Watcher.Action action, Pod pod) {
        boolean bound = pod.getSpec() != null && pod.getSpec().getNodeName() != null;
        if (!bound) {
            return false; // an unbound pod takes no room (PlacementCluster)
        }
        if (action == Watcher.Action.DELETED) {
            return true;
        }
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return action == Watcher.Action.MODIFIED && ("Succeeded".equals(phase) || "Failed".equals(phase));
    }

    /**
     * Whether a pod arriving ({@code action} on {@code pod}: added bound, or changed while bound: its binding, its
     * labels) is one {@code awaited} says may open room.
     */
    static boolean opensRoom(Watcher.Action action, Pod pod, AwaitedPods awaited) {
        boolean bound = pod.getSpec() != null && pod.getSpec().getNodeName() != null;
        boolean arriving = action == Watcher.Action.ADDED || action == Watcher.Action.MODIFIED;
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        boolean done = "Succeeded".equals(phase) || "Failed".equals(phase);
        return bound
                && arriving
                && !done
                && pod.getMetadata().getDeletionTimestamp() == null
                && awaited.opensRoom(
                        pod.getMetadata().getNamespace(), pod.getMetadata().getLabels());
    }

    /**
     * What the last forecast of maintenance {@code name} awaits ({@link AwaitedPods#NONE}: nothing, or it does not wait
     * any more).
     */
    void await(String name, AwaitedPods pods) {
        if (pods.isEmpty()) {
            awaited.remove(name);
        } else {
            awaited.put(name, pods);
        }
    }

    /**
     * Opens the watch when a maintenance waits for placement and it is closed; closes it when none waits. Called by
     * the reconciler after each reconcile and cleanup.
     */
    synchronized void refresh() {
        Set<String> names = waiting().map(nm -> nm.getMetadata().getName()).collect(Collectors.toSet());
        awaited.keySet().retainAll(names); // ended, deleted or released: nothing awaited any more
        boolean waiting = !names.isEmpty();
        if (waiting && watch == null && isRunning()) {
            open();
        } else if (!waiting && watch != null) {
            close();
        }
    }

    /** Whether the watch is open (for tests). */
    synchronized boolean watching() {
        return watch != null;
    }

    @Override
    public synchronized void stop() {
        super.stop();
        close();
    }

    @Override
    public Set<Pod> getSecondaryResources(NodeMaintenance primary) {
        return Set.of(); // a wake-up only: no pod is a secondary resource of a NodeMaintenance
    }

    /** The watcher of one opened watch. */
    private final class RoomWatcher implements Watcher<Pod> {
        @Override
        public void eventReceived(Action action, Pod pod) {
            if (freesRoom(action, pod)) {
                wakeWaiting();
            } else if (!awaited.isEmpty()) {
                wakeAwaiting(action, pod);
            }
        }

        @Override
        public void onClose(WatcherException cause) {
            LOG.debugf("pod watch for placement wake-ups ended: %s", cause.getMessage());
            if (closed(this)) {
                wakeWaiting(); // changes may have been missed: forecast again (their reconciles open the watch again)
            }
        }

        @Override
        public void onClose() {
            closed(this);
        }
    }

    /** Whether {@code ended} was the open watch's watcher (then nothing is open any more). */
    private synchronized boolean closed(RoomWatcher ended) {
        if (watcher != ended) {
            return false; // an older watch, closed here already
        }
        watch = null;
        watcher = null;
        return true;
    }

    private void open() {
        try {
            String from = client.pods()
                    .inAnyNamespace()
                    .list(new ListOptionsBuilder().withLimit(1L).build())
                    .getMetadata()
                    .getResourceVersion();
            RoomWatcher opened = new RoomWatcher();
            watcher = opened;
            watch = client.pods()
                    .inAnyNamespace()
                    .watch(
                            new ListOptionsBuilder()
                                    .withResourceVersion(from)
                                    .withAllowWatchBookmarks(true)
                                    .build(),
                            opened);
        } catch (KubernetesClientException e) {
            watch = null;
            watcher = null;
            // the recheck still forecasts; the next reconcile tries the watch again
            LOG.warnf("pod watch for placement wake-ups not opened: %s", e.getMessage());
        }
    }

    private void close() {
        Watch open = watch;
        watch = null;
        watcher = null;
        if (open != null) {
            open.close();
        }
    }

    private java.util.stream.Stream<NodeMaintenance> waiting() {
        return primaries
                .list()
                .filter(nm -> nm.getMetadata().getDeletionTimestamp() == null)
                .filter(nm -> {
                    NodeMaintenanceStatus written =
                            lastWritten.apply(nm.getMetadata().getName());
                    return NodeSlotWakeUps.waitsForPlacement(written != null ? written : nm.getStatus());
                });
    }

    private void wakeAwaiting(Watcher.Action action, Pod pod) {
        if (!isRunning()) {
            return;
        }
        waiting()
                .filter(nm -> opensRoom(
                        action, pod, awaited.getOrDefault(nm.getMetadata().getName(), AwaitedPods.NONE)))
                .forEach(nm -> getEventHandler().handleEvent(new Event(ResourceID.fromResource(nm))));
    }

    private void wakeWaiting() {
        if (!isRunning()) {
            return;
        }
        waiting().forEach(nm -> getEventHandler().handleEvent(new Event(ResourceID.fromResource(nm))));
    }
}
