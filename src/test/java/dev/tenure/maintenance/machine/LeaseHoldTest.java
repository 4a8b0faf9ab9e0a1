package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.LeaseRecord;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.maintenance.machine.LeaseHold.Kind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 52 item 7, pure: which hold a call takes (long only when nothing is to be done on the node), and when a claim
 * writes the node lease (a lease of the other length at once: the shortening before a side effect).
 */
class LeaseHoldTest {

    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final Instant EARLIER = NOW.minusSeconds(600);
    private static final MaintenanceSettings SETTINGS = MaintenanceSettings.defaults();

    private static MaintenanceRequest plain() {
        return new MaintenanceRequest("w1", "", Optional.empty(), DrainOptions.defaults(), HandoverOptions.defaults());
    }

    private static MaintenanceRequest windowed() {
        return new MaintenanceRequest(
                "w1", "", Optional.of(Duration.ofHours(2)), DrainOptions.defaults(), HandoverOptions.defaults());
    }

    /** Held, cordoned, handed over, drained: what Succeeded keeps. */
    private static MaintenanceState.Builder succeeded() {
        return MaintenanceState.initial().toBuilder()
                .phase(Phase.Succeeded)
                .leaseAcquiredAt(EARLIER)
                .cordonedAt(EARLIER)
                .handedOverAt(EARLIER)
                .drainStartedAt(EARLIER)
                .drainedAt(EARLIER);
    }

    static Stream<Arguments> holds() {
        return Stream.of(
                Arguments.of(
                        "Succeeded, marks on the node: idle", plain(), succeeded(), false, true, SETTINGS, Kind.IDLE),
                Arguments.of(
                        "Failed and held (waits for a spec change or a deletion): idle",
                        plain(),
                        succeeded().phase(Phase.Failed).drainedAt(null),
                        true,
                        true,
                        SETTINGS,
                        Kind.IDLE),
                Arguments.of(
                        "Succeeded, someone removed a mark: acting (the mark is put back)",
                        plain(),
                        succeeded(),
                        false,
                        false,
                        SETTINGS,
                        Kind.ACTING),
                Arguments.of(
                        "Succeeded, a failed node write to retry: acting",
                        plain(),
                        succeeded().cordonFailure("PATCH nodes/w1/status failed"),
                        false,
                        true,
                        SETTINGS,
                        Kind.ACTING),
                Arguments.of(
                        "Succeeded, the handover not recorded: acting (it runs)",
                        plain(),
                        succeeded().handedOverAt(null),
                        false,
                        true,
                        SETTINGS,
                        Kind.ACTING),
                Arguments.of(
                        "draining: acting",
                        plain(),
                        succeeded().phase(Phase.Running).drainedAt(null),
                        false,
                        true,
                        SETTINGS,
                        Kind.ACTING),
                Arguments.of(
                        "the first claim: acting",
                        plain(),
                        MaintenanceState.initial().toBuilder(),
                        false,
                        false,
                        SETTINGS,
                        Kind.ACTING),
                Arguments.of(
                        "Waiting for a lease held elsewhere: acting",
                        plain(),
                        MaintenanceState.initial().toBuilder().phase(Phase.Waiting),
                        false,
                        true,
                        SETTINGS,
                        Kind.ACTING),
                Arguments.of(
                        "Failed, the spec changed (retried): acting",
                        plain(),
                        succeeded().phase(Phase.Failed),
                        false,
                        true,
                        SETTINGS,
                        Kind.ACTING),
                Arguments.of(
                        "idle lease turned off (0): acting",
                        plain(),
                        succeeded(),
                        false,
                        true,
                        SETTINGS.withIdleLeaseDuration(Duration.ZERO),
                        Kind.ACTING),
                Arguments.of(
                        "a window: its fixed lease, as before",
                        windowed(),
                        succeeded(),
                        false,
                        true,
                        SETTINGS,
                        Kind.WINDOW));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("holds")
    void theHoldOfACall(
            String name,
            MaintenanceRequest request,
            MaintenanceState.Builder prior,
            boolean heldFailure,
            boolean marksInPlace,
            MaintenanceSettings settings,
            Kind expected) {
        assertThat(LeaseHold.of(request, prior.build(), heldFailure, marksInPlace, settings)
                        .kind())
                .isEqualTo(expected);
    }

    @Test
    void theIdleLeaseIsWrittenAtMostFourTimesAnHourAndTheShortOneAsBefore() {
        LeaseHold idle = LeaseHold.idle(SETTINGS);
        assertThat(idle.duration()).isEqualTo(Duration.ofMinutes(30));
        assertThat(idle.heartbeatEvery()).contains(Duration.ofMinutes(15));
        assertThat(idle.renewAfter())
                .as("the reconcile's backstop")
                .isEqualTo(Duration.ofMinutes(22).plusSeconds(30));
        LeaseHold acting = LeaseHold.acting(SETTINGS);
        assertThat(acting.duration()).isEqualTo(Duration.ofSeconds(60));
        assertThat(acting.heartbeatEvery()).contains(Duration.ofSeconds(15));
        assertThat(acting.renewAfter()).isEqualTo(Duration.ofSeconds(20));
    }

    private static LeaseRecord ours(Duration duration, Duration age) {
        return new LeaseRecord(
                "tenure/a", (int) duration.toSeconds(), EARLIER, NOW.minus(age), 1, null, null, List.of(), "1", false);
    }

    static Stream<Arguments> renewals() {
        LeaseHold acting = LeaseHold.acting(SETTINGS);
        LeaseHold idle = LeaseHold.idle(SETTINGS);
        return Stream.of(
                Arguments.of(
                        "short lease, fresh, acting: kept",
                        ours(Duration.ofSeconds(60), Duration.ofSeconds(5)),
                        acting,
                        false),
                Arguments.of(
                        "short lease, a third old, acting: renewed",
                        ours(Duration.ofSeconds(60), Duration.ofSeconds(20)),
                        acting,
                        true),
                Arguments.of(
                        "long lease, fresh, acting: written short at once (before the side effect)",
                        ours(Duration.ofMinutes(30), Duration.ofSeconds(1)),
                        acting,
                        true),
                Arguments.of(
                        "short lease, fresh, idle: written long at once",
                        ours(Duration.ofSeconds(60), Duration.ofSeconds(1)),
                        idle,
                        true),
                Arguments.of(
                        "long lease, 14 min old, idle: kept (the heartbeat renews at 15)",
                        ours(Duration.ofMinutes(30), Duration.ofMinutes(14)),
                        idle,
                        false),
                Arguments.of(
                        "long lease, 23 min old, idle: renewed (the heartbeat failed)",
                        ours(Duration.ofMinutes(30), Duration.ofMinutes(23)),
                        idle,
                        true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("renewals")
    void whenAClaimWritesTheLease(String name, LeaseRecord current, LeaseHold hold, boolean written) {
        assertThat(NodeLease.renewDue(current, NOW.plus(hold.duration()), hold, NOW))
                .isEqualTo(written);
    }

    @Test
    void underTheIdleLeaseNothingIsSentLaterAfterItsRenewalThanUnderTheShortOne() {
        NodeLease lease = new NodeLease(null, () -> NOW, SETTINGS);
        LeaseRecord renewed = ours(Duration.ofMinutes(30), Duration.ZERO);
        assertThat(lease.sendUntil(renewed, SETTINGS.leaseDuration()))
                .isEqualTo(lease.sendUntil(ours(Duration.ofSeconds(60), Duration.ZERO)))
                .isEqualTo(NOW.plusSeconds(55));
    }

    @Test
    void theIdleDurationIsCheckedWhenTheSettingsAreBuilt() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SETTINGS.withIdleLeaseDuration(Duration.ofSeconds(30)))
                .hasMessageContaining("tenure.maintenance.lease.idle-duration")
                .hasMessageContaining("PT30S");
    }
}
