package dev.tenure.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.bench.SurgeDrainBench.Arm;
import dev.tenure.bench.SurgeDrainBench.Result;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Row 17's verdict ({@link SurgeDrainBench#verdict}): a table of arm results, each row named after what it breaks, and
 * the words the verdict must say about it (none: the row holds).
 */
class SurgeDrainVerdictTest {

    static final int N = 10;

    /** Surge drained: 0 s without a Ready pod, N evictions (N refused first), 2 scale writes and 2 record patches each. */
    static Result surgeDrained() {
        return new Result("drained", 41.4, 0, 0, 0, 0, N, N, 12, 2L * N, 4L * N, 0, 3.0);
    }

    /** Timed out on the budgets: every eviction refused, nothing written, replicas untouched. */
    static Result timedOut(long scaleWrites, long workloadWrites) {
        return new Result("timed out", 62.1, 0, 0, 0, 0, 0, 27, 30, scaleWrites, workloadWrites, 0, 1.0);
    }

    /** The control: drained without budgets, each single replica briefly without a Ready pod. */
    static Result controlDrained() {
        return new Result("drained", 5.8, 26.1, N, N, 3.2, N, 0, 4, 0, 0, 0, 4.0);
    }

    static Map<Arm, Result> holding() {
        Map<Arm, Result> m = new EnumMap<>(Arm.class);
        m.put(Arm.KUBECTL, timedOut(0, 0));
        m.put(Arm.EVICT, timedOut(0, 0));
        m.put(Arm.SURGE, surgeDrained());
        m.put(Arm.SURGE_MAX_UNAVAILABLE_0, timedOut(0, 0));
        m.put(Arm.NO_BUDGETS, controlDrained());
        return m;
    }

    static Arguments row(String name, UnaryOperator<Map<Arm, Result>> change, List<String> says) {
        return Arguments.of(name, change, says);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("every arm as expected: the row holds", m -> m, List.of()),
                row(
                        "kubectl absent: its arm not judged",
                        m -> {
                            m.remove(Arm.KUBECTL);
                            return m;
                        },
                        List.of()),
                row(
                        "maxUnavailable 0 arm raised a Deployment and gave it back (timed out, replicas as they were)",
                        m -> {
                            m.put(Arm.SURGE_MAX_UNAVAILABLE_0, timedOut(6, 12));
                            return m;
                        },
                        List.of("should write nothing to a workload", "budget forbids it")),
                row(
                        "maxUnavailable 0 arm wrote a record but no scale took effect",
                        m -> {
                            m.put(Arm.SURGE_MAX_UNAVAILABLE_0, timedOut(0, 1));
                            return m;
                        },
                        List.of("should write nothing to a workload", "no scale and no record")),
                row(
                        "Surge left a Deployment without a Ready pod",
                        m -> {
                            m.put(
                                    Arm.SURGE,
                                    new Result("drained", 41.4, 1.5, 1, 1, 1.5, N, N, 12, 2L * N, 4L * N, 0, 3.0));
                            return m;
                        },
                        List.of("Surge should drain every pod with no second without a Ready pod")),
                row(
                        "Evict drained (an eviction the budget should refuse was accepted)",
                        m -> {
                            m.put(Arm.EVICT, new Result("drained", 5, 0, 0, 0, 0, N, 0, 4, 0, 0, 0, 1));
                            return m;
                        },
                        List.of("Tenure, evacuation Evict (default) should time out")),
                row(
                        "the control shows no gap: the measure does not measure",
                        m -> {
                            m.put(Arm.NO_BUDGETS, new Result("drained", 5.8, 0, 0, 0, 0, N, 0, 4, 0, 0, 0, 4.0));
                            return m;
                        },
                        List.of("the control (no budgets)")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void judgesTheRow(String name, UnaryOperator<Map<Arm, Result>> change, List<String> says) {
        List<String> wrong = SurgeDrainBench.verdict(change.apply(holding()), N);

        if (says.isEmpty()) {
            assertThat(wrong).isEmpty();
        } else {
            assertThat(wrong).singleElement().asString().contains(says);
        }
    }
}
