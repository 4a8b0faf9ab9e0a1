package dev.tenure.election;

import java.time.Instant;

/**
 * A snapshot for health probes. {@code healthy} is false only when the elector believes it is
 * leading but has not renewed for leaseDuration + grace, i.e. its loop is wedged (it would
 * otherwise have given leadership up at renewDeadline).
 */
public record ElectorHealth(boolean leading, boolean healthy, String holder, Instant lastRenew, String detail) {
}
