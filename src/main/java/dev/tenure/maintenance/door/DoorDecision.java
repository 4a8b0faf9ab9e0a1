package dev.tenure.maintenance.door;

import dev.tenure.maintenance.admission.NodeMaintenanceAdmission;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.machine.MaintenanceState;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the NodeMaintenance door does with one reconcile, decided once from what it observed ({@link DoorDecisions}),
 * carried out by {@link DoorActs}: the status to write, the events to emit, when to look again, and for the kinds
 * that run the machine, what to run it with.
 */
public sealed interface DoorDecision {

    /** An event to emit on the NodeMaintenance (and, for some reasons, on its node). */
    record Event(boolean warning, String reason, String message) {}

    /**
     * What one reconcile (or cleanup) read: the resource as the door decides from it, and for a request not yet
     * admitted, one cluster view.
     *
     * @param state the machine state rebuilt from the resource's status
     * @param standing where it stands: the node it was admitted for, the node this reconcile is about
     * @param view the cluster view, read only when {@link NodeMaintenanceAdmission#needsClusterView} said so
     * @param sameNode the NodeMaintenances of its node, from the informer the queue and the shares are woken by
     * @param cached every NodeMaintenance in the primary cache (read on cleanup only: who else holds the node)
     * @param hookAnnotations the annotations as the API server has them now, when the cached copy carries hooks
     *     (read on cleanup only, by a maintenance that holds its node)
     * @param now the reconciler's clock when the reconcile began
     * @param statusOurs the status is this reconciler's own write ({@link OwnStatusWrites#wroteStatusOf}), else a
     *     record only: another client's, a restored backup's, or one from before this operator instance
     * @param leaseOurs for a status not ours: this operator holds the pinned node's maintenance Lease for this
     *     maintenance, as read ({@link PinnedNode}); what was done on the node is then ours to undo, whatever the
     *     status says (false for a status that is ours: its conditions say it)
     */
    record Observed(
            NodeMaintenance nm,
            MaintenanceState state,
            NodeMaintenanceAdmission.Standing standing,
            Optional<NodeMaintenanceAdmission.ClusterReads> view,
            List<NodeMaintenance> sameNode,
            List<NodeMaintenance> cached,
            Map<String, String> hookAnnotations,
            Instant now,
            boolean statusOurs,
            boolean leaseOurs) {
        /** As read for a status that is ours, or with no lease of ours in evidence. */
        Observed(
                NodeMaintenance nm,
                MaintenanceState state,
                NodeMaintenanceAdmission.Standing standing,
                Optional<NodeMaintenanceAdmission.ClusterReads> view,
                List<NodeMaintenance> sameNode,
                List<NodeMaintenance> cached,
                Map<String, String> hookAnnotations,
                Instant now,
                boolean statusOurs) {
            this(nm, state, standing, view, sameNode, cached, hookAnnotations, now, statusOurs, false);
        }

        /** The maintenance held its node: its status says so, or (a status not ours) its node lease does. */
        boolean heldNode() {
            return state.holdsNode() || leaseOurs;
        }

        NodeMaintenanceStatus prior() {
            return nm.getStatus();
        }

        Optional<String> pinned() {
            return standing.pinned();
        }

        String nodeName() {
            return standing.nodeName();
        }

        long generation() {
            return standing.generation();
        }

        String name() {
            return nm.getMetadata().getName();
        }
    }

    /** A decision whose status is known before anything is done: write it (when it differs), emit, look again. */
    sealed interface Settled extends DoorDecision {
        /** The node the reconcile is about (for the log), null when none. */
        String nodeName();

        NodeMaintenanceStatus status();

        List<Event> events();

        Optional<Duration> look();
    }

    /**
     * Refused before it held its node and the spec not edited since, as this reconciler wrote it: nothing to do,
     * nothing read.
     */
    record Unchanged() implements DoorDecision {}

    /** Refused (spec, node, a maintenance ahead of it on the node): phase Failed. */
    record Refuse(String nodeName, NodeMaintenanceStatus status, List<Event> events, Optional<Duration> look)
            implements Settled {}

    /**
     * The operator-wide limits hold it Pending at its place in the queue, or out of it when a limit of its own holds
     * it (the control-plane budget); woken when the queue moves.
     */
    record Hold(String nodeName, NodeMaintenanceStatus status, List<Event> events, Optional<Duration> look)
            implements Settled {}

    /** spec.schedule: not its time yet; it touches nothing and takes no budget slot. */
    record Scheduled(String nodeName, NodeMaintenanceStatus status, List<Event> events, Optional<Duration> look)
            implements Settled {}

    /** spec.join: it shares its node's maintenance by another; its status follows the owner's. */
    record Join(String nodeName, NodeMaintenanceStatus status, List<Event> events, Optional<Duration> look)
            implements Settled {}

    /**
     * The maintenance it joined has ended: its status is cleared (written even when equal) and the next reconcile
     * admits it like any other.
     */
    record LeaveShare(String nodeName, NodeMaintenanceStatus status, List<Event> events, Optional<Duration> look)
            implements Settled {}

    /** spec.preview on a maintenance that has not started: plan only, touch nothing. */
    record Preview(MaintenanceState state, String nodeName, long generation) implements DoorDecision {}

    /**
     * Admitted now or before: one step of the machine, then the status of that step.
     *
     * @param state the machine state the step starts from
     * @param admit the admission's word: the request, whether a failed drain is retried, the Node as read, the move
     *     note, the schedule's verdict
     * @param nodeName the node the maintenance is (now) pinned to
     * @param sharedWith the maintenances that joined it
     * @param moveEvent the event that says spec.nodeName was edited away from the pinned node, when that is new
     */
    record Advance(
            MaintenanceState state,
            NodeMaintenanceAdmission.Admit admit,
            String nodeName,
            List<String> sharedWith,
            Optional<Event> moveEvent)
            implements DoorDecision {
        Optional<Node> node() {
            return admit.node();
        }
    }

    /** What a cleanup (the NodeMaintenance deleted) does. */
    sealed interface Cleanup {}

    /**
     * The node stays in maintenance for now (joiners remain, or pre-uncordon hooks): status, events, look again;
     * {@code state} is the machine's state that {@code status} shows (what the stage timers read).
     */
    record KeepNode(NodeMaintenanceStatus status, MaintenanceState state, List<Event> events, Duration look)
            implements Cleanup {}

    /**
     * Undo the maintenance of {@code nodeName} ({@code before}: the events that precede it), then forget it.
     *
     * @param removed the message of the event that says the node is out of maintenance
     * @param ended the status to write once the node is restored, when the object outlives our finalizer (another
     *     controller's finalizer holds its deletion): what is true then (phase Ended, no lease held, not cordoned),
     *     not the Succeeded and LeaseHeld=True of before; empty when the object goes with our finalizer
     */
    record End(
            String nodeName,
            List<Event> before,
            String removed,
            Forgetting forget,
            Optional<NodeMaintenanceStatus> ended)
            implements Cleanup {}

    /** Nothing on the node is ours to undo: only forget it. */
    record Forget(String nodeName, Forgetting forget) implements Cleanup {}

    /**
     * What the machine forgets with a deleted maintenance, as the decision read it (the act step converts nothing).
     *
     * @param node the node whose drain state and metrics go with it ("" for none: a joiner, or no node named)
     * @param last the machine's state its status showed, for the stage timers; empty when it has no status
     * @param hooksTimeout spec.hooks.timeout as the cleanup read it (an edited bad spec: the default)
     */
    record Forgetting(String node, Optional<MaintenanceState> last, Duration hooksTimeout) {}
}
