package dev.tenure.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.InMemoryLeaseStore;
import dev.tenure.election.LeaderElector;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseStore;
import dev.tenure.election.LeaseStoreFailure;
import dev.tenure.election.MonotonicClock;
import dev.tenure.election.Scheduler;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.Chaos;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.SecondLane;
import dev.tenure.testsupport.SuiteCounts;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Election safety in real time (issue 13): three electors per trial on real threads and real schedulers,
 * each with its own fence thread, store-call pool and asynchronous callback thread, contend for one lease
 * while a driver injects what virtual time cannot show:
 * <ul>
 *   <li>stalls of 2–4 s in a store call — longer than the margin leaseDuration − renewDeadline (1.5 s) —
 *   before the call is applied, or after it (the write landed, the answer is late);</li>
 *   <li>hidden client retries: a call failing internally and retried with 0.2–1.6 s backoff (fabric8's
 *   default behaviour) before it answers;</li>
 *   <li>wall-clock steps of ±leaseDuration on leader and contenders (NTP);</li>
 *   <li>a frozen process (every thread of one elector, like a GC pause) for 0.1–0.4 s, under the margin;</li>
 *   <li>yields to a preferredHolder written by a "controller", with slow asynchronous stop callbacks
 *   (0–250 ms, like stopping reconcilers);</li>
 *   <li>deletion of the lease mid-term.</li>
 * </ul>
 * The invariant is checked on <b>work</b>, not on {@code isLeader()}: each elector's critical section runs
 * from the start of its onStartedLeading until its onStoppedLeading has returned, timed on the one
 * machine-wide monotonic clock (System.nanoTime); no two sections of different electors may overlap.
 *
 * <p>{@code -Dtenure.chaos.runs=N} sets the runs ({@value #TRIALS_PER_RUN} concurrent trials each; 1 in
 * {@code make test}, {@link SuiteCounts#CHAOS_RUNS}, 20 in {@code make chaos}); {@code -Dtenure.chaos.seed=N} replays the driver's draws
 * (thread timing still varies).
 */
@Chaos
@SecondLane
class RealTimeElectionChaosTest {
    static final long BASE_SEED = Long.getLong("tenure.chaos.seed", System.nanoTime());
    static final int RUNS = SuiteCounts.of(SuiteCounts.CHAOS_RUNS_PROPERTY, SuiteCounts.CHAOS_RUNS);
    /** Runs of the in-memory suite ({@value #TRIALS_PER_RUN} trials each); {@code make chaos} asks for 100 (1,000 trials). */
    static final int REALTIME_RUNS = SuiteCounts.of(SuiteCounts.REALTIME_CHAOS_RUNS_PROPERTY, RUNS);
    /**
     * Replays one trial (the seed a failure names, "seed N: pX and pY worked at once"): every trial of every run is
     * that trial, so a timing-dependent failure gets {@value #TRIALS_PER_RUN} × runs chances to show again.
     */
    static final Long REPLAY_TRIAL = Long.getLong("tenure.chaos.trial");

    static final int TRIALS_PER_RUN = 10;
    static final int EMULATED_TRIALS_PER_RUN = 3;
    // margin leaseDuration - renewDeadline = 1.5 s: it must hold a frozen process (<= 0.4 s), the slowest stop
    // callback (<= 0.25 s) and the scheduling delays of ~40 busy threads on two cores
    static final Duration LD = Duration.ofSeconds(3);
    static final Duration RD = Duration.ofMillis(1500);
    static final Duration RP = Duration.ofMillis(300);
    static final Duration TRIAL = Duration.ofSeconds(8);
    /** What an unloaded 8 s trial injects (~16-20): a loaded machine's trial runs on until it has as many. */
    static final int MIN_FAULTS_PER_TRIAL = 16;

    static final LeaseKey LEASE = LeaseKey.of("tenure-system", "realtime");

    record Section(String identity, long startNanos, long endNanos) {
        boolean overlaps(Section o) {
            return startNanos < o.endNanos && o.startNanos < endNanos;
        }
    }

    /** What one trial saw. */
    record Trial(long seed, List<Section> sections, int faults, int fencedInCall, int yields, int deletions) {
        List<String> violations() {
            List<String> bad = new ArrayList<>();
            for (int i = 0; i < sections.size(); i++) {
                for (int j = i + 1; j < sections.size(); j++) {
                    Section a = sections.get(i);
                    Section b = sections.get(j);
                    if (!a.identity().equals(b.identity()) && a.overlaps(b)) {
                        long overlap = Math.min(a.endNanos(), b.endNanos()) - Math.max(a.startNanos(), b.startNanos());
                        bad.add("seed " + seed + ": " + a.identity() + " and " + b.identity() + " worked at once for "
                                + TimeUnit.NANOSECONDS.toMillis(overlap) + " ms");
                        long from = Math.min(a.startNanos(), b.startNanos()) - TimeUnit.SECONDS.toNanos(4);
                        System.out.println("OVERLAP " + bad.get(bad.size() - 1) + "\n"
                                + traceOf("t" + Long.toHexString(seed), from, Math.max(a.endNanos(), b.endNanos())));
                    }
                }
            }
            return bad;
        }
    }

    /** What happened, machine-wide: the driver's actions, the electors' own log, section edges (for a failure's report). */
    static final ConcurrentLinkedQueue<String[]> TRACE = new ConcurrentLinkedQueue<>();

    static void trace(String who, String what) {
        TRACE.add(new String[] {Long.toString(System.nanoTime()), who, what});
    }

    static {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(LeaderElector.class.getName());
        // FINE records (every write) go to the trace only; INFO and up still reach the console as before
        java.util.logging.Handler[] console = log.getParent() == null
                ? new java.util.logging.Handler[0]
                : log.getParent().getHandlers();
        log.setLevel(java.util.logging.Level.FINE);
        log.setUseParentHandlers(false);
        log.addHandler(new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                String m = r.getMessage();
                trace(m == null ? "" : m.split("[ :]")[0], "elector: " + m);
                if (r.getLevel().intValue() >= java.util.logging.Level.INFO.intValue()) {
                    for (java.util.logging.Handler h : console) {
                        h.publish(r);
                    }
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        });
    }

    /** The trace lines of one trial around an overlap. */
    static String traceOf(String trialPrefix, long fromNanos, long toNanos) {
        StringBuilder b = new StringBuilder();
        TRACE.stream()
                .filter(e -> e[1].startsWith(trialPrefix) || e[2].contains(trialPrefix))
                .filter(e -> Long.parseLong(e[0]) >= fromNanos && Long.parseLong(e[0]) <= toNanos)
                .sorted(java.util.Comparator.comparingLong(e -> Long.parseLong(e[0])))
                .forEach(e -> b.append(
                        String.format("%+8d ms %s %s%n", (Long.parseLong(e[0]) - fromNanos) / 1_000_000, e[1], e[2])));
        return b.toString();
    }

    static Stream<Long> seeds() {
        System.out.println("RealTimeElectionChaosTest base seed " + BASE_SEED + " (replay: -Dtenure.chaos.seed="
                + BASE_SEED + "; one failing trial: -Dtenure.chaos.trial=<its seed>)");
        return LongStream.range(0, RUNS).mapToObj(i -> BASE_SEED + i * 7919L);
    }

    static Stream<Long> realTimeSeeds() {
        return LongStream.range(0, REALTIME_RUNS).mapToObj(i -> BASE_SEED + i * 7919L);
    }

    static long trialSeed(long runSeed, int trial) {
        return REPLAY_TRIAL != null ? REPLAY_TRIAL : runSeed * 31 + trial;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("realTimeSeeds")
    void workDoneWhileLeadingNeverOverlapsUnderStallsRetriesClockStepsFreezesYieldsAndDeletions(long seed)
            throws Exception {
        ExecutorService trials = Executors.newFixedThreadPool(TRIALS_PER_RUN);
        List<Future<Trial>> futures = new ArrayList<>();
        for (int t = 0; t < TRIALS_PER_RUN; t++) {
            long trialSeed = trialSeed(seed, t);
            futures.add(trials.submit(() -> runTrial(trialSeed)));
        }
        List<Trial> done = new ArrayList<>();
        for (Future<Trial> f : futures) {
            done.add(f.get(2, TimeUnit.MINUTES));
        }
        trials.shutdownNow();
        check("in-memory store", seed, done);
    }

    /**
     * The same on the emulated API server: real HTTP and watches through {@code KubeLeaseStore}, a fabric8 client
     * with its default hidden retries (up to 10, with backoff), stalls and 500s injected by the server's fault hook.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void onTheEmulatedApiServerWithHiddenClientRetriesWorkNeverOverlapsEither(long seed) throws Exception {
        try (EmulatedCluster cluster = EmulatedCluster.start()) {
            cluster.seed().namespace(LEASE.namespace());
            warmUp();
            // three trials at a time share one server; on a loaded machine three may not show every kind of event the
            // run claims to exercise (a stop fenced in a call is rarer here than in memory), so the run goes on, three
            // trials more at a time, until they have (at most three rounds) — and fails if they still have not
            List<Trial> done = new ArrayList<>();
            for (int round = 0; round < 3 && (round == 0 || !exercised(done)); round++) {
                ExecutorService trials = Executors.newFixedThreadPool(EMULATED_TRIALS_PER_RUN);
                List<Emulated> backends = new ArrayList<>();
                List<Future<Trial>> futures = new ArrayList<>();
                for (int i = 0; i < EMULATED_TRIALS_PER_RUN; i++) {
                    int t = round * EMULATED_TRIALS_PER_RUN + i;
                    Emulated backend = new Emulated(cluster, "realtime-" + t);
                    backends.add(backend);
                    long trialSeed = trialSeed(seed, t);
                    futures.add(trials.submit(() -> runTrial(trialSeed, backend)));
                }
                for (Future<Trial> f : futures) {
                    done.add(f.get(2, TimeUnit.MINUTES));
                }
                trials.shutdownNow();
                backends.forEach(Emulated::close);
            }
            check("emulated API server", seed, done);
        }
    }

    /**
     * fabric8 builds its table of every Kubernetes type the first time a client decodes an event of unknown kind (a
     * watch event), holding a class lock for seconds on a loaded machine, while each elector's event loop waits on
     * it: the first trials of a cold JVM then had no answer for seconds, and their leader its term cut short, with
     * nobody leading again in the time left (seed 21167533767044, run first: 3 terms in 3 trials, then 0, while the
     * same driver draws run second gave 7 to 11). The trials' time starts when that is done.
     */
    private static void warmUp() {
        new io.fabric8.kubernetes.client.utils.KubernetesSerialization()
                .unmarshal("{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\"}");
    }

    /** Whether the trials saw what {@link #check} asks of a run besides no overlap. */
    private static boolean exercised(List<Trial> done) {
        return done.stream().mapToInt(t -> t.sections().size()).sum() > done.size()
                && done.stream().mapToInt(Trial::fencedInCall).sum() > 0
                && done.stream().mapToInt(Trial::yields).sum() > 0;
    }

    private static void check(String where, long seed, List<Trial> done) {
        List<String> violations =
                done.stream().flatMap(t -> t.violations().stream()).toList();
        int sections = done.stream().mapToInt(t -> t.sections().size()).sum();
        int faults = done.stream().mapToInt(Trial::faults).sum();
        int fenced = done.stream().mapToInt(Trial::fencedInCall).sum();
        int yields = done.stream().mapToInt(Trial::yields).sum();
        int deletions = done.stream().mapToInt(Trial::deletions).sum();
        System.out.printf(
                "real-time election chaos (%s) seed %d: %d trials, %d leadership terms, %d faults injected, "
                        + "%d stops fenced while the leader was stuck in a call, %d yields, %d deletions, "
                        + "%d overlapping critical sections%n",
                where, seed, done.size(), sections, faults, fenced, yields, deletions, violations.size());
        assertThat(violations)
                .as("critical sections of two electors overlapped (seed " + seed + ")")
                .isEmpty();
        // the run must have exercised what it claims, or a green result proves nothing
        assertThat(sections).as("leadership moved").isGreaterThan(done.size());
        assertThat(fenced)
                .as("some stops were fenced while the leader was stuck in a store call")
                .isPositive();
        assertThat(yields).as("yields happened").isPositive();
    }

    /** Where a trial's lease lives, and the driver's foreign writes to it. */
    interface Backend {
        LeaseKey lease();

        LeaseStore storeFor(String identity);

        Optional<LeaseRecord> peek();

        /** A controller's conditional write of preferredHolder; false when the lease moved on meanwhile. */
        boolean askHandover(LeaseRecord current, String to);

        void delete();

        /** The next write of {@code identity} is answered {@code d} late; false to stall on the client side instead. */
        default boolean stallOnServer(String identity, Duration d) {
            return false;
        }

        /**
         * The next {@code n} writes of {@code identity} fail with 500 on the server, which its client retries unseen;
         * false if not here.
         */
        default boolean failWritesRetriedByTheClient(String identity, int n) {
            return false;
        }
    }

    static final class InMemory implements Backend {
        final InMemoryLeaseStore store = new InMemoryLeaseStore();

        @Override
        public LeaseKey lease() {
            return LEASE;
        }

        @Override
        public LeaseStore storeFor(String identity) {
            return store;
        }

        @Override
        public Optional<LeaseRecord> peek() {
            return store.peek(LEASE);
        }

        @Override
        public boolean askHandover(LeaseRecord current, String to) {
            try { // conditional, like the CLE controller
                store.update(LEASE, current.withPreferredHolder(to));
                return true;
            } catch (dev.tenure.election.LeaseStoreException changedMeanwhile) {
                return false;
            }
        }

        @Override
        public void delete() {
            store.delete(LEASE);
        }
    }

    /** Each trial's lease on one emulated API server; the driver writes through the harness client. */
    static final class Emulated implements Backend {
        private final EmulatedCluster cluster;
        private final LeaseKey key;
        private final KubeLeaseStore harness;
        private final List<KubernetesClient> clients = new ArrayList<>();
        private final Map<String, Predicate<ApiRequest>> stalled = new HashMap<>();
        private final Map<String, Predicate<ApiRequest>> failed = new HashMap<>();

        Emulated(EmulatedCluster cluster, String name) {
            this.cluster = cluster;
            this.key = LeaseKey.of(LEASE.namespace(), name);
            this.harness = new KubeLeaseStore(cluster.client());
        }

        @Override
        public LeaseKey lease() {
            return key;
        }

        @Override
        public synchronized LeaseStore storeFor(String identity) {
            // fabric8's defaults: 10 retries with backoff on 5xx, unseen by the caller
            KubernetesClient c = EmulatedCluster.clientBuilder()
                    .withConfig(new ConfigBuilder(cluster.operatorClientConfig())
                            .withUserAgent(userAgentOf(identity))
                            .withRequestRetryBackoffLimit(10)
                            .withRequestRetryBackoffInterval(100)
                            .build())
                    .build();
            clients.add(c);
            // as the operator keeps its own lease: a finalizer while held, so a deletion is seen before it happens
            return KubeLeaseStore.withFinalizer(c, dev.tenure.operator.OperatorLeadership.LEASE_FINALIZER);
        }

        @Override
        public Optional<LeaseRecord> peek() {
            return harness.find(key);
        }

        @Override
        public boolean askHandover(LeaseRecord current, String to) {
            try {
                harness.update(key, current.withPreferredHolder(to));
                return true;
            } catch (dev.tenure.election.LeaseStoreException changedMeanwhile) {
                return false;
            }
        }

        @Override
        public void delete() {
            cluster.client()
                    .resources(Lease.class)
                    .inNamespace(key.namespace())
                    .withName(key.name())
                    .delete();
        }

        /** Each elector's own agent (any but the harness's counts as the operator), so a fault can aim at one. */
        private static String userAgentOf(String identity) {
            return EmulatedCluster.OPERATOR_USER_AGENT + "/" + identity;
        }

        private Predicate<ApiRequest> writesOf(String identity) {
            return ApiRequest.named(key.name())
                    .and(ApiRequest.verb("update"))
                    .and(r -> userAgentOf(identity).equals(r.userAgent()));
        }

        // "the leader's next call", as the in-memory backend's stallNext and retryNext mean it: aimed at one elector,
        // at most one of each pending per elector. A fault aimed at every elector's writes and queued behind the
        // ones not yet used stalled each contender's acquiring write past its attempt budget, for the rest of the
        // trial, once a leader had lost its lease: nobody led again (a run of 3 trials with 3 terms in all).
        @Override
        public synchronized boolean stallOnServer(String identity, Duration d) {
            Predicate<ApiRequest> pending = stalled.get(identity);
            if (pending == null || !cluster.faults().pending(pending)) {
                Predicate<ApiRequest> next = writesOf(identity);
                stalled.put(identity, next);
                cluster.faults().delayNext(1, next, d);
            }
            return true;
        }

        @Override
        public synchronized boolean failWritesRetriedByTheClient(String identity, int n) {
            Predicate<ApiRequest> pending = failed.get(identity);
            if (pending == null || !cluster.faults().pending(pending)) {
                Predicate<ApiRequest> next = writesOf(identity);
                failed.put(identity, next);
                cluster.faults().failNext(n, next, 500);
            }
            return true;
        }

        synchronized void close() {
            clients.forEach(KubernetesClient::close);
        }
    }

    private Trial runTrial(long seed) throws Exception {
        return runTrial(seed, new InMemory());
    }

    private Trial runTrial(long seed, Backend backend) throws Exception {
        Random rnd = new Random(seed);
        ConcurrentLinkedQueue<Section> sections = new ConcurrentLinkedQueue<>();
        AtomicInteger fencedInCall = new AtomicInteger();
        List<Process> processes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = "t" + Long.toHexString(seed) + "-p" + i;
            processes.add(new Process(
                    id, backend.lease(), backend.storeFor(id), new Random(rnd.nextLong()), sections, fencedInCall));
        }
        processes.forEach(Process::start);
        int faults = 0;
        int yields = 0;
        int deletions = 0;
        long end = System.nanoTime() + TRIAL.toNanos();
        // a busy machine injects fewer faults in the same wall time, and its slow answers end terms early and keep
        // the next one from starting: a trial lasts until it has had its share of faults and seen leadership move
        // (at most three times as long), so what it claims to exercise does not depend on the load
        long latest = System.nanoTime() + TRIAL.multipliedBy(3).toNanos();
        while (System.nanoTime() < end
                || ((faults < MIN_FAULTS_PER_TRIAL || sections.size() < 2) && System.nanoTime() < latest)) {
            sleep(Duration.ofMillis(150 + rnd.nextInt(350)));
            Optional<LeaseRecord> current = backend.peek();
            // the leader is the elector that leads now by its own account; the holder on record may be one whose
            // term has ended (its renew applied, its answer lost): aiming every "leader's next call" fault at it
            // renews its hold on the record with each late write while it never leads again, and nobody leads for
            // the rest of the trial (seed 21167533767044: 3 terms in 3 trials)
            int draw = rnd.nextInt(processes.size());
            Process leader = processes.stream()
                    .filter(p -> p.elector.isLeader())
                    .findFirst()
                    .orElse(processes.get(draw));
            Process any = processes.get(rnd.nextInt(processes.size()));
            switch (rnd.nextInt(9)) {
                case 0, 1 -> {
                    Duration stall = Duration.ofMillis(2000 + rnd.nextInt(2000));
                    trace(leader.identity, "driver: stall next call " + stall.toMillis() + " ms");
                    if (!backend.stallOnServer(leader.identity, stall)) {
                        leader.view.stallNext(stall, rnd.nextBoolean());
                    }
                }
                case 2 -> {
                    int n = 1 + rnd.nextInt(4);
                    if (!backend.failWritesRetriedByTheClient(leader.identity, n)) {
                        leader.view.retryNext(n);
                    }
                }
                case 3 -> any.stepWallClock(rnd.nextBoolean() ? LD : LD.negated());
                case 4 -> {
                    Duration d = Duration.ofMillis(100 + rnd.nextInt(300));
                    trace(leader.identity, "driver: freeze " + d.toMillis() + " ms");
                    leader.freeze(d);
                }
                case 5, 6 -> {
                    if (current.isPresent() && current.get().hasHolder()) {
                        String other = processes.stream()
                                .map(p -> p.identity)
                                .filter(id -> !current.get().isHeldBy(id))
                                .toList()
                                .get(rnd.nextInt(2));
                        if (backend.askHandover(current.get(), other)) {
                            trace(
                                    other,
                                    "driver: preferredHolder set to " + other + " on "
                                            + current.get().holderIdentity());
                            yields++;
                        }
                    }
                }
                case 7 -> {
                    if (current.isPresent()) {
                        trace(
                                leader.identity,
                                "driver: delete lease held by " + current.get().holderIdentity());
                        backend.delete();
                        deletions++;
                    }
                }
                default -> {
                    trace(any.identity, "driver: stall next call of " + any.identity);
                    any.view.stallNext(Duration.ofMillis(2000 + rnd.nextInt(2000)), rnd.nextBoolean());
                }
            }
            faults++;
        }
        trace("t" + Long.toHexString(seed), "driver done");
        for (Process p : processes) {
            p.stop();
        }
        return new Trial(seed, List.copyOf(sections), faults, fencedInCall.get(), yields, deletions);
    }

    /** One elector with every thread of its own, as a separate replica would have. */
    @SuppressWarnings("JavaLangClash") // one simulated process of the trial; java.lang.Process is never used here
    static final class Process {
        final String identity;
        final Freeze freeze = new Freeze();
        final FaultyView view;
        final ExecutorScheduler loop;
        final ExecutorScheduler fence;
        final ExecutorService calls = Executors.newCachedThreadPool(r -> daemon(r, "calls"));
        final ExecutorService callbacks = Executors.newSingleThreadExecutor(r -> daemon(r, "callbacks"));
        final Random random;
        final LeaderElector elector;
        volatile Duration wallOffset = Duration.ZERO;
        private long openStart = -1; // touched on the callback thread only

        Process(
                String identity,
                LeaseKey lease,
                LeaseStore store,
                Random random,
                ConcurrentLinkedQueue<Section> sections,
                AtomicInteger fencedInCall) {
            this.identity = identity;
            this.random = random;
            this.view = new FaultyView(store, freeze);
            this.loop = new ExecutorScheduler("loop-" + identity);
            this.fence = new ExecutorScheduler("fence-" + identity);
            Duration stopCost = Duration.ofMillis(random.nextInt(250));
            this.elector = LeaderElector.builder()
                    .lease(lease)
                    .identity(identity)
                    .leaseDuration(LD)
                    .renewDeadline(RD)
                    .retryPeriod(RP)
                    .store(view)
                    .scheduler(frozenWith(loop))
                    .fenceScheduler(frozenWith(fence))
                    .storeCalls(calls)
                    .clock(() -> Clock.systemUTC().instant().plus(wallOffset))
                    .monotonic(MonotonicClock.system())
                    .random(new Random(random.nextLong()))
                    .callbackExecutor(task -> callbacks.execute(() -> {
                        freeze.await();
                        task.run();
                    }))
                    .onStartedLeading(() -> {
                        openStart = System.nanoTime();
                        trace(identity, "section starts");
                    })
                    .onStoppedLeading(() -> {
                        if (openStart < 0) {
                            return;
                        }
                        if (view.inCall.get() > 0) {
                            fencedInCall.incrementAndGet();
                        }
                        sleep(stopCost); // stopping the work takes time (e.g. JOSDK finishing a reconcile)
                        sections.add(new Section(identity, openStart, System.nanoTime()));
                        trace(identity, "section ends");
                        openStart = -1;
                    })
                    .build();
        }

        Scheduler frozenWith(Scheduler inner) {
            return (delay, task) -> inner.schedule(delay, () -> {
                freeze.await();
                task.run();
            });
        }

        void start() {
            elector.start();
        }

        void stepWallClock(Duration by) {
            wallOffset = wallOffset.plus(by);
        }

        void freeze(Duration d) {
            freeze.until = System.nanoTime() + d.toNanos();
        }

        void stop() throws InterruptedException {
            freeze.until = 0;
            view.clear();
            elector.stop(); // waits for onStoppedLeading, then releases
            loop.close();
            fence.close();
            calls.shutdownNow();
            callbacks.shutdown();
            callbacks.awaitTermination(10, TimeUnit.SECONDS);
        }

        private static Thread daemon(Runnable r, String name) {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        }
    }

    /** Every thread of a frozen process stops at its next step until the freeze ends (a GC pause, seen from outside). */
    static final class Freeze {
        volatile long until;

        void await() {
            long left;
            while ((left = until - System.nanoTime()) > 0) {
                sleep(Duration.ofNanos(left));
            }
        }
    }

    /** One process's way to the shared store: stalls before or after a call, hidden retries, freezes. */
    static final class FaultyView implements LeaseStore {
        private final LeaseStore store;
        private final Freeze freeze;
        final AtomicInteger inCall = new AtomicInteger();
        private volatile Duration stall;
        private volatile boolean stallAfter;
        private volatile int retries;

        FaultyView(LeaseStore store, Freeze freeze) {
            this.store = store;
            this.freeze = freeze;
        }

        void stallNext(Duration d, boolean afterTheWrite) {
            stallAfter = afterTheWrite;
            stall = d;
        }

        void retryNext(int n) {
            retries = n;
        }

        void clear() {
            stall = null;
            retries = 0;
        }

        private <T> T call(Supplier<T> op) {
            freeze.await();
            inCall.incrementAndGet();
            try {
                Duration s = stall;
                boolean after = stallAfter;
                stall = null;
                int n = retries;
                retries = 0;
                for (int i = 0; i < n; i++) { // what fabric8 does by default on a 5xx: retry with backoff, silently
                    sleep(Duration.ofMillis(200L << Math.min(i, 3)));
                }
                if (s != null && !after) {
                    sleep(s);
                }
                T result = op.get();
                if (s != null && after) {
                    sleep(s);
                }
                return result;
            } finally {
                inCall.decrementAndGet();
            }
        }

        @Override
        public LeaseRecord get(LeaseKey key) {
            return call(() -> store.get(key));
        }

        @Override
        public LeaseRecord create(LeaseKey key, LeaseRecord record) {
            return call(() -> store.create(key, record));
        }

        @Override
        public LeaseRecord update(LeaseKey key, LeaseRecord record) {
            return call(() -> store.update(key, record));
        }

        @Override
        public LeaseWatch watch(LeaseKey key, Consumer<Optional<LeaseRecord>> listener) {
            return store.watch(key, listener);
        }
    }

    static void sleep(Duration d) {
        try {
            Thread.sleep(Math.max(0, d.toMillis()), (int) (d.toNanos() % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LeaseStoreFailure(LEASE, 0, "interrupted", e);
        }
    }
}
