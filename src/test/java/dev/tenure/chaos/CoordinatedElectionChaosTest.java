package dev.tenure.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.coordination.CoordinationController;
import dev.tenure.coordination.CoordinationMetrics;
import dev.tenure.coordination.ElectionPlanner;
import dev.tenure.coordination.ElectionTiming;
import dev.tenure.coordination.LeaseCandidateApi;
import dev.tenure.coordination.MaintenanceAware;
import dev.tenure.coordination.NodeAvailability;
import dev.tenure.election.Candidate;
import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseCandidateStore;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.NodeCache;
import dev.tenure.operator.CoordinatedLeadershipHandover;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.Chaos;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.RequestOrigin;
import dev.tenure.testsupport.SecondLane;
import dev.tenure.testsupport.SuiteCounts;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Coordinated leader election under chaos: election-core {@link Candidate}s (a LeaseCandidate plus a coordinated
 * elector) on three Leases, three or four per Lease on distinct emulated nodes (label {@code tenure.dev/node}),
 * elected by the {@link CoordinationController} built as {@code CoordinationBeans} builds it (upstream timing,
 * strategy {@code tenure.dev/MaintenanceAware}), on real threads and the real clock. A seeded driver crashes
 * candidates (no release), stops them (release), restarts them under the same identity, adds new ones (some with an
 * older emulationVersion, so the controller sets preferredHolder and the holder yields), cordons and uncordons nodes,
 * runs the NodeMaintenance handover step on a leader's node ({@link CoordinatedLeadershipHandover}: cordon, drain
 * taint, preferredHolder) and restarts the controller (stop, new instance on the same cluster). The controller uses
 * the operator's client, the candidates the workload client (a workload's replicas, with RBAC of their own). 10 % of
 * their gets and writes fail with 409/429/500 or are delayed by 300 ms/1 s ({@link ChaosFaults}); lists and watches
 * are spared, since an informer that cannot list makes {@code start()} throw (the operator's own restart loop, not
 * the election, would handle that) and a lost watch is covered by polling, which only slows things down.
 *
 * <p>Invariants, every run:
 * <ul>
 *   <li>no two candidates of a Lease lead at once: every ~1 ms a sampler records, per candidate, the intervals in
 *   which {@code isLeader()} answered true; intervals of different candidates of one Lease must not overlap. A
 *   candidate counts as gone from the moment the driver decides to crash or stop it (a dead process leads nothing; a
 *   caller stops its guarded work before {@code stop()} releases);</li>
 *   <li>liveness: once faults stop and the driver is done, every Lease with a live candidate has a live leader, on a
 *   node that is not cordoned whenever a live candidate runs on such a node, within {@link #SETTLE_WITHIN};</li>
 *   <li>handover: then, with every node uncordoned, for each Lease in turn the NodeMaintenance step on its
 *   leader's node (cordon, taint, {@code handOver}; the nodes stay cordoned) moves leadership off that node within
 *   {@link #SETTLE_WITHIN} when a live candidate runs on a node that is not cordoned.</li>
 * </ul>
 *
 * <p>{@code -Dtenure.chaos.seed=N} replays the driver's decisions and fault draws (thread timing still varies);
 * {@code -Dtenure.chaos.runs=N} sets the number of runs; {@code -Dtenure.chaos.seconds=N} their length.
 */
@Chaos
@SecondLane
class CoordinatedElectionChaosTest {
    static final long BASE_SEED = Long.getLong("tenure.chaos.seed", System.nanoTime());
    static final int RUNS = SuiteCounts.of(SuiteCounts.CHAOS_RUNS_PROPERTY, SuiteCounts.CHAOS_RUNS);
    static final Duration RUN = Duration.ofSeconds(Long.getLong("tenure.chaos.seconds", 12));
    static final String NAMESPACE = "chaos-coordinated";
    static final List<String> LEASES = List.of("alpha", "beta", "gamma");
    static final List<String> NODES = List.of("n0", "n1", "n2", "n3", "n4", "n5");
    static final ElectionTiming TIMING = ElectionTiming.UPSTREAM;
    static final Duration LEASE_DURATION = Duration.ofSeconds(3);
    static final Duration RENEW_DEADLINE = Duration.ofSeconds(2);
    static final Duration RETRY_PERIOD = Duration.ofMillis(400);
    /** Some candidates renew their LeaseCandidate inside the ping window, the others only answer pings. */
    static final List<Duration> RENEW_INTERVALS = List.of(Duration.ofSeconds(3), Duration.ofMinutes(5));
    /**
     * Bound for a Lease to get a (well placed) leader once faults stop: a crashed holder's lease runs out (candidate
     * leaseDuration), the controller looks again at its next requeue, pings and waits out the window of pings a crashed
     * candidate never answers; it may elect a candidate that crashed inside the ack window, whose controller-written
     * lease must run out before a second round (so twice requeue + window, plus the controller's lease duration);
     * then the electee renews on the event or at its next jittered retry (2.2 × retryPeriod); plus 2 s for the
     * work queue's backoff after the last failures and a loaded 2-core machine.
     */
    static final Duration SETTLE_WITHIN = LEASE_DURATION
            .plus(TIMING.requeueInterval().plus(TIMING.electionWindow()).multipliedBy(2))
            .plusSeconds(TIMING.leaseDurationSeconds())
            .plus(Duration.ofNanos((long) (RETRY_PERIOD.toNanos() * 2.2)))
            .plusSeconds(2);

    static Stream<Long> seeds() {
        System.out.println("CoordinatedElectionChaosTest base seed " + BASE_SEED + " (replay: -Dtenure.chaos.seed="
                + BASE_SEED + ")");
        return LongStream.range(0, RUNS).mapToObj(i -> BASE_SEED + i);
    }

    /** One candidate process as the driver sees it; {@code gone} is set before it is crashed or stopped. */
    static final class Live {
        final String lease;
        final String identity;
        final String node;
        final Candidate candidate;
        final ExecutorScheduler scheduler;
        volatile boolean gone;
        // sampler state: since when it has been seen leading (nanoTime), -1 when not
        long leadingSince = -1;
        long lastSeenLeading;

        Live(String lease, String identity, String node, Candidate candidate, ExecutorScheduler scheduler) {
            this.lease = lease;
            this.identity = identity;
            this.node = node;
            this.candidate = candidate;
            this.scheduler = scheduler;
        }

        boolean leads() {
            return !gone && candidate.isLeader();
        }
    }

    /** One stretch in which a candidate answered {@code isLeader()} true, first to last sample (System.nanoTime). */
    record Interval(String lease, String identity, long from, long to) {}

    /** Pairs of intervals of different candidates of one Lease that share an instant. */
    static List<String> overlaps(List<Interval> intervals) {
        List<String> out = new ArrayList<>();
        Map<String, List<Interval>> byLease = intervals.stream().collect(Collectors.groupingBy(Interval::lease));
        for (List<Interval> list : byLease.values()) {
            List<Interval> sorted = list.stream()
                    .sorted((a, b) -> Long.compare(a.from(), b.from()))
                    .toList();
            for (int i = 0; i < sorted.size(); i++) {
                for (int j = i + 1;
                        j < sorted.size()
                                && sorted.get(j).from() <= sorted.get(i).to();
                        j++) {
                    Interval a = sorted.get(i);
                    Interval b = sorted.get(j);
                    if (!a.identity().equals(b.identity())) {
                        out.add(a.lease() + ": " + a.identity() + " and " + b.identity() + " both led for "
                                + (Math.min(a.to(), b.to()) - b.from()) / 1_000 + " µs");
                    }
                }
            }
        }
        return out;
    }

    /** What the driver did in one run, for the report. */
    static final class Actions {
        final Map<String, AtomicInteger> counts = new TreeMap<>();

        void count(String action) {
            counts.computeIfAbsent(action, a -> new AtomicInteger()).incrementAndGet();
        }

        int total() {
            return counts.values().stream().mapToInt(AtomicInteger::get).sum();
        }

        @Override
        public String toString() {
            return counts.toString();
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void neverTwoLeadersAndLeadershipSettlesOffCordonedNodesUnderChaos(long seed) throws Exception {
        System.out.println("coordinated election chaos: seed " + seed + " (replay: -Dtenure.chaos.seed=" + seed
                + " -Dtenure.chaos.runs=1)");
        Random rnd = new Random(seed);
        Clock clock = Clock.systemUTC();
        try (EmulatedCluster cluster = EmulatedCluster.start()) {
            KubernetesClient harness = cluster.client();
            KubernetesClient operator = cluster.operatorClient(); // the controller
            KubernetesClient workload = cluster.workloadClient(); // the candidates: replicas of a workload, own RBAC
            cluster.seed().namespace(NAMESPACE);
            for (String n : NODES) {
                cluster.seed().node(n).role("worker").create();
            }
            LeaseCandidateApi api = LeaseCandidateApi.discover(operator, "auto");
            assertThat(api.served()).as(api.detail()).isTrue();
            KubeLeaseStore leaseStore = new KubeLeaseStore(workload);
            KubeLeaseCandidateStore candidateStore = new KubeLeaseCandidateStore(workload, api.version());

            List<Live> candidates = new CopyOnWriteArrayList<>();
            List<Interval> intervals = new CopyOnWriteArrayList<>();
            AtomicInteger terms = new AtomicInteger();
            Actions actions = new Actions();
            Set<String> cordoned = ConcurrentHashMap.newKeySet();
            Map<String, Integer> next = new HashMap<>();
            Thread sampler = sampler(candidates, intervals);

            CoordinationController controller = controller(operator, api, clock);
            ChaosFaults faults = null;
            int handoversChecked = 0;
            int handoversSkipped = 0;
            try {
                for (String lease : LEASES) {
                    int n = 3 + rnd.nextInt(2);
                    for (int i = 0; i < n; i++) {
                        candidates.add(start(
                                leaseStore,
                                candidateStore,
                                lease,
                                lease + "-" + next.merge(lease, 1, Integer::sum),
                                freeNode(candidates, lease, rnd),
                                rnd.nextBoolean() ? "1.30.0" : "1.31.0",
                                rnd,
                                clock,
                                terms));
                    }
                }
                faults = ChaosFaults.install(cluster.faults(), seed, electionRequests());

                long end = System.nanoTime() + RUN.toNanos();
                while (System.nanoTime() < end) {
                    Thread.sleep(100 + rnd.nextInt(400));
                    String lease = LEASES.get(rnd.nextInt(LEASES.size()));
                    List<Live> mine = live(candidates, lease);
                    double p = rnd.nextDouble();
                    if (p < 0.22 && mine.size() > 2) {
                        // the leader half the time, so failover is exercised, not only standbys going away
                        Live victim = rnd.nextBoolean()
                                ? mine.stream()
                                        .filter(Live::leads)
                                        .findFirst()
                                        .orElse(mine.get(rnd.nextInt(mine.size())))
                                : mine.get(rnd.nextInt(mine.size()));
                        victim.gone = true;
                        if (rnd.nextBoolean()) {
                            victim.scheduler
                                    .close(); // a crash: no release, no more renews; the lease and the candidate go
                            // stale
                            actions.count("crash");
                        } else {
                            victim.candidate.stop();
                            victim.scheduler.close();
                            actions.count("stop");
                        }
                        if (rnd.nextInt(3) == 0) {
                            // the process comes back with the same identity on the same node (a StatefulSet pod)
                            candidates.add(start(
                                    leaseStore,
                                    candidateStore,
                                    lease,
                                    victim.identity,
                                    victim.node,
                                    rnd.nextBoolean() ? "1.30.0" : "1.31.0",
                                    rnd,
                                    clock,
                                    terms));
                            actions.count("restart");
                        }
                    } else if (p < 0.40 && mine.size() < 4) {
                        // churn; an older emulationVersion outranks the holder, so the controller sets preferredHolder
                        String version = List.of("1.29.0", "1.30.0", "1.31.0").get(rnd.nextInt(3));
                        candidates.add(start(
                                leaseStore,
                                candidateStore,
                                lease,
                                lease + "-" + next.merge(lease, 1, Integer::sum),
                                freeNode(candidates, lease, rnd),
                                version,
                                rnd,
                                clock,
                                terms));
                        actions.count("join");
                    } else if (p < 0.55) {
                        String node = NODES.get(rnd.nextInt(NODES.size()));
                        if (cordoned.contains(node)) {
                            uncordon(harness, node);
                            cordoned.remove(node);
                            actions.count("uncordon");
                        } else {
                            cordon(harness, node, false);
                            cordoned.add(node);
                            actions.count("cordon");
                        }
                    } else if (p < 0.70) {
                        Optional<Live> leader =
                                mine.stream().filter(Live::leads).findFirst();
                        if (leader.isPresent()) {
                            // the NodeMaintenance handover step: cordon and taint, then ask for the handover
                            cordon(harness, leader.get().node, true);
                            cordoned.add(leader.get().node);
                            Instant now = clock.instant();
                            new CoordinatedLeadershipHandover(controller).handOver(leader.get().node, now, now);
                            actions.count("handover");
                        }
                    } else if (p < 0.78) {
                        controller.stop(); // an operator restart: the next one resumes from the objects
                        controller = controller(operator, api, clock);
                        actions.count("controller restart");
                    }
                }

                cluster.faults().clear();
                for (String lease : LEASES) {
                    awaitWellPlacedLeader(harness, candidates, lease, cordoned, seed);
                }
                // the maintenance handover from a clean slate, one Lease after the other
                for (String node : List.copyOf(cordoned)) {
                    uncordon(harness, node);
                    cordoned.remove(node);
                }
                for (String lease : LEASES) {
                    awaitWellPlacedLeader(harness, candidates, lease, cordoned, seed);
                }
                CoordinatedLeadershipHandover handover = new CoordinatedLeadershipHandover(controller);
                for (String lease : LEASES) {
                    awaitWellPlacedLeader(harness, candidates, lease, cordoned, seed);
                    Optional<Live> leader =
                            live(candidates, lease).stream().filter(Live::leads).findFirst();
                    if (leader.isEmpty()) {
                        handoversSkipped++; // no live candidate left on this Lease
                        continue;
                    }
                    String node = leader.get().node;
                    boolean successorPossible = live(candidates, lease).stream()
                            .anyMatch(c -> !c.node.equals(node) && !cordoned.contains(c.node));
                    if (!successorPossible) {
                        handoversSkipped++;
                        continue;
                    }
                    cordon(harness, node, true);
                    cordoned.add(node);
                    Instant started = clock.instant();
                    // (the cordon alone may already have moved it: MaintenanceAware reacts to the node by itself)
                    handover.handOver(node, started, started);
                    awaitOrDescribe(
                            "leadership of " + lease + " off " + node + " after the handover request (seed " + seed
                                    + ")",
                            harness,
                            candidates,
                            lease,
                            cordoned,
                            () -> live(candidates, lease).stream()
                                    .filter(Live::leads)
                                    .anyMatch(c -> !c.node.equals(node) && !cordoned.contains(c.node)));
                    handoversChecked++;
                }
            } finally {
                cluster.faults().clear();
                for (Live c : candidates) {
                    c.gone = true;
                    c.scheduler.close();
                }
                controller.stop();
                sampler.interrupt();
                sampler.join(1000);
            }

            List<String> violations = overlaps(intervals);
            Set<String> leaders =
                    intervals.stream().map(i -> i.lease() + "/" + i.identity()).collect(Collectors.toSet());
            System.out.printf(
                    "seed %d: %d actions %s, %d leadership terms by %d candidates, %d handovers checked "
                            + "(%d skipped), %d faults injected %s, %d violations%s%n",
                    seed,
                    actions.total(),
                    actions,
                    terms.get(),
                    leaders.size(),
                    handoversChecked,
                    handoversSkipped,
                    faults.total(),
                    faults,
                    violations.size(),
                    violations.isEmpty() ? "" : " " + violations.subList(0, Math.min(10, violations.size())));
            assertThat(faults.total()).as("faults were injected").isPositive();
            assertThat(leaders.size()).as("leadership moved between candidates").isGreaterThan(LEASES.size());
            assertThat(violations)
                    .as("two leaders of one Lease at once (seed " + seed + ")")
                    .isEmpty();
        }
    }

    /**
     * The controller's and the candidates' gets and writes; not lists and watches (see the class comment), not the
     * harness's requests.
     */
    static Predicate<ApiRequest> electionRequests() {
        return r -> (RequestOrigin.of(r) == RequestOrigin.OPERATOR || RequestOrigin.of(r) == RequestOrigin.WORKLOAD)
                && r.isResourceRequest()
                && !r.verb().equals("list")
                && !r.verb().equals("watch");
    }

    static CoordinationController controller(KubernetesClient operator, LeaseCandidateApi api, Clock clock) {
        CoordinationController controller = new CoordinationController(
                operator,
                new KubeLeaseStore(operator),
                new ElectionPlanner(ElectionTiming.UPSTREAM, false),
                clock,
                api,
                new CoordinationMetrics(new SimpleMeterRegistry(), clock),
                Duration.ofMinutes(30),
                new NodeCache(operator));
        controller.start();
        return controller;
    }

    static Live start(
            KubeLeaseStore leaseStore,
            KubeLeaseCandidateStore candidateStore,
            String lease,
            String identity,
            String node,
            String emulationVersion,
            Random rnd,
            Clock clock,
            AtomicInteger terms) {
        ExecutorScheduler scheduler = new ExecutorScheduler("chaos-" + identity);
        Candidate candidate = Candidate.builder()
                .namespace(NAMESPACE)
                .identity(identity)
                .leaseName(lease)
                .binaryVersion("1.31.0")
                .emulationVersion(emulationVersion)
                .strategy(MaintenanceAware.NAME)
                .nodeName(node)
                .candidateStore(candidateStore)
                .leaseStore(leaseStore)
                .scheduler(scheduler)
                .clock(clock)
                .monotonic(dev.tenure.election.MonotonicClock.system())
                .random(new Random(rnd.nextLong()))
                .renewInterval(RENEW_INTERVALS.get(rnd.nextInt(RENEW_INTERVALS.size())))
                .leaseDuration(LEASE_DURATION)
                .renewDeadline(RENEW_DEADLINE)
                .retryPeriod(RETRY_PERIOD)
                .onStartedLeading(terms::incrementAndGet)
                .build();
        candidate.start();
        return new Live(lease, identity, node, candidate, scheduler);
    }

    static List<Live> live(List<Live> candidates, String lease) {
        return candidates.stream().filter(c -> c.lease.equals(lease) && !c.gone).toList();
    }

    /** A node no live candidate of {@code lease} runs on (there are more nodes than candidates per Lease). */
    static String freeNode(List<Live> candidates, String lease, Random rnd) {
        Set<String> used = live(candidates, lease).stream().map(c -> c.node).collect(Collectors.toSet());
        List<String> free = NODES.stream().filter(n -> !used.contains(n)).toList();
        return free.get(rnd.nextInt(free.size()));
    }

    static void cordon(KubernetesClient harness, String node, boolean drainTaint) {
        String taints = drainTaint
                ? ",\"taints\":[{\"key\":\"" + NodeAvailability.DRAIN_TAINT + "\",\"effect\":\"NoSchedule\"}]"
                : "";
        harness.nodes()
                .withName(node)
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true" + taints + "}}");
    }

    static void uncordon(KubernetesClient harness, String node) {
        harness.nodes()
                .withName(node)
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":null,\"taints\":null}}");
    }

    /** A live leader, off cordoned nodes whenever a live candidate runs on a node that is not cordoned. */
    static void awaitWellPlacedLeader(
            KubernetesClient harness, List<Live> candidates, String lease, Set<String> cordoned, long seed) {
        if (live(candidates, lease).isEmpty()) {
            return;
        }
        awaitOrDescribe(
                "a well placed leader of " + lease + " once faults stopped (seed " + seed + ")",
                harness,
                candidates,
                lease,
                cordoned,
                () -> {
                    List<Live> mine = live(candidates, lease);
                    boolean available = mine.stream().anyMatch(c -> !cordoned.contains(c.node));
                    return mine.stream().filter(Live::leads).anyMatch(c -> !available || !cordoned.contains(c.node));
                });
    }

    /** Awaits {@code condition} within {@link #SETTLE_WITHIN}; on timeout, fails with the Lease's state. */
    static void awaitOrDescribe(
            String what,
            KubernetesClient harness,
            List<Live> candidates,
            String lease,
            Set<String> cordoned,
            Callable<Boolean> condition) {
        try {
            await(what)
                    .atMost(SETTLE_WITHIN)
                    .pollInterval(Duration.ofMillis(20))
                    .until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    what + " did not happen within " + SETTLE_WITHIN + "; "
                            + describe(harness, candidates, lease, cordoned),
                    e);
        }
    }

    /** The Lease, its candidates as the driver and the cluster see them, and the cordoned nodes. */
    static String describe(KubernetesClient harness, List<Live> candidates, String lease, Set<String> cordoned) {
        Lease l = harness.resources(Lease.class)
                .inNamespace(NAMESPACE)
                .withName(lease)
                .get();
        StringBuilder out = new StringBuilder("cordoned " + new TreeSet<>(cordoned) + "; lease "
                + (l == null ? "absent" : l.getSpec()) + "; nodes "
                + harness.nodes().list().getItems().stream()
                        .map(n -> n.getMetadata().getName()
                                + NodeAvailability.unavailableReason(n)
                                        .map(r -> " (" + r + ")")
                                        .orElse(""))
                        .toList());
        for (Live c : candidates) {
            if (c.lease.equals(lease)) {
                GenericKubernetesResource lc = harness.genericKubernetesResources(
                                "coordination.k8s.io/v1beta1", "LeaseCandidate")
                        .inNamespace(NAMESPACE)
                        .withName(c.identity)
                        .get();
                out.append("\n  ")
                        .append(c.identity)
                        .append(" on ")
                        .append(c.node)
                        .append(c.gone ? " gone" : " live")
                        .append(c.candidate.isLeader() ? " leading" : "")
                        .append(" ")
                        .append(
                                lc == null
                                        ? "no LeaseCandidate"
                                        : lc.getAdditionalProperties().get("spec"));
            }
        }
        return out.toString();
    }

    /** Samples every live candidate's isLeader() about every millisecond into per-candidate intervals. */
    static Thread sampler(List<Live> candidates, List<Interval> intervals) {
        Thread t = new Thread(
                () -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        long now = System.nanoTime();
                        for (Live c : candidates) {
                            boolean leads = c.leads();
                            if (leads) {
                                if (c.leadingSince < 0) {
                                    c.leadingSince = now;
                                }
                                c.lastSeenLeading = now;
                            } else if (c.leadingSince >= 0) {
                                intervals.add(new Interval(c.lease, c.identity, c.leadingSince, c.lastSeenLeading));
                                c.leadingSince = -1;
                            }
                        }
                        try {
                            Thread.sleep(1);
                        } catch (InterruptedException e) {
                            break;
                        }
                    }
                    for (Live c : candidates) {
                        if (c.leadingSince >= 0) {
                            intervals.add(new Interval(c.lease, c.identity, c.leadingSince, c.lastSeenLeading));
                        }
                    }
                },
                "chaos-leadership-sampler");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
