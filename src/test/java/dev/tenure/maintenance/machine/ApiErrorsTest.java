package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** An API error in status and events: one line with the HTTP code and reason, never fabric8's dump (issue 38, 5). */
class ApiErrorsTest {

    static Status status(int code, String reason, String message) {
        return new StatusBuilder()
                .withCode(code)
                .withReason(reason)
                .withMessage(message)
                .build();
    }

    static Stream<Arguments> errors() {
        return Stream.of(
                Arguments.of(
                        "a Status body",
                        new KubernetesClientException(
                                "Failure executing: PATCH at: https://x/api/v1/nodes/n1/status. Message: boom."
                                        + " Received status: Status(apiVersion=v1, code=500, details=null, kind=Status)",
                                500,
                                status(500, "InternalError", "etcdserver: request timed out")),
                        "HTTP 500 InternalError: etcdserver: request timed out"),
                Arguments.of(
                        "a message on several lines",
                        new KubernetesClientException("x", 422, status(422, "Invalid", "spec.taints: Invalid\n value")),
                        "HTTP 422 Invalid: spec.taints: Invalid value"),
                Arguments.of(
                        "no Status body: the client's first line, without its dump",
                        new KubernetesClientException(
                                "Failure executing: GET at: https://x/api/v1/nodes/n1. Status(apiVersion=v1)\nmore",
                                503,
                                null),
                        "HTTP 503: Failure executing: GET at: https://x/api/v1/nodes/n1."),
                Arguments.of(
                        "no answer at all",
                        new KubernetesClientException("Connection refused"),
                        "no HTTP answer: Connection refused"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("errors")
    void oneLineWithCodeAndReason(String name, KubernetesClientException e, String expected) {
        assertThat(ApiErrors.oneLine(e))
                .isEqualTo(expected)
                .doesNotContain("Status(")
                .doesNotContain("\n");
    }
}
