package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.api.DrainBehavior;
import dev.tenure.maintenance.api.DrainOutlook;
import dev.tenure.maintenance.api.DrainPlanStatus;
import dev.tenure.maintenance.api.DrainPlanStatus.PlannedPod;
import dev.tenure.maintenance.api.DrainRule;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.Conflicts;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Issue 29 item 5, through the operator: a NodeMaintenance with spec.preview fills status.drainPlan.pods with each
 * pod's behaviour, wave and blocking PodDisruptionBudget, and touches neither the node nor its pods (no lease, cordon,
 * taint, eviction), not even when it is deleted; set back to false, it starts.
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class DrainPreviewIT {

    static final Duration WAIT = Duration.ofSeconds(30);

    EmulatedCluster cluster() {
        return EmulatedClusterResource.cluster();
    }

    KubernetesClient client() {
        return cluster().client();
    }

    NodeMaintenance get(String name) {
        return client().resources(NodeMaintenance.class).withName(name).get();
    }

    List<Pod> podsOn(String node) {
        return client().pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName()))
                .toList();
    }

    long writes(Predicate<ApiRequest> which) {
        return cluster().requests().count(r -> r.isWrite() && which.test(r));
    }

    NodeMaintenance preview(String name, String node) {
        DrainSpec drain = new DrainSpec();
        drain.setRules(List.of(
                new DrainRule(
                        null,
                        new LabelSelectorBuilder()
                                .addToMatchLabels("app", "job")
                                .build(),
                        DrainBehavior.WaitCompleted,
                        null),
                new DrainRule(
                        null,
                        new LabelSelectorBuilder()
                                .addToMatchLabels("app", "api")
                                .build(),
                        DrainBehavior.Drain,
                        3)));
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec(node, "preview " + name);
        spec.setDrain(drain);
        spec.setPreview(true);
        return client().resource(new NodeMaintenance(name, spec)).create();
    }

    @Test
    void aPreviewFillsThePlanAndChangesNothingOnTheNodeOrItsPods() {
        cluster().seed().node("pv-1").role("worker").create();
        cluster()
                .seed()
                .deployment("web")
                .namespace("pv")
                .replicas(2)
                .onNode("pv-1")
                .create();
        cluster().seed().deployment("job").namespace("pv").onNode("pv-1").create();
        cluster()
                .seed()
                .deployment("cache")
                .namespace("pv")
                .onNode("pv-1")
                .label(DrainRules.SKIP_LABEL, DrainRules.SKIP_VALUE)
                .create();
        cluster()
                .seed()
                .deployment("api")
                .namespace("pv")
                .onNode("pv-1")
                .annotation(DrainRules.ORDER_ANNOTATION, "-3") // ignored: the rule orders it
                .create();
        PodDisruptionBudget pdb = cluster()
                .seed()
                .pdb("web")
                .namespace("pv")
                .selector("app", "web")
                .minAvailable(2)
                .create();
        // what the disruption controller would write: both pods needed, none may go
        pdb.setStatus(new io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatusBuilder()
                .withDisruptionsAllowed(0)
                .withCurrentHealthy(2)
                .withDesiredHealthy(2)
                .withExpectedPods(2)
                .build());
        client().resource(pdb).updateStatus();
        Node nodeBefore = client().nodes().withName("pv-1").get();
        List<Pod> podsBefore = podsOn("pv-1");
        long nodeWritesBefore = writes(r -> "nodes".equals(r.resource()) && "pv-1".equals(r.name()));

        preview("pv", "pv-1");
        await().atMost(WAIT)
                .until(() -> get("pv").getStatus() != null
                        && get("pv").getStatus().getDrainPlan() != null
                        && get("pv").getStatus().getDrainPlan().getPods() != null);

        DrainPlanStatus plan = get("pv").getStatus().getDrainPlan();
        assertThat(get("pv").getStatus().getPhase()).isEqualTo(Phase.Pending);
        // issue 38: every NodeMaintenance's outcome has an event, a preview's too
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(
                                client().v1().events().inAnyNamespace().list().getItems())
                        .filteredOn(e -> "pv".equals(e.getInvolvedObject().getName()))
                        .anySatisfy(e -> {
                            assertThat(e.getReason()).isEqualTo(MaintenanceEvents.PREVIEWED);
                            assertThat(e.getMessage()).contains("node pv-1 plans 5 pod(s)");
                        }));
        assertThat(plan.getPods()).hasSize(5);
        assertThat(plan.getPods())
                .filteredOn(p -> p.getPod().startsWith("pv/web-"))
                .hasSize(2)
                .allSatisfy(p -> {
                    assertThat(p.getBehavior()).isEqualTo(DrainBehavior.Drain);
                    assertThat(p.getWave()).isZero();
                    assertThat(p.getAction()).startsWith("Evict");
                    assertThat(p.getBlockingBudgets()).containsExactly("pv/web");
                });
        assertThat(plan.getPods())
                .filteredOn(p -> p.getPod().startsWith("pv/api-"))
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.getWave()).isEqualTo(3);
                    assertThat(p.getBlockingBudgets()).isNull();
                });
        assertThat(plan.getPods())
                .filteredOn(p -> p.getPod().startsWith("pv/cache-"))
                .singleElement()
                .extracting(PlannedPod::getBehavior)
                .isEqualTo(DrainBehavior.Skip);
        assertThat(plan.getPods())
                .filteredOn(p -> p.getPod().startsWith("pv/job-"))
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.getBehavior()).isEqualTo(DrainBehavior.WaitCompleted);
                    assertThat(p.getWave())
                            .as("a WaitCompleted pod is in wave 0")
                            .isZero();
                });
        assertThat(plan.getPods().get(plan.getPods().size() - 1).getPod())
                .as("drain order: waves first (web, then api), then the pods not drained")
                .doesNotStartWith("pv/web-");
        assertThat(cluster()
                        .requests()
                        .count(r -> r.is("list", "pods")
                                && "spec.nodeName=pv-1".equals(r.query().get("fieldSelector"))))
                .as("the preview listed the node's pods")
                .isPositive();

        assertUnchanged(nodeBefore, podsBefore, nodeWritesBefore);
        // and deleting the preview undoes nothing, since it did nothing
        client().resources(NodeMaintenance.class).withName("pv").delete();
        await().atMost(WAIT).until(() -> get("pv") == null);
        assertUnchanged(nodeBefore, podsBefore, nodeWritesBefore);
    }

    void assertUnchanged(Node before, List<Pod> podsBefore, long nodeWritesBefore) {
        Node node = client().nodes().withName("pv-1").get();
        assertThat(node.getSpec()).isEqualTo(before.getSpec());
        assertThat(node.getMetadata().getAnnotations())
                .isEqualTo(before.getMetadata().getAnnotations());
        assertThat(node.getStatus().getConditions())
                .isEqualTo(before.getStatus().getConditions());
        assertThat(writes(r -> "nodes".equals(r.resource()) && "pv-1".equals(r.name())))
                .as("writes to node pv-1")
                .isEqualTo(nodeWritesBefore);
        assertThat(podsOn("pv-1"))
                .extracting(p -> p.getMetadata().getUid(), p -> p.getMetadata().getDeletionTimestamp())
                .containsExactlyInAnyOrderElementsOf(podsBefore.stream()
                        .map(p -> org.assertj.core.groups.Tuple.tuple(
                                p.getMetadata().getUid(), null))
                        .toList());
        assertThat(cluster()
                        .requests()
                        .count(r -> "pv".equals(r.namespace())
                                && (r.is("create", "pods", "eviction") || r.is("delete", "pods"))))
                .as("evictions or deletions of the node's pods")
                .isZero();
        assertThat(client().leases()
                        .inNamespace("tenure-system")
                        .withName("node-pv-1")
                        .get())
                .as("no node lease taken")
                .isNull();
    }

    @Test
    void settingPreviewToFalseStartsTheMaintenance() {
        cluster().seed().node("pv-2").role("worker").create();
        cluster()
                .seed()
                .deployment("shop")
                .namespace("pv2")
                .replicas(2)
                .onNode("pv-2")
                .create();
        preview("go", "pv-2");
        await().atMost(WAIT)
                .until(() -> get("go").getStatus() != null
                        && get("go").getStatus().getDrainPlan() != null
                        && get("go").getStatus().getDrainPlan().getPods() != null);
        assertThat(podsOn("pv-2")).hasSize(2);

        Conflicts.retry(
                () -> client().resources(NodeMaintenance.class).withName("go").edit(nm -> {
                    nm.getSpec().setPreview(false);
                    return nm;
                }));
        await().atMost(WAIT).until(() -> get("go").getStatus().getPhase() == Phase.Succeeded);
        assertThat(podsOn("pv-2")).isEmpty();
        assertThat(get("go").getStatus().getDrainPlan())
                .as("the preview's plan is gone (no skipped or waited-for pod left to show)")
                .isNull();
        assertThat(client().nodes().withName("pv-2").get().getSpec().getUnschedulable())
                .isTrue();
        client().resources(NodeMaintenance.class).withName("go").delete();
        await().atMost(WAIT).until(() -> get("go") == null);
    }

    /**
     * Issue 37: two pods under {@code maxUnavailable: 1} both showed free. The preview says one evicts now and the
     * other waits for the budget behind it, at its grace period; set to false, the drain meets exactly that: one
     * eviction accepted at once, the other refused (429) until the first pod is gone, then accepted. Which of the two
     * goes first is the API server's race (the drain sends a wave's evictions together), so the sets are compared by
     * count and budget, not by name.
     */
    @Test
    void thePodsThePreviewSaysWaitForABudgetAreThoseTheDrainMeetsRefused() {
        cluster().seed().node("pv-5").role("worker").create();
        cluster()
                .seed()
                .deployment("pair")
                .namespace("pv5")
                .replicas(2)
                .onNode("pv-5")
                .terminationDelay(Duration.ofSeconds(2)) // the first stays terminating while the second is asked
                .create();
        PodDisruptionBudget pdb = cluster()
                .seed()
                .pdb("pair")
                .namespace("pv5")
                .selector("app", "pair")
                .maxUnavailable(1)
                .create();
        // what the disruption controller would write: two expected, both healthy, one may go
        pdb.setStatus(new io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatusBuilder()
                .withObservedGeneration(pdb.getMetadata().getGeneration())
                .withDisruptionsAllowed(1)
                .withCurrentHealthy(2)
                .withDesiredHealthy(1)
                .withExpectedPods(2)
                .build());
        client().resource(pdb).updateStatus();

        preview("pair", "pv-5");
        await().atMost(WAIT)
                .until(() -> get("pair").getStatus() != null
                        && get("pair").getStatus().getDrainPlan() != null
                        && get("pair").getStatus().getDrainPlan().getPods() != null);
        List<PlannedPod> planned = get("pair").getStatus().getDrainPlan().getPods();
        assertThat(planned)
                .extracting(PlannedPod::getOutlook)
                .containsExactlyInAnyOrder(DrainOutlook.EvictsNow, DrainOutlook.WaitsForBudget);
        assertThat(planned)
                .filteredOn(p -> p.getOutlook() == DrainOutlook.WaitsForBudget)
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.getBlockingBudgets()).containsExactly("pv5/pair");
                    assertThat(p.getEstimatedSeconds())
                            .as("behind the first pod's grace period")
                            .isEqualTo(30L);
                    assertThat(p.getOutlookReason()).contains("pv5/pair is spent by pv5/pair-");
                });
        long waits = planned.stream()
                .filter(p -> p.getOutlook() == DrainOutlook.WaitsForBudget)
                .count();

        Conflicts.retry(
                () -> client().resources(NodeMaintenance.class).withName("pair").edit(nm -> {
                    nm.getSpec().setPreview(false);
                    return nm;
                }));
        await().atMost(WAIT).until(() -> get("pair").getStatus().getPhase() == Phase.Succeeded);
        java.util.Map<String, Long> evictions =
                cluster()
                        .requests()
                        .matching(r -> "pv5".equals(r.namespace()) && r.is("create", "pods", "eviction"))
                        .stream()
                        .collect(java.util.stream.Collectors.groupingBy(
                                dev.tenure.testsupport.ApiRequest::name, java.util.stream.Collectors.counting()));
        assertThat(evictions).as("evictions per pod").hasSize(2);
        assertThat(evictions.values().stream().filter(n -> n > 1).count())
                .as("pods the drain met refused (asked again): %s", evictions)
                .isEqualTo(waits);
        assertThat(evictions.values().stream().filter(n -> n == 1).count())
                .as("pods evicted at the first ask: %s", evictions)
                .isEqualTo(planned.size() - waits);
        delete("pair");
    }

    /** A preview of a node that has filled its plan: {@code name} on {@code node}, one pod on it. */
    void previewed(String name, String node, String namespace) {
        cluster().seed().node(node).role("worker").create();
        cluster().seed().deployment("app").namespace(namespace).onNode(node).create();
        preview(name, node);
        await().atMost(WAIT)
                .until(() -> get(name).getStatus() != null
                        && get(name).getStatus().getDrainPlan() != null
                        && get(name).getStatus().getDrainPlan().getPods() != null);
    }

    NodeMaintenance real(String name, String node, boolean join) {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec(node, "real " + name);
        spec.setJoin(join);
        return client().resource(new NodeMaintenance(name, spec)).create();
    }

    void delete(String... names) {
        for (String name : names) {
            client().resources(NodeMaintenance.class).withName(name).delete();
        }
        await().atMost(WAIT).until(() -> java.util.Arrays.stream(names).allMatch(n -> get(n) == null));
    }

    /** Issue 38: a preview of the node made a real maintenance of it fail as its duplicate. */
    @Test
    void aPreviewIsNoActiveMaintenanceOfItsNodeSoARealOneStarts() {
        previewed("look", "pv-3", "pv3");

        real("work", "pv-3", false);
        await().atMost(WAIT)
                .until(() -> get("work").getStatus() != null
                        && get("work").getStatus().getPhase() != null
                        && get("work").getStatus().getPhase() != Phase.Pending);
        assertThat(get("work").getStatus().getLastError())
                .as("not refused as the preview's duplicate")
                .isNull();
        await().atMost(WAIT).until(() -> get("work").getStatus().getPhase() == Phase.Succeeded);
        assertThat(client().nodes().withName("pv-3").get().getSpec().getUnschedulable())
                .isTrue();
        assertThat(get("look").getStatus().getPhase())
                .as("the preview stays a preview")
                .isEqualTo(Phase.Pending);

        real("again", "pv-3", false);
        await().atMost(WAIT)
                .until(() -> get("again").getStatus() != null
                        && get("again").getStatus().getPhase() == Phase.Failed);
        assertThat(get("again").getStatus().getLastError())
                .as("the one-per-node rule names the real maintenance")
                .isEqualTo("spec.nodeName: node pv-3 already has an active NodeMaintenance work");
        delete("again", "work", "look");
        await().atMost(WAIT)
                .until(() -> !Boolean.TRUE.equals(
                        client().nodes().withName("pv-3").get().getSpec().getUnschedulable()));
    }

    /** Issue 38: a join beside only a preview joined the dry run and waited; it is a fresh request, the node's owner. */
    @Test
    void aJoinBesideOnlyAPreviewIsAFreshRequest() {
        previewed("peek", "pv-4", "pv4");

        real("joiner", "pv-4", true);
        await().atMost(WAIT)
                .until(() -> get("joiner").getStatus() != null
                        && get("joiner").getStatus().getPhase() == Phase.Succeeded);
        assertThat(get("joiner").getStatus().getJoinedTo())
                .as("joined no preview")
                .isNull();
        assertThat(client().nodes().withName("pv-4").get().getSpec().getUnschedulable())
                .as("it drained the node itself")
                .isTrue();
        assertThat(podsOn("pv-4")).isEmpty();
        delete("joiner", "peek");
    }
}
