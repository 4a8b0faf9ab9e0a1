package dev.tenure.election;

import java.time.Duration;

/**
 * Runs tasks after a delay. The election loops use nothing else for timing, so tests can drive
 * them on virtual time and production runs them on a thread ({@link ExecutorScheduler}).
 */
public interface Scheduler {

    /** Runs {@code task} once after {@code delay}; the handle cancels it if it has not started. */
    Scheduled schedule(Duration delay, Runnable task);

    /** A pending task. */
    interface Scheduled {
        void cancel();
    }
}
