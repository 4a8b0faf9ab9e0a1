package dev.tenure.maintenance.door;

import dev.tenure.maintenance.admission.JoinedSpecs;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.door.DoorDecision.Event;
import dev.tenure.maintenance.door.DoorDecision.Observed;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Shared requests (spec.join, issue 29), decided: the status of a maintenance that joined another, and the owner's
 * wait for its joiners before it restores the node. The owner keeps the one node lease and the undo; a joiner writes
 * nothing but its own status. Pure, like the rest of {@link DoorDecisions}.
 */
final class SharedRequests {

    private SharedRequests() {}

    /**
     * A joined maintenance (spec.join): it touches nothing on the node; its status follows the owner's phase and drain
     * progress, names who shares the node ({@code status.joinedTo}, {@code status.sharedWith}, condition
     * {@code Shared}). When the owner is gone or ended (its window ran out, it was refused), it is a request of its own
     * again: its status is cleared and the next reconcile admits it like any other.
     */
    static DoorDecision follow(
            Observed o,
            String nodeName,
            String ownerName,
            Optional<NodeMaintenance> owner,
            List<String> ownerJoiners,
            boolean ownerHoldsNode,
            DoorDecisions.Rules rules) {
        NodeMaintenanceStatus prior = o.prior();
        long generation = o.generation();
        Optional<Phase> ownerPhase = owner.map(nm -> nm.getStatus()).map(NodeMaintenanceStatus::getPhase);
        List<String> sharers = new ArrayList<>();
        sharers.add(ownerName);
        sharers.addAll(ownerJoiners.stream().filter(n -> !n.equals(o.name())).toList());
        boolean ownerEnded = owner.isEmpty()
                || ownerPhase.orElse(null) == Phase.Ended
                || (ownerPhase.orElse(null) == Phase.Failed && !ownerHoldsNode);
        if (ownerEnded) {
            String message = "the maintenance it joined, " + ownerName + ", has ended; it goes ahead on its own";
            NodeMaintenanceStatus fresh = new NodeMaintenanceStatus();
            fresh.setPhase(Phase.Pending);
            fresh.setLastError(message);
            fresh.setObservedGeneration(generation);
            NodeMaintenanceStatuses.touch(fresh, prior, o.now());
            return new DoorDecision.LeaveShare(
                    nodeName,
                    fresh,
                    List.of(new Event(false, MaintenanceEvents.SHARE_ENDED, message)),
                    Optional.of(DoorDecisions.MIN_LOOK));
        }
        Optional<String> refused = JoinedSpecs.refusal(o.nm(), owner.get());
        if (refused.isPresent()) {
            return leave(o, nodeName, refused.get());
        }
        NodeMaintenanceStatus ownerStatus = owner.get().getStatus();
        Phase phase = ownerPhase.orElse(Phase.Pending);
        NodeMaintenanceStatus next = NodeMaintenanceStatuses.toStatus(
                o.state().toBuilder().phase(phase).lastError(null).build(), prior, generation, o.now());
        next.setDrainProgress(ownerStatus == null ? null : ownerStatus.getDrainProgress());
        next.setNodeName(nodeName);
        next.setJoinedTo(ownerName);
        next.setSharedWith(sharers);
        String message = "shares the maintenance of node " + nodeName + " by " + ownerName
                + " (which holds the node lease and does the undo); the node is restored when the last of "
                + String.join(", ", sharers) + " and this one ends";
        next.getConditions().add(NodeMaintenanceStatuses.shared(message, prior, generation, o.now()));
        NodeMaintenanceStatuses.touch(next, prior, o.now());
        List<Event> events = prior == null || !ownerName.equals(prior.getJoinedTo())
                ? List.of(new Event(false, MaintenanceEvents.JOINED, message))
                : List.of();
        return new DoorDecision.Join(nodeName, next, events, Optional.of(rules.queueLook()));
    }

    /**
     * A joiner whose spec (or hook annotations) do not fit the maintenance it joins — created without the webhook's
     * check, or edited since it joined: refused ({@link JoinedSpecs}), it leaves the share (phase Failed, no joinedTo,
     * so the owner no longer waits for it) and stays refused until its spec is edited. Nothing of it held the node.
     */
    private static DoorDecision leave(Observed o, String nodeName, String refused) {
        boolean shared = o.prior() != null && o.prior().getJoinedTo() != null;
        String message = shared ? refused + "; it no longer shares the maintenance of node " + nodeName : refused;
        NodeMaintenanceStatus failed = new NodeMaintenanceStatus();
        failed.setPhase(Phase.Failed);
        failed.setLastError(message);
        failed.setObservedGeneration(o.generation());
        NodeMaintenanceStatuses.touch(failed, o.prior(), o.now());
        return new DoorDecision.Refuse(
                nodeName, failed, List.of(new Event(true, MaintenanceEvents.FAILED, message)), Optional.empty());
    }

    /**
     * Shared requests: the owner of a node's maintenance keeps the node (lease renewed by its heartbeat, node cordoned)
     * while maintenances that joined it remain, and restores it only when the last is gone; the wait is in
     * lastError and status.sharedWith. Woken by each joiner's delete (same-node fan-out of {@link
     * NodeMaintenanceWakeUps#wakes}), while {@code joiners} remain.
     */
    static DoorDecision.KeepNode holdForJoiners(
            Observed o, String nodeName, List<String> joiners, DoorDecisions.Rules rules) {
        long generation = o.generation();
        String message = "deleted; node " + nodeName + " stays in maintenance until the NodeMaintenances that joined"
                + " it end: " + String.join(", ", joiners);
        NodeMaintenanceStatus prior = o.prior();
        MaintenanceState held = o.state().toBuilder().lastError(message).build();
        NodeMaintenanceStatus next = NodeMaintenanceStatuses.toStatus(held, prior, generation, o.now());
        next.setNodeName(nodeName); // the pinned node, not a foreign status's word
        next.setSharedWith(joiners);
        NodeMaintenanceStatuses.touch(next, prior, o.now());
        List<Event> events = !next.equals(prior) && (prior == null || !message.equals(prior.getLastError()))
                ? List.of(new Event(false, MaintenanceEvents.SHARED_HOLD, message))
                : List.of();
        return new DoorDecision.KeepNode(next, held, events, rules.queueLook());
    }
}
