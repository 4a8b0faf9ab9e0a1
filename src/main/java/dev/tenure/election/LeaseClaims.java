package dev.tenure.election;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * The one claim loop for leases held by the authority view (medik8s lease library parity: obtain, renew,
 * invalidate, with a typed "held elsewhere"): the per-node maintenance lease of both front doors and every
 * {@link Heartbeat} go through it.
 *
 * <p>Each call reads once, decides by a {@link Rule} ({@link LeaseRules#claim} unless a protocol brings its own)
 * and writes at most once, re-deciding once from a fresh read on a 409; a second 409 is thrown
 * ({@link LeaseConflict}) for the caller's retry. Other store errors are thrown as is.
 */
public final class LeaseClaims {
    /** Clock difference tolerated before a renewTime counts as "in the future" (authority view). */
    public static final Duration DEFAULT_FUTURE_TOLERANCE = Duration.ofSeconds(5);

    /** What to write for the lease as read ({@code null} when it does not exist) at {@code now}. */
    @FunctionalInterface
    public interface Rule {
        ClaimDecision decide(LeaseRecord current, Instant now);
    }

    /**
     * Whether an own lease is written again ({@link ClaimDecision.Renew}); when not, the claim answers
     * {@link ClaimResult.Kept} without a write. A heartbeat renews every time; a reconciler need not.
     */
    @FunctionalInterface
    public interface RenewPolicy {
        RenewPolicy ALWAYS = (current, now) -> true;

        boolean due(LeaseRecord current, Instant now);
    }

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

    public Duration futureTolerance() {
        return futureTolerance;
    }

    /**
     * Creates, renews or takes over {@code key} for {@code holder} with {@code leaseDuration};
     * reports a valid foreign holding as {@link LeaseHeldElsewhere} without writing.
     * {@code owner}, when given, becomes the lease's owner unless it already is (see {@link #withOwner}).
     */
    public ClaimResult claim(LeaseKey key, String holder, Duration leaseDuration, Optional<LeaseOwner> owner) {
        return claim(
                key,
                (current, now) -> LeaseRules.claim(holder, current, now, leaseDuration, futureTolerance),
                owner,
                RenewPolicy.ALWAYS);
    }

    /** {@link #claim(LeaseKey, String, Duration, Optional)} by a rule of the caller's, renewing when {@code renew} says. */
    public ClaimResult claim(LeaseKey key, Rule rule, Optional<LeaseOwner> owner, RenewPolicy renew) {
        try {
            return claimOnce(key, rule, owner, renew);
        } catch (LeaseConflict first) {
            return claimOnce(key, rule, owner, renew);
        }
    }

    // withOwner returns the very record it was given when the owner is already set: identity means "unchanged"
    @SuppressWarnings("ReferenceEquality")
    private ClaimResult claimOnce(LeaseKey key, Rule rule, Optional<LeaseOwner> owner, RenewPolicy renew) {
        LeaseRecord current = store.find(key).orElse(null);
        Instant now = clock.instant();
        ClaimDecision d = rule.decide(current, now);
        if (d instanceof ClaimDecision.Create c) {
            return new ClaimResult.Created(store.create(key, withOwner(c.desired(), owner)));
        } else if (d instanceof ClaimDecision.Renew r) {
            if (current != null && !renew.due(current, now) && withOwner(current, owner) == current) {
                return new ClaimResult.Kept(current);
            }
            return new ClaimResult.Renewed(store.update(key, withOwner(r.desired(), owner)));
        } else if (d instanceof ClaimDecision.TakeOver t) {
            return new ClaimResult.TookOver(store.update(key, withOwner(t.desired(), owner)), t.previous());
        }
        ClaimDecision.HeldElsewhere h = (ClaimDecision.HeldElsewhere) d;
        return new LeaseHeldElsewhere(key, h.holder(), h.expiresAt(), current);
    }

    /**
     * One conditional write of a record a protocol of the caller's decided ({@code create}, else an update at the
     * record's resourceVersion), owned by {@code owner} as in a claim. Empty on a 409: someone wrote in between, and
     * the caller decides again from a fresh read. For a protocol whose decisions interleave with other writes (the
     * node annotation protocol); everything else claims.
     */
    public Optional<LeaseRecord> write(LeaseKey key, LeaseRecord desired, boolean create, Optional<LeaseOwner> owner) {
        try {
            LeaseRecord owned = withOwner(desired, owner);
            return Optional.of(create ? store.create(key, owned) : store.update(key, owned));
        } catch (LeaseConflict conflict) {
            return Optional.empty();
        }
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

    /**
     * {@code r} owned by {@code owner} alone, unless it already names that owner (by uid): a node lease goes with
     * its Node, and an owner reference to an older Node of the same name is dropped. Returns {@code r} itself when
     * nothing changes.
     */
    static LeaseRecord withOwner(LeaseRecord r, Optional<LeaseOwner> owner) {
        if (owner.isEmpty()
                || r.owners().stream().anyMatch(o -> o.uid().equals(owner.get().uid()))) {
            return r;
        }
        return r.withOwners(List.of(owner.get()));
    }
}
