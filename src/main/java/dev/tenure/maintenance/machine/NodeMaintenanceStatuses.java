package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.DrainPlanStatus;
import dev.tenure.maintenance.api.HookStatus;
import dev.tenure.maintenance.api.LeaseStatus;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.DrainReport;
import dev.tenure.maintenance.drain.DrainWaves;
import dev.tenure.maintenance.drain.DrainedWorkloads;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Maps the machine's {@link MaintenanceState} to a NodeMaintenance status and back. The step
 * timestamps live in the conditions' lastTransitionTime (LeaseHeld, Cordoned, LeadersHandedOver,
 * Drained), so a restarted operator picks up where the status says; a condition's lastTransitionTime
 * moves only when its status changes.
 */
public final class NodeMaintenanceStatuses {

    public static final String LEASE_HELD = "LeaseHeld";
    public static final String CORDONED = "Cordoned";
    public static final String LEADERS_HANDED_OVER = "LeadersHandedOver";
    public static final String DRAINED = "Drained";
    /** Reason of a False Cordoned condition: the node was deleted while in maintenance. */
    public static final String NODE_DELETED = "NodeDeleted";
    /** Reason of a False Cordoned condition: the write that cordons and taints the node failed (message: how). */
    public static final String NODE_WRITE_FAILED = "NodeWriteFailed";
    /** Reason of a True Cordoned condition: cordoned and tainted, but writing the Node condition failed (message: how). */
    public static final String CONDITION_WRITE_FAILED = "ConditionWriteFailed";

    /**
     * Reason of a False Drained (and LeadersHandedOver) condition of an Ended maintenance: the step never finished and
     * never will (no "Draining" or "Pending" once nothing is in progress).
     */
    public static final String ENDED_UNDRAINED = "Ended";

    /** Reason of a False LeaseHeld condition: another holder has the node lease now (phase Waiting). */
    public static final String LEASE_WAITING = "LeaseWaiting";

    /**
     * In a Waiting LeaseHeld message, before the RFC 3339 time this maintenance first took the lease: it began, and the
     * node carries its marks, though the lease is held elsewhere now.
     */
    static final String HELD_FROM = "; this maintenance held it from ";

    private NodeMaintenanceStatuses() {}

    /** The machine state recorded in {@code status} (initial state for a new resource). */
    public static MaintenanceState toState(NodeMaintenanceStatus status) {
        if (status == null) {
            return MaintenanceState.initial();
        }
        MaintenanceState.Builder b = new MaintenanceState.Builder()
                .phase(status.getPhase())
                .leaseAcquiredAt(
                        Optional.ofNullable(whenTrue(status, LEASE_HELD)).orElseGet(() -> heldFrom(status)))
                .cordonedAt(whenTrue(status, CORDONED))
                .handedOverAt(whenTrue(status, LEADERS_HANDED_OVER))
                .handoverStartedAt(when(status, LEADERS_HANDED_OVER, "False", "InProgress"))
                .drainedAt(whenTrue(status, DRAINED))
                .drainStartedAt(Optional.ofNullable(when(status, DRAINED, "False", "Draining"))
                        .orElse(when(status, DRAINED, "False", "DrainFailed")))
                .totalPods(status.getTotalpods())
                .evictionPods(status.getEvictionPods())
                .drainProgress(status.getDrainProgress() == null ? 0 : status.getDrainProgress())
                .pendingPods(status.getPendingPods())
                .pendingPodsRefs(status.getPendingPodsRefs())
                .lastError(status.getLastError())
                .errorOnLeaseCount(status.getErrorOnLeaseCount() == null ? 0 : status.getErrorOnLeaseCount())
                .lease(status.getLease())
                .waitingFor(
                        status.getPhase() == Phase.Waiting && status.getLease() != null
                                ? status.getLease().getHolderIdentity()
                                : null)
                .cordonFailure(condition(status, CORDONED)
                        .filter(c ->
                                NODE_WRITE_FAILED.equals(c.getReason()) || CONDITION_WRITE_FAILED.equals(c.getReason()))
                        .map(Condition::getMessage)
                        .orElse(null))
                .nodeGone(condition(status, CORDONED)
                        .filter(c -> NODE_DELETED.equals(c.getReason()))
                        .isPresent())
                .waves(wavesOf(status.getDrainPlan()))
                .attachedVolumes(
                        status.getDrainPlan() == null
                                ? null
                                : status.getDrainPlan().getVolumeAttachments());
        condition(status, LEADERS_HANDED_OVER).ifPresent(c -> b.handoverMessage(c.getMessage()));
        b.hookWait(hookWait(status.getHooks()));
        b.timeoutsPassed(status.getTimeoutsPassed());
        b.placement(status.getPlacement());
        b.surges(
                status.getSurges() == null
                        ? null
                        : status.getSurges().stream()
                                .map(dev.tenure.maintenance.api.SurgeStatus::copy)
                                .toList());
        b.drainedWorkloads(new DrainedWorkloads(
                status.getDrainedWorkloads(),
                status.getDrainedWorkloadsNotListed() == null
                        ? 0
                        : Math.max(0, status.getDrainedWorkloadsNotListed())));
        return b.build();
    }

    private static MaintenanceHooks.Wait hookWait(HookStatus h) {
        if (h == null || h.getPoint() == null || h.getSince() == null) {
            return null;
        }
        try {
            return new MaintenanceHooks.Wait(
                    MaintenanceHooks.Point.valueOf(h.getPoint()),
                    h.getWaitingFor() == null ? List.of() : h.getWaitingFor(),
                    parse(h.getSince()));
        } catch (IllegalArgumentException | java.time.DateTimeException e) {
            return null; // not ours to trust (hand-edited): the wait starts again
        }
    }

    private static HookStatus hookStatus(MaintenanceHooks.Wait w) {
        return w == null ? null : new HookStatus(w.point().name(), w.owners(), text(w.since()));
    }

    /**
     * lastUpdate again after the front door set fields of its own on {@code next} (node name, schedule): it moves
     * only when the status differs from {@code prior}.
     */
    public static void touch(NodeMaintenanceStatus next, NodeMaintenanceStatus prior, Instant now) {
        next.setLastUpdate(prior == null ? null : prior.getLastUpdate());
        if (!next.equals(prior)) {
            next.setLastUpdate(text(now));
        }
    }

    public static final String SHARED = "Shared";

    /**
     * Condition {@code Shared} of a joined maintenance; its lastTransitionTime stays that of the prior one while it
     * stays True.
     */
    public static Condition shared(String message, NodeMaintenanceStatus prior, long generation, Instant now) {
        Condition c = cond(SHARED, "True", "Joined", message, null);
        c.setObservedGeneration(generation);
        c.setLastTransitionTime(Optional.ofNullable(prior)
                .flatMap(p -> condition(p, SHARED))
                .filter(b -> "True".equals(b.getStatus()))
                .map(Condition::getLastTransitionTime)
                .orElse(text(now)));
        return c;
    }

    /**
     * The status for {@code state}; {@code prior} supplies unchanged conditions' lastTransitionTime and
     * lastUpdate, which moves only when something else changed. Nothing in it moves by itself with time (no
     * lease renewal times), so an idle maintenance's status is written never, not every renew period.
     */
    public static NodeMaintenanceStatus toStatus(
            MaintenanceState state, NodeMaintenanceStatus prior, long generation, Instant now) {
        NodeMaintenanceStatus s = new NodeMaintenanceStatus();
        s.setPhase(state.phase());
        s.setDrainProgress(state.drainProgress());
        s.setTotalpods(state.totalPods());
        s.setEvictionPods(state.evictionPods());
        s.setPendingPods(state.pendingPods().isEmpty() ? null : state.pendingPods());
        s.setPendingPodsRefs(state.pendingPodsRefs().isEmpty() ? null : state.pendingPodsRefs());
        s.setLastError(state.lastError());
        s.setErrorOnLeaseCount(state.errorOnLeaseCount());
        s.setLease(shown(state.lease()));
        s.setObservedGeneration(generation);
        s.setDrainPlan(drainPlanOf(state));
        s.setHooks(hookStatus(state.hookWait()));
        s.setTimeoutsPassed(state.timeoutsPassed().isEmpty() ? null : state.timeoutsPassed());
        s.setPlacement(state.placement());
        s.setSurges(state.surges().isEmpty() ? null : state.surges());
        s.setDrainedWorkloads(
                state.drainedWorkloads().listed().isEmpty()
                        ? null
                        : state.drainedWorkloads().listed());
        s.setDrainedWorkloadsNotListed(
                state.drainedWorkloads().notListed() == 0
                        ? null
                        : state.drainedWorkloads().notListed());
        List<Condition> conditions = new ArrayList<>();
        // LeaseHeld says who holds the lease now: Waiting is never True, even mid-maintenance (a hijacked lease); the
        // time this maintenance first took it (its window's start, and that it still has the node's marks to undo)
        // goes on in the message, and back into the state from there.
        conditions.add(
                state.phase() == Phase.Waiting
                        ? cond(
                                LEASE_HELD,
                                "False",
                                LEASE_WAITING,
                                "held by " + state.waitingFor()
                                        + (state.leaseAcquiredAt() == null
                                                ? ""
                                                : HELD_FROM + text(state.leaseAcquiredAt())),
                                null)
                        : state.leaseAcquiredAt() != null && state.phase() != Phase.Ended
                                ? cond(LEASE_HELD, "True", "Acquired", leaseMessage(state), state.leaseAcquiredAt())
                                : cond(
                                        LEASE_HELD,
                                        "False",
                                        state.phase() == Phase.Ended || state.nodeGone() ? "Released" : "NotHeld",
                                        "",
                                        null));
        // Cordoned and LeaseHeld say what holds now: never True once the node is gone or the maintenance Ended.
        conditions.add(
                state.nodeGone()
                        ? cond(CORDONED, "False", NODE_DELETED, "the node was deleted", null)
                        : state.phase() == Phase.Ended
                                ? cond(CORDONED, "False", "Uncordoned", "", null)
                                : state.cordonedAt() != null
                                        ? state.cordonFailure() != null
                                                ? cond(
                                                        CORDONED,
                                                        "True",
                                                        CONDITION_WRITE_FAILED,
                                                        state.cordonFailure(),
                                                        state.cordonedAt())
                                                : cond(
                                                        CORDONED,
                                                        "True",
                                                        "Cordoned",
                                                        "node cordoned and tainted",
                                                        state.cordonedAt())
                                        : state.cordonFailure() != null
                                                ? cond(
                                                        CORDONED,
                                                        "False",
                                                        NODE_WRITE_FAILED,
                                                        state.cordonFailure(),
                                                        null)
                                                : cond(CORDONED, "False", "Pending", "", null));
        conditions.add(
                state.handedOverAt() != null
                        ? cond(
                                LEADERS_HANDED_OVER,
                                "True",
                                nz(state.handoverMessage()).startsWith(MaintenancePlanner.HANDOVER_TIMED_OUT)
                                        ? "TimedOut"
                                        : "HandedOver",
                                nz(state.handoverMessage()),
                                state.handedOverAt())
                        : state.handoverStartedAt() != null && state.phase() != Phase.Ended
                                ? cond(
                                        LEADERS_HANDED_OVER,
                                        "False",
                                        "InProgress",
                                        nz(state.handoverMessage()),
                                        state.handoverStartedAt())
                                : cond(
                                        LEADERS_HANDED_OVER,
                                        "False",
                                        state.phase() == Phase.Ended ? ENDED_UNDRAINED : "Pending",
                                        "",
                                        null));
        if (state.drainedAt() != null && state.passed(MaintenanceStages.TimedStage.DRAIN)) {
            // Proceed at spec.drain.timeout: the drain is over, not every pod is gone (status.timeoutsPassed says
            // which)
            conditions.add(cond(DRAINED, "True", "TimeoutPassed", "drain timed out and was passed", state.drainedAt()));
        } else if (state.drainedAt() != null) {
            conditions.add(cond(DRAINED, "True", "Drained", "all pods to evict are gone", state.drainedAt()));
        } else if (state.drainStartedAt() != null && state.phase() == Phase.Ended) {
            // Ended with pods left (a window closed mid-drain, a Restore): nothing drains any more, and it says so.
            conditions.add(cond(
                    DRAINED,
                    "False",
                    ENDED_UNDRAINED,
                    "the maintenance ended before the drain finished; nothing more is evicted",
                    null));
        } else if (state.drainStartedAt() != null) {
            boolean failed = state.phase() == Phase.Failed;
            conditions.add(cond(
                    DRAINED,
                    "False",
                    failed ? "DrainFailed" : "Draining",
                    failed ? nz(state.lastError()) : state.pendingPods().size() + " pod(s) to go",
                    state.drainStartedAt()));
        } else {
            conditions.add(
                    cond(DRAINED, "False", state.phase() == Phase.Ended ? ENDED_UNDRAINED : "Pending", "", null));
        }
        if (state.placement() != null) {
            // issue 49: the forecast before the cordon; absent when none was made (spec.drain.placement Ignore)
            boolean fits = state.placement().stranded() == 0;
            conditions.add(cond(
                    PlacementGate.PODS_FIT,
                    fits ? "True" : "False",
                    fits ? PlacementGate.PODS_FIT : PlacementGate.WILL_NOT_FIT,
                    PlacementGate.conditionMessage(state.placement()),
                    null));
        }
        for (Condition c : conditions) {
            c.setObservedGeneration(generation);
            Optional<Condition> before = prior == null ? Optional.empty() : condition(prior, c.getType());
            if (c.getLastTransitionTime() == null) {
                // Steps without a timestamp of their own: keep the time of the last change of status.
                c.setLastTransitionTime(before.filter(b -> Objects.equals(b.getStatus(), c.getStatus()))
                        .map(Condition::getLastTransitionTime)
                        .orElse(text(now)));
            }
        }
        s.setConditions(conditions);
        // The front door pins status.nodeName after this; compared without it, every status differed from
        // its prior and lastUpdate ticked (and the status was written) at every reconcile.
        s.setNodeName(prior == null ? null : prior.getNodeName());
        s.setSchedule(prior == null ? null : prior.getSchedule()); // the front door's too
        s.setLastUpdate(prior == null ? null : prior.getLastUpdate());
        if (!s.equals(prior)) {
            s.setLastUpdate(text(now));
        }
        return s;
    }

    /**
     * The lease as status shows it: which Lease, who holds it, since when. Its renewTime and expireTime move
     * at every renewal; written here they made every maintenance rewrite its status (a new resourceVersion
     * and a watch event for every watcher) every renew period while nothing a reader cares about changed.
     * The Lease object itself carries its renewals.
     */
    static LeaseStatus shown(LeaseStatus lease) {
        return lease == null
                ? null
                : new LeaseStatus(
                        lease.getName(),
                        lease.getNamespace(),
                        lease.getHolderIdentity(),
                        lease.getAcquireTime(),
                        null,
                        null);
    }

    /** The ordered drain's state as status.drainPlan shows it; null when there is nothing to show. */
    static DrainPlanStatus drainPlanOf(MaintenanceState state) {
        DrainWaves w = state.waves();
        if (w == null && state.attachedVolumes().isEmpty() && state.preview().isEmpty()) {
            return null;
        }
        DrainPlanStatus p = new DrainPlanStatus();
        p.setPods(orNull(DrainReport.firstListed(state.preview())));
        p.setPodsNotListed(DrainReport.notListed(state.preview()));
        if (w != null) {
            p.setCurrentWave(w.current());
            p.setLaterWaves(orNull(w.later()));
            p.setWaveBlockedBy(orNull(w.blockedBy()));
            p.setSkippedPods(orNull(w.skipped()));
            p.setWaitingForCompletion(orNull(w.waitingForCompletion()));
        }
        p.setVolumeAttachments(orNull(state.attachedVolumes()));
        return p.equals(new DrainPlanStatus()) ? null : p;
    }

    private static DrainWaves wavesOf(DrainPlanStatus p) {
        return p == null
                ? null
                : new DrainWaves(
                        p.getCurrentWave(),
                        p.getLaterWaves(),
                        p.getWaveBlockedBy(),
                        p.getSkippedPods(),
                        p.getWaitingForCompletion());
    }

    private static <T> List<T> orNull(List<T> list) {
        return list == null || list.isEmpty() ? null : list;
    }

    private static String leaseMessage(MaintenanceState state) {
        LeaseStatus l = state.lease();
        return l == null ? "" : "lease " + l.getNamespace() + "/" + l.getName() + " held by " + l.getHolderIdentity();
    }

    private static Condition cond(String type, String status, String reason, String message, Instant transition) {
        return new ConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason(reason)
                .withMessage(message)
                .withLastTransitionTime(text(transition))
                .build();
    }

    static Optional<Condition> condition(NodeMaintenanceStatus status, String type) {
        return status.getConditions() == null
                ? Optional.empty()
                : status.getConditions().stream()
                        .filter(c -> type.equals(c.getType()))
                        .findFirst();
    }

    private static Instant whenTrue(NodeMaintenanceStatus status, String type) {
        return condition(status, type)
                .filter(c -> "True".equals(c.getStatus()))
                .map(c -> parse(c.getLastTransitionTime()))
                .orElse(null);
    }

    /** When a maintenance whose lease is held elsewhere now first took it (LeaseHeld False, {@link #HELD_FROM}). */
    private static Instant heldFrom(NodeMaintenanceStatus status) {
        return condition(status, LEASE_HELD)
                .filter(c -> "False".equals(c.getStatus()) && LEASE_WAITING.equals(c.getReason()))
                .map(Condition::getMessage)
                .filter(m -> m != null && m.contains(HELD_FROM))
                .map(m -> {
                    try {
                        return parse(m.substring(m.lastIndexOf(HELD_FROM) + HELD_FROM.length()));
                    } catch (java.time.DateTimeException e) {
                        return null; // not ours to trust (hand-edited)
                    }
                })
                .orElse(null);
    }

    private static Instant when(NodeMaintenanceStatus status, String type, String s, String reason) {
        return condition(status, type)
                .filter(c -> s.equals(c.getStatus()) && reason.equals(c.getReason()))
                .map(c -> parse(c.getLastTransitionTime()))
                .orElse(null);
    }

    private static Instant parse(String t) {
        return t == null ? null : OffsetDateTime.parse(t).toInstant();
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }

    /** A time as status and the lease status show it: RFC 3339, whole seconds. */
    public static String text(Instant t) {
        return t == null
                ? null
                : t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    }
}
