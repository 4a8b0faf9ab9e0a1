package dev.tenure.rollout;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.kube.UserText;
import dev.tenure.rollout.AlertFilter.Alert;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The alert gate's edge: asks Prometheus for its active alerts as Kured does (the instant query {@code ALERTS} over
 * the HTTP API, {@code GET <prometheusURL>/api/v1/query?query=ALERTS}) and reads the answer through
 * {@link AlertFilter}. The reconciler asks only when a node would start now; an open answer is never reused (a node
 * starts on a fresh one, as Kured asks right before each reboot), a closed one is kept for the query's
 * {@link AlertQuery#interval}, so a closed gate costs one question per interval per rollout, not one per reconcile. Whatever is not a Prometheus answer closes the gate,
 * said as such ({@value AlertGate#UNREACHABLE}): no connection within {@link #CONNECT_TIMEOUT}, no answer within
 * {@link #QUERY_TIMEOUT}, a status other than 2xx (redirects are not followed), or a body that is not a query result
 * ({@link #parse}). Kured's checker blocks on a query error too.
 *
 * <p>The last answer per rollout is kept in memory, only to pace those questions and to tell when the gate changes:
 * after a restart the first answer is compared with an open gate.
 */
@ApplicationScoped
public class PrometheusAlertSource {

    /** The time to connect to Prometheus. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** The time for the whole question, connection included: a reconcile waits at most this long for it. */
    static final Duration QUERY_TIMEOUT = Duration.ofSeconds(5);

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The gate of one check, and whether its state differs from the rollout's previous check. */
    public record Checked(AlertGate gate, boolean changed) {}

    private record Answer(AlertQuery query, Instant at, AlertGate gate) {}

    private final Clock clock;
    private final HttpClient http;
    private final Map<String, Answer> last = new ConcurrentHashMap<>();

    @Inject
    public PrometheusAlertSource(Clock clock) {
        this.clock = clock;
        this.http = HttpClient.newBuilder()
                .connectTimeout(CONNECT_TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /**
     * The gate for the rollout {@code key} (its UID): its last answer when that closed the gate, is younger than the
     * query's interval and was given to the same query; else a new question.
     */
    public Checked check(String key, AlertQuery query) {
        Instant now = clock.instant();
        Answer before = last.get(key);
        if (before != null
                && !before.gate().open()
                && before.query().equals(query)
                && now.isBefore(before.at().plus(query.interval()))) {
            return new Checked(before.gate(), false);
        }
        AlertGate gate = ask(query);
        last.put(key, new Answer(query, now, gate));
        String was = before == null ? AlertGate.OPEN.state() : before.gate().state();
        return new Checked(gate, !was.equals(gate.state()));
    }

    /** Forgets a rollout's last answer (it is deleted). */
    public void forget(String key) {
        last.remove(key);
    }

    private AlertGate ask(AlertQuery query) {
        String base = query.prometheusURL().replaceAll("/+$", "");
        URI uri = URI.create(base + "/api/v1/query?query=ALERTS");
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(QUERY_TIMEOUT)
                .header("Accept", "application/json")
                .GET()
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (HttpConnectTimeoutException e) {
            return AlertGate.unreachable(
                    "no connection to " + shown(base) + " within " + CONNECT_TIMEOUT.toSeconds() + "s");
        } catch (HttpTimeoutException e) {
            return AlertGate.unreachable(
                    "no answer from " + shown(base) + " within " + QUERY_TIMEOUT.toSeconds() + "s");
        } catch (IOException e) {
            return AlertGate.unreachable("cannot ask " + shown(base) + ": "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : UserText.printable(e.getMessage())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return AlertGate.unreachable("the question to " + shown(base) + " was interrupted");
        }
        if (response.statusCode() / 100 != 2) {
            return AlertGate.unreachable("HTTP " + response.statusCode() + " from " + shown(base) + "/api/v1/query");
        }
        try {
            return AlertFilter.of(query).gate(parse(response.body()));
        } catch (Malformed e) {
            return AlertGate.unreachable("not a query result from " + shown(base) + ": " + e.getMessage());
        }
    }

    private static String shown(String url) {
        return UserText.printable(url);
    }

    /** A sample value as Prometheus writes it: a Go float, with {@code +Inf}, {@code -Inf} and {@code NaN}. */
    private static double number(String text) {
        return switch (text) {
            case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(text);
        };
    }

    /** A body that is not the answer of Prometheus's query API to an instant vector query. */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed(String message) {
            super(message);
        }
    }

    /**
     * The samples of an instant query's answer (Prometheus's HTTP API: {@code {"status":"success","data":
     * {"resultType":"vector","result":[{"metric":{…},"value":[<time>,"<value>"]}]}}}). A sample without an
     * {@code alertname} label is skipped, as Kured skips it; anything else out of that shape is {@link Malformed}.
     */
    static List<Alert> parse(String body) throws Malformed {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new Malformed("the body is not JSON");
        }
        if (root == null || !root.isObject()) {
            throw new Malformed("the body is not a JSON object");
        }
        if (!"success".equals(root.path("status").asText(null))) {
            throw new Malformed("status is not \"success\"");
        }
        JsonNode data = root.path("data");
        if (!"vector".equals(data.path("resultType").asText(null))) {
            throw new Malformed("data.resultType is not \"vector\"");
        }
        JsonNode result = data.get("result");
        if (result == null || !result.isArray()) {
            throw new Malformed("data.result is not a list");
        }
        List<Alert> alerts = new ArrayList<>();
        for (int i = 0; i < result.size(); i++) {
            JsonNode sample = result.get(i);
            JsonNode metric = sample.get("metric");
            JsonNode value = sample.get("value");
            if (metric == null || !metric.isObject()) {
                throw new Malformed("data.result[" + i + "].metric is not an object");
            }
            if (value == null
                    || !value.isArray()
                    || value.size() != 2
                    || !value.get(1).isTextual()) {
                throw new Malformed("data.result[" + i + "].value is not [<time>, \"<value>\"]");
            }
            double v;
            try {
                v = number(value.get(1).asText());
            } catch (NumberFormatException e) {
                throw new Malformed("data.result[" + i + "].value is not a number");
            }
            JsonNode name = metric.get("alertname");
            if (name == null || !name.isTextual()) {
                continue;
            }
            JsonNode state = metric.get("alertstate");
            alerts.add(new Alert(name.asText(), state == null ? null : state.asText(), v));
        }
        return List.copyOf(alerts);
    }
}
