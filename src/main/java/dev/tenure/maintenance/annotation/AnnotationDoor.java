package dev.tenure.maintenance.annotation;

import dev.tenure.election.LeaseStore;
import dev.tenure.election.WorkFence;
import dev.tenure.kube.KeyedWorkQueue;
import dev.tenure.kube.NodeCache;
import dev.tenure.kube.SharedInformerCache;
import dev.tenure.maintenance.admission.AdmissionCaches;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.NodeMaintenanceValidator;
import dev.tenure.maintenance.machine.EventRecorder;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import dev.tenure.maintenance.machine.NodeLeaseReleases;
import dev.tenure.maintenance.machine.PlacementView;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Store;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jboss.logging.Logger;

/**
 * The annotation protocol's front door: watches Nodes through the operator's shared {@link NodeCache} and runs
 * {@link MaintenanceAnnotationController} for each Node that carries one of its annotations (the request, the
 * status, or Tenure's state record), client-go style: a keyed work queue (one reconcile per Node at a time, timed
 * re-looks, per-Node backoff on failure) and a few workers. It also watches the node leases' namespace: a request
 * waiting for a lease the other door holds is woken when that lease is let go ({@link #leaseEvents}). {@code OperatorLeadership} starts it when this replica
 * leads and stops it, before the lease can go, when leadership ends.
 *
 * <p>It is not a JOSDK reconciler on purpose: JOSDK's primary informer is private to its controller, so a Node
 * reconciler would keep a second Node watch and cache beside the one the coordinated election needs.
 */
public final class AnnotationDoor {

    private static final Logger LOG = Logger.getLogger(AnnotationDoor.class);
    /** Reconciles are short API exchanges (the drain runs on the machine's own threads); a few workers suffice. */
    static final int WORKERS = 4;

    private static final Duration FIRST_RETRY = Duration.ofMillis(500);
    private static final Duration LAST_RETRY = Duration.ofMinutes(1);
    private static final Duration STOP_WAIT = Duration.ofSeconds(5);

    private final MaintenanceAnnotationController controller;
    private final NodeCache nodes;
    /** For the watch of the node leases ({@link #leaseEvents}). */
    private final KubernetesClient client;

    private final AnnotationSettings settings;
    /** Each reconcile holds a permit of it (the operator's leadership term); open by default (tests). */
    private volatile WorkFence fence = WorkFence.alwaysOpen();

    private final boolean enabled;
    private Running running;

    private record Running(
            KeyedWorkQueue<String> queue,
            ScheduledExecutorService scheduler,
            SharedInformerCache<Node>.Subscription subscription,
            SharedIndexInformer<Lease> leases) {}

    public AnnotationDoor(
            KubernetesClient client,
            LeaseStore leases,
            NodeCache nodes,
            AdmissionCaches caches,
            MaintenanceMachine machine,
            EventRecorder recorder,
            MaintenanceSettings maintenance,
            MaintenanceLimits limits,
            AnnotationSettings settings,
            Clock clock) {
        if (settings.holder().equals(maintenance.holder()) || maintenance.isPredecessor(settings.holder())) {
            throw new IllegalArgumentException("tenure.maintenance.annotation.holder: must differ from "
                    + "tenure.maintenance.lease.holder (" + maintenance.holderFamily() + ") and not start with "
                    + maintenance.holderFamily() + "/, or the lease cannot tell the annotation's maintenance from a "
                    + "NodeMaintenance's");
        }
        this.nodes = Objects.requireNonNull(nodes, "nodes");
        this.enabled = settings.enabled();
        this.controller = new MaintenanceAnnotationController(
                client,
                leases,
                machine,
                recorder,
                settings,
                AnnotatedNodes.budget(caches, limits),
                node -> AnnotatedNodes.maintenanceOf(caches, node),
                node -> Optional.of(new PlacementView(
                        caches::nodes,
                        () -> inMaintenance(caches, node),
                        awaited -> {},
                        AnnotationSettings.PLACEMENT_SETTING)),
                maintenance.leaseWaitRetry(),
                clock);
        this.client = client;
        this.settings = settings;
    }

    /**
     * The nodes besides {@code node} that will not take pods: those a NodeMaintenance requests (not being deleted)
     * and those requested or held by the annotation, from the caches (no request).
     */
    static List<String> inMaintenance(AdmissionCaches caches, String node) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        caches.maintenances().stream()
                .filter(nm -> nm.getMetadata().getDeletionTimestamp() == null)
                .map(NodeMaintenanceValidator::nodeOf)
                .filter(Objects::nonNull)
                .forEach(out::add);
        AnnotatedNodes annotated = new AnnotatedNodes(caches);
        out.addAll(annotated.requested().keySet());
        out.addAll(annotated.nodes().keySet());
        out.remove(node);
        return List.copyOf(out);
    }

    /** Whether the door is configured on ({@code tenure.maintenance.annotation.enabled}). */
    public boolean enabled() {
        return enabled;
    }

    public synchronized boolean isRunning() {
        return running != null;
    }

    /** Runs every reconcile under a permit of {@code fence}: the operator's term, which a stop waits out. */
    public void fencedBy(WorkFence fence) {
        this.fence = fence;
    }

    /**
     * Subscribes to the Node cache and starts the workers; every Node the protocol concerns is looked at once, the
     * rest only when a change makes them so. No-op when running or when the door is disabled.
     */
    public synchronized void start() {
        if (running != null || !enabled) {
            return;
        }
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tenure-annotation-requeue");
            t.setDaemon(true);
            return t;
        });
        KeyedWorkQueue<String> queue =
                new KeyedWorkQueue<>("maintenance-annotation", scheduler, FIRST_RETRY, LAST_RETRY);
        SharedInformerCache<Node>.Subscription subscription;
        try {
            subscription = nodes.open(events(queue));
        } catch (RuntimeException e) {
            scheduler.shutdownNow();
            throw e;
        }
        SharedIndexInformer<Lease> leases = client.resources(Lease.class)
                .inNamespace(settings.leaseNamespace())
                .runnableInformer(0);
        leases.addEventHandler(leaseEvents(queue, subscription.informer().getStore(), settings));
        try {
            leases.run();
        } catch (RuntimeException e) {
            leases.close();
            subscription.close();
            scheduler.shutdownNow();
            throw e;
        }
        queue.startWorkers(WORKERS, "tenure-annotation-worker", fence, controller::reconcile);
        running = new Running(queue, scheduler, subscription, leases);
        LOG.info("Annotation door started (" + MaintenanceAnnotation.REQUEST + ")");
    }

    /**
     * Stops receiving Node events, drops what is queued and waits (bounded) for reconciles in flight: after it
     * returns no new reconcile begins. Safe to call when stopped.
     */
    public void stop() {
        Running r;
        synchronized (this) {
            r = running;
            running = null;
        }
        if (r == null) {
            return;
        }
        r.subscription().close();
        r.leases().close();
        // the queue first: a reconcile finishing now asks for a re-add, which a shut-down queue drops
        if (!r.queue().shutDownAndWait(STOP_WAIT)) {
            LOG.warnf("Annotation door: a reconcile was still running %d s after stop", STOP_WAIT.toSeconds());
        }
        r.scheduler().shutdownNow();
        LOG.info("Annotation door stopped");
    }

    /** Node events to queue keys, filtered as {@link #CONCERNS_PROTOCOL} and {@link #ACTED_ON_CHANGE} say. */
    static ResourceEventHandler<Node> events(KeyedWorkQueue<String> queue) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                if (CONCERNS_PROTOCOL.test(node)) {
                    queue.add(node.getMetadata().getName());
                }
            }

            @Override
            public void onUpdate(Node old, Node updated) {
                if (CONCERNS_PROTOCOL.test(updated) && ACTED_ON_CHANGE.test(updated, old)) {
                    queue.add(updated.getMetadata().getName());
                }
            }

            @Override
            public void onDelete(Node node, boolean deletedFinalStateUnknown) {
                // a deleted Node has nothing left to cordon or restore; its lease expires by itself
            }
        };
    }

    /**
     * A request waiting for its node's lease (held by a NodeMaintenance, or by another holder) looks again when the
     * lease is let go ({@link NodeLeaseReleases#frees}), not at its next timed look ({@code
     * tenure.maintenance.lease.wait-retry}): a NodeMaintenance that ends hands the node over to the annotation's
     * request without changing the Node, so no Node event would wake it. The lease's node is found among the cached
     * Nodes the protocol concerns (a lease name may be hash-shortened, so it is not parsed back).
     */
    static ResourceEventHandler<Lease> leaseEvents(
            KeyedWorkQueue<String> queue, Store<Node> nodes, AnnotationSettings settings) {
        Consumer<Lease> wake = lease -> nodes.list().stream()
                .filter(CONCERNS_PROTOCOL)
                .map(n -> n.getMetadata().getName())
                .filter(n -> settings.leaseName(n).equals(lease.getMetadata().getName()))
                .forEach(queue::add);
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Lease lease) {
                // a new lease is held by whoever created it: no one waiting for it can take it now
            }

            @Override
            public void onUpdate(Lease old, Lease updated) {
                if (NodeLeaseReleases.frees(old, updated)) {
                    wake.accept(updated);
                }
            }

            @Override
            public void onDelete(Lease lease, boolean deletedFinalStateUnknown) {
                wake.accept(lease);
            }
        };
    }

    /** Only Nodes the protocol concerns are queued; the rest of the fleet costs nothing but the shared cache. */
    static final Predicate<Node> CONCERNS_PROTOCOL = MaintenanceAnnotationController::concerns;

    private static final List<String> KEYS =
            List.of(MaintenanceAnnotation.REQUEST, MaintenanceAnnotation.STATUS, MaintenanceAnnotation.STATE);

    /**
     * A Node update is queued only when it changes what the protocol reads or writes: the protocol's annotations,
     * the cordon and taints, the deletion. Kubelet status updates (conditions, every 10 s to 1 min per node) are
     * not; the door's own timed re-looks drive the drain. Arguments: (updated, old).
     */
    static final BiPredicate<Node, Node> ACTED_ON_CHANGE = (updated, old) -> !KEYS.stream()
                    .allMatch(k -> Objects.equals(annotation(updated, k), annotation(old, k)))
            || !Objects.equals(spec(updated).getUnschedulable(), spec(old).getUnschedulable())
            || !Objects.equals(spec(updated).getTaints(), spec(old).getTaints())
            || !Objects.equals(
                    updated.getMetadata().getDeletionTimestamp(),
                    old.getMetadata().getDeletionTimestamp());

    private static String annotation(Node node, String key) {
        Map<String, String> a = node.getMetadata().getAnnotations();
        return a == null ? null : a.get(key);
    }

    private static NodeSpec spec(Node node) {
        return node.getSpec() == null ? new NodeSpec() : node.getSpec();
    }
}
