package dev.tenure.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Durations collected over trials, summarised as median, p95 and p99 (nearest rank). */
final class Samples {
    private final List<Duration> values = new ArrayList<>();
    private int failures;

    synchronized void add(Duration d) {
        values.add(d);
    }

    /** A trial that did not produce a value (e.g. no new leader within its bound). */
    synchronized void failed() {
        failures++;
    }

    synchronized int count() {
        return values.size();
    }

    synchronized int failures() {
        return failures;
    }

    synchronized double medianMillis() {
        return percentileMillis(50);
    }

    synchronized double p95Millis() {
        return percentileMillis(95);
    }

    synchronized double p99Millis() {
        return percentileMillis(99);
    }

    synchronized double maxMillis() {
        return percentileMillis(100);
    }

    private double percentileMillis(int p) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Duration> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, rank - 1)).toNanos() / 1e6;
    }
}
