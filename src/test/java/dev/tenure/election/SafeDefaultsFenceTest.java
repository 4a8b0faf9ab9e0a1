package dev.tenure.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 40, item 6 — safe by default: a {@link LeaderElector} or {@link Candidate} built with nothing but the
 * required settings (no fenceScheduler, storeCalls or callbackExecutor, as docs/election-api.md shows it) stops its
 * work by its fence when every store call stalls — a partition — and leaves no thread behind when it stops. Real
 * threads, real time; what is checked is the work done while leading.
 *
 * <p>Timing: 5 s lease, 2 s renew deadline, 0.5 s retry (only so the test is short; the threading is left at its
 * defaults). The margin leaseDuration − renewDeadline (3 s) is what the design gives the fence timer's wake-up, the
 * hand-over of onStoppedLeading to the callback thread and the work noticing it; past it a contender may take over.
 * The test allows a third of it, {@link #TOLERANCE}: on a busy two-core machine each of those three hand-offs can
 * take a few hundred ms, and anything up to the margin would still be safe.
 */
class SafeDefaultsFenceTest {
    static final String NS = "tenure-system";
    static final LeaseKey LEASE = LeaseKey.of(NS, "safe-defaults");
    static final Duration LD = Duration.ofSeconds(5);
    static final Duration RD = Duration.ofSeconds(2);
    static final Duration RP = Duration.ofMillis(500);
    static final Duration TOLERANCE = LD.minus(RD).dividedBy(3);
    /** ElectorThreads.PREFIX, spelled out so this test also compiles (and fails) against the old defaults. */
    static final String OWN_THREADS = "tenure-election-";

    final InMemoryLeaseStore store = new InMemoryLeaseStore();
    final StallingInterceptor stall = new StallingInterceptor();
    final Work work = new Work();
    final List<Runnable> cleanup = new ArrayList<>();

    SafeDefaultsFenceTest() {
        store.intercept(stall); // from the first write on: the acquire is the first start of a term
    }

    @AfterEach
    void cleanUp() {
        stall.open(); // lets the old defaults' blocked loop thread go, so their stop can return
        cleanup.forEach(Runnable::run);
        work.stop();
    }

    @Test
    void aLeaderElectorBuiltWithOnlyTheRequiredSettingsStopsItsWorkAtItsFenceWhenEveryStoreCallStalls() {
        String identity = "bare-elector";
        ExecutorScheduler loop = new ExecutorScheduler("test-loop-" + identity);
        cleanup.add(loop::close);
        LeaderElector elector = LeaderElector.builder()
                .lease(LEASE)
                .identity(identity)
                .leaseDuration(LD)
                .renewDeadline(RD)
                .retryPeriod(RP)
                .store(store)
                .scheduler(loop)
                .clock(Clock.systemUTC())
                .monotonic(MonotonicClock.system())
                .random(new Random(40))
                .onStartedLeading(work::start)
                .onStoppedLeading(work::stop)
                .build();
        cleanup.add(0, elector::stopWithoutRelease);
        elector.start();

        workStopsByTheFenceWhenTheStoreStalls();

        assertThat(ownThreads(identity))
                .as("threads of the elector's own while it runs")
                .isNotEmpty();
        elector.stopWithoutRelease(); // with calls still stalled: they are abandoned
        assertNoThreadLeftOf(identity);
    }

    @Test
    void aCandidateBuiltWithOnlyTheRequiredSettingsStopsItsWorkAtItsFenceWhenEveryStoreCallStalls() {
        String identity = "bare-candidate";
        ExecutorScheduler loop = new ExecutorScheduler("test-loop-" + identity);
        cleanup.add(loop::close);
        Candidate candidate = Candidate.builder()
                .namespace(NS)
                .identity(identity)
                .leaseName(LEASE.name())
                .binaryVersion("1.33.0")
                .emulationVersion("1.33.0")
                .candidateStore(new InMemoryLeaseCandidateStore())
                .leaseStore(store)
                .leaseDuration(LD)
                .renewDeadline(RD)
                .retryPeriod(RP)
                .scheduler(loop)
                .clock(Clock.systemUTC())
                .monotonic(MonotonicClock.system())
                .random(new Random(40))
                .onStartedLeading(work::start)
                .onStoppedLeading(work::stop)
                .build();
        cleanup.add(0, candidate::stop);
        // the coordinated-election controller names the candidate holder
        store.put(
                LEASE,
                LeaseRecord.heldBy(identity, LD, Clock.systemUTC().instant())
                        .withStrategy(Candidate.OLDEST_EMULATION_VERSION));
        candidate.start();

        workStopsByTheFenceWhenTheStoreStalls();

        assertThat(ownThreads(identity))
                .as("threads of the elector's own while it runs")
                .isNotEmpty();
        candidate.stop(); // its release is abandoned after renewDeadline: the store still stalls
        assertNoThreadLeftOf(identity);
    }

    @Test
    void anElectorStoppedWhileLeadingEndsTheThreadsItStartedOnceItsWorkHasStopped() {
        String identity = "stopped-elector";
        ExecutorScheduler loop = new ExecutorScheduler("test-loop-" + identity);
        cleanup.add(loop::close);
        LeaderElector elector = LeaderElector.builder()
                .lease(LEASE)
                .identity(identity)
                .store(store)
                .scheduler(loop)
                .clock(Clock.systemUTC())
                .monotonic(MonotonicClock.system())
                .random(new Random(40))
                .onStartedLeading(work::start)
                .onStoppedLeading(work::stop)
                .build();
        elector.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> work.units() >= 3);
        assertThat(ownThreads(identity))
                .as("threads of the elector's own while it runs")
                .isNotEmpty();

        elector.stop();

        assertThat(work.stops()).as("onStoppedLeading ran before stop returned").isEqualTo(1);
        assertThat(store.peek(LEASE).orElseThrow().hasHolder()).as("released").isFalse();
        assertNoThreadLeftOf(identity);
    }

    /**
     * Leads and works; then every store call stalls. Waits past the moment a contender could take over (the last
     * renew's start + leaseDuration: the lease cannot look expired earlier), then checks that the work ended by the
     * fence (the last renew's start + renewDeadline) and that onStoppedLeading fired.
     */
    private void workStopsByTheFenceWhenTheStoreStalls() {
        await().atMost(Duration.ofSeconds(10)).until(() -> work.units() >= 3 && stall.lastWriteStart() != 0);
        long stalledAt = System.nanoTime();
        stall.close();
        // Every write that succeeded began before the stall, so this is past the last renew's start + leaseDuration.
        await().atMost(LD.plusSeconds(5)).until(() -> System.nanoTime() - (stalledAt + LD.toNanos()) > 0);
        long lastRenewStart = stall.lastWriteStart();

        long lastWorkMs = TimeUnit.NANOSECONDS.toMillis(work.lastUnitAt() - lastRenewStart);
        assertThat(lastWorkMs)
                .as(
                        "last unit of work %d ms after the last successful renew began; fence at %d ms, + %d ms tolerance",
                        lastWorkMs, RD.toMillis(), TOLERANCE.toMillis())
                .isLessThanOrEqualTo(RD.plus(TOLERANCE).toMillis());
        assertThat(work.stops()).as("onStoppedLeading fired").isEqualTo(1);
    }

    private static void assertNoThreadLeftOf(String identity) {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(ownThreads(identity))
                        .as("threads the elector started for itself, still alive after stop")
                        .isEmpty());
    }

    /** Live threads named as the elector's own threads for {@code identity}. */
    static List<String> ownThreads(String identity) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith(OWN_THREADS) && n.endsWith("-" + identity))
                .toList();
    }

    /**
     * The guarded work: while the elector says it leads (onStartedLeading to onStoppedLeading), a thread does a unit
     * of work every few ms and records when. onStoppedLeading returns only once that thread has ended, as the API
     * asks of it, so no unit is done after it returns.
     */
    static final class Work {
        private final List<Long> unitsAt = new CopyOnWriteArrayList<>();
        private final AtomicInteger stops = new AtomicInteger();
        private volatile boolean leading;
        private volatile Thread worker;

        synchronized void start() {
            leading = true;
            worker = new Thread(
                    () -> {
                        while (leading) {
                            unitsAt.add(System.nanoTime());
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // the unit of work
                        }
                    },
                    "test-work");
            worker.setDaemon(true);
            worker.start();
        }

        synchronized void stop() {
            leading = false;
            Thread w = worker;
            if (w != null) {
                stops.incrementAndGet();
                try {
                    w.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                worker = null;
            }
        }

        int units() {
            return unitsAt.size();
        }

        long lastUnitAt() {
            return unitsAt.get(unitsAt.size() - 1);
        }

        int stops() {
            return stops.get();
        }
    }

    /**
     * Records when each write (create or update: the acquire or a renew) that succeeded began, and once closed, holds
     * every store call until opened — a partition. A held call that is interrupted (abandoned by its elector) fails
     * without touching the store. The elector starts each attempt's clock before its write reaches the store, so its
     * fence is at most the recorded start + renewDeadline.
     */
    static final class StallingInterceptor implements InMemoryLeaseStore.Interceptor {
        private final CountDownLatch opened = new CountDownLatch(1);
        private final ThreadLocal<Long> startedAt = new ThreadLocal<>();
        private final AtomicLong lastWriteStart = new AtomicLong();
        private volatile boolean closed;

        @Override
        public void before(InMemoryLeaseStore.Op op, LeaseKey key) {
            startedAt.set(System.nanoTime());
            if (closed) {
                try {
                    opened.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new LeaseStoreFailure(key, 0, "abandoned while partitioned", e);
                }
            }
        }

        @Override
        public void after(InMemoryLeaseStore.Op op, LeaseKey key) {
            if (op != InMemoryLeaseStore.Op.GET) {
                lastWriteStart.set(startedAt.get());
            }
        }

        void close() {
            closed = true;
        }

        void open() {
            opened.countDown();
        }

        /** When the last write that succeeded began (System.nanoTime). */
        long lastWriteStart() {
            return lastWriteStart.get();
        }
    }
}
