package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The emulated cluster's fault injector ({@link Faults}), each fault kind on each verb, over plain HTTP as any client
 * sees it: a failure is the answer (its status and a Status body), a delay is judged by the clock (the answer comes no
 * earlier than the delay after the request left; no upper bound, which a busy machine would break), and the answer a
 * delayed request gets is still the one it would have got (a typed list stays typed, a Table stays a Table). Every
 * rewrite the emulator makes of an answer (the typed list kind, kubectl's Table, the list of a node's pods) is a row:
 * the delay of a list answered 200 used to be lost in the rewrite while its rule was used up (issue 50).
 */
@EndToEnd
@SecondLane
class FaultsIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final Duration DELAY = Duration.ofMillis(1200);
    private static final String NODE = "faults-w1";
    private static final String PODS = "/api/v1/namespaces/default/pods";
    private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
    private static final String TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

    private static EmulatedCluster cluster;

    @BeforeAll
    static void start() {
        cluster = EmulatedCluster.start();
        cluster.seed().node(NODE).create();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void clear() {
        cluster.faults().clear();
    }

    /** A request the fault acts on: how to send it (given a fresh object name) and what a served answer looks like. */
    record Verb(String name, String verb, Prepare prepare, Send send, Predicate<Answer> served) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** Makes what the request needs (a pod, a ConfigMap) before the fault is set. */
    @FunctionalInterface
    interface Prepare {
        void run(String name) throws Exception;
    }

    @FunctionalInterface
    interface Send {
        Answer run(String name) throws Exception;
    }

    /** What the client got: the status code, the body (the first watch event, for a watch), and when. */
    record Answer(int code, JsonNode body, Duration took) {}

    enum Kind {
        FAIL_NEXT,
        DELAY_NEXT,
        RANDOM
    }

    static Stream<Arguments> faultsOnVerbs() {
        List<Arguments> rows = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            for (Verb verb : verbs()) {
                rows.add(Arguments.of(kind, verb));
            }
        }
        return rows.stream();
    }

    static List<Verb> verbs() {
        Prepare pod = name -> cluster.seed().pod(name).onNode(NODE).create();
        Prepare configMap = name -> assertThat(
                        send("POST", CONFIGMAPS, configMap(name, "1"), null).code())
                .isEqualTo(201);
        return List.of(
                new Verb(
                        "get a pod",
                        "get",
                        pod,
                        name -> send("GET", PODS + "/" + name, null, null),
                        a -> a.code() == 200
                                && "Pod".equals(a.body().path("kind").asText())),
                new Verb(
                        "get a pod as kubectl's Table",
                        "get",
                        pod,
                        name -> send("GET", PODS + "/" + name, null, TABLE),
                        a -> a.code() == 200
                                && "Table".equals(a.body().path("kind").asText())),
                new Verb(
                        "list pods (typed list)",
                        "list",
                        pod,
                        name -> send("GET", PODS, null, null),
                        a -> a.code() == 200
                                && "PodList".equals(a.body().path("kind").asText())),
                new Verb(
                        "list pods as kubectl's Table",
                        "list",
                        pod,
                        name -> send("GET", PODS, null, TABLE),
                        a -> a.code() == 200
                                && "Table".equals(a.body().path("kind").asText())),
                new Verb(
                        "list a node's pods (fieldSelector spec.nodeName)",
                        "list",
                        pod,
                        name -> send("GET", PODS + "?fieldSelector=spec.nodeName%3D" + NODE, null, null),
                        a -> a.code() == 200
                                && "PodList".equals(a.body().path("kind").asText())
                                && a.body().path("items").size() > 0),
                new Verb(
                        "list pods by label (labelSelector)",
                        "list",
                        pod,
                        name -> send("GET", PODS + "?labelSelector=nothing%3Dhere", null, null),
                        a -> a.code() == 200
                                && "PodList".equals(a.body().path("kind").asText())),
                new Verb(
                        "watch a pod (HTTP stream)",
                        "watch",
                        pod,
                        FaultsIT::watchOne,
                        a -> a.code() == 200
                                && "MODIFIED".equals(a.body().path("type").asText())),
                new Verb(
                        "create a ConfigMap",
                        "create",
                        name -> {},
                        name -> send("POST", CONFIGMAPS, configMap(name, "1"), null),
                        a -> a.code() == 201),
                new Verb(
                        "update a ConfigMap",
                        "update",
                        configMap,
                        name -> send("PUT", CONFIGMAPS + "/" + name, configMap(name, "2"), null),
                        a -> a.code() == 200),
                new Verb(
                        "patch a ConfigMap",
                        "patch",
                        configMap,
                        name -> send("PATCH", CONFIGMAPS + "/" + name, "{\"data\":{\"k\":\"3\"}}", null),
                        a -> a.code() == 200),
                new Verb(
                        "delete a ConfigMap",
                        "delete",
                        configMap,
                        name -> send("DELETE", CONFIGMAPS + "/" + name, null, null),
                        a -> a.code() == 200),
                new Verb(
                        "evict a pod",
                        "create",
                        pod,
                        name -> send(
                                "POST",
                                PODS + "/" + name + "/eviction",
                                "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"" + name
                                        + "\",\"namespace\":\"default\"}}",
                                null),
                        a -> a.code() == 201));
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("faultsOnVerbs")
    void aFaultActsOnTheAnswerTheClientGets(Kind kind, Verb verb) throws Exception {
        String name = "f" + NAMES.incrementAndGet();
        verb.prepare().run(name);
        Predicate<ApiRequest> match = r -> r.verb().equals(verb.verb())
                && r.userAgent().equals(EmulatedCluster.HARNESS_USER_AGENT)
                && (r.name().equals(name) || r.name().isEmpty());
        switch (kind) {
            case FAIL_NEXT -> cluster.faults().failNext(1, match, 503);
            case DELAY_NEXT -> cluster.faults().delayNext(1, match, DELAY);
            case RANDOM -> cluster.faults().random(1.0, 7, List.of(504), match);
        }
        Answer answer = verb.send().run(name);
        switch (kind) {
            case FAIL_NEXT, RANDOM -> {
                int code = kind == Kind.FAIL_NEXT ? 503 : 504;
                assertThat(answer.code()).as(answer.body().toString()).isEqualTo(code);
                assertThat(answer.body().path("kind").asText()).isEqualTo("Status");
                assertThat(answer.body().path("code").asInt()).isEqualTo(code);
            }
            case DELAY_NEXT -> {
                assertThat(verb.served().test(answer))
                        .as("served as without the fault: " + answer)
                        .isTrue();
                assertThat(answer.took()).as("answered after the delay").isGreaterThanOrEqualTo(DELAY);
            }
        }
        if (kind != Kind.RANDOM) {
            assertThat(cluster.faults().pending(match))
                    .as("the rule is used up")
                    .isFalse();
        }
    }

    // ---- requests ------------------------------------------------------------------------------------------------

    private static String configMap(String name, String value) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
                + "\",\"namespace\":\"default\"},\"data\":{\"k\":\"" + value + "\"}}";
    }

    private static HttpRequest.Builder request(String method, String path, String body, String accept) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(cluster.url() + path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", method.equals("PATCH") ? "application/merge-patch+json" : "application/json");
        }
        if (accept != null) {
            b.header("Accept", accept);
        }
        return b.header("User-Agent", EmulatedCluster.HARNESS_USER_AGENT);
    }

    private static Answer send(String method, String path, String body, String accept)
            throws IOException, InterruptedException {
        long since = System.nanoTime();
        HttpResponse<String> r =
                HTTP.send(request(method, path, body, accept).build(), HttpResponse.BodyHandlers.ofString());
        Duration took = Duration.ofNanos(System.nanoTime() - since);
        return new Answer(r.statusCode(), r.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(r.body()), took);
    }

    /**
     * A watch of one pod from now on (kubectl get -w's HTTP stream), then a change of that pod: the answer is the
     * first event, timed from when the watch was asked for; a failed watch is its Status.
     */
    private static Answer watchOne(String name) throws Exception {
        JsonNode pod =
                JSON.readTree(send("GET", PODS + "/" + name, null, null).body().toString());
        String version = pod.path("metadata").path("resourceVersion").asText();
        long since = System.nanoTime();
        java.util.concurrent.CompletableFuture<HttpResponse<Stream<String>>> watch = HTTP.sendAsync(
                request(
                                "GET",
                                PODS + "?watch=true&fieldSelector=metadata.name%3D" + name + "&resourceVersion="
                                        + version,
                                null,
                                null)
                        .build(),
                HttpResponse.BodyHandlers.ofLines());
        // the change the watch is to report (after the version it starts from: seen however soon the watch opens); a
        // watch stream sends its headers with its first event
        assertThat(send("PATCH", PODS + "/" + name, "{\"metadata\":{\"labels\":{\"seen\":\"yes\"}}}", null)
                        .code())
                .isEqualTo(200);
        HttpResponse<Stream<String>> r = watch.get(30, java.util.concurrent.TimeUnit.SECONDS);
        try (Stream<String> lines = r.body()) {
            if (r.statusCode() != 200) {
                String body = String.join("\n", lines.toList());
                return new Answer(
                        r.statusCode(),
                        body.isEmpty() ? JSON.createObjectNode() : JSON.readTree(body),
                        Duration.ofNanos(System.nanoTime() - since));
            }
            String first = lines.filter(l -> !l.isBlank()).findFirst().orElseThrow();
            Duration took = Duration.ofNanos(System.nanoTime() - since);
            try {
                return new Answer(200, JSON.readTree(first), took);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
