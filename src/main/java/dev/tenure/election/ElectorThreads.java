package dev.tenure.election;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * The threads an elector starts for itself when its builder leaves {@code fenceScheduler}, {@code storeCalls} or
 * {@code callbackExecutor} unset — the defaults that keep the fence independent of I/O: a fence timer of its own, a
 * pool where store calls run so a stalled one can be abandoned when its budget ends, and one callback thread (so a
 * term's start and stop run in the order they were handed over, and a slow callback never holds up the loop).
 *
 * <p>Each is created only for a setting left unset, and none starts a thread before it is first used. They belong
 * to the elector and live as long as it does: {@link #close()} runs when it stops. Threads are daemons named
 * {@code tenure-election-<role>-<identity>}.
 */
final class ElectorThreads implements AutoCloseable {
    /** The prefix of every thread an elector starts for itself. */
    static final String PREFIX = "tenure-election-";

    private final ExecutorScheduler fence;
    private final ExecutorService storeCalls;
    private final ExecutorService callbacks;

    /** A thread for each role whose {@code want…} flag is set; none for the others. */
    ElectorThreads(String identity, boolean wantFence, boolean wantStoreCalls, boolean wantCallbacks) {
        this.fence = wantFence ? new ExecutorScheduler(PREFIX + "fence-" + identity) : null;
        // Cached: an abandoned call may hold its thread until the store answers; the next call must not queue behind
        // it.
        this.storeCalls = wantStoreCalls ? Executors.newCachedThreadPool(daemon(PREFIX + "calls-" + identity)) : null;
        // One thread: the term hands start and stop over in order, and they must run in that order.
        this.callbacks =
                wantCallbacks ? Executors.newSingleThreadExecutor(daemon(PREFIX + "callbacks-" + identity)) : null;
    }

    /** The fence timer's own thread, or null when the builder was given one. */
    Scheduler fence() {
        return fence;
    }

    /** The pool for abandonable store calls, or null when the builder was given one. */
    ExecutorService storeCalls() {
        return storeCalls;
    }

    /** The callback thread, or null when the builder was given an executor. */
    ExecutorService callbacks() {
        return callbacks;
    }

    /**
     * Called once the elector has stopped: the fence has nothing left to end, and a store call still running was
     * abandoned (interrupted). Callbacks already handed over — the final onStoppedLeading — still run; then the
     * callback thread ends.
     */
    @Override
    public void close() {
        if (fence != null) {
            fence.close();
        }
        if (storeCalls != null) {
            storeCalls.shutdownNow();
        }
        if (callbacks != null) {
            callbacks.shutdown();
        }
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
