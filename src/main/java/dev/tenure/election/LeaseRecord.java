package dev.tenure.election;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The state of a {@code coordination.k8s.io/v1} Lease that elections care about, plus the
 * store's {@code resourceVersion} (for optimistic writes) and owner references (adapter
 * business, carried so a heartbeat can tell whether they are set), and whether the Lease's deletion was requested
 * (it carries a deletionTimestamp while a finalizer holds it: see {@link LeaseRules#decide}).
 *
 * <p>Normalised on construction: an absent holder is {@code ""}, an absent preferred holder is
 * {@code null}, owners are never null.
 */
public record LeaseRecord(
        String holderIdentity,
        Integer leaseDurationSeconds,
        Instant acquireTime,
        Instant renewTime,
        int leaseTransitions,
        String strategy,
        String preferredHolder,
        List<LeaseOwner> owners,
        String resourceVersion,
        boolean deletionRequested) {

    /** A record of a lease whose deletion nobody requested. */
    public LeaseRecord(
            String holderIdentity,
            Integer leaseDurationSeconds,
            Instant acquireTime,
            Instant renewTime,
            int leaseTransitions,
            String strategy,
            String preferredHolder,
            List<LeaseOwner> owners,
            String resourceVersion) {
        this(
                holderIdentity,
                leaseDurationSeconds,
                acquireTime,
                renewTime,
                leaseTransitions,
                strategy,
                preferredHolder,
                owners,
                resourceVersion,
                false);
    }

    public LeaseRecord {
        holderIdentity = holderIdentity == null ? "" : holderIdentity;
        preferredHolder = preferredHolder == null || preferredHolder.isEmpty() ? null : preferredHolder;
        owners = owners == null ? List.of() : List.copyOf(owners);
        if (leaseTransitions < 0) {
            throw new IllegalArgumentException("leaseTransitions must be >= 0, was " + leaseTransitions);
        }
    }

    /** A record nobody holds, with nothing set: the starting point for builders and tests. */
    public static LeaseRecord unheld() {
        return new LeaseRecord("", null, null, null, 0, null, null, List.of(), null);
    }

    /** A freshly acquired record (transitions 0). */
    public static LeaseRecord heldBy(String holder, Duration leaseDuration, Instant now) {
        return new LeaseRecord(holder, seconds(leaseDuration), now, now, 0, null, null, List.of(), null);
    }

    public boolean hasHolder() {
        return !holderIdentity.isEmpty();
    }

    public boolean isHeldBy(String identity) {
        return hasHolder() && holderIdentity.equals(identity);
    }

    /** The duration the record declares, if it declares a positive one. */
    public Optional<Duration> leaseDuration() {
        return leaseDurationSeconds == null || leaseDurationSeconds <= 0
                ? Optional.empty()
                : Optional.of(Duration.ofSeconds(leaseDurationSeconds));
    }

    public boolean hasPreferredHolder() {
        return preferredHolder != null;
    }

    public Optional<String> preferred() {
        return Optional.ofNullable(preferredHolder);
    }

    /**
     * Whether two records carry the same election state, ignoring resourceVersion and owners.
     * The observer view uses this to decide whether the lease "changed" (client-go compares the
     * record, not the object's metadata).
     */
    public boolean sameElectionState(LeaseRecord other) {
        return other != null
                && holderIdentity.equals(other.holderIdentity)
                && Objects.equals(leaseDurationSeconds, other.leaseDurationSeconds)
                && Objects.equals(acquireTime, other.acquireTime)
                && Objects.equals(renewTime, other.renewTime)
                && leaseTransitions == other.leaseTransitions
                && Objects.equals(strategy, other.strategy)
                && Objects.equals(preferredHolder, other.preferredHolder)
                && deletionRequested == other.deletionRequested;
    }

    public LeaseRecord withHolderIdentity(String value) {
        return new LeaseRecord(
                value,
                leaseDurationSeconds,
                acquireTime,
                renewTime,
                leaseTransitions,
                strategy,
                preferredHolder,
                owners,
                resourceVersion,
                deletionRequested);
    }

    public LeaseRecord withLeaseDurationSeconds(Integer value) {
        return new LeaseRecord(
                holderIdentity,
                value,
                acquireTime,
                renewTime,
                leaseTransitions,
                strategy,
                preferredHolder,
                owners,
                resourceVersion,
                deletionRequested);
    }

    public LeaseRecord withAcquireTime(Instant value) {
        return new LeaseRecord(
                holderIdentity,
                leaseDurationSeconds,
                value,
                renewTime,
                leaseTransitions,
                strategy,
                preferredHolder,
                owners,
                resourceVersion,
                deletionRequested);
    }

    public LeaseRecord withRenewTime(Instant value) {
        return new LeaseRecord(
                holderIdentity,
                leaseDurationSeconds,
                acquireTime,
                value,
                leaseTransitions,
                strategy,
                preferredHolder,
                owners,
                resourceVersion,
                deletionRequested);
    }

    public LeaseRecord withLeaseTransitions(int value) {
        return new LeaseRecord(
                holderIdentity,
                leaseDurationSeconds,
                acquireTime,
                renewTime,
                value,
                strategy,
                preferredHolder,
                owners,
                resourceVersion,
                deletionRequested);
    }

    public LeaseRecord withStrategy(String value) {
        return new LeaseRecord(
                holderIdentity,
                leaseDurationSeconds,
                acquireTime,
                renewTime,
                leaseTransitions,
                value,
                preferredHolder,
                owners,
                resourceVersion,
                deletionRequested);
    }

    public LeaseRecord withPreferredHolder(String value) {
        return new LeaseRecord(
                holderIdentity,
                leaseDurationSeconds,
                acquireTime,
                renewTime,
                leaseTransitions,
                strategy,
                value,
                owners,
                resourceVersion,
                deletionRequested);
    }

    public LeaseRecord withOwners(List<LeaseOwner> value) {
        return new LeaseRecord(
                holderIdentity,
                leaseDurationSeconds,
                acquireTime,
                renewTime,
                leaseTransitions,
                strategy,
                preferredHolder,
                value,
                resourceVersion,
                deletionRequested);
    }

    public LeaseRecord withResourceVersion(String value) {
        return new LeaseRecord(
                holderIdentity,
                leaseDurationSeconds,
                acquireTime,
                renewTime,
                leaseTransitions,
                strategy,
                preferredHolder,
                owners,
                value,
                deletionRequested);
    }

    /**
     * This record with the lease's deletion requested (or not): a Lease that carries its holder's finalizer is
     * not deleted at once; it shows a deletionTimestamp until the holder, having stopped, lets it go.
     */
    public LeaseRecord withDeletionRequested(boolean value) {
        return new LeaseRecord(
                holderIdentity,
                leaseDurationSeconds,
                acquireTime,
                renewTime,
                leaseTransitions,
                strategy,
                preferredHolder,
                owners,
                resourceVersion,
                value);
    }

    static int seconds(Duration d) {
        // Leases carry whole seconds; round up so a written lease never promises less than asked.
        long s = d.toSeconds() + (d.toNanosPart() > 0 ? 1 : 0);
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, s));
    }
}
