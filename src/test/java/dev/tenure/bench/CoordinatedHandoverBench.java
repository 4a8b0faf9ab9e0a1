package dev.tenure.bench;

import dev.tenure.coordination.CoordinationController;
import dev.tenure.coordination.CoordinationMetrics;
import dev.tenure.coordination.ElectionPlanner;
import dev.tenure.coordination.ElectionTiming;
import dev.tenure.coordination.LeaseCandidateApi;
import dev.tenure.coordination.MaintenanceAware;
import dev.tenure.election.Candidate;
import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseCandidateStore;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.NodeCache;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.operator.CoordinatedLeadershipHandover;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Row 2, maintenance-aware handover: two election-core {@link Candidate}s (coordinated electors) labelled with
 * {@code tenure.dev/node} on two emulated nodes, elected by the {@link CoordinationController} (built without
 * Quarkus, as {@code CoordinationBeans} does, upstream timing). A trial cordons the holder's node and asks for the
 * handover exactly as the NodeMaintenance handover step does ({@link CoordinatedLeadershipHandover#handOver}), then
 * measures the leaderless gap (old leader's onStoppedLeading → new leader's onStartedLeading) and the time from the
 * handover request to the new leader's onStartedLeading. Trials run on a fresh Lease and their own pair of nodes
 * each, started {@link #STAGGER} apart so that their handovers do not overlap.
 */
final class CoordinatedHandoverBench implements AutoCloseable {
    static final String NAMESPACE = "bench-coordination";
    /** Between trial starts: a handover takes tens of ms here, so trials do not overlap at the moment measured. */
    static final Duration STAGGER = Duration.ofMillis(500);

    /** Both figures of one row-2 subject. */
    record Result(Samples gaps, Samples requestToLeader) {}

    private final EmulatedCluster cluster;
    private final KubernetesClient client;
    private final Random random;
    private final CoordinationController controller;
    private final LeadershipHandover handover;
    private final LeaseCandidateApi api;
    private final KubeLeaseCandidateStore candidateStore;
    private final Set<String> seededNodes = new HashSet<>();
    private int leaseCounter;

    CoordinatedHandoverBench(EmulatedCluster cluster, long seed) {
        this.cluster = cluster;
        this.client = cluster.client();
        this.random = new Random(seed);
        cluster.seed().namespace(NAMESPACE);
        Clock clock = Clock.systemUTC();
        this.api = LeaseCandidateApi.discover(client, "auto");
        this.controller = new CoordinationController(
                client,
                new KubeLeaseStore(client),
                new ElectionPlanner(ElectionTiming.UPSTREAM, false),
                clock,
                api,
                new CoordinationMetrics(new SimpleMeterRegistry(), clock),
                Duration.ofMinutes(30),
                new NodeCache(client));
        this.handover = new CoordinatedLeadershipHandover(controller);
        this.candidateStore = new KubeLeaseCandidateStore(client, api.version());
        controller.start();
    }

    /** {@code trials} handovers on {@code profile}, staggered so that no two overlap. */
    Result run(ElectionProfile profile, int trials) throws Exception {
        Samples gaps = new Samples();
        Samples requestToLeader = new Samples();
        ExecutorService pool = Executors.newFixedThreadPool(trials);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < trials; i++) {
                String lease = "bench-handover-" + ++leaseCounter;
                long seed = random.nextLong();
                Duration startAfter = STAGGER.multipliedBy(i);
                String[] nodes = nodePair(i);
                running.add(pool.submit(() -> {
                    try {
                        Thread.sleep(startAfter.toMillis());
                        Duration[] t = trial(profile, lease, nodes[0], nodes[1], seed);
                        gaps.add(t[0]);
                        requestToLeader.add(t[1]);
                    } catch (Exception e) {
                        System.err.println("bench: maintenance-aware handover trial on " + lease + " failed: " + e);
                        gaps.failed();
                        requestToLeader.failed();
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(
                        STAGGER.multipliedBy(trials)
                                .plus(profile.leaseDuration().multipliedBy(4))
                                .plusSeconds(60)
                                .toMillis(),
                        TimeUnit.MILLISECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return new Result(gaps, requestToLeader);
    }

    /** Trial i's two nodes: its own, since cordoning a node moves every MaintenanceAware Lease held there. */
    private synchronized String[] nodePair(int i) {
        String[] pair = {"bench-node-" + i + "-a", "bench-node-" + i + "-b"};
        for (String n : pair) {
            if (seededNodes.add(n)) {
                cluster.seed().node(n).role("worker").create();
            }
        }
        return pair;
    }

    private Duration[] trial(ElectionProfile profile, String lease, String holderNode, String otherNode, long seed)
            throws Exception {
        Random rnd = new Random(seed);
        long bound = profile.leaseDuration().plusSeconds(20).toMillis();
        CompletableFuture<Long> holderStarted = new CompletableFuture<>();
        CompletableFuture<Long> holderStopped = new CompletableFuture<>();
        CompletableFuture<Long> successorStarted = new CompletableFuture<>();
        AtomicBoolean holderLed = new AtomicBoolean();
        // the holder-to-be has the older emulation version, so the controller elects it first
        Process holder = candidate(
                profile,
                lease,
                lease + "-a",
                "1.30.0",
                holderNode,
                rnd.nextLong(),
                () -> {
                    holderLed.set(true);
                    holderStarted.complete(System.nanoTime());
                },
                () -> {
                    if (holderLed.get()) {
                        holderStopped.complete(System.nanoTime());
                    }
                });
        Process successor = candidate(
                profile,
                lease,
                lease + "-b",
                "1.31.0",
                otherNode,
                rnd.nextLong(),
                () -> successorStarted.complete(System.nanoTime()),
                () -> {});
        try {
            holder.start();
            successor.start();
            holderStarted.get(bound, TimeUnit.MILLISECONDS);
            // As in a cluster, the candidates' last renew is older than the controller's ping window when maintenance
            // comes (they renew every 5 min), so the controller pings them and waits for acks before it elects; the
            // request comes at a random phase of the holder's renew cycle.
            Thread.sleep(ElectionTiming.UPSTREAM
                            .electionWindow()
                            .plus(profile.retryPeriod())
                            .toMillis()
                    + (long) (rnd.nextDouble() * profile.retryPeriod().toMillis()));
            // the NodeMaintenance step: cordon and taint the node, then hand leadership over in the same reconcile
            client.nodes()
                    .withName(holderNode)
                    .patch(
                            PatchContext.of(PatchType.JSON_MERGE),
                            "{\"spec\":{\"unschedulable\":true,\"taints\":[{\"key\":\"tenure.dev/drain\",\"effect\":\"NoSchedule\"}]}}");
            long requestedAt = System.nanoTime();
            var now = Clock.systemUTC().instant();
            LeadershipHandover.Outcome first = handover.handOver(holderNode, now, now);
            if (first.done()) {
                throw new IllegalStateException("handover found nothing to move: " + first.message());
            }
            long started = successorStarted.get(bound, TimeUnit.MILLISECONDS);
            long stopped = holderStopped.get(bound, TimeUnit.MILLISECONDS);
            return new Duration[] {Duration.ofNanos(started - stopped), Duration.ofNanos(started - requestedAt)};
        } finally {
            holder.stop();
            successor.stop();
            for (String name : new String[] {lease + "-a", lease + "-b"}) {
                client.genericKubernetesResources(api.context())
                        .inNamespace(NAMESPACE)
                        .withName(name)
                        .delete();
            }
            client.resources(Lease.class).inNamespace(NAMESPACE).withName(lease).delete();
            client.nodes()
                    .withName(holderNode)
                    .patch(
                            PatchContext.of(PatchType.JSON_MERGE),
                            "{\"spec\":{\"unschedulable\":null,\"taints\":null}}");
        }
    }

    /** One replica: an election-core Candidate with its own scheduler thread. */
    @SuppressWarnings("JavaLangClash") // one simulated process of the bench; java.lang.Process is never used here
    private record Process(Candidate candidate, ExecutorScheduler scheduler) {
        void start() {
            candidate.start();
        }

        void stop() {
            candidate.stop();
            scheduler.close();
        }
    }

    private Process candidate(
            ElectionProfile profile,
            String lease,
            String identity,
            String emulationVersion,
            String node,
            long seed,
            Runnable started,
            Runnable stopped) {
        ExecutorScheduler scheduler = new ExecutorScheduler("bench-" + identity);
        Candidate c = Candidate.builder()
                .namespace(NAMESPACE)
                .identity(identity)
                .leaseName(lease)
                .binaryVersion("1.31.0")
                .emulationVersion(emulationVersion)
                .strategy(MaintenanceAware.NAME)
                .nodeName(node)
                .candidateStore(candidateStore)
                .leaseStore(new KubeLeaseStore(client))
                .scheduler(scheduler)
                .clock(Clock.systemUTC())
                .monotonic(dev.tenure.election.MonotonicClock.system())
                .random(new Random(seed))
                .leaseDuration(profile.leaseDuration())
                .renewDeadline(profile.renewDeadline())
                .retryPeriod(profile.retryPeriod())
                .onStartedLeading(started)
                .onStoppedLeading(stopped)
                .build();
        return new Process(c, scheduler);
    }

    EmulatedCluster cluster() {
        return cluster;
    }

    @Override
    public void close() {
        controller.stop();
    }
}
