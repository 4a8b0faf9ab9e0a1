package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.maintenance.drain.DrainWaves;
import dev.tenure.maintenance.drain.VolumeDetach;
import dev.tenure.maintenance.machine.MaintenanceMetrics.StageLabel;
import dev.tenure.maintenance.machine.MaintenanceMetrics.StageOutcome;
import dev.tenure.maintenance.machine.MaintenanceStages.TimedStage;
import dev.tenure.maintenance.machine.StageTimes.Span;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 37 (metrics per stage): which stages a machine call ended, read from the state before and after it, with how
 * each ended and since when it ran. Each row is one call; waves are the {@link StageTimes} memory's (see
 * StageMetricsIT).
 */
class StageTimesTest {

    static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    static final Instant HOOKED = NOW.minusSeconds(600);
    static final Instant STARTED = NOW.minusSeconds(300);
    static final Instant DRAINED = NOW.minusSeconds(60);
    static final Duration HOOK_TIMEOUT = Duration.ofMinutes(10);

    static final MaintenanceRequest PLAIN = new MaintenanceRequest(
                    "w1", "", Optional.empty(), DrainOptions.defaults(), HandoverOptions.defaults())
            .withHooks(new MaintenanceHooks.Hooks(List.of(), List.of(), HOOK_TIMEOUT));
    static final MaintenanceRequest VOLUMES = volumeDetach();

    static MaintenanceRequest volumeDetach() {
        DrainOptions d = DrainOptions.defaults();
        return new MaintenanceRequest(
                        "w1",
                        "",
                        Optional.empty(),
                        new DrainOptions(
                                d.timeout(),
                                d.gracePeriodSeconds(),
                                d.ignoreDaemonSets(),
                                d.deleteEmptyDirData(),
                                d.force(),
                                d.podSelector(),
                                d.evictionRetryDelay(),
                                d.skipWaitForDeleteTimeout(),
                                d.disableEviction(),
                                d.rules(),
                                d.waitCompletedTimeout(),
                                new VolumeDetach.Options(true, Optional.empty(), Set.of()),
                                null,
                                null),
                        HandoverOptions.defaults())
                .withHooks(PLAIN.hooks());
    }

    static MaintenanceState state(UnaryOperator<MaintenanceState.Builder> f) {
        return f.apply(new MaintenanceState.Builder().leaseAcquiredAt(HOOKED)).build();
    }

    static MaintenanceHooks.Wait wait(MaintenanceHooks.Point point, Instant since) {
        return new MaintenanceHooks.Wait(point, List.of("storage"), since);
    }

    static final MaintenanceHooks.Wait PRE_DRAIN = wait(MaintenanceHooks.Point.PreDrain, HOOKED);
    static final MaintenanceHooks.Wait PRE_UNCORDON = wait(MaintenanceHooks.Point.PreUncordon, HOOKED);

    static DrainWaves waitingFor(String... pods) {
        return new DrainWaves(0, List.of(), List.of(), List.of(), List.of(pods));
    }

    static MaintenanceState draining() {
        return state(s -> s.phase(Phase.Running).drainStartedAt(STARTED).waves(waitingFor()));
    }

    static Stream<Arguments> calls() {
        MaintenanceState hooked = state(s -> s.phase(Phase.Running).hookWait(PRE_DRAIN));
        MaintenanceState waitCompleted =
                state(s -> s.phase(Phase.Running).drainStartedAt(STARTED).waves(waitingFor("batch/job-1")));
        MaintenanceState detaching =
                state(s -> s.phase(Phase.Running).drainStartedAt(STARTED).drainedAt(DRAINED));
        MaintenanceState ending = state(s -> s.phase(Phase.Succeeded).hookWait(PRE_UNCORDON));
        return Stream.of(
                Arguments.of("nothing moves while the hooks hold", PLAIN, hooked, hooked, NOW, List.of()),
                Arguments.of(
                        "pre-drain hooks removed: the drain starts",
                        PLAIN,
                        hooked,
                        draining().toBuilder().hookWait(null).build(),
                        NOW,
                        List.of(new Span(StageLabel.pre_drain_hooks, StageOutcome.completed, HOOKED))),
                Arguments.of(
                        "pre-drain hooks timed out, Proceed",
                        PLAIN,
                        hooked,
                        draining().toBuilder()
                                .passedTimeout(TimedStage.PRE_DRAIN_HOOKS, "storage")
                                .build(),
                        NOW,
                        List.of(new Span(StageLabel.pre_drain_hooks, StageOutcome.proceed, HOOKED))),
                Arguments.of(
                        "pre-drain hooks timed out, Fail: the wait stays recorded, the stage is over",
                        PLAIN,
                        hooked,
                        hooked.toBuilder().phase(Phase.Failed).build(),
                        NOW,
                        List.of(new Span(StageLabel.pre_drain_hooks, StageOutcome.fail, HOOKED))),
                Arguments.of(
                        "pre-drain hooks timed out, Restore: the pre-uncordon hooks hold the end",
                        PLAIN,
                        hooked,
                        hooked.toBuilder()
                                .hookWait(wait(MaintenanceHooks.Point.PreUncordon, NOW))
                                .build(),
                        NOW,
                        List.of(new Span(StageLabel.pre_drain_hooks, StageOutcome.restore, HOOKED))),
                Arguments.of(
                        "pre-drain hooks timed out, Restore: ended at once",
                        PLAIN,
                        hooked,
                        hooked.toBuilder().hookWait(null).phase(Phase.Ended).build(),
                        NOW,
                        List.of(new Span(StageLabel.pre_drain_hooks, StageOutcome.restore, HOOKED))),
                Arguments.of(
                        "a Failed maintenance that keeps its hook wait ends nothing again",
                        PLAIN,
                        hooked.toBuilder().phase(Phase.Failed).build(),
                        hooked.toBuilder().phase(Phase.Failed).build(),
                        NOW,
                        List.of()),
                Arguments.of("the drain goes on", PLAIN, draining(), draining(), NOW, List.of()),
                Arguments.of(
                        "drained: Succeeded",
                        PLAIN,
                        draining(),
                        draining().toBuilder()
                                .phase(Phase.Succeeded)
                                .drainedAt(NOW)
                                .build(),
                        NOW,
                        List.of(new Span(StageLabel.drain, StageOutcome.completed, STARTED))),
                Arguments.of(
                        "drain timed out, Proceed",
                        PLAIN,
                        draining(),
                        draining().toBuilder()
                                .phase(Phase.Succeeded)
                                .drainedAt(NOW)
                                .passedTimeout(TimedStage.DRAIN, "pods not evicted: app/web-1")
                                .build(),
                        NOW,
                        List.of(new Span(StageLabel.drain, StageOutcome.proceed, STARTED))),
                Arguments.of(
                        "drain timed out, Fail",
                        PLAIN,
                        draining(),
                        draining().toBuilder().phase(Phase.Failed).build(),
                        NOW,
                        List.of(new Span(StageLabel.drain, StageOutcome.fail, STARTED))),
                Arguments.of(
                        "drain timed out, Restore",
                        PLAIN,
                        draining(),
                        draining().toBuilder().phase(Phase.Ended).build(),
                        NOW,
                        List.of(new Span(StageLabel.drain, StageOutcome.restore, STARTED))),
                Arguments.of(
                        "a drain that starts and ends in one call (nothing to evict)",
                        PLAIN,
                        state(s -> s.phase(Phase.Running)),
                        state(s -> s.phase(Phase.Succeeded).drainStartedAt(NOW).drainedAt(NOW)),
                        NOW,
                        List.of(new Span(StageLabel.drain, StageOutcome.completed, NOW))),
                Arguments.of(
                        "WaitCompleted pods done",
                        PLAIN,
                        waitCompleted,
                        draining(),
                        NOW,
                        List.of(new Span(StageLabel.wait_completed, StageOutcome.completed, STARTED))),
                Arguments.of(
                        "WaitCompleted timed out, Proceed: the pods stay, the drain goes on",
                        PLAIN,
                        waitCompleted,
                        waitCompleted.toBuilder()
                                .passedTimeout(TimedStage.WAIT_COMPLETED, "batch/job-1")
                                .build(),
                        NOW,
                        List.of(new Span(StageLabel.wait_completed, StageOutcome.proceed, STARTED))),
                Arguments.of(
                        "WaitCompleted timed out, Fail: the drain fails with it",
                        PLAIN,
                        waitCompleted,
                        waitCompleted.toBuilder().phase(Phase.Failed).build(),
                        NOW,
                        List.of(
                                new Span(StageLabel.drain, StageOutcome.fail, STARTED),
                                new Span(StageLabel.wait_completed, StageOutcome.fail, STARTED))),
                Arguments.of(
                        "drained, on to the volumes: only the drain ends",
                        VOLUMES,
                        draining(),
                        draining().toBuilder().drainedAt(NOW).build(),
                        NOW,
                        List.of(new Span(StageLabel.drain, StageOutcome.completed, STARTED))),
                Arguments.of(
                        "drained with no volume attached: the volume detach ends in the same call",
                        VOLUMES,
                        draining(),
                        draining().toBuilder()
                                .drainedAt(NOW)
                                .phase(Phase.Succeeded)
                                .build(),
                        NOW,
                        List.of(
                                new Span(StageLabel.drain, StageOutcome.completed, STARTED),
                                new Span(StageLabel.volume_detach, StageOutcome.completed, NOW))),
                Arguments.of(
                        "volumes detached",
                        VOLUMES,
                        detaching,
                        detaching.toBuilder().phase(Phase.Succeeded).build(),
                        NOW,
                        List.of(new Span(StageLabel.volume_detach, StageOutcome.completed, DRAINED))),
                Arguments.of(
                        "volume detach timed out, Proceed",
                        VOLUMES,
                        detaching,
                        detaching.toBuilder()
                                .phase(Phase.Succeeded)
                                .passedTimeout(TimedStage.VOLUME_DETACH, "pvc-1")
                                .build(),
                        NOW,
                        List.of(new Span(StageLabel.volume_detach, StageOutcome.proceed, DRAINED))),
                Arguments.of(
                        "volume detach timed out, Fail",
                        VOLUMES,
                        detaching,
                        detaching.toBuilder().phase(Phase.Failed).build(),
                        NOW,
                        List.of(new Span(StageLabel.volume_detach, StageOutcome.fail, DRAINED))),
                Arguments.of(
                        "pre-uncordon hooks removed",
                        PLAIN,
                        ending,
                        ending.toBuilder().hookWait(null).phase(Phase.Ended).build(),
                        NOW.minusSeconds(1),
                        List.of(new Span(StageLabel.pre_uncordon_hooks, StageOutcome.completed, HOOKED))),
                Arguments.of(
                        "pre-uncordon hooks timed out: restored anyway",
                        PLAIN,
                        ending,
                        ending.toBuilder().hookWait(null).phase(Phase.Ended).build(),
                        HOOKED.plus(HOOK_TIMEOUT),
                        List.of(new Span(StageLabel.pre_uncordon_hooks, StageOutcome.proceed, HOOKED))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("calls")
    void endedStages(
            String name,
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState next,
            Instant now,
            List<Span> ended) {
        assertThat(StageTimes.ended(request, prior, next, now)).containsExactlyInAnyOrderElementsOf(ended);
    }

    static Stream<Arguments> openAtDeletion() {
        return Stream.of(
                Arguments.of("not started", state(s -> s.phase(Phase.Pending)), List.of()),
                Arguments.of(
                        "held by pre-drain hooks",
                        state(s -> s.phase(Phase.Running).hookWait(PRE_DRAIN)),
                        List.of(StageLabel.pre_drain_hooks)),
                Arguments.of(
                        "Failed at the pre-drain hooks: nothing under way",
                        state(s -> s.phase(Phase.Failed).hookWait(PRE_DRAIN)),
                        List.of()),
                Arguments.of(
                        "draining, WaitCompleted pods running",
                        state(s ->
                                s.phase(Phase.Running).drainStartedAt(STARTED).waves(waitingFor("batch/job-1"))),
                        List.of(StageLabel.drain, StageLabel.wait_completed)),
                Arguments.of(
                        "waiting for volumes",
                        state(s ->
                                s.phase(Phase.Running).drainStartedAt(STARTED).drainedAt(DRAINED)),
                        List.of(StageLabel.volume_detach)),
                Arguments.of("Succeeded", state(s -> s.phase(Phase.Succeeded).drainedAt(DRAINED)), List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("openAtDeletion")
    void stagesUnderWayAtDeletion(String name, MaintenanceState state, List<StageLabel> open) {
        assertThat(StageTimes.open(state).stream().map(Span::stage)).containsExactlyInAnyOrderElementsOf(open);
    }
}
