package dev.tenure.election;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.random.RandomGenerator;

/**
 * Leader election on one Lease with the observer view of expiry (client-go
 * {@code tools/leaderelection} parity).
 *
 * <ul>
 *   <li>Contending: every {@code retryPeriod × [1, 2.2)} (jitter) read the lease, decide with
 *   {@link LeaseRules#decide}, write if it is free or expired.</li>
 *   <li>Leading: renew every {@code retryPeriod} with one conditional update from the cached
 *   record (no read); on 409 read once and decide again. When no renew has succeeded for
 *   {@code renewDeadline} — measured from the <em>start</em> of the last successful attempt, so
 *   slow responses only shorten leadership — leadership is given up. Because
 *   renewDeadline &lt; leaseDuration, that happens before any contender can see the lease expire.</li>
 *   <li>One watch on the lease shows foreign writes at once: a {@code preferredHolder} naming
 *   someone else makes the leader release immediately, and a contender acquires a lease it sees
 *   released (or, coordinated, assigned to it) on the event rather than at its next retry.</li>
 *   <li>{@link #stop()} releases a held lease (holder cleared, duration 1 s) and always fires
 *   onStoppedLeading.</li>
 *   <li>A leader steps down ({@link #isLeader()} false) before it writes a release, never after: once
 *   the release is stored a successor may lead, however long the API server takes to answer.</li>
 * </ul>
 *
 * All loop work runs on the injected {@link Scheduler} under this object's lock; the public
 * read methods use volatile snapshots so a wedged loop cannot block a health probe.
 */
public final class LeaderElector {
    private static final Logger LOG = Logger.getLogger(LeaderElector.class.getName());
    /** client-go JitterFactor: acquire retries wait retryPeriod × [1, 1 + 1.2). */
    public static final double JITTER_FACTOR = 1.2;

    private final LeaseKey lease;
    private final String identity;
    private final Duration leaseDuration;
    private final Duration renewDeadline;
    private final Duration retryPeriod;
    private final Duration healthGrace;
    private final boolean releaseOnStop;
    private final boolean coordinated;
    private final LeaseStore store;
    private final Scheduler scheduler;
    private final InstantSource clock;
    private final RandomGenerator random;
    private final Executor callbackExecutor;
    private final Runnable onStartedLeading;
    private final Runnable onStoppedLeading;
    private final Consumer<String> onNewLeader;
    private final ElectionMetrics metrics;

    // Loop state, guarded by this.
    private ObservedLease observed;
    private boolean leading;
    private boolean started;
    private boolean stopped;
    private Scheduler.Scheduled pending;
    private LeaseStore.LeaseWatch watch;
    private String reportedLeader;
    private String lastFailureLogged;

    // Snapshots for readers that must not take the lock.
    private volatile boolean leadingView;
    private volatile Instant lastRenewView;
    private volatile String holderView;

    private LeaderElector(Builder b) {
        this.lease = b.lease;
        this.identity = b.identity;
        this.leaseDuration = b.leaseDuration;
        this.renewDeadline = b.renewDeadline;
        this.retryPeriod = b.retryPeriod;
        this.healthGrace = b.healthGrace;
        this.releaseOnStop = b.releaseOnStop;
        this.coordinated = b.coordinated;
        this.store = b.store;
        this.scheduler = b.scheduler;
        this.clock = b.clock;
        this.random = b.random;
        this.callbackExecutor = b.callbackExecutor;
        this.onStartedLeading = b.onStartedLeading;
        this.onStoppedLeading = b.onStoppedLeading;
        this.onNewLeader = b.onNewLeader;
        this.metrics = b.metrics;
    }

    public static Builder builder() {
        return new Builder();
    }

    // ------------------------------------------------------------------ public API

    /** Opens the watch and starts contending at once. May be called once. */
    public synchronized void start() {
        if (started) {
            throw new IllegalStateException("elector " + identity + " on " + lease + " was already started");
        }
        started = true;
        try {
            watch = store.watch(lease, rec -> scheduler.schedule(Duration.ZERO, () -> onWatched(rec)));
        } catch (RuntimeException e) {
            // Polling still works; the watch only makes foreign writes visible sooner.
            LOG.log(Level.WARNING, "cannot watch lease " + lease + ", relying on polling", e);
        }
        next(Duration.ZERO, this::acquireTick);
    }

    /** Stops; releases the lease when holding it (unless built with releaseOnStop(false)); fires onStoppedLeading. */
    public void stop() {
        stop(releaseOnStop);
    }

    /** Stops like a crashed process would: no release, the lease expires by itself. onStoppedLeading still fires. */
    public void stopWithoutRelease() {
        stop(false);
    }

    /** Whether this elector holds the lease now: leading and still inside renewDeadline of the last renew. */
    public boolean isLeader() {
        Instant last = lastRenewView;
        return leadingView && last != null && clock.instant().isBefore(last.plus(renewDeadline));
    }

    /** The holder last observed (possibly ourselves), empty when none was seen. */
    public Optional<String> leader() {
        String h = holderView;
        return h == null || h.isEmpty() ? Optional.empty() : Optional.of(h);
    }

    public String identity() {
        return identity;
    }

    public LeaseKey lease() {
        return lease;
    }

    /** Health probe snapshot (lock-free): unhealthy when leading and not renewed for leaseDuration + grace. */
    public ElectorHealth health() {
        boolean isLeading = leadingView;
        Instant last = lastRenewView;
        String holder = holderView;
        if (!isLeading) {
            return new ElectorHealth(false, true, holder, last, "standing by");
        }
        Instant now = clock.instant();
        Duration since = last == null ? Duration.ZERO : Duration.between(last, now);
        boolean healthy = since.compareTo(leaseDuration.plus(healthGrace)) <= 0;
        return new ElectorHealth(true, healthy, holder, last,
                healthy ? "leading, renewed " + since.toMillis() + " ms ago"
                        : "leading but not renewed for " + since.toMillis() + " ms (limit "
                        + leaseDuration.plus(healthGrace).toMillis() + " ms): election loop is stuck");
    }

    // ------------------------------------------------------------------ loop

    private synchronized void acquireTick() {
        pending = null;
        if (stopped) {
            return;
        }
        Instant start = clock.instant();
        afterAcquireAttempt(start, attempt(start));
    }

    private void afterAcquireAttempt(Instant start, Outcome outcome) {
        // An answer slower than renewDeadline gives a term that has already ended: retry instead.
        if (outcome == Outcome.LEADING && clock.instant().isBefore(start.plus(renewDeadline))) {
            becomeLeader(start);
            next(retryPeriod, this::renewTick);
        } else {
            next(jittered(retryPeriod), this::acquireTick);
        }
    }

    private synchronized void renewTick() {
        pending = null;
        if (stopped || !leading) {
            return;
        }
        Instant start = clock.instant();
        Instant deadline = lastRenewView.plus(renewDeadline);
        if (!start.isBefore(deadline)) {
            loseLeadership("no successful renew within renewDeadline " + renewDeadline);
            return;
        }
        Outcome outcome = attempt(start);
        Instant end = clock.instant();
        switch (outcome) {
            case LEADING -> {
                if (end.isBefore(start.plus(renewDeadline))) {
                    lastRenewView = start;
                    metrics.renewSucceeded(lease, Duration.between(start, end));
                    next(retryPeriod, this::renewTick);
                } else {
                    // The answer came too late to rely on; contenders may already be counting.
                    loseLeadership("renew answered after renewDeadline");
                }
            }
            case YIELDED -> { } // apply() stepped down before writing the release
            case NOT_LEADING -> loseLeadership("lease is held by " + holderView);
            case FAILED -> {
                if (!end.isBefore(deadline)) {
                    loseLeadership("no successful renew within renewDeadline " + renewDeadline);
                } else {
                    Duration left = Duration.between(end, deadline);
                    next(left.compareTo(retryPeriod) < 0 ? left : retryPeriod, this::renewTick);
                }
            }
        }
    }

    private synchronized void onWatched(Optional<LeaseRecord> event) {
        if (stopped) {
            return;
        }
        if (event.isEmpty()) {
            observed = null;
            if (!leading) {
                acquireOnEvent();
            }
            return;
        }
        LeaseRecord rec = event.get();
        if (leading && !heldWithoutRival(rec)) {
            rec = confirmed(rec);
        }
        observed = LeaseRules.observe(observed, rec, clock.instant());
        noteHolder(rec.holderIdentity());
        if (!leading) {
            acquireOnEvent();
            return;
        }
        if (!rec.isHeldBy(identity)) {
            loseLeadership("lease was taken by " + rec.holderIdentity());
        } else if (rec.preferredHolder() != null && !rec.preferredHolder().equals(identity)) {
            // step down first: once the release is stored the successor may lead, even if our answer is slow
            loseLeadership("yielded to preferred holder " + rec.preferredHolder());
            writeRelease(rec);
        }
    }

    /**
     * Not leading, and the record just observed lets us write now (a release, a free or absent lease, one not
     * reserved for another preferredHolder; in coordinated mode, the controller naming us holder): write at once
     * instead of at the next jittered retry, so a planned handover costs a watch event and a write. The write is
     * conditional on the observed resourceVersion (no extra read): a contender that loses the race gets 409 and
     * goes back to jittered retries, and a stale event fails the same way. Leadership starts only after our own
     * write succeeds, counted from its start, never from the event: in coordinated mode the controller's record
     * carries its own short duration, and only our write puts our leaseDuration behind the renewDeadline we keep.
     */
    private void acquireOnEvent() {
        Instant start = clock.instant();
        ElectionDecision decision = decide(start);
        if (!(decision instanceof ElectionDecision.Create || decision instanceof ElectionDecision.Write)) {
            return;
        }
        Outcome outcome;
        try {
            outcome = apply(decision);
        } catch (LeaseConflict e) {
            LOG.fine(() -> identity + ": " + lease + " changed before our write on the watch event; retrying later");
            outcome = Outcome.NOT_LEADING;
        } catch (LeaseStoreException e) {
            outcome = failed(e);
        }
        afterAcquireAttempt(start, outcome);
    }

    private boolean heldWithoutRival(LeaseRecord rec) {
        return rec.isHeldBy(identity) && (rec.preferredHolder() == null || rec.preferredHolder().equals(identity));
    }

    /**
     * A watch may deliver an event written before our own latest write (e.g. the previous holder's last
     * renew arriving after we acquired): stepping down on it would drop a valid leadership, and the
     * operator exits on a lost leadership. Before giving up, one read decides; if the read fails, the
     * event stands (stepping down is the safe side).
     */
    private LeaseRecord confirmed(LeaseRecord fromWatch) {
        try {
            return store.find(lease).orElse(fromWatch);
        } catch (LeaseStoreException e) {
            return fromWatch;
        }
    }

    private enum Outcome { LEADING, NOT_LEADING, YIELDED, FAILED }

    /** One try: optimistic write from the cache when leading, else (or after a 409) read and decide. */
    private Outcome attempt(Instant start) {
        if (leading && observed != null && observed.record().isHeldBy(identity)) {
            try {
                return apply(decide(start));
            } catch (LeaseConflict conflict) {
                LOG.fine(() -> identity + ": optimistic renew of " + lease + " conflicted, reading once");
            } catch (LeaseStoreException e) {
                return failed(e);
            }
        }
        try {
            LeaseRecord current = store.get(lease);
            observed = LeaseRules.observe(observed, current, clock.instant());
            noteHolder(current.holderIdentity());
        } catch (LeaseNotFound e) {
            observed = null;
        } catch (LeaseStoreException e) {
            return failed(e);
        }
        try {
            return apply(decide(clock.instant()));
        } catch (LeaseConflict e) {
            return leading ? failed(e) : Outcome.NOT_LEADING;
        } catch (LeaseStoreException e) {
            return failed(e);
        }
    }

    private ElectionDecision decide(Instant now) {
        return coordinated
                ? LeaseRules.decideCoordinated(identity, observed, now, leaseDuration)
                : LeaseRules.decide(identity, observed, now, leaseDuration);
    }

    private Outcome apply(ElectionDecision decision) {
        if (decision instanceof ElectionDecision.Create create) {
            wrote(store.create(lease, create.desired()));
            return Outcome.LEADING;
        } else if (decision instanceof ElectionDecision.Write write) {
            wrote(store.update(lease, write.desired()));
            return Outcome.LEADING;
        } else if (decision instanceof ElectionDecision.Yield yield) {
            if (leading) {
                loseLeadership("yielded to preferred holder " + yield.preferredHolder());
            }
            writeRelease(observed.record());
            return Outcome.YIELDED;
        } else {
            return Outcome.NOT_LEADING;
        }
    }

    private void wrote(LeaseRecord rec) {
        lastFailureLogged = null;
        observed = new ObservedLease(rec, clock.instant());
        noteHolder(rec.holderIdentity());
    }

    private Outcome failed(LeaseStoreException e) {
        if (leading) {
            metrics.renewFailed(lease, e);
        }
        // Visible once per distinct cause (e.g. a missing namespace or RBAC), not once per retry.
        if (e instanceof LeaseStoreFailure && !String.valueOf(e.getMessage()).equals(lastFailureLogged)) {
            lastFailureLogged = String.valueOf(e.getMessage());
            LOG.warning(identity + ": election on " + lease + " failed, retrying: " + e.getMessage());
        } else {
            LOG.log(Level.FINE, identity + ": attempt on " + lease + " failed", e);
        }
        return Outcome.FAILED;
    }

    private void writeRelease(LeaseRecord held) {
        try {
            wrote(store.update(lease, LeaseRules.releasedRecord(held, clock.instant())));
        } catch (LeaseConflict e) {
            // Someone else wrote since; read once and release only if it is still ours.
            try {
                LeaseRecord current = store.get(lease);
                LeaseRules.release(current, identity, clock.instant()).ifPresent(r -> wrote(store.update(lease, r)));
            } catch (LeaseStoreException again) {
                LOG.info(identity + ": release of " + lease + " failed, it will expire: " + again.getMessage());
            }
        } catch (LeaseStoreException e) {
            LOG.info(identity + ": release of " + lease + " failed, it will expire: " + e.getMessage());
        }
    }

    private void becomeLeader(Instant start) {
        leading = true;
        lastRenewView = start;
        leadingView = true;
        metrics.leadershipChanged(lease, true);
        LOG.info(() -> identity + " became leader of " + lease);
        callbackExecutor.execute(onStartedLeading);
    }

    private void loseLeadership(String why) {
        leading = false;
        leadingView = false;
        metrics.leadershipChanged(lease, false);
        LOG.info(() -> identity + " stopped leading " + lease + ": " + why);
        callbackExecutor.execute(onStoppedLeading);
        if (!stopped) {
            next(jittered(retryPeriod), this::acquireTick);
        }
    }

    private void noteHolder(String holder) {
        holderView = holder;
        if (!holder.isEmpty() && !holder.equals(reportedLeader)) {
            reportedLeader = holder;
            callbackExecutor.execute(() -> onNewLeader.accept(holder));
        }
    }

    private synchronized void stop(boolean release) {
        if (stopped) {
            return;
        }
        stopped = true;
        if (pending != null) {
            pending.cancel();
            pending = null;
        }
        if (watch != null) {
            watch.close();
        }
        boolean wasLeading = leading;
        if (leading) {
            // step down before the release: once it is stored, a successor may lead
            leading = false;
            leadingView = false;
            metrics.leadershipChanged(lease, false);
        }
        // Always, like client-go's deferred OnStoppedLeading; and before the release, so that with a synchronous
        // callback executor the caller's guarded work has stopped before a successor can see the lease free.
        callbackExecutor.execute(onStoppedLeading);
        if (wasLeading && release && observed != null && observed.record().isHeldBy(identity)) {
            writeRelease(observed.record());
        }
    }

    private void next(Duration delay, Runnable tick) {
        if (pending != null) {
            pending.cancel();
        }
        pending = scheduler.schedule(delay, tick);
    }

    /** retryPeriod × [1, 1 + JITTER_FACTOR): spreads contenders so they do not retry in lockstep. */
    Duration jittered(Duration base) {
        return base.plusNanos((long) (base.toNanos() * JITTER_FACTOR * random.nextDouble()));
    }

    // ------------------------------------------------------------------ builder

    /** Builds a {@link LeaderElector}; {@link #build()} checks the timing invariants. */
    public static final class Builder {
        private LeaseKey lease;
        private String identity;
        private Duration leaseDuration = Duration.ofSeconds(15);
        private Duration renewDeadline = Duration.ofSeconds(10);
        private Duration retryPeriod = Duration.ofSeconds(2);
        private Duration healthGrace = Duration.ofSeconds(20); // kube-controller-manager healthz adaptor
        private boolean releaseOnStop = true;
        private boolean coordinated;
        private LeaseStore store;
        private Scheduler scheduler;
        private InstantSource clock;
        private RandomGenerator random;
        private Executor callbackExecutor = Runnable::run;
        private Runnable onStartedLeading = () -> { };
        private Runnable onStoppedLeading = () -> { };
        private Consumer<String> onNewLeader = id -> { };
        private ElectionMetrics metrics = ElectionMetrics.NONE;

        private Builder() {
        }

        public Builder lease(LeaseKey v) { this.lease = v; return this; }
        public Builder identity(String v) { this.identity = v; return this; }
        /** How long contenders wait, after last seeing the lease change, before taking it. Default 15 s. */
        public Builder leaseDuration(Duration v) { this.leaseDuration = v; return this; }
        /** How long the leader keeps trying to renew before giving up. Default 10 s. */
        public Builder renewDeadline(Duration v) { this.renewDeadline = v; return this; }
        /** Interval between attempts. Default 2 s. */
        public Builder retryPeriod(Duration v) { this.retryPeriod = v; return this; }
        /** Extra time past leaseDuration before the health probe reports a stuck leader. Default 20 s. */
        public Builder healthGrace(Duration v) { this.healthGrace = v; return this; }
        /** Release the lease on {@link #stop()} (client-go ReleaseOnCancel). Default true. */
        public Builder releaseOnStop(boolean v) { this.releaseOnStop = v; return this; }
        /**
         * Coordinated leader election: never create or acquire the lease (a controller assigns
         * the holder), only renew it while it names us, and yield to a preferredHolder.
         */
        public Builder coordinated(boolean v) { this.coordinated = v; return this; }
        public Builder store(LeaseStore v) { this.store = v; return this; }
        public Builder scheduler(Scheduler v) { this.scheduler = v; return this; }
        public Builder clock(InstantSource v) { this.clock = v; return this; }
        /** Source of jitter; seed it in tests. */
        public Builder random(RandomGenerator v) { this.random = v; return this; }
        /** Where callbacks run; default: on the election thread (keep them short, or pass an executor). */
        public Builder callbackExecutor(Executor v) { this.callbackExecutor = v; return this; }
        public Builder onStartedLeading(Runnable v) { this.onStartedLeading = v; return this; }
        /** Fires on every loss of leadership and once on stop, whether or not it was leading. */
        public Builder onStoppedLeading(Runnable v) { this.onStoppedLeading = v; return this; }
        /** Fires when a different holder (including ourselves) is observed. */
        public Builder onNewLeader(Consumer<String> v) { this.onNewLeader = v; return this; }
        public Builder metrics(ElectionMetrics v) { this.metrics = v; return this; }

        public LeaderElector build() {
            require(lease != null, "lease must be set");
            require(identity != null && !identity.isBlank(), "identity must be non-empty");
            require(store != null, "store must be set");
            require(scheduler != null, "scheduler must be set");
            require(clock != null, "clock must be set");
            require(random != null, "random must be set (seed it in tests)");
            require(leaseDuration != null && renewDeadline != null && retryPeriod != null && healthGrace != null,
                    "leaseDuration, renewDeadline, retryPeriod and healthGrace must be set");
            require(retryPeriod.compareTo(Duration.ZERO) > 0,
                    "retryPeriod (" + retryPeriod + ") must be greater than 0");
            Duration jitteredRetry = Duration.ofNanos((long) (retryPeriod.toNanos() * JITTER_FACTOR));
            require(renewDeadline.compareTo(jitteredRetry) > 0,
                    "renewDeadline (" + renewDeadline + ") must be greater than 1.2 × retryPeriod (" + jitteredRetry + ")");
            require(leaseDuration.compareTo(renewDeadline) > 0,
                    "leaseDuration (" + leaseDuration + ") must be greater than renewDeadline (" + renewDeadline + ")");
            require(leaseDuration.compareTo(Duration.ofSeconds(1)) >= 0,
                    "leaseDuration (" + leaseDuration + ") must be at least 1s (Leases store whole seconds)");
            require(!healthGrace.isNegative(), "healthGrace (" + healthGrace + ") must not be negative");
            Objects.requireNonNull(callbackExecutor, "callbackExecutor");
            return new LeaderElector(this);
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException("leader election config: " + message);
            }
        }
    }
}
