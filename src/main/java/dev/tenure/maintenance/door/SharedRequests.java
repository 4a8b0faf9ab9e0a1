package dev.tenure.maintenance.door;

import dev.tenure.maintenance.admission.NodeMaintenanceAdmission;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * Shared requests (spec.join, issue 29): the status of a maintenance that joined another, and the owner's wait for
 * its joiners before it restores the node. The owner keeps the one node lease and the undo; a joiner writes nothing
 * but its own status.
 */
public final class SharedRequests {
    private final Clock clock;
    private final MaintenanceMetrics metrics;
    private final Duration queueLook;
    private final BiConsumer<NodeMaintenance, NodeMaintenanceStatus> writer;

    SharedRequests(
            Clock clock,
            MaintenanceMetrics metrics,
            Duration queueLook,
            BiConsumer<NodeMaintenance, NodeMaintenanceStatus> writer) {
        this.clock = clock;
        this.metrics = metrics;
        this.queueLook = queueLook;
        this.writer = writer;
    }

    /**
     * A joined maintenance (spec.join): it touches nothing on the node; its status follows the owner's phase and drain
     * progress, names who shares the node ({@code status.joinedTo}, {@code status.sharedWith}, condition
     * {@code Shared}). When the owner is gone or ended (its window ran out, it was refused), it is a request of its own
     * again: its status is cleared and the next reconcile admits it like any other.
     */
    UpdateControl<NodeMaintenance> follow(
            NodeMaintenance nm,
            NodeMaintenanceStatus prior,
            MaintenanceState state,
            String nodeName,
            String ownerName,
            InformerEventSource<NodeMaintenance, NodeMaintenance> changes,
            Context<NodeMaintenance> context,
            MaintenanceEvents events,
            Instant now) {
        long generation = NodeMaintenanceAdmission.generation(nm);
        Optional<NodeMaintenance> owner = NodeMaintenanceWakeUps.onNode(changes, nodeName, context).stream()
                .filter(o -> o.getMetadata().getName().equals(ownerName))
                .findFirst();
        Optional<Phase> ownerPhase = owner.map(NodeMaintenance::getStatus).map(NodeMaintenanceStatus::getPhase);
        boolean ownerEnded = owner.isEmpty()
                || ownerPhase.orElse(null) == Phase.Ended
                || (ownerPhase.orElse(null) == Phase.Failed
                        && !NodeMaintenanceStatuses.holdsNode(owner.get().getStatus()));
        if (ownerEnded) {
            String message = "the maintenance it joined, " + ownerName + ", has ended; it goes ahead on its own";
            events.emit(false, MaintenanceEvents.SHARE_ENDED, message);
            NodeMaintenanceStatus fresh = new NodeMaintenanceStatus();
            fresh.setPhase(Phase.Pending);
            fresh.setLastError(message);
            fresh.setObservedGeneration(generation);
            NodeMaintenanceStatuses.touch(fresh, prior, clock.instant());
            writer.accept(nm, fresh);
            return UpdateControl.<NodeMaintenance>noUpdate().rescheduleAfter(NodeMaintenanceReconciler.MIN_LOOK);
        }
        NodeMaintenanceStatus ownerStatus = owner.get().getStatus();
        Phase phase = ownerPhase.orElse(Phase.Pending);
        NodeMaintenanceStatus next = NodeMaintenanceStatuses.toStatus(
                state.toBuilder().phase(phase).lastError(null).build(), prior, generation, now);
        next.setDrainProgress(ownerStatus == null ? null : ownerStatus.getDrainProgress());
        next.setNodeName(nodeName);
        next.setJoinedTo(ownerName);
        List<String> sharers = new java.util.ArrayList<>();
        sharers.add(ownerName);
        sharers.addAll(NodeMaintenanceWakeUps.joiners(changes, owner.get(), nodeName, context).stream()
                .filter(n -> !n.equals(nm.getMetadata().getName()))
                .toList());
        next.setSharedWith(sharers);
        String message = "shares the maintenance of node " + nodeName + " by " + ownerName
                + " (which holds the node lease and does the undo); the node is restored when the last of "
                + String.join(", ", sharers) + " and this one ends";
        next.getConditions().add(NodeMaintenanceStatuses.shared(message, prior, generation, now));
        if (prior == null || !ownerName.equals(prior.getJoinedTo())) {
            events.emit(false, MaintenanceEvents.JOINED, message);
        }
        NodeMaintenanceStatuses.touch(next, prior, clock.instant());
        metrics.phase(nm.getMetadata().getName(), next.getPhase());
        if (!next.equals(prior)) {
            writer.accept(nm, next);
        }
        return UpdateControl.<NodeMaintenance>noUpdate().rescheduleAfter(queueLook);
    }

    /**
     * Shared requests: the owner of a node's maintenance keeps the node (lease renewed by its heartbeat, node cordoned)
     * while maintenances that joined it remain, and restores it only when the last is gone; the wait is in
     * lastError and status.sharedWith. Woken by each joiner's delete (same-node fan-out of {@link NodeMaintenanceWakeUps#wakes}).
     */
    Optional<Duration> holdForJoiners(
            NodeMaintenance nm,
            MaintenanceState state,
            String nodeName,
            InformerEventSource<NodeMaintenance, NodeMaintenance> changes,
            Context<NodeMaintenance> context,
            MaintenanceEvents events) {
        List<String> joiners = NodeMaintenanceWakeUps.joiners(changes, nm, nodeName, context);
        if (joiners.isEmpty()) {
            return Optional.empty();
        }
        String message = "deleted; node " + nodeName + " stays in maintenance until the NodeMaintenances that joined"
                + " it end: " + String.join(", ", joiners);
        NodeMaintenanceStatus prior = nm.getStatus();
        NodeMaintenanceStatus next = NodeMaintenanceStatuses.toStatus(
                state.toBuilder().lastError(message).build(),
                prior,
                NodeMaintenanceAdmission.generation(nm),
                clock.instant());
        next.setNodeName(prior == null ? null : prior.getNodeName());
        next.setSharedWith(joiners);
        NodeMaintenanceStatuses.touch(next, prior, clock.instant());
        if (!next.equals(prior)) {
            if (prior == null || !message.equals(prior.getLastError())) {
                events.emit(false, MaintenanceEvents.SHARED_HOLD, message);
            }
            writer.accept(nm, next);
        }
        return Optional.of(queueLook);
    }
}
