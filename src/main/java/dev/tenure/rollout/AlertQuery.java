package dev.tenure.rollout;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A rollout's {@code spec.health.alerts} checked and resolved ({@link RolloutSpecs#alertQuery}): what to ask which
 * Prometheus and how to read its answer. A closed gate is asked again after {@code interval}; an edited query at
 * once.
 *
 * @param prometheusURL the base URL; the question is {@code GET <url>/api/v1/query?query=ALERTS}
 * @param include alert-name regexes (RE2, unanchored) of which one must match for an alert to count; empty: all count
 * @param exclude alert-name regexes (RE2, unanchored) of which none may match for an alert to count
 * @param firingOnly only alerts with {@code alertstate="firing"} count
 * @param interval how long an answer that closed the gate is used before Prometheus is asked again
 */
public record AlertQuery(
        String prometheusURL, List<String> include, List<String> exclude, boolean firingOnly, Duration interval) {

    public AlertQuery {
        Objects.requireNonNull(prometheusURL, "prometheusURL");
        include = include == null ? List.of() : List.copyOf(include);
        exclude = exclude == null ? List.of() : List.copyOf(exclude);
        Objects.requireNonNull(interval, "interval");
    }

    /** How the filter reads in a message: Kured's flags' meaning in this spec's terms. */
    String describe() {
        return (firingOnly ? "firing" : "firing or pending")
                + (include.isEmpty() ? "" : ", name matching " + include)
                + (exclude.isEmpty() ? "" : ", name not matching " + exclude);
    }
}
