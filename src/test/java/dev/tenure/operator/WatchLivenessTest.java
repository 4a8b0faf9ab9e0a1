package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.operator.WatchLiveness.Watch;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class WatchLivenessTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration GRACE = Duration.ofSeconds(120);

    private static Watch healthy(String name) {
        return new Watch(name, true, true, true);
    }

    /** name, watches at T0, watches at T0 + after, after, expected live at the second look, expected detail. */
    static Stream<Arguments> cases() {
        Watch notWatching = new Watch("nm/nodes", true, false, true);
        Watch stopped = new Watch("nm/nodes", false, false, true);
        Watch unsynced = new Watch("nm/nodes", true, true, false);
        return Stream.of(
                Arguments.of(
                        "all healthy",
                        List.of(healthy("nm/nodes")),
                        List.of(healthy("nm/nodes")),
                        Duration.ofMinutes(10),
                        true,
                        "watching"),
                Arguments.of(
                        "not watching within grace",
                        List.of(notWatching),
                        List.of(notWatching),
                        GRACE,
                        true,
                        "not watching for 120s"),
                Arguments.of(
                        "not watching past grace",
                        List.of(notWatching),
                        List.of(notWatching),
                        GRACE.plusSeconds(1),
                        false,
                        "not watching for 121s (longer than tenure.health.watch-grace 120s)"),
                // Issue 16: a stopped informer (e.g. after an object it could not read) is dead at once, not after
                // grace.
                Arguments.of(
                        "stopped: dead at once",
                        List.of(stopped),
                        List.of(stopped),
                        Duration.ofSeconds(1),
                        false,
                        "stopped for 1s (a stopped informer does not restart by itself)"),
                Arguments.of(
                        "never synced past grace",
                        List.of(unsynced),
                        List.of(unsynced),
                        GRACE.plusSeconds(5),
                        false,
                        "not synced for 125s (longer than tenure.health.watch-grace 120s)"),
                Arguments.of(
                        "recovered in between resets the count",
                        List.of(notWatching),
                        List.of(healthy("nm/nodes")),
                        GRACE.plusSeconds(1),
                        true,
                        "watching"),
                Arguments.of(
                        "unhealthy only at the second look starts the count then",
                        List.of(healthy("nm/nodes")),
                        List.of(notWatching),
                        GRACE.plusSeconds(1),
                        true,
                        "not watching for 0s"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void verdict(String name, List<Watch> first, List<Watch> second, Duration after, boolean live, String detail) {
        WatchLiveness liveness = new WatchLiveness(GRACE);
        liveness.assess(first, T0);
        WatchLiveness.Verdict verdict = liveness.assess(second, T0.plus(after));
        assertThat(verdict.live()).isEqualTo(live);
        assertThat(verdict.details()).containsEntry("nm/nodes", detail);
    }

    @Test
    void oneDeadWatchAmongHealthyOnesFailsTheProbeAndNamesIt() {
        WatchLiveness liveness = new WatchLiveness(Duration.ZERO);
        List<Watch> watches = List.of(healthy("a"), new Watch("b", true, false, true), healthy("c"));
        liveness.assess(watches, T0);
        WatchLiveness.Verdict verdict = liveness.assess(watches, T0.plusMillis(1500));
        assertThat(verdict.live()).isFalse();
        assertThat(verdict.details())
                .containsEntry("a", "watching")
                .containsEntry("c", "watching")
                .containsEntry("b", "not watching for 1s (longer than tenure.health.watch-grace 0s)");
    }

    @Test
    void aWatchThatWentAwayIsForgottenSoItsReturnStartsAfresh() {
        WatchLiveness liveness = new WatchLiveness(GRACE);
        Watch down = new Watch("x", true, false, true);
        liveness.assess(List.of(down), T0);
        liveness.assess(List.of(), T0.plusSeconds(60)); // leadership ended: no watches
        WatchLiveness.Verdict verdict =
                liveness.assess(List.of(down), T0.plus(GRACE).plusSeconds(30));
        assertThat(verdict.live()).isTrue();
        assertThat(verdict.details()).containsEntry("x", "not watching for 0s");
    }

    @Test
    void aNegativeGraceIsRejectedNamingTheSetting() {
        assertThatThrownBy(() -> new WatchLiveness(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tenure.health.watch-grace");
    }
}
