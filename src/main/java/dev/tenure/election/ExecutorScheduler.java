package dev.tenure.election;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Scheduler} on one daemon thread: every task of a loop runs on the same thread, so the
 * loop's state needs no further locking against itself.
 */
public final class ExecutorScheduler implements Scheduler, AutoCloseable {
    private final ScheduledExecutorService executor;

    public ExecutorScheduler(String threadName) {
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /** After {@link #close()} tasks are dropped: a watch event still in flight when its loop stopped is not an error. */
    @Override
    public Scheduled schedule(Duration delay, Runnable task) {
        ScheduledFuture<?> f;
        try {
            f = executor.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return () -> {};
        }
        return () -> f.cancel(false);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
