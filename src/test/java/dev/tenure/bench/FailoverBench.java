package dev.tenure.bench;

import dev.tenure.election.HolderProcess;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Rows 1 and 2: the leaderless gap when a leader crashes (no release) and when it stops as planned
 * (release), Tenure's elector against fabric8's on the same durations. A trial is one leader and one
 * contender on their own Lease; the leader goes at a random phase of its renew cycle; the gap runs from
 * the crash/stop call to the contender's onStartedLeading. Trials run concurrently on distinct leases so
 * the 15 s profile fits the time budget.
 */
final class FailoverBench {
    static final String NAMESPACE = "bench-election";

    static final String CONTAINER = "operator";

    enum Exit {
        CRASH,
        PLANNED_STOP,
        /**
         * The leader's container is killed (kill -9) and its kubelet, alive, reports it 0.2–1 s later; Tenure's
         * contender reads the pod's status ({@code KubeProcessEvidence}).
         */
        PROCESS_KILLED,
        /** The leader's node is lost: its kubelet is down before the kill, so no report reaches the API server. */
        NODE_LOST;

        /** Whether each elector runs in an emulated pod whose container the kubelet reports. */
        boolean inPods() {
            return this == PROCESS_KILLED || this == NODE_LOST;
        }
    }

    private final KubernetesClient client;
    private final EmulatedCluster cluster;
    private final Random random;
    private final AtomicInteger leaseCounter = new AtomicInteger();

    FailoverBench(KubernetesClient client, long seed) {
        this(client, null, seed);
    }

    /** With the cluster's emulated kubelets, for {@link Exit#PROCESS_KILLED} and {@link Exit#NODE_LOST}. */
    FailoverBench(EmulatedCluster cluster, long seed) {
        this(cluster.client(), cluster, seed);
    }

    private FailoverBench(KubernetesClient client, EmulatedCluster cluster, long seed) {
        this.client = client;
        this.cluster = cluster;
        this.random = new Random(seed);
    }

    /** Gaps per implementation for one profile and one kind of exit, {@code trials} each, all at once. */
    Map<BenchElector.Kind, Samples> run(ElectionProfile profile, Exit exit, int trials) throws Exception {
        Map<BenchElector.Kind, Samples> out = new EnumMap<>(BenchElector.Kind.class);
        ExecutorService pool = Executors.newFixedThreadPool(trials * BenchElector.Kind.values().length);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (BenchElector.Kind kind : BenchElector.Kind.values()) {
                Samples samples = new Samples();
                out.put(kind, samples);
                for (int i = 0; i < trials; i++) {
                    long seed = random.nextLong();
                    String lease = "bench-" + kind.name().toLowerCase(Locale.ROOT) + "-"
                            + exit.name().toLowerCase(Locale.ROOT).replace('_', '-') + "-"
                            + leaseCounter.incrementAndGet();
                    running.add(pool.submit(() -> {
                        try {
                            samples.add(trial(kind, profile, exit, lease, seed));
                        } catch (Exception e) {
                            System.err.println("bench: " + kind.label + " trial on " + lease + " failed: " + e);
                            samples.failed();
                        }
                    }));
                }
            }
            for (Future<?> f : running) {
                f.get(profile.leaseDuration().multipliedBy(6).plusSeconds(60).toMillis(), TimeUnit.MILLISECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return out;
    }

    private Duration trial(BenchElector.Kind kind, ElectionProfile profile, Exit exit, String lease, long seed)
            throws Exception {
        Random rnd = new Random(seed);
        Duration bound = profile.leaseDuration()
                .plus(profile.retryPeriod().multipliedBy(4))
                .plusSeconds(10);
        HolderProcess leaderPod = null;
        HolderProcess contenderPod = null;
        if (exit.inPods()) {
            if (cluster == null) {
                throw new IllegalStateException(exit + " needs the emulated cluster's kubelets");
            }
            leaderPod = startPod(lease + "-a", lease + "-n1");
            contenderPod = startPod(lease + "-b", lease + "-n2");
        }
        CompletableFuture<Long> leaderStarted = new CompletableFuture<>();
        BenchElector leader = BenchElector.create(
                kind,
                client,
                NAMESPACE,
                lease,
                lease + "-a",
                profile,
                exit == Exit.PLANNED_STOP,
                rnd.nextLong(),
                leaderPod,
                leaderStarted::complete);
        leader.start();
        leaderStarted.get(bound.toMillis(), TimeUnit.MILLISECONDS);

        CompletableFuture<Long> contenderStarted = new CompletableFuture<>();
        CompletableFuture<String> contenderSawLeader = new CompletableFuture<>();
        BenchElector contender = BenchElector.create(
                kind,
                client,
                NAMESPACE,
                lease,
                lease + "-b",
                profile,
                exit == Exit.PLANNED_STOP,
                rnd.nextLong(),
                contenderPod,
                new BenchElector.Events() {
                    @Override
                    public void startedLeading(long nanos) {
                        contenderStarted.complete(nanos);
                    }

                    @Override
                    public void newLeader(String identity) {
                        contenderSawLeader.complete(identity);
                    }
                });
        contender.start();
        try {
            contenderSawLeader.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            // Steady state, then a random phase of the leader's renew cycle.
            long settle = profile.retryPeriod().multipliedBy(2).toMillis()
                    + (long) (rnd.nextDouble() * profile.retryPeriod().toMillis());
            Thread.sleep(settle);
            long stoppedAt = System.nanoTime();
            switch (exit) {
                case CRASH -> leader.crash();
                case PLANNED_STOP -> leader.stop();
                case PROCESS_KILLED, NODE_LOST -> {
                    if (exit == Exit.NODE_LOST) {
                        cluster.markKubeletDown(lease + "-n1");
                    }
                    leader.crash();
                    Duration lag = Duration.ofMillis(200 + rnd.nextInt(801));
                    cluster.endContainer(NAMESPACE, leaderPod.pod(), CONTAINER, 137, "Error", lag);
                }
            }
            long started = contenderStarted.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            return Duration.ofNanos(started - stoppedAt);
        } finally {
            contender.stop();
        }
    }

    /**
     * A pod on {@code node} whose operator container the kubelet reports running since 2 s ago (the JVM's start, before
     * the elector's first write); the binding its elector announces.
     */
    private HolderProcess startPod(String pod, String node) {
        String uid = client.pods()
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(pod)
                        .withNamespace(NAMESPACE)
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(node)
                        .addNewContainer()
                        .withName(CONTAINER)
                        .withImage("tenure")
                        .endContainer()
                        .endSpec()
                        .build())
                .create()
                .getMetadata()
                .getUid();
        cluster.startContainer(
                NAMESPACE, pod, CONTAINER, Clock.systemUTC().instant().minusSeconds(2));
        return new HolderProcess(pod, NAMESPACE, pod, uid, CONTAINER, null);
    }
}
