package dev.tenure.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.rollout.api.DoneWhen;
import dev.tenure.rollout.api.HealthGate;
import dev.tenure.rollout.api.NodeMaintenanceRollout;
import dev.tenure.rollout.api.NodeRecord;
import dev.tenure.rollout.api.NodeState;
import dev.tenure.rollout.api.PrometheusAlerts;
import dev.tenure.rollout.api.RolloutPhase;
import dev.tenure.rollout.api.RolloutSpec;
import dev.tenure.rollout.api.RolloutStatus;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rollout's alert gate (issue 52, items 3 and 5) against a real Prometheus (Debian's 2.42, installed by
 * bin/test-tools) evaluating a rule file every second: {@code TenureTestFiring} ({@code vector(1)}, {@code for: 0s})
 * fires, {@code TenureTestPending} ({@code vector(1)}, {@code for: 1h}) stays pending, {@code TenureTestQuiet} never
 * becomes active. Each rollout maintains its own nodes one at a time, each node done when the test acknowledges its
 * child ({@code doneWhen.manual}), so the test decides when the next node would start, and each case shows both sides:
 * the node the gate lets through, and the next one it holds with the reason in status, until the gate opens.
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class RolloutAlertGateIT {

    static final String POOL = "tenure.test/alert-pool";
    private static final Path WORK = Path.of("target", "prometheus-alert-gate");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** How status.message starts while the alert gate holds the rollout, before the gate's own reason. */
    private static final String HELD = "gate Alerts is closed: ";

    private static Path bin;
    private static final List<Process> PROMETHEUSES = new ArrayList<>();
    private static String prometheusURL;

    @BeforeAll
    static void startPrometheus() throws Exception {
        bin = Stream.concat(
                        Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                                .map(Path::of),
                        Stream.of(Path.of(".tools", "prometheus", "usr", "bin")))
                .filter(dir -> Files.isExecutable(dir.resolve("prometheus")))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(
                        "prometheus is not installed: run `bin/test-tools` (make test runs it before the tests)"));
        prometheusURL = startOne("shared");
    }

    @AfterAll
    static void stopPrometheus() throws InterruptedException {
        for (Process p : PROMETHEUSES) {
            stop(p);
        }
    }

    /** A Prometheus of its own (a fresh TSDB) on a free port, once its rules have been evaluated. */
    static String startOne(String name) throws Exception {
        Path dir = WORK.resolve(name);
        deleteRecursively(dir);
        Files.createDirectories(dir.resolve("data"));
        Files.writeString(dir.resolve("rules.yaml"), """
                groups:
                  - name: tenure-alert-gate-it
                    rules:
                      - alert: TenureTestFiring
                        expr: vector(1)
                        for: 0s
                      - alert: TenureTestPending
                        expr: vector(1)
                        for: 1h
                      - alert: TenureTestQuiet
                        expr: vector(1) == 0
                        for: 0s
                """);
        Files.writeString(dir.resolve("prometheus.yml"), """
                global:
                  evaluation_interval: 1s
                rule_files:
                  - rules.yaml
                """);
        int port = freePort();
        Process p = new ProcessBuilder(
                        bin.resolve("prometheus").toString(),
                        "--config.file=" + dir.resolve("prometheus.yml"),
                        "--storage.tsdb.path=" + dir.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("prometheus.log").toFile())
                .start();
        PROMETHEUSES.add(p);
        String url = "http://127.0.0.1:" + port;
        await("Prometheus evaluated the rules: one alert firing, one pending")
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(alertStates(url))
                        .containsEntry("TenureTestFiring", "firing")
                        .containsEntry("TenureTestPending", "pending")
                        .doesNotContainKey("TenureTestQuiet"));
        return url;
    }

    static Map<String, String> alertStates(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create(url + "/api/v1/query?query=ALERTS"))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        Map<String, String> out = new java.util.TreeMap<>();
        for (JsonNode s : JSON.readTree(r.body()).get("data").get("result")) {
            out.put(
                    s.get("metric").get("alertname").asText(),
                    s.get("metric").get("alertstate").asText());
        }
        return out;
    }

    static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
    }

    // --- the cluster side ---

    static List<String> nodes(EmulatedCluster cluster, String pool, int n) {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            String name = pool + "-" + i;
            cluster.seed().node(name).role("worker").label(POOL, pool).create();
            names.add(name);
        }
        return names;
    }

    /**
     * Seeds a pool of {@code nodes} nodes named after the rollout {@code name}, creates the rollout of that pool with
     * these alerts (the rest of the spec as {@link #spec} builds it), and waits for its first node to start, the gate
     * open. Returns the pool's nodes, {@code name}-1 first (the one started).
     */
    static List<String> startRollout(
            EmulatedCluster cluster, String name, int nodes, Consumer<PrometheusAlerts> alerts) {
        return startRollout(cluster, name, nodes, alerts, spec -> {});
    }

    /** {@link #startRollout(EmulatedCluster, String, int, Consumer)}, the spec changed by {@code more} first. */
    static List<String> startRollout(
            EmulatedCluster cluster,
            String name,
            int nodes,
            Consumer<PrometheusAlerts> alerts,
            Consumer<RolloutSpec> more) {
        List<String> n = nodes(cluster, name, nodes);
        RolloutSpec spec = spec(name, alerts);
        more.accept(spec);
        cluster.client().resource(new NodeMaintenanceRollout(name, spec)).create();
        awaitChildren(cluster.client(), name, n.get(0));
        return n;
    }

    static RolloutSpec spec(String pool, Consumer<PrometheusAlerts> alerts) {
        RolloutSpec spec = new RolloutSpec();
        spec.setNodeSelector(
                new LabelSelectorBuilder().addToMatchLabels(POOL, pool).build());
        spec.setMaxUnavailable(new IntOrString(1));
        DoneWhen done = new DoneWhen();
        done.setManual(true);
        spec.setDoneWhen(done);
        HealthGate health = new HealthGate();
        health.setAlerts(alerts(alerts));
        spec.setHealth(health);
        return spec;
    }

    static PrometheusAlerts alerts(Consumer<PrometheusAlerts> change) {
        PrometheusAlerts a = new PrometheusAlerts();
        a.setPrometheusURL(prometheusURL);
        a.setInterval("1s");
        change.accept(a);
        return a;
    }

    static NodeMaintenanceRollout rollout(KubernetesClient client, String name) {
        return client.resources(NodeMaintenanceRollout.class).withName(name).get();
    }

    static void editAlerts(KubernetesClient client, String rollout, Consumer<PrometheusAlerts> change) {
        retryingConflicts(() -> client.resources(NodeMaintenanceRollout.class)
                .withName(rollout)
                .edit(r -> {
                    change.accept(r.getSpec().getHealth().getAlerts());
                    return r;
                }));
    }

    /**
     * An edit (read, change, patch with the read resourceVersion) as kubectl edit does it: when the operator wrote the
     * object in between (status, its finalizer), the API server answers 409, and the edit is made again on a new read.
     */
    static void retryingConflicts(Runnable edit) {
        await("an edit without a conflict")
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptionsMatching(e -> e instanceof KubernetesClientException k && k.getCode() == 409)
                .untilAsserted(edit::run);
    }

    static List<String> children(KubernetesClient client, String rollout) {
        return client
                .resources(NodeMaintenance.class)
                .withLabel(NodeMaintenanceRolloutReconciler.ROLLOUT_LABEL, rollout)
                .list()
                .getItems()
                .stream()
                .filter(nm -> nm.getMetadata().getDeletionTimestamp() == null)
                .map(nm -> nm.getSpec().getNodeName())
                .sorted()
                .toList();
    }

    static void awaitChildren(KubernetesClient client, String rollout, String... nodes) {
        await(rollout + ": children for " + List.of(nodes))
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThat(children(client, rollout)).containsExactly(nodes));
    }

    /** The maintenance agent's word: the node of this child is done. */
    static void acknowledge(KubernetesClient client, String rollout, String node) {
        retryingConflicts(() -> client.resources(NodeMaintenance.class)
                .withName(NodeMaintenanceRolloutReconciler.childName(rollout, node))
                .edit(nm -> {
                    Map<String, String> annotations = new java.util.HashMap<>();
                    if (nm.getMetadata().getAnnotations() != null) {
                        annotations.putAll(nm.getMetadata().getAnnotations());
                    }
                    annotations.put(DoneWhen.MANUAL_ACK_ANNOTATION, "true");
                    nm.getMetadata().setAnnotations(annotations);
                    return nm;
                }));
    }

    /**
     * Waits until the alert gate holds the rollout after {@code done}: reason WaitingForGate (the rule of every gate),
     * the message naming the gate Alerts and then its own reason ({@code cause}: AlertsFiring, PrometheusUnreachable),
     * the gate recorded in status.gates (of the whole rollout: no node), and nothing starting for a while.
     */
    static NodeMaintenanceRollout awaitHeld(KubernetesClient client, String rollout, String done, String cause) {
        await(rollout + ": held by the alert gate (" + cause + ")")
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    NodeMaintenanceRollout r = rollout(client, rollout);
                    assertThat(r.getStatus()).isNotNull();
                    assertThat(r.getStatus().getReason()).isEqualTo("WaitingForGate");
                    assertThat(r.getStatus().getMessage()).startsWith(HELD + cause + ": ");
                    assertThat(r.getStatus().getGates()).singleElement().satisfies(g -> {
                        assertThat(g.getName()).isEqualTo("Alerts");
                        assertThat(g.getNode()).isNull();
                        assertThat(g.getSince()).isNotBlank();
                        assertThat(g.getMessage()).startsWith(cause + ": ");
                    });
                    assertThat(r.getStatus().getNodes())
                            .filteredOn(n -> n.getName().equals(done))
                            .extracting(NodeRecord::getState)
                            .containsExactly(NodeState.Done);
                });
        await(rollout + ": still held")
                .during(Duration.ofSeconds(3))
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> children(client, rollout).isEmpty()
                        && "WaitingForGate"
                                .equals(rollout(client, rollout).getStatus().getReason()));
        return rollout(client, rollout);
    }

    static List<Event> events(KubernetesClient client, String rollout, String reason) {
        return client.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> rollout.equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
                .toList();
    }

    @Test
    void aFiringAlertIncludedHoldsTheNextNodeAndAnExcludedOneDoesNot() {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        KubernetesClient client = cluster.client();
        String name = "ag-fire";
        try {
            // excluded: the firing alert does not count, the first two nodes go one after the other
            List<String> n = startRollout(cluster, name, 3, a -> a.setExclude(List.of("^TenureTestFiring$")));
            acknowledge(client, name, n.get(0));
            awaitChildren(client, name, n.get(1));

            // included: the same alert holds the next node, named in status and in an event
            editAlerts(client, name, a -> {
                a.setExclude(null);
                a.setInclude(List.of("TenureTest"));
            });
            acknowledge(client, name, n.get(1));
            NodeMaintenanceRollout held = awaitHeld(client, name, n.get(1), "AlertsFiring");
            assertThat(held.getStatus().getMessage())
                    .startsWith(HELD + "AlertsFiring: 1 alert(s) firing, name matching [TenureTest] in Prometheus:"
                            + " TenureTestFiring; no new node starts")
                    .doesNotContain("TenureTestPending");
            assertThat(held.getStatus().getNodes())
                    .extracting(NodeRecord::getName)
                    .doesNotContain(n.get(2));
            assertThat(events(client, name, "AlertGateClosed"))
                    .singleElement()
                    .satisfies(e -> assertThat(e.getMessage()).contains("TenureTestFiring"));

            // the gate opens (the alert excluded again): the held node starts, and the opening is told
            editAlerts(client, name, a -> a.setExclude(List.of("Firing")));
            awaitChildren(client, name, n.get(2));
            await().atMost(WAIT)
                    .untilAsserted(() ->
                            assertThat(events(client, name, "AlertGateOpened")).isNotEmpty());
        } finally {
            client.resources(NodeMaintenanceRollout.class).withName(name).delete();
        }
    }

    @Test
    void alertsFiringForGateTimeoutPauseTheRolloutAndItResumesWhenTheyStop() {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        KubernetesClient client = cluster.client();
        String name = "ag-time";
        try {
            List<String> n = startRollout(
                    cluster,
                    name,
                    2,
                    a -> a.setInclude(List.of("^TenureTestQuiet$")),
                    spec -> spec.getHealth().setGateTimeout("3s")); // the quiet alert only: open

            editAlerts(client, name, a -> a.setInclude(List.of("^TenureTestFiring$")));
            acknowledge(client, name, n.get(0));
            // held, then past the gate's timeout: paused, the alert gate's own reason and since kept in status
            await(name + ": paused by the alert gate's timeout")
                    .atMost(WAIT)
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        RolloutStatus st = rollout(client, name).getStatus();
                        assertThat(st.getPhase()).isEqualTo(RolloutPhase.Paused);
                        assertThat(st.getReason()).isEqualTo("GateTimeout");
                        assertThat(st.getMessage())
                                .startsWith("gate Alerts closed since ")
                                .contains(
                                        "past spec.health.gateTimeout 3s: AlertsFiring: 1 alert(s) firing",
                                        "TenureTestFiring");
                        assertThat(st.getGates())
                                .singleElement()
                                .satisfies(g -> assertThat(g.getName()).isEqualTo("Alerts"));
                    });
            String since = rollout(client, name).getStatus().getGates().get(0).getSince();
            assertThat(children(client, name)).isEmpty();
            assertThat(events(client, name, "RolloutPaused"))
                    .singleElement()
                    .satisfies(e -> assertThat(e.getMessage()).startsWith("GateTimeout: gate Alerts closed since"));
            await(name + ": still paused, the time first seen closed kept across looks")
                    .during(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> {
                        RolloutStatus st = rollout(client, name).getStatus();
                        return children(client, name).isEmpty()
                                && "GateTimeout".equals(st.getReason())
                                && st.getGates().size() == 1
                                && since.equals(st.getGates().get(0).getSince());
                    });

            // the alert no longer counts: the rollout goes on by itself, and says so
            editAlerts(client, name, a -> a.setInclude(List.of("^TenureTestQuiet$")));
            awaitChildren(client, name, n.get(1));
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(rollout(client, name).getStatus().getGates()).isNullOrEmpty();
                assertThat(events(client, name, "RolloutResumed"))
                        .singleElement()
                        .satisfies(e -> assertThat(e.getMessage()).startsWith("no longer paused (GateTimeout)"));
            });
        } finally {
            client.resources(NodeMaintenanceRollout.class).withName(name).delete();
        }
    }

    @Test
    void aPendingAlertDoesNotHoldUnlessFiringOnlyIsOff() {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        KubernetesClient client = cluster.client();
        String name = "ag-pend";
        try {
            List<String> n = startRollout(cluster, name, 3, a -> a.setInclude(List.of("^TenureTestPending$")));
            acknowledge(client, name, n.get(0));
            awaitChildren(client, name, n.get(1)); // pending, firingOnly by default: it does not count

            editAlerts(client, name, a -> a.setFiringOnly(false)); // Kured's default: pending counts
            acknowledge(client, name, n.get(1));
            NodeMaintenanceRollout held = awaitHeld(client, name, n.get(1), "AlertsFiring");
            assertThat(held.getStatus().getMessage())
                    .startsWith(
                            HELD + "AlertsFiring: 1 alert(s) firing or pending, name matching [^TenureTestPending$] in"
                                    + " Prometheus: TenureTestPending;");
        } finally {
            client.resources(NodeMaintenanceRollout.class).withName(name).delete();
        }
    }

    @Test
    void aPrometheusThatIsStoppedOrAnswersAnErrorClosesTheGateSaidAsSuch() throws Exception {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        KubernetesClient client = cluster.client();
        String own = startOne("stopped");
        Process ownProcess = PROMETHEUSES.get(PROMETHEUSES.size() - 1);
        String name = "ag-down";
        try {
            List<String> n = startRollout(cluster, name, 2, a -> {
                a.setPrometheusURL(own);
                a.setInclude(List.of("^TenureTestQuiet$"));
            }); // reachable, nothing that counts is active: open

            stop(ownProcess);
            acknowledge(client, name, n.get(0));
            NodeMaintenanceRollout held = awaitHeld(client, name, n.get(0), "PrometheusUnreachable");
            assertThat(held.getStatus().getMessage())
                    .startsWith(HELD + "PrometheusUnreachable: cannot ask " + own)
                    .contains("no new node starts");
            assertThat(events(client, name, "AlertGateClosed"))
                    .singleElement()
                    .satisfies(e -> assertThat(e.getMessage()).startsWith("PrometheusUnreachable"));

            // a Prometheus that answers, but not the query API (a wrong path: 404), is as closed
            editAlerts(client, name, a -> a.setPrometheusURL(prometheusURL + "/not-prometheus"));
            await().atMost(WAIT)
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(
                            () -> assertThat(rollout(client, name).getStatus().getMessage())
                                    .startsWith(HELD + "PrometheusUnreachable: HTTP 404 from " + prometheusURL
                                            + "/not-prometheus"));
            assertThat(children(client, name)).isEmpty();

            // the shared Prometheus, where the quiet alert is still quiet: open, the next node starts
            editAlerts(client, name, a -> a.setPrometheusURL(prometheusURL));
            awaitChildren(client, name, n.get(1));
        } finally {
            client.resources(NodeMaintenanceRollout.class).withName(name).delete();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (var paths = Files.walk(dir)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
