package dev.tenure.election;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The fence around the work a leader does, not only around its belief that it leads ({@link LeaderElector#isLeader()}
 * proves nothing about a reconcile that checked it a second ago). Two things pass through it:
 *
 * <ul>
 *   <li><b>Units of work</b> (a reconcile, a queue item): {@link #enter()} admits one only while a term is open and
 *   has time left, and counts it until its {@link Permit} is closed, so that the end of a term can
 *   {@linkplain #awaitIdle wait} until no work of it is still running — a stop is then a real stop.</li>
 *   <li><b>Side effects</b> (every API write): {@link #writeBudget()} says how long a write sent now may take — the
 *   time left in the term — or refuses it with {@link OutsideTerm} when the term has ended or was closed. A write
 *   sent with that budget as its timeout is answered (or abandoned) before the term's fence.</li>
 * </ul>
 *
 * A term is opened with the source of its time left (the elector's {@link LeaderElector#timeLeft()}) and closed when
 * leadership ends; closing refuses new work and new writes at once, whatever the work already running does next.
 * Each open term has a number ({@link #term()}), which work may record in what it writes.
 */
public final class WorkFence {
    /** Writes are refused when less than this is left: an answer could not come back in time. */
    public static final Duration MIN_WRITE_BUDGET = Duration.ofMillis(50);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private Supplier<Optional<Duration>> timeLeft; // null: closed
    private long term;
    private int running;

    /** A fence with no term open: it admits nothing until {@link #open}. */
    public static WorkFence closed() {
        return new WorkFence();
    }

    /** A fence always open (no leader election): it admits everything and only counts. */
    public static WorkFence alwaysOpen() {
        WorkFence f = new WorkFence();
        f.open(() -> Optional.of(Duration.ofDays(365)));
        return f;
    }

    /**
     * Opens a term whose time left comes from {@code timeLeft} (empty or non-positive: over). Returns its number.
     */
    public long open(Supplier<Optional<Duration>> timeLeft) {
        lock.lock();
        try {
            this.timeLeft = timeLeft;
            return ++term;
        } finally {
            lock.unlock();
        }
    }

    /** Ends the term: from now on no work is admitted and no write allowed. Work already running keeps its permit. */
    public void close() {
        lock.lock();
        try {
            timeLeft = null;
        } finally {
            lock.unlock();
        }
    }

    /** The number of the term open now, or of the last one. */
    public long term() {
        lock.lock();
        try {
            return term;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Time left in the open term; zero when closed or over. Inside {@link #bounded} it is never more than the bound's
     * time left: the bound narrows every fence's budget on that thread.
     */
    public Duration timeLeft() {
        return narrowed(leftOf(currentSource()));
    }

    /** {@code term} (the term's time left), no longer than what this thread's {@link Bound} has left, if any. */
    private static Duration narrowed(Duration term) {
        Bound bound = BOUND.get();
        if (bound == null || term.isZero()) {
            return term;
        }
        Duration left = leftOf(bound.timeLeft());
        return left.compareTo(term) < 0 ? left : term;
    }

    /**
     * A second lease the work of this thread depends on (the node lease of a maintenance): {@code what} names it in a
     * refusal, {@code timeLeft} says how long it still holds.
     */
    public record Bound(String what, Supplier<Optional<Duration>> timeLeft) {}

    private static final ThreadLocal<Bound> BOUND = new ThreadLocal<>();

    /**
     * Runs {@code work} with every write it sends on this thread bounded by {@code bound} as well as by the term: a
     * write goes out only while both hold, with a timeout no longer than the shorter of the two, and is refused
     * ({@link OutsideTerm} naming {@code bound.what()}) once either has ended. Work handed to another thread carries
     * the bound there with {@link #carry}.
     */
    public static <T> T bounded(Bound bound, Supplier<T> work) {
        try {
            return within(bound, work::get);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e); // a Supplier throws no checked exception
        }
    }

    /** Runs {@code task} with {@code bound} as this thread's bound, restoring the one it had. */
    private static <T> T within(Bound bound, java.util.concurrent.Callable<T> task) throws Exception {
        Bound outer = BOUND.get();
        BOUND.set(bound);
        try {
            return task.call();
        } finally {
            if (outer == null) {
                BOUND.remove();
            } else {
                BOUND.set(outer);
            }
        }
    }

    /** The refusal of a write outside the term (or past a {@link Bound}) somewhere in {@code failure}'s causes. */
    public static Optional<OutsideTerm> refusal(Throwable failure) {
        Throwable t = failure;
        for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
            if (t instanceof OutsideTerm refused) {
                return Optional.of(refused);
            }
        }
        return Optional.empty();
    }

    /** {@code task} running under the bound of the calling thread (if any), on whichever thread runs it. */
    public static <T> java.util.concurrent.Callable<T> carry(java.util.concurrent.Callable<T> task) {
        Bound bound = BOUND.get();
        return bound == null ? task : () -> within(bound, task);
    }

    private Supplier<Optional<Duration>> currentSource() {
        lock.lock();
        try {
            return timeLeft;
        } finally {
            lock.unlock();
        }
    }

    /** What {@code source} says is left, never negative; zero for a closed fence (null source). */
    private static Duration leftOf(Supplier<Optional<Duration>> source) {
        if (source == null) {
            return Duration.ZERO;
        }
        Duration left = source.get().orElse(Duration.ZERO);
        return left.isNegative() ? Duration.ZERO : left;
    }

    /** Whether a term is open with time left. */
    public boolean isOpen() {
        return !timeLeft().isZero();
    }

    /**
     * How long a write sent now may take: the time left in the term.
     *
     * @throws OutsideTerm when no term is open, or less than {@link #MIN_WRITE_BUDGET} is left
     */
    public Duration writeBudget() {
        // one read of the term's time left for both: two reads could disagree about which of the two ran out
        Duration term = leftOf(currentSource());
        Duration left = narrowed(term);
        if (left.compareTo(MIN_WRITE_BUDGET) < 0) {
            boolean byBound = term.compareTo(MIN_WRITE_BUDGET) >= 0;
            String what = byBound ? BOUND.get().what() : "the term";
            throw new OutsideTerm(
                    term.isZero()
                            ? "no leadership term is open"
                            : left.isZero()
                                    ? what + " has ended"
                                    : what + " ends in " + left.toMillis()
                                            + " ms, too soon for a write to be answered");
        }
        return left;
    }

    /**
     * Admits one unit of work while a term is open; the permit must be closed when it ends.
     *
     * @throws OutsideTerm when no term is open
     */
    public Permit enter() {
        lock.lock();
        try {
            if (leftOf(timeLeft).isZero()) {
                throw new OutsideTerm("no leadership term is open");
            }
            running++;
            return new Permit(this);
        } finally {
            lock.unlock();
        }
    }

    /** Units of work admitted and not yet finished. */
    public int running() {
        lock.lock();
        try {
            return running;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until no admitted work is running, at most {@code budget}. Close the fence first, or new work may keep
     * it busy. Returns whether it became idle.
     */
    public boolean awaitIdle(Duration budget) throws InterruptedException {
        long left = budget.toNanos();
        lock.lock();
        try {
            while (running > 0) {
                if (left <= 0) {
                    return false;
                }
                left = idle.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void exit() {
        lock.lock();
        try {
            if (--running == 0) {
                idle.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** One admitted unit of work; closing it twice counts once. */
    public static final class Permit implements AutoCloseable {
        private final WorkFence fence;
        private boolean closed;

        private Permit(WorkFence fence) {
            this.fence = fence;
        }

        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                fence.exit();
            }
        }
    }

    /** Work or a write outside a leadership term: refused, not failed — the next leader does it. */
    public static final class OutsideTerm extends RuntimeException {
        public OutsideTerm(String message) {
            super(message);
        }
    }
}
