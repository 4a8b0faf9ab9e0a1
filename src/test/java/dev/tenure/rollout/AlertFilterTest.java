package dev.tenure.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.rollout.AlertFilter.Alert;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which active alerts close the gate. The first rows are Kured's own ({@code pkg/blockers/prometheus_test.go},
 * {@code TestActiveAlerts}, on its sample answer of five ALERTS: four firing, one pending), each flag combination
 * written in this spec's terms: {@code --alert-filter-regexp=R} is {@code exclude: [R]}, with
 * {@code --alert-filter-match-only} it is {@code include: [R]}; {@code --alert-firing-only} is {@code firingOnly}.
 */
class AlertFilterTest {

    /** Kured's sample answer, as samples. */
    static final List<Alert> KURED = List.of(
            new Alert("GatekeeperViolations", "firing", 1),
            new Alert("PodCrashing-dev", "firing", 1),
            new Alert("PodRestart-dev", "firing", 1),
            new Alert("PrometheusTargetDown", "firing", 1),
            new Alert("ScheduledRebootFailing", "pending", 1));

    static AlertFilter filter(List<String> include, List<String> exclude, boolean firingOnly) {
        return AlertFilter.of(new AlertQuery("http://p:9090", include, exclude, firingOnly, Duration.ofSeconds(10)));
    }

    static Stream<Arguments> rows() {
        List<Alert> pendingRebootFailing = List.of(new Alert("ScheduledRebootFailing", "pending", 1));
        List<Alert> pendingRebootRequired = List.of(new Alert("RebootRequired", "pending", 1));
        return Stream.of(
                // Kured's rows
                Arguments.of("kured: filter \"\" excludes every name", KURED, List.of(), List.of(""), false, List.of()),
                Arguments.of(
                        "kured: filter Pod (unanchored) excludes the two Pod alerts",
                        KURED,
                        List.of(),
                        List.of("Pod"),
                        false,
                        List.of("GatekeeperViolations", "PrometheusTargetDown", "ScheduledRebootFailing")),
                Arguments.of(
                        "kured: filter Gatekeeper with match-only includes that one",
                        KURED,
                        List.of("Gatekeeper"),
                        List.of(),
                        false,
                        List.of("GatekeeperViolations")),
                Arguments.of(
                        "kured: no filter (its \"*\" does not compile, so none), pending counts",
                        KURED,
                        List.of(),
                        List.of(),
                        false,
                        List.of(
                                "GatekeeperViolations",
                                "PodCrashing-dev",
                                "PodRestart-dev",
                                "PrometheusTargetDown",
                                "ScheduledRebootFailing")),
                Arguments.of(
                        "kured: firing only leaves the pending one out",
                        KURED,
                        List.of(),
                        List.of(),
                        true,
                        List.of("GatekeeperViolations", "PodCrashing-dev", "PodRestart-dev", "PrometheusTargetDown")),
                Arguments.of(
                        "kured: a lone pending alert counts without firing only",
                        pendingRebootFailing,
                        List.of(),
                        List.of(),
                        false,
                        List.of("ScheduledRebootFailing")),
                Arguments.of(
                        "kured: RebootRequired excluded",
                        pendingRebootRequired,
                        List.of(),
                        List.of("RebootRequired"),
                        false,
                        List.of()),
                Arguments.of(
                        "kured: RebootRequired with match-only",
                        pendingRebootRequired,
                        List.of("RebootRequired"),
                        List.of(),
                        false,
                        List.of("RebootRequired")),
                // this spec's own: both lists, firing only by default, anchors, values
                Arguments.of(
                        "a pending alert does not count with firing only",
                        pendingRebootRequired,
                        List.of("RebootRequired"),
                        List.of(),
                        true,
                        List.of()),
                Arguments.of(
                        "include then exclude: Pod alerts except the dev restarts",
                        KURED,
                        List.of("^Pod"),
                        List.of("Restart"),
                        true,
                        List.of("PodCrashing-dev")),
                Arguments.of(
                        "any include regex may match",
                        KURED,
                        List.of("Gatekeeper", "TargetDown$"),
                        List.of(),
                        true,
                        List.of("GatekeeperViolations", "PrometheusTargetDown")),
                Arguments.of(
                        "an anchored include matches the whole name only",
                        KURED,
                        List.of("^Pod$"),
                        List.of(),
                        false,
                        List.of()),
                Arguments.of(
                        "a sample of value 0 does not count (Kured: sample.Value != 0)",
                        List.of(new Alert("Zero", "firing", 0), new Alert("NaN", "firing", Double.NaN)),
                        List.of(),
                        List.of(),
                        true,
                        List.of("NaN")),
                Arguments.of(
                        "one alert with two label sets is named once; names sorted",
                        List.of(
                                new Alert("B", "firing", 1),
                                new Alert("A", "firing", 1),
                                new Alert("B", "firing", 1),
                                new Alert("A", "pending", 1)),
                        List.of(),
                        List.of(),
                        true,
                        List.of("A", "B")),
                Arguments.of(
                        "RE2 syntax: a case-insensitive group",
                        KURED,
                        List.of("(?i)^gatekeeper"),
                        List.of(),
                        true,
                        List.of("GatekeeperViolations")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void countsTheAlertsKuredWould(
            String name,
            List<Alert> alerts,
            List<String> include,
            List<String> exclude,
            boolean firingOnly,
            List<String> expected) {
        assertThat(filter(include, exclude, firingOnly).counted(alerts)).isEqualTo(expected);
    }

    @Test
    void theGateIsOpenWhenNoAlertCounts() {
        AlertGate gate = filter(List.of("^NoSuchAlert$"), List.of(), true).gate(KURED);
        assertThat(gate.open()).isTrue();
        assertThat(gate.state()).isEqualTo("Open");
        assertThat(gate.reason()).isNull();
    }

    @Test
    void aClosedGateNamesTheAlertsThatCount() {
        AlertGate gate = filter(List.of(), List.of("Pod"), true).gate(KURED);
        assertThat(gate.open()).isFalse();
        assertThat(gate.reason()).isEqualTo(AlertGate.ALERTS_FIRING);
        assertThat(gate.message())
                .isEqualTo("AlertsFiring: 2 alert(s) firing, name not matching [Pod] in Prometheus:"
                        + " GatekeeperViolations, PrometheusTargetDown");
    }

    @Test
    void theMessageNamesTenAlertsAtMost() {
        List<Alert> many = IntStream.range(0, 25)
                .mapToObj(i -> new Alert(String.format("A%02d", i), "firing", 1))
                .toList();
        AlertGate gate = filter(List.of(), List.of(), true).gate(many);
        assertThat(gate.message())
                .startsWith("AlertsFiring: 25 alert(s) firing in Prometheus: A00, A01,")
                .contains("A09")
                .doesNotContain("A10")
                .endsWith("A09 and 15 more");
    }

    @Test
    void aNameWithAControlCharacterIsShownEscaped() {
        AlertGate gate = filter(List.of(), List.of(), true).gate(List.of(new Alert("Evil\u001b[2J", "firing", 1)));
        assertThat(gate.message()).doesNotContain("\u001b").contains("Evil\\u001b[2J");
    }
}
