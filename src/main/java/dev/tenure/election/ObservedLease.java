package dev.tenure.election;

import java.time.Instant;

/**
 * A record together with the time, on the observer's own clock, at which the observer first saw
 * it in this state. The observer view of expiry is measured from {@code observedAt}, never from
 * the timestamps written into the record (client-go: tolerant to clock skew between writers).
 */
public record ObservedLease(LeaseRecord record, Instant observedAt) {
    public ObservedLease {
        if (record == null || observedAt == null) {
            throw new IllegalArgumentException("observed lease needs a record and the time it was seen");
        }
    }
}
