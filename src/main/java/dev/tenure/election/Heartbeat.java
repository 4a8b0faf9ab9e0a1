package dev.tenure.election;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.random.RandomGenerator;

/**
 * Keeps one lease renewed for one holder (kubelet node-lease controller parity):
 * <ul>
 *   <li>ensure: read, then create / renew / take over by {@link LeaseRules#claim}; on errors retry
 *   with backoff 100 ms doubling to a 7 s cap;</li>
 *   <li>renew every {@code renewInterval × [1, 1.04)} (kubelet's jitter) with an optimistic update
 *   from the last lease written (no read); up to 5 immediate tries, then
 *   {@code onRepeatedFailure} and the next interval; a 409 drops the cached lease so the next try
 *   reads again;</li>
 *   <li>owner reference: looked up through {@code owner} on every write until the lease has one;</li>
 *   <li>a lease validly held by someone else is reported to {@code onHeldElsewhere} and never
 *   overwritten; the heartbeat then stops.</li>
 * </ul>
 */
public final class Heartbeat {
    private static final Logger LOG = Logger.getLogger(Heartbeat.class.getName());
    static final Duration INITIAL_BACKOFF = Duration.ofMillis(100);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(7);
    static final int MAX_UPDATE_TRIES = 5;
    static final double JITTER = 0.04;

    private final LeaseKey lease;
    private final String holder;
    private final Duration leaseDuration;
    private final Duration renewInterval;
    private final Supplier<Optional<LeaseOwner>> owner;
    private final LeaseStore store;
    private final Scheduler scheduler;
    private final InstantSource clock;
    private final RandomGenerator random;
    private final LeaseClaims claims;
    private final Consumer<LeaseStoreException> onRepeatedFailure;
    private final Consumer<LeaseHeldElsewhere> onHeldElsewhere;

    // guarded by this
    private LeaseRecord latest;
    private Duration backoff = INITIAL_BACKOFF;
    private boolean running;
    private Scheduler.Scheduled pending;

    private Heartbeat(Builder b) {
        this.lease = b.lease;
        this.holder = b.holder;
        this.leaseDuration = b.leaseDuration;
        this.renewInterval = b.renewInterval;
        this.owner = b.owner;
        this.store = b.store;
        this.scheduler = b.scheduler;
        this.clock = b.clock;
        this.random = b.random;
        this.claims = new LeaseClaims(b.store, b.clock, b.futureTolerance);
        this.onRepeatedFailure = b.onRepeatedFailure;
        this.onHeldElsewhere = b.onHeldElsewhere;
    }

    public static Builder builder() {
        return new Builder();
    }

    public LeaseKey lease() {
        return lease;
    }

    public String holder() {
        return holder;
    }

    /** The duration every write of this heartbeat gives the lease. */
    public Duration leaseDuration() {
        return leaseDuration;
    }

    /** Starts ensuring and renewing at once. */
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        next(Duration.ZERO);
    }

    /** Stops renewing; the lease stays and expires by itself. */
    public synchronized void stop() {
        running = false;
        if (pending != null) {
            pending.cancel();
            pending = null;
        }
    }

    /** Stops and releases the lease if we still hold it; returns whether a release was written. */
    public boolean stopAndRelease() {
        stop();
        return claims.release(lease, holder);
    }

    public synchronized boolean isRunning() {
        return running;
    }

    /** The last lease this heartbeat wrote, if any. */
    public synchronized Optional<LeaseRecord> lastWritten() {
        return Optional.ofNullable(latest);
    }

    private synchronized void sync() {
        pending = null;
        if (!running) {
            return;
        }
        if (latest == null) {
            ensure();
            return;
        }
        LeaseStoreException last = null;
        for (int i = 0; i < MAX_UPDATE_TRIES && running; i++) {
            try {
                latest = store.update(
                        lease,
                        LeaseClaims.withOwner(
                                LeaseRules.heldRecord(latest, holder, clock.instant(), leaseDuration),
                                lookupOwner(latest)));
                next(jittered());
                return;
            } catch (LeaseConflict | LeaseNotFound e) {
                // Someone else wrote, or the lease is gone (e.g. garbage-collected with a re-registered Node):
                // ensure it again from a read, and never overwrite a valid foreign holder.
                latest = null;
                ensure();
                return;
            } catch (LeaseStoreException e) {
                last = e;
                LOG.log(Level.FINE, "heartbeat of " + lease + " failed", e);
                if (i > 0) {
                    onRepeatedFailure.accept(e); // kubelet: on every failure after the first
                }
            }
        }
        if (last != null) {
            LOG.warning("failed " + MAX_UPDATE_TRIES + " attempts to renew " + lease + ", ensuring it again in "
                    + renewInterval + ": " + last.getMessage());
            latest = null; // the next sync reads (and recreates when gone), as kubelet's sync does
        }
        next(jittered());
    }

    private void ensure() {
        try {
            ClaimResult r = claims.claim(lease, holder, leaseDuration, lookupOwner(null));
            backoff = INITIAL_BACKOFF;
            if (r instanceof LeaseHeldElsewhere held) {
                running = false;
                onHeldElsewhere.accept(held);
                return;
            }
            latest = r.held().orElseThrow();
            next(jittered());
        } catch (LeaseStoreException e) {
            // kubelet backoffEnsureLease: the wait doubles before it is taken (200 ms, 400 ms, ... 7 s)
            backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
            LOG.info("failed to ensure lease " + lease + ", retrying in " + backoff + ": " + e.getMessage());
            next(backoff);
        }
    }

    private Optional<LeaseOwner> lookupOwner(LeaseRecord current) {
        if (current != null && !current.owners().isEmpty()) {
            return Optional.empty();
        }
        try {
            return owner.get();
        } catch (RuntimeException e) {
            LOG.fine(() -> "owner lookup for " + lease + " failed, will retry on next renew: " + e.getMessage());
            return Optional.empty();
        }
    }

    private Duration jittered() {
        return renewInterval.plusNanos((long) (renewInterval.toNanos() * JITTER * random.nextDouble()));
    }

    private void next(Duration delay) {
        pending = scheduler.schedule(delay, this::sync);
    }

    /** Current backoff of the ensure loop (for tests and status). */
    synchronized Duration backoff() {
        return backoff;
    }

    /** Builds a {@link Heartbeat}. */
    public static final class Builder {
        private LeaseKey lease;
        private String holder;
        private Duration leaseDuration = Duration.ofSeconds(40);
        private Duration renewInterval;
        private Supplier<Optional<LeaseOwner>> owner = Optional::empty;
        private LeaseStore store;
        private Scheduler scheduler;
        private InstantSource clock;
        private RandomGenerator random;
        private Duration futureTolerance = LeaseClaims.DEFAULT_FUTURE_TOLERANCE;
        private Consumer<LeaseStoreException> onRepeatedFailure = e -> {};
        private Consumer<LeaseHeldElsewhere> onHeldElsewhere = h -> {};

        private Builder() {}

        public Builder lease(LeaseKey v) {
            this.lease = v;
            return this;
        }

        public Builder holder(String v) {
            this.holder = v;
            return this;
        }

        public Builder leaseDuration(Duration v) {
            this.leaseDuration = v;
            return this;
        }
        /** Default: a quarter of leaseDuration (kubelet: 10 s for 40 s). */
        public Builder renewInterval(Duration v) {
            this.renewInterval = v;
            return this;
        }
        /** Looked up on writes until the lease carries an owner reference; may throw or return empty. */
        public Builder owner(Supplier<Optional<LeaseOwner>> v) {
            this.owner = v;
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

        public Builder clock(InstantSource v) {
            this.clock = v;
            return this;
        }

        public Builder random(RandomGenerator v) {
            this.random = v;
            return this;
        }

        public Builder futureTolerance(Duration v) {
            this.futureTolerance = v;
            return this;
        }
        /** Called on each failed renew attempt after the first (kubelet onRepeatedHeartbeatFailure). */
        public Builder onRepeatedFailure(Consumer<LeaseStoreException> v) {
            this.onRepeatedFailure = v;
            return this;
        }
        /** Called (and the heartbeat stops) when the lease is validly held by someone else. */
        public Builder onHeldElsewhere(Consumer<LeaseHeldElsewhere> v) {
            this.onHeldElsewhere = v;
            return this;
        }

        public Heartbeat build() {
            req(lease != null, "lease must be set");
            req(holder != null && !holder.isBlank(), "holder must be non-empty");
            req(
                    store != null && scheduler != null && clock != null && random != null,
                    "store, scheduler, clock and random must be set");
            req(
                    leaseDuration != null && leaseDuration.compareTo(Duration.ofSeconds(1)) >= 0,
                    "leaseDuration must be at least 1s");
            if (renewInterval == null) {
                renewInterval = leaseDuration.dividedBy(4);
            }
            req(renewInterval.compareTo(Duration.ZERO) > 0, "renewInterval must be greater than 0");
            req(
                    renewInterval.multipliedBy(105).dividedBy(100).compareTo(leaseDuration) < 0,
                    "renewInterval (" + renewInterval + ") with jitter must be shorter than leaseDuration ("
                            + leaseDuration + ")");
            return new Heartbeat(this);
        }

        private static void req(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException("heartbeat config: " + message);
            }
        }
    }
}
