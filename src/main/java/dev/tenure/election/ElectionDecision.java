package dev.tenure.election;

import java.time.Instant;

/** What a contender using the observer view should do next, from {@link LeaseRules#decide}. */
public sealed interface ElectionDecision {

    /** The lease does not exist: create it with this record. */
    record Create(LeaseRecord desired) implements ElectionDecision {}

    /**
     * Write this record with the observed resourceVersion: a renew of our own lease, or the
     * acquisition of a free or expired one ({@code acquired} tells which).
     */
    record Write(LeaseRecord desired, boolean acquired) implements ElectionDecision {}

    /**
     * Someone else may still be leading ({@code holder}), or a free lease is reserved for its
     * preferred holder; look again no earlier than {@code until} on the observer's clock.
     */
    record Wait(String holder, Instant until) implements ElectionDecision {}

    /**
     * We hold the lease but {@code preferredHolder} names another identity: write
     * {@code released} (holder cleared) so the preferred one can take it at once.
     */
    record Yield(LeaseRecord released, String preferredHolder) implements ElectionDecision {}

    /**
     * The lease's deletion was requested and its holder let its record expire without letting it go (it died):
     * write {@code released} (holder cleared), which lets the deletion finish. This takes nothing: the next term
     * begins with a new Lease.
     */
    record FinishDeletion(LeaseRecord released) implements ElectionDecision {}
}
