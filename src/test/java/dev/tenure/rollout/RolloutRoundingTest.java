package dev.tenure.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * How {@code spec.maxUnavailable} and {@code spec.failureBudget} resolve against the selected nodes, each row beside
 * the upstream code it matches or departs from:
 *
 * <ul>
 *   <li>apimachinery {@code pkg/util/intstr/intstr.go} {@code GetScaledValueFromIntOrPercent}: a percentage is
 *       {@code floor(p * total / 100)} when {@code roundUp} is false (ceil when true); a count is itself.
 *   <li>kubernetes {@code pkg/controller/deployment/util/deployment_util.go} {@code ResolveFenceposts}: maxSurge rounds
 *       UP, maxUnavailable DOWN, and maxUnavailable becomes 1 only when both resolve to 0. A rollout has no surge
 *       (nodes are maintained in place), so its maxUnavailable is exactly ResolveFenceposts' with maxSurge 0: down,
 *       then 1 if 0.
 *   <li>cluster-api {@code internal/controllers/machinedeployment/mdutil/util.go} {@code ResolveFenceposts}: the same
 *       rule for a MachineDeployment's rolling update.
 *   <li>cluster-api {@code internal/controllers/machinehealthcheck/machinehealthcheck_controller.go}
 *       ({@code getMaxUnhealthy}, {@code isAllowedRemediation}): maxUnhealthy rounds DOWN with no minimum, and
 *       remediation goes on while {@code unhealthy <= maxUnhealthy}. Tenure's failureBudget pauses AT the budget
 *       ({@code failed >= budget}), so it rounds down with a minimum of 1: a budget of 0 would pause before the first
 *       node.
 * </ul>
 */
class RolloutRoundingTest {

    static Stream<Arguments> maxUnavailable() {
        return Stream.of(
                Arguments.of("intstr.go: a count is itself", new IntOrString(3), 10, 3),
                Arguments.of("intstr.go: a count is not capped by the total", new IntOrString(20), 10, 20),
                Arguments.of("intstr.go roundUp=false: 25% of 10 is floor(2.5) = 2", new IntOrString("25%"), 10, 2),
                Arguments.of(
                        "intstr.go roundUp=false: 50% of 11 is 5, never 6 (SUC #71)", new IntOrString("50%"), 11, 5),
                Arguments.of("intstr.go roundUp=false: 10% of 200 is 20", new IntOrString("10%"), 200, 20),
                Arguments.of(
                        "intstr.go roundUp=false: 33% of 100 is 33 (no float drift)", new IntOrString("33%"), 100, 33),
                Arguments.of(
                        "intstr.go roundUp=false: 29% of 100 is 29 (no float drift)", new IntOrString("29%"), 100, 29),
                Arguments.of("intstr.go roundUp=false: 100% of 7 is 7", new IntOrString("100%"), 7, 7),
                Arguments.of(
                        "deployment_util.go ResolveFenceposts, maxSurge 0: 1% of 2 floors to 0, becomes 1",
                        new IntOrString("1%"), 2, 1),
                Arguments.of(
                        "deployment_util.go ResolveFenceposts, maxSurge 0: 99% of 1 floors to 0, becomes 1",
                        new IntOrString("99%"), 1, 1),
                Arguments.of(
                        "mdutil/util.go ResolveFenceposts, maxSurge 0: 10% of 9 floors to 0, becomes 1",
                        new IntOrString("10%"), 9, 1),
                Arguments.of("Tenure: no node selected yet, 50% is still 1", new IntOrString("50%"), 0, 1),
                Arguments.of("Tenure: unset is 1 (Kured's and SUC's one at a time)", null, 10, 1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("maxUnavailable")
    void maxUnavailableRoundsDownThenOneAsResolveFencepostsWithoutSurge(
            String row, IntOrString value, int selected, int expected) {
        assertThat(RolloutSpecs.scaled(value, selected)).as(row).isEqualTo(expected);
    }

    static Stream<Arguments> failureBudget() {
        return Stream.of(
                Arguments.of("machinehealthcheck_controller.go: 40% of 5 floors to 2", new IntOrString("40%"), 5, 2),
                Arguments.of("machinehealthcheck_controller.go: 50% of 3 floors to 1", new IntOrString("50%"), 3, 1),
                Arguments.of(
                        "Tenure departs: 10% of 5 floors to 0 (MHC: no remediation at the first unhealthy); Tenure 1"
                                + " (pause at the first failure)",
                        new IntOrString("10%"), 5, 1),
                Arguments.of("Tenure: a count is itself", new IntOrString(2), 5, 2),
                Arguments.of("Tenure: unset is 1 (pause after the first failed node)", null, 50, 1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failureBudget")
    void failureBudgetRoundsDownWithAMinimumOfOne(String row, IntOrString value, int selected, int expected) {
        assertThat(RolloutSpecs.scaled(value, selected)).as(row).isEqualTo(expected);
    }
}
