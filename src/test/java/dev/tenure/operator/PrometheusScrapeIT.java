package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * End to end with a real Prometheus (Debian's 2.42 package, installed by `make test`'s set-up
 * step bin/test-tools): it scrapes the running operator's /q/metrics, and
 * PromQL over the scraped tenure_ series must return data. promtool must accept the rule groups
 * of the PrometheusRule we ship.
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class PrometheusScrapeIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Path WORK = Path.of("target", "prometheus-e2e");

    private static Path bin;
    private static Process prometheus;
    /** Bound by Prometheus itself (listen address port 0), read from its log ({@link #listeningPort}). */
    private static int prometheusPort;
    /** exporter-toolkit's line once the listener is bound: the bound address, not the configured {@code :0}. */
    private static final Pattern LISTENING = Pattern.compile("msg=\"Listening on\" address=127\\.0\\.0\\.1:(\\d+)");
    /** The scrape target of this run: queries select it so no sample from an earlier run can answer. */
    private static String instance;

    @TestHTTPResource("/q/metrics")
    URL metrics;

    /**
     * The binaries `make test` installed before the tests ran (bin/test-tools): on PATH, else in
     * .tools/prometheus. Nothing is installed from here; without them the test fails and says how
     * to get them, rather than skipping where a missing set-up step would go unnoticed.
     */
    @BeforeAll
    static void findPrometheus() {
        bin = Stream.concat(
                        Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                                .map(Path::of),
                        Stream.of(Path.of(".tools", "prometheus", "usr", "bin")))
                .filter(dir ->
                        Files.isExecutable(dir.resolve("prometheus")) && Files.isExecutable(dir.resolve("promtool")))
                .findFirst()
                .orElseThrow(() ->
                        new IllegalStateException("prometheus and promtool are not installed: run `bin/test-tools`"
                                + " (make test runs it before the tests)"));
    }

    @AfterAll
    static void stopPrometheus() throws InterruptedException {
        if (prometheus != null) {
            prometheus.destroy();
            if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly();
            }
        }
    }

    @Test
    void prometheusScrapesTenureSeries() throws Exception {
        startPrometheusScraping(metrics);

        String target = "job=\"tenure\", instance=\"" + instance + "\"";
        await("Prometheus scraped the operator (up == 1)")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptions()
                .untilAsserted(
                        () -> assertThat(query("up{" + target + "} == 1")).isNotEmpty());

        JsonNode buildInfo = await("tenure_build_info scraped")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptions()
                .until(() -> query("tenure_build_info{" + target + "} == 1"), r -> !r.isEmpty());
        assertThat(buildInfo.get(0).get("metric").get("version").asText()).isNotBlank();

        JsonNode tenureSeries = query("count by (__name__) ({__name__=~\"tenure_.+\", " + target + "})");
        assertThat(tenureSeries).as("tenure_ series known to Prometheus").isNotEmpty();
    }

    /** The port comes from the line naming the bound address, never from the configured {@code 127.0.0.1:0}. */
    @Test
    void thePortIsReadFromTheLineNamingTheBoundAddress() {
        String configured = "ts=2026-11-29T23:58:02.644Z caller=web.go:503 level=info component=web"
                + " msg=\"Start listening for connections\" address=127.0.0.1:0\n";
        String bound = "ts=2026-11-29T23:58:02.649Z caller=tls_config.go:232 level=info component=web"
                + " msg=\"Listening on\" address=127.0.0.1:35897\n";
        assertThat(listeningPort(configured)).as("before the bind").isEmpty();
        assertThat(listeningPort(configured + bound)).hasValue(35897);
        assertThat(listeningPort("time=2026-11-29T23:58:02.649Z level=INFO source=tls_config.go:347"
                        + " msg=\"Listening on\" address=127.0.0.1:40123 http2=false\n"))
                .as("Prometheus 3's logfmt")
                .hasValue(40123);
    }

    @Test
    void promtoolAcceptsTheShippedRuleGroups() throws Exception {
        // The groups of the PrometheusRule we ship (deploy/ is what verify-generated keeps equal to the build).
        List<Map<String, Object>> rules =
                ManifestAssembly.parseAll(Files.readString(Path.of("deploy/monitoring/prometheusrule.yaml")));
        assertThat(rules).singleElement().extracting(r -> r.get("kind")).isEqualTo("PrometheusRule");
        Path rulesFile = WORK.resolve("tenure-rules.yaml");
        Files.createDirectories(WORK);
        Files.writeString(rulesFile, ManifestAssembly.toYaml(List.of(ManifestAssembly.plainRuleGroups(rules))));

        Process check = new ProcessBuilder(bin.resolve("promtool").toString(), "check", "rules", rulesFile.toString())
                .redirectErrorStream(true)
                .start();
        assertThat(check.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(check.exitValue()).as(output).isZero();
        assertThat(output).contains("SUCCESS: 10 rules found");
    }

    @Test
    void alertsFireOnTheSeriesTheyWatchAndNotBefore() throws Exception {
        Files.createDirectories(WORK);
        List<Map<String, Object>> rules =
                ManifestAssembly.parseAll(Files.readString(Path.of("deploy/monitoring/prometheusrule.yaml")));
        Files.writeString(
                WORK.resolve("tenure-rules.yaml"),
                ManifestAssembly.toYaml(List.of(ManifestAssembly.plainRuleGroups(rules))));
        Path tests = WORK.resolve("alerts-test.yaml");
        try (var in = getClass().getResourceAsStream("/prometheus/alerts-test.yaml")) {
            Files.write(tests, in.readAllBytes());
        }
        Process test = new ProcessBuilder(bin.resolve("promtool").toString(), "test", "rules", tests.toString())
                .redirectErrorStream(true)
                .start();
        assertThat(test.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String output = new String(test.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(test.exitValue()).as(output).isZero();
        assertThat(output).contains("SUCCESS");
    }

    private static void startPrometheusScraping(URL metrics) throws IOException {
        Path data = WORK.resolve("data");
        deleteRecursively(data); // a fresh TSDB: samples of an earlier run must not answer this one
        Files.createDirectories(data);
        instance = metrics.getHost() + ":" + metrics.getPort();
        Path config = WORK.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 1s
                scrape_configs:
                  - job_name: tenure
                    metrics_path: %s
                    static_configs:
                      - targets: ["%s"]
                """.formatted(metrics.getPath(), instance));
        // Port 0: Prometheus binds a free port itself and names it in its log. A port found free here and handed over
        // could be taken first by another bind on the machine (an emulated API server of another test JVM), and the
        // queries would then go to that server.
        Path log = WORK.resolve("prometheus.log");
        prometheus = new ProcessBuilder(
                        bin.resolve("prometheus").toString(),
                        "--config.file=" + config,
                        "--storage.tsdb.path=" + data,
                        "--web.listen-address=127.0.0.1:0")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        prometheusPort = await("Prometheus listening (its log names the port it bound)")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> {
                            OptionalInt port = listeningPort(Files.readString(log));
                            if (port.isEmpty() && !prometheus.isAlive()) {
                                throw new IllegalStateException("prometheus exited with " + prometheus.exitValue()
                                        + " before it listened: " + Files.readString(log));
                            }
                            return port;
                        },
                        OptionalInt::isPresent)
                .getAsInt();
    }

    /**
     * The port Prometheus bound, from its log's {@code msg="Listening on" address=127.0.0.1:<port>} (the line
     * exporter-toolkit's web server logs once its listener is bound, with the bound address; Prometheus 2.42 and
     * later); empty until that line is written.
     */
    static OptionalInt listeningPort(String log) {
        Matcher listening = LISTENING.matcher(log);
        return listening.find() ? OptionalInt.of(Integer.parseInt(listening.group(1))) : OptionalInt.empty();
    }

    private static JsonNode query(String promql) throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + prometheusPort + "/api/v1/query?query="
                + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        HttpResponse<String> response = HTTP.send(
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body()).get("data").get("result");
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (var paths = Files.walk(dir)) {
                for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
