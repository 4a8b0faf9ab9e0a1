package dev.tenure.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HeartbeatTest {
    static final LeaseKey NODE_LEASE = LeaseKey.of("medik8s-leases", "node-worker-1");
    static final LeaseOwner NODE = LeaseOwner.node("worker-1", "uid-1");
    static final Duration DURATION = Duration.ofSeconds(40);
    static final Duration INTERVAL = Duration.ofSeconds(10);

    final ManualScheduler scheduler = new ManualScheduler(Instant.parse("2026-01-01T00:00:00Z"));
    final InMemoryLeaseStore store = new InMemoryLeaseStore();
    final List<Duration> delays = new ArrayList<>();
    final Scheduler recording = (d, t) -> {
        delays.add(d);
        return scheduler.schedule(d, t);
    };
    final List<LeaseStoreException> repeatedFailures = new ArrayList<>();
    final List<LeaseHeldElsewhere> heldElsewhere = new ArrayList<>();

    Heartbeat.Builder heartbeat() {
        return Heartbeat.builder()
                .lease(NODE_LEASE)
                .holder("tenure")
                .leaseDuration(DURATION)
                .renewInterval(INTERVAL)
                .owner(() -> Optional.of(NODE))
                .store(store)
                .scheduler(recording)
                .clock(scheduler.clock())
                .random(new Random(3))
                .onRepeatedFailure(repeatedFailures::add)
                .onHeldElsewhere(heldElsewhere::add);
    }

    @Test
    void createsWithOwnerThenRenewsOptimisticallyWithJitter() {
        Heartbeat hb = heartbeat().build();
        hb.start();
        scheduler.runDue();
        LeaseRecord created = store.peek(NODE_LEASE).orElseThrow();
        assertThat(created.holderIdentity()).isEqualTo("tenure");
        assertThat(created.leaseDurationSeconds()).isEqualTo(40);
        assertThat(created.owners()).containsExactly(NODE);
        store.resetCounts();
        scheduler.advance(Duration.ofSeconds(105));
        assertThat(store.calls(InMemoryLeaseStore.Op.GET))
                .as("renews write from the last lease, no read")
                .isZero();
        assertThat(store.calls(InMemoryLeaseStore.Op.UPDATE)).isBetween(9, 10);
        assertThat(store.peek(NODE_LEASE).orElseThrow().renewTime())
                .isAfter(created.renewTime().plusSeconds(90));
        List<Duration> renewDelays = delays.subList(1, delays.size());
        assertThat(renewDelays)
                .allSatisfy(d -> assertThat(d)
                        .isBetween(INTERVAL, INTERVAL.multipliedBy(104).dividedBy(100)));
        assertThat(renewDelays.stream().distinct().count()).isGreaterThan(1);
    }

    /** The default the docs state (LeaseRenewalDocsTest): a quarter of the duration, kubelet's 10 s for 40 s. */
    @Test
    void withoutARenewIntervalItRenewsEveryQuarterOfTheDuration() {
        Heartbeat hb = heartbeat().renewInterval(null).build();
        hb.start();
        scheduler.runDue();
        scheduler.advance(Duration.ofSeconds(60));
        List<Duration> renewDelays = delays.subList(1, delays.size());
        Duration quarter = DURATION.dividedBy(4);
        assertThat(renewDelays)
                .isNotEmpty()
                .allSatisfy(d -> assertThat(d)
                        .isBetween(quarter, quarter.multipliedBy(104).dividedBy(100)));
    }

    @Test
    void ensureBacksOffFrom200msDoublingTo7sAsKubeletDoes() {
        AtomicInteger failures = new AtomicInteger(10);
        store.intercept(new InMemoryLeaseStore.Interceptor() {
            @Override
            public void before(InMemoryLeaseStore.Op op, LeaseKey key) {
                if (failures.getAndDecrement() > 0) {
                    throw new LeaseStoreFailure(key, 500, "injected", null);
                }
            }
        });
        heartbeat().build().start();
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(delays.subList(1, 11))
                .extracting(Duration::toMillis)
                .containsExactly(200L, 400L, 800L, 1600L, 3200L, 6400L, 7000L, 7000L, 7000L, 7000L);
        assertThat(store.peek(NODE_LEASE)).isPresent();
    }

    @Test
    void fiveImmediateRetriesEachFailureAfterTheFirstCallsBackThenEnsureFromARead() {
        heartbeat().build().start();
        scheduler.runDue();
        AtomicInteger failures = new AtomicInteger(5);
        store.resetCounts();
        store.intercept(new InMemoryLeaseStore.Interceptor() {
            @Override
            public void before(InMemoryLeaseStore.Op op, LeaseKey key) {
                if (failures.getAndDecrement() > 0) {
                    throw new LeaseStoreFailure(key, 503, "injected", null);
                }
            }
        });
        scheduler.advance(INTERVAL.multipliedBy(104).dividedBy(100));
        assertThat(store.calls(InMemoryLeaseStore.Op.UPDATE)).isEqualTo(5);
        assertThat(repeatedFailures)
                .as("kubelet: onRepeatedHeartbeatFailure on each failure after the first")
                .hasSize(4);
        assertThat(store.calls(InMemoryLeaseStore.Op.GET)).isZero();
        scheduler.advance(INTERVAL.multipliedBy(104).dividedBy(100));
        assertThat(store.calls(InMemoryLeaseStore.Op.GET))
                .as("after repeated failures the next sync ensures from a read")
                .isEqualTo(1);
        assertThat(store.calls(InMemoryLeaseStore.Op.UPDATE)).isEqualTo(6);
        assertThat(repeatedFailures).hasSize(4);
    }

    @Test
    void aDeletedLeaseIsCreatedAgain() {
        Heartbeat hb = heartbeat().build();
        hb.start();
        scheduler.runDue();
        store.delete(NODE_LEASE); // e.g. garbage-collected with a Node that was re-registered
        scheduler.advance(INTERVAL.multipliedBy(104).dividedBy(100));
        LeaseRecord recreated = store.peek(NODE_LEASE).orElseThrow();
        assertThat(recreated.holderIdentity()).isEqualTo("tenure");
        assertThat(recreated.owners()).containsExactly(NODE);
        assertThat(repeatedFailures).isEmpty();
        assertThat(hb.isRunning()).isTrue();
    }

    @Test
    void ownerReferenceIsRetriedUntilItIsSet() {
        AtomicInteger lookups = new AtomicInteger();
        Heartbeat hb = heartbeat()
                .owner(() -> {
                    if (lookups.incrementAndGet() < 3) {
                        throw new IllegalStateException("node not found yet");
                    }
                    return Optional.of(NODE);
                })
                .build();
        hb.start();
        scheduler.runDue();
        assertThat(store.peek(NODE_LEASE).orElseThrow().owners()).isEmpty();
        scheduler.advance(INTERVAL.multipliedBy(2).plusSeconds(1));
        assertThat(store.peek(NODE_LEASE).orElseThrow().owners()).containsExactly(NODE);
        int afterSet = lookups.get();
        scheduler.advance(INTERVAL.multipliedBy(3));
        assertThat(lookups.get()).as("no more lookups once set").isEqualTo(afterSet);
    }

    @Test
    void aValidForeignLeaseIsReportedNotOverwritten() {
        store.put(NODE_LEASE, LeaseRecord.heldBy("other-operator", DURATION, scheduler.now()));
        store.resetCounts();
        Heartbeat hb = heartbeat().build();
        hb.start();
        scheduler.runDue();
        assertThat(heldElsewhere)
                .extracting(LeaseHeldElsewhere::key, LeaseHeldElsewhere::holder, LeaseHeldElsewhere::expiresAt)
                .containsExactly(
                        tuple(NODE_LEASE, "other-operator", scheduler.now().plus(DURATION)));
        assertThat(store.calls(InMemoryLeaseStore.Op.UPDATE)).isZero();
        assertThat(hb.isRunning()).isFalse();
    }

    @Test
    void aForeignTakeoverMidwayIsReportedNotOverwritten() {
        Heartbeat hb = heartbeat().build();
        hb.start();
        scheduler.runDue();
        LeaseRecord ours = store.peek(NODE_LEASE).orElseThrow();
        store.put(NODE_LEASE, LeaseRules.heldRecord(ours, "intruder", scheduler.now(), DURATION));
        scheduler.advance(INTERVAL.multipliedBy(2));
        assertThat(heldElsewhere).extracting(LeaseHeldElsewhere::holder).containsExactly("intruder");
        assertThat(store.peek(NODE_LEASE).orElseThrow().holderIdentity()).isEqualTo("intruder");
    }

    @Test
    void anExpiredForeignLeaseIsTakenOverWithOneMoreTransition() {
        store.put(
                NODE_LEASE,
                LeaseRecord.heldBy(
                                "gone", Duration.ofSeconds(10), scheduler.now().minusSeconds(60))
                        .withLeaseTransitions(2));
        heartbeat().build().start();
        scheduler.runDue();
        LeaseRecord r = store.peek(NODE_LEASE).orElseThrow();
        assertThat(r.holderIdentity()).isEqualTo("tenure");
        assertThat(r.leaseTransitions()).isEqualTo(3);
        assertThat(heldElsewhere).isEmpty();
    }

    @Test
    void oneHeartbeatPerLeaseAndStopAndRelease() {
        Heartbeats heartbeats = new Heartbeats();
        Heartbeat first = heartbeats.ensureStarted(heartbeat().build());
        Heartbeat again = heartbeats.ensureStarted(heartbeat().build());
        assertThat(again).isSameAs(first);
        scheduler.runDue();
        assertThat(heartbeats.leases()).containsExactly(NODE_LEASE);
        assertThat(heartbeats.stopAndRelease(NODE_LEASE)).isTrue();
        LeaseRecord released = store.peek(NODE_LEASE).orElseThrow();
        assertThat(released.hasHolder()).isFalse();
        assertThat(released.leaseDurationSeconds()).isEqualTo(1);
        store.resetCounts();
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(store.calls(InMemoryLeaseStore.Op.UPDATE)).isZero();
    }
}
