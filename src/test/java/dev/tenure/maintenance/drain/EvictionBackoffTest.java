package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.WorkFence;
import dev.tenure.maintenance.drain.DrainPacing.Backoff;
import dev.tenure.maintenance.drain.DrainPlan.Action;
import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A pod's back-off after its eviction ({@link DrainPacing#after}): the API server's errors back it off, doubling;
 * an eviction the node lease's fence refused before it went out ({@link PodDrain.Result#NOT_SENT}) is no error of the
 * API server and neither starts, lengthens nor ends a back-off — a drain step that outlived its lease (a starved CPU)
 * leaves the pod to the next step, not to a back-off of up to {@link DrainPacing#MAX_ERROR_BACKOFF}.
 */
class EvictionBackoffTest {

    static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
    static final Duration POLL = Duration.ofSeconds(1);
    static final PodVerdict POD = new PodVerdict("shop", "web-1", "uid-1", Action.EVICT, "evict");

    static PodDrain.Outcome fenceRefused() {
        return PodDrain.notSent(POD, new WorkFence.OutsideTerm("node lease tenure-system/node-n4 has ended"));
    }

    static PodDrain.Outcome serverError() {
        return PodDrain.failure(POD, new KubernetesClientException("injected", 500, null));
    }

    static Optional<Backoff> backoff(int failures, long millisFromNow) {
        return Optional.of(new Backoff(failures, NOW.plusMillis(millisFromNow)));
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("fence refusal, no back-off before: none after", fenceRefused(), NONE, NONE),
                Arguments.of(
                        "fence refusal during a back-off: the back-off stays as it was",
                        fenceRefused(),
                        backoff(3, 2500),
                        backoff(3, 2500)),
                Arguments.of("server error, the first: one poll interval", serverError(), NONE, backoff(1, 1000)),
                Arguments.of(
                        "server error, the third in a row: doubled twice",
                        serverError(),
                        backoff(2, -1),
                        backoff(3, 4000)),
                Arguments.of(
                        "evicted after errors: the back-off ends",
                        new PodDrain.Outcome(POD, PodDrain.Result.EVICTED, "evicted"),
                        backoff(4, 3000),
                        NONE),
                Arguments.of(
                        "refused by a budget: no error back-off (evictionRetryDelay paces it)",
                        new PodDrain.Outcome(POD, PodDrain.Result.BLOCKED, "disruption budget"),
                        backoff(1, 500),
                        NONE));
    }

    static final Optional<Backoff> NONE = Optional.empty();

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theBackoffAfterAnOutcome(
            String name, PodDrain.Outcome outcome, Optional<Backoff> prior, Optional<Backoff> expected) {
        assertThat(DrainPacing.after(prior, outcome.attempt(), outcome.retryAfter(), POLL, NOW))
                .isEqualTo(expected);
    }

    @Test
    void aFenceRefusalIsNotSentAndSaysSo() {
        PodDrain.Outcome outcome = fenceRefused();

        assertThat(outcome.result()).isEqualTo(PodDrain.Result.NOT_SENT);
        assertThat(outcome.message()).isEqualTo("not sent: node lease tenure-system/node-n4 has ended");
    }

    /**
     * A starved drain: every step outlives the node lease's fence, ten in a row, each a second after the last. The pod
     * is never held back: the first step that sends within its lease sends it. As an error, the same ten refusals
     * would have held it for 5 min (1 s doubled to the cap) after the last.
     */
    @Test
    void stepsThatOutliveTheirLeaseNeverHoldThePodBack() {
        Optional<Backoff> backoff = Optional.empty();
        Instant at = NOW;
        for (int step = 0; step < 10; step++) {
            backoff = DrainPacing.after(backoff, fenceRefused().attempt(), Optional.empty(), POLL, at);
            at = at.plusSeconds(1);
        }

        assertThat(backoff).as("the pod's back-off after ten fence refusals").isEmpty();
    }
}
