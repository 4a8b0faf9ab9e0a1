package dev.tenure.election;

import java.util.Optional;

/**
 * Outcome of a {@link LeaseClaims} claim, the one result type of a claim: we hold the lease now, or someone else
 * validly does.
 */
public sealed interface ClaimResult
        permits ClaimResult.Created, ClaimResult.Renewed, ClaimResult.Kept, ClaimResult.TookOver, LeaseHeldElsewhere {

    /** The lease did not exist; we created it (transitions 0). */
    record Created(LeaseRecord lease) implements ClaimResult {}

    /** We already held it; renewed. */
    record Renewed(LeaseRecord lease) implements ClaimResult {}

    /** We already held it and the renew policy said it was fresh enough: nothing was written. */
    record Kept(LeaseRecord lease) implements ClaimResult {}

    /** It was free, expired or future-stamped ({@code previous} says which); we took it (transitions + 1). */
    record TookOver(LeaseRecord lease, AuthorityStatus previous) implements ClaimResult {}

    /** The lease as held by us after the claim; empty when it is held elsewhere. */
    default Optional<LeaseRecord> held() {
        if (this instanceof Created c) {
            return Optional.of(c.lease());
        } else if (this instanceof Renewed r) {
            return Optional.of(r.lease());
        } else if (this instanceof Kept k) {
            return Optional.of(k.lease());
        } else if (this instanceof TookOver t) {
            return Optional.of(t.lease());
        }
        return Optional.empty();
    }
}
