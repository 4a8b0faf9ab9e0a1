package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.MaintenanceOperatorRig;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.SecondLane;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 29's shared requests through the NodeMaintenance door: the real reconciler in a JOSDK operator on the emulated
 * cluster. A second NodeMaintenance of a node with {@code spec.join: true} shares the first one's maintenance instead
 * of being refused; the node is restored, exactly as it was, only when the last of them ends, whichever ends first.
 * The reconciler's own look at a waiting maintenance is 10 minutes here, so each step is the effect of an event.
 */
@EndToEnd
@SecondLane
class SharedMaintenanceIT {

    static final Duration LOOK = Duration.ofMinutes(10);
    static final Duration PROMPT = Duration.ofSeconds(15);

    EmulatedCluster cluster;
    KubernetesClient client;
    MaintenanceOperatorRig rig;

    void startOperator() {
        rig = MaintenanceOperatorRig.start(
                EmulatedCluster.Options.forTests(),
                MaintenanceLifecycleIT.SETTINGS,
                Clock.systemUTC(),
                MaintenanceLimits.none(),
                LOOK,
                "n1",
                "n2");
        cluster = rig.cluster;
        client = rig.client;
    }

    @AfterEach
    void stop() {
        if (rig != null) {
            rig.close();
        }
    }

    void create(String name, String node, Boolean join) {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec(node, "test " + name);
        spec.setJoin(join);
        client.resource(new NodeMaintenance(name, spec)).create();
    }

    NodeMaintenance get(String name) {
        return client.resources(NodeMaintenance.class).withName(name).get();
    }

    NodeMaintenanceStatus status(String name) {
        return rig.status(name);
    }

    Phase phase(String name) {
        return rig.phase(name);
    }

    void delete(String name) {
        client.resources(NodeMaintenance.class).withName(name).delete();
    }

    boolean gone(String name) {
        return get(name) == null;
    }

    boolean cordoned(String node) {
        return Boolean.TRUE.equals(client.nodes().withName(node).get().getSpec().getUnschedulable());
    }

    /** What Tenure touches on a Node: spec (cordon, taints), labels, annotations, condition types. */
    record NodeShape(
            NodeSpec spec, Map<String, String> labels, Map<String, String> annotations, List<String> conditions) {
        static NodeShape of(Node n) {
            NodeSpec spec = new io.fabric8.kubernetes.api.model.NodeSpecBuilder(n.getSpec()).build();
            if (spec.getTaints() != null && spec.getTaints().isEmpty()) {
                spec.setTaints(null);
            }
            if (Boolean.FALSE.equals(spec.getUnschedulable())) {
                spec.setUnschedulable(null);
            }
            return new NodeShape(
                    spec,
                    n.getMetadata().getLabels() == null
                            ? Map.of()
                            : n.getMetadata().getLabels(),
                    n.getMetadata().getAnnotations() == null
                            ? Map.of()
                            : n.getMetadata().getAnnotations(),
                    n.getStatus() == null || n.getStatus().getConditions() == null
                            ? List.of()
                            : n.getStatus().getConditions().stream()
                                    .map(c -> c.getType())
                                    .sorted()
                                    .toList());
        }
    }

    NodeShape shape(String node) {
        return NodeShape.of(client.nodes().withName(node).get());
    }

    /** A owns n1's maintenance, B joins it: both report it, each names the other. */
    void aOwnsAndBJoins() {
        create("a", "n1", null);
        await().atMost(PROMPT).until(() -> phase("a") == Phase.Succeeded);
        create("b", "n1", true);
        await().atMost(PROMPT).until(() -> "a".equals(status("b").getJoinedTo()) && phase("b") == Phase.Succeeded);
        await().atMost(PROMPT).until(() -> List.of("b").equals(status("a").getSharedWith()));
        NodeMaintenanceStatus b = status("b");
        assertThat(b.getSharedWith()).containsExactly("a");
        assertThat(b.getConditions())
                .anySatisfy(c -> assertThat(c.getType() + " " + c.getStatus()).isEqualTo("Shared True"));
        assertThat(b.getLease()).as("a joiner holds no lease").isNull();
        assertThat(cordoned("n1")).isTrue();
    }

    @Test
    void theNodeIsRestoredExactlyOnlyWhenTheLastJoinedMaintenanceEnds_ownerFirst() {
        startOperator();
        NodeShape before = shape("n1");
        aOwnsAndBJoins();

        delete("a");
        await().atMost(PROMPT).until(() -> {
            NodeMaintenanceStatus a = status("a");
            return a == null // gone: asserted below
                    || (a.getLastError() != null
                            && a.getLastError()
                                    .contains("stays in maintenance until the NodeMaintenances that joined it end: b"));
        });
        assertThat(get("a")).as("the owner waits, its finalizer kept").isNotNull();
        assertThat(cordoned("n1")).isTrue();
        assertThat(shape("n1")).isNotEqualTo(before);

        delete("b");
        await().atMost(PROMPT).until(() -> gone("a") && gone("b"));
        await().atMost(PROMPT).until(() -> shape("n1").equals(before));
    }

    @Test
    void theNodeIsRestoredExactlyOnlyWhenTheLastJoinedMaintenanceEnds_joinerFirst() {
        startOperator();
        NodeShape before = shape("n1");
        aOwnsAndBJoins();

        delete("b");
        await().atMost(PROMPT).until(() -> gone("b"));
        await().atMost(PROMPT).until(() -> status("a").getSharedWith() == null);
        assertThat(cordoned("n1"))
                .as("b never touched the node; a still has it")
                .isTrue();
        assertThat(phase("a")).isEqualTo(Phase.Succeeded);

        delete("a");
        await().atMost(PROMPT).until(() -> gone("a"));
        await().atMost(PROMPT).until(() -> shape("n1").equals(before));
    }

    @Test
    void aSecondMaintenanceWithoutJoinIsRefusedAsBefore() {
        startOperator();
        create("a", "n1", null);
        await().atMost(PROMPT).until(() -> phase("a") == Phase.Succeeded);
        create("c", "n1", false);
        await().atMost(PROMPT).until(() -> phase("c") == Phase.Failed);
        assertThat(status("c").getLastError())
                .isEqualTo("spec.nodeName: node n1 already has an active NodeMaintenance a");
        assertThat(status("c").getJoinedTo()).isNull();
        assertThat(status("a").getSharedWith()).isNull();

        delete("c");
        await().atMost(PROMPT).until(() -> gone("c"));
        assertThat(cordoned("n1")).isTrue();
    }

    @Test
    void aJoinOnAnIdleNodeIsAnOrdinaryMaintenance() {
        startOperator();
        NodeShape before = shape("n2");
        create("solo", "n2", true);
        await().atMost(PROMPT).until(() -> phase("solo") == Phase.Succeeded);
        assertThat(status("solo").getJoinedTo()).isNull();
        assertThat(cordoned("n2")).isTrue();
        delete("solo");
        await().atMost(PROMPT).until(() -> gone("solo"));
        await().atMost(PROMPT).until(() -> shape("n2").equals(before));
    }

    /** The owner's spec.window is a hard bound: it ends and restores the node; the joiner goes ahead on its own. */
    @Test
    void aJoinerWhoseOwnerEndsByItsWindowGoesAheadOnItsOwn() {
        startOperator();
        NodeShape before = shape("n1");
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("n1", "test windowed");
        spec.setWindow("8s");
        client.resource(new NodeMaintenance("a", spec)).create();
        await().atMost(PROMPT).until(() -> phase("a") == Phase.Succeeded);
        NodeMaintenanceSpec same = new NodeMaintenanceSpec("n1", "test b");
        same.setWindow("8s"); // a joiner asks for the owner's window (JoinedSpecs); its own counts once it goes ahead
        same.setJoin(true);
        client.resource(new NodeMaintenance("b", same)).create();
        await().atMost(PROMPT).until(() -> "a".equals(status("b").getJoinedTo()));

        await().atMost(PROMPT).until(() -> phase("a") == Phase.Ended);
        await().atMost(PROMPT)
                .until(() -> status("b").getJoinedTo() == null
                        && phase("b") == Phase.Succeeded
                        && status("b").getLease() != null);
        assertThat(cordoned("n1")).as("b's own maintenance of the node").isTrue();

        delete("b");
        await().atMost(PROMPT).until(() -> gone("b"));
        delete("a");
        await().atMost(PROMPT).until(() -> gone("a"));
        await().atMost(PROMPT).until(() -> shape("n1").equals(before));
    }

    /**
     * Issue 37: a joiner's own window, drain spec and hooks used to be silently ignored. Joining a maintenance that is
     * still draining (a PodDisruptionBudget holds its one pod), one that asks for another window and drain is refused,
     * naming the fields; one that asks for the same joins; edited to differ afterwards, it leaves the share, refused.
     */
    @Test
    void aJoinerThatDiffersFromAMaintenanceStillDrainingIsRefusedNamingTheFields() {
        startOperator();
        cluster.seed()
                .deployment("db")
                .namespace("app")
                .replicas(1)
                .onNodes("n1")
                .create();
        cluster.seed()
                .pdb("db")
                .namespace("app")
                .selector("app", "db")
                .minAvailable(1)
                .create();
        create("a", "n1", null);
        await().atMost(PROMPT)
                .until(() -> phase("a") == Phase.Running
                        && status("a").getPendingPods() != null
                        && !status("a").getPendingPods().isEmpty());

        NodeMaintenanceSpec differs = new NodeMaintenanceSpec("n1", "test b");
        differs.setJoin(true);
        differs.setWindow("1h");
        DrainSpec drain = new DrainSpec();
        drain.setTimeout("5m");
        differs.setDrain(drain);
        client.resource(new NodeMaintenance("b", differs)).create();

        await().atMost(PROMPT).until(() -> phase("b") == Phase.Failed);
        NodeMaintenanceStatus b = status("b");
        assertThat(b.getLastError())
                .isEqualTo("spec.window, spec.drain: must equal those of NodeMaintenance a, whose maintenance of the"
                        + " node it joins (spec.join) and which alone runs it");
        assertThat(b.getJoinedTo()).isNull();
        assertThat(status("a").getSharedWith()).isNull();
        assertThat(phase("a")).isEqualTo(Phase.Running);

        create("c", "n1", true); // same window, drain, handover and hooks as a (none): it joins the drain under way
        await().atMost(PROMPT).until(() -> "a".equals(status("c").getJoinedTo()) && phase("c") == Phase.Running);
        await().atMost(PROMPT).until(() -> List.of("c").equals(status("a").getSharedWith()));

        client.resources(NodeMaintenance.class).withName("c").edit(nm -> {
            nm.getSpec().setWindow("2h");
            return nm;
        });
        await().atMost(PROMPT).until(() -> phase("c") == Phase.Failed);
        assertThat(status("c").getLastError())
                .isEqualTo("spec.window: must equal those of NodeMaintenance a, whose maintenance of the node it joins"
                        + " (spec.join) and which alone runs it; it no longer shares the maintenance of node n1");
        assertThat(status("c").getJoinedTo()).isNull();
        await().atMost(PROMPT).until(() -> status("a").getSharedWith() == null);
        assertThat(phase("a")).isEqualTo(Phase.Running);
        assertThat(cordoned("n1")).isTrue();
    }
}
