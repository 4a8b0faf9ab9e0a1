package dev.tenure.maintenance;

import dev.tenure.election.AuthorityStatus;
import dev.tenure.election.ClaimDecision;
import dev.tenure.election.LeaseConflict;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseOwner;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseRules;
import dev.tenure.election.LeaseStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The per-node maintenance lease, decided by the election core's authority view
 * ({@link LeaseRules#claim}): created when absent, renewed when ours, taken over when expired
 * (leaseTransitions + 1), reported when validly held by someone else. Owner-referenced to the Node so
 * it goes with it.
 */
final class NodeLease {

    /** renewTime further ahead of our clock than this is not trusted (see {@link AuthorityStatus.FutureRenewTime}). */
    static final Duration FUTURE_TOLERANCE = Duration.ofSeconds(10);

    private final LeaseStore store;
    private final MaintenanceSettings settings;

    NodeLease(LeaseStore store, MaintenanceSettings settings) {
        this.store = store;
        this.settings = settings;
    }

    sealed interface Claim {
        record Held(LeaseKey key, LeaseRecord record, boolean created, boolean takenOver, Instant expiresAt)
                implements Claim {
        }

        record Elsewhere(LeaseKey key, String holder, Instant expiresAt, LeaseRecord record) implements Claim {
        }
    }

    LeaseKey keyOf(String nodeName) {
        return LeaseKey.of(settings.leaseNamespace(), settings.leaseName(nodeName));
    }

    /**
     * Claims (or keeps) the node's lease until {@code until} ({@code fixedExpiry}: a window's end, which
     * renewals keep; otherwise a rolling expiry). Writes only when needed: a fresh
     * lease of ours with the right expiry is left alone, so reconciles do not write every time.
     */
    Claim claim(String nodeName, String nodeUid, Instant until, boolean fixedExpiry, Instant now) {
        LeaseKey key = keyOf(nodeName);
        for (int attempt = 1; ; attempt++) {
            LeaseRecord current = store.find(key).orElse(null);
            Duration duration = Duration.between(now, until);
            if (duration.compareTo(Duration.ofSeconds(1)) < 0) {
                duration = Duration.ofSeconds(1);
            }
            ClaimDecision decision = LeaseRules.claim(settings.holder(), current, now, duration, FUTURE_TOLERANCE);
            try {
                if (decision instanceof ClaimDecision.HeldElsewhere h) {
                    return new Claim.Elsewhere(key, h.holder(), h.expiresAt(), current);
                } else if (decision instanceof ClaimDecision.Create c) {
                    LeaseRecord written = store.create(key, withOwner(c.desired(), nodeName, nodeUid));
                    return held(key, written, true, false);
                } else if (decision instanceof ClaimDecision.TakeOver t) {
                    LeaseRecord written = store.update(key, withOwner(t.desired(), nodeName, nodeUid));
                    return held(key, written, false, true);
                } else {
                    ClaimDecision.Renew r = (ClaimDecision.Renew) decision;
                    if (!renewDue(current, until, fixedExpiry, now) && hasOwner(current, nodeUid)) {
                        return held(key, current, false, false);
                    }
                    return held(key, store.update(key, withOwner(r.desired(), nodeName, nodeUid)), false, false);
                }
            } catch (LeaseConflict conflict) {
                // Someone wrote in between: decide again from a fresh read (once more at most).
                if (attempt >= 2) {
                    throw conflict;
                }
            }
        }
    }

    /** Gives the lease up if it is ours (holder cleared); a foreign lease is never touched. */
    void release(String nodeName, Instant now) {
        LeaseKey key = keyOf(nodeName);
        for (int attempt = 1; ; attempt++) {
            Optional<LeaseRecord> current = store.find(key);
            Optional<LeaseRecord> released = current.flatMap(c -> LeaseRules.release(c, settings.holder(), now));
            if (released.isEmpty()) {
                return;
            }
            try {
                store.update(key, released.get());
                return;
            } catch (LeaseConflict conflict) {
                if (attempt >= 2) {
                    throw conflict;
                }
            } catch (dev.tenure.election.LeaseNotFound gone) {
                return;
            }
        }
    }

    Optional<LeaseRecord> current(String nodeName) {
        return store.find(keyOf(nodeName));
    }

    /** Renew when a third of the duration has passed, or when the expiry we want moved. */
    private boolean renewDue(LeaseRecord current, Instant until, boolean fixedExpiry, Instant now) {
        if (current.renewTime() == null || current.leaseDuration().isEmpty()) {
            return true;
        }
        Instant expiry = current.renewTime().plus(current.leaseDuration().get());
        Duration drift = Duration.between(expiry, until).abs();
        boolean stale = !now.isBefore(current.renewTime().plus(current.leaseDuration().get().dividedBy(3)));
        return stale || (fixedExpiry && drift.compareTo(Duration.ofSeconds(2)) > 0);
    }

    private static Claim.Held held(LeaseKey key, LeaseRecord written, boolean created, boolean takenOver) {
        Instant expires = written.renewTime() == null || written.leaseDuration().isEmpty() ? null
                : written.renewTime().plus(written.leaseDuration().get());
        return new Claim.Held(key, written, created, takenOver, expires);
    }

    private static boolean hasOwner(LeaseRecord record, String nodeUid) {
        return nodeUid == null || record.owners().stream().anyMatch(o -> nodeUid.equals(o.uid()));
    }

    private static LeaseRecord withOwner(LeaseRecord record, String nodeName, String nodeUid) {
        if (nodeUid == null || hasOwner(record, nodeUid)) {
            return record;
        }
        // Only the Node owns a node lease; an owner of a previous (deleted) node of the same name is dropped.
        return record.withOwners(List.of(LeaseOwner.node(nodeName, nodeUid)));
    }
}
