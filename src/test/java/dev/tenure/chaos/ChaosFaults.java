package dev.tenure.chaos;

import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.Faults;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * The chaos fault mix on the emulated API server's fault hook: of the requests matching a predicate,
 * 10 % are hit — answered 409, 429 or 500 (2.5 % each), or delayed by 300 ms or 1 s (a slow API server /
 * client timeout; 1.25 % each). Counts what it injected, for the run's report. The draws come from a
 * seeded Random, so the same seed gives the same fault sequence for the same request order.
 */
final class ChaosFaults {
    private final Random random;
    private final Map<String, AtomicInteger> injected = new TreeMap<>();

    private ChaosFaults(long seed) {
        this.random = new Random(seed);
    }

    static ChaosFaults install(Faults faults, long seed, Predicate<ApiRequest> target) {
        ChaosFaults chaos = new ChaosFaults(seed);
        for (int status : new int[] {409, 429, 500}) {
            faults.failNext(Integer.MAX_VALUE, target.and(chaos.draw(0.025, "HTTP " + status)), status);
        }
        faults.delayNext(Integer.MAX_VALUE, target.and(chaos.draw(0.0125, "delay 300ms")), Duration.ofMillis(300));
        faults.delayNext(Integer.MAX_VALUE, target.and(chaos.draw(0.0125, "delay 1s")), Duration.ofSeconds(1));
        return chaos;
    }

    private Predicate<ApiRequest> draw(double probability, String kind) {
        AtomicInteger count = new AtomicInteger();
        synchronized (injected) {
            injected.put(kind, count);
        }
        return r -> {
            boolean hit;
            synchronized (random) {
                hit = random.nextDouble() < probability;
            }
            if (hit) {
                count.incrementAndGet();
            }
            return hit;
        };
    }

    int total() {
        synchronized (injected) {
            return injected.values().stream().mapToInt(AtomicInteger::get).sum();
        }
    }

    @Override
    public String toString() {
        synchronized (injected) {
            return injected.toString();
        }
    }
}
