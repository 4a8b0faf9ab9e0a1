package dev.tenure.election;

import java.time.Instant;

/**
 * A lease we asked for is validly held by {@code holder} until {@code expiresAt} (authority view):
 * wait, do not overwrite. Returned by {@link LeaseClaims#claim} and reported by {@link Heartbeat}.
 */
public record LeaseHeldElsewhere(LeaseKey lease, String holder, Instant expiresAt) implements ClaimResult {
}
