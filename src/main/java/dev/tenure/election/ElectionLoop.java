package dev.tenure.election;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The election loop of a {@link LeaderElector}: contend, renew, react to the watch, yield and release. It reads and
 * writes through {@link BudgetedStoreCalls}, remembers what it saw in a {@link LeaseObservation}, and begins, extends
 * and ends the {@link LeadershipTerm}, whose fence may end a term while the loop is busy.
 *
 * <p>Every tick runs on the injected scheduler under this object's lock; the term's own lock is never taken across
 * I/O, so the loop being stuck in a call never delays the fence.
 *
 * <p>One file over ~400 lines, on purpose: contend, renew, the watch, the evidence takeover, yield and release are
 * the ticks of one state machine under this object's lock, and their orderings (no renew after a stop, no release
 * before the term ends) are what the fence tests prove; the store budget, the observation and the term are already
 * classes of their own.
 */
final class ElectionLoop {
    private static final Logger LOG = Logger.getLogger(LeaderElector.class.getName());

    private final ElectionConfig config;
    private final LeadershipTerm term;
    private final LeaseObservation seen;
    private final BudgetedStoreCalls calls;
    /** Evidence that a holder's process has ended, or null: wait out every lease. */
    private final ProcessEvidence evidence;

    // Guarded by this.
    /** When the last decision to wait said the observed holder's lease runs out (observer view); null otherwise. */
    private Instant waitUntil;

    private boolean started;
    private boolean stopped;
    private Scheduler.Scheduled pending;
    private LeaseStore.LeaseWatch watch;
    private String lastFailureLogged;
    private AutoCloseable evidenceChanges;
    private String lastEvidenceLogged;
    /** A takeover on evidence whose write got no answer (abandoned at its budget): it may have landed. */
    private UnansweredTakeover unansweredTakeover;

    ElectionLoop(ElectionConfig config, LeadershipTerm term, LeaseObservation seen, ProcessEvidence evidence) {
        this.config = config;
        this.term = term;
        this.seen = seen;
        this.calls = new BudgetedStoreCalls(config);
        this.evidence = config.coordinated() ? null : evidence; // coordinated: the controller assigns the holder
    }

    /** Opens the watch and starts contending at once. May be called once. */
    synchronized void start() {
        if (started) {
            throw new IllegalStateException(
                    "elector " + config.identity() + " on " + config.lease() + " was already started");
        }
        started = true;
        try {
            watch = config.store().watch(config.lease(), rec -> {
                long heardAs = seen.heard(rec);
                config.scheduler().schedule(Duration.ZERO, () -> onWatched(rec, heardAs));
            });
        } catch (RuntimeException e) {
            // Polling still works; the watch only makes foreign writes visible sooner.
            LOG.log(Level.WARNING, "cannot watch lease " + config.lease() + ", relying on polling", e);
        }
        if (evidence != null) {
            try {
                evidenceChanges =
                        evidence.onChange(() -> config.scheduler().schedule(Duration.ZERO, this::evidenceTick));
            } catch (RuntimeException e) {
                LOG.log(
                        Level.WARNING,
                        "cannot follow evidence of death for " + config.lease() + ", checking on retries",
                        e);
            }
        }
        next(Duration.ZERO, this::acquireTick);
    }

    // ------------------------------------------------------------------ ticks

    private synchronized void acquireTick() {
        pending = null;
        if (stopped) {
            return;
        }
        Instant start = config.monotonic().instant();
        afterAcquireAttempt(start, attempt(start, start.plus(config.renewDeadline())));
    }

    /** New evidence may have arrived: a contender waiting for a holder looks now instead of at its next retry. */
    private synchronized void evidenceTick() {
        if (stopped || term.leading()) {
            return;
        }
        Instant start = config.monotonic().instant();
        if (takeOverOnEvidence(start.plus(config.renewDeadline())) == Outcome.LEADING) {
            afterAcquireAttempt(start, Outcome.LEADING);
        }
    }

    private void afterAcquireAttempt(Instant start, Outcome outcome) {
        // An answer slower than renewDeadline gives a term that has already ended: retry instead.
        if (outcome == Outcome.LEADING && config.monotonic().instant().isBefore(start.plus(config.renewDeadline()))) {
            term.begin(start);
            next(config.retryPeriod(), this::renewTick);
        } else if (outcome == Outcome.NOT_LEADING) {
            next(untilNextTry(), this::acquireTick);
        } else if (outcome != Outcome.YIELDED) {
            next(jittered(config.retryPeriod()), this::acquireTick);
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
        Duration retry = jittered(config.retryPeriod());
        if (waitUntil == null) {
            return retry;
        }
        Duration toExpiry = Duration.between(config.monotonic().instant(), waitUntil);
        return toExpiry.isNegative() || toExpiry.isZero() || toExpiry.compareTo(retry) >= 0 ? retry : toExpiry;
    }

    private synchronized void renewTick() {
        pending = null;
        if (stopped) {
            return;
        }
        if (!term.leading()) { // the fence ended the term while this tick waited
            next(jittered(config.retryPeriod()), this::acquireTick);
            return;
        }
        Duration renewDeadline = config.renewDeadline();
        Instant start = config.monotonic().instant();
        Instant deadline = term.fenceAt();
        if (!start.isBefore(deadline)) {
            stepDown("no successful renew within renewDeadline " + renewDeadline);
            return;
        }
        Outcome outcome = attempt(start, deadline);
        Instant end = config.monotonic().instant();
        switch (outcome) {
            case LEADING -> {
                if (end.isBefore(start.plus(renewDeadline)) && term.extend(start)) {
                    config.metrics().renewSucceeded(config.lease(), Duration.between(start, end));
                    next(config.retryPeriod(), this::renewTick);
                } else {
                    // The answer came too late to rely on, or the fence already ended the term.
                    stepDown("renew answered after renewDeadline");
                }
            }
            case YIELDED -> {} // yieldTo() stepped down and scheduled what comes next
            case GONE -> stepDown("lease was deleted");
            case NOT_LEADING -> stepDown("lease is held by " + seen.holderSeen());
            case FAILED -> {
                if (!end.isBefore(deadline)) {
                    stepDown("no successful renew within renewDeadline " + renewDeadline);
                } else {
                    Duration left = Duration.between(end, deadline);
                    next(left.compareTo(config.retryPeriod()) < 0 ? left : config.retryPeriod(), this::renewTick);
                }
            }
        }
    }

    private synchronized void onWatched(Optional<LeaseRecord> event, long heardAs) {
        seen.handling(event);
        if (stopped) {
            return;
        }
        if (event.isPresent() && term.leading() && !seen.heldWithoutRival(event.get())) {
            event = confirmed(event.get());
        }
        if (event.isEmpty()) {
            boolean wasLeading = term.leading();
            seen.forget();
            if (wasLeading) {
                stepDown("lease was deleted");
            } else {
                acquireOnEvent();
            }
            return;
        }
        LeaseRecord rec = event.get();
        observe(rec, heardAs);
        if (!term.leading()) {
            acquireOnEvent();
            return;
        }
        String identity = config.identity();
        if (!rec.isHeldBy(identity)) {
            stepDown("lease was taken by " + rec.holderIdentity());
        } else if (rec.deletionRequested()) {
            yieldTo(""); // stop the work, then let the Lease go: only then can anyone start on a new one
        } else if (rec.preferredHolder() != null && !rec.preferredHolder().equals(identity)) {
            yieldTo(rec.preferredHolder());
        } else if (seen.shortenedByAnother(rec)) {
            // Contenders count expiry from the record's duration: with a shorter one (a hand edit, 15 → 1) they may
            // take over before our fence. End the term now; a fresh read first, so a stale event cannot end it.
            Optional<LeaseRecord> current = confirmed(rec);
            if (current.isPresent() && current.get().isHeldBy(identity) && seen.shortenedByAnother(current.get())) {
                stepDown("lease duration was edited to " + current.get().leaseDurationSeconds()
                        + " s by another writer, shorter than our " + config.leaseDuration()
                        + ": contenders may take over before our fence");
            }
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
        if (seen.holderHeardSince()) {
            // A later event naming a holder is queued behind this one: this one is stale, act on that one.
            return;
        }
        Instant start = config.monotonic().instant();
        ElectionDecision decision = seen.decide(start, term.leading());
        if (!(decision instanceof ElectionDecision.Create || decision instanceof ElectionDecision.Write)) {
            return;
        }
        Outcome outcome;
        try {
            outcome = apply(decision, start.plus(config.renewDeadline()));
        } catch (LeaseConflict e) {
            LOG.fine(() -> config.identity() + ": " + config.lease()
                    + " changed before our write on the watch event; retrying later");
            seen.lostCreateRace(e);
            outcome = Outcome.NOT_LEADING;
        } catch (LeaseStoreException e) {
            outcome = failed(e);
        }
        afterAcquireAttempt(start, outcome);
    }

    /**
     * A watch may deliver an event written before our own latest write (e.g. the previous holder's last
     * renew arriving after we acquired): stepping down on it would drop a valid leadership, and the
     * operator exits on a lost leadership. Before giving up, one read decides; if the read fails, the
     * event stands (stepping down is the safe side). Empty when the read finds the lease gone.
     */
    private Optional<LeaseRecord> confirmed(LeaseRecord fromWatch) {
        try {
            return calls.call(
                    config.monotonic().instant().plus(config.retryPeriod()),
                    () -> config.store().find(config.lease()));
        } catch (LeaseStoreException e) {
            return Optional.of(fromWatch);
        }
    }

    // ------------------------------------------------------------------ one attempt

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
        if (term.leading() && seen.heldByUs()) {
            try {
                return apply(seen.decide(start, term.leading()), deadline);
            } catch (LeaseNotFound gone) {
                seen.foundGone();
                return Outcome.GONE;
            } catch (LeaseStoreException e) {
                LOG.fine(() -> config.identity() + ": optimistic renew of " + config.lease() + " failed ("
                        + e.getMessage() + "), reading once");
            }
        }
        try {
            observe(calls.call(deadline, () -> config.store().get(config.lease())));
        } catch (LeaseNotFound e) {
            boolean wasLeading = term.leading();
            seen.foundGone();
            if (wasLeading) {
                return Outcome.GONE;
            }
        } catch (LeaseStoreException e) {
            return failed(e);
        }
        try {
            Outcome outcome = apply(seen.decide(config.monotonic().instant(), term.leading()), deadline);
            return outcome == Outcome.NOT_LEADING && waitUntil != null ? takeOverOnEvidence(deadline) : outcome;
        } catch (LeaseConflict e) {
            seen.lostCreateRace(e);
            return term.leading() ? failed(e) : Outcome.NOT_LEADING;
        } catch (LeaseStoreException e) {
            return failed(e);
        }
    }

    private Outcome apply(ElectionDecision decision, Instant deadline) {
        // Coordinated candidates never take a lease themselves (the controller assigns it): no expiry to aim at.
        waitUntil = !config.coordinated() && decision instanceof ElectionDecision.Wait wait ? wait.until() : null;
        if (decision instanceof ElectionDecision.Create create) {
            wrote(calls.call(deadline, () -> config.store().create(config.lease(), create.desired())));
            return Outcome.LEADING;
        } else if (decision instanceof ElectionDecision.Write write) {
            wrote(calls.call(deadline, () -> config.store().update(config.lease(), write.desired())));
            return Outcome.LEADING;
        } else if (decision instanceof ElectionDecision.Yield yield) {
            yieldTo(yield.preferredHolder());
            return Outcome.YIELDED;
        } else if (decision instanceof ElectionDecision.FinishDeletion finish) {
            calls.call(deadline, () -> config.store().update(config.lease(), finish.released()));
            LOG.info(() -> config.identity() + ": " + config.lease()
                    + " was being deleted and its holder had expired; let it go");
            seen.letGo();
            return Outcome.NOT_LEADING;
        } else {
            return Outcome.NOT_LEADING;
        }
    }

    /**
     * Evidence of death: while we wait for another holder's lease to expire, asks the {@link ProcessEvidence} whether
     * that holder's process has ended, and if the API server shows it has, takes the lease now
     * ({@link LeaseRules#takeOverOnEvidence}: a change of holder, conditional on the version judged). Anything short
     * of that evidence (an error, a verdict of unknown, a lost race) leaves us waiting as before.
     */
    private Outcome takeOverOnEvidence(Instant deadline) {
        LeaseRecord held = seen.record();
        if (evidence == null
                || term.leading()
                || held == null
                || !held.hasHolder()
                || held.isHeldBy(config.identity())) {
            return Outcome.NOT_LEADING;
        }
        ProcessEnd verdict;
        try {
            verdict = calls.call(deadline, () -> evidence.judge(config.lease(), held));
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, config.identity() + ": no evidence of death for " + config.lease(), e);
            return Outcome.NOT_LEADING;
        }
        Optional<LeaseRecord> desired = LeaseRules.takeOverOnEvidence(
                config.identity(), held, verdict, config.clock().instant(), config.leaseDuration());
        if (desired.isEmpty() || !(verdict instanceof ProcessEnd.Ended ended)) {
            if (verdict instanceof ProcessEnd.Unknown unknown && !unknown.why().equals(lastEvidenceLogged)) {
                lastEvidenceLogged = unknown.why();
                LOG.fine(() -> config.identity() + ": waiting out " + config.lease() + " of " + held.holderIdentity()
                        + ": " + unknown.why());
            }
            return Outcome.NOT_LEADING;
        }
        try {
            wrote(calls.call(deadline, () -> config.store().update(config.lease(), desired.get())));
        } catch (LeaseConflict | LeaseNotFound e) {
            LOG.info(config.identity() + ": takeover of " + config.lease() + " on evidence of death did not land ("
                    + e.getMessage() + "); waiting as before");
            return Outcome.NOT_LEADING;
        } catch (LeaseStoreException e) {
            // No answer (abandoned at the budget, a broken connection): the write may still land. If it does, the
            // record we then observe is ours, written on the same evidence, and is adopted as such (observe) rather
            // than waited out as a stranger's for a whole leaseDuration.
            unansweredTakeover = new UnansweredTakeover(desired.get(), held, ended);
            LOG.info(config.identity() + ": takeover of " + config.lease() + " on evidence of death got no answer ("
                    + e.getMessage() + "); it is ours if it landed, else waiting as before");
            return Outcome.NOT_LEADING;
        }
        tookOver(held, seen.record(), ended);
        return Outcome.LEADING;
    }

    private void tookOver(LeaseRecord held, LeaseRecord taken, ProcessEnd.Ended ended) {
        LOG.warning(config.identity() + ": took " + config.lease() + " over from " + held.holderIdentity()
                + " before its lease expired, transitions " + taken.leaseTransitions() + ": " + ended.describe());
        config.metrics().tookOverOnEvidence(config.lease(), ended.reason());
        config.callbackExecutor().execute(() -> evidence.tookOver(config.lease(), held, taken, ended));
    }

    /**
     * Observes {@code rec}, read or watched. When it is the record of our unanswered takeover (it landed: the exact
     * record we wrote, on the version we judged), it is ours as if we had seen the answer: the next decision renews it
     * into a term at once (the term counts from that renew, never from the lost write), and the takeover is recorded.
     * Safe as the takeover itself was: the write was conditional on the version whose holder's process had ended, and
     * a record that matches it exactly was written by no one else. Any other record but the one we wrote over means
     * our write can no longer land: forgotten.
     */
    private void observe(LeaseRecord rec) {
        observe(rec, Long.MAX_VALUE);
    }

    /** {@link #observe(LeaseRecord)} of a watch event, counted {@code heardAs} ({@link LeaseObservation#observe}). */
    private void observe(LeaseRecord rec, long heardAs) {
        seen.observe(rec, heardAs);
        UnansweredTakeover pending = unansweredTakeover;
        if (pending == null
                || Objects.equals(rec.resourceVersion(), pending.desired().resourceVersion())) {
            return;
        }
        unansweredTakeover = null;
        if (!term.leading() && pending.landedAs(rec)) {
            seen.wrote(rec);
            tookOver(pending.held(), rec, pending.ended());
        }
    }

    /** A takeover write sent without an answer: what was written, over which record, on which evidence. */
    private record UnansweredTakeover(LeaseRecord desired, LeaseRecord held, ProcessEnd.Ended ended) {
        /** {@code rec} is exactly what we wrote (times as the API keeps them, in microseconds), at a later version. */
        boolean landedAs(LeaseRecord rec) {
            return rec.holderIdentity().equals(desired.holderIdentity())
                    && rec.leaseTransitions() == desired.leaseTransitions()
                    && Objects.equals(rec.leaseDurationSeconds(), desired.leaseDurationSeconds())
                    && sameMicros(rec.acquireTime(), desired.acquireTime())
                    && sameMicros(rec.renewTime(), desired.renewTime());
        }

        private static boolean sameMicros(Instant a, Instant b) {
            return a != null && b != null && a.truncatedTo(ChronoUnit.MICROS).equals(b.truncatedTo(ChronoUnit.MICROS));
        }
    }

    private void wrote(LeaseRecord rec) {
        lastFailureLogged = null;
        seen.wrote(rec);
    }

    private Outcome failed(LeaseStoreException e) {
        if (term.leading()) {
            config.metrics().renewFailed(config.lease(), e);
        }
        // Visible once per distinct cause (e.g. a missing namespace or RBAC), not once per retry.
        if (e instanceof LeaseStoreFailure && !String.valueOf(e.getMessage()).equals(lastFailureLogged)) {
            lastFailureLogged = String.valueOf(e.getMessage());
            LOG.warning(config.identity() + ": election on " + config.lease() + " failed, retrying: " + e.getMessage());
        } else {
            LOG.log(Level.FINE, config.identity() + ": attempt on " + config.lease() + " failed", e);
        }
        return Outcome.FAILED;
    }

    // ------------------------------------------------------------------ giving the lease up

    /** Step down (the term ends, the callback fires) and contend again later. */
    // end's future (onStoppedLeading done) matters only to a release; stepping down writes none
    @SuppressWarnings("FutureReturnValueIgnored")
    private void stepDown(String why) {
        term.end(why);
        if (!stopped) {
            next(jittered(config.retryPeriod()), this::acquireTick);
        }
    }

    /**
     * Gives the lease to {@code preferred}: the term ends (onStoppedLeading fires), and the release is written
     * only once that callback has completed — the successor may start the moment it sees the release.
     */
    // the release is chained on the term's end and runs on the scheduler; releaseAfterYield handles its own errors
    @SuppressWarnings("FutureReturnValueIgnored")
    private void yieldTo(String preferred) {
        long endedTerm = term.number();
        CompletableFuture<Void> workStopped = term.end(
                preferred.isEmpty()
                        ? "deletion of the lease was requested"
                        : "yielded to preferred holder " + preferred);
        if (!stopped) {
            next(jittered(config.retryPeriod()), this::acquireTick);
        }
        workStopped
                .orTimeout(config.leaseDuration().toNanos(), TimeUnit.NANOSECONDS)
                .whenComplete((ok, error) -> config.scheduler()
                        .schedule(Duration.ZERO, () -> releaseAfterYield(preferred, endedTerm, error)));
    }

    /**
     * Releases after a yield once the ended term's work has stopped, unless a newer term has begun since: the lease we
     * hold now is that term's, whose callbacks may still be queued, and its own end releases it.
     */
    private synchronized void releaseAfterYield(String preferred, long endedTerm, Throwable stopError) {
        if (stopError != null) {
            LOG.warning(config.identity() + ": onStoppedLeading did not complete (" + stopError + "), so "
                    + config.lease() + " is not released to " + preferred + "; it expires by itself");
            return;
        }
        if (!term.newerThan(endedTerm) && !term.leading() && seen.heldByUs()) {
            writeRelease(seen.record());
        }
    }

    /**
     * Stops: no more ticks, the watch closed, onStoppedLeading fired; then, with {@code release} and once that
     * callback has completed, releases a held lease. Waits for the callback at most leaseDuration.
     */
    void stop(boolean release) {
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
            if (evidenceChanges != null) {
                try {
                    evidenceChanges.close();
                } catch (Exception e) {
                    LOG.log(Level.FINE, "closing the evidence subscription of " + config.lease(), e);
                }
            }
            held = seen.heldByUs();
            workStopped = term.endForStop();
        }
        if (!release || !held) {
            return;
        }
        // Outside the lock: the callback may need the elector (isLeader, health) while it stops the work.
        try {
            workStopped.get(config.leaseDuration().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warning(config.identity() + ": interrupted while waiting for onStoppedLeading; " + config.lease()
                    + " is not released, it expires");
            return;
        } catch (ExecutionException | TimeoutException e) {
            LOG.warning(config.identity() + ": onStoppedLeading did not complete (" + e + "); " + config.lease()
                    + " is not released, it expires");
            return;
        }
        synchronized (this) {
            if (seen.heldByUs()) {
                writeRelease(seen.record());
            }
        }
    }

    private void writeRelease(LeaseRecord held) {
        LeaseStore store = config.store();
        LeaseKey lease = config.lease();
        Instant deadline = config.monotonic().instant().plus(config.renewDeadline());
        try {
            wrote(calls.call(
                    deadline,
                    () -> store.update(
                            lease,
                            LeaseRules.releasedRecord(held, config.clock().instant()))));
        } catch (LeaseConflict e) {
            // Someone else wrote since; read once and release only if it is still ours.
            try {
                LeaseRecord current = calls.call(deadline, () -> store.get(lease));
                Optional<LeaseRecord> release = LeaseRules.release(
                        current, config.identity(), config.clock().instant());
                if (release.isPresent()) {
                    wrote(calls.call(deadline, () -> store.update(lease, release.get())));
                }
            } catch (LeaseStoreException again) {
                LOG.info(
                        config.identity() + ": release of " + lease + " failed, it will expire: " + again.getMessage());
            }
        } catch (LeaseStoreException e) {
            LOG.info(config.identity() + ": release of " + lease + " failed, it will expire: " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ scheduling

    private void next(Duration delay, Runnable tick) {
        if (pending != null) {
            pending.cancel();
        }
        pending = config.scheduler().schedule(delay, tick);
    }

    /** retryPeriod × [1, 1 + JITTER_FACTOR): spreads contenders so they do not retry in lockstep. */
    private Duration jittered(Duration base) {
        return base.plusNanos((long)
                (base.toNanos() * ElectionConfig.JITTER_FACTOR * config.random().nextDouble()));
    }
}
