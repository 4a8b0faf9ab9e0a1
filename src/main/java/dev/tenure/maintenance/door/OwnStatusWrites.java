package dev.tenure.maintenance.door;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The reconciler's own status writes, so that it never decides from a version it has already written over.
 *
 * <p>A reconcile reads the NodeMaintenance from the informer's cache, which runs behind the API server: a reconcile
 * woken (by a node lease renewal, a pod, a requeue) before the watch has delivered the reconciler's last status write
 * reads the version that write started from. Deciding from it repeats the last step: the same transition written again
 * (a second status write, a second event), or worse, a step taken twice. kube-apiserver's resourceVersions are opaque
 * (no "older than"), but the versions a write started from are known to be older than its answer: this remembers them,
 * and hands a reconcile that reads one of them a copy of the newest answer instead. The memory of a NodeMaintenance
 * ends when the informer has caught up (it delivers the newest answer, or a version never written from, which is
 * newer: the informer only moves forward) or the resource is gone.
 *
 * <p>Why this stays now that each status write carries the version it was decided from as a precondition ({@link
 * DoorActs#writeStatus}; issue 50 item 13). The precondition guards the write, and only the write: a reconcile that
 * decides from a version its own last write started from still runs the step (the machine's acts on the Node, the
 * Lease, the pods, and its events) before the 409 tells it so, and every such write attempt is a request more
 * ({@code QuietStatusIT} counts them). So what is kept, each for a reason the precondition does not cover:
 * <ul>
 *   <li>the versions written over and the newest answer ({@link #freshest}): read-your-own-writes before the step, not
 *   after it. JOSDK 5.1.5's temporary resource cache (what {@code PrimaryUpdateAndCacheUtils} fills) does not do
 *   this here: without comparable resourceVersions (its {@code parseResourceVersions}, off by default, since
 *   kube-apiserver's versions are opaque) any event of the resource drops the answer it keeps, and a lagging watch's
 *   late delivery of this reconciler's own earlier write is such an event: the reconcile it wakes reads that older
 *   version again ({@code QuietStatusIT}'s lagging watch). Here a version written over is known as such without
 *   comparing versions;</li>
 *   <li>the status last written ({@link #wroteStatusOf}): whether a status read is this reconciler's own record or
 *   another client's word. A precondition keeps a write from replacing what it did not see; it says nothing of who
 *   wrote what is read, and a foreign status still lands (then it is judged, {@link PinnedNode});</li>
 *   <li>the write in flight and the foreign writes seen ({@link #foreign}, {@link #readFresh}): the watch may deliver
 *   this reconciler's write before its answer returns, and a foreign status write wakes the maintenance through the
 *   second informer while the primary cache may not have it yet. Decided from that cache, a step that changes nothing
 *   writes nothing, so no 409 would ever show the foreign status: the reconcile reads the resource from the API
 *   server instead.</li>
 * </ul>
 */
public final class OwnStatusWrites {
    /** The newest answer to a status write, and every version a write of this NodeMaintenance started from. */
    private record Written(NodeMaintenance answer, Set<String> writtenOver) {}

    private final Map<String, Written> byName = new ConcurrentHashMap<>();
    /** The status of each NodeMaintenance as this reconciler last wrote it (kept until the resource is gone). */
    private final Map<String, NodeMaintenanceStatus> lastWritten = new ConcurrentHashMap<>();
    /**
     * The status each NodeMaintenance's write in flight sends: the watch may deliver the write before its answer
     * returns, and that delivery is this reconciler's own, not a foreign write ({@link #foreign}).
     */
    private final Map<String, NodeMaintenanceStatus> sending = new ConcurrentHashMap<>();
    /**
     * The NodeMaintenances a foreign status write was seen on ({@link #foreign}) whose next reconcile has not read
     * them yet: the wake-up comes from the second informer, and the primary cache the reconcile is handed may not
     * have that write yet (two watches, in no order), so that reconcile reads the resource from the API server.
     */
    private final Set<String> foreignSeen = ConcurrentHashMap.newKeySet();

    private final KubernetesSerialization json;

    OwnStatusWrites(KubernetesSerialization json) {
        this.json = json;
    }

    /** The NodeMaintenance to decide from ({@link #freshest}) and whether its status is this reconciler's own. */
    record Read(NodeMaintenance nm, boolean statusOurs) {}

    /** {@link #freshest} and {@link #wroteStatusOf} in one look, at observe time (the door visits this file once). */
    Read read(NodeMaintenance read) {
        NodeMaintenance fresh = freshest(read);
        return new Read(fresh, wroteStatusOf(fresh));
    }

    /**
     * {@link #read} of a version GET from the API server, not the informer's: the newest, but it says nothing of where
     * the informer is, so the memory of the writes it has yet to deliver is kept (a later reconcile may still read an
     * older version from the cache).
     */
    Read readFromServer(NodeMaintenance fresh) {
        return new Read(fresh, wroteStatusOf(fresh));
    }

    /** {@code read}, or a copy of the newest status write's answer when {@code read} is a version it wrote over. */
    NodeMaintenance freshest(NodeMaintenance read) {
        String name = read.getMetadata().getName();
        Written written = byName.get(name);
        if (written == null) {
            return read;
        }
        String version = read.getMetadata().getResourceVersion();
        if (version == null || !written.writtenOver().contains(version)) {
            byName.remove(name, written); // the informer has caught up with the writes (or moved past them)
            return read;
        }
        NodeMaintenance copy = json.clone(written.answer());
        NodeMaintenance.carryMalformedFields(written.answer(), copy);
        return copy;
    }

    /**
     * Whether {@code read}'s status is the one this reconciler last wrote (or there is none): when it is not, another
     * client wrote it, a backup restored it, or it dates from before this operator instance, and it is a record only
     * ({@link dev.tenure.maintenance.machine.MaintenanceMachine#rederive}).
     */
    boolean wroteStatusOf(NodeMaintenance read) {
        NodeMaintenanceStatus status = read.getStatus();
        return status == null
                || status.equals(lastWritten.get(read.getMetadata().getName()));
    }

    /** The status this reconciler last wrote (or stood by) on {@code name}; null when none since it started. */
    NodeMaintenanceStatus lastWritten(String name) {
        return lastWritten.get(name);
    }

    /**
     * Whether {@code read} carries a status another client wrote: neither the one this reconciler last wrote nor the
     * one it is writing, on a version no write of this reconciler has written over yet. Such a write wakes the NodeMaintenance ({@link NodeMaintenanceWakeUps}), which then writes
     * its own status back (re-derived when a step runs): a status edit changes no generation, so JOSDK's filter
     * drops it, and a maintenance that nothing else wakes (a refused one) would keep the foreign record for good.
     * Remembered until {@link #readFresh}.
     */
    boolean foreign(NodeMaintenance read) {
        String name = read.getMetadata().getName();
        NodeMaintenanceStatus status = read.getStatus();
        boolean foreign = status != null
                && !status.equals(lastWritten.get(name))
                && !status.equals(sending.get(name))
                && !writtenOver(read);
        if (foreign) {
            foreignSeen.add(name);
        }
        return foreign;
    }

    /**
     * Whether {@code read} is a version a status write of this reconciler started from: older than that write's answer,
     * so whatever its status says was already written over (a lagging watch delivers this reconciler's own earlier
     * writes after its later ones: they are not foreign).
     */
    private boolean writtenOver(NodeMaintenance read) {
        Written written = byName.get(read.getMetadata().getName());
        String version = read.getMetadata().getResourceVersion();
        return written != null && version != null && written.writtenOver().contains(version);
    }

    /**
     * Whether a foreign status write was seen on {@code name} since its last reconcile began: that reconcile then
     * decides from the resource as the API server has it, not from a cache that may not show the write yet.
     */
    boolean readFresh(String name) {
        return foreignSeen.remove(name);
    }

    /** A status write of {@code status} to {@code name} is about to be sent. */
    void sending(String name, NodeMaintenanceStatus status) {
        sending.put(name, status);
    }

    /** The status write {@link #sending} announced was not written (refused, or failed): nothing of it is in flight. */
    void notSent(String name) {
        sending.remove(name);
    }

    /** A status read that a machine step started from and left as it was: this reconciler stands by it. */
    void stoodBy(String name, NodeMaintenanceStatus status) {
        lastWritten.put(name, status);
    }

    /** A status write of {@code from} (the version the reconcile decided from) was answered with {@code answer}. */
    void wrote(NodeMaintenance from, NodeMaintenance answer) {
        sending.remove(from.getMetadata().getName());
        if (answer != null && answer.getStatus() != null) {
            lastWritten.put(answer.getMetadata().getName(), answer.getStatus());
        }
        String over = from.getMetadata().getResourceVersion();
        if (answer == null || over == null || over.equals(answer.getMetadata().getResourceVersion())) {
            return;
        }
        byName.compute(from.getMetadata().getName(), (name, was) -> {
            Set<String> writtenOver = ConcurrentHashMap.newKeySet();
            if (was != null) {
                writtenOver.addAll(was.writtenOver());
            }
            writtenOver.add(over);
            return new Written(answer, writtenOver);
        });
    }

    /** The NodeMaintenance is gone (its finalizer removed): nothing more to remember of it. */
    void forget(String name) {
        byName.remove(name);
        lastWritten.remove(name);
        sending.remove(name);
        foreignSeen.remove(name);
    }

    /** How many NodeMaintenances this remembers writes of (for tests: the memory ends). */
    int remembered() {
        return byName.size();
    }
}
