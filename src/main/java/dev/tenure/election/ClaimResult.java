package dev.tenure.election;

/** Outcome of {@link LeaseClaims#claim}: we hold the lease now, or someone else validly does. */
public sealed interface ClaimResult permits ClaimResult.Created, ClaimResult.Renewed, ClaimResult.TookOver, LeaseHeldElsewhere {

    /** The lease did not exist; we created it (transitions 0). */
    record Created(LeaseRecord lease) implements ClaimResult {
    }

    /** We already held it; renewed. */
    record Renewed(LeaseRecord lease) implements ClaimResult {
    }

    /** It was free, expired or future-stamped ({@code previous} says which); we took it (transitions + 1). */
    record TookOver(LeaseRecord lease, AuthorityStatus previous) implements ClaimResult {
    }
}
