package dev.tenure.maintenance.machine;

import dev.tenure.election.AuthorityStatus;
import dev.tenure.election.ClaimResult;
import dev.tenure.election.LeaseClaims;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseOwner;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseRules;
import dev.tenure.election.LeaseStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;

/**
 * The per-node maintenance lease of a NodeMaintenance: its name, and the renew policy a reconciler keeps it by. The
 * claim itself is the election core's one loop ({@link LeaseClaims}, authority view {@link LeaseRules#claim}):
 * created when absent, renewed when ours, taken over when expired (leaseTransitions + 1), reported when validly held
 * by someone else. Owner-referenced to the Node so it goes with it.
 */
public final class NodeLease {

    /** renewTime further ahead of our clock than this is not trusted (see {@link AuthorityStatus.FutureRenewTime}). */
    static final Duration FUTURE_TOLERANCE = Duration.ofSeconds(10);

    private final LeaseClaims claims;
    private final MaintenanceSettings settings;

    NodeLease(LeaseStore store, InstantSource clock, MaintenanceSettings settings) {
        this.claims = new LeaseClaims(store, clock, FUTURE_TOLERANCE);
        this.settings = settings;
    }

    LeaseKey keyOf(String nodeName) {
        return LeaseKey.of(settings.leaseNamespace(), settings.leaseName(nodeName));
    }

    /**
     * Claims (or keeps) the node's lease until {@code until} as {@code hold} says: a window's fixed expiry, which
     * renewals keep, or a rolling one ({@link LeaseHold.Kind#ACTING}, {@link LeaseHold.Kind#IDLE}). Writes only when
     * needed: a fresh lease of ours with the right expiry (or, rolling, the right duration) and owner is left alone
     * ({@link ClaimResult.Kept}), so reconciles do not write every time. A lease of ours written with another duration
     * is written again at once: this is how the long idle lease is shortened before a side effect, and the write has
     * landed when this returns.
     */
    ClaimResult claim(String nodeName, String nodeUid, Instant until, LeaseHold hold) {
        Optional<LeaseOwner> owner =
                nodeUid == null ? Optional.empty() : Optional.of(LeaseOwner.node(nodeName, nodeUid));
        return claims.claim(
                keyOf(nodeName),
                (current, now) -> LeaseRules.claim(
                        settings.holder(),
                        settings::isPredecessor,
                        current,
                        now,
                        durationUntil(until, now),
                        FUTURE_TOLERANCE),
                owner,
                (current, now) -> renewDue(current, until, hold, now));
    }

    /**
     * How long side effects may still be sent under {@code held} (our record as last written or read): until its
     * {@code renewTime + leaseDuration} on our clock, less {@link #skewAllowance} — another controller judging the
     * lease with a clock ahead of ours sees it expire that much sooner.
     */
    Instant sendUntil(LeaseRecord held) {
        Duration duration = held.leaseDuration().orElse(Duration.ZERO);
        return held.renewTime() == null
                ? Instant.MIN
                : held.renewTime().plus(duration).minus(skewAllowance(duration));
    }

    /**
     * {@link #sendUntil(LeaseRecord)} as if {@code held} were at most {@code cap} long: a write under the long idle
     * lease goes out no later after the last renewal than under the short one ({@code cap}: {@code leaseDuration}).
     */
    Instant sendUntil(LeaseRecord held, Duration cap) {
        Duration duration = held.leaseDuration().orElse(Duration.ZERO);
        Duration capped = duration.compareTo(cap) > 0 ? cap : duration;
        return held.renewTime() == null
                ? Instant.MIN
                : held.renewTime().plus(capped).minus(skewAllowance(capped));
    }

    /** A fifth of the lease, at most 5 s: the clock lead of another controller tolerated before it could take over. */
    static Duration skewAllowance(Duration leaseDuration) {
        if (leaseDuration.isNegative()) {
            return Duration.ZERO;
        }
        Duration fifth = leaseDuration.dividedBy(5);
        return fifth.compareTo(Duration.ofSeconds(5)) < 0 ? fifth : Duration.ofSeconds(5);
    }

    /** Gives the lease up if it is ours (holder cleared); a foreign lease is never touched. */
    void release(String nodeName) {
        claims.release(keyOf(nodeName), settings.holder());
    }

    private static Duration durationUntil(Instant until, Instant now) {
        Duration duration = Duration.between(now, until);
        return duration.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : duration;
    }

    /**
     * Rolling: renew when the lease's duration is not the hold's (shorten or lengthen at once) or when {@link
     * LeaseHold#renewAfter()} has passed. A window's fixed expiry: when a third has passed or the expiry we want moved.
     */
    static boolean renewDue(LeaseRecord current, Instant until, LeaseHold hold, Instant now) {
        if (current.renewTime() == null || current.leaseDuration().isEmpty()) {
            return true;
        }
        Duration duration = current.leaseDuration().get();
        if (hold.rolling()) {
            boolean otherDuration = duration.minus(hold.duration()).abs().compareTo(Duration.ofSeconds(1)) > 0;
            return otherDuration || !now.isBefore(current.renewTime().plus(hold.renewAfter()));
        }
        Instant expiry = current.renewTime().plus(duration);
        Duration drift = Duration.between(expiry, until).abs();
        boolean stale = !now.isBefore(current.renewTime().plus(duration.dividedBy(3)));
        return stale || drift.compareTo(Duration.ofSeconds(2)) > 0;
    }
}
