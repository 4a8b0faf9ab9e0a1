package dev.tenure.election;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.random.RandomGenerator;

/**
 * Leader election on one Lease with the observer view of expiry (client-go
 * {@code tools/leaderelection} parity), fenced in real time.
 *
 * <ul>
 *   <li>Contending: every {@code retryPeriod × [1, 2.2)} (jitter) read the lease, decide with
 *   {@link LeaseRules#decide}, write if it is free or expired.</li>
 *   <li>Leading: renew every {@code retryPeriod} with one conditional update from the cached
 *   record (no read); after any failure of that write, read once and decide again.</li>
 *   <li><b>The fence.</b> A term ends at {@code lastSuccessfulRenewStart + renewDeadline}, by a
 *   timer on its own scheduler that never waits for a store call: a leader stuck in a slow request
 *   still fires onStoppedLeading on time. Because renewDeadline &lt; leaseDuration, that is before
 *   any contender can see the lease expire; the margin (leaseDuration − renewDeadline) is what the
 *   stop callback and scheduling delays may use.</li>
 *   <li>Every store call is bounded by the budget left in its attempt (the renew deadline while
 *   leading), like client-go's context deadline: with {@link Builder#storeCalls} the loop stops
 *   waiting when the budget ends and treats the call as failed.</li>
 *   <li>Intervals (when a record was seen to change, the fence, expiry, health) are measured on
 *   the {@linkplain Builder#monotonic monotonic} clock; the wall clock only stamps
 *   renewTime/acquireTime into the record. A wall-clock step moves no deadline.</li>
 *   <li><b>Stop before release.</b> A release (on {@link #stop()} or when yielding to a
 *   {@code preferredHolder}) is written only after onStoppedLeading has completed; if it does not
 *   complete within leaseDuration, nothing is released and the lease expires by itself.</li>
 *   <li>One watch on the lease shows foreign writes at once: a {@code preferredHolder} naming
 *   someone else makes the leader yield, a deletion makes it step down, and a contender acquires a
 *   lease it sees released (or, coordinated, assigned to it) on the event rather than at its next
 *   retry. A lease deleted while someone held it is not free at once: contenders wait a whole
 *   leaseDuration from when they saw the deletion, as if the record had just been renewed.</li>
 * </ul>
 *
 * Loop work runs on the injected {@link Scheduler} under this object's lock; the term (leading
 * or not, and until when) has its own small lock that is never held across I/O or callbacks, so
 * the fence and the public read methods never wait for a wedged loop.
 */
public final class LeaderElector {
    private static final Logger LOG = Logger.getLogger(LeaderElector.class.getName());
    /** client-go JitterFactor: acquire retries wait retryPeriod × [1, 1 + 1.2). */
    public static final double JITTER_FACTOR = 1.2;

    /** What a replica is doing about this lease, for readiness and health. */
    public enum Role {
        /** Holds the lease and is inside its fence. */
        LEADING,
        /** Gave leadership up and onStoppedLeading has not finished yet: work may still be stopping. */
        STEPPING_DOWN,
        /** Not leading, no work left to stop. */
        STANDING_BY
    }

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
    private final Scheduler fenceScheduler;
    private final ExecutorService storeCalls;
    private final InstantSource clock;
    private final InstantSource monotonic;
    private final RandomGenerator random;
    private final Executor callbackExecutor;
    private final Runnable onStartedLeading;
    private final Runnable onStoppedLeading;
    private final Consumer<String> onNewLeader;
    private final ElectionMetrics metrics;

    // Loop state, guarded by this.
    private ObservedLease observed;
    /**
     * The latest record naming a holder that the watch delivered and the loop has not handled yet (the loop may be
     * busy in a slow call while events queue behind it): a read that finds the lease gone must not take it for a
     * free lease when a holder was heard meanwhile — that holder may still be working until its fence.
     */
    private final AtomicReference<LeaseRecord> heardHolder = new AtomicReference<>();
    /** When the last decision to wait said the observed holder's lease runs out (observer view); null otherwise. */
    private Instant waitUntil;
    /** The last observation of a lease that was then deleted while held: its term is honoured until it expires. */
    private ObservedLease vanished;
    /** resourceVersion of the last record we saw ourselves write. */
    private String ownVersion;

    private boolean started;
    private boolean stopped;
    private Scheduler.Scheduled pending;
    private LeaseStore.LeaseWatch watch;
    private String reportedLeader;
    private String lastFailureLogged;

    // The term, guarded by termLock (never held across I/O or callbacks).
    private final Object termLock = new Object();
    private boolean termActive;
    private long termSeq;
    private Instant fenceAt;
    private Scheduler.Scheduled fenceTask;
    private CompletableFuture<Void> lastStop = CompletableFuture.completedFuture(null);

    // Snapshots for readers that must not take a lock.
    private volatile boolean leadingView;
    private volatile Instant fenceAtView;
    private volatile Instant lastRenewView;
    private volatile String holderView;
    private volatile Instant stoppingSince;
    private final AtomicInteger stopsInFlight = new AtomicInteger();

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
        this.fenceScheduler = b.fenceScheduler == null ? b.scheduler : b.fenceScheduler;
        this.storeCalls = b.storeCalls;
        this.clock = b.clock;
        this.monotonic = b.monotonic;
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
            watch = store.watch(lease, rec -> {
                rec.filter(LeaseRecord::hasHolder).ifPresent(heardHolder::set);
                scheduler.schedule(Duration.ZERO, () -> onWatched(rec));
            });
        } catch (RuntimeException e) {
            // Polling still works; the watch only makes foreign writes visible sooner.
            LOG.log(Level.WARNING, "cannot watch lease " + lease + ", relying on polling", e);
        }
        next(Duration.ZERO, this::acquireTick);
    }

    /**
     * Stops; fires onStoppedLeading and, once it has completed, releases a held lease (unless built
     * with releaseOnStop(false)). Waits for the callback at most leaseDuration: do not call this
     * from the callback executor's own thread.
     */
    public void stop() {
        stop(releaseOnStop);
    }

    /** Stops like a crashed process would: no release, the lease expires by itself. onStoppedLeading still fires. */
    public void stopWithoutRelease() {
        stop(false);
    }

    /** Whether this elector holds the lease now: in a term and before its fence (lastRenewStart + renewDeadline). */
    public boolean isLeader() {
        Instant fence = fenceAtView;
        return leadingView && fence != null && monotonic.instant().isBefore(fence);
    }

    /** Time left before this term's fence (lastRenewStart + renewDeadline); empty when not leading. */
    public Optional<Duration> timeLeft() {
        Instant fence = fenceAtView;
        if (!leadingView || fence == null) {
            return Optional.empty();
        }
        Duration left = Duration.between(monotonic.instant(), fence);
        return left.isNegative() || left.isZero() ? Optional.empty() : Optional.of(left);
    }

    /** Leading, stepping down (onStoppedLeading still running) or standing by. */
    public Role role() {
        if (leadingView) {
            return Role.LEADING;
        }
        return stopsInFlight.get() > 0 ? Role.STEPPING_DOWN : Role.STANDING_BY;
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

    /**
     * Health probe snapshot (lock-free): unhealthy when leading and not renewed for leaseDuration + grace
     * (the loop is wedged), or when onStoppedLeading has been running that long (the work will not stop).
     */
    public ElectorHealth health() {
        Role role = role();
        Instant last = lastRenewView;
        String holder = holderView;
        Instant now = monotonic.instant();
        Duration limit = leaseDuration.plus(healthGrace);
        if (role == Role.STANDING_BY) {
            return new ElectorHealth(role, true, holder, last, "standing by");
        }
        if (role == Role.STEPPING_DOWN) {
            Instant since = stoppingSince;
            Duration d = since == null ? Duration.ZERO : Duration.between(since, now);
            boolean healthy = d.compareTo(limit) <= 0;
            return new ElectorHealth(
                    role,
                    healthy,
                    holder,
                    last,
                    healthy
                            ? "stepping down: work still stopping for " + d.toMillis() + " ms"
                            : "stepping down for " + d.toMillis() + " ms (limit " + limit.toMillis()
                                    + " ms): work does not stop");
        }
        Duration since = last == null ? Duration.ZERO : Duration.between(last, now);
        boolean healthy = since.compareTo(limit) <= 0;
        return new ElectorHealth(
                role,
                healthy,
                holder,
                last,
                healthy
                        ? "leading, renewed " + since.toMillis() + " ms ago"
                        : "leading but not renewed for " + since.toMillis() + " ms (limit " + limit.toMillis()
                                + " ms): election loop is stuck");
    }

    // ------------------------------------------------------------------ loop

    private synchronized void acquireTick() {
        pending = null;
        if (stopped) {
            return;
        }
        Instant start = monotonic.instant();
        afterAcquireAttempt(start, attempt(start, start.plus(renewDeadline)));
    }

    private void afterAcquireAttempt(Instant start, Outcome outcome) {
        // An answer slower than renewDeadline gives a term that has already ended: retry instead.
        if (outcome == Outcome.LEADING && monotonic.instant().isBefore(start.plus(renewDeadline))) {
            beginTerm(start);
            next(retryPeriod, this::renewTick);
        } else if (outcome == Outcome.NOT_LEADING) {
            next(untilNextTry(), this::acquireTick);
        } else if (outcome != Outcome.YIELDED) {
            next(jittered(retryPeriod), this::acquireTick);
        }
    }

    /**
     * The jittered retry, or sooner: the moment the holder we wait for runs out of lease on our own clock
     * ({@code observedAt + leaseDuration}). A contender that saw the holder's last renew (on the watch) thus takes
     * over a crashed leader at the first instant the observer rule allows, not at a retry up to
     * 2.2 × retryPeriod later. Safety is unchanged: the try at that moment reads the lease again and decides by the
     * same rule, so a renew seen meanwhile (or missed by the watch and found by the read) moves the expiry on.
     */
    private Duration untilNextTry() {
        Duration retry = jittered(retryPeriod);
        if (waitUntil == null) {
            return retry;
        }
        Duration toExpiry = Duration.between(monotonic.instant(), waitUntil);
        return toExpiry.isNegative() || toExpiry.isZero() || toExpiry.compareTo(retry) >= 0 ? retry : toExpiry;
    }

    private synchronized void renewTick() {
        pending = null;
        if (stopped) {
            return;
        }
        if (!leadingView) { // the fence ended the term while this tick waited
            next(jittered(retryPeriod), this::acquireTick);
            return;
        }
        Instant start = monotonic.instant();
        Instant deadline = fenceAtView;
        if (!start.isBefore(deadline)) {
            stepDown("no successful renew within renewDeadline " + renewDeadline);
            return;
        }
        Outcome outcome = attempt(start, deadline);
        Instant end = monotonic.instant();
        switch (outcome) {
            case LEADING -> {
                if (end.isBefore(start.plus(renewDeadline)) && extendTerm(start)) {
                    metrics.renewSucceeded(lease, Duration.between(start, end));
                    next(retryPeriod, this::renewTick);
                } else {
                    // The answer came too late to rely on, or the fence already ended the term.
                    stepDown("renew answered after renewDeadline");
                }
            }
            case YIELDED -> {} // yieldTo() stepped down and scheduled what comes next
            case GONE -> stepDown("lease was deleted");
            case NOT_LEADING -> stepDown("lease is held by " + holderView);
            case FAILED -> {
                if (!end.isBefore(deadline)) {
                    stepDown("no successful renew within renewDeadline " + renewDeadline);
                } else {
                    Duration left = Duration.between(end, deadline);
                    next(left.compareTo(retryPeriod) < 0 ? left : retryPeriod, this::renewTick);
                }
            }
        }
    }

    private synchronized void onWatched(Optional<LeaseRecord> event) {
        event.ifPresent(rec -> heardHolder.compareAndSet(rec, null));
        if (stopped) {
            return;
        }
        if (event.isPresent() && leadingView && !heldWithoutRival(event.get())) {
            event = confirmed(event.get());
        }
        if (event.isEmpty()) {
            boolean wasLeading = leadingView;
            forget();
            if (wasLeading) {
                stepDown("lease was deleted");
            } else {
                acquireOnEvent();
            }
            return;
        }
        LeaseRecord rec = event.get();
        observe(rec);
        if (!leadingView) {
            acquireOnEvent();
            return;
        }
        if (!rec.isHeldBy(identity)) {
            stepDown("lease was taken by " + rec.holderIdentity());
        } else if (rec.deletionRequested()) {
            yieldTo(""); // stop the work, then let the Lease go: only then can anyone start on a new one
        } else if (rec.preferredHolder() != null && !rec.preferredHolder().equals(identity)) {
            yieldTo(rec.preferredHolder());
        } else if (shortenedByAnother(rec)) {
            // Contenders count expiry from the record's duration: with a shorter one (a hand edit, 15 → 1) they may
            // take over before our fence. End the term now; a fresh read first, so a stale event cannot end it.
            Optional<LeaseRecord> current = confirmed(rec);
            if (current.isPresent() && current.get().isHeldBy(identity) && shortenedByAnother(current.get())) {
                stepDown("lease duration was edited to " + current.get().leaseDurationSeconds()
                        + " s by another writer, shorter than our " + leaseDuration + ": contenders may take over"
                        + " before our fence");
            }
        }
    }

    /** A record naming us that we did not write, with a lease duration shorter than ours (not in coordinated mode). */
    private boolean shortenedByAnother(LeaseRecord rec) {
        return !coordinated
                && !Objects.equals(rec.resourceVersion(), ownVersion)
                && rec.leaseDuration().map(d -> d.compareTo(leaseDuration) < 0).orElse(false);
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
        if (heardHolder.get() != null) {
            // A later event naming a holder is queued behind this one: this one is stale, act on that one.
            return;
        }
        Instant start = monotonic.instant();
        ElectionDecision decision = decide(start);
        if (!(decision instanceof ElectionDecision.Create || decision instanceof ElectionDecision.Write)) {
            return;
        }
        Outcome outcome;
        try {
            outcome = apply(decision, start.plus(renewDeadline));
        } catch (LeaseConflict e) {
            LOG.fine(() -> identity + ": " + lease + " changed before our write on the watch event; retrying later");
            lostCreateRace(e);
            outcome = Outcome.NOT_LEADING;
        } catch (LeaseStoreException e) {
            outcome = failed(e);
        }
        afterAcquireAttempt(start, outcome);
    }

    private boolean heldWithoutRival(LeaseRecord rec) {
        return rec.isHeldBy(identity)
                && !rec.deletionRequested()
                && (rec.preferredHolder() == null || rec.preferredHolder().equals(identity));
    }

    /**
     * A watch may deliver an event written before our own latest write (e.g. the previous holder's last
     * renew arriving after we acquired): stepping down on it would drop a valid leadership, and the
     * operator exits on a lost leadership. Before giving up, one read decides; if the read fails, the
     * event stands (stepping down is the safe side). Empty when the read finds the lease gone.
     */
    private Optional<LeaseRecord> confirmed(LeaseRecord fromWatch) {
        try {
            return call(monotonic.instant().plus(retryPeriod), () -> store.find(lease));
        } catch (LeaseStoreException e) {
            return Optional.of(fromWatch);
        }
    }

    private enum Outcome {
        LEADING,
        NOT_LEADING,
        YIELDED,
        GONE,
        FAILED
    }

    /**
     * One try, every call bounded by {@code deadline}: while leading, an optimistic write from the cache;
     * after any failure of it (or when not leading), read and decide. A lease found gone while leading is
     * {@link Outcome#GONE}: the leader steps down at once instead of re-creating it in the same breath.
     */
    private Outcome attempt(Instant start, Instant deadline) {
        waitUntil = null;
        if (leadingView && observed != null && observed.record().isHeldBy(identity)) {
            try {
                return apply(decide(start), deadline);
            } catch (LeaseNotFound gone) {
                foundGone();
                return Outcome.GONE;
            } catch (LeaseStoreException e) {
                LOG.fine(() ->
                        identity + ": optimistic renew of " + lease + " failed (" + e.getMessage() + "), reading once");
            }
        }
        try {
            observe(call(deadline, () -> store.get(lease)));
        } catch (LeaseNotFound e) {
            boolean wasLeading = leadingView;
            foundGone();
            if (wasLeading) {
                return Outcome.GONE;
            }
        } catch (LeaseStoreException e) {
            return failed(e);
        }
        try {
            return apply(decide(monotonic.instant()), deadline);
        } catch (LeaseConflict e) {
            lostCreateRace(e);
            return leadingView ? failed(e) : Outcome.NOT_LEADING;
        } catch (LeaseStoreException e) {
            return failed(e);
        }
    }

    private ElectionDecision decide(Instant now) {
        if (!coordinated
                && !leadingView
                && observed != null
                && observed.record().isHeldBy(identity)
                && !Objects.equals(observed.record().resourceVersion(), ownVersion)
                && !LeaseRules.observerExpired(observed, now, leaseDuration)) {
            // A record naming us that we never saw ourselves write: an abandoned write that landed late, or an earlier
            // process under our name. Whoever led until then may still be stopping, so it is honoured like anyone
            // else's record until it expires. (Coordinated: the controller names the holder, and only on a free or
            // expired lease, so its assignment is what we act on.)
            return new ElectionDecision.Wait(identity, LeaseRules.observerExpiry(observed, leaseDuration));
        }
        if (observed == null
                && vanished != null
                && !vanished.record().isHeldBy(identity)
                && !LeaseRules.observerExpired(vanished, now, leaseDuration)) {
            return new ElectionDecision.Wait(
                    vanished.record().holderIdentity(), LeaseRules.observerExpiry(vanished, leaseDuration));
        }
        Instant wall = clock.instant();
        return coordinated
                ? LeaseRules.decideCoordinated(identity, observed, now, wall, leaseDuration)
                : LeaseRules.decide(identity, observed, now, wall, leaseDuration);
    }

    private Outcome apply(ElectionDecision decision, Instant deadline) {
        // Coordinated candidates never take a lease themselves (the controller assigns it): no expiry to aim at.
        waitUntil = !coordinated && decision instanceof ElectionDecision.Wait wait ? wait.until() : null;
        if (decision instanceof ElectionDecision.Create create) {
            wrote(call(deadline, () -> store.create(lease, create.desired())));
            return Outcome.LEADING;
        } else if (decision instanceof ElectionDecision.Write write) {
            wrote(call(deadline, () -> store.update(lease, write.desired())));
            return Outcome.LEADING;
        } else if (decision instanceof ElectionDecision.Yield yield) {
            yieldTo(yield.preferredHolder());
            return Outcome.YIELDED;
        } else if (decision instanceof ElectionDecision.FinishDeletion finish) {
            call(deadline, () -> store.update(lease, finish.released()));
            LOG.info(() -> identity + ": " + lease + " was being deleted and its holder had expired; let it go");
            observed = null;
            vanished = null;
            return Outcome.NOT_LEADING;
        } else {
            return Outcome.NOT_LEADING;
        }
    }

    /**
     * Runs one store call, bounded by {@code deadline} on the monotonic clock when store calls run on their
     * own executor: past it the call is abandoned (interrupted) and the attempt counts as failed. A write
     * abandoned this way may still land; that only renews or takes a lease we then find ours on the next
     * read, it never extends a term (terms are extended only by a renew whose answer we saw in time).
     */
    private <T> T call(Instant deadline, Supplier<T> op) {
        Duration budget = Duration.between(monotonic.instant(), deadline);
        if (budget.isNegative() || budget.isZero()) {
            throw new LeaseStoreFailure(lease, 0, "no time left in this attempt", null);
        }
        if (storeCalls == null) {
            return op.get();
        }
        Future<T> f;
        try {
            f = storeCalls.submit(op::get);
        } catch (RejectedExecutionException e) {
            throw new LeaseStoreFailure(lease, 0, "store calls are shut down", e);
        }
        try {
            return f.get(budget.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new LeaseStoreFailure(
                    lease, 0, "no answer within the attempt's budget of " + budget.toMillis() + " ms", null);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new LeaseStoreFailure(lease, 0, String.valueOf(e.getCause()), e.getCause());
        } catch (InterruptedException e) {
            f.cancel(true);
            Thread.currentThread().interrupt();
            throw new LeaseStoreFailure(lease, 0, "interrupted", e);
        }
    }

    private void observe(LeaseRecord rec) {
        vanished = null;
        observed = LeaseRules.observe(observed, rec, monotonic.instant());
        noteHolder(rec.holderIdentity());
    }

    /**
     * A call found the lease gone (404): {@link #forget()} it, counting as its last holder the one the watch delivered
     * and the loop has not handled yet, if any, rather than the one we observed before — even when what we observed
     * was our own record (a fenced leader whose successor's events are still queued behind its read). Only when the
     * heard record names us while we observed someone else does the observation stand: another holder is the safe
     * side. (A deletion event is handled by forget() alone: a holder heard then is queued behind it.)
     */
    private void foundGone() {
        LeaseRecord heard = heardHolder.getAndSet(null);
        boolean observedAnother = observed != null
                && observed.record().hasHolder()
                && !observed.record().isHeldBy(identity);
        if (heard != null && !(heard.isHeldBy(identity) && observedAnother)) {
            observed = new ObservedLease(heard, monotonic.instant());
        }
        forget();
    }

    /**
     * The lease is gone while its last record named a holder: that holder may still be working, so the deletion
     * counts as a change seen now and the lease is free only a whole leaseDuration later. (Counting from when the
     * record was first seen would trust a view that missed the holder's latest renews, as a watch can.)
     */
    private void forget() {
        if (observed != null && observed.record().hasHolder()) {
            vanished = new ObservedLease(observed.record(), monotonic.instant());
        }
        observed = null;
    }

    /**
     * Our create lost to another contender's: someone holds the lease now, though we have not read it yet. Until
     * we do, count it as held from now, so a deletion before that read cannot make it look free.
     */
    private void lostCreateRace(LeaseConflict e) {
        if (e.alreadyExists() && observed == null) {
            vanished = new ObservedLease(
                    LeaseRecord.heldBy("(another contender)", leaseDuration, clock.instant()), monotonic.instant());
        }
    }

    private void wrote(LeaseRecord rec) {
        LOG.fine(() ->
                identity + ": wrote " + lease + " holder=" + rec.holderIdentity() + " rv=" + rec.resourceVersion());
        lastFailureLogged = null;
        ownVersion = rec.resourceVersion();
        vanished = null;
        observed = new ObservedLease(rec, monotonic.instant());
        noteHolder(rec.holderIdentity());
    }

    private Outcome failed(LeaseStoreException e) {
        if (leadingView) {
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

    /**
     * Gives the lease to {@code preferred}: the term ends (onStoppedLeading fires), and the release is written
     * only once that callback has completed — the successor may start the moment it sees the release.
     */
    // the release is chained on the term's end and runs on the scheduler; releaseAfterYield handles its own errors
    @SuppressWarnings("FutureReturnValueIgnored")
    private void yieldTo(String preferred) {
        long endedTerm;
        synchronized (termLock) {
            endedTerm = termSeq;
        }
        CompletableFuture<Void> workStopped = endTerm(
                preferred.isEmpty()
                        ? "deletion of the lease was requested"
                        : "yielded to preferred holder " + preferred,
                -1);
        if (!stopped) {
            next(jittered(retryPeriod), this::acquireTick);
        }
        workStopped
                .orTimeout(leaseDuration.toNanos(), TimeUnit.NANOSECONDS)
                .whenComplete((ok, error) ->
                        scheduler.schedule(Duration.ZERO, () -> releaseAfterYield(preferred, endedTerm, error)));
    }

    /**
     * Releases after a yield once the ended term's work has stopped, unless a newer term has begun since: the lease we
     * hold now is that term's, whose callbacks may still be queued, and its own end releases it.
     */
    private synchronized void releaseAfterYield(String preferred, long endedTerm, Throwable stopError) {
        if (stopError != null) {
            LOG.warning(identity + ": onStoppedLeading did not complete (" + stopError + "), so " + lease
                    + " is not released to " + preferred + "; it expires by itself");
            return;
        }
        boolean newerTerm;
        synchronized (termLock) {
            newerTerm = termSeq != endedTerm;
        }
        if (!newerTerm && !leadingView && observed != null && observed.record().isHeldBy(identity)) {
            writeRelease(observed.record());
        }
    }

    private void writeRelease(LeaseRecord held) {
        Instant deadline = monotonic.instant().plus(renewDeadline);
        try {
            wrote(call(deadline, () -> store.update(lease, LeaseRules.releasedRecord(held, clock.instant()))));
        } catch (LeaseConflict e) {
            // Someone else wrote since; read once and release only if it is still ours.
            try {
                LeaseRecord current = call(deadline, () -> store.get(lease));
                Optional<LeaseRecord> release = LeaseRules.release(current, identity, clock.instant());
                if (release.isPresent()) {
                    wrote(call(deadline, () -> store.update(lease, release.get())));
                }
            } catch (LeaseStoreException again) {
                LOG.info(identity + ": release of " + lease + " failed, it will expire: " + again.getMessage());
            }
        } catch (LeaseStoreException e) {
            LOG.info(identity + ": release of " + lease + " failed, it will expire: " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ the term and its fence

    private void beginTerm(Instant renewStart) {
        synchronized (termLock) {
            termActive = true;
            long seq = ++termSeq;
            fenceAt = renewStart.plus(renewDeadline);
            fenceAtView = fenceAt;
            lastRenewView = renewStart;
            leadingView = true;
            fenceTask = fenceScheduler.schedule(Duration.between(monotonic.instant(), fenceAt), () -> fence(seq));
            metrics.leadershipChanged(lease, true);
            LOG.info(() -> identity + " became leader of " + lease);
            // handed over under the term lock, so a term's start and stop reach the executor in order; a start that
            // reaches the front of the queue after its term has ended never runs (its stop is queued behind it)
            callbackExecutor.execute(() -> {
                if (termIsCurrent(seq)) {
                    onStartedLeading.run();
                }
            });
        }
    }

    /** Whether term {@code seq} is the active one. */
    private boolean termIsCurrent(long seq) {
        synchronized (termLock) {
            return termActive && termSeq == seq;
        }
    }

    /** A renew that started at {@code renewStart} succeeded in time: move the fence, unless the term already ended. */
    private boolean extendTerm(Instant renewStart) {
        synchronized (termLock) {
            if (!termActive) {
                return false;
            }
            Instant f = renewStart.plus(renewDeadline);
            if (f.isAfter(fenceAt)) {
                fenceAt = f;
                fenceAtView = f;
            }
            lastRenewView = renewStart;
            return true;
        }
    }

    /** The fence timer: ends term {@code seq} at its deadline, whatever the loop is doing. */
    // endTerm's future (onStoppedLeading done) matters only to a release; the fence writes none
    @SuppressWarnings("FutureReturnValueIgnored")
    private void fence(long seq) {
        synchronized (termLock) {
            if (!termActive || termSeq != seq) {
                return;
            }
            Instant now = monotonic.instant();
            if (now.isBefore(fenceAt)) { // renewed since the timer was set
                fenceTask = fenceScheduler.schedule(Duration.between(now, fenceAt), () -> fence(seq));
                return;
            }
        }
        endTerm("renewDeadline " + renewDeadline + " passed without a successful renew (fenced)", seq);
    }

    /**
     * Ends the current term ({@code seq}, or whichever is active for -1): {@link #isLeader()} turns false at
     * once and onStoppedLeading is handed to the callback executor. Returns a future that completes when every
     * stop callback handed over so far has completed (at once when there was nothing to stop).
     */
    private CompletableFuture<Void> endTerm(String why, long seq) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (termLock) {
            if (!termActive || (seq != -1 && seq != termSeq)) {
                return lastStop;
            }
            termActive = false;
            leadingView = false;
            if (fenceTask != null) {
                fenceTask.cancel();
                fenceTask = null;
            }
            lastStop = lastStop.thenCombine(done, (a, b) -> null);
            metrics.leadershipChanged(lease, false);
            LOG.info(() -> identity + " stopped leading " + lease + ": " + why);
            // under the term lock: a new term cannot hand its onStartedLeading over before this stop
            fireStopped(done);
            return lastStop;
        }
    }

    /** Hands onStoppedLeading to the callback executor; {@code done} completes when it has run (exceptionally if it threw). */
    private void fireStopped(CompletableFuture<Void> done) {
        if (stopsInFlight.getAndIncrement() == 0) {
            stoppingSince = monotonic.instant();
        }
        Runnable task = () -> {
            try {
                onStoppedLeading.run();
                done.complete(null);
            } catch (RuntimeException | Error e) {
                done.completeExceptionally(e);
                throw e;
            } finally {
                stopsInFlight.decrementAndGet();
            }
        };
        try {
            callbackExecutor.execute(task);
        } catch (RejectedExecutionException e) {
            stopsInFlight.decrementAndGet();
            done.completeExceptionally(e);
        }
    }

    /** Step down (the term ends, the callback fires) and contend again later. */
    // endTerm's future (onStoppedLeading done) matters only to a release; stepping down writes none
    @SuppressWarnings("FutureReturnValueIgnored")
    private void stepDown(String why) {
        endTerm(why, -1);
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

    private void stop(boolean release) {
        CompletableFuture<Void> workStopped;
        boolean held;
        synchronized (this) {
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
            held = observed != null && observed.record().isHeldBy(identity);
            boolean wasLeading;
            synchronized (termLock) {
                wasLeading = termActive;
            }
            if (wasLeading) {
                workStopped = endTerm("stopped", -1);
            } else {
                // Always fires, like client-go's deferred OnStoppedLeading.
                CompletableFuture<Void> done = new CompletableFuture<>();
                synchronized (termLock) {
                    lastStop = lastStop.thenCombine(done, (a, b) -> null);
                    workStopped = lastStop;
                    fireStopped(done);
                }
            }
        }
        if (!release || !held) {
            return;
        }
        // Outside the lock: the callback may need the elector (isLeader, health) while it stops the work.
        try {
            workStopped.get(leaseDuration.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warning(identity + ": interrupted while waiting for onStoppedLeading; " + lease
                    + " is not released, it expires");
            return;
        } catch (ExecutionException | TimeoutException e) {
            LOG.warning(identity + ": onStoppedLeading did not complete (" + e + "); " + lease
                    + " is not released, it expires");
            return;
        }
        synchronized (this) {
            if (observed != null && observed.record().isHeldBy(identity)) {
                writeRelease(observed.record());
            }
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
        private Scheduler fenceScheduler;
        private ExecutorService storeCalls;
        private InstantSource clock;
        private InstantSource monotonic;
        private RandomGenerator random;
        private Executor callbackExecutor = Runnable::run;
        private Runnable onStartedLeading = () -> {};
        private Runnable onStoppedLeading = () -> {};
        private Consumer<String> onNewLeader = id -> {};
        private ElectionMetrics metrics = ElectionMetrics.NONE;

        private Builder() {}

        public Builder lease(LeaseKey v) {
            this.lease = v;
            return this;
        }

        public Builder identity(String v) {
            this.identity = v;
            return this;
        }
        /** How long contenders wait, after last seeing the lease change, before taking it. Default 15 s. */
        public Builder leaseDuration(Duration v) {
            this.leaseDuration = v;
            return this;
        }
        /** How long the leader keeps trying to renew before giving up. Default 10 s. */
        public Builder renewDeadline(Duration v) {
            this.renewDeadline = v;
            return this;
        }
        /** Interval between attempts. Default 2 s. */
        public Builder retryPeriod(Duration v) {
            this.retryPeriod = v;
            return this;
        }
        /** Extra time past leaseDuration before the health probe reports a stuck leader. Default 20 s. */
        public Builder healthGrace(Duration v) {
            this.healthGrace = v;
            return this;
        }
        /** Release the lease on {@link #stop()} (client-go ReleaseOnCancel). Default true. */
        public Builder releaseOnStop(boolean v) {
            this.releaseOnStop = v;
            return this;
        }
        /**
         * Coordinated leader election: never create or acquire the lease (a controller assigns
         * the holder), only renew it while it names us, and yield to a preferredHolder.
         */
        public Builder coordinated(boolean v) {
            this.coordinated = v;
            return this;
        }

        public Builder store(LeaseStore v) {
            this.store = v;
            return this;
        }

        public Builder scheduler(Scheduler v) {
            this.scheduler = v;
            return this;
        }
        /**
         * Runs the fence timer. Give it a thread of its own in production, so a loop blocked in a store call
         * (or a busy loop thread) cannot delay the end of a term; default: the loop's scheduler (virtual-time tests).
         */
        public Builder fenceScheduler(Scheduler v) {
            this.fenceScheduler = v;
            return this;
        }
        /**
         * Where store calls run, so the loop can stop waiting for one when its attempt's budget ends (client-go's
         * context deadline). Default: none — calls run on the loop thread, unbounded (virtual-time tests).
         */
        public Builder storeCalls(ExecutorService v) {
            this.storeCalls = v;
            return this;
        }
        /** Wall clock: only for the renewTime/acquireTime written into the lease. */
        public Builder clock(InstantSource v) {
            this.clock = v;
            return this;
        }
        /**
         * The clock every interval is measured on (observation, fence, expiry, health): must not step when
         * the wall clock does — {@link MonotonicClock#system()} in production.
         */
        public Builder monotonic(InstantSource v) {
            this.monotonic = v;
            return this;
        }
        /** Source of jitter; seed it in tests. */
        public Builder random(RandomGenerator v) {
            this.random = v;
            return this;
        }
        /**
         * Where callbacks run; default: on the election thread (keep them short, or pass an executor). A
         * release waits for onStoppedLeading to complete, wherever it runs.
         */
        public Builder callbackExecutor(Executor v) {
            this.callbackExecutor = v;
            return this;
        }

        public Builder onStartedLeading(Runnable v) {
            this.onStartedLeading = v;
            return this;
        }
        /** Fires on every loss of leadership and once on stop, whether or not it was leading. */
        public Builder onStoppedLeading(Runnable v) {
            this.onStoppedLeading = v;
            return this;
        }
        /** Fires when a different holder (including ourselves) is observed. */
        public Builder onNewLeader(Consumer<String> v) {
            this.onNewLeader = v;
            return this;
        }

        public Builder metrics(ElectionMetrics v) {
            this.metrics = v;
            return this;
        }

        public LeaderElector build() {
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
            require(
                    retryPeriod.compareTo(Duration.ZERO) > 0,
                    "retryPeriod (" + retryPeriod + ") must be greater than 0");
            Duration jitteredRetry = Duration.ofNanos((long) (retryPeriod.toNanos() * JITTER_FACTOR));
            require(
                    renewDeadline.compareTo(jitteredRetry) > 0,
                    "renewDeadline (" + renewDeadline + ") must be greater than 1.2 × retryPeriod (" + jitteredRetry
                            + ")");
            require(
                    leaseDuration.compareTo(renewDeadline) > 0,
                    "leaseDuration (" + leaseDuration + ") must be greater than renewDeadline (" + renewDeadline + ")");
            require(
                    leaseDuration.compareTo(Duration.ofSeconds(1)) >= 0,
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
