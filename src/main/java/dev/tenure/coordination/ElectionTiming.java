package dev.tenure.coordination;

import java.time.Duration;
import java.util.Objects;

/**
 * The time constants of an election. {@link #UPSTREAM} holds the values of the upstream CLE controller
 * (pkg/controlplane/controller/leaderelection); the constructor rejects combinations that cannot work.
 */
public record ElectionTiming(
        Duration candidateValidity,
        Duration reelectionInterval,
        Duration electionWindow,
        int leaseDurationSeconds,
        Duration requeueInterval) {

    /** 30 min candidate validity, re-ping after 15 min, 5 s ping/ack window, 5 s lease, look again every 5 s. */
    public static final ElectionTiming UPSTREAM = new ElectionTiming(
            Duration.ofMinutes(30), Duration.ofMinutes(15), Duration.ofSeconds(5), 5, Duration.ofSeconds(5));

    public ElectionTiming {
        Objects.requireNonNull(candidateValidity, "candidateValidity");
        Objects.requireNonNull(reelectionInterval, "reelectionInterval");
        Objects.requireNonNull(electionWindow, "electionWindow");
        Objects.requireNonNull(requeueInterval, "requeueInterval");
        if (electionWindow.isNegative() || electionWindow.isZero()) {
            throw new IllegalArgumentException("electionWindow must be > 0, was " + electionWindow);
        }
        if (reelectionInterval.compareTo(electionWindow) <= 0) {
            throw new IllegalArgumentException("reelectionInterval (" + reelectionInterval
                    + ") must be > electionWindow (" + electionWindow + ")");
        }
        if (candidateValidity.compareTo(reelectionInterval) <= 0) {
            throw new IllegalArgumentException("candidateValidity (" + candidateValidity
                    + ") must be > reelectionInterval (" + reelectionInterval + "), or candidates expire unpinged");
        }
        if (leaseDurationSeconds <= 0) {
            throw new IllegalArgumentException("leaseDurationSeconds must be > 0, was " + leaseDurationSeconds);
        }
        if (requeueInterval.isNegative() || requeueInterval.isZero()) {
            throw new IllegalArgumentException("requeueInterval must be > 0, was " + requeueInterval);
        }
    }
}
