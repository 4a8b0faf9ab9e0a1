package dev.tenure.maintenance.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.kube.NodeCache;
import dev.tenure.maintenance.admission.AdmissionCaches;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The operator-wide limits apply to the annotation door as to NodeMaintenance admission: a request that would
 * exceed the cluster-wide cap or break the control-plane budget waits (status {@code waiting}, a Warning event
 * naming the limit), changes nothing on the node, and starts once the limit allows it.
 */
@EndToEnd
class AnnotationBudgetIT {

    private final AnnotationFixture f = new AnnotationFixture();

    private AdmissionCaches caches;

    @AfterEach
    void close() {
        if (caches != null) {
            caches.close();
        }
        f.close();
    }

    /** Caches not started: every budget decision reads the API server (the fallback before they sync). */
    private AdmissionCaches apiReads() {
        return new AdmissionCaches(f.operatorClient, new NodeCache(f.operatorClient));
    }

    /** Marks {@code node} as held by the annotation door (a request whose lease was written). */
    private void heldByAnnotation(String node) {
        f.client
                .nodes()
                .withName(node)
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"metadata\":{\"annotations\":{\"" + MaintenanceAnnotation.REQUEST + "\":\"3600\",\""
                                + MaintenanceAnnotation.STATUS + "\":\"active\"}}}");
    }

    private void released(String node) {
        f.client
                .nodes()
                .withName(node)
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"metadata\":{\"annotations\":{\"" + MaintenanceAnnotation.REQUEST + "\":null,\""
                                + MaintenanceAnnotation.STATUS + "\":\"ended\"}}}");
    }

    @Test
    void aRequestOverTheClusterWideCapWaitsUntilAnotherMaintenanceEnds() {
        f.budget = AnnotatedNodes.budget(apiReads(), new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty()));
        f.restart();
        heldByAnnotation("w2");
        f.request("600");

        Optional<Duration> next = f.reconcile();

        assertThat(next).contains(MaintenanceAnnotationController.BUDGET_RETRY);
        assertThat(f.status()).isEqualTo(MaintenanceAnnotation.WAITING);
        assertThat(f.lease()).as("no lease taken").isNull();
        assertThat(f.cordoned()).isFalse();
        assertThat(f.events(MaintenanceAnnotationController.BUDGET_EVENT))
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.getType()).isEqualTo("Warning");
                    assertThat(e.getMessage())
                            .contains("tenure.maintenance.max-nodes-in-maintenance: at most 1 node(s)")
                            .contains("already are: w2");
                });
        f.reconcile(); // looked at again: still held back, the event is not repeated
        assertThat(f.events(MaintenanceAnnotationController.BUDGET_EVENT)).hasSize(1);

        released("w2");
        f.drive(n -> MaintenanceAnnotation.ACTIVE.equals(f.status()));
        assertThat(f.lease().holderIdentity()).isEqualTo(AnnotationFixture.SETTINGS.holder());
        assertThat(f.cordoned()).isTrue();
    }

    @Test
    void aControlPlaneRequestThatWouldBreakQuorumWaits() {
        for (String cp : new String[] {"cp1", "cp2", "cp3"}) {
            f.cluster.seed().node(cp).role("control-plane").create();
        }
        f.budget = AnnotatedNodes.budget(apiReads(), MaintenanceLimits.none());
        f.restart();
        heldByAnnotation("cp2");
        f.client
                .nodes()
                .withName("cp1")
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"metadata\":{\"annotations\":{\"" + MaintenanceAnnotation.REQUEST + "\":\"600\"}}}");

        assertThat(f.controller.reconcile("cp1")).contains(MaintenanceAnnotationController.BUDGET_RETRY);

        var cp1 = f.client.nodes().withName("cp1").get();
        assertThat(cp1.getMetadata().getAnnotations())
                .containsEntry(MaintenanceAnnotation.STATUS, MaintenanceAnnotation.WAITING);
        assertThat(cp1.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
        assertThat(f.client.v1().events().inAnyNamespace().list().getItems())
                .filteredOn(e -> "cp1".equals(e.getInvolvedObject().getName())
                        && MaintenanceAnnotationController.BUDGET_EVENT.equals(e.getReason()))
                .singleElement()
                .satisfies(e -> assertThat(e.getMessage())
                        .contains(
                                "control-plane budget: node cp1 is a control-plane node; with it in maintenance 1 of 3")
                        .contains("a majority, for etcd quorum"));
    }

    @Test
    void aNodeTheDoorAlreadyHoldsIsNotHeldBackByItsOwnCount() {
        f.budget = AnnotatedNodes.budget(apiReads(), new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty()));
        f.restart();
        f.request("600");
        f.drive(n -> MaintenanceAnnotation.ACTIVE.equals(f.status()));
        // the interval changes while it runs: a lease write for a node it holds, not a new maintenance
        f.request("900");
        f.drive(n ->
                MaintenanceAnnotation.ACTIVE.equals(f.status()) && f.lease().leaseDurationSeconds() == 930);
        assertThat(f.events(MaintenanceAnnotationController.BUDGET_EVENT)).isEmpty();
    }

    /**
     * Issue 25: the door's budget reads the admission caches, not a LIST of Nodes and one of NodeMaintenances per
     * decision; the cap still holds once the cache has seen the other node's hold.
     */
    @Test
    void theBudgetReadsTheCachesNotTheApiServer() {
        caches = new AdmissionCaches(f.operatorClient, new NodeCache(f.operatorClient));
        caches.start();
        f.budget = AnnotatedNodes.budget(caches, new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty()));
        f.restart();
        heldByAnnotation("w2");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> caches.nodes().stream()
                        .anyMatch(n -> "w2".equals(n.getMetadata().getName())
                                && MaintenanceAnnotation.ACTIVE.equals(
                                        n.getMetadata().getAnnotations().get(MaintenanceAnnotation.STATUS))));
        Predicate<ApiRequest> lists =
                ApiRequest.verb("list").and(ApiRequest.resource("nodes").or(ApiRequest.resource("nodemaintenances")));
        long before = f.cluster.requests().count(lists);
        f.request("600");

        assertThat(f.reconcile()).contains(MaintenanceAnnotationController.BUDGET_RETRY);
        assertThat(f.reconcile()).contains(MaintenanceAnnotationController.BUDGET_RETRY);

        assertThat(f.status()).isEqualTo(MaintenanceAnnotation.WAITING);
        assertThat(f.cluster.requests().count(lists))
                .as("LISTs of nodes or nodemaintenances for two budget decisions")
                .isEqualTo(before);
    }
}
