package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.MaintenanceOperatorRig;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.annotation.MaintenanceAnnotation;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.Conflicts;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.SecondLane;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 50, item 2: two requests for one node, one at each front door (a NodeMaintenance and the {@code
 * lifecycle.metal3.io/maintenance} annotation), in either order. While either is active the node never leaves
 * maintenance: the one that ends hands the node over to the other (no uncordon, no untaint), judged at every request
 * the emulated API server receives, on the Node as it has it then. The request that waits takes the node when the
 * other lets the lease go, woken by that change of the Lease ({@link #SETTINGS}).
 */
@EndToEnd
@SecondLane
class DoorHandoverIT {

    /** A liveness bound, not a speed claim (the machine is shared: see MaintenanceLifecycleIT.SETTLE). */
    static final Duration SETTLE = Duration.ofSeconds(60);

    /**
     * MaintenanceLifecycleIT's settings with a wait-retry and a NodeMaintenance lease far past {@link #SETTLE}: a
     * request waiting for the lease the other door holds can only take it in time if the lease's release wakes it
     * (NodeLeaseWakeUps, AnnotationDoor's lease events), not its timed look again nor the lease's expiry.
     */
    static final MaintenanceSettings SETTINGS = new MaintenanceSettings(
            MaintenanceLifecycleIT.SETTINGS.leaseNamespace(),
            MaintenanceLifecycleIT.SETTINGS.leaseNamePrefix(),
            MaintenanceLifecycleIT.SETTINGS.holder(),
            Duration.ofMinutes(10),
            MaintenanceLifecycleIT.SETTINGS.windowPadding(),
            Duration.ofHours(1),
            MaintenanceLifecycleIT.SETTINGS.evictionParallelism(),
            MaintenanceLifecycleIT.SETTINGS.drainPollInterval(),
            MaintenanceLifecycleIT.SETTINGS.staleNodeSkipWait());

    MaintenanceOperatorRig rig;
    KubernetesClient client;
    /** Requests at which w2, with a request active, was schedulable (or had lost Tenure's taint). */
    final List<String> gaps = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        rig = MaintenanceOperatorRig.startWithAnnotationDoor(
                EmulatedCluster.Options.forTests(),
                SETTINGS,
                Clock.systemUTC(),
                MaintenanceLimits.none(),
                NodeMaintenanceReconciler.QUEUE_LOOK,
                "w1",
                "w2");
        client = rig.client;
        rig.cluster.seed().pod("web-1").namespace("app").onNodes("w2").create();
    }

    @AfterEach
    void stop() {
        rig.close();
    }

    /** From now on, every request: w2 cordoned and tainted by Tenure, as the API server has it at that moment. */
    Consumer<ApiRequest> watchForAGap() {
        Consumer<ApiRequest> judge = r -> {
            Node w2 = rig.cluster.stored(Node.class, null, "w2").orElse(null);
            boolean inMaintenance = w2 != null
                    && Boolean.TRUE.equals(w2.getSpec().getUnschedulable())
                    && w2.getSpec().getTaints() != null
                    && w2.getSpec().getTaints().stream().anyMatch(t -> "tenure.dev/drain".equals(t.getKey()));
            if (!inMaintenance) {
                gaps.add(r.toString());
            }
        };
        rig.cluster.requests().observe(judge);
        return judge;
    }

    void annotate(String value) {
        Conflicts.retry(() -> client.nodes().withName("w2").edit(n -> {
            if (value == null) {
                n.getMetadata().getAnnotations().remove(MaintenanceAnnotation.REQUEST);
            } else {
                n.getMetadata().getAnnotations().put(MaintenanceAnnotation.REQUEST, value);
            }
            return n;
        }));
    }

    Map<String, String> annotations() {
        return client.nodes().withName("w2").get().getMetadata().getAnnotations();
    }

    boolean schedulable() {
        Node n = client.nodes().withName("w2").get();
        return !Boolean.TRUE.equals(n.getSpec().getUnschedulable())
                && (n.getSpec().getTaints() == null || n.getSpec().getTaints().isEmpty());
    }

    List<String> events() {
        return client.v1().events().inAnyNamespace().list().getItems().stream()
                .map(e -> e.getReason() + ": " + e.getMessage())
                .toList();
    }

    @Test
    void aNodeMaintenanceEndingHandsTheNodeToTheWaitingAnnotation() {
        client.resource(new NodeMaintenance("first", new NodeMaintenanceSpec("w2", "kernel")))
                .create();
        await().atMost(SETTLE).until(() -> rig.phase("first") == Phase.Succeeded);
        annotate("3600");
        await().atMost(SETTLE)
                .until(() -> MaintenanceAnnotation.WAITING.equals(annotations().get(MaintenanceAnnotation.STATUS)));
        Consumer<ApiRequest> judge = watchForAGap();

        client.resources(NodeMaintenance.class).withName("first").delete();
        await().atMost(SETTLE)
                .until(() -> client.resources(NodeMaintenance.class)
                                .withName("first")
                                .get()
                        == null);
        await().atMost(SETTLE).until(() -> MaintenanceAnnotation.holdsNode(annotations()));
        rig.cluster.requests().stopObserving(judge);

        assertThat(gaps)
                .as("requests at which w2 was out of maintenance between the two")
                .isEmpty();
        assertThat(events())
                .anySatisfy(e -> assertThat(e)
                        .startsWith(MaintenanceEvents.HANDED_OVER + ": ")
                        .contains("annotation " + MaintenanceAnnotation.REQUEST));
        annotate(null);
        await().atMost(SETTLE).until(this::schedulable);
    }

    /**
     * The NodeMaintenance ends by itself (its {@code spec.window} is over) while the annotation waits: handed over as
     * at a deletion, with the window's end saying so, and the Ended maintenance's deletion later touches nothing.
     */
    @Test
    void aNodeMaintenanceWhoseWindowEndsHandsTheNodeToTheWaitingAnnotation() {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("w2", "kernel");
        spec.setWindow("30s");
        client.resource(new NodeMaintenance("windowed", spec)).create();
        await().atMost(SETTLE).until(() -> rig.phase("windowed") == Phase.Succeeded);
        annotate("3600");
        await().atMost(SETTLE)
                .until(() -> MaintenanceAnnotation.WAITING.equals(annotations().get(MaintenanceAnnotation.STATUS)));
        Consumer<ApiRequest> judge = watchForAGap();
        assertThat(rig.phase("windowed"))
                .as("the window still open when the annotation waits (else this proves nothing)")
                .isEqualTo(Phase.Succeeded);

        await().atMost(SETTLE).until(() -> rig.phase("windowed") == Phase.Ended);
        await().atMost(SETTLE).until(() -> MaintenanceAnnotation.holdsNode(annotations()));
        client.resources(NodeMaintenance.class).withName("windowed").delete();
        await().atMost(SETTLE)
                .until(() -> client.resources(NodeMaintenance.class)
                                .withName("windowed")
                                .get()
                        == null);
        rig.cluster.requests().stopObserving(judge);

        assertThat(gaps)
                .as("requests at which w2 was out of maintenance between the two")
                .isEmpty();
        assertThat(events())
                .anySatisfy(e -> assertThat(e)
                        .startsWith(MaintenanceEvents.HANDED_OVER + ": ")
                        .contains("annotation " + MaintenanceAnnotation.REQUEST))
                .anySatisfy(e -> assertThat(e)
                        .contains("maintenance window of 30s is over; node w2 stays in maintenance for annotation "
                                + MaintenanceAnnotation.REQUEST));
        annotate(null);
        await().atMost(SETTLE).until(this::schedulable);
    }

    @Test
    void theAnnotationEndingHandsTheNodeToTheWaitingNodeMaintenance() {
        annotate("3600");
        await().atMost(SETTLE)
                .until(() -> MaintenanceAnnotation.ACTIVE.equals(annotations().get(MaintenanceAnnotation.STATUS))
                        && Boolean.TRUE.equals(
                                client.nodes().withName("w2").get().getSpec().getUnschedulable()));
        client.resource(new NodeMaintenance("second", new NodeMaintenanceSpec("w2", "kernel")))
                .create();
        await().atMost(SETTLE).until(() -> rig.phase("second") == Phase.Waiting);
        Consumer<ApiRequest> judge = watchForAGap();

        annotate(null);
        await().atMost(SETTLE).until(() -> rig.phase("second") == Phase.Succeeded);
        rig.cluster.requests().stopObserving(judge);

        assertThat(gaps)
                .as("requests at which w2 was out of maintenance between the two")
                .isEmpty();
        assertThat(events())
                .anySatisfy(e -> assertThat(e)
                        .startsWith(MaintenanceEvents.HANDED_OVER + ": ")
                        .contains("NodeMaintenance second"));
        client.resources(NodeMaintenance.class).withName("second").delete();
        await().atMost(SETTLE).until(this::schedulable);
    }
}
