package dev.tenure.rollout;

import com.google.re2j.Pattern;
import dev.tenure.kube.UserText;
import java.util.List;
import java.util.TreeSet;

/**
 * Which active alerts close the gate: Kured's Prometheus blocker ({@code pkg/blockers/prometheus.go},
 * {@code PrometheusBlockingChecker.ActiveAlerts}), read from the same {@code ALERTS} series. A sample counts when it
 * has an {@code alertname}, its value is not 0, and (with {@code firingOnly}) its {@code alertstate} is
 * {@code firing}, not {@code pending} (Kured's {@code --alert-firing-only}); its name must then be matched by one
 * {@code include} regex when there are any (Kured's {@code --alert-filter-regexp} with
 * {@code --alert-filter-match-only}) and by no {@code exclude} regex (the same flag without it). Regexes are RE2 as
 * Go's {@code regexp} and matched as its {@code MatchString}: anywhere in the name. Kured takes one regex in one of
 * the two roles; a rollout takes lists in both. Names are counted once, sorted. Pure.
 */
public final class AlertFilter {

    /** One sample of {@code ALERTS}: its {@code alertname}, its {@code alertstate} and its value. */
    public record Alert(String name, String state, double value) {}

    private final List<Pattern> include;
    private final List<Pattern> exclude;
    private final boolean firingOnly;
    private final String described;

    private AlertFilter(List<Pattern> include, List<Pattern> exclude, boolean firingOnly, String described) {
        this.include = include;
        this.exclude = exclude;
        this.firingOnly = firingOnly;
        this.described = described;
    }

    /**
     * The filter of a checked query.
     *
     * @throws com.google.re2j.PatternSyntaxException for a regex {@link RolloutSpecs#problems} would have refused
     */
    public static AlertFilter of(AlertQuery query) {
        return new AlertFilter(
                query.include().stream().map(Pattern::compile).toList(),
                query.exclude().stream().map(Pattern::compile).toList(),
                query.firingOnly(),
                query.describe());
    }

    /** Whether one sample counts. */
    public boolean counts(Alert alert) {
        if (alert.name() == null || alert.value() == 0) {
            return false;
        }
        if (firingOnly && !"firing".equals(alert.state())) {
            return false;
        }
        if (!include.isEmpty()
                && include.stream().noneMatch(p -> p.matcher(alert.name()).find())) {
            return false;
        }
        return exclude.stream().noneMatch(p -> p.matcher(alert.name()).find());
    }

    /** The names of the alerts that count, each once, sorted. */
    public List<String> counted(List<Alert> alerts) {
        TreeSet<String> names = new TreeSet<>();
        for (Alert a : alerts) {
            if (counts(a)) {
                names.add(a.name());
            }
        }
        return List.copyOf(names);
    }

    /** The gate Prometheus's answer gives: open when no alert counts, else closed naming at most 10 of them. */
    public AlertGate gate(List<Alert> alerts) {
        List<String> names = counted(alerts);
        if (names.isEmpty()) {
            return AlertGate.OPEN;
        }
        StringBuilder m = new StringBuilder(AlertGate.ALERTS_FIRING + ": ")
                .append(names.size())
                .append(" alert(s) ")
                .append(UserText.printable(described))
                .append(" in Prometheus: ");
        for (int i = 0; i < Math.min(names.size(), AlertGate.MAX_NAMED); i++) {
            m.append(i == 0 ? "" : ", ").append(UserText.printable(shortened(names.get(i))));
        }
        if (names.size() > AlertGate.MAX_NAMED) {
            m.append(" and ").append(names.size() - AlertGate.MAX_NAMED).append(" more");
        }
        return AlertGate.firing(m.toString());
    }

    private static String shortened(String name) {
        return name.length() <= 100 ? name : name.substring(0, 100) + "…";
    }
}
