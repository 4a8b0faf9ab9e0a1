package dev.tenure.election;

import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * The configuration of one elector, checked once when it is built: the lease and who contends for it, the timing
 * (leaseDuration &gt; renewDeadline &gt; 1.2 × retryPeriod &gt; 0), the injected store, schedulers and clocks, and
 * the callbacks. {@link LeaderElector} and {@link Candidate} both build it from the one set of {@link Settings}, so a
 * setting means the same thing, with the same default and the same rule, on either.
 *
 * @param fenceScheduler runs the fence timer (by default a thread of the elector's own, see {@link Settings})
 * @param storeCalls where store calls run so one can be abandoned when its budget ends (by default a pool of the
 *     elector's own); null only with {@link Settings#unsafeAllOnLoopSchedulerForTests()}: on the loop thread, unbounded
 * @param callbackExecutor where callbacks run (by default a thread of the elector's own)
 */
public record ElectionConfig(
        LeaseKey lease,
        String identity,
        boolean coordinated,
        boolean releaseOnStop,
        Duration leaseDuration,
        Duration renewDeadline,
        Duration retryPeriod,
        Duration healthGrace,
        LeaseStore store,
        Scheduler scheduler,
        Scheduler fenceScheduler,
        ExecutorService storeCalls,
        InstantSource clock,
        InstantSource monotonic,
        RandomGenerator random,
        Executor callbackExecutor,
        Runnable onStartedLeading,
        Runnable onStoppedLeading,
        Consumer<String> onNewLeader,
        ElectionMetrics metrics) {

    /** client-go JitterFactor: acquire retries wait retryPeriod × [1, 1 + 1.2). */
    public static final double JITTER_FACTOR = 1.2;

    /** Rejects a configuration that breaks a rule, naming the rule and the actual values. */
    public ElectionConfig {
        require(lease != null, "lease must be set");
        require(identity != null && !identity.isBlank(), "identity must be non-empty");
        require(store != null, "store must be set");
        require(scheduler != null, "scheduler must be set");
        require(clock != null, "clock must be set");
        require(monotonic != null, "monotonic clock must be set (MonotonicClock.system() in production)");
        require(random != null, "random must be set (seed it in tests)");
        require(
                leaseDuration != null && renewDeadline != null && retryPeriod != null && healthGrace != null,
                "leaseDuration, renewDeadline, retryPeriod and healthGrace must be set");
        require(retryPeriod.compareTo(Duration.ZERO) > 0, "retryPeriod (" + retryPeriod + ") must be greater than 0");
        Duration jitteredRetry = Duration.ofNanos((long) (retryPeriod.toNanos() * JITTER_FACTOR));
        require(
                renewDeadline.compareTo(jitteredRetry) > 0,
                "renewDeadline (" + renewDeadline + ") must be greater than 1.2 × retryPeriod (" + jitteredRetry + ")");
        require(
                leaseDuration.compareTo(renewDeadline) > 0,
                "leaseDuration (" + leaseDuration + ") must be greater than renewDeadline (" + renewDeadline + ")");
        require(
                leaseDuration.compareTo(Duration.ofSeconds(1)) >= 0,
                "leaseDuration (" + leaseDuration + ") must be at least 1s (Leases store whole seconds)");
        require(!healthGrace.isNegative(), "healthGrace (" + healthGrace + ") must not be negative");
        require(fenceScheduler != null, "fenceScheduler must be set");
        require(callbackExecutor != null, "callbackExecutor must be set");
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException("leader election config: " + message);
        }
    }

    /**
     * The settings an elector is built from, with their defaults; the builders of {@link LeaderElector} and
     * {@link Candidate} extend it and add only what is theirs (which lease, coordinated or not).
     */
    public abstract static class Settings<B extends Settings<B>> {
        private String identity;
        private Duration leaseDuration = Duration.ofSeconds(15);
        private Duration renewDeadline = Duration.ofSeconds(10);
        private Duration retryPeriod = Duration.ofSeconds(2);
        private Duration healthGrace = Duration.ofSeconds(20); // kube-controller-manager healthz adaptor
        private boolean releaseOnStop = true;
        private LeaseStore store;
        private Scheduler scheduler;
        private Scheduler fenceScheduler;
        private ExecutorService storeCalls;
        private InstantSource clock;
        private InstantSource monotonic;
        private RandomGenerator random;
        private Executor callbackExecutor;
        private boolean allOnLoopScheduler;
        private Runnable onStartedLeading = () -> {};
        private Runnable onStoppedLeading = () -> {};
        private Consumer<String> onNewLeader = id -> {};
        private ElectionMetrics metrics = ElectionMetrics.NONE;

        Settings() {}

        /** This builder, typed as the concrete one. */
        abstract B self();

        /** The lease holder identity: unique per process. */
        public B identity(String v) {
            this.identity = v;
            return self();
        }
        /** How long contenders wait, after last seeing the lease change, before taking it. Default 15 s. */
        public B leaseDuration(Duration v) {
            this.leaseDuration = v;
            return self();
        }
        /** How long the leader keeps trying to renew before giving up. Default 10 s. */
        public B renewDeadline(Duration v) {
            this.renewDeadline = v;
            return self();
        }
        /** Interval between attempts. Default 2 s. */
        public B retryPeriod(Duration v) {
            this.retryPeriod = v;
            return self();
        }
        /** Extra time past leaseDuration before the health probe reports a stuck leader. Default 20 s. */
        public B healthGrace(Duration v) {
            this.healthGrace = v;
            return self();
        }
        /** Release the lease on {@link LeaderElector#stop()} (client-go ReleaseOnCancel). Default true. */
        public B releaseOnStop(boolean v) {
            this.releaseOnStop = v;
            return self();
        }
        /** Where the Lease is read, written and watched. */
        public B store(LeaseStore v) {
            this.store = v;
            return self();
        }
        /** Runs the election loop. */
        public B scheduler(Scheduler v) {
            this.scheduler = v;
            return self();
        }
        /**
         * Runs the fence timer. It must not share a thread with the loop, or a loop blocked in a store call (or
         * busy) delays the end of a term. Default: a thread of the elector's own, ended when it stops.
         */
        public B fenceScheduler(Scheduler v) {
            this.fenceScheduler = v;
            return self();
        }
        /**
         * Where store calls run, so the loop can stop waiting for one when its attempt's budget ends (client-go's
         * context deadline). Give it threads enough that a call left stalled does not queue the next one behind
         * it (a cached pool). Default: a cached pool of the elector's own, shut down when it stops.
         */
        public B storeCalls(ExecutorService v) {
            this.storeCalls = v;
            return self();
        }
        /** Wall clock: only for the renewTime/acquireTime written into the lease. */
        public B clock(InstantSource v) {
            this.clock = v;
            return self();
        }
        /**
         * The clock every interval is measured on (observation, fence, expiry, health): must not step when
         * the wall clock does — {@link MonotonicClock#system()} in production.
         */
        public B monotonic(InstantSource v) {
            this.monotonic = v;
            return self();
        }
        /** Source of jitter; seed it in tests. */
        public B random(RandomGenerator v) {
            this.random = v;
            return self();
        }
        /**
         * Where callbacks run. It must run them in the order they are handed over (one thread, or a serial
         * executor), and off the loop's thread, so a slow callback holds up neither renewals nor the fence. A
         * release waits for onStoppedLeading to complete, wherever it runs. Default: a thread of the elector's
         * own; it ends when the elector has stopped and the last callback has returned.
         */
        public B callbackExecutor(Executor v) {
            this.callbackExecutor = v;
            return self();
        }

        public B onStartedLeading(Runnable v) {
            this.onStartedLeading = v;
            return self();
        }
        /** Fires on every loss of leadership and once on stop, whether or not it was leading. */
        public B onStoppedLeading(Runnable v) {
            this.onStoppedLeading = v;
            return self();
        }
        /** Fires when a different holder (including ourselves) is observed. */
        public B onNewLeader(Consumer<String> v) {
            this.onNewLeader = v;
            return self();
        }

        public B metrics(ElectionMetrics v) {
            this.metrics = v;
            return self();
        }

        /**
         * <b>Unsafe under real I/O; for deterministic tests on virtual time only.</b> Runs the fence timer on the
         * loop's scheduler, and the callbacks and store calls (unbounded) on the thread that calls them, for whichever of
         * {@link #fenceScheduler}, {@link #callbackExecutor} and {@link #storeCalls} is not set: one
         * {@code ManualScheduler} then drives the whole elector. With a store that can stall, a stalled call blocks
         * the fence too, and a partitioned leader keeps leading for as long as the call lasts — so never in
         * production. Without it, the defaults are the elector's own threads.
         */
        public B unsafeAllOnLoopSchedulerForTests() {
            this.allOnLoopScheduler = true;
            return self();
        }

        /**
         * An elector for {@code lease} with the checked configuration ({@code coordinated}: a controller assigns
         * the holder), owning the threads it starts for the settings left at their defaults; {@code evidence} may be null.
         */
        LeaderElector elector(LeaseKey lease, boolean coordinated, ProcessEvidence evidence) {
            ElectorThreads own = allOnLoopScheduler
                    ? new ElectorThreads(String.valueOf(identity), false, false, false)
                    : new ElectorThreads(
                            String.valueOf(identity),
                            fenceScheduler == null,
                            storeCalls == null,
                            callbackExecutor == null);
            try {
                ElectionConfig config = new ElectionConfig(
                        lease,
                        identity,
                        coordinated,
                        releaseOnStop,
                        leaseDuration,
                        renewDeadline,
                        retryPeriod,
                        healthGrace,
                        store,
                        scheduler,
                        fenceScheduler != null ? fenceScheduler : allOnLoopScheduler ? scheduler : own.fence(),
                        storeCalls != null ? storeCalls : own.storeCalls(), // null: on the loop thread (unsafe)
                        clock,
                        monotonic,
                        random,
                        callbackExecutor != null
                                ? callbackExecutor
                                : allOnLoopScheduler ? Runnable::run : own.callbacks(),
                        onStartedLeading,
                        onStoppedLeading,
                        onNewLeader,
                        metrics);
                return new LeaderElector(config, own, evidence);
            } catch (RuntimeException e) {
                own.close();
                throw e;
            }
        }
    }
}
