package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.TimeoutOutcome;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The machine's "what next", pure: from the request, the state kept and what was just observed, which step a
 * {@link MaintenanceMachine} call takes. The machine does the I/O of each step; this class only orders them.
 */
public final class MaintenanceStages {

    private MaintenanceStages() {}

    /** Before the lease: what a call does once it has read the Node. */
    public sealed interface Opening {
        /** The node is gone (or was never there). */
        record NodeMissing() implements Opening {}

        /**
         * {@code spec.window} is over: the maintenance ends by itself, once its pre-uncordon hooks let it
         * ({@link HookStep#beforeUncordon}).
         */
        record WindowOver() implements Opening {}

        /**
         * A bounded stage timed out with outcome Restore: it ends, once its pre-uncordon hooks let it; {@code message}
         * says which stage and why. Seen here for the pre-drain hooks' wait (before the lease), and on the calls after
         * any Restore the pre-uncordon hooks hold (the drain's, WaitCompleted's, volume detach's).
         */
        record RestoreAfterTimeout(String message) implements Opening {}

        /** Take (or renew) the node lease, then go on with {@link #afterLease}. */
        record TakeLease() implements Opening {}
    }

    /** One step once the lease is held, in the order {@link #afterLease} lists them. */
    public enum Stage {
        /** Cordon, taints, Node condition (re-applied every time: it is the desired state). */
        CORDON,
        /** Nothing more to do now: keep the state, come back to renew. Ends the call. */
        HOLD,
        /** Hand the leases held on the node away (may end the call while pending). */
        HANDOVER,
        /** Drained: wait for the node's VolumeAttachments to go. Ends the call. */
        VOLUMES,
        /** Wait on the pre-drain hooks (may end the call while they hold). */
        HOOKS,
        /** One bounded drain step. Ends the call. */
        DRAIN;

        /** A stage after which the call returns whatever happened. */
        boolean ends() {
            return this == HOLD || this == VOLUMES || this == DRAIN;
        }
    }

    /**
     * A stage bounded by a timeout of its own, with what it does at that timeout ({@code onTimeout}) when the spec
     * says nothing: the defaults are today's behaviour, so a spec written before the field means what it meant.
     */
    public enum TimedStage {
        /** spec.hooks.timeout at the pre-drain point: Restore, since draining under a hook nobody removed would do
         * what the hook guards against, and failing would keep the node out of service for a hook owner that left. */
        PRE_DRAIN_HOOKS("PreDrainHooks", "spec.hooks.onTimeout", TimeoutOutcome.Restore),
        /** spec.drain.waitCompletedTimeout: Fail, since the pods asked not to be evicted and did not finish. */
        WAIT_COMPLETED("WaitCompleted", "spec.drain.waitCompletedOnTimeout", TimeoutOutcome.Fail),
        /** spec.drain.timeout: Fail, since Succeeded promises a drained node (Cluster API proceeds: opt in). */
        DRAIN("Drain", "spec.drain.onTimeout", TimeoutOutcome.Fail),
        /** spec.drain.volumeDetach.timeout: Fail, as before the field (Cluster API proceeds: opt in). */
        VOLUME_DETACH("VolumeDetach", "spec.drain.volumeDetach.onTimeout", TimeoutOutcome.Fail);

        private final String shown;
        private final String field;
        private final TimeoutOutcome byDefault;

        TimedStage(String shown, String field, TimeoutOutcome byDefault) {
            this.shown = shown;
            this.field = field;
            this.byDefault = byDefault;
        }

        /** Its name in status.timeoutsPassed and in messages. */
        public String shown() {
            return shown;
        }

        /** The spec field that sets its outcome. */
        public String field() {
            return field;
        }

        public TimeoutOutcome byDefault() {
            return byDefault;
        }
    }

    /**
     * What the machine does when a stage's timeout passed.
     *
     * @param phase the phase it ends the call in
     * @param restoresNode the node is restored and the lease released (the undo of deleting the maintenance)
     * @param nextStage Proceed only: the stage that runs next (null: none, the maintenance is done)
     * @param event the event's reason (always a Warning: a timeout is never the plan)
     */
    public record AtTimeout(
            TimeoutOutcome outcome, Phase phase, boolean restoresNode, TimedStage nextStage, String event) {}

    /**
     * At {@code stage}'s timeout with {@code configured} (null: the stage's default) and, after the drain, whether the
     * volume detach wait follows ({@code volumeDetach}).
     */
    public static AtTimeout atTimeout(TimedStage stage, TimeoutOutcome configured, boolean volumeDetach) {
        TimeoutOutcome outcome = configured == null ? stage.byDefault() : configured;
        return switch (outcome) {
            case Fail -> new AtTimeout(outcome, Phase.Failed, false, null, failEvent(stage));
            case Restore -> new AtTimeout(outcome, Phase.Ended, true, null, MaintenanceEvents.TIMEOUT_RESTORED);
            case Proceed -> {
                TimedStage next = switch (stage) {
                    case PRE_DRAIN_HOOKS, WAIT_COMPLETED -> TimedStage.DRAIN;
                    case DRAIN -> volumeDetach ? TimedStage.VOLUME_DETACH : null;
                    case VOLUME_DETACH -> null;
                };
                yield new AtTimeout(
                        outcome,
                        next == null ? Phase.Succeeded : Phase.Running,
                        false,
                        next,
                        MaintenanceEvents.TIMEOUT_PASSED);
            }
        };
    }

    private static String failEvent(TimedStage stage) {
        return switch (stage) {
            case PRE_DRAIN_HOOKS -> MaintenanceEvents.HOOK_TIMED_OUT;
            case WAIT_COMPLETED -> MaintenanceEvents.WAIT_COMPLETED_TIMED_OUT;
            case DRAIN -> MaintenanceEvents.FAILED;
            case VOLUME_DETACH -> MaintenanceEvents.VOLUME_DETACH_TIMED_OUT;
        };
    }

    /** The call after the Node was read ({@code nodeExists}): the first rule that applies, in the machine's order. */
    static Opening opening(MaintenanceRequest request, MaintenanceState prior, boolean nodeExists, Instant now) {
        if (!nodeExists) {
            return new Opening.NodeMissing();
        }
        Optional<Instant> windowEnd = MaintenancePlanner.windowEnd(request, prior);
        if (windowEnd.isPresent() && !now.isBefore(windowEnd.get())) {
            return new Opening.WindowOver();
        }
        if (endHeldByHooks(prior)) {
            // an end the pre-uncordon hooks hold goes on as it began: without a window, only a timeout with outcome
            // Restore starts one (prior.lastError() names it, as the hold wrote it)
            return new Opening.RestoreAfterTimeout(
                    prior.lastError() == null ? "a stage timed out (onTimeout Restore)" : prior.lastError());
        }
        Optional<String> hooksTimedOut = preDrainHooksTimedOut(request, prior, now);
        if (hooksTimedOut.isPresent()) {
            return new Opening.RestoreAfterTimeout(hooksTimedOut.get() + " (spec.hooks.onTimeout Restore)");
        }
        return new Opening.TakeLease();
    }

    /** A Failed maintenance that still holds its node stays Failed (and cordoned) unless the request changed. */
    static boolean heldFailure(MaintenanceState prior, boolean retryFailed) {
        return prior.phase() == Phase.Failed && prior.holdsNode() && !retryFailed;
    }

    /** With the lease just taken or renewed: whether the phase becomes Running (and lastError is cleared). */
    static boolean startsRunning(MaintenanceState prior, boolean heldFailure) {
        return prior.phase() == Phase.Pending
                || prior.phase() == Phase.Waiting
                || (prior.phase() == Phase.Failed && !heldFailure);
    }

    /**
     * The steps once the lease is held, in order: the machine runs them until one ends the call (the last one always
     * does). Handover and hooks run only until they are done; a Succeeded maintenance only keeps its marks.
     */
    static List<Stage> afterLease(MaintenanceRequest request, MaintenanceState prior, boolean heldFailure) {
        List<Stage> stages = new ArrayList<>();
        stages.add(Stage.CORDON);
        if (heldFailure) {
            stages.add(Stage.HOLD);
            return List.copyOf(stages);
        }
        if (prior.handedOverAt() == null) {
            stages.add(Stage.HANDOVER);
        }
        if (prior.phase() == Phase.Succeeded) {
            stages.add(Stage.HOLD);
        } else if (prior.drainedAt() != null
                && prior.phase() == Phase.Running
                && request.drain().volumeDetach().enabled()) {
            stages.add(Stage.VOLUMES);
        } else {
            // Pre-drain hooks are looked at only before the first eviction: a hook added mid-drain does not stop it.
            if (prior.drainStartedAt() == null) {
                stages.add(Stage.HOOKS);
            }
            stages.add(Stage.DRAIN);
        }
        return List.copyOf(stages);
    }

    /** An end (window over, a timeout with outcome Restore) that the pre-uncordon hooks hold: the machine waits there. */
    static boolean endHeldByHooks(MaintenanceState prior) {
        return prior.hookWait() != null && prior.hookWait().point() == MaintenanceHooks.Point.PreUncordon;
    }

    /**
     * The pre-drain hooks held this maintenance for their whole timeout (it had not started to drain) and their
     * outcome is Restore: it ends before the lease is taken again. Fail and Proceed are the hook step's, under the lease.
     */
    static Optional<String> preDrainHooksTimedOut(MaintenanceRequest request, MaintenanceState prior, Instant now) {
        if (atTimeout(TimedStage.PRE_DRAIN_HOOKS, request.hooks().onTimeout(), false)
                                .outcome()
                        != TimeoutOutcome.Restore
                || prior.drainStartedAt() != null
                || prior.hookWait() == null
                || prior.hookWait().point() != MaintenanceHooks.Point.PreDrain) {
            return Optional.empty();
        }
        return MaintenanceHooks.decide(MaintenanceHooks.Point.PreDrain, request.hooks(), prior.hookWait(), now)
                        instanceof MaintenanceHooks.Verdict.TimedOut t
                ? Optional.of(t.message())
                : Optional.empty();
    }
}
