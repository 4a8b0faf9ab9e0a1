package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.RelaxedLeadershipProfile;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A drain paced by a PodDisruptionBudget completes on a living cluster, as on a real one: each eviction the budget
 * allows is followed by a replacement scheduled on another node, which becomes Ready a second later and gives the
 * budget its next disruption. On a cluster without workload controllers the same drain stops after the first eviction
 * for good.
 */
@QuarkusTest
@TestProfile(LivingClusterDrainIT.Living.class)
@EndToEnd
class LivingClusterDrainIT {

    /**
     * The relaxed leadership of the maintenance tests, on a living cluster of its own. A {@code @QuarkusTestResource}
     * is global (every Quarkus test class starts every one declared anywhere), so one with arguments of its own
     * started a second emulated cluster beside the plain one in every application, and which of them the operator
     * and the test talked to depended on the order of the classes: in a full run this test drained a cluster
     * without workload controllers. A profile's resources apply to its own classes, and global ones are left out.
     */
    public static class Living extends RelaxedLeadershipProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(
                    EmulatedClusterResource.class, Map.of(EmulatedClusterResource.LIVING, "PT1S")));
        }

        @Override
        public boolean disableGlobalTestResources() {
            return true;
        }
    }

    @Test
    void aDrainWithADisruptionBudgetSucceedsAndThePodsLiveOnElsewhere() {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        KubernetesClient client = cluster.client();
        for (String node : List.of("w1", "w2", "w3")) {
            cluster.seed().node(node).role("worker").create();
        }
        cluster.seed()
                .deployment("web")
                .namespace("shop")
                .replicas(4)
                .onNodes("w1")
                .create();
        cluster.seed()
                .pdb("web")
                .namespace("shop")
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
            List<Pod> web = client.pods().inNamespace("shop").withLabel("app", "web").list().getItems().stream()
                    .filter(LivingCluster::active)
                    .toList();
            assertThat(web).hasSize(4).allSatisfy(p -> {
                assertThat(p.getSpec().getNodeName()).isIn("w2", "w3");
                assertThat(DisruptionBudgets.isReady(p)).isTrue();
            });
        });
        assertThat(cluster.requests().count(r -> r.is("create", "pods", "eviction")))
                .as("each of the four pods was evicted through the budget")
                .isGreaterThanOrEqualTo(4);
    }
}
