package dev.tenure.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.rollout.api.DoneWhen;
import dev.tenure.rollout.api.HealthGate;
import dev.tenure.rollout.api.PrometheusAlerts;
import dev.tenure.rollout.api.RolloutSpec;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each wrong field of a rollout is refused with a message naming it. */
class RolloutSpecsTest {

    static RolloutSpec valid() {
        RolloutSpec spec = new RolloutSpec();
        spec.setNodeSelector(
                new LabelSelectorBuilder().addToMatchLabels("pool", "a").build());
        DoneWhen done = new DoneWhen();
        done.setRebooted(true);
        spec.setDoneWhen(done);
        return spec;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("valid", (Consumer<RolloutSpec>) s -> {}, null),
                Arguments.of(
                        "no nodes at all",
                        (Consumer<RolloutSpec>) s -> s.setNodeSelector(null),
                        "spec.nodeSelector, spec.nodes"),
                Arguments.of(
                        "a bad node name",
                        (Consumer<RolloutSpec>) s -> s.setNodes(List.of("Bad_Name")),
                        "spec.nodes[0]"),
                Arguments.of(
                        "maxUnavailable 0",
                        (Consumer<RolloutSpec>) s -> s.setMaxUnavailable(new IntOrString(0)),
                        "spec.maxUnavailable: must be at least 1"),
                Arguments.of(
                        "maxUnavailable not a percentage",
                        (Consumer<RolloutSpec>) s -> s.setMaxUnavailable(new IntOrString("ten")),
                        "spec.maxUnavailable"),
                Arguments.of(
                        "maxUnavailable 0%",
                        (Consumer<RolloutSpec>) s -> s.setMaxUnavailable(new IntOrString("0%")),
                        "spec.maxUnavailable: a percentage from 1%"),
                Arguments.of(
                        "failureBudget 0",
                        (Consumer<RolloutSpec>) s -> s.setFailureBudget(new IntOrString(0)),
                        "spec.failureBudget"),
                Arguments.of(
                        "per domain 0",
                        (Consumer<RolloutSpec>) s -> s.setMaxUnavailablePerDomain(0),
                        "spec.maxUnavailablePerDomain"),
                Arguments.of("no done signal", (Consumer<RolloutSpec>) s -> s.setDoneWhen(null), "spec.doneWhen"),
                Arguments.of(
                        "two done signals",
                        (Consumer<RolloutSpec>) s -> s.getDoneWhen().setManual(true),
                        "spec.doneWhen: set exactly one"),
                Arguments.of(
                        "a label without a value",
                        (Consumer<RolloutSpec>) s -> {
                            s.getDoneWhen().setRebooted(null);
                            s.getDoneWhen().setLabel("upgraded");
                        },
                        "spec.doneWhen.label: must be key=value"),
                Arguments.of(
                        "a bad soak",
                        (Consumer<RolloutSpec>) s -> {
                            HealthGate h = new HealthGate();
                            h.setSoak("ten minutes");
                            s.setHealth(h);
                        },
                        "spec.health.soak"),
                Arguments.of(
                        "a bad gateTimeout",
                        (Consumer<RolloutSpec>) s -> {
                            HealthGate h = new HealthGate();
                            h.setGateTimeout("soon");
                            s.setHealth(h);
                        },
                        "spec.health.gateTimeout"),
                Arguments.of(
                        "a gateTimeout of 0s (the rollout would pause at once)",
                        (Consumer<RolloutSpec>) s -> {
                            HealthGate h = new HealthGate();
                            h.setGateTimeout("0s");
                            s.setHealth(h);
                        },
                        "spec.health.gateTimeout: must be more than 0s, was \"0s\""),
                Arguments.of(
                        "a bad selector operator",
                        (Consumer<RolloutSpec>) s -> s.setNodeSelector(new LabelSelectorBuilder()
                                .addNewMatchExpression()
                                .withKey("k")
                                .withOperator("Is")
                                .endMatchExpression()
                                .build()),
                        "spec.nodeSelector.matchExpressions[0].operator"),
                Arguments.of(
                        "alerts without a Prometheus",
                        alerts(a -> a.setPrometheusURL(null)),
                        "spec.health.alerts.prometheusURL: required"),
                Arguments.of(
                        "alerts with a URL that is not http",
                        alerts(a -> a.setPrometheusURL("prometheus:9090")),
                        "spec.health.alerts.prometheusURL: an http or https URL"),
                Arguments.of(
                        "alerts with credentials in the URL",
                        alerts(a -> a.setPrometheusURL("http://admin:secret@prometheus:9090")),
                        "spec.health.alerts.prometheusURL: an http or https URL"),
                Arguments.of(
                        "alerts with a query in the URL",
                        alerts(a -> a.setPrometheusURL("http://prometheus:9090/?x=1")),
                        "spec.health.alerts.prometheusURL"),
                Arguments.of(
                        "an include that is not a regex",
                        alerts(a -> a.setInclude(List.of("Node.*", "*"))),
                        "spec.health.alerts.include[1]: not an RE2 regex"),
                Arguments.of(
                        "an exclude Java takes and RE2 does not (a backreference)",
                        alerts(a -> a.setExclude(List.of("(a)\\1"))),
                        "spec.health.alerts.exclude[0]: not an RE2 regex"),
                Arguments.of(
                        "an interval below 1s",
                        alerts(a -> a.setInterval("500ms")),
                        "spec.health.alerts.interval: from 1s to 1h"),
                Arguments.of(
                        "an interval that is no duration",
                        alerts(a -> a.setInterval("often")),
                        "spec.health.alerts.interval"),
                Arguments.of(
                        "alerts as they should be",
                        alerts(a -> {
                            a.setInclude(List.of("^Node", "(?i)etcd"));
                            a.setExclude(List.of("^Tenure"));
                            a.setInterval("30s");
                        }),
                        null));
    }

    static Consumer<RolloutSpec> alerts(Consumer<PrometheusAlerts> change) {
        return s -> {
            PrometheusAlerts a = new PrometheusAlerts();
            a.setPrometheusURL("http://prometheus.monitoring:9090/");
            change.accept(a);
            HealthGate h = new HealthGate();
            h.setAlerts(a);
            s.setHealth(h);
        };
    }

    @Test
    void theAlertQueryTakesItsDefaults() {
        RolloutSpec spec = valid();
        assertThat(RolloutSpecs.alertQuery(spec)).isNull();
        alerts(a -> {}).accept(spec);
        assertThat(RolloutSpecs.alertQuery(spec))
                .isEqualTo(new AlertQuery(
                        "http://prometheus.monitoring:9090/", List.of(), List.of(), true, Duration.ofSeconds(10)));
        spec.getHealth().getAlerts().setFiringOnly(false);
        spec.getHealth().getAlerts().setInterval("1m");
        assertThat(RolloutSpecs.alertQuery(spec).firingOnly()).isFalse();
        assertThat(RolloutSpecs.alertQuery(spec).interval()).isEqualTo(Duration.ofMinutes(1));
    }

    @org.junit.jupiter.api.Test
    void theGateDefaultsAreWorkloadsWholeOnAndThirtyMinutes() {
        RolloutSpec spec = valid();
        assertThat(RolloutSpecs.waitsForWholeWorkloads(spec)).isTrue();
        assertThat(RolloutSpecs.rules(spec, 3).gateTimeout()).isEqualTo(java.time.Duration.ofMinutes(30));
        HealthGate h = new HealthGate();
        h.setWorkloadsWhole(false);
        h.setGateTimeout("90s");
        spec.setHealth(h);
        assertThat(RolloutSpecs.waitsForWholeWorkloads(spec)).isFalse();
        assertThat(RolloutSpecs.rules(spec, 3).gateTimeout()).isEqualTo(java.time.Duration.ofSeconds(90));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void wrongFieldsAreNamed(String name, Consumer<RolloutSpec> change, String expected) {
        RolloutSpec spec = valid();
        change.accept(spec);
        List<String> problems = RolloutSpecs.problems(spec);
        if (expected == null) {
            assertThat(problems).isEmpty();
            assertThat(RolloutSpecs.rules(spec, 10).maxUnavailable()).isEqualTo(1);
        } else {
            assertThat(problems).anySatisfy(p -> assertThat(p).contains(expected));
        }
    }
}
