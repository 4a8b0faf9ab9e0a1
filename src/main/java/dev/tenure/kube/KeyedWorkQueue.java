package dev.tenure.kube;

import dev.tenure.election.WorkFence;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * A client-go style work queue: a key is queued at most once, never processed by two workers at once (an add
 * while it is processed runs it again afterwards), can be re-added after a delay (the earliest delay wins), and
 * failures are retried with a per-key exponential backoff that resets on success.
 */
public final class KeyedWorkQueue<K> {

    private static final Logger LOG = Logger.getLogger(KeyedWorkQueue.class);
    /** Failures in a row before a key's retries are logged at WARN. */
    static final int WARN_AFTER_FAILURES = 3;

    private final String name;
    private final ScheduledExecutorService scheduler;
    private final Duration baseBackoff;
    private final Duration maxBackoff;
    private final LinkedBlockingQueue<K> ready = new LinkedBlockingQueue<>();
    private final Set<K> dirty = new HashSet<>();
    private final Set<K> processing = new HashSet<>();
    private final Map<K, ScheduledFuture<?>> delayed = new HashMap<>();
    private final Map<K, Long> delayedAt = new HashMap<>();
    private final Map<K, Integer> failures = new HashMap<>();
    private final List<Thread> workers = new ArrayList<>();
    private volatile boolean shutDown;

    public KeyedWorkQueue(String name, ScheduledExecutorService scheduler, Duration baseBackoff, Duration maxBackoff) {
        this.name = name;
        this.scheduler = scheduler;
        this.baseBackoff = baseBackoff;
        this.maxBackoff = maxBackoff;
    }

    public synchronized void add(K key) {
        if (shutDown || !dirty.add(key)) {
            return;
        }
        if (!processing.contains(key)) {
            ready.add(key);
        }
    }

    /** Adds {@code key} after {@code delay}; an earlier pending re-add of the same key is kept. */
    public synchronized void addAfter(K key, Duration delay) {
        if (shutDown) {
            return;
        }
        if (delay.isZero() || delay.isNegative()) {
            add(key);
            return;
        }
        long due = System.nanoTime() + delay.toNanos();
        Long pending = delayedAt.get(key);
        if (pending != null && pending - due <= 0) {
            return;
        }
        ScheduledFuture<?> old = delayed.remove(key);
        if (old != null) {
            old.cancel(false);
        }
        ScheduledFuture<?> later;
        try {
            later = scheduler.schedule(
                    () -> {
                        synchronized (this) {
                            delayed.remove(key);
                            delayedAt.remove(key);
                        }
                        add(key);
                    },
                    delay.toNanos(),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // the scheduler was shut down before this queue (its owner is stopping): nothing will run the key again,
            // so it is dropped as shutDown() drops it, and the worker that asked goes on to see shutDown
            LOG.debugf("%s: %s not re-added after %s, the scheduler is shut down", name, key, delay);
            return;
        }
        delayedAt.put(key, due);
        delayed.put(key, later);
    }

    public synchronized Duration backoff(K key) {
        int n = failures.merge(key, 1, Integer::sum);
        long nanos = baseBackoff.toNanos() << Math.min(n - 1, 30);
        return nanos <= 0 || nanos > maxBackoff.toNanos() ? maxBackoff : Duration.ofNanos(nanos);
    }

    public synchronized int failuresInARow(K key) {
        return failures.getOrDefault(key, 0);
    }

    public synchronized void forget(K key) {
        failures.remove(key);
    }

    /**
     * Runs the worker loop on the calling thread until {@link #shutDown()}: {@code handler} returns when to look at
     * the key again (empty: wait for the next event) or throws to be retried with backoff.
     */
    public void run(Function<K, Optional<Duration>> handler) {
        while (!shutDown) {
            K key;
            try {
                key = ready.poll(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (key == null) {
                continue;
            }
            synchronized (this) {
                dirty.remove(key);
                processing.add(key);
            }
            try {
                Optional<Duration> again = handler.apply(key);
                forget(key);
                again.ifPresent(d -> addAfter(key, d));
            } catch (RuntimeException e) {
                Duration wait = backoff(key);
                int inARow = failuresInARow(key);
                // One failure is routine (a conflict with a renewing holder, a blip); a key failing again and
                // again is what an operator needs to see, so that is logged by default.
                if (inARow >= WARN_AFTER_FAILURES) {
                    LOG.warnf("%s: %s failed %d times in a row (%s), retrying in %s", name, key, inARow, e, wait);
                } else {
                    LOG.debugf("%s: %s failed (%s), retrying in %s", name, key, e, wait);
                }
                LOG.tracef(e, "%s: %s failure detail", name, key);
                addAfter(key, wait);
            } finally {
                synchronized (this) {
                    processing.remove(key);
                    if (dirty.contains(key)) {
                        ready.add(key);
                    }
                }
            }
        }
    }

    /**
     * Starts {@code count} daemon threads named {@code threadName-<n>} (just {@code threadName} for one), each
     * running {@link #run(Function)} with {@code handler}; each key is handled under a permit of {@code fence}, so
     * that the end of a leadership term waits for the key in hand and no key is handled outside a term.
     */
    public synchronized void startWorkers(
            int count, String threadName, WorkFence fence, Function<K, Optional<Duration>> handler) {
        startWorkers(count, threadName, key -> {
            try (WorkFence.Permit permit = fence.enter()) {
                return handler.apply(key);
            } catch (WorkFence.OutsideTerm e) {
                return Optional.empty(); // leadership ended: the next leader looks at every key again
            }
        });
    }

    /** {@link #startWorkers(int, String, WorkFence, Function)} without a fence. */
    public synchronized void startWorkers(int count, String threadName, Function<K, Optional<Duration>> handler) {
        for (int i = 1; i <= count; i++) {
            Thread t = new Thread(() -> run(handler), count == 1 ? threadName : threadName + "-" + i);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
    }

    /**
     * {@link #shutDown()}, then waits up to {@code wait} in all for the workers to finish the key each holds: after
     * it returns no worker starts another. Returns false when one was still busy at the deadline.
     */
    public boolean shutDownAndWait(Duration wait) {
        List<Thread> started;
        synchronized (this) {
            shutDown();
            started = List.copyOf(workers);
        }
        long deadline = System.nanoTime() + wait.toNanos();
        for (Thread t : started) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            if (t.isAlive()) {
                return false;
            }
        }
        return true;
    }

    public synchronized void shutDown() {
        shutDown = true;
        delayed.values().forEach(f -> f.cancel(false));
        delayed.clear();
        delayedAt.clear();
        ready.clear();
        dirty.clear();
    }

    public synchronized boolean isShutDown() {
        return shutDown;
    }
}
