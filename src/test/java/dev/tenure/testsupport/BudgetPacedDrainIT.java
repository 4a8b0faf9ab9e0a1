package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 51 item 8: a drain a PodDisruptionBudget paces moves at the budget's pace, not the retry timer's. On the
 * living cluster (a replacement Ready a second after it is bound, the disruption controller keeping the budget's
 * status), a Deployment of three pods under {@code maxUnavailable: 1} is drained with {@code evictionRetryDelay: 60s}:
 * the budget refuses all but one eviction at first, and the refused pods can only be tried again before that minute
 * because the budget's status change woke the drain. Read from the API server's answers: every pod the budget
 * refused is evicted in the end, each by a retry sent before its refusal's timer would have let it go, and no retry
 * waits for the timer.
 *
 * <p>In the application the other maintenance tests share, with its own living namespace and nodes (as {@link
 * LivingClusterDrainIT}).
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class BudgetPacedDrainIT {

    static final String NS = "budget-paced";
    static final String NODES = "tenure.test/budget-paced-drain";
    static final Duration TIMER = Duration.ofSeconds(60);
    static final String NM = "budget-paced-bp1";

    @Test
    void aRefusedEvictionIsRetriedWhenItsBudgetAdmitsOneNotWhenTheTimerEnds() {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        KubernetesClient client = cluster.client();
        try (EmulatedCluster.Living living = cluster.living(NS, Duration.ofSeconds(1))) {
            for (String node : List.of("bp1", "bp2", "bp3")) {
                cluster.seed().node(node).role("worker").label(NODES, "yes").create();
            }
            cluster.seed()
                    .deployment("paced")
                    .namespace(NS)
                    .replicas(3)
                    .onNodes("bp1")
                    .nodeSelector(NODES, "yes")
                    .create();
            cluster.seed()
                    .pdb("paced")
                    .namespace(NS)
                    .selector("app", "paced")
                    .maxUnavailable(1)
                    .create();
            NodeMaintenanceSpec spec = new NodeMaintenanceSpec("bp1", "budget-paced drain");
            DrainSpec drain = new DrainSpec();
            drain.setEvictionRetryDelay(TIMER.toSeconds() + "s");
            spec.setDrain(drain);
            client.resource(new NodeMaintenance(NM, spec)).create();

            // the bound only keeps a red run short: the assertions below are on the order of the answers
            await().atMost(TIMER.plusSeconds(30)).untilAsserted(() -> {
                NodeMaintenance nm =
                        client.resources(NodeMaintenance.class).withName(NM).get();
                assertThat(nm.getStatus()).isNotNull();
                assertThat(nm.getStatus().getPhase()).isEqualTo(Phase.Succeeded);
            });

            List<RequestLog.Answer> evictions = cluster.requests().answers().stream()
                    .filter(a -> a.request().is("create", "pods", "eviction")
                            && NS.equals(a.request().namespace()))
                    .toList();
            Map<String, Instant> firstRefused = new LinkedHashMap<>();
            Map<String, Instant> evicted = new LinkedHashMap<>();
            for (RequestLog.Answer a : evictions) {
                String pod = a.request().name();
                if (a.refusedByBudget()) {
                    firstRefused.putIfAbsent(pod, a.at());
                } else if (a.status() / 100 == 2) {
                    evicted.putIfAbsent(pod, a.at());
                }
            }
            assertThat(evicted)
                    .as("the three pods were evicted (listed on bp1 and evicted by name)")
                    .hasSize(3);
            assertThat(firstRefused)
                    .as("the budget refused evictions, so the drain was paced by it: %s", evictions)
                    .isNotEmpty();
            firstRefused.forEach((pod, refusedAt) -> {
                assertThat(evicted).as("refused pod %s evicted in the end", pod).containsKey(pod);
                assertThat(evicted.get(pod))
                        .as("pod %s's retry came before its %s timer could send it", pod, TIMER)
                        .isBefore(refusedAt.plus(TIMER));
            });
        } finally {
            // the shared application goes on with other tests: the maintenance ends, the node is given back
            client.resources(NodeMaintenance.class).withName(NM).delete();
        }
    }
}
