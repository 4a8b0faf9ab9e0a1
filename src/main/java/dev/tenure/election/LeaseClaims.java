package dev.tenure.election;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * One-shot lease claims by the authority view (medik8s lease library parity: obtain, renew,
 * invalidate, with a typed "held elsewhere"). For reconcilers holding per-object leases such as
 * the per-node maintenance lease; keep it renewed with a {@link Heartbeat}.
 *
 * <p>Each call reads once and writes at most once, re-deciding once on a 409; a second 409 is
 * thrown ({@link LeaseConflict}) for the caller's retry. Other store errors are thrown as is.
 */
public final class LeaseClaims {
    /** Clock difference tolerated before a renewTime counts as "in the future" (authority view). */
    public static final Duration DEFAULT_FUTURE_TOLERANCE = Duration.ofSeconds(5);

    private final LeaseStore store;
    private final InstantSource clock;
    private final Duration futureTolerance;

    public LeaseClaims(LeaseStore store, InstantSource clock) {
        this(store, clock, DEFAULT_FUTURE_TOLERANCE);
    }

    public LeaseClaims(LeaseStore store, InstantSource clock, Duration futureTolerance) {
        this.store = store;
        this.clock = clock;
        this.futureTolerance = futureTolerance;
    }

    /**
     * Creates, renews or takes over {@code key} for {@code holder} with {@code leaseDuration};
     * reports a valid foreign holding as {@link LeaseHeldElsewhere} without writing.
     * {@code owner}, when given, is set on create and added when the lease has no owners.
     */
    public ClaimResult claim(LeaseKey key, String holder, Duration leaseDuration, Optional<LeaseOwner> owner) {
        try {
            return claimOnce(key, holder, leaseDuration, owner);
        } catch (LeaseConflict first) {
            return claimOnce(key, holder, leaseDuration, owner);
        }
    }

    private ClaimResult claimOnce(LeaseKey key, String holder, Duration leaseDuration, Optional<LeaseOwner> owner) {
        LeaseRecord current = store.find(key).orElse(null);
        ClaimDecision d = LeaseRules.claim(holder, current, clock.instant(), leaseDuration, futureTolerance);
        if (d instanceof ClaimDecision.Create c) {
            return new ClaimResult.Created(store.create(key, withOwner(c.desired(), owner)));
        } else if (d instanceof ClaimDecision.Renew r) {
            return new ClaimResult.Renewed(store.update(key, withOwner(r.desired(), owner)));
        } else if (d instanceof ClaimDecision.TakeOver t) {
            return new ClaimResult.TookOver(store.update(key, withOwner(t.desired(), owner)), t.previous());
        }
        ClaimDecision.HeldElsewhere h = (ClaimDecision.HeldElsewhere) d;
        return new LeaseHeldElsewhere(key, h.holder(), h.expiresAt());
    }

    /**
     * Releases {@code key} if {@code holder} holds it (holder cleared, duration 1 s). Returns
     * false when it was absent or held by someone else (nothing written).
     */
    public boolean release(LeaseKey key, String holder) {
        for (int attempt = 0; attempt < 2; attempt++) {
            Optional<LeaseRecord> current = store.find(key);
            Optional<LeaseRecord> released = current.flatMap(c -> LeaseRules.release(c, holder, clock.instant()));
            if (released.isEmpty()) {
                return false;
            }
            try {
                store.update(key, released.get());
                return true;
            } catch (LeaseConflict e) {
                if (attempt == 1) {
                    throw e;
                }
            } catch (LeaseNotFound e) {
                return false;
            }
        }
        return false;
    }

    static LeaseRecord withOwner(LeaseRecord r, Optional<LeaseOwner> owner) {
        return owner.isPresent() && r.owners().isEmpty() ? r.withOwners(List.of(owner.get())) : r;
    }
}
