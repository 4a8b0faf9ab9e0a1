package dev.tenure.maintenance.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.MaintenanceOperatorRig;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.door.MaintenanceLifecycleIT;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.ClusterSeed;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.RequestOrigin;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node that frees a slot of {@code max-nodes-in-maintenance} wakes the request the cap holds (issue 37): the cap
 * (1) is full only because a node no maintenance of Tenure's holds is cordoned by someone else or NotReady; when that
 * node is uncordoned, turns Ready or is deleted, the held request starts within {@link #WAKE_UP}. Its own backstop
 * look is {@link #QUEUE_LOOK} away and no NodeMaintenance changes, so only the Node's event can start it that soon.
 */
@EndToEnd
class NodeSlotWakeUpIT {

    /** The backstop look of a held request: far longer than any wait in this test. */
    static final Duration QUEUE_LOOK = Duration.ofMinutes(10);

    /** Well under {@link #QUEUE_LOOK} and the lease renewal: only the Node's event can be this fast. */
    static final Duration WAKE_UP = Duration.ofSeconds(5);

    MaintenanceOperatorRig rig;
    KubernetesClient client;

    @AfterEach
    void stop() {
        if (rig != null) {
            rig.close();
        }
    }

    /** The operator with a cap of 1, a worker w1 to maintain and a worker w2 that {@code w2} makes unavailable. */
    void start(Consumer<ClusterSeed.NodeSeed> w2) {
        rig = MaintenanceOperatorRig.start(
                EmulatedCluster.Options.forTests(),
                MaintenanceLifecycleIT.SETTINGS,
                Clock.systemUTC(),
                new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty()),
                QUEUE_LOOK,
                "w1");
        client = rig.client;
        ClusterSeed.NodeSeed seed = rig.cluster.seed().node("w2").role("worker");
        w2.accept(seed);
        seed.create();
    }

    /** A request for w1, held by the cap that w2 ({@code why}) fills. */
    void createHeld(String why) {
        client.resource(new NodeMaintenance("m-w1", new NodeMaintenanceSpec("w1", "test")))
                .create();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> rig.phase("m-w1") == Phase.Pending
                        && rig.status("m-w1").getLastError() != null
                        && rig.status("m-w1").getLastError().endsWith("w2 (" + why + ")"));
        assertThat(client.nodes().withName("w1").get().getSpec().getUnschedulable())
                .as("held: w1 is not touched")
                .isNotEqualTo(Boolean.TRUE);
    }

    void awaitWokenAndStarted() {
        await().atMost(WAKE_UP).until(() -> rig.phase("m-w1") == Phase.Running || rig.phase("m-w1") == Phase.Succeeded);
        assertThat(rig.status("m-w1").getQueuePosition()).isNull();
    }

    @Test
    void uncordoningAForeignNodeWakesTheHeldRequest() {
        start(ClusterSeed.NodeSeed::unschedulable);
        createHeld("cordoned");

        client.nodes().withName("w2").edit(n -> {
            n.getSpec().setUnschedulable(null);
            return n;
        });

        awaitWokenAndStarted();
    }

    @Test
    void aNodeTurningReadyWakesTheHeldRequest() {
        start(ClusterSeed.NodeSeed::notReady);
        createHeld("NotReady");

        client.nodes().withName("w2").editStatus(n -> {
            n.getStatus().getConditions().stream()
                    .filter(c -> "Ready".equals(c.getType()))
                    .forEach(c -> {
                        c.setStatus("True");
                        c.setReason("KubeletReady");
                    });
            return n;
        });

        awaitWokenAndStarted();
    }

    @Test
    void deletingAnUnavailableNodeWakesTheHeldRequest() {
        start(ClusterSeed.NodeSeed::unschedulable);
        createHeld("cordoned");

        client.nodes().withName("w2").delete();

        awaitWokenAndStarted();
    }

    /**
     * Issue 49: a request the cap holds reads its own Node and every Node (the cap counts unavailable nodes) from the
     * shared Node cache at each look, not from the API server. Each spec edit makes a look that records the new
     * generation in status (observedGeneration); over three such looks the operator sends no Node GET and no Node
     * LIST (the cache's own LIST was made at its start; before, each look GOT w1).
     */
    @Test
    void aHeldRequestsLooksReadNoNodeFromTheApiServer() {
        start(ClusterSeed.NodeSeed::unschedulable);
        createHeld("cordoned");
        Predicate<ApiRequest> operator = r -> RequestOrigin.of(r) == RequestOrigin.OPERATOR;
        Predicate<ApiRequest> nodeGets = operator.and(ApiRequest.verb("get")).and(ApiRequest.resource("nodes"));
        Predicate<ApiRequest> nodeLists = operator.and(ApiRequest.verb("list")).and(ApiRequest.resource("nodes"));
        long getsBefore = rig.cluster.requests().count(nodeGets);
        long listsBefore = rig.cluster.requests().count(nodeLists);

        for (int look = 1; look <= 3; look++) {
            // a merge patch: no resourceVersion precondition to lose to the operator's own status writes
            NodeMaintenance edited = client.resources(NodeMaintenance.class)
                    .withName("m-w1")
                    .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"reason\":\"look " + look + "\"}}");
            long generation = edited.getMetadata().getGeneration();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                NodeMaintenanceStatus s = rig.status("m-w1");
                return s != null && s.getObservedGeneration() != null && s.getObservedGeneration() >= generation;
            });
        }

        assertThat(rig.phase("m-w1")).isEqualTo(Phase.Pending);
        assertThat(rig.status("m-w1").getQueuePosition()).isEqualTo(1);
        assertThat(rig.cluster.requests().count(nodeGets) - getsBefore)
                .as("Node GETs while the held request was looked at 3 times")
                .isZero();
        assertThat(rig.cluster.requests().count(nodeLists) - listsBefore)
                .as("Node LISTs while the held request was looked at 3 times")
                .isZero();
    }

    /**
     * A Node the shared cache has not seen yet (created a moment ago; here its watch runs 3 s late) is read from the
     * API server: the request for it is admitted and its node cordoned, not refused as "not found".
     */
    @Test
    void aRequestForANodeTheCacheHasNotSeenYetIsAdmitted() {
        start(seed -> {});
        rig.cluster.lagWatches("nodes", Duration.ofSeconds(3));
        try {
            rig.cluster.seed().node("w3").role("worker").create();
            client.resource(new NodeMaintenance("m-w3", new NodeMaintenanceSpec("w3", "test")))
                    .create();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> rig.phase("m-w3") == Phase.Running || rig.phase("m-w3") == Phase.Succeeded);
            assertThat(client.nodes().withName("w3").get().getSpec().getUnschedulable())
                    .isTrue();
        } finally {
            rig.cluster.lagWatches("nodes", Duration.ZERO);
        }
    }

    /**
     * A held request whose node is deleted is refused as before the cache (its node read from the API server once
     * the cache has dropped it): Failed, naming spec.nodeName, and no longer in the queue.
     */
    @Test
    void aHeldRequestWhoseNodeIsDeletedIsRefused() {
        start(ClusterSeed.NodeSeed::unschedulable);
        createHeld("cordoned");

        client.nodes().withName("w1").delete();

        await().atMost(WAKE_UP).until(() -> rig.phase("m-w1") == Phase.Failed);
        assertThat(rig.status("m-w1").getLastError()).isEqualTo("spec.nodeName: node w1 not found");
        assertThat(rig.status("m-w1").getQueuePosition()).isNull();
    }
}
