package dev.tenure.maintenance.machine;

import static dev.tenure.maintenance.machine.MaintenanceStages.Stage.CORDON;
import static dev.tenure.maintenance.machine.MaintenanceStages.Stage.DRAIN;
import static dev.tenure.maintenance.machine.MaintenanceStages.Stage.HANDOVER;
import static dev.tenure.maintenance.machine.MaintenanceStages.Stage.HOLD;
import static dev.tenure.maintenance.machine.MaintenanceStages.Stage.HOOKS;
import static dev.tenure.maintenance.machine.MaintenanceStages.Stage.VOLUMES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.maintenance.drain.VolumeDetach;
import dev.tenure.maintenance.machine.MaintenanceStages.Opening;
import dev.tenure.maintenance.machine.MaintenanceStages.Stage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The machine's "what next" without a cluster: which steps a call takes, from the state kept and the request. */
class MaintenanceStagesTest {

    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final Instant EARLIER = NOW.minusSeconds(60);

    private static MaintenanceRequest plain() {
        return new MaintenanceRequest("w1", "", Optional.empty(), DrainOptions.defaults(), HandoverOptions.defaults());
    }

    private static MaintenanceRequest withVolumeDetach() {
        DrainOptions d = DrainOptions.defaults();
        DrainOptions volumes = new DrainOptions(
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
                null);
        return new MaintenanceRequest("w1", "", Optional.empty(), volumes, HandoverOptions.defaults());
    }

    private static MaintenanceRequest windowed(Duration window) {
        return new MaintenanceRequest(
                "w1", "", Optional.of(window), DrainOptions.defaults(), HandoverOptions.defaults());
    }

    private static MaintenanceRequest hooked(Duration timeout) {
        return plain().withHooks(new MaintenanceHooks.Hooks(List.of("storage"), List.of(), timeout));
    }

    private static MaintenanceState.Builder state(Phase phase) {
        return MaintenanceState.initial().toBuilder().phase(phase);
    }

    /** Held and cordoned, handed over: the usual state between drain steps. */
    private static MaintenanceState.Builder draining() {
        return state(Phase.Running)
                .leaseAcquiredAt(EARLIER)
                .cordonedAt(EARLIER)
                .handedOverAt(EARLIER)
                .drainStartedAt(EARLIER);
    }

    static Stream<Arguments> afterLease() {
        return Stream.of(
                Arguments.of(
                        "a new maintenance: cordon, hand over, hooks, drain",
                        plain(),
                        state(Phase.Pending).build(),
                        false,
                        List.of(CORDON, HANDOVER, HOOKS, DRAIN)),
                Arguments.of(
                        "handover under way: it is asked again before the drain",
                        plain(),
                        state(Phase.Running)
                                .leaseAcquiredAt(EARLIER)
                                .handoverStartedAt(EARLIER)
                                .build(),
                        false,
                        List.of(CORDON, HANDOVER, HOOKS, DRAIN)),
                Arguments.of(
                        "handed over, not yet draining: hooks are looked at",
                        plain(),
                        state(Phase.Running)
                                .leaseAcquiredAt(EARLIER)
                                .handedOverAt(EARLIER)
                                .build(),
                        false,
                        List.of(CORDON, HOOKS, DRAIN)),
                Arguments.of(
                        "draining: hooks are no longer looked at (a hook added mid-drain does not stop it)",
                        plain(),
                        draining().build(),
                        false,
                        List.of(CORDON, DRAIN)),
                Arguments.of(
                        "a held failure keeps the node marked and does nothing more",
                        plain(),
                        draining().phase(Phase.Failed).build(),
                        true,
                        List.of(CORDON, HOLD)),
                Arguments.of(
                        "a held failure before the handover does not hand over",
                        plain(),
                        state(Phase.Failed).leaseAcquiredAt(EARLIER).build(),
                        true,
                        List.of(CORDON, HOLD)),
                Arguments.of(
                        "succeeded: the marks are kept, nothing drained",
                        plain(),
                        draining().phase(Phase.Succeeded).drainedAt(EARLIER).build(),
                        false,
                        List.of(CORDON, HOLD)),
                Arguments.of(
                        "succeeded with no handover recorded: the handover is asked, then hold",
                        plain(),
                        state(Phase.Succeeded)
                                .leaseAcquiredAt(EARLIER)
                                .drainedAt(EARLIER)
                                .build(),
                        false,
                        List.of(CORDON, HANDOVER, HOLD)),
                Arguments.of(
                        "drained, volume detach on: wait for the volumes",
                        withVolumeDetach(),
                        draining().drainedAt(EARLIER).build(),
                        false,
                        List.of(CORDON, VOLUMES)),
                Arguments.of(
                        "drained, volume detach off: the drain step (it completes again)",
                        plain(),
                        draining().drainedAt(EARLIER).build(),
                        false,
                        List.of(CORDON, DRAIN)),
                Arguments.of(
                        "volume detach on, not yet drained: drain",
                        withVolumeDetach(),
                        draining().build(),
                        false,
                        List.of(CORDON, DRAIN)),
                Arguments.of(
                        "volume detach on, drained but Failed on a retry: drain again",
                        withVolumeDetach(),
                        draining().phase(Phase.Failed).drainedAt(EARLIER).build(),
                        false,
                        List.of(CORDON, DRAIN)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void afterLease(
            String name,
            MaintenanceRequest request,
            MaintenanceState prior,
            boolean heldFailure,
            List<Stage> expected) {
        List<Stage> stages = MaintenanceStages.afterLease(request, prior, heldFailure);

        assertThat(stages).isEqualTo(expected);
        assertThat(stages.get(stages.size() - 1).ends())
                .as("the last stage ends the call")
                .isTrue();
        assertThat(stages.subList(0, stages.size() - 1)).noneMatch(Stage::ends);
    }

    static Stream<Arguments> opening() {
        MaintenanceHooks.Wait preDrainWait =
                new MaintenanceHooks.Wait(MaintenanceHooks.Point.PreDrain, List.of("storage"), NOW.minusSeconds(600));
        return Stream.of(
                Arguments.of(
                        "node there, no window, no hooks: take the lease",
                        plain(),
                        state(Phase.Pending).build(),
                        true,
                        Opening.TakeLease.class),
                Arguments.of(
                        "node gone: before anything else, even an ended window",
                        windowed(Duration.ofSeconds(30)),
                        state(Phase.Running)
                                .leaseAcquiredAt(NOW.minusSeconds(60))
                                .build(),
                        false,
                        Opening.NodeMissing.class),
                Arguments.of(
                        "window over (counted from the lease)",
                        windowed(Duration.ofSeconds(60)),
                        state(Phase.Running)
                                .leaseAcquiredAt(NOW.minusSeconds(60))
                                .build(),
                        true,
                        Opening.WindowOver.class),
                Arguments.of(
                        "window not yet over",
                        windowed(Duration.ofSeconds(61)),
                        state(Phase.Running)
                                .leaseAcquiredAt(NOW.minusSeconds(60))
                                .build(),
                        true,
                        Opening.TakeLease.class),
                Arguments.of(
                        "a window never starts before the lease is held",
                        windowed(Duration.ofSeconds(1)),
                        state(Phase.Pending).build(),
                        true,
                        Opening.TakeLease.class),
                Arguments.of(
                        "pre-drain hooks past their timeout before the drain: end",
                        hooked(Duration.ofSeconds(600)),
                        state(Phase.Running)
                                .leaseAcquiredAt(EARLIER)
                                .hookWait(preDrainWait)
                                .build(),
                        true,
                        Opening.RestoreAfterTimeout.class),
                Arguments.of(
                        "pre-drain hooks within their timeout: go on",
                        hooked(Duration.ofSeconds(601)),
                        state(Phase.Running)
                                .leaseAcquiredAt(EARLIER)
                                .hookWait(preDrainWait)
                                .build(),
                        true,
                        Opening.TakeLease.class),
                Arguments.of(
                        "hooks timed out but the drain had started: go on",
                        hooked(Duration.ofSeconds(600)),
                        draining().hookWait(preDrainWait).build(),
                        true,
                        Opening.TakeLease.class));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void opening(
            String name,
            MaintenanceRequest request,
            MaintenanceState prior,
            boolean nodeExists,
            Class<? extends Opening> expected) {
        assertThat(MaintenanceStages.opening(request, prior, nodeExists, NOW)).isInstanceOf(expected);
    }

    static Stream<Arguments> running() {
        return Stream.of(
                Arguments.of(Phase.Pending, false, false, false, true),
                Arguments.of(Phase.Waiting, false, false, false, true),
                Arguments.of(Phase.Running, true, false, false, false),
                Arguments.of(Phase.Succeeded, true, false, false, false),
                Arguments.of(Phase.Failed, true, false, true, false),
                Arguments.of(Phase.Failed, true, true, false, true),
                Arguments.of(Phase.Failed, false, false, false, true));
    }

    /** A Failed maintenance holding its node stays Failed until its request changes; any other Failed runs again. */
    @ParameterizedTest(name = "{0}, holds node {1}, retry {2}: held failure {3}, runs {4}")
    @MethodSource
    void running(Phase phase, boolean holdsNode, boolean retryFailed, boolean heldFailure, boolean runs) {
        MaintenanceState prior =
                state(phase).leaseAcquiredAt(holdsNode ? EARLIER : null).build();

        assertThat(MaintenanceStages.heldFailure(prior, retryFailed)).isEqualTo(heldFailure);
        assertThat(MaintenanceStages.startsRunning(prior, heldFailure)).isEqualTo(runs);
    }
}
