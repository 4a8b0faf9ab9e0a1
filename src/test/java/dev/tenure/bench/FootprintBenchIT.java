package dev.tenure.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the benchmark finds its packaged operator ready (issue 48): it probes only the port the operator's log says its
 * management interface listens on, never one it picked, let go and handed on, which another process may take before
 * the operator binds it. A shell script stands in for the operator's JVM (the bench's {@link FootprintBench.Launcher}
 * runs whatever command it is given), so the test needs no packaged jar.
 */
@EndToEnd
class FootprintBenchIT {

    /**
     * The RBAC check's false finding after {@code make chaos}, repeated: every port the bench names to its operator
     * is taken by an emulated API server before the operator binds it (as another process's bind to port 0 may be
     * given it), and none of them may see the bench's readiness probe. The operator here never comes up: the bench
     * gives up when it exits.
     */
    @Test
    void noProbeReachesAPortTheOperatorWasToldButAnotherProcessTook(@TempDir Path dir) throws Exception {
        Path args = dir.resolve("args");
        // The stand-in writes its arguments, then lives 2 s without listening or announcing anything.
        FootprintBench.Launcher launcher = standIn(dir, "printf '%s\\n' \"$@\" > '" + args + "'\nexec sleep 2\n");
        List<EmulatedCluster> takers = new ArrayList<>();
        try (EmulatedCluster cluster = EmulatedCluster.start()) {
            CompletableFuture<FootprintBench.Running> started = CompletableFuture.supplyAsync(() -> {
                try {
                    return FootprintBench.start(cluster, launcher, List.of());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(args) && Files.size(args) > 0);
            List<Integer> named = Files.readAllLines(args).stream()
                    .filter(a -> a.startsWith("-Dquarkus.http.port=") || a.startsWith("-Dquarkus.management.port="))
                    .map(a -> Integer.parseInt(a.substring(a.indexOf('=') + 1)))
                    .toList();
            assertThat(named).as("the ports the operator is told").hasSize(2);
            for (int port : named) {
                if (port != 0) {
                    takers.add(EmulatedCluster.start(
                            EmulatedCluster.Options.forTests().port(port)));
                }
            }
            Throwable failure = catchThrowable(() -> started.get(60, TimeUnit.SECONDS));
            for (EmulatedCluster taker : takers) {
                assertThat(taker.requests().all().stream().map(ApiRequest::path))
                        .as(
                                "requests on %s, a port the bench named to its operator and another server took",
                                taker.url())
                        .doesNotContain("/q/health/ready");
            }
            assertThat(named).as("the bench names no port of its own choosing").containsOnly(0);
            assertThat(failure)
                    .as("the bench gives up when its operator exits")
                    .rootCause()
                    .hasMessageContaining("alive=false")
                    .hasMessageContaining("exit 0") // the stand-in's sleep ended on its own
                    .hasMessageContaining("never announced");
            // its whole log is kept where the message says, not only the tail the message carries
            java.util.regex.Matcher kept = java.util.regex.Pattern.compile("whole log (\\S+)\\)")
                    .matcher(org.assertj.core.util.Throwables.getRootCause(failure)
                            .getMessage());
            assertThat(kept.find()).as("the message names the kept log").isTrue();
            Path log = Path.of(kept.group(1));
            assertThat(log).exists();
            Files.delete(log);
        } finally {
            for (EmulatedCluster taker : takers) {
                taker.close();
            }
        }
    }

    /**
     * The stand-in says where its management interface listens, in the line Quarkus 3.27 logs once started (after the
     * main interface's port), a second after it starts: the bench probes that port (a server here answering as a ready
     * operator does) and reports it.
     */
    @Test
    void theBenchProbesThePortTheOperatorAnnounces(@TempDir Path dir) throws Exception {
        HttpServer management = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        AtomicInteger probes = new AtomicInteger();
        management.createContext("/q/health/ready", exchange -> {
            probes.incrementAndGet();
            byte[] body = "{\"status\":\"UP\",\"checks\":[]}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        management.start();
        int port = management.getAddress().getPort();
        FootprintBench.Launcher launcher = standIn(
                dir,
                "sleep 1\necho '2026-11-29 20:00:00,000 INFO  [io.quarkus] (main) tenure-operator 0.1.0 on JVM"
                        + " (powered by Quarkus 3.27.2) started in 1.000s. Listening on: http://0.0.0.0:1."
                        + " Management interface listening on http://0.0.0.0:" + port + ".'\nexec sleep 10\n");
        try (EmulatedCluster cluster = EmulatedCluster.start();
                FootprintBench.Running operator = FootprintBench.start(cluster, launcher, List.of())) {
            assertThat(operator.managementPort()).isEqualTo(port);
            assertThat(operator.secondsToReady()).isGreaterThanOrEqualTo(1.0);
            assertThat(probes.get()).isPositive();
        } finally {
            management.stop(0);
        }
    }

    /** A launcher whose "java" is a shell script with {@code body}; the bench's arguments follow as its own. */
    private static FootprintBench.Launcher standIn(Path dir, String body) throws Exception {
        Path script = dir.resolve("java");
        Files.writeString(script, "#!/bin/sh\n" + body);
        return new FootprintBench.Launcher(List.of("/bin/sh", script.toString()), dir.toString());
    }
}
