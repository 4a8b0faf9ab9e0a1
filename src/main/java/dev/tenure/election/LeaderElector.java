package dev.tenure.election;

import java.time.Duration;
import java.util.Optional;

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
 *   leading), like client-go's context deadline: store calls run on {@link ElectionConfig.Settings#storeCalls}
 *   (by default a pool of the elector's own), so the loop stops waiting when the budget ends and treats the call
 *   as failed.</li>
 *   <li>Intervals (when a record was seen to change, the fence, expiry, health) are measured on
 *   the {@linkplain ElectionConfig.Settings#monotonic monotonic} clock; the wall clock only stamps
 *   renewTime/acquireTime into the record. A wall-clock step moves no deadline.</li>
 *   <li><b>Stop before release.</b> A release (on {@link #stop()} or when yielding to a
 *   {@code preferredHolder}) is written only after onStoppedLeading has completed; if it does not
 *   complete within leaseDuration, nothing is released and the lease expires by itself.</li>
 *   <li>One watch on the lease shows foreign writes at once: a {@code preferredHolder} naming
 *   someone else makes the leader yield, a deletion makes it step down, and a contender acquires a
 *   lease it sees released (or, coordinated, assigned to it) on the event rather than at its next
 *   retry. A lease deleted while someone held it is not free at once: contenders wait a whole
 *   leaseDuration from when they saw the deletion, as if the record had just been renewed.</li>
 *   <li><b>Evidence of death</b> (optional, {@link Builder#processEvidence}): a contender waiting for another
 *   holder's lease asks the {@link ProcessEvidence} port, on each try and whenever it reports a change, whether the
 *   exact process holding it has ended ({@link ProcessEndRule}); only on that positive evidence does it take the
 *   lease before expiry, as a change of holder (leaseTransitions + 1) conditional on the version judged, counted in
 *   {@link ElectionMetrics#tookOverOnEvidence} and recorded by the port. Anything else waits out the lease.</li>
 * </ul>
 *
 * In parts, by role: the checked {@link ElectionConfig} (shared with {@link Candidate}); the {@link ElectionLoop},
 * whose work runs on the injected {@link Scheduler} under its lock; the {@link LeadershipTerm} and its fence (leading
 * or not, and until when), with its own small lock that is never held across I/O or callbacks, so the fence and the
 * public read methods never wait for a wedged loop; the {@link LeaseObservation} (what the loop has seen of the
 * lease); and {@link BudgetedStoreCalls} (every store call bounded by its attempt's budget).
 */
public final class LeaderElector {
    /** client-go JitterFactor: acquire retries wait retryPeriod × [1, 1 + 1.2). */
    public static final double JITTER_FACTOR = ElectionConfig.JITTER_FACTOR;

    /** What a replica is doing about this lease, for readiness and health. */
    public enum Role {
        /** Holds the lease and is inside its fence. */
        LEADING,
        /** Gave leadership up and onStoppedLeading has not finished yet: work may still be stopping. */
        STEPPING_DOWN,
        /** Not leading, no work left to stop. */
        STANDING_BY
    }

    private final ElectionConfig config;
    private final LeadershipTerm term;
    private final LeaseObservation seen;
    private final ElectionLoop loop;
    private final ElectorThreads threads;

    /**
     * An elector with a checked configuration (see {@link #builder()}), owning {@code threads}; with {@code evidence}
     * (may be null) it takes a lease over before it expires on evidence that its holder's process ended.
     */
    LeaderElector(ElectionConfig config, ElectorThreads threads, ProcessEvidence evidence) {
        this.config = config;
        this.threads = threads;
        this.term = new LeadershipTerm(config);
        this.seen = new LeaseObservation(config);
        this.loop = new ElectionLoop(config, term, seen, evidence);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Opens the watch and starts contending at once. May be called once. */
    public void start() {
        loop.start();
    }

    /**
     * Stops; fires onStoppedLeading and, once it has completed, releases a held lease (unless built
     * with releaseOnStop(false)). Waits for the callback at most leaseDuration: do not call this
     * from the callback executor's own thread. Then ends the threads the elector started for itself.
     */
    public void stop() {
        loop.stop(config.releaseOnStop());
        threads.close();
    }

    /**
     * Stops like a crashed process would: no release, the lease expires by itself. onStoppedLeading still fires, and
     * the threads the elector started for itself end once it has returned.
     */
    public void stopWithoutRelease() {
        loop.stop(false);
        threads.close();
    }

    /** Whether this elector holds the lease now: in a term and before its fence (lastRenewStart + renewDeadline). */
    public boolean isLeader() {
        return term.isLeader();
    }

    /** Time left before this term's fence (lastRenewStart + renewDeadline); empty when not leading. */
    public Optional<Duration> timeLeft() {
        return term.timeLeft();
    }

    /** Leading, stepping down (onStoppedLeading still running) or standing by. */
    public Role role() {
        return term.role();
    }

    /** The holder last observed (possibly ourselves), empty when none was seen. */
    public Optional<String> leader() {
        return seen.holder();
    }

    public String identity() {
        return config.identity();
    }

    public LeaseKey lease() {
        return config.lease();
    }

    /** The checked configuration this elector runs with. */
    public ElectionConfig config() {
        return config;
    }

    /**
     * Health probe snapshot (lock-free): unhealthy when leading and not renewed for leaseDuration + grace
     * (the loop is wedged), or when onStoppedLeading has been running that long (the work will not stop).
     */
    public ElectorHealth health() {
        return term.health(seen.holderSeen());
    }

    /**
     * Builds a {@link LeaderElector}; {@link #build()} checks the timing invariants ({@link ElectionConfig}). Left
     * at their defaults, the fence timer, the store calls and the callbacks each get threads of the elector's own
     * (see {@link ElectionConfig.Settings}), so a stalled store call can delay neither the fence nor a callback.
     */
    public static final class Builder extends ElectionConfig.Settings<Builder> {
        private LeaseKey lease;
        private boolean coordinated;
        private ProcessEvidence processEvidence;

        private Builder() {}

        @Override
        Builder self() {
            return this;
        }

        public Builder lease(LeaseKey v) {
            this.lease = v;
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

        /**
         * Evidence of death ({@link ProcessEndRule}): while waiting for another holder's lease to expire, take it at
         * once when this port shows that the holder's process has ended. Default: none, every lease is waited out.
         * Ignored when coordinated.
         */
        public Builder processEvidence(ProcessEvidence v) {
            this.processEvidence = v;
            return this;
        }

        public LeaderElector build() {
            return elector(lease, coordinated, processEvidence);
        }
    }
}
