package dev.tenure.election;

import static dev.tenure.election.ElectorHarness.LD;
import static dev.tenure.election.ElectorHarness.RP;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testsupport.Chaos;
import dev.tenure.testsupport.SuiteCounts;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Five electors on one lease on virtual time, with random stops, crashes (stop renewing without
 * release), restarts, injected 409/500 (before and after the write is applied) and slow
 * responses, and clocks offset by up to ±leaseDuration/2.
 *
 * <p>Safety: the intervals during which electors believed they led never overlap. The skew
 * bound is zero here because virtual clocks differ by constant offsets, which the observer view
 * is immune to; real clocks also drift, which leaseDuration/renewDeadline (1.5) tolerates up to
 * a 1.5× rate difference. Injected latency is at most 1 s: requests must be bounded well below
 * leaseDuration − renewDeadline (5 s), since a leader blocked in a request notices the deadline
 * only when the request returns.
 *
 * <p>Liveness (fault-free runs): after a crash a new leader within
 * leaseDuration + 2.2 × retryPeriod (the last renew was seen through the watch when written,
 * expires leaseDuration later, and the next jittered retry comes within 2.2 × retryPeriod);
 * after a release within 2.2 × retryPeriod. Slack: none is needed on virtual time; 1 ms is
 * allowed for tick ordering.
 *
 * <p>Seeds: {@code -Dtenure.chaos.seed=N} replays; {@code -Dtenure.chaos.runs=N} sets the number of runs.
 */
@Chaos
class ElectionChaosTest {
    static final long BASE_SEED = Long.getLong("tenure.chaos.seed", System.nanoTime());
    static final int RUNS = SuiteCounts.of(SuiteCounts.CHAOS_RUNS_PROPERTY, SuiteCounts.VIRTUAL_TIME_CHAOS_RUNS);
    static final Duration SLACK = Duration.ofMillis(1);

    static Stream<Long> seeds() {
        System.out.println(
                "ElectionChaosTest base seed " + BASE_SEED + " (replay with -Dtenure.chaos.seed=" + BASE_SEED + ")");
        return LongStream.range(0, RUNS).mapToObj(i -> BASE_SEED + i);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void noTwoElectorsEverBelieveTheyLeadAtOnce(long seed) {
        System.out.println("chaos seed " + seed);
        ElectorHarness h = new ElectorHarness(seed);
        Random rnd = new Random(seed ^ 0x5eedL);
        h.store.intercept(new InMemoryLeaseStore.Interceptor() {
            @Override
            public void before(InMemoryLeaseStore.Op op, LeaseKey key) {
                fault(op, key, true);
            }

            @Override
            public void after(InMemoryLeaseStore.Op op, LeaseKey key) {
                fault(op, key, false);
            }

            private void fault(InMemoryLeaseStore.Op op, LeaseKey key, boolean beforeApply) {
                double p = rnd.nextDouble();
                if (p < 0.05 && beforeApply && op != InMemoryLeaseStore.Op.GET) {
                    throw new LeaseConflict(key, op == InMemoryLeaseStore.Op.CREATE, null);
                } else if (p < 0.10) {
                    throw new LeaseStoreFailure(
                            key, 500, beforeApply ? "injected" : "injected after apply (lost response)", null);
                } else if (p < 0.20) {
                    h.scheduler.elapse(Duration.ofMillis(rnd.nextInt(1000)));
                }
            }
        });
        Map<String, LeaderElector> live = new LinkedHashMap<>();
        Map<String, PartitionedLeaseStore> views = new LinkedHashMap<>();
        List<LeaderElector> all = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String id = "e" + i;
            views.put(id, new PartitionedLeaseStore(h.store));
            LeaderElector e = h.builder(id, skew(rnd)).store(views.get(id)).build();
            e.start();
            live.put(id, e);
            all.add(e);
        }
        int partitions = 0;
        int crashes = 0;
        int stops = 0;
        Instant end = h.scheduler.now().plus(Duration.ofMinutes(20));
        while (h.scheduler.now().isBefore(end)) {
            h.scheduler.advance(Duration.ofMillis(rnd.nextInt(5000)));
            double p = rnd.nextDouble();
            if (p < 0.08 && !live.isEmpty()) {
                String id = pick(rnd, live);
                // Prefer hitting the leader, which is where the races are.
                for (Map.Entry<String, LeaderElector> en : live.entrySet()) {
                    if (en.getValue().isLeader() && rnd.nextBoolean()) {
                        id = en.getKey();
                    }
                }
                LeaderElector victim = live.remove(id);
                if (rnd.nextBoolean()) {
                    victim.stopWithoutRelease();
                    crashes++;
                } else {
                    victim.stop();
                    stops++;
                }
            } else if (p < 0.14 && !live.isEmpty()) {
                // Cut one elector (the leader if any) off the API server for 3-20 s: renewDeadline must end its reign.
                String id = live.entrySet().stream()
                        .filter(en -> en.getValue().isLeader())
                        .map(Map.Entry::getKey)
                        .findFirst()
                        .orElse(pick(rnd, live));
                PartitionedLeaseStore view = views.get(id);
                view.partitioned = true;
                h.scheduler.schedule(Duration.ofMillis(3000 + rnd.nextInt(17_000)), () -> view.partitioned = false);
                partitions++;
            } else if (p < 0.22 && live.size() < 5) {
                for (int i = 0; i < 5; i++) {
                    if (!live.containsKey("e" + i)) {
                        LeaderElector e = h.builder("e" + i, skew(rnd))
                                .store(views.get("e" + i))
                                .build();
                        e.start();
                        live.put("e" + i, e);
                        all.add(e);
                        break;
                    }
                }
            }
        }
        h.closeOpen(all);
        System.out.printf(
                "seed %d: %d leadership intervals, %d crashes, %d stops, %d partitions%n",
                seed, h.intervals.size(), crashes, stops, partitions);
        assertThat(h.intervals).as("the run exercised hand-overs").hasSizeGreaterThan(3);
        assertThat(h.overlaps())
                .as("overlapping leadership (seed " + seed + ")")
                .isEmpty();
    }

    static Duration skew(Random rnd) {
        return Duration.ofMillis((long) ((rnd.nextDouble() - 0.5) * LD.toMillis()));
    }

    static String pick(Random rnd, Map<String, LeaderElector> live) {
        List<String> ids = new ArrayList<>(live.keySet());
        return ids.get(rnd.nextInt(ids.size()));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void newLeaderWithinLeaseDurationPlusOneJitteredRetryAfterACrash(long seed) {
        ElectorHarness h = new ElectorHarness(seed);
        Random rnd = new Random(seed);
        List<LeaderElector> electors = startFive(h);
        for (int round = 0; round < 4; round++) {
            h.scheduler.advance(Duration.ofMillis(rnd.nextInt(20_000)));
            LeaderElector leader = leaderOf(electors);
            Instant crashed = h.scheduler.now();
            leader.stopWithoutRelease();
            electors.remove(leader);
            Instant next = awaitNewLeader(
                    h, electors, LD.plus(RP.multipliedBy(22).dividedBy(10)).plus(SLACK));
            assertThat(Duration.between(crashed, next))
                    .as("seed " + seed)
                    .isLessThanOrEqualTo(
                            LD.plus(RP.multipliedBy(22).dividedBy(10)).plus(SLACK));
            LeaderElector replacement = h.start("r" + round, Duration.ZERO);
            electors.add(replacement);
        }
        h.closeOpen(electors);
        assertThat(h.overlaps()).isEmpty();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void newLeaderWithinOneJitteredRetryAfterARelease(long seed) {
        ElectorHarness h = new ElectorHarness(seed);
        Random rnd = new Random(seed);
        List<LeaderElector> electors = startFive(h);
        for (int round = 0; round < 4; round++) {
            h.scheduler.advance(Duration.ofMillis(rnd.nextInt(20_000)));
            LeaderElector leader = leaderOf(electors);
            Instant released = h.scheduler.now();
            leader.stop();
            electors.remove(leader);
            Instant next = awaitNewLeader(
                    h, electors, RP.multipliedBy(22).dividedBy(10).plus(SLACK));
            assertThat(Duration.between(released, next))
                    .as("seed " + seed)
                    .isLessThanOrEqualTo(RP.multipliedBy(22).dividedBy(10).plus(SLACK));
            electors.add(h.start("r" + round, Duration.ZERO));
        }
        h.closeOpen(electors);
        assertThat(h.overlaps()).isEmpty();
    }

    static List<LeaderElector> startFive(ElectorHarness h) {
        List<LeaderElector> electors = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            electors.add(h.start("e" + i, Duration.ZERO));
        }
        h.scheduler.advance(RP.multipliedBy(3));
        assertThat(electors.stream().filter(LeaderElector::isLeader)).hasSize(1);
        return electors;
    }

    static LeaderElector leaderOf(List<LeaderElector> electors) {
        return electors.stream().filter(LeaderElector::isLeader).findFirst().orElseThrow();
    }

    /** Steps virtual time in 10 ms ticks until someone leads; returns when, or fails after {@code limit}. */
    static Instant awaitNewLeader(ElectorHarness h, List<LeaderElector> electors, Duration limit) {
        Instant give = h.scheduler.now().plus(limit).plusSeconds(30);
        while (h.scheduler.now().isBefore(give)) {
            h.scheduler.runDue();
            if (electors.stream().anyMatch(LeaderElector::isLeader)) {
                return h.scheduler.now();
            }
            h.scheduler.advance(Duration.ofMillis(10));
        }
        throw new AssertionError("no new leader within " + limit + " + 30 s");
    }

    static Comparator<ElectorHarness.Interval> byStart() {
        return Comparator.comparing(ElectorHarness.Interval::start);
    }
}
