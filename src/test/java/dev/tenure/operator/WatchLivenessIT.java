package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.coordination.CoordinationController;
import dev.tenure.coordination.CoordinationMetrics;
import dev.tenure.coordination.ElectionPlanner;
import dev.tenure.coordination.ElectionTiming;
import dev.tenure.coordination.LeaseCandidateApi;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.NodeCache;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The watch liveness probe on real informers: in the running operator it lists every reconciler's and the
 * coordination controller's informers as watching; and informers whose API server went away are reported, and
 * fail the probe once the grace has passed.
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class WatchLivenessIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TestHTTPResource("/q/health/live")
    URI live;

    @Inject
    Operator operator;

    @Test
    void theLiveProbeListsEveryInformerOfTheLeaderAsWatching() {
        JsonNode check = await().atMost(WAIT)
                .ignoreExceptions()
                .until(() -> check(WatchLivenessCheck.NAME), c -> c.path("data").has("coordination/leases"));
        assertThat(check.at("/status").asText()).isEqualTo("UP");
        List<String> controllers = new ArrayList<>();
        operator.getRuntimeInfo()
                .getRegisteredControllers()
                .forEach(c -> controllers.add(c.getConfiguration().getName()));
        assertThat(controllers).isNotEmpty();
        for (String controller : controllers) {
            assertThat(names(check.path("data")))
                    .as("informers of " + controller)
                    .anyMatch(n -> n.startsWith(controller + "/"));
        }
        check.path("data")
                .fields()
                .forEachRemaining(
                        e -> assertThat(e.getValue().asText()).as(e.getKey()).isEqualTo("watching"));
        assertThat(check.at("/data/coordination~1leasecandidates").asText()).isEqualTo("watching");
        assertThat(check.at("/data/coordination~1pods").asText()).isEqualTo("watching");
        assertThat(check.at("/data/" + WatchLivenessCheck.NODES).asText()).isEqualTo("watching");
    }

    @Test
    void informersThatLostTheirApiServerFailTheProbeAfterTheGrace() {
        EmulatedCluster cluster = EmulatedCluster.start();
        CoordinationController controller = new CoordinationController(
                cluster.operatorClient(),
                new KubeLeaseStore(cluster.operatorClient()),
                new ElectionPlanner(ElectionTiming.UPSTREAM, false),
                Clock.systemUTC(),
                LeaseCandidateApi.of("v1beta1"),
                new CoordinationMetrics(new SimpleMeterRegistry(), Clock.systemUTC()),
                Duration.ofMinutes(30),
                new NodeCache(cluster.operatorClient()));
        WatchLiveness liveness = new WatchLiveness(Duration.ZERO);
        try {
            controller.start();
            await().atMost(WAIT)
                    .until(() -> liveness.assess(
                                            WatchLivenessCheck.informerWatches(controller.informers()),
                                            Clock.systemUTC().instant())
                                    .live()
                            && WatchLivenessCheck.informerWatches(controller.informers())
                                            .size()
                                    == 3); // leasecandidates, leases, pods
            cluster.close(); // the API server goes away: every watch drops and cannot come back
            await().atMost(WAIT).untilAsserted(() -> {
                WatchLiveness.Verdict verdict = liveness.assess(
                        WatchLivenessCheck.informerWatches(controller.informers()),
                        Clock.systemUTC().instant());
                assertThat(verdict.live()).isFalse();
                // Not watching past the grace, or stopped (fabric8 gave up reconnecting), which fails at once.
                assertThat(verdict.details().get("coordination/leases"))
                        .containsAnyOf(
                                "longer than tenure.health.watch-grace",
                                "a stopped informer does not restart by itself");
            });
        } finally {
            controller.stop();
            cluster.close();
        }
    }

    private static List<String> names(JsonNode data) {
        List<String> out = new ArrayList<>();
        data.fieldNames().forEachRemaining(out::add);
        return out;
    }

    private JsonNode check(String name) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(live)
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        for (JsonNode check : JSON.readTree(response.body()).get("checks")) {
            if (name.equals(check.get("name").asText())) {
                return check;
            }
        }
        throw new AssertionError("no liveness check named " + name + " in " + response.body());
    }
}
