package dev.tenure.election;

import java.time.Instant;

/**
 * A lease we asked for is validly held by {@code holder} until {@code expiresAt} (authority view):
 * wait, do not overwrite. {@code lease} is the record as read. Returned by {@link LeaseClaims} and reported by
 * {@link Heartbeat}.
 */
public record LeaseHeldElsewhere(LeaseKey key, String holder, Instant expiresAt, LeaseRecord lease)
        implements ClaimResult {}
