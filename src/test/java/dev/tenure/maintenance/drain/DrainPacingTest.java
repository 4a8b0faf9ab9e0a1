package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DrainPacingTest {

    static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
    static final Duration POLL = Duration.ofSeconds(2);
    static final Optional<Instant> NONE = Optional.empty();

    static Optional<Instant> ago(long millis) {
        return Optional.of(NOW.minusMillis(millis));
    }

    static Optional<Instant> in(long millis) {
        return Optional.of(NOW.plusMillis(millis));
    }

    static DrainPacing.Progress progress(
            int leftToSend,
            boolean failed,
            boolean terminating,
            Optional<Instant> lastBatchAt,
            Optional<Instant> firstRetryAt,
            Optional<Instant> deadline) {
        return new DrainPacing.Progress(leftToSend, failed, terminating, lastBatchAt, firstRetryAt, deadline, false);
    }

    /** As {@link #progress}, the fence having refused an eviction of the batch before it went out. */
    static DrainPacing.Progress fenceRefused(
            int leftToSend, boolean terminating, Optional<Instant> lastBatchAt, Optional<Instant> firstRetryAt) {
        return new DrainPacing.Progress(leftToSend, false, terminating, lastBatchAt, firstRetryAt, NONE, true);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(
                        "more pods than the batch: next batch at once",
                        progress(100, false, true, ago(0), NONE, NONE),
                        Duration.ZERO),
                Arguments.of(
                        "more pods, some refused by a PDB: next batch still at once",
                        progress(9, false, true, ago(0), in(5000), NONE),
                        Duration.ZERO),
                Arguments.of(
                        "more pods but the batch failed: poll, not at once",
                        progress(100, true, false, NONE, NONE, NONE),
                        POLL),
                Arguments.of(
                        "the fence refused the whole batch: poll, not at once",
                        fenceRefused(2, false, NONE, NONE),
                        POLL),
                Arguments.of(
                        "the fence refused the batch, a PDB's retry after the poll: poll, not the retry",
                        fenceRefused(2, false, NONE, in(5000)),
                        POLL),
                Arguments.of(
                        "the fence refused part of a batch that evicted the rest: first look, not at once",
                        fenceRefused(1, true, ago(0), NONE),
                        DrainPacing.FIRST_LOOK),
                Arguments.of(
                        "last batch just sent: first look soon",
                        progress(0, false, true, ago(0), NONE, NONE),
                        DrainPacing.FIRST_LOOK),
                Arguments.of(
                        "terminating for 600 ms: look again in 600 ms",
                        progress(0, false, true, ago(600), NONE, NONE),
                        Duration.ofMillis(600)),
                Arguments.of(
                        "terminating for 10 s: the poll interval",
                        progress(0, false, true, ago(10_000), NONE, NONE),
                        POLL),
                Arguments.of(
                        "terminating, last batch unknown (restart): the poll interval",
                        progress(0, false, true, NONE, NONE, NONE),
                        POLL),
                Arguments.of(
                        "only PDB-refused pods: at the first retry, even past the poll interval",
                        progress(0, false, false, NONE, in(5000), NONE),
                        Duration.ofSeconds(5)),
                Arguments.of(
                        "terminating and refused: whichever comes first",
                        progress(0, false, true, ago(10_000), in(700), NONE),
                        Duration.ofMillis(700)),
                Arguments.of(
                        "retry due in 20 ms: the floor",
                        progress(0, false, false, NONE, in(20), NONE),
                        DrainPacing.MIN_WAIT),
                Arguments.of(
                        "failed batch, nothing else: the poll interval",
                        progress(0, true, false, NONE, NONE, NONE),
                        POLL),
                Arguments.of(
                        "timeout sooner than the poll: the timeout",
                        progress(0, false, true, ago(10_000), NONE, in(1500)),
                        Duration.ofMillis(1500)));
    }

    static Stream<Arguments> backoffs() {
        Optional<Duration> none = Optional.empty();
        return Stream.of(
                Arguments.of("first failure: the poll interval", 1, none, POLL),
                Arguments.of("second failure: twice the poll interval", 2, none, Duration.ofSeconds(4)),
                Arguments.of("fifth failure: 2^4 poll intervals", 5, none, Duration.ofSeconds(32)),
                Arguments.of("ninth failure: capped", 9, none, DrainPacing.MAX_ERROR_BACKOFF),
                Arguments.of("the thousandth failure: capped, no overflow", 1000, none, DrainPacing.MAX_ERROR_BACKOFF),
                Arguments.of(
                        "Retry-After longer than the back-off: honoured",
                        1,
                        Optional.of(Duration.ofSeconds(30)),
                        Duration.ofSeconds(30)),
                Arguments.of(
                        "Retry-After shorter than the back-off: the back-off",
                        3,
                        Optional.of(Duration.ofSeconds(1)),
                        Duration.ofSeconds(8)),
                Arguments.of(
                        "Retry-After of an hour: capped too",
                        1,
                        Optional.of(Duration.ofHours(1)),
                        DrainPacing.MAX_ERROR_BACKOFF));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backoffs")
    void errorBackoff(String name, int failures, Optional<Duration> retryAfter, Duration expected) {
        assertThat(DrainPacing.errorBackoff(failures, retryAfter, POLL)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void nextLook(String name, DrainPacing.Progress progress, Duration expected) {
        assertThat(DrainPacing.next(progress, POLL, NOW)).isEqualTo(expected);
    }
}
