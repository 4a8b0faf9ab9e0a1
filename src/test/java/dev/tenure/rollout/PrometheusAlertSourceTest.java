package dev.tenure.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.rollout.AlertFilter.Alert;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How an answer of Prometheus's query API is read, and what is not one (the gate then closes, said as such). */
class PrometheusAlertSourceTest {

    /** Kured's sample answer ({@code pkg/blockers/prometheus_test.go}), one sample cut. */
    static final String KURED_ANSWER = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
            + "{\"metric\":{\"__name__\":\"ALERTS\",\"alertname\":\"GatekeeperViolations\",\"alertstate\":\"firing\","
            + "\"severity\":\"warning\",\"team\":\"platform-infra\"},\"value\":[1622472933.973,\"1\"]},"
            + "{\"metric\":{\"__name__\":\"ALERTS\",\"alertname\":\"ScheduledRebootFailing\",\"alertstate\":"
            + "\"pending\",\"severity\":\"warning\",\"team\":\"platform-infra\"},\"value\":[1622472933.973,\"1\"]}]}}";

    @Test
    void readsKuredsSampleAnswer() throws Exception {
        assertThat(PrometheusAlertSource.parse(KURED_ANSWER))
                .containsExactly(
                        new Alert("GatekeeperViolations", "firing", 1),
                        new Alert("ScheduledRebootFailing", "pending", 1));
    }

    @Test
    void anEmptyResultIsNoAlert() throws Exception {
        assertThat(PrometheusAlertSource.parse(
                        "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}"))
                .isEmpty();
    }

    @Test
    void aSampleWithoutAnAlertNameIsSkippedAsKuredSkipsIt() throws Exception {
        assertThat(PrometheusAlertSource.parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
                        + "[{\"metric\":{\"__name__\":\"ALERTS\"},\"value\":[1,\"1\"]},"
                        + "{\"metric\":{\"alertname\":\"X\"},\"value\":[1,\"+Inf\"]}]}}"))
                .containsExactly(new Alert("X", null, Double.POSITIVE_INFINITY));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "not JSON | <html>502 Bad Gateway</html> | the body is not JSON",
                "a JSON list | [] | not a JSON object",
                "an error answer | {\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"x\"} | status is not",
                "a matrix | {\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}} | resultType",
                "no result | {\"status\":\"success\",\"data\":{\"resultType\":\"vector\"}} | data.result is not a list",
                "a sample without metric | {\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
                        + "[{\"value\":[1,\"1\"]}]}} | data.result[0].metric",
                "a value not a pair | {\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
                        + "[{\"metric\":{\"alertname\":\"A\"},\"value\":1}]}} | data.result[0].value",
                "a value not a number | {\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
                        + "[{\"metric\":{\"alertname\":\"A\"},\"value\":[1,\"one\"]}]}} | not a number",
            })
    void whatIsNotAQueryResultIsMalformed(String name, String body, String says) {
        assertThatThrownBy(() -> PrometheusAlertSource.parse(body))
                .isInstanceOf(PrometheusAlertSource.Malformed.class)
                .hasMessageContaining(says);
    }

    /**
     * Nothing listens: closed as PrometheusUnreachable, reported as a change once; the answer is kept for the interval
     * (no change reported again), and an edited query is asked at once.
     */
    @Test
    void anUnreachablePrometheusClosesTheGateOnceAndIsAskedAgainAfterTheInterval() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-03-01T10:00:00Z"));
        Clock clock = new Clock() {
            @Override
            public Instant instant() {
                return now.get();
            }

            @Override
            public java.time.ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }
        };
        PrometheusAlertSource source = new PrometheusAlertSource(clock);
        AlertQuery query =
                new AlertQuery("http://127.0.0.1:" + port, List.of(), List.of(), true, Duration.ofSeconds(10));

        PrometheusAlertSource.Checked first = source.check("uid-1", query);
        assertThat(first.gate().open()).isFalse();
        assertThat(first.gate().reason()).isEqualTo(AlertGate.UNREACHABLE);
        assertThat(first.gate().message()).startsWith("PrometheusUnreachable: cannot ask http://127.0.0.1:" + port);
        assertThat(first.changed()).isTrue();

        now.set(now.get().plusSeconds(5));
        PrometheusAlertSource.Checked cached = source.check("uid-1", query);
        assertThat(cached.gate()).isSameAs(first.gate());
        assertThat(cached.changed()).isFalse();

        now.set(now.get().plusSeconds(5));
        PrometheusAlertSource.Checked again = source.check("uid-1", query);
        assertThat(again.gate()).isNotSameAs(first.gate()).isEqualTo(first.gate());
        assertThat(again.changed()).isFalse();

        AlertQuery edited = new AlertQuery(query.prometheusURL(), List.of("X"), List.of(), true, query.interval());
        assertThat(source.check("uid-1", edited).gate()).isNotSameAs(again.gate());

        source.forget("uid-1");
        assertThat(source.check("uid-1", edited).changed())
                .as("forgotten: compared with an open gate")
                .isTrue();
    }
}
