package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.stream.LongStream;

/**
 * Seeded chaos trials run side by side, each on a cluster of its own ({@code OperatorChaosIT}'s kill trials,
 * {@code SurgeChaosIT}): one seed per trial, {@code parallel} trials at a time on daemon threads, every trial run to its
 * end however many fail, and the failed ones listed last, each with its seed, its replay line
 * ({@code -Dtenure.chaos.trial=<seed>}) and its trace. A suite gives the trial's body and what it prints; the loop,
 * the replay and the failure report are this one.
 *
 * @param name the suite's words in its report lines ("surge chaos": "FAILED surge chaos trial 42 (...)")
 * @param threadName the trial threads' name, numbered from 1 ("chaos-surge-trial-": chaos-surge-trial-1, -2...)
 * @param parallel trials at a time as asked; at least 1 and at most the number of seeds are run
 */
public record SeededTrials(String name, String threadName, int parallel) {

    /** What one trial saw: {@code problems} empty when it passed. A trial's body never throws. */
    public interface Outcome {
        long seed();

        /** The trial's wall time, in milliseconds. */
        long millis();

        List<String> problems();

        String trace();
    }

    /** A finished run: the outcomes in the order the trials ended, the trials run at a time, its wall time (ms). */
    public record Ran<T extends Outcome>(List<T> outcomes, int parallel, long wallMillis) {
        /** The trials' wall times (ms), shortest first. */
        public long[] sortedMillis() {
            return outcomes.stream().mapToLong(Outcome::millis).sorted().toArray();
        }
    }

    /**
     * The seeds of a run: {@code first}, {@code first + 1}... ({@code count} of them), or {@code count} times the
     * replayed seed when one is given ({@code -Dtenure.chaos.trial}).
     */
    public static List<Long> seeds(long first, int count, Long replay) {
        return LongStream.range(0, count)
                .mapToObj(i -> replay != null ? replay : first + i)
                .toList();
    }

    /**
     * Runs {@code trial} once per seed, {@link #parallel} at a time, and waits for all of them; after each trial,
     * {@code ended} is given its outcome and the outcomes so far (its own included), on the trial's thread.
     *
     * @throws Exception when a trial's body threw (it should not: what goes wrong is one of its problems)
     */
    public <T extends Outcome> Ran<T> run(List<Long> seeds, LongFunction<T> trial, BiConsumer<T, Collection<T>> ended)
            throws Exception {
        int atATime = Math.max(1, Math.min(parallel, seeds.size()));
        long started = System.nanoTime();
        Queue<T> done = new ConcurrentLinkedQueue<>();
        AtomicInteger threads = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(atATime, r -> {
            Thread t = new Thread(r, threadName + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> trials = new ArrayList<>();
            for (long seed : seeds) {
                trials.add(pool.submit(() -> {
                    T outcome = trial.apply(seed);
                    done.add(outcome);
                    ended.accept(outcome, done);
                }));
            }
            for (Future<?> t : trials) {
                t.get();
            }
        } finally {
            pool.shutdownNow();
        }
        return new Ran<>(List.copyOf(done), atATime, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    /**
     * Prints every failed trial (its problems, replay line and trace), then asserts that none failed and that every
     * one of {@code seeds} trials ran.
     *
     * @param what a trial's fault and point in a few words, shown after its seed
     */
    public <T extends Outcome> void assertAllPassed(Ran<T> ran, int seeds, Function<T, String> what) {
        List<T> failed =
                ran.outcomes().stream().filter(o -> !o.problems().isEmpty()).toList();
        for (T o : failed) {
            System.out.println("FAILED " + name + " trial " + o.seed() + " (" + what.apply(o)
                    + "; replay: -Dtenure.chaos.trial=" + o.seed() + "):\n  " + String.join("\n  ", o.problems())
                    + "\n" + o.trace());
        }
        assertThat(failed.stream()
                        .map(o -> o.seed() + " (" + what.apply(o) + "): " + String.join("; ", o.problems())
                                + " — replay: -Dtenure.chaos.trial=" + o.seed())
                        .toList())
                .as("%s trials that failed (each trace printed above)", name)
                .isEmpty();
        assertThat(ran.outcomes()).as("every %s trial ran", name).hasSize(seeds);
    }
}
