package dev.tenure.election;

import java.time.Instant;

/** What a holder claiming a lease by the authority view should do, from {@link LeaseRules#claim}. */
public sealed interface ClaimDecision {

    /** The lease does not exist: create it. */
    record Create(LeaseRecord desired) implements ClaimDecision {}

    /** We already hold it: write the renewed record. */
    record Renew(LeaseRecord desired) implements ClaimDecision {}

    /**
     * It is free, expired or carries an untrustworthy renewTime: take it over
     * ({@code leaseTransitions} + 1 when the holder changes).
     */
    record TakeOver(LeaseRecord desired, AuthorityStatus previous) implements ClaimDecision {}

    /** Someone else holds it validly until {@code expiresAt}; do not write. */
    record HeldElsewhere(String holder, Instant expiresAt) implements ClaimDecision {}
}
