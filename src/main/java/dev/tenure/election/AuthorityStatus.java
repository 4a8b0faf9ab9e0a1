package dev.tenure.election;

import java.time.Duration;
import java.time.Instant;

/**
 * The authority view of a lease: its own timestamps ({@code renewTime + leaseDuration}) compared
 * with the deciding controller's clock. Used by controllers that act on leases they do not
 * contend for in a loop (coordinated election, maintenance leases), see {@link LeaseRules#authorityStatus}.
 */
public sealed interface AuthorityStatus {

    /** Whether the holder named in the record may be considered live. */
    default boolean isValid() {
        return this instanceof Valid;
    }

    /** Nobody holds the lease. */
    record Free() implements AuthorityStatus {}

    /** Held and within {@code renewTime + leaseDuration}. */
    record Valid(String holder, Instant expiresAt) implements AuthorityStatus {}

    /**
     * Held but not valid: past its expiry, or missing renewTime or a positive duration
     * (upstream CLE treats both as expired). {@code expiredAt} is null when it cannot be computed.
     */
    record Expired(String holder, Instant expiredAt) implements AuthorityStatus {}

    /**
     * renewTime lies further in the future than the tolerated clock skew. Such a timestamp proves
     * nothing about liveness (a holder with a clock far ahead, or a bogus write), so it is not
     * valid; taking the lease over is the caller's decision and the status says why.
     */
    record FutureRenewTime(String holder, Instant renewTime, Duration aheadBy) implements AuthorityStatus {}
}
