package dev.tenure.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
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

    enum Exit {
        CRASH,
        PLANNED_STOP
    }

    private final KubernetesClient client;
    private final Random random;
    private final AtomicInteger leaseCounter = new AtomicInteger();

    FailoverBench(KubernetesClient client, long seed) {
        this.client = client;
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
            if (exit == Exit.CRASH) {
                leader.crash();
            } else {
                leader.stop();
            }
            long started = contenderStarted.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            return Duration.ofNanos(started - stoppedAt);
        } finally {
            contender.stop();
        }
    }
}
