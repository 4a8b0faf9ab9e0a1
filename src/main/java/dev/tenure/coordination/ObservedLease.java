package dev.tenure.coordination;

import dev.tenure.election.LeaseKey;
import java.time.Instant;

/**
 * The fields of a coordination.k8s.io/v1 Lease that the election reads and writes. Also used as the desired
 * state in a {@link ElectionDecision}: the adapter copies these fields onto the Lease it writes.
 */
public record ObservedLease(
        String namespace,
        String name,
        String holderIdentity,
        String preferredHolder,
        String strategy,
        Integer leaseDurationSeconds,
        Instant renewTime,
        Instant acquireTime,
        String resourceVersion) {

    public LeaseKey key() {
        return new LeaseKey(namespace, name);
    }

    public boolean hasHolder() {
        return holderIdentity != null && !holderIdentity.isEmpty();
    }

    public boolean hasPreferredHolder() {
        return preferredHolder != null && !preferredHolder.isEmpty();
    }

    public ObservedLease withHolder(String holder, Instant renew, int durationSeconds) {
        return new ObservedLease(namespace, name, holder, null, strategy, durationSeconds, renew, null,
                resourceVersion);
    }

    public ObservedLease withPreferredHolder(String preferred) {
        return new ObservedLease(namespace, name, holderIdentity, preferred, strategy, leaseDurationSeconds,
                renewTime, acquireTime, resourceVersion);
    }

    public ObservedLease withStrategy(String newStrategy) {
        return new ObservedLease(namespace, name, holderIdentity, preferredHolder, newStrategy, leaseDurationSeconds,
                renewTime, acquireTime, resourceVersion);
    }
}
