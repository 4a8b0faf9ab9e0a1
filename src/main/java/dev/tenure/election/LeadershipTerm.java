package dev.tenure.election;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * The term of a {@link LeaderElector} and its fence: whether it leads, until when ({@code lastRenewStart +
 * renewDeadline}), and the start and stop callbacks of each term. A timer on the fence scheduler ends a term at its
 * deadline whatever the election loop is doing, so a leader stuck in a slow store call still stops on time.
 *
 * <p>Guarded by its own small lock, never held across I/O or across a callback (callbacks are only handed to the
 * callback executor under it, so a term's start and stop reach the executor in order); the read methods use
 * volatile snapshots and take no lock, so they never wait for a wedged loop.
 */
final class LeadershipTerm {
    private static final Logger LOG = Logger.getLogger(LeaderElector.class.getName());

    private final ElectionConfig config;
    private final Object lock = new Object();

    // Guarded by lock.
    private boolean active;
    private long seq;
    private Instant fenceAt;
    private Scheduler.Scheduled fenceTask;
    private CompletableFuture<Void> lastStop = CompletableFuture.completedFuture(null);

    // Snapshots for readers that must not take a lock.
    private volatile boolean leadingView;
    private volatile Instant fenceAtView;
    private volatile Instant lastRenewView;
    private volatile Instant stoppingSince;
    private final AtomicInteger stopsInFlight = new AtomicInteger();

    LeadershipTerm(ElectionConfig config) {
        this.config = config;
    }

    // ------------------------------------------------------------------ read side (lock-free)

    /** In a term (the fence may still end it at any moment). */
    boolean leading() {
        return leadingView;
    }

    /** When the current term ends unless renewed. */
    Instant fenceAt() {
        return fenceAtView;
    }

    /** In a term and before its fence. */
    boolean isLeader() {
        Instant fence = fenceAtView;
        return leadingView && fence != null && config.monotonic().instant().isBefore(fence);
    }

    /** Time left before the fence; empty when not leading. */
    Optional<Duration> timeLeft() {
        Instant fence = fenceAtView;
        if (!leadingView || fence == null) {
            return Optional.empty();
        }
        Duration left = Duration.between(config.monotonic().instant(), fence);
        return left.isNegative() || left.isZero() ? Optional.empty() : Optional.of(left);
    }

    LeaderElector.Role role() {
        if (leadingView) {
            return LeaderElector.Role.LEADING;
        }
        return stopsInFlight.get() > 0 ? LeaderElector.Role.STEPPING_DOWN : LeaderElector.Role.STANDING_BY;
    }

    /**
     * Unhealthy when leading and not renewed for leaseDuration + grace (the loop is wedged), or when onStoppedLeading
     * has been running that long (the work will not stop). {@code holder}: the holder last observed.
     */
    ElectorHealth health(String holder) {
        LeaderElector.Role role = role();
        Instant last = lastRenewView;
        Instant now = config.monotonic().instant();
        Duration limit = config.leaseDuration().plus(config.healthGrace());
        if (role == LeaderElector.Role.STANDING_BY) {
            return new ElectorHealth(role, true, holder, last, "standing by");
        }
        if (role == LeaderElector.Role.STEPPING_DOWN) {
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

    // ------------------------------------------------------------------ the term

    /** The number of the current (or last) term. */
    long number() {
        synchronized (lock) {
            return seq;
        }
    }

    /** Whether a term newer than {@code number} has begun. */
    boolean newerThan(long number) {
        synchronized (lock) {
            return seq != number;
        }
    }

    /** A term begins with the write that started at {@code renewStart}; its fence is renewDeadline after that. */
    void begin(Instant renewStart) {
        synchronized (lock) {
            active = true;
            long term = ++seq;
            fenceAt = renewStart.plus(config.renewDeadline());
            fenceAtView = fenceAt;
            lastRenewView = renewStart;
            leadingView = true;
            fenceTask = config.fenceScheduler()
                    .schedule(Duration.between(config.monotonic().instant(), fenceAt), () -> fence(term));
            config.metrics().leadershipChanged(config.lease(), true);
            LOG.info(() -> config.identity() + " became leader of " + config.lease());
            // handed over under the term lock, so a term's start and stop reach the executor in order; a start that
            // reaches the front of the queue after its term has ended never runs (its stop is queued behind it)
            config.callbackExecutor().execute(() -> {
                if (isCurrent(term)) {
                    config.onStartedLeading().run();
                }
            });
        }
    }

    /** Whether term {@code term} is the active one. */
    private boolean isCurrent(long term) {
        synchronized (lock) {
            return active && seq == term;
        }
    }

    /** A renew that started at {@code renewStart} succeeded in time: move the fence, unless the term already ended. */
    boolean extend(Instant renewStart) {
        synchronized (lock) {
            if (!active) {
                return false;
            }
            Instant f = renewStart.plus(config.renewDeadline());
            if (f.isAfter(fenceAt)) {
                fenceAt = f;
                fenceAtView = f;
            }
            lastRenewView = renewStart;
            return true;
        }
    }

    /** The fence timer: ends term {@code term} at its deadline, whatever the loop is doing. */
    // end's future (onStoppedLeading done) matters only to a release; the fence writes none
    @SuppressWarnings("FutureReturnValueIgnored")
    private void fence(long term) {
        synchronized (lock) {
            if (!active || seq != term) {
                return;
            }
            Instant now = config.monotonic().instant();
            if (now.isBefore(fenceAt)) { // renewed since the timer was set
                fenceTask = config.fenceScheduler().schedule(Duration.between(now, fenceAt), () -> fence(term));
                return;
            }
        }
        end("renewDeadline " + config.renewDeadline() + " passed without a successful renew (fenced)", term);
    }

    /** Ends whichever term is active; see {@link #end(String, long)}. */
    CompletableFuture<Void> end(String why) {
        return end(why, -1);
    }

    /**
     * Ends the current term ({@code term}, or whichever is active for -1): {@link #isLeader()} turns false at
     * once and onStoppedLeading is handed to the callback executor. Returns a future that completes when every
     * stop callback handed over so far has completed (at once when there was nothing to stop).
     */
    private CompletableFuture<Void> end(String why, long term) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (lock) {
            if (!active || (term != -1 && term != seq)) {
                return lastStop;
            }
            active = false;
            leadingView = false;
            if (fenceTask != null) {
                fenceTask.cancel();
                fenceTask = null;
            }
            lastStop = lastStop.thenCombine(done, (a, b) -> null);
            config.metrics().leadershipChanged(config.lease(), false);
            LOG.info(() -> config.identity() + " stopped leading " + config.lease() + ": " + why);
            // under the term lock: a new term cannot hand its onStartedLeading over before this stop
            fireStopped(done);
            return lastStop;
        }
    }

    /**
     * The elector stops: ends the active term, or, when there is none, still fires onStoppedLeading once (like
     * client-go's deferred OnStoppedLeading). Returns when every stop callback handed over so far has completed.
     */
    CompletableFuture<Void> endForStop() {
        synchronized (lock) {
            if (active) {
                return end("stopped");
            }
            CompletableFuture<Void> done = new CompletableFuture<>();
            lastStop = lastStop.thenCombine(done, (a, b) -> null);
            fireStopped(done);
            return lastStop;
        }
    }

    /** Hands onStoppedLeading to the callback executor; {@code done} completes when it has run (exceptionally if it threw). */
    private void fireStopped(CompletableFuture<Void> done) {
        if (stopsInFlight.getAndIncrement() == 0) {
            stoppingSince = config.monotonic().instant();
        }
        Runnable task = () -> {
            try {
                config.onStoppedLeading().run();
                done.complete(null);
            } catch (RuntimeException | Error e) {
                done.completeExceptionally(e);
                throw e;
            } finally {
                stopsInFlight.decrementAndGet();
            }
        };
        try {
            config.callbackExecutor().execute(task);
        } catch (RejectedExecutionException e) {
            stopsInFlight.decrementAndGet();
            done.completeExceptionally(e);
        }
    }
}
