package dev.tenure.election;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.PriorityQueue;

/**
 * Virtual time for deterministic tests of the election loops: tasks run in due-time order on the
 * calling thread when the test advances time. {@link #clock(Duration)} gives each participant
 * its own (possibly skewed) view of the same virtual time.
 */
public final class ManualScheduler implements Scheduler {
    @SuppressWarnings("ArrayRecordComponent") // a shared cancellation flag, never compared: identity is meant
    private record Task(Instant due, long seq, Runnable run, boolean[] cancelled) {}

    private final PriorityQueue<Task> queue =
            new PriorityQueue<>((a, b) -> a.due.equals(b.due) ? Long.compare(a.seq, b.seq) : a.due.compareTo(b.due));
    private Instant now;
    private long seq;

    public ManualScheduler(Instant start) {
        this.now = start;
    }

    /** The true virtual time. */
    public synchronized Instant now() {
        return now;
    }

    /** A clock that reads virtual time plus {@code offset}. */
    public InstantSource clock(Duration offset) {
        return () -> now().plus(offset);
    }

    public InstantSource clock() {
        return clock(Duration.ZERO);
    }

    @Override
    public synchronized Scheduled schedule(Duration delay, Runnable task) {
        boolean[] cancelled = {false};
        queue.add(new Task(now.plus(delay.isNegative() ? Duration.ZERO : delay), seq++, task, cancelled));
        return () -> cancelled[0] = true;
    }

    /** Runs every task due up to {@code now + d} (including tasks they schedule), ending at that time. */
    public void advance(Duration d) {
        Instant end;
        synchronized (this) {
            end = now.plus(d);
        }
        runUntil(end);
    }

    public void runUntil(Instant end) {
        while (true) {
            Task t;
            synchronized (this) {
                t = queue.peek();
                if (t == null || t.due.isAfter(end)) {
                    if (now.isBefore(end)) {
                        now = end;
                    }
                    return;
                }
                queue.poll();
                if (t.due.isAfter(now)) {
                    now = t.due;
                }
            }
            if (!t.cancelled[0]) {
                t.run.run();
            }
        }
    }

    /**
     * Moves time forward from inside a running task: models a slow request. Tasks that fell due
     * meanwhile run afterwards (late), as they would behind a busy thread.
     */
    public synchronized void elapse(Duration d) {
        now = now.plus(d);
    }

    /** Runs tasks that are due now (e.g. watch deliveries) without moving time. */
    public void runDue() {
        runUntil(now());
    }
}
