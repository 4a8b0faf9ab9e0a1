package dev.tenure.maintenance.door;

import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.NodeMaintenanceAdmission;
import dev.tenure.maintenance.admission.NodeMaintenanceValidator;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.ScheduleStatus;
import dev.tenure.maintenance.door.DoorDecision.Event;
import dev.tenure.maintenance.door.DoorDecision.Observed;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceHooks;
import dev.tenure.maintenance.machine.MaintenancePlanner;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceSchedule;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The NodeMaintenance door's decide step, for a reconcile and for a cleanup: pure, from what was {@link Observed}, the
 * {@link DoorDecision} that carries everything the act step needs. The admission's word on the request is
 * {@link NodeMaintenanceAdmission#decide}; the statuses of shared requests are {@link SharedRequests}'.
 */
public final class DoorDecisions {

    /** A refused preview looks again this often (its spec may be fixed). */
    static final Duration REFUSED_RETRY = Duration.ofSeconds(30);
    /**
     * A Scheduled maintenance looks again at its opening, and at least this often: the wall clock may be stepped,
     * and the spec edited, in between.
     */
    static final Duration SCHEDULE_LOOK = Duration.ofMinutes(10);

    static final Duration MIN_LOOK = Duration.ofMillis(100);

    /**
     * What the door's decisions depend on besides what was observed.
     *
     * @param queueLook how often a held request looks again without being woken
     * @param renewEvery how often a maintenance that holds its node looks again when refused
     * @param leaseNamePrefix the node lease's name prefix, for a status that pinned its node by its lease's name
     */
    public record Rules(MaintenanceLimits limits, Duration queueLook, Duration renewEvery, String leaseNamePrefix) {}

    private DoorDecisions() {}

    /** What one reconcile does with the NodeMaintenance. */
    public static DoorDecision decide(Observed o, Rules rules) {
        NodeMaintenance nm = o.nm();
        MaintenanceState state = o.state();
        String nodeName = o.nodeName();
        long generation = o.generation();
        if (previewing(nm, state, o.pinned())) {
            return new DoorDecision.Preview(state, nodeName, generation);
        }
        NodeMaintenanceAdmission.Decision admission =
                NodeMaintenanceAdmission.decide(nm, state, o.pinned(), o.view(), o.now(), rules.limits());
        if (admission instanceof NodeMaintenanceAdmission.Unchanged) {
            if (o.statusOurs()) {
                return new DoorDecision.Unchanged();
            }
            // refused for good, but the status is not ours: it stays refused (final until the spec is edited), and
            // says why in this reconciler's words, not in whatever the foreign status says
            String why = NodeMaintenanceAdmission.whyRefused(nm);
            NodeMaintenanceStatus prior = o.prior();
            return refuse(
                    o,
                    nodeName,
                    new NodeMaintenanceAdmission.Refuse(why, !why.equals(prior.getLastError())),
                    generation,
                    rules);
        }
        if (admission instanceof NodeMaintenanceAdmission.Joined joined) {
            Optional<NodeMaintenance> owner = o.sameNode().stream()
                    .filter(other -> other.getMetadata().getName().equals(joined.owner()))
                    .findFirst();
            boolean ownerHoldsNode = owner.map(other -> other.getStatus())
                    .filter(NodeMaintenanceValidator::holdsNode)
                    .isPresent();
            return SharedRequests.follow(
                    o, nodeName, joined.owner(), owner, joiners(o.sameNode(), joined.owner()), ownerHoldsNode, rules);
        }
        if (admission instanceof NodeMaintenanceAdmission.Scheduled scheduled) {
            return scheduled(o, nodeName, scheduled.closed(), generation);
        }
        if (admission instanceof NodeMaintenanceAdmission.Refuse refuse) {
            return refuse(o, nodeName, refuse, generation, rules);
        }
        if (admission instanceof NodeMaintenanceAdmission.Hold hold) {
            NodeMaintenanceStatus prior = o.prior();
            Integer was = prior == null ? null : prior.getQueuePosition();
            List<Event> events = was == null || was != hold.position()
                    ? List.of(new Event(false, MaintenanceEvents.QUEUED, hold.error()))
                    : List.of();
            return hold(o, nodeName, hold.error(), hold.schedule(), Optional.of(hold.position()), events, rules);
        }
        if (admission instanceof NodeMaintenanceAdmission.Blocked blocked) {
            NodeMaintenanceStatus prior = o.prior();
            boolean said = prior != null
                    && prior.getPhase() == Phase.Pending
                    && blocked.error().equals(prior.getLastError());
            List<Event> events =
                    said ? List.of() : List.of(new Event(true, MaintenanceEvents.NOT_ADMISSIBLE, blocked.error()));
            return hold(o, nodeName, blocked.error(), blocked.schedule(), Optional.empty(), events, rules);
        }
        NodeMaintenanceAdmission.Admit admit = (NodeMaintenanceAdmission.Admit) admission;
        return new DoorDecision.Advance(
                state,
                admit,
                nodeName,
                joiners(o.sameNode(), o.name()),
                admit.moved()
                        .filter(note -> admit.announceMove())
                        .map(note -> new Event(true, MaintenanceEvents.NODE_NAME_CHANGED, note)));
    }

    /** Not its time yet: it touches nothing and takes no budget slot; said once per next start. */
    private static DoorDecision scheduled(
            Observed o, String nodeName, MaintenanceSchedule.Verdict.Closed closed, long generation) {
        NodeMaintenanceStatus prior = o.prior();
        Duration look = MaintenancePlanner.min(
                SCHEDULE_LOOK, MaintenancePlanner.max(MIN_LOOK, Duration.between(o.now(), closed.opens())));
        ScheduleStatus was = prior == null ? null : prior.getSchedule();
        ScheduleStatus schedule = ScheduleStatuses.closed(closed);
        List<Event> events = o.state().phase() != Phase.Scheduled
                        || was == null
                        || !schedule.getNextStart().equals(was.getNextStart())
                ? List.of(new Event(
                        false, MaintenanceEvents.SCHEDULED, "waits until " + closed.opens() + ": " + closed.why()))
                : List.of();
        NodeMaintenanceStatus next = status(
                o, o.state().toBuilder().phase(Phase.Scheduled).lastError(null).build(), generation);
        next.setSchedule(schedule);
        NodeMaintenanceStatuses.touch(next, prior, o.now());
        return new DoorDecision.Scheduled(nodeName, next, events, Optional.of(look));
    }

    private static DoorDecision refuse(
            Observed o, String nodeName, NodeMaintenanceAdmission.Refuse refuse, long generation, Rules rules) {
        MaintenanceState state = o.state();
        List<Event> events =
                refuse.announce() ? List.of(new Event(true, MaintenanceEvents.FAILED, refuse.error())) : List.of();
        NodeMaintenanceStatus next = status(
                o,
                state.toBuilder().phase(Phase.Failed).lastError(refuse.error()).build(),
                generation);
        NodeMaintenanceStatuses.touch(next, o.prior(), o.now());
        return new DoorDecision.Refuse(
                nodeName, next, events, state.holdsNode() ? Optional.of(rules.renewEvery()) : Optional.empty());
    }

    /**
     * The operator-wide limits change as other maintenances end: woken then, and looked at again now and then;
     * nothing is touched meanwhile. Pending with {@code error}, at {@code position} in the queue (none for a request
     * passed over in it: {@link NodeMaintenanceAdmission.Blocked}).
     */
    private static DoorDecision hold(
            Observed o,
            String nodeName,
            String error,
            Optional<MaintenanceSchedule.Verdict> verdict,
            Optional<Integer> position,
            List<Event> events,
            Rules rules) {
        NodeMaintenanceStatus prior = o.prior();
        MaintenanceState held =
                o.state().toBuilder().phase(Phase.Pending).lastError(error).build();
        List<Event> overrun = new ArrayList<>();
        ScheduleStatus schedule = ScheduleStatuses.of(o.nm(), prior, verdict, held, o.now(), e -> overrun.add(e));
        NodeMaintenanceStatus next = status(o, held, o.generation());
        next.setQueuePosition(position.orElse(null));
        next.setSchedule(schedule);
        NodeMaintenanceStatuses.touch(next, prior, o.now());
        List<Event> all = new ArrayList<>(events);
        all.addAll(overrun);
        return new DoorDecision.Hold(nodeName, next, all, Optional.of(rules.queueLook()));
    }

    /** The status of a decision that runs no machine step: the node as pinned, no place in the queue. */
    private static NodeMaintenanceStatus status(Observed o, MaintenanceState state, long generation) {
        NodeMaintenanceStatus next = NodeMaintenanceStatuses.toStatus(state, o.prior(), generation, o.now());
        next.setNodeName(o.pinned().orElse(null));
        next.setQueuePosition(null);
        return next;
    }

    /** The names of the maintenances of {@code onNode} that joined {@code owner} and are not being deleted, sorted. */
    static List<String> joiners(List<NodeMaintenance> onNode, String owner) {
        return onNode.stream()
                .filter(nm -> nm.getMetadata().getDeletionTimestamp() == null)
                .filter(nm -> NodeMaintenanceValidator.joinedTo(nm)
                        .filter(owner::equals)
                        .isPresent())
                .map(nm -> nm.getMetadata().getName())
                .sorted()
                .toList();
    }

    /** spec.preview on a maintenance that has not started: plan only, touch nothing. */
    static boolean previewing(NodeMaintenance nm, MaintenanceState state, Optional<String> pinned) {
        return nm.getSpec() != null
                && Boolean.TRUE.equals(nm.getSpec().getPreview())
                && pinned.isEmpty()
                && !state.holdsNode();
    }

    /** What a cleanup does with the deleted NodeMaintenance. */
    public static DoorDecision.Cleanup cleanup(Observed o, Rules rules) {
        NodeMaintenance nm = o.nm();
        MaintenanceState state = o.state();
        // The node it was admitted for, whatever spec.nodeName says now; none when it never named a valid one.
        String nodeName = o.nodeName();
        // a joiner never had the node: its owner's drain state and node metrics stay
        boolean joiner = NodeMaintenanceValidator.joinedTo(nm).isPresent();
        Duration hooksTimeout = hooksTimeout(nm);
        DoorDecision.Forgetting forget = new DoorDecision.Forgetting(
                nodeName == null || joiner ? "" : nodeName,
                o.prior() == null ? Optional.empty() : Optional.of(state),
                hooksTimeout);
        // a status not ours may say Ended (or wipe LeaseHeld) of a maintenance whose node lease we still hold: the
        // lease is the evidence, and what was done on the node is undone
        boolean ended = nodeName != null && (state.phase() != Phase.Ended || o.leaseOurs()) && ownsNode(o, nodeName);
        if (!ended) {
            return new DoorDecision.Forget(nodeName, forget);
        }
        List<Event> before = new ArrayList<>();
        if (o.heldNode()) {
            List<String> joiners = joiners(o.sameNode(), o.name());
            if (!joiners.isEmpty()) {
                return SharedRequests.holdForJoiners(o, nodeName, joiners, rules);
            }
        }
        // The pre-uncordon hooks hold the undo of a maintenance that held the node, and of one whose status was lost
        // (no record either way: the hooks are on the object, so they count). One that never held it (queued, say)
        // restores nothing, so nothing waits.
        boolean maybeHeld = o.heldNode() || o.prior() == null || o.prior().getPhase() == null;
        Optional<DoorDecision.KeepNode> hooks =
                maybeHeld ? preUncordonHooks(o, nodeName, hooksTimeout, before) : Optional.empty();
        if (hooks.isPresent()) {
            return hooks.get();
        }
        // Only a maintenance that had the node says it is out of maintenance (a waiting or refused one never had it,
        // and the node may well stay in someone else's maintenance).
        return new DoorDecision.End(
                nodeName,
                before,
                "NodeMaintenance " + o.name() + " removed; node " + nodeName + " is out of maintenance",
                forget,
                heldByOtherFinalizers(nm) ? Optional.of(endedStatus(o)) : Optional.empty());
    }

    /**
     * Finalizers besides ours (JOSDK's, still on the object while its cleanup runs): the object outlives the undo, and
     * its status is read after it.
     */
    static boolean heldByOtherFinalizers(NodeMaintenance nm) {
        return nm.getMetadata().getFinalizers() != null
                && nm.getMetadata().getFinalizers().size() > 1;
    }

    /** The status of a deleted maintenance once its node is restored and its lease released. */
    private static NodeMaintenanceStatus endedStatus(Observed o) {
        MaintenanceState ended = o.state().toBuilder()
                .phase(Phase.Ended)
                .leaseAcquiredAt(null)
                .waitingFor(null)
                .lease(null)
                .hookWait(null)
                .pendingPods(List.of())
                .pendingPodsRefs(List.of())
                .lastError(null)
                .build();
        NodeMaintenanceStatus status = NodeMaintenanceStatuses.toStatus(ended, o.prior(), o.generation(), o.now());
        if (o.prior() != null) {
            status.setNodeName(o.prior().getNodeName());
        }
        return status;
    }

    /** spec.hooks.timeout as a cleanup reads it: an edited bad spec gets the default, it does not keep the node. */
    private static Duration hooksTimeout(NodeMaintenance nm) {
        try {
            return MaintenanceRequest.hooks(
                            nm.getSpec() == null ? null : nm.getSpec().getHooks())
                    .timeout();
        } catch (IllegalArgumentException e) {
            return MaintenanceHooks.DEFAULT_TIMEOUT;
        }
    }

    /**
     * Pre-uncordon hooks (Cluster API's pre-terminate hook): the node stays in maintenance while any is on the
     * deleted NodeMaintenance, for at most spec.hooks.timeout; the wait is in status.hooks. Empty when the undo
     * may go ahead (no hooks, or they timed out: the node is restored anyway, with a Warning, added to {@code
     * before}).
     */
    private static Optional<DoorDecision.KeepNode> preUncordonHooks(
            Observed o, String nodeOf, Duration hooksTimeout, List<Event> before) {
        MaintenanceState state = o.state();
        MaintenanceHooks.Hooks hooks = MaintenanceHooks.Hooks.of(o.hookAnnotations(), hooksTimeout);
        MaintenanceHooks.Verdict verdict =
                MaintenanceHooks.decide(MaintenanceHooks.Point.PreUncordon, hooks, state.hookWait(), o.now());
        boolean waited = state.hookWait() != null && state.hookWait().point() == MaintenanceHooks.Point.PreUncordon;
        if (verdict instanceof MaintenanceHooks.Verdict.Hold hold) {
            List<Event> events = hold.waiting().equals(state.hookWait())
                    ? List.of()
                    : List.of(new Event(false, MaintenanceEvents.HOOKS_WAITING, hold.message()));
            MaintenanceState held = state.toBuilder().hookWait(hold.waiting()).build();
            NodeMaintenanceStatus next = NodeMaintenanceStatuses.toStatus(held, o.prior(), o.generation(), o.now());
            return Optional.of(
                    new DoorDecision.KeepNode(next, held, events, MaintenancePlanner.max(MIN_LOOK, hold.recheck())));
        }
        if (verdict instanceof MaintenanceHooks.Verdict.TimedOut timedOut) {
            before.add(new Event(
                    true,
                    MaintenanceEvents.HOOK_TIMED_OUT,
                    timedOut.message() + "; restoring node " + nodeOf + " anyway"));
        } else if (waited) {
            before.add(new Event(
                    false, MaintenanceEvents.HOOKS_RELEASED, "pre-uncordon hooks removed; ending the maintenance"));
        }
        return Optional.empty();
    }

    /**
     * Whether undoing is ours to do: we hold the node, or (status lost) no other NodeMaintenance does.
     * A refused duplicate must never uncordon the node another one is draining.
     */
    private static boolean ownsNode(Observed o, String nodeName) {
        NodeMaintenance nm = o.nm();
        if (o.heldNode()) {
            return true;
        }
        if (nm.getSpec() != null
                && Boolean.TRUE.equals(nm.getSpec().getPreview())
                && o.pinned().isEmpty()) {
            return false; // a preview that never started: it never touched the node
        }
        if (NodeMaintenanceValidator.joinedTo(nm).isPresent()) {
            return false; // joined another's maintenance: the owner holds the lease and does the undo
        }
        if (nm.getStatus() != null && nm.getStatus().getPhase() == Phase.Waiting) {
            return false; // waited for a lease held elsewhere: the machine touches the node only with the lease
        }
        if (nm.getStatus() != null
                && nm.getStatus().getPhase() == Phase.Failed
                && o.pinned().isEmpty()) {
            return false; // refused before it was admitted: it never touched the node
        }
        return o.cached().stream()
                .filter(other -> !other.getMetadata().getName().equals(o.name()))
                .filter(other -> nodeName.equals(NodeMaintenanceValidator.nodeOf(other)))
                .noneMatch(NodeMaintenanceValidator::started);
    }
}
