package dev.tenure.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.LeaderElector;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.Chaos;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.SecondLane;
import dev.tenure.testsupport.SuiteCounts;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Tenure's LeaderElector on the fabric8 adapter against the emulated API server, on real threads and the
 * real clock (ElectionChaosTest covers the same races on virtual time with an in-memory store): two
 * leases, up to four electors each, 10 % of lease requests failed (409/429/500) or delayed (300 ms/1 s),
 * leader crashes (no release), planned stops (release), restarts under the same identity and candidate
 * churn (new identities joining).
 *
 * <p>Invariant: at no sampled instant do two live electors of one lease both answer {@code isLeader()}.
 * An elector counts as gone from the moment the driver decides to crash or stop it (a dead process leads
 * nothing; a caller stops its guarded work before {@code stop()} releases, as client-go requires for
 * ReleaseOnCancel). Sampled every millisecond or so on a dedicated thread.
 *
 * <p>{@code -Dtenure.chaos.seed=N} replays the driver's decisions and fault draws (thread timing still
 * varies); {@code -Dtenure.chaos.runs=N} sets the number of runs; {@code -Dtenure.chaos.seconds=N} their length.
 */
@Chaos
@SecondLane
class LeaseElectionChaosTest {
    static final long BASE_SEED = Long.getLong("tenure.chaos.seed", System.nanoTime());
    static final int RUNS = SuiteCounts.of(SuiteCounts.CHAOS_RUNS_PROPERTY, SuiteCounts.CHAOS_RUNS);
    static final Duration RUN = Duration.ofSeconds(Long.getLong("tenure.chaos.seconds", 12));
    static final String NAMESPACE = "chaos";
    static final String ELECTOR_AGENT = "chaos-elector";
    static final List<String> LEASES = List.of("alpha", "beta");

    static Stream<Long> seeds() {
        System.out.println(
                "LeaseElectionChaosTest base seed " + BASE_SEED + " (replay: -Dtenure.chaos.seed=" + BASE_SEED + ")");
        return LongStream.range(0, RUNS).mapToObj(i -> BASE_SEED + i);
    }

    /** One elector as the driver sees it; {@code gone} is set before it is crashed or stopped. */
    static final class Live {
        final String lease;
        final String identity;
        final LeaderElector elector;
        final ExecutorScheduler scheduler;
        volatile boolean gone;

        Live(String lease, String identity, LeaderElector elector, ExecutorScheduler scheduler) {
            this.lease = lease;
            this.identity = identity;
            this.elector = elector;
            this.scheduler = scheduler;
        }

        /** Alive (not crashed or stopped by the driver) and answering isLeader() for {@code lease}. */
        boolean leads(String lease) {
            return this.lease.equals(lease) && !gone && elector.isLeader();
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void neverTwoLeadersAtOnceUnderFaultsCrashesRestartsAndChurn(long seed) throws Exception {
        System.out.println("lease election chaos: seed " + seed + " (replay: -Dtenure.chaos.seed=" + seed
                + " -Dtenure.chaos.runs=1)");
        Random rnd = new Random(seed);
        try (EmulatedCluster cluster = EmulatedCluster.start();
                KubernetesClient electorClient = EmulatedCluster.clientBuilder()
                        .withConfig(new ConfigBuilder(cluster.clientConfig())
                                .withUserAgent(ELECTOR_AGENT)
                                .build())
                        .build()) {
            cluster.seed().namespace(NAMESPACE);
            ChaosFaults faults = ChaosFaults.install(
                    cluster.faults(),
                    seed,
                    ApiRequest.resource("leases").and(r -> r.userAgent().equals(ELECTOR_AGENT)));
            KubeLeaseStore store = new KubeLeaseStore(electorClient);
            List<Live> electors = new CopyOnWriteArrayList<>();
            List<String> violations = new CopyOnWriteArrayList<>();
            // processes that led at some sampled instant: a restarted process is a new one, even under its old name
            Set<Live> leaders = java.util.concurrent.ConcurrentHashMap.newKeySet();
            int[] counter = {0};
            int crashes = 0;
            int stops = 0;
            int restarts = 0;
            int joins = 0;

            Thread sampler = new Thread(
                    () -> {
                        while (!Thread.currentThread().isInterrupted()) {
                            for (String lease : LEASES) {
                                List<Live> leading = electors.stream()
                                        .filter(l -> l.leads(lease))
                                        .toList();
                                leaders.addAll(leading);
                                if (leading.size() > 1 && violations.size() < 20) {
                                    violations.add(lease + ": "
                                            + leading.stream()
                                                    .map(l -> l.identity)
                                                    .toList() + " at " + java.time.Instant.now());
                                }
                            }
                            Thread.onSpinWait();
                            try {
                                Thread.sleep(1);
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "chaos-leadership-sampler");
            sampler.setDaemon(true);
            sampler.start();

            try {
                for (String lease : LEASES) {
                    for (int i = 0; i < 3; i++) {
                        electors.add(start(store, lease, lease + "-" + counter[0]++, rnd));
                    }
                }
                long end = System.nanoTime() + RUN.toNanos();
                while (System.nanoTime() < end) {
                    Thread.sleep(100 + rnd.nextInt(500));
                    String lease = LEASES.get(rnd.nextInt(LEASES.size()));
                    List<Live> mine = electors.stream()
                            .filter(l -> l.lease.equals(lease) && !l.gone)
                            .toList();
                    double p = rnd.nextDouble();
                    if (p < 0.25 && !mine.isEmpty()) {
                        Live victim = mine.stream()
                                .filter(l -> l.elector.isLeader())
                                .findFirst()
                                .orElse(mine.get(rnd.nextInt(mine.size())));
                        victim.gone = true;
                        boolean restart = rnd.nextBoolean();
                        if (rnd.nextBoolean()) {
                            victim.elector.stopWithoutRelease();
                            crashes++;
                        } else {
                            victim.elector.stop();
                            stops++;
                        }
                        victim.scheduler.close();
                        if (restart) {
                            // The process comes back with the same identity (a restarted pod keeps its name).
                            electors.add(start(store, lease, victim.identity, rnd));
                            restarts++;
                        }
                    } else if (p < 0.40 && mine.size() < 4) {
                        electors.add(start(store, lease, lease + "-" + counter[0]++, rnd));
                        joins++;
                    }
                }
                // Whatever the draws were, end with one failover per lease, so every run shows leadership moving.
                for (String lease : LEASES) {
                    while (electors.stream()
                                    .filter(l -> l.lease.equals(lease) && !l.gone)
                                    .count()
                            < 2) {
                        electors.add(start(store, lease, lease + "-" + counter[0]++, rnd));
                        joins++;
                    }
                    Live leader = awaitLeader(electors, lease);
                    leaders.add(leader);
                    leader.gone = true;
                    leader.elector.stopWithoutRelease();
                    leader.scheduler.close();
                    crashes++;
                }
                for (String lease : LEASES) {
                    leaders.add(awaitLeader(electors, lease));
                }
            } finally {
                for (Live l : electors) {
                    l.gone = true;
                    l.elector.stopWithoutRelease();
                    l.scheduler.close();
                }
                sampler.interrupt();
                sampler.join(1000);
            }
            System.out.printf(
                    "seed %d: %d leaders seen, %d crashes, %d planned stops, %d restarts, %d joins, "
                            + "%d faults injected %s, %d violations%n",
                    seed, leaders.size(), crashes, stops, restarts, joins, faults.total(), faults, violations.size());
            assertThat(faults.total()).as("faults were injected").isPositive();
            assertThat(leaders.size())
                    .as("processes that led (leadership moved)")
                    .isGreaterThan(LEASES.size());
            assertThat(violations).as("two leaders at once (seed " + seed + ")").isEmpty();
        }
    }

    /** The live elector leading {@code lease}, waiting up to 30 s (faults keep being injected meanwhile). */
    static Live awaitLeader(List<Live> electors, String lease) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            Optional<Live> leader =
                    electors.stream().filter(l -> l.leads(lease)).findFirst();
            if (leader.isPresent()) {
                return leader.get();
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no live elector of " + lease + " became leader within 30 s");
    }

    static Live start(KubeLeaseStore store, String lease, String identity, Random rnd) {
        ExecutorScheduler scheduler = new ExecutorScheduler("chaos-" + identity);
        LeaderElector elector = LeaderElector.builder()
                .lease(LeaseKey.of(NAMESPACE, lease))
                .identity(identity)
                .leaseDuration(Duration.ofSeconds(3))
                .renewDeadline(Duration.ofSeconds(2))
                .retryPeriod(Duration.ofMillis(400))
                .store(store)
                .scheduler(scheduler)
                .clock(Clock.systemUTC())
                .monotonic(dev.tenure.election.MonotonicClock.system())
                .random(new Random(rnd.nextLong()))
                .build();
        elector.start();
        return new Live(lease, identity, elector, scheduler);
    }
}
