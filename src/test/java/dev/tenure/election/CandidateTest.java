package dev.tenure.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CandidateTest {
    static final String NS = "kube-system";
    static final LeaseKey LEASE = LeaseKey.of(NS, "my-controller");
    static final LeaseKey ME = LeaseKey.of(NS, "pod-a");
    final ManualScheduler scheduler = new ManualScheduler(Instant.parse("2026-01-01T00:00:00Z"));
    final InMemoryLeaseStore leases = new InMemoryLeaseStore();
    final InMemoryLeaseCandidateStore candidates = new InMemoryLeaseCandidateStore();
    final List<String> events = new ArrayList<>();

    Candidate candidate(String identity) {
        return candidateBuilder(identity).build();
    }

    Candidate.Builder candidateBuilder(String identity) {
        return Candidate.builder()
                .namespace(NS)
                .identity(identity)
                .leaseName("my-controller")
                .binaryVersion("1.33.0")
                .emulationVersion("1.32.0")
                .nodeName("worker-1")
                .candidateStore(candidates)
                .leaseStore(leases)
                .scheduler(scheduler)
                .unsafeAllOnLoopSchedulerForTests() // virtual time: one ManualScheduler drives it all
                .clock(scheduler.clock())
                .monotonic(scheduler.clock())
                .random(new Random(5))
                .onStartedLeading(() -> events.add(identity + " started"))
                .onStoppedLeading(() -> events.add(identity + " stopped"));
    }

    static Stream<Arguments> invalidConfigs() {
        return Stream.<Arguments>of(
                Arguments.of(
                        "no LeaseCandidate store",
                        (UnaryOperator<Candidate.Builder>) b -> b.candidateStore(null),
                        "candidate config: candidateStore must be set"),
                Arguments.of(
                        "empty identity",
                        (UnaryOperator<Candidate.Builder>) b -> b.identity(" "),
                        "leader election config: identity must be non-empty"),
                Arguments.of(
                        "lease duration not above renew deadline",
                        (UnaryOperator<Candidate.Builder>) b -> b.renewDeadline(Duration.ofSeconds(15)),
                        "leader election config: leaseDuration (PT15S) must be greater than renewDeadline (PT15S)"),
                Arguments.of(
                        "negative health grace",
                        (UnaryOperator<Candidate.Builder>) b -> b.healthGrace(Duration.ofSeconds(-1)),
                        "leader election config: healthGrace (PT-1S) must not be negative"),
                Arguments.of(
                        "no lease store",
                        (UnaryOperator<Candidate.Builder>) b -> b.leaseStore(null),
                        "leader election config: store must be set"));
    }

    /** A candidate's elector settings are checked by the elector's own rules (one ElectionConfig), its own fields first. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidConfigs")
    void builderNamesTheViolatedRule(String name, UnaryOperator<Candidate.Builder> breakIt, String message) {
        assertThatThrownBy(() -> breakIt.apply(candidateBuilder("pod-a")).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @Test
    void registersAndRenewsEveryFiveMinutesAndAtOnceWhenPinged() {
        Candidate a = candidate("pod-a");
        a.start();
        scheduler.runDue();
        CandidateRecord c = candidates.peek(ME).orElseThrow();
        assertThat(c.leaseName()).isEqualTo("my-controller");
        assertThat(c.binaryVersion()).isEqualTo("1.33.0");
        assertThat(c.emulationVersion()).isEqualTo("1.32.0");
        assertThat(c.strategy()).isEqualTo("OldestEmulationVersion");
        assertThat(c.labels()).containsEntry("tenure.dev/node", "worker-1");
        assertThat(c.renewTime()).isEqualTo(scheduler.now());
        scheduler.advance(Duration.ofMinutes(5));
        assertThat(candidates.peek(ME).orElseThrow().renewTime()).isEqualTo(scheduler.now());
        scheduler.advance(Duration.ofSeconds(30));
        Instant pingedAt = scheduler.now();
        candidates.put(ME, candidates.peek(ME).orElseThrow().withPingTime(pingedAt));
        scheduler.runDue();
        CandidateRecord acked = candidates.peek(ME).orElseThrow();
        assertThat(acked.renewTime()).isEqualTo(pingedAt);
        assertThat(acked.pinged()).isFalse();
    }

    @Test
    void neverCreatesTheLeaseAndLeadsOnlyWhenAssigned() {
        Candidate a = candidate("pod-a");
        a.start();
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(leases.peek(LEASE)).isEmpty();
        assertThat(a.isLeader()).isFalse();
        // A free lease is not taken either: only the controller assigns.
        leases.put(LEASE, LeaseRecord.unheld().withLeaseDurationSeconds(5));
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(a.isLeader()).isFalse();
        // The controller elects pod-a.
        leases.put(
                LEASE,
                LeaseRecord.heldBy("pod-a", Duration.ofSeconds(5), scheduler.now())
                        .withStrategy("OldestEmulationVersion"));
        scheduler.advance(Duration.ofSeconds(5));
        assertThat(a.isLeader()).isTrue();
        Instant renewed = leases.peek(LEASE).orElseThrow().renewTime();
        scheduler.advance(Duration.ofSeconds(10));
        assertThat(leases.peek(LEASE).orElseThrow().renewTime()).isAfter(renewed);
        assertThat(events).containsExactly("pod-a started");
    }

    @Test
    void releasesAtOnceWhenAnotherCandidateIsPreferred() {
        Candidate a = candidate("pod-a");
        a.start();
        leases.put(
                LEASE,
                LeaseRecord.heldBy("pod-a", Duration.ofSeconds(5), scheduler.now())
                        .withStrategy("OldestEmulationVersion"));
        scheduler.advance(Duration.ofSeconds(5));
        assertThat(a.isLeader()).isTrue();
        leases.put(LEASE, leases.peek(LEASE).orElseThrow().withPreferredHolder("pod-b"));
        scheduler.runDue();
        assertThat(a.isLeader()).isFalse();
        LeaseRecord released = leases.peek(LEASE).orElseThrow();
        assertThat(released.hasHolder()).isFalse();
        assertThat(released.preferredHolder()).isEqualTo("pod-b");
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(a.isLeader())
                .as("does not re-take a lease released for pod-b")
                .isFalse();
        assertThat(events).containsExactly("pod-a started", "pod-a stopped");
    }
}
