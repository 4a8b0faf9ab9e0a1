package dev.tenure.election;

/**
 * The port through which a contender asks whether the exact process holding its lease has ended
 * ({@link ProcessEndRule}); the Kubernetes adapter reads the holder's pod. Optional: an elector without one waits out
 * every lease, as client-go does.
 *
 * <p>{@link #judge} is called on the election loop, bounded like a store call; it should answer from a cache or one
 * read. An implementation answers {@link ProcessEnd.Unknown} for anything it cannot read.
 */
public interface ProcessEvidence {

    /** Whether the process that holds {@code held} (as read from {@code lease}) has ended. */
    ProcessEnd judge(LeaseKey lease, LeaseRecord held);

    /**
     * Calls {@code changed} whenever new evidence may have arrived (a pod's status changed), so the elector looks at
     * once rather than at its next retry. Default: never (the elector looks at each retry).
     */
    default AutoCloseable onChange(Runnable changed) {
        return () -> {};
    }

    /**
     * The elector took {@code lease} over from {@code previous}'s holder on {@code evidence}, writing {@code taken}:
     * record it where an audit sees it (a Kubernetes Event). Runs on the callback executor.
     */
    default void tookOver(LeaseKey lease, LeaseRecord previous, LeaseRecord taken, ProcessEnd.Ended evidence) {}
}
