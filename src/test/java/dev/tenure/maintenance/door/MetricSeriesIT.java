package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Day two at scale (issue 25): the scrape does not grow with the NodeMaintenances ever created, every metric
 * has HELP text, and a maintenance's per-node series goes when it ends.
 */
@QuarkusTest
@TestProfile(QuietStatusProfile.class)
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class MetricSeriesIT {

    static final Duration WAIT = Duration.ofSeconds(60);
    static final int MAINTENANCES = 30;

    @TestHTTPResource("/q/metrics")
    URL metrics;

    EmulatedCluster cluster() {
        return EmulatedClusterResource.cluster();
    }

    KubernetesClient client() {
        return cluster().client();
    }

    String scrape() throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(metrics.toString())).build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    static List<String> series(String scrape) {
        return scrape.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
    }

    void createAndDelete(String prefix) {
        IntStream.range(0, MAINTENANCES)
                .forEach(i ->
                        cluster().seed().node(prefix + "-" + i).role("worker").create());
        IntStream.range(0, MAINTENANCES)
                .forEach(i -> client().resource(new NodeMaintenance(
                                prefix + "-" + i, new NodeMaintenanceSpec(prefix + "-" + i, "series")))
                        .create());
        await().atMost(WAIT)
                .until(() -> client().resources(NodeMaintenance.class).list().getItems().stream()
                                .filter(nm -> nm.getMetadata().getName().startsWith(prefix + "-"))
                                .filter(nm ->
                                        nm.getStatus() != null && nm.getStatus().getPhase() == Phase.Succeeded)
                                .count()
                        == MAINTENANCES);
        IntStream.range(0, MAINTENANCES)
                .forEach(i -> client().resources(NodeMaintenance.class)
                        .withName(prefix + "-" + i)
                        .delete());
        await().atMost(WAIT)
                .until(() -> client().resources(NodeMaintenance.class).list().getItems().stream()
                        .noneMatch(nm -> nm.getMetadata().getName().startsWith(prefix + "-")));
    }

    @Test
    void seriesReturnNearTheirStartAfterManyMaintenancesComeAndGo() throws Exception {
        // A first round registers everything a maintenance ever registers (per-phase gauges, eviction counters,
        // JOSDK's per-controller meters); the second may add nothing that grows with the number of maintenances.
        createAndDelete("warm");
        int start = series(scrape()).size();

        createAndDelete("many");

        String after = scrape();
        assertThat(series(after).size())
                .as(
                        "series after %d more NodeMaintenances were created and deleted (started at %d)",
                        MAINTENANCES, start)
                .isLessThanOrEqualTo(start + 10);
        assertThat(series(after))
                .as("series naming a deleted NodeMaintenance or its node")
                .noneMatch(l -> l.contains("\"many-"));
    }

    @Test
    void everyMetricHasHelpText() throws Exception {
        cluster().seed().node("help-1").role("worker").create();
        client().resource(new NodeMaintenance("help", new NodeMaintenanceSpec("help-1", "help")))
                .create();
        await().atMost(WAIT).until(() -> scrape().contains("tenure_maintenance_pending_pods{node=\"help-1\"}"));
        String scrape = scrape();
        List<String> help = scrape.lines().filter(l -> l.startsWith("# HELP ")).toList();
        assertThat(help).anyMatch(l -> l.startsWith("# HELP operator_sdk_"));
        assertThat(help)
                .as("HELP lines without text")
                .filteredOn(l -> l.split(" ", 4).length < 4 || l.split(" ", 4)[3].isBlank())
                .isEmpty();
        client().resources(NodeMaintenance.class).withName("help").delete();
        await().atMost(WAIT).until(() -> !scrape().contains("tenure_maintenance_pending_pods{node=\"help-1\"}"));
    }
}
