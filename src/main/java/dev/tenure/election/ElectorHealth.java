package dev.tenure.election;

import java.time.Instant;

/**
 * A snapshot for health probes. {@code healthy} is false when the elector believes it is leading but
 * has not renewed for leaseDuration + grace (its loop is wedged: it would otherwise have been fenced
 * at renewDeadline), or when it has been stepping down that long (onStoppedLeading does not return).
 */
public record ElectorHealth(LeaderElector.Role role, boolean healthy, String holder, Instant lastRenew, String detail) {

    /** Whether the elector holds the lease (inside its fence). */
    public boolean leading() {
        return role == LeaderElector.Role.LEADING;
    }
}
