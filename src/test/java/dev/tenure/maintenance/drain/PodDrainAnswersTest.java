package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.drain.DrainPlan.Action;
import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 50 items 7 and 10: how an eviction's error answer is read. A 429 is a PodDisruptionBudget's refusal only when
 * it says so (kube-apiserver's cause of type DisruptionBudget); API Priority and Fairness answers 429 too, with a
 * Retry-After, and that is an error to back off from, not a budget to wait for.
 */
class PodDrainAnswersTest {

    static final PodVerdict POD = new PodVerdict("shop", "web-1", "uid-1", Action.EVICT, "evict");

    /** kube-apiserver's budget refusal (pkg/registry/core/pod/storage/eviction.go). */
    static Status budgetRefusal() {
        return new StatusBuilder()
                .withCode(429)
                .withReason("TooManyRequests")
                .withMessage("Cannot evict pod as it would violate the pod's disruption budget.")
                .withNewDetails()
                .addNewCause()
                .withReason("DisruptionBudget")
                .withMessage("The disruption budget web needs 2 healthy pods and has 2 currently")
                .endCause()
                .endDetails()
                .build();
    }

    /** API Priority and Fairness's rejection (staging/src/k8s.io/apiserver/pkg/server/filters/priority-and-fairness.go). */
    static Status throttled() {
        return new StatusBuilder()
                .withCode(429)
                .withReason("TooManyRequests")
                .withMessage("Too many requests, please try again later.")
                .withNewDetails()
                .withRetryAfterSeconds(7)
                .endDetails()
                .build();
    }

    static Stream<Arguments> answers() {
        return Stream.of(
                Arguments.of(
                        "a budget's 429: blocked", 429, budgetRefusal(), PodDrain.Result.BLOCKED, Optional.empty()),
                Arguments.of(
                        "a budget's 429 from a server older than the cause: blocked by its message",
                        429,
                        new StatusBuilder()
                                .withCode(429)
                                .withMessage("Cannot evict pod as it would violate the pod's disruption budget.")
                                .build(),
                        PodDrain.Result.BLOCKED,
                        Optional.empty()),
                Arguments.of(
                        "priority and fairness's 429: an error with its Retry-After, not a budget",
                        429,
                        throttled(),
                        PodDrain.Result.FAILED,
                        Optional.of(Duration.ofSeconds(7))),
                Arguments.of(
                        "a 429 with no Status at all: an error, not a budget",
                        429,
                        null,
                        PodDrain.Result.FAILED,
                        Optional.empty()),
                Arguments.of(
                        "a 500: an error",
                        500,
                        new StatusBuilder()
                                .withCode(500)
                                .withMessage("etcd timeout")
                                .build(),
                        PodDrain.Result.FAILED,
                        Optional.empty()),
                Arguments.of(
                        "a 404: the pod is gone",
                        404,
                        new StatusBuilder().withCode(404).build(),
                        PodDrain.Result.GONE,
                        Optional.empty()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("answers")
    void anExceptionIsReadAsTheResponsePathReadsIt(
            String name, int code, Status status, PodDrain.Result expected, Optional<Duration> retryAfter) {
        KubernetesClientException e = new KubernetesClientException("answered " + code, code, status);

        PodDrain.Outcome outcome = PodDrain.failure(POD, e);

        assertThat(outcome.result()).isEqualTo(expected);
        assertThat(outcome.retryAfter()).isEqualTo(retryAfter);
        if (expected == PodDrain.Result.FAILED && code == 429) {
            assertThat(outcome.message()).contains("not a PodDisruptionBudget");
        }
    }

    static Stream<Arguments> retryAfters() {
        return Stream.of(
                Arguments.of("header in seconds", "12", null, Optional.of(Duration.ofSeconds(12))),
                Arguments.of("header wins over the Status", "3", throttled(), Optional.of(Duration.ofSeconds(3))),
                Arguments.of(
                        "no header: the Status's retryAfterSeconds",
                        null,
                        throttled(),
                        Optional.of(Duration.ofSeconds(7))),
                Arguments.of(
                        "an HTTP date is not read: the Status's",
                        "Wed, 21 Oct 2026 07:28:00 GMT",
                        throttled(),
                        Optional.of(Duration.ofSeconds(7))),
                Arguments.of("zero: none", "0", null, Optional.empty()),
                Arguments.of("neither: none", null, budgetRefusal(), Optional.empty()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("retryAfters")
    void retryAfter(String name, String header, Status status, Optional<Duration> expected) {
        assertThat(PodDrain.retryAfter(header, status)).isEqualTo(expected);
    }
}
