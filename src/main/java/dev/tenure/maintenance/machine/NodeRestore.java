package dev.tenure.maintenance.machine;

import dev.tenure.election.ClaimResult;
import dev.tenure.election.LeaseHeldElsewhere;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseStore;
import dev.tenure.election.LeaseStoreException;
import dev.tenure.election.WorkFence;
import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceMachine.Step;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The machine's undo: the node restored to its state before maintenance (cordon, taints, our condition) and the
 * lease released — at the end (deletion, window over, hooks timed out) and when the node itself is gone.
 */
public final class NodeRestore {

    private static final Logger LOG = Logger.getLogger(NodeRestore.class);

    private final LeaseStore leases;
    private final NodeLease nodeLease;
    private final LeaseStep leaseStep;
    private final NodeCordon cordon;
    private final DrainStep drainStep;
    private final MaintenanceMetrics metrics;
    private final MaintenanceSettings settings;
    private final Clock clock;

    NodeRestore(
            LeaseStore leases,
            NodeLease nodeLease,
            LeaseStep leaseStep,
            NodeCordon cordon,
            DrainStep drainStep,
            MaintenanceMetrics metrics,
            MaintenanceSettings settings,
            Clock clock) {
        this.leases = leases;
        this.nodeLease = nodeLease;
        this.leaseStep = leaseStep;
        this.cordon = cordon;
        this.drainStep = drainStep;
        this.metrics = metrics;
        this.settings = settings;
        this.clock = clock;
    }

    /** See {@link MaintenanceMachine#end}. */
    Optional<String> end(String nodeName, MaintenanceEvents events) {
        return end(nodeName, events, Optional.empty());
    }

    /** See {@link MaintenanceMachine#end(String, MaintenanceEvents, Optional)}. */
    Optional<String> end(String nodeName, MaintenanceEvents events, Optional<String> handTo) {
        LeaseKey key = nodeLease.keyOf(nodeName);
        leaseStep.stopRenewing(key);
        Optional<LeaseRecord> lease = leases.find(key).filter(LeaseRecord::hasHolder);
        if (lease.isEmpty()) {
            if (handTo.isPresent()) {
                handOver(nodeName, handTo.get(), events);
            } else {
                restoreNode(nodeName, events); // nobody holds the node: ours to undo
            }
            return Optional.empty();
        }
        // The undo is a side effect like the others: only under the node lease (claimed again: a predecessor's is
        // taken over, ours renewed, and a long idle one shortened first), never under another controller's
        // maintenance of the node. The heartbeat was stopped above, so nothing lengthens it again meanwhile.
        ClaimResult claim = nodeLease.claim(
                nodeName, null, clock.instant().plus(settings.leaseDuration()), LeaseHold.acting(settings));
        if (claim instanceof LeaseHeldElsewhere elsewhere) {
            drainStep.forget(nodeName);
            metrics.nodeLeft(nodeName);
            // Not ours any more: nothing is written to the node. What our maintenance left on it stays (the condition
            // and the record of the state before are what an admin finishes the undo from): said exactly, once.
            String left = Optional.ofNullable(cordon.read(nodeName))
                    .flatMap(NodeLeftBehind::describe)
                    .orElse("node " + nodeName + " carries nothing of Tenure's maintenance");
            String message = "lease " + key + " is held by " + elsewhere.holder() + ", not by Tenure: node " + nodeName
                    + " was not restored (that holder's maintenance may need it); " + left;
            events.emit(true, MaintenanceEvents.NODE_LEFT_TO_HOLDER, message);
            return Optional.of("node " + nodeName + " was NOT restored: its lease " + key + " is held by "
                    + elsewhere.holder() + " (see event " + MaintenanceEvents.NODE_LEFT_TO_HOLDER + ")");
        }
        if (handTo.isPresent()) {
            handOver(nodeName, handTo.get(), events);
        } else {
            WorkFence.bounded(
                    leaseStep.bound(key, nodeLease.sendUntil(claim.held().orElseThrow())), () -> {
                        restoreNode(nodeName, events);
                        return null;
                    });
        }
        nodeLease.release(nodeName);
        return Optional.empty();
    }

    /** See {@link MaintenanceMachine#restoreNode}. */
    void restoreNode(String nodeName, MaintenanceEvents events) {
        NodeCordon.Unmarked unmarked = cordon.unmark(nodeName);
        if (!unmarked.keptCordoned().isEmpty()) {
            // what was restored, what was kept and why: an admin's mark made during the maintenance is not undone
            events.emit(
                    true,
                    MaintenanceEvents.KEPT_CORDONED,
                    "node " + nodeName + " restored but kept cordoned: Tenure's taint " + NodeMarks.DRAIN_TAINT.getKey()
                            + " and condition " + NodeMarks.CONDITION_TYPE + " removed; spec.unschedulable and taint "
                            + NodeMarks.UNSCHEDULABLE_TAINT.getKey() + " kept for "
                            + String.join("; ", unmarked.keptCordoned())
                            + " (uncordon it when that is dealt with: kubectl uncordon " + nodeName + ")");
        } else if (unmarked.changed()) {
            events.emit(
                    false,
                    MaintenanceEvents.UNCORDONED,
                    "node " + nodeName + " restored to its state before maintenance (taints and condition removed)");
        }
        drainStep.forget(nodeName);
        metrics.nodeLeft(nodeName);
    }

    /** See {@link MaintenanceMachine#handOver}. */
    void handOver(String nodeName, String to, MaintenanceEvents events) {
        events.emit(
                false,
                MaintenanceEvents.HANDED_OVER,
                "node " + nodeName + " stays in maintenance: handed over to " + to + " (cordon, taints, condition and"
                        + " the record of its state before maintenance left for it; it restores the node when it ends)");
        drainStep.forget(nodeName);
        metrics.nodeLeft(nodeName);
    }

    /** See {@link MaintenanceMachine#forget}. */
    void forget(String maintenance, String nodeName) {
        metrics.forget(maintenance, nodeName);
        drainStep.forget(nodeName);
    }

    /**
     * Window over: the maintenance ends by itself (phase Ended). The node is restored, or, when another door's request
     * for it is active ({@code handTo}), handed over to that request as at a deletion.
     */
    Step endOfWindow(
            MaintenanceRequest request, MaintenanceState.Builder s, MaintenanceEvents events, Optional<String> handTo) {
        String nodeName = request.nodeName();
        Optional<String> left;
        try {
            left = end(nodeName, events, handTo);
        } catch (LeaseStoreException | KubernetesClientException e) {
            return new Step(
                    s.lastError("ending maintenance of node " + nodeName + " after its window: " + e.getMessage())
                            .build(),
                    Optional.of(settings.drainPollInterval()));
        }
        events.emit(
                left.isPresent(),
                MaintenanceEvents.REMOVED,
                "maintenance window of " + GoDuration.format(request.window().get()) + " is over; "
                        + left.orElse(handTo.map(to -> "node " + nodeName + " stays in maintenance for " + to)
                                .orElse("node " + nodeName + " is back in service")));
        return new Step(
                s.phase(Phase.Ended)
                        .leaseAcquiredAt(null)
                        .waitingFor(null)
                        .pendingPods(List.of())
                        .pendingPodsRefs(List.of())
                        .lastError(null)
                        .lease(null)
                        .build(),
                Optional.empty());
    }

    /**
     * A bounded stage's timeout passed with onTimeout Restore (for pre-drain hooks, their default: the maintenance ends
     * cleanly rather than draining under a hook nobody removed, or waiting forever): the same undo as deleting the maintenance (node
     * restored, taints and condition removed, lease released), then phase Ended with {@code timedOut} (which names the
     * stage) in lastError and a {@value MaintenanceEvents#TIMEOUT_RESTORED} Warning. When another door's request for
     * the node is active ({@code handTo}), the node is handed over to it instead of restored, as at a deletion.
     */
    Step endAfterTimeout(
            MaintenanceRequest request,
            MaintenanceState.Builder s,
            String timedOut,
            MaintenanceEvents events,
            Optional<String> handTo) {
        String nodeName = request.nodeName();
        Optional<String> left;
        try {
            left = end(nodeName, events, handTo);
        } catch (LeaseStoreException | KubernetesClientException e) {
            return new Step(
                    s.lastError("ending maintenance of node " + nodeName + " after a timeout: " + e.getMessage())
                            .build(),
                    Optional.of(settings.drainPollInterval()));
        }
        String message = timedOut + "; maintenance of node " + nodeName + " ended: "
                + left.orElse(handTo.map(to -> "node handed over to " + to + ", lease released")
                        .orElse("node restored, lease released"));
        events.emit(true, MaintenanceEvents.TIMEOUT_RESTORED, message);
        return new Step(
                s.phase(Phase.Ended)
                        .leaseAcquiredAt(null)
                        .waitingFor(null)
                        .pendingPods(List.of())
                        .pendingPodsRefs(List.of())
                        .lastError(message)
                        .lease(null)
                        .build(),
                Optional.empty());
    }

    /** The node is gone: deleted mid-maintenance (the lease goes back), or never there (Failed, looked at again). */
    Step nodeMissing(String nodeName, MaintenanceState prior, MaintenanceState.Builder s, MaintenanceEvents events) {
        if (prior.holdsNode()) {
            // Deleted mid-maintenance: nothing left to drain or restore; give the lease back.
            leaseStep.stopRenewing(nodeLease.keyOf(nodeName));
            try {
                nodeLease.release(nodeName);
            } catch (LeaseStoreException | KubernetesClientException e) {
                LOG.debugf(e, "releasing lease of deleted node %s", nodeName);
            }
            drainStep.forget(nodeName);
            metrics.nodeLeft(nodeName);
            s.leaseAcquiredAt(null)
                    .cordonedAt(null)
                    .nodeGone(true)
                    .lease(null)
                    .pendingPods(List.of())
                    .pendingPodsRefs(List.of());
            if (prior.phase() == Phase.Succeeded) {
                // Drain, then delete the node: the usual decommission, and a clean end.
                events.emit(
                        false,
                        MaintenanceEvents.NODE_DELETED,
                        "node " + nodeName
                                + " was deleted after its drain succeeded; maintenance ended, lease released");
                return new Step(s.phase(Phase.Ended).lastError(null).build(), Optional.empty());
            }
            String message = "node " + nodeName + " was deleted during maintenance";
            events.emit(true, MaintenanceEvents.FAILED, message);
            return new Step(s.phase(Phase.Failed).lastError(message).build(), Optional.empty());
        }
        if (prior.nodeGone()) {
            return new Step(prior, Optional.empty()); // already reported: the node was deleted during maintenance
        }
        return new Step(
                s.phase(Phase.Failed)
                        .lastError("spec.nodeName: node " + nodeName + " not found")
                        .build(),
                Optional.of(DrainStep.NODE_MISSING_RETRY));
    }
}
