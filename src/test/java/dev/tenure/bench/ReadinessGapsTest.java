package dev.tenure.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.bench.ReadinessGaps.Gap;
import dev.tenure.bench.ReadinessGaps.PodSeen;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ReadinessGapsTest {

    static final long S = 1_000_000_000L;

    static PodSeen ready(double seconds, String workload, String pod) {
        return new PodSeen((long) (seconds * S), workload, pod, true);
    }

    static PodSeen gone(double seconds, String workload, String pod) {
        return new PodSeen((long) (seconds * S), workload, pod, false);
    }

    /** Window [10 s, 30 s] for workload "a"; its seconds without a Ready pod and the spells. */
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("ready throughout", List.of(ready(0, "a", "a-1")), 0.0, 0),
                Arguments.of(
                        "evicted, replacement Ready 3 s later: the gap counts",
                        List.of(ready(0, "a", "a-1"), gone(12, "a", "a-1"), ready(15, "a", "a-2")),
                        3.0,
                        1),
                Arguments.of(
                        "surge: the new pod Ready before the old one goes",
                        List.of(ready(0, "a", "a-1"), ready(12, "a", "a-2"), gone(14, "a", "a-1")),
                        0.0,
                        0),
                Arguments.of(
                        "two gaps are summed",
                        List.of(
                                ready(0, "a", "a-1"),
                                gone(11, "a", "a-1"),
                                ready(12, "a", "a-2"),
                                gone(20, "a", "a-2"),
                                ready(22.5, "a", "a-3")),
                        3.5,
                        2),
                Arguments.of(
                        "a pod turning not Ready while another stays Ready: no gap",
                        List.of(ready(0, "a", "a-1"), ready(0, "a", "a-2"), gone(12, "a", "a-1")),
                        0.0,
                        0),
                Arguments.of(
                        "an update of the same pod still Ready does not open a gap",
                        List.of(ready(0, "a", "a-1"), ready(12, "a", "a-1"), gone(13, "a", "a-2")),
                        0.0,
                        0),
                Arguments.of(
                        "without a Ready pod at the window's start: counted from the start",
                        List.of(gone(0, "a", "a-1"), ready(14, "a", "a-2")),
                        4.0,
                        1),
                Arguments.of(
                        "a gap still open at the window's end: counted to the end",
                        List.of(ready(0, "a", "a-1"), gone(26, "a", "a-1")),
                        4.0,
                        1),
                Arguments.of(
                        "changes after the window are not counted",
                        List.of(ready(0, "a", "a-1"), gone(31, "a", "a-1")),
                        0.0,
                        0),
                Arguments.of(
                        "a gap that began before the window counts from the start",
                        List.of(ready(0, "a", "a-1"), gone(5, "a", "a-1"), ready(12, "a", "a-2")),
                        2.0,
                        1),
                Arguments.of("never seen: the whole window", List.of(), 20.0, 1),
                Arguments.of(
                        "another workload's gap is not this one's",
                        List.of(ready(0, "a", "a-1"), ready(0, "b", "b-1"), gone(12, "b", "b-1")),
                        0.0,
                        0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void secondsWithoutAReadyPod(String name, List<PodSeen> seen, double seconds, int spells) {
        Gap gap = ReadinessGaps.of(List.of("a"), seen, 10 * S, 30 * S).get("a");

        assertThat(gap.seconds()).isCloseTo(seconds, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(gap.spells()).isEqualTo(spells);
    }

    @Test
    void theTotalSumsEveryWorkload() {
        Map<String, Gap> gaps = ReadinessGaps.of(
                List.of("a", "b", "c"),
                List.of(
                        ready(0, "a", "a-1"),
                        ready(0, "b", "b-1"),
                        ready(0, "c", "c-1"),
                        gone(11, "a", "a-1"),
                        ready(12, "a", "a-2"),
                        gone(20, "b", "b-1"),
                        ready(22, "b", "b-2")),
                10 * S,
                30 * S);

        assertThat(ReadinessGaps.totalSeconds(gaps)).isCloseTo(3.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(gaps.get("c")).isEqualTo(Gap.NONE);
    }

    @Test
    void aWindowThatEndsBeforeItStartsIsRefused() {
        assertThatThrownBy(() -> ReadinessGaps.of(List.of("a"), List.of(), 2, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("before it starts");
    }
}
