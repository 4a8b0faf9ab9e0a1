package dev.tenure.election;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Pure lease rules: expiry in two views, and the acquire / renew / release decisions built on
 * them. Every function takes {@code now}; nothing here reads a clock or does I/O.
 *
 * <h2>Two expiry views</h2>
 * <ul>
 *   <li><b>Observer view</b> ({@link #observerExpired}) — for contenders that watch a lease in a
 *   loop (client-go leader election). A lease is expired when its record has not changed for the
 *   record's leaseDuration <em>on the observer's own clock</em>, counted from when the observer
 *   first saw the current record. Writers' timestamps are never compared with the observer's
 *   clock, so any constant clock offset between machines is harmless; only the skew
 *   <em>rate</em> matters (bounded by leaseDuration / renewDeadline).</li>
 *   <li><b>Authority view</b> ({@link #authorityStatus}) — for controllers that decide from one
 *   read (coordinated election, maintenance leases). {@code renewTime + leaseDuration} is
 *   compared with the controller's clock, and the lease is expired only strictly after that instant
 *   (upstream CLE {@code isLeaseExpired}). A record without renewTime or without a positive
 *   duration is expired (upstream CLE). A renewTime more than {@code futureTolerance} ahead of
 *   the controller's clock is {@link AuthorityStatus.FutureRenewTime}: not valid, because a
 *   timestamp from the future proves nothing about the holder being alive and would otherwise
 *   keep the lease "valid" for as long as the bogus time is ahead. Within the tolerance the
 *   timestamp is trusted as written.</li>
 * </ul>
 *
 * <h2>Transitions</h2>
 * {@code leaseTransitions} counts changes of the holder: it grows by one when a write sets a
 * holder different from the one in the record it replaces (including taking a lease that was
 * released, i.e. holder {@code ""}); a renew, a release and the creation of a new lease do not
 * count (client-go parity).
 *
 * <h2>Preferred holder</h2>
 * A holder that sees {@code preferredHolder} naming someone else yields at once. A released
 * lease whose preferredHolder names someone else is reserved for that identity until the
 * released record expires (observer view), so the hand-over goes where it was asked to.
 * preferredHolder is cleared when the holder changes (it has done its job, or the preferred one
 * did not come and the controller that set it may set it again).
 */
public final class LeaseRules {

    private LeaseRules() {}

    // ---------------------------------------------------------------- observer view

    /**
     * The observation after reading {@code current} at {@code now}: unchanged records keep the
     * time they were first seen; any change of election state restarts the clock.
     */
    public static ObservedLease observe(ObservedLease previous, LeaseRecord current, Instant now) {
        if (previous != null && previous.record().sameElectionState(current)) {
            return new ObservedLease(current, previous.observedAt()); // keep the new resourceVersion
        }
        return new ObservedLease(current, now);
    }

    /**
     * When the observed record expires on the observer's clock. The record's own duration is
     * used (client-go); when it declares none, {@code fallback} (the observer's configured
     * leaseDuration) is used rather than treating the lease as instantly free.
     */
    public static Instant observerExpiry(ObservedLease observed, Duration fallback) {
        Duration d = observed.record().leaseDuration().orElse(fallback);
        return observed.observedAt().plus(d);
    }

    /** Observer view: a free lease is expired; a held one expires {@link #observerExpiry} after it was seen to change. */
    public static boolean observerExpired(ObservedLease observed, Instant now, Duration fallback) {
        if (!observed.record().hasHolder()) {
            return true;
        }
        return !now.isBefore(observerExpiry(observed, fallback));
    }

    // ---------------------------------------------------------------- authority view

    /** Authority view of {@code record} at {@code now}; see the class comment. */
    public static AuthorityStatus authorityStatus(LeaseRecord record, Instant now, Duration futureTolerance) {
        if (!record.hasHolder()) {
            return new AuthorityStatus.Free();
        }
        Optional<Duration> duration = record.leaseDuration();
        if (record.renewTime() == null || duration.isEmpty()) {
            return new AuthorityStatus.Expired(record.holderIdentity(), null);
        }
        Duration ahead = Duration.between(now, record.renewTime());
        if (ahead.compareTo(futureTolerance) > 0) {
            return new AuthorityStatus.FutureRenewTime(record.holderIdentity(), record.renewTime(), ahead);
        }
        Instant expiry = record.renewTime().plus(duration.get());
        // expired only strictly after renewTime + duration (upstream isLeaseExpired: now.After(expiry)); at the
        // boundary instant the holder still holds it, the conservative side for a takeover
        return !now.isAfter(expiry)
                ? new AuthorityStatus.Valid(record.holderIdentity(), expiry)
                : new AuthorityStatus.Expired(record.holderIdentity(), expiry);
    }

    // ---------------------------------------------------------------- writes

    /**
     * The record {@code identity} writes to hold the lease from {@code now}, replacing
     * {@code current}: renewTime now, the given duration, acquireTime and transitions kept on a
     * renew and moved on a change of holder, preferredHolder cleared when satisfied or on a
     * change of holder, strategy and owners kept, resourceVersion of {@code current} kept (the
     * write is conditional on it).
     */
    public static LeaseRecord heldRecord(LeaseRecord current, String identity, Instant now, Duration leaseDuration) {
        boolean holderChanges = !current.holderIdentity().equals(identity);
        String preferred =
                holderChanges || identity.equals(current.preferredHolder()) ? null : current.preferredHolder();
        return new LeaseRecord(
                identity,
                LeaseRecord.seconds(leaseDuration),
                holderChanges || current.acquireTime() == null ? now : current.acquireTime(),
                now,
                holderChanges ? current.leaseTransitions() + 1 : current.leaseTransitions(),
                current.strategy(),
                preferred,
                current.owners(),
                current.resourceVersion());
    }

    /** The first record of a lease that does not exist yet (transitions 0). */
    public static LeaseRecord createdRecord(String identity, Instant now, Duration leaseDuration) {
        return LeaseRecord.heldBy(identity, leaseDuration, now);
    }

    /**
     * The record a holder writes to give the lease up: holder cleared, duration 1 s, times now
     * (client-go release), transitions, strategy and preferredHolder kept.
     */
    public static LeaseRecord releasedRecord(LeaseRecord current, Instant now) {
        return new LeaseRecord(
                "",
                1,
                now,
                now,
                current.leaseTransitions(),
                current.strategy(),
                current.preferredHolder(),
                current.owners(),
                current.resourceVersion(),
                current.deletionRequested());
    }

    /**
     * The release {@code holder} should write, or empty when it does not hold the lease (a
     * release must never clear someone else's holding).
     */
    public static Optional<LeaseRecord> release(LeaseRecord current, String holder, Instant now) {
        return current != null && current.isHeldBy(holder)
                ? Optional.of(releasedRecord(current, now))
                : Optional.empty();
    }

    // ---------------------------------------------------------------- decisions

    /**
     * Observer-view decision of a contender (client-go tryAcquireOrRenew): {@code observed} is
     * the latest observation of the lease, {@code null} when it does not exist.
     */
    public static ElectionDecision decide(
            String identity, ObservedLease observed, Instant now, Duration leaseDuration) {
        return decide(identity, observed, now, now, leaseDuration);
    }

    /**
     * {@link #decide(String, ObservedLease, Instant, Duration)} with the two times kept apart: expiry is
     * judged at {@code now} on the observer's monotonic clock (the clock {@code observed.observedAt()} was
     * taken on), and {@code wallNow} is only what gets written into renewTime/acquireTime. A wall-clock
     * step therefore changes what is written, never whether the lease is expired.
     */
    public static ElectionDecision decide(
            String identity, ObservedLease observed, Instant now, Instant wallNow, Duration leaseDuration) {
        if (observed == null) {
            return new ElectionDecision.Create(createdRecord(identity, wallNow, leaseDuration));
        }
        LeaseRecord rec = observed.record();
        if (rec.deletionRequested()) {
            return decideDeleted(identity, observed, now, wallNow, leaseDuration);
        }
        if (rec.isHeldBy(identity)) {
            String preferred = rec.preferredHolder();
            if (preferred != null && !preferred.equals(identity)) {
                return new ElectionDecision.Yield(releasedRecord(rec, wallNow), preferred);
            }
            return new ElectionDecision.Write(heldRecord(rec, identity, wallNow, leaseDuration), false);
        }
        Instant expiry = observerExpiry(observed, leaseDuration);
        if (rec.hasHolder() && now.isBefore(expiry)) {
            return new ElectionDecision.Wait(rec.holderIdentity(), expiry);
        }
        String preferred = rec.preferredHolder();
        if (!rec.hasHolder() && preferred != null && !preferred.equals(identity) && now.isBefore(expiry)) {
            return new ElectionDecision.Wait(preferred, expiry);
        }
        return new ElectionDecision.Write(heldRecord(rec, identity, wallNow, leaseDuration), true);
    }

    /**
     * The record {@code identity} writes to take {@code held} over before it expires, on evidence that its holder's
     * process has ended ({@link ProcessEndRule}), or empty when the lease is not one to take that way: not held, held
     * by us (an earlier process under our name waits out its lease), in deletion, or reserved for another preferred
     * holder. The write is an ordinary change of holder (leaseTransitions + 1, acquireTime now), conditional on the
     * resourceVersion the evidence was judged at: a holder that wrote since was not dead, and the write fails.
     */
    public static Optional<LeaseRecord> takeOverOnEvidence(
            String identity, LeaseRecord held, ProcessEnd evidence, Instant wallNow, Duration leaseDuration) {
        if (!(evidence instanceof ProcessEnd.Ended)
                || held == null
                || !held.hasHolder()
                || held.isHeldBy(identity)
                || held.deletionRequested()
                || (held.preferredHolder() != null && !held.preferredHolder().equals(identity))) {
            return Optional.empty();
        }
        return Optional.of(heldRecord(held, identity, wallNow, leaseDuration));
    }

    /**
     * A Lease whose deletion was requested while its holder's finalizer keeps it (the operator's own lease): the
     * holder steps down and releases, which lets it go ({@link ElectionDecision.Yield} to nobody); anyone else waits
     * until the record has not changed for its duration — the holder may still be working — and then lets it go
     * itself ({@link ElectionDecision.FinishDeletion}) rather than taking it, so the next term starts on a new Lease.
     * A Lease deleted by hand is therefore never a free lease while its holder works.
     */
    static ElectionDecision decideDeleted(
            String identity, ObservedLease observed, Instant now, Instant wallNow, Duration leaseDuration) {
        LeaseRecord rec = observed.record();
        if (rec.isHeldBy(identity)) {
            return new ElectionDecision.Yield(releasedRecord(rec, wallNow), "");
        }
        Instant expiry = observerExpiry(observed, leaseDuration);
        if (!rec.hasHolder() || now.isBefore(expiry)) {
            // a released lease still in deletion waits for its other finalizers; a held one for its holder
            return new ElectionDecision.Wait(rec.holderIdentity(), rec.hasHolder() ? expiry : now);
        }
        return new ElectionDecision.FinishDeletion(releasedRecord(rec, wallNow));
    }

    /**
     * Observer-view decision of a coordinated-election candidate (client-go coordinated mode):
     * it never creates or acquires the lease — the controller assigns the holder — it only
     * renews a lease that names it, and yields when preferredHolder names someone else.
     */
    public static ElectionDecision decideCoordinated(
            String identity, ObservedLease observed, Instant now, Duration leaseDuration) {
        return decideCoordinated(identity, observed, now, now, leaseDuration);
    }

    /** {@link #decideCoordinated(String, ObservedLease, Instant, Duration)} with monotonic and wall time apart. */
    public static ElectionDecision decideCoordinated(
            String identity, ObservedLease observed, Instant now, Instant wallNow, Duration leaseDuration) {
        if (observed == null) {
            return new ElectionDecision.Wait("", now);
        }
        if (observed.record().isHeldBy(identity)) {
            return decide(identity, observed, now, wallNow, leaseDuration);
        }
        return new ElectionDecision.Wait(observed.record().holderIdentity(), observerExpiry(observed, leaseDuration));
    }

    /**
     * Authority-view claim by {@code holder} (maintenance leases): create when absent, renew our
     * own, take over a free / expired / future-stamped one, otherwise report who holds it.
     */
    public static ClaimDecision claim(
            String holder, LeaseRecord current, Instant now, Duration leaseDuration, Duration futureTolerance) {
        return claim(holder, h -> false, current, now, leaseDuration, futureTolerance);
    }

    /**
     * {@link #claim(String, LeaseRecord, Instant, Duration, Duration)} by a successor: a lease held by one of
     * {@code predecessors} (an earlier instance of the same controller, whose work has provably stopped — its term
     * ended before the caller's began) is taken over at once, valid or not, as an explicit change of holder
     * ({@code leaseTransitions} + 1, acquireTime now; {@link ClaimDecision.TakeOver#previous()} says it was valid).
     * Two instances never both believe they hold it: the predecessor's next write finds the new holder.
     */
    public static ClaimDecision claim(
            String holder,
            java.util.function.Predicate<String> predecessors,
            LeaseRecord current,
            Instant now,
            Duration leaseDuration,
            Duration futureTolerance) {
        if (current == null) {
            return new ClaimDecision.Create(createdRecord(holder, now, leaseDuration));
        }
        if (current.isHeldBy(holder)) {
            return new ClaimDecision.Renew(heldRecord(current, holder, now, leaseDuration));
        }
        AuthorityStatus status = authorityStatus(current, now, futureTolerance);
        if (status instanceof AuthorityStatus.Valid valid && !predecessors.test(valid.holder())) {
            return new ClaimDecision.HeldElsewhere(valid.holder(), valid.expiresAt());
        }
        return new ClaimDecision.TakeOver(heldRecord(current, holder, now, leaseDuration), status);
    }
}
