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
     * Claims (or keeps) the node's lease until {@code until} ({@code fixedExpiry}: a window's end, which
     * renewals keep; otherwise a rolling expiry). Writes only when needed: a fresh lease of ours with the right
     * expiry and owner is left alone ({@link ClaimResult.Kept}), so reconciles do not write every time.
     */
    ClaimResult claim(String nodeName, String nodeUid, Instant until, boolean fixedExpiry) {
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
                (current, now) -> renewDue(current, until, fixedExpiry, now));
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

    /** Renew when a third of the duration has passed, or when the expiry we want moved. */
    private static boolean renewDue(LeaseRecord current, Instant until, boolean fixedExpiry, Instant now) {
        if (current.renewTime() == null || current.leaseDuration().isEmpty()) {
            return true;
        }
        Instant expiry = current.renewTime().plus(current.leaseDuration().get());
        Duration drift = Duration.between(expiry, until).abs();
        boolean stale = !now.isBefore(
                current.renewTime().plus(current.leaseDuration().get().dividedBy(3)));
        return stale || (fixedExpiry && drift.compareTo(Duration.ofSeconds(2)) > 0);
    }
}
