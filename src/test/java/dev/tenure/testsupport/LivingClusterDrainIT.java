package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A drain paced by a PodDisruptionBudget completes on a living cluster, as on a real one: each eviction the budget
 * allows is followed by a replacement scheduled on another node, which becomes Ready a second later and gives the
 * budget its next disruption. Without the living namespace the drain still ends (the emulator's budget counts the pods
 * that exist, and nothing replaces them) but the workload is gone: seen, the test then fails on its four pods.
 *
 * <p>It runs in the application the other maintenance tests share (one Quarkus build and start fewer): its namespace
 * lives while it runs ({@link EmulatedCluster#living}), the rest of the shared cluster does not, and its pods may only
 * be scheduled on its own nodes (a nodeSelector), so nodes other tests left behind take none of them.
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class LivingClusterDrainIT {

    static final String NS = "living-shop";
    static final String NODES = "tenure.test/living-cluster-drain";

    @Test
    void aDrainWithADisruptionBudgetSucceedsAndThePodsLiveOnElsewhere() {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        KubernetesClient client = cluster.client();
        try (EmulatedCluster.Living living = cluster.living(NS, Duration.ofSeconds(1))) {
            for (String node : List.of("w1", "w2", "w3")) {
                cluster.seed().node(node).role("worker").label(NODES, "yes").create();
            }
            cluster.seed()
                    .deployment("web")
                    .namespace(NS)
                    .replicas(4)
                    .onNodes("w1")
                    .nodeSelector(NODES, "yes")
                    .create();
            cluster.seed()
                    .pdb("web")
                    .namespace(NS)
                    .selector("app", "web")
                    .maxUnavailable(1)
                    .create();

            client.resource(new NodeMaintenance("living-w1", new NodeMaintenanceSpec("w1", "living cluster")))
                    .create();

            await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
                NodeMaintenance nm = client.resources(NodeMaintenance.class)
                        .withName("living-w1")
                        .get();
                assertThat(nm.getStatus()).isNotNull();
                assertThat(nm.getStatus().getPhase()).isEqualTo(Phase.Succeeded);
            });
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                List<Pod> web = client.pods().inNamespace(NS).withLabel("app", "web").list().getItems().stream()
                        .filter(LivingCluster::active)
                        .toList();
                assertThat(web).hasSize(4).allSatisfy(p -> {
                    assertThat(p.getSpec().getNodeName()).isIn("w2", "w3");
                    assertThat(DisruptionBudgets.isReady(p)).isTrue();
                });
            });
            assertThat(cluster.requests().count(r -> r.is("create", "pods", "eviction") && NS.equals(r.namespace())))
                    .as("each of the four pods was evicted through the budget")
                    .isGreaterThanOrEqualTo(4);
        } finally {
            // the shared application goes on with other tests: the maintenance ends, the node is given back
            client.resources(NodeMaintenance.class).withName("living-w1").delete();
        }
    }
}
