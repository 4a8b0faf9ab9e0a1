package dev.tenure.maintenance.machine;

import static dev.tenure.maintenance.machine.MaintenanceStages.TimedStage.DRAIN;
import static dev.tenure.maintenance.machine.MaintenanceStages.TimedStage.PRE_DRAIN_HOOKS;
import static dev.tenure.maintenance.machine.MaintenanceStages.TimedStage.VOLUME_DETACH;
import static dev.tenure.maintenance.machine.MaintenanceStages.TimedStage.WAIT_COMPLETED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.TimeoutOutcome;
import dev.tenure.maintenance.machine.MaintenanceStages.AtTimeout;
import dev.tenure.maintenance.machine.MaintenanceStages.Opening;
import dev.tenure.maintenance.machine.MaintenanceStages.TimedStage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 37 (Timeouts): what the machine does at each bounded stage's timeout, per {@code onTimeout} (null: the field
 * absent, the stage's default). Fail keeps the node (phase Failed), Proceed goes on to the stage named (or ends
 * Succeeded), Restore ends Ended with the node restored.
 */
class StageTimeoutsTest {

    private static final String FAILED = MaintenanceEvents.FAILED;
    private static final String PASSED = MaintenanceEvents.TIMEOUT_PASSED;
    private static final String RESTORED = MaintenanceEvents.TIMEOUT_RESTORED;

    static Stream<Arguments> atTimeout() {
        return Stream.of(
                // stage, onTimeout, volume detach after the drain | outcome, phase, restores, next stage, event
                Arguments.of(PRE_DRAIN_HOOKS, null, false, TimeoutOutcome.Restore, Phase.Ended, true, null, RESTORED),
                Arguments.of(
                        PRE_DRAIN_HOOKS,
                        TimeoutOutcome.Fail,
                        false,
                        TimeoutOutcome.Fail,
                        Phase.Failed,
                        false,
                        null,
                        MaintenanceEvents.HOOK_TIMED_OUT),
                Arguments.of(
                        PRE_DRAIN_HOOKS,
                        TimeoutOutcome.Proceed,
                        false,
                        TimeoutOutcome.Proceed,
                        Phase.Running,
                        false,
                        DRAIN,
                        PASSED),
                Arguments.of(
                        PRE_DRAIN_HOOKS,
                        TimeoutOutcome.Restore,
                        false,
                        TimeoutOutcome.Restore,
                        Phase.Ended,
                        true,
                        null,
                        RESTORED),
                Arguments.of(
                        WAIT_COMPLETED,
                        null,
                        false,
                        TimeoutOutcome.Fail,
                        Phase.Failed,
                        false,
                        null,
                        MaintenanceEvents.WAIT_COMPLETED_TIMED_OUT),
                Arguments.of(
                        WAIT_COMPLETED,
                        TimeoutOutcome.Fail,
                        true,
                        TimeoutOutcome.Fail,
                        Phase.Failed,
                        false,
                        null,
                        MaintenanceEvents.WAIT_COMPLETED_TIMED_OUT),
                Arguments.of(
                        WAIT_COMPLETED,
                        TimeoutOutcome.Proceed,
                        false,
                        TimeoutOutcome.Proceed,
                        Phase.Running,
                        false,
                        DRAIN,
                        PASSED),
                Arguments.of(
                        WAIT_COMPLETED,
                        TimeoutOutcome.Restore,
                        false,
                        TimeoutOutcome.Restore,
                        Phase.Ended,
                        true,
                        null,
                        RESTORED),
                Arguments.of(DRAIN, null, false, TimeoutOutcome.Fail, Phase.Failed, false, null, FAILED),
                Arguments.of(DRAIN, TimeoutOutcome.Fail, true, TimeoutOutcome.Fail, Phase.Failed, false, null, FAILED),
                Arguments.of(
                        DRAIN,
                        TimeoutOutcome.Proceed,
                        false,
                        TimeoutOutcome.Proceed,
                        Phase.Succeeded,
                        false,
                        null,
                        PASSED),
                Arguments.of(
                        DRAIN,
                        TimeoutOutcome.Proceed,
                        true,
                        TimeoutOutcome.Proceed,
                        Phase.Running,
                        false,
                        VOLUME_DETACH,
                        PASSED),
                Arguments.of(
                        DRAIN, TimeoutOutcome.Restore, true, TimeoutOutcome.Restore, Phase.Ended, true, null, RESTORED),
                Arguments.of(
                        VOLUME_DETACH,
                        null,
                        false,
                        TimeoutOutcome.Fail,
                        Phase.Failed,
                        false,
                        null,
                        MaintenanceEvents.VOLUME_DETACH_TIMED_OUT),
                Arguments.of(
                        VOLUME_DETACH,
                        TimeoutOutcome.Proceed,
                        false,
                        TimeoutOutcome.Proceed,
                        Phase.Succeeded,
                        false,
                        null,
                        PASSED),
                Arguments.of(
                        VOLUME_DETACH,
                        TimeoutOutcome.Restore,
                        false,
                        TimeoutOutcome.Restore,
                        Phase.Ended,
                        true,
                        null,
                        RESTORED));
    }

    @ParameterizedTest(name = "{0} onTimeout {1} (volume detach next: {2}): {3}, phase {4}")
    @MethodSource
    void atTimeout(
            TimedStage stage,
            TimeoutOutcome configured,
            boolean volumeDetach,
            TimeoutOutcome outcome,
            Phase phase,
            boolean restores,
            TimedStage next,
            String event) {
        assertThat(MaintenanceStages.atTimeout(stage, configured, volumeDetach))
                .isEqualTo(new AtTimeout(outcome, phase, restores, next, event));
    }

    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

    static Stream<Arguments> hooksAtTheOpening() {
        return Stream.of(
                Arguments.of(null, Opening.RestoreAfterTimeout.class),
                Arguments.of(TimeoutOutcome.Restore, Opening.RestoreAfterTimeout.class),
                // Fail and Proceed are decided under the lease, by the hook step: the opening takes the lease
                Arguments.of(TimeoutOutcome.Fail, Opening.TakeLease.class),
                Arguments.of(TimeoutOutcome.Proceed, Opening.TakeLease.class));
    }

    /** Only Restore ends a maintenance whose pre-drain hooks timed out before its lease is taken again. */
    @ParameterizedTest(name = "pre-drain hooks timed out, onTimeout {0}: {1}")
    @MethodSource
    void hooksAtTheOpening(TimeoutOutcome onTimeout, Class<? extends Opening> expected) {
        MaintenanceRequest request = new MaintenanceRequest(
                        "w1",
                        "",
                        java.util.Optional.empty(),
                        dev.tenure.maintenance.drain.DrainOptions.defaults(),
                        HandoverOptions.defaults())
                .withHooks(
                        new MaintenanceHooks.Hooks(List.of("storage"), List.of(), Duration.ofMinutes(10), onTimeout));
        MaintenanceState prior = MaintenanceState.initial().toBuilder()
                .phase(Phase.Running)
                .leaseAcquiredAt(NOW.minusSeconds(900))
                .hookWait(new MaintenanceHooks.Wait(
                        MaintenanceHooks.Point.PreDrain, List.of("storage"), NOW.minusSeconds(600)))
                .build();
        assertThat(MaintenanceStages.opening(request, prior, true, NOW)).isInstanceOf(expected);
    }

    /** Each stage's line in status.timeoutsPassed is written once and read back by its stage name. */
    @org.junit.jupiter.api.Test
    void aPassedStageIsNotedOnceAndReadBackFromStatus() {
        MaintenanceState state = MaintenanceState.initial().toBuilder()
                .passedTimeout(WAIT_COMPLETED, "pods not evicted, left running: shop/job-1")
                .passedTimeout(WAIT_COMPLETED, "again")
                .passedTimeout(DRAIN, "pods not evicted: shop/web-1 (PDB)")
                .build();
        MaintenanceState read = NodeMaintenanceStatuses.toState(NodeMaintenanceStatuses.toStatus(state, null, 1, NOW));

        assertThat(read.timeoutsPassed())
                .containsExactly(
                        "WaitCompleted: pods not evicted, left running: shop/job-1",
                        "Drain: pods not evicted: shop/web-1 (PDB)");
        assertThat(read.passed(DRAIN)).isTrue();
        assertThat(read.passed(VOLUME_DETACH)).isFalse();
    }
}
