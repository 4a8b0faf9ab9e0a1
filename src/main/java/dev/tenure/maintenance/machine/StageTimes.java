package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceMetrics.BlockerKind;
import dev.tenure.maintenance.machine.MaintenanceMetrics.StageLabel;
import dev.tenure.maintenance.machine.MaintenanceMetrics.StageOutcome;
import dev.tenure.maintenance.machine.MaintenanceStages.TimedStage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How long each stage of the machine took, and what held it: read after every machine call from the state before and
 * after it ({@link #ended}, pure), so a stage is measured from the time status records it began (the pre-drain and
 * pre-uncordon hooks from their wait's {@code since}, the drain and its WaitCompleted pods from {@code drainStartedAt},
 * the volume detach from {@code drainedAt}) and a restarted operator measures it whole. The one start status does not
 * keep is a wave's: it is remembered here, and a wave under way when the operator restarts is not measured.
 *
 * <p>What held a stage is counted in seconds by {@link MaintenanceMetrics#blocking}: the time from one machine call to
 * the next is put on every PodDisruptionBudget and hook owner that held the maintenance at the first of the two.
 */
final class StageTimes {

    /** A stage that ended: which, how, and since when it ran. */
    record Span(StageLabel stage, StageOutcome outcome, Instant from) {}

    private final MaintenanceMetrics metrics;
    /** Node → when the wave being drained began (this process's memory only). */
    private final Map<String, Instant> waveSince = new ConcurrentHashMap<>();

    StageTimes(MaintenanceMetrics metrics) {
        this.metrics = metrics;
    }

    /** After a machine call on {@code request}'s node at {@code now}: the stages that ended, and what holds it now. */
    void observe(MaintenanceRequest request, MaintenanceState prior, MaintenanceState next, Instant now) {
        String node = request.nodeName();
        for (Span span : ended(request, prior, next, now)) {
            metrics.stage(span.stage(), span.outcome(), span.from(), now);
        }
        if (waveActive(prior) && (!waveActive(next) || waveChanged(prior, next))) {
            Instant from = waveSince.remove(node);
            if (from != null) {
                metrics.stage(StageLabel.wave, outcome(TimedStage.DRAIN, prior, next), from, now);
            }
        }
        if (waveActive(next) && (!waveActive(prior) || waveChanged(prior, next))) {
            waveSince.put(node, now);
        }
        metrics.blocking(node, BlockerKind.hook, hookOwners(next), now);
        if (!drainActive(next)) {
            metrics.blocking(node, BlockerKind.pdb, Set.of(), now);
        }
    }

    /**
     * The maintenance was deleted at {@code now} in {@code last}: its open stages end, outcome deleted, but for the
     * pre-uncordon hooks the deletion waited on (they let it end: completed, or proceed past {@code hooksTimeout}).
     */
    void deleted(String node, MaintenanceState last, Duration hooksTimeout, Instant now) {
        for (Span span : open(last)) {
            StageOutcome outcome = StageOutcome.deleted;
            if (span.stage() == StageLabel.pre_uncordon_hooks) {
                outcome = now.isBefore(span.from().plus(hooksTimeout)) ? StageOutcome.completed : StageOutcome.proceed;
            }
            metrics.stage(span.stage(), outcome, span.from(), now);
        }
        Instant wave = waveSince.remove(node);
        if (wave != null && waveActive(last)) {
            metrics.stage(StageLabel.wave, StageOutcome.deleted, wave, now);
        }
        metrics.blocking(node, BlockerKind.hook, Set.of(), now);
        metrics.blocking(node, BlockerKind.pdb, Set.of(), now);
    }

    /** The deleted maintenance of {@code node} waits on its pre-uncordon hooks in {@code state} at {@code now}. */
    void heldAtDeletion(String node, MaintenanceState state, Instant now) {
        metrics.blocking(node, BlockerKind.hook, hookOwners(state), now);
    }

    /** Drops what is remembered of {@code node}. */
    void forget(String node) {
        waveSince.remove(node);
    }

    /** The stages (bar waves) that ended between {@code prior} and {@code next}, the state a call at {@code now} left. */
    static List<Span> ended(MaintenanceRequest request, MaintenanceState prior, MaintenanceState next, Instant now) {
        List<Span> out = new ArrayList<>();
        MaintenanceHooks.Wait was = prior.hookWait();
        if (waiting(prior, MaintenanceHooks.Point.PreDrain)
                && prior.phase() != Phase.Failed
                && (!waiting(next, MaintenanceHooks.Point.PreDrain) || next.phase() == Phase.Failed)) {
            out.add(new Span(StageLabel.pre_drain_hooks, preDrainOutcome(prior, next), was.since()));
        }
        if (waiting(prior, MaintenanceHooks.Point.PreUncordon) && !waiting(next, MaintenanceHooks.Point.PreUncordon)) {
            // at their timeout the node is restored anyway: the end goes on past them
            boolean timedOut = !now.isBefore(was.since().plus(request.hooks().timeout()));
            out.add(new Span(
                    StageLabel.pre_uncordon_hooks,
                    timedOut ? StageOutcome.proceed : StageOutcome.completed,
                    was.since()));
        }
        boolean drainStartedNow = prior.drainStartedAt() == null && next.drainStartedAt() != null;
        if ((drainActive(prior) || drainStartedNow) && !drainActive(next)) {
            Instant from = next.drainStartedAt() != null ? next.drainStartedAt() : prior.drainStartedAt();
            out.add(new Span(StageLabel.drain, outcome(TimedStage.DRAIN, prior, next), from));
        }
        if (waitCompletedActive(prior) && !waitCompletedActive(next)) {
            out.add(new Span(
                    StageLabel.wait_completed,
                    outcome(TimedStage.WAIT_COMPLETED, prior, next),
                    prior.drainStartedAt()));
        }
        boolean drainedNow = prior.drainedAt() == null
                && next.drainedAt() != null
                && request.drain().volumeDetach().enabled();
        if ((volumeDetachActive(prior) || drainedNow) && !volumeDetachActive(next)) {
            Instant from = next.drainedAt() != null ? next.drainedAt() : prior.drainedAt();
            out.add(new Span(StageLabel.volume_detach, outcome(TimedStage.VOLUME_DETACH, prior, next), from));
        }
        return List.copyOf(out);
    }

    /** The stages (bar waves) under way in {@code state}, with their start (outcome: not known yet, null). */
    static List<Span> open(MaintenanceState state) {
        List<Span> out = new ArrayList<>();
        for (MaintenanceHooks.Point point : MaintenanceHooks.Point.values()) {
            if (waiting(state, point) && state.phase() != Phase.Failed) {
                StageLabel stage = point == MaintenanceHooks.Point.PreDrain
                        ? StageLabel.pre_drain_hooks
                        : StageLabel.pre_uncordon_hooks;
                out.add(new Span(stage, null, state.hookWait().since()));
            }
        }
        if (drainActive(state)) {
            out.add(new Span(StageLabel.drain, null, state.drainStartedAt()));
        }
        if (waitCompletedActive(state)) {
            out.add(new Span(StageLabel.wait_completed, null, state.drainStartedAt()));
        }
        if (volumeDetachActive(state)) {
            out.add(new Span(StageLabel.volume_detach, null, state.drainedAt()));
        }
        return List.copyOf(out);
    }

    /**
     * How a stage ended, from the state after it: its timeout passed on ({@code proceed}), the maintenance Failed
     * ({@code fail}) or ended with the node restored ({@code restore}), else {@code completed}.
     */
    static StageOutcome outcome(TimedStage stage, MaintenanceState prior, MaintenanceState next) {
        if (next.passed(stage) && !prior.passed(stage)) {
            return StageOutcome.proceed;
        }
        return switch (next.phase()) {
            case Failed -> StageOutcome.fail;
            case Ended -> StageOutcome.restore;
            default -> StageOutcome.completed;
        };
    }

    /**
     * The pre-drain hooks end by their removal (the drain starts: completed), their timeout (Proceed, Fail, or Restore:
     * the maintenance ends without draining, its pre-uncordon hooks next) or the window closing first (restore too).
     */
    private static StageOutcome preDrainOutcome(MaintenanceState prior, MaintenanceState next) {
        if (next.passed(TimedStage.PRE_DRAIN_HOOKS) && !prior.passed(TimedStage.PRE_DRAIN_HOOKS)) {
            return StageOutcome.proceed;
        }
        if (next.phase() == Phase.Failed && waiting(next, MaintenanceHooks.Point.PreDrain)) {
            return StageOutcome.fail;
        }
        if (waiting(next, MaintenanceHooks.Point.PreUncordon) || next.phase() == Phase.Ended) {
            return StageOutcome.restore;
        }
        return StageOutcome.completed;
    }

    private static boolean waiting(MaintenanceState state, MaintenanceHooks.Point point) {
        return state.hookWait() != null && state.hookWait().point() == point;
    }

    /** The hooks' owners that hold {@code state} (none once it Failed: it is held by its failure then). */
    static Set<String> hookOwners(MaintenanceState state) {
        return state.hookWait() == null || state.phase() == Phase.Failed
                ? Set.of()
                : Set.copyOf(state.hookWait().owners());
    }

    static boolean drainActive(MaintenanceState state) {
        return state.phase() == Phase.Running && state.drainStartedAt() != null && state.drainedAt() == null;
    }

    private static boolean waitCompletedActive(MaintenanceState state) {
        return drainActive(state)
                && state.waves() != null
                && !state.waves().waitingForCompletion().isEmpty()
                && !state.passed(TimedStage.WAIT_COMPLETED);
    }

    private static boolean volumeDetachActive(MaintenanceState state) {
        return state.phase() == Phase.Running && state.drainedAt() != null;
    }

    private static boolean waveActive(MaintenanceState state) {
        return drainActive(state) && state.waves() != null && state.waves().current() != null;
    }

    private static boolean waveChanged(MaintenanceState prior, MaintenanceState next) {
        return !Objects.equals(prior.waves().current(), next.waves().current());
    }
}
