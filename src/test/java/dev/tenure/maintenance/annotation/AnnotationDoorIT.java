package dev.tenure.maintenance.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.PlacementStatus;
import dev.tenure.maintenance.machine.NodeMarks;
import dev.tenure.maintenance.machine.PlacementGate;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The annotation front door in the running operator: {@link AnnotationDoor} on the shared Node cache (started by
 * operator leadership like every reconciler) against the emulated API server, with the real clock, and the
 * tests' relaxed leader-election timings (application.properties: the shared machine is loaded; leadership is not
 * what this test is about).
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class AnnotationDoorIT {

    static final Duration WAIT = Duration.ofSeconds(30);

    @jakarta.inject.Inject
    AnnotationDoor door;

    @jakarta.inject.Inject
    dev.tenure.coordination.CoordinationController coordination;

    @jakarta.inject.Inject
    dev.tenure.kube.NodeCache nodes;

    /**
     * Issue 14.3: one Node watch and one trimmed Node cache serve both jobs. With the annotation door and the
     * coordinated election both running, the operator has opened one watch on nodes, and the cache they share
     * holds the Node without its images.
     */
    @Test
    void bothJobsShareOneTrimmedNodeWatch() {
        Node node = dev.tenure.testsupport.RealisticNodes.node("trim-1");
        node.getMetadata().setAnnotations(Map.of("example.com/owner", "team-a"));
        client().resource(node).create();

        await().atMost(WAIT).until(() -> door.isRunning() && coordination.isRunning());
        Node cached = await().atMost(WAIT)
                .until(
                        () -> nodes.informer()
                                .map(i -> i.getStore().getByKey("trim-1"))
                                .orElse(null),
                        java.util.Objects::nonNull);
        java.util.function.Predicate<ApiRequest> byOperator =
                r -> dev.tenure.testsupport.RequestOrigin.of(r) == dev.tenure.testsupport.RequestOrigin.OPERATOR;
        assertThat(cluster().requests().count(byOperator.and(r -> r.is("watch", "nodes"))))
                .as("Node watches opened by the operator")
                .isEqualTo(1);
        assertThat(client().nodes().withName("trim-1").get().getStatus().getImages())
                .hasSize(40);
        assertThat(cached.getStatus().getImages()).isNullOrEmpty();
        assertThat(cached.getMetadata().getAnnotations()).containsEntry("example.com/owner", "team-a");
        assertThat(cached.getSpec().getTaints()).extracting("key").containsExactly("tenure.dev/drain");
        client().nodes().withName("trim-1").delete();
    }

    EmulatedCluster cluster() {
        return EmulatedClusterResource.cluster();
    }

    KubernetesClient client() {
        return cluster().client();
    }

    void annotate(String node, String key, String value) {
        String v = value == null ? "null" : "\"" + value + "\"";
        client().nodes()
                .withName(node)
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"metadata\":{\"annotations\":{\"" + key + "\":" + v + "}}}");
    }

    String annotation(String node, String key) {
        Map<String, String> a =
                client().nodes().withName(node).get().getMetadata().getAnnotations();
        return a == null ? null : a.get(key);
    }

    String status(String node) {
        return annotation(node, MaintenanceAnnotation.STATUS);
    }

    Lease lease(String node) {
        return client().leases()
                .inNamespace("tenure-system")
                .withName("node-" + node)
                .get();
    }

    List<Pod> podsOn(String node) {
        return client().pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName()))
                .toList();
    }

    List<Event> eventsOn(String node, String reason) {
        return client().v1().events().inAnyNamespace().list().getItems().stream()
                .filter(e -> node.equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
                .toList();
    }

    @Test
    void annotateToActiveThenRemoveToEndedWithTheNodeRestored() {
        cluster().seed().node("ann-1").role("worker").create();
        cluster().seed().node("ann-2").role("worker").create();
        List<Pod> pods = cluster()
                .seed()
                .deployment("ann")
                .namespace("ann")
                .replicas(4)
                .onNodes("ann-1", "ann-2")
                .create();
        List<String> onAnn1 = pods.stream()
                .filter(p -> "ann-1".equals(p.getSpec().getNodeName()))
                .map(p -> p.getMetadata().getName())
                .toList();

        annotate("ann-1", MaintenanceAnnotation.REQUEST, "3600");
        await().atMost(WAIT).until(() -> MaintenanceAnnotation.ACTIVE.equals(status("ann-1")));

        assertThat(cluster()
                        .requests()
                        .count(r -> r.is("list", "pods")
                                && "spec.nodeName=ann-1".equals(r.query().get("fieldSelector"))))
                .isPositive();
        onAnn1.forEach(p -> assertThat(cluster()
                        .requests()
                        .count(ApiRequest.resource("pods", "eviction").and(ApiRequest.named(p))))
                .as("eviction of " + p)
                .isPositive());
        assertThat(podsOn("ann-1")).isEmpty();
        assertThat(podsOn("ann-2")).hasSize(2);
        assertThat(client().nodes().withName("ann-1").get().getSpec().getUnschedulable())
                .isTrue();
        assertThat(lease("ann-1").getSpec().getHolderIdentity()).isEqualTo("tenure-annotation");
        assertThat(lease("ann-1").getSpec().getLeaseDurationSeconds()).isEqualTo(3630);
        assertThat(client().nodes().withName("ann-2").get().getMetadata().getAnnotations())
                .doesNotContainKey(MaintenanceAnnotation.STATUS);

        annotate("ann-1", MaintenanceAnnotation.REQUEST, null);
        await().atMost(WAIT)
                .until(() -> MaintenanceAnnotation.ENDED.equals(status("ann-1"))
                        && lease("ann-1").getSpec().getLeaseDurationSeconds() == null);
        Node node = client().nodes().withName("ann-1").get();
        assertThat(node.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
        assertThat(node.getSpec().getTaints()).isEmpty();
        assertThat(NodeMarks.marked(node)).isFalse();
        assertThat(eventsOn("ann-1", MaintenanceAnnotationController.ENDED_EVENT))
                .isNotEmpty();
    }

    /**
     * Issue 49: the annotation door forecasts before the cordon, with the policy of its operator setting
     * ({@code tenure.maintenance.annotation.placement}, default Warn: the annotation has no field for a policy). The pod on fc-1 has a nodeSelector only fc-1 satisfies: a Warning on the Node names it, the
     * state record on the Node holds the forecast, and the maintenance goes on (cordon, drain) as kubectl's would.
     */
    @Test
    void theAnnotationForecastsBeforeTheCordonAndWarns() {
        cluster()
                .seed()
                .node("fc-1")
                .role("worker")
                .label("tenure.test/pool", "fc")
                .create();
        cluster().seed().node("fc-2").role("worker").create();
        Pod pod = cluster()
                .seed()
                .deployment("solo")
                .namespace("fc")
                .onNode("fc-1")
                .nodeSelector("tenure.test/pool", "fc")
                .create()
                .get(0);
        String key = "fc/" + pod.getMetadata().getName();

        annotate("fc-1", MaintenanceAnnotation.REQUEST, "3600");
        await().atMost(WAIT).until(() -> MaintenanceAnnotation.ACTIVE.equals(status("fc-1")));

        assertThat(eventsOn("fc-1", PlacementGate.WILL_NOT_FIT))
                .singleElement()
                .satisfies(e -> assertThat(e.getMessage())
                        .contains(key)
                        .contains("node(s) didn't match Pod's node affinity/selector")
                        .contains("forecast before cordoning node fc-1")
                        // the setting that governs this door, not the NodeMaintenance's field
                        .contains("; " + AnnotationSettings.PLACEMENT_SETTING + " Warn: the drain goes on")
                        .doesNotContain("spec.drain.placement"));
        PlacementStatus placement = RecordedState.read(annotation("fc-1", MaintenanceAnnotation.STATE))
                .machine()
                .getPlacement();
        assertThat(placement).isNotNull();
        assertThat(placement.getPolicy()).isEqualTo("Warn");
        assertThat(placement.getDoesNotFit()).isEqualTo(1);
        assertThat(placement.getPods())
                .singleElement()
                .satisfies(p -> assertThat(p.getPod()).isEqualTo(key));
        // read on demand: a cluster-wide pod LIST in pages, besides the drain's LIST of the node's pods
        assertThat(cluster()
                        .requests()
                        .count(r -> r.is("list", "pods")
                                && r.namespace().isEmpty()
                                && "500".equals(r.query().get("limit"))))
                .isPositive();
        // Warn goes on: cordoned and drained as before
        assertThat(client().nodes().withName("fc-1").get().getSpec().getUnschedulable())
                .isTrue();
        assertThat(cluster()
                        .requests()
                        .count(ApiRequest.resource("pods", "eviction")
                                .and(ApiRequest.named(pod.getMetadata().getName()))))
                .isPositive();

        annotate("fc-1", MaintenanceAnnotation.REQUEST, null);
        await().atMost(WAIT).until(() -> MaintenanceAnnotation.ENDED.equals(status("fc-1")));
    }

    @Test
    void aNodeMaintenanceAndTheAnnotationOnOneNodeMakeOneMaintenance() {
        cluster().seed().node("both-1").role("worker").create();
        client().resource(new NodeMaintenance("both", new NodeMaintenanceSpec("both-1", "both doors")))
                .create();
        await().atMost(WAIT).until(() -> {
            NodeMaintenance nm =
                    client().resources(NodeMaintenance.class).withName("both").get();
            return nm.getStatus() != null && nm.getStatus().getPhase() == Phase.Succeeded;
        });

        annotate("both-1", MaintenanceAnnotation.REQUEST, "600");
        await().atMost(WAIT).until(() -> MaintenanceAnnotation.WAITING.equals(status("both-1")));
        assertThat(lease("both-1").getSpec().getHolderIdentity()).startsWith("tenure/");

        client().resources(NodeMaintenance.class).withName("both").delete();
        await().atMost(WAIT).until(() -> MaintenanceAnnotation.ACTIVE.equals(status("both-1")));
        assertThat(lease("both-1").getSpec().getHolderIdentity()).isEqualTo("tenure-annotation");
        assertThat(client().nodes().withName("both-1").get().getSpec().getUnschedulable())
                .isTrue();

        annotate("both-1", MaintenanceAnnotation.REQUEST, null);
        await().atMost(WAIT)
                .until(() -> MaintenanceAnnotation.ENDED.equals(status("both-1"))
                        && !Boolean.TRUE.equals(client().nodes()
                                .withName("both-1")
                                .get()
                                .getSpec()
                                .getUnschedulable()));
    }

    @Test
    void aMalformedRequestIsReportedOnTheNodeAndNothingIsCordoned() {
        cluster().seed().node("bad-ann").role("worker").create();
        annotate("bad-ann", MaintenanceAnnotation.REQUEST, "-30");
        await().atMost(WAIT).until(() -> status("bad-ann") != null);
        assertThat(status("bad-ann")).startsWith("invalid: ").contains("negative");
        await().atMost(WAIT)
                .until(() -> !eventsOn("bad-ann", MaintenanceAnnotationController.INVALID_EVENT)
                        .isEmpty());
        assertThat(eventsOn("bad-ann", MaintenanceAnnotationController.INVALID_EVENT)
                        .get(0)
                        .getType())
                .isEqualTo("Warning");
        assertThat(client().nodes().withName("bad-ann").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);
        assertThat(lease("bad-ann")).isNull();
    }
}
