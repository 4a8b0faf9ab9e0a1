package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The living cluster: workload controllers replace pods, the scheduler honours cordons, taints and selectors. */
@EndToEnd
@SecondLane
class LivingClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    // ---- the scheduler's filter, as a table (pkg/scheduler/framework/plugins) ------------------------------------

    static Stream<Arguments> placements() {
        Node plain = node(false, true, Map.of("disk", "ssd"));
        Node cordoned = node(true, true, Map.of());
        Node notReady = node(false, false, Map.of());
        Node noSchedule = withTaint(node(false, true, Map.of()), "dedicated", "infra", "NoSchedule");
        Node noExecute = withTaint(node(false, true, Map.of()), "dedicated", "infra", "NoExecute");
        Node preferNo = withTaint(node(false, true, Map.of()), "dedicated", "infra", "PreferNoSchedule");
        Pod pod = pod(Map.of());
        Pod ssd = pod(Map.of("disk", "ssd"));
        Pod tolerant = tolerating(pod(Map.of()), "dedicated", "Equal", "infra", "");
        Pod tolerantOtherValue = tolerating(pod(Map.of()), "dedicated", "Equal", "other", "");
        Pod tolerantExists = tolerating(pod(Map.of()), "dedicated", "Exists", null, "NoSchedule");
        Pod tolerantEverything = tolerating(pod(Map.of()), "", "Exists", null, "");
        return Stream.of(
                Arguments.of("an untainted, uncordoned, Ready node", pod, plain, true),
                Arguments.of("NodeUnschedulable: a cordoned node", pod, cordoned, false),
                Arguments.of("a node that is not Ready", pod, notReady, false),
                Arguments.of("TaintToleration: NoSchedule not tolerated", pod, noSchedule, false),
                Arguments.of("TaintToleration: NoExecute not tolerated", pod, noExecute, false),
                Arguments.of("TaintToleration: PreferNoSchedule does not filter", pod, preferNo, true),
                Arguments.of("TaintToleration: Equal with the taint's value", tolerant, noSchedule, true),
                Arguments.of("TaintToleration: Equal with another value", tolerantOtherValue, noSchedule, false),
                Arguments.of(
                        "TaintToleration: Exists for the effect NoSchedule only", tolerantExists, noExecute, false),
                Arguments.of(
                        "TaintToleration: Exists with no key tolerates every taint",
                        tolerantEverything,
                        noExecute,
                        true),
                Arguments.of(
                        "TaintToleration: tolerating everything includes the cordon",
                        tolerantEverything,
                        cordoned,
                        true),
                Arguments.of("NodeAffinity: nodeSelector matched", ssd, plain, true),
                Arguments.of("NodeAffinity: nodeSelector not matched", ssd, noSchedule, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("placements")
    void schedulerFilter(String name, Pod pod, Node node, boolean fits) {
        assertThat(LivingCluster.fits(pod, node)).isEqualTo(fits);
    }

    // ---- the controllers, against the emulated cluster ------------------------------------------------------------

    @Test
    void anEvictedPodIsReplacedOnAnUncordonedNodeAndBecomesReady() {
        try (EmulatedCluster cluster =
                EmulatedCluster.start(EmulatedCluster.Options.forTests().living(Duration.ofMillis(300)))) {
            cluster.seed().node("w1").role("worker").unschedulable().create();
            cluster.seed().node("w2").role("worker").create();
            List<Pod> seeded = cluster.seed()
                    .deployment("web")
                    .namespace("shop")
                    .replicas(2)
                    .onNodes("w1")
                    .create();
            KubernetesClient client = cluster.client();

            client.pods()
                    .inNamespace("shop")
                    .withName(seeded.get(0).getMetadata().getName())
                    .evict();

            await().atMost(WAIT).untilAsserted(() -> {
                List<Pod> active = active(client, "shop", "web");
                assertThat(active).hasSize(2);
                assertThat(active)
                        .filteredOn(p -> !p.getMetadata()
                                .getName()
                                .equals(seeded.get(1).getMetadata().getName()))
                        .singleElement()
                        .satisfies(p -> {
                            assertThat(p.getSpec().getNodeName()).isEqualTo("w2");
                            assertThat(DisruptionBudgets.isReady(p)).isTrue();
                            assertThat(p.getMetadata().getLabels()).containsEntry("app", "web");
                            assertThat(p.getMetadata()
                                            .getOwnerReferences()
                                            .get(0)
                                            .getKind())
                                    .isEqualTo("ReplicaSet");
                        });
            });
        }
    }

    @Test
    void aCordonedOrTaintedNodeNeverGetsAReplacement() {
        try (EmulatedCluster cluster =
                EmulatedCluster.start(EmulatedCluster.Options.forTests().living(Duration.ZERO))) {
            cluster.seed().node("cordoned").unschedulable().create();
            cluster.seed()
                    .node("noschedule")
                    .taint("dedicated", "infra", "NoSchedule")
                    .create();
            cluster.seed()
                    .node("noexecute")
                    .taint("dedicated", "infra", "NoExecute")
                    .create();
            cluster.seed().node("free").create();
            cluster.seed()
                    .statefulSet("db")
                    .namespace("shop")
                    .replicas(2)
                    .onNodes("cordoned")
                    .create();
            cluster.seed()
                    .deployment("web")
                    .namespace("shop")
                    .replicas(3)
                    .onNodes("noschedule")
                    .create();
            KubernetesClient client = cluster.client();

            client.pods().inNamespace("shop").withGracePeriod(0).delete();

            await().atMost(WAIT).untilAsserted(() -> {
                List<Pod> pods = client.pods().inNamespace("shop").list().getItems();
                assertThat(pods).hasSize(5).allSatisfy(p -> {
                    assertThat(p.getSpec().getNodeName()).isEqualTo("free");
                    assertThat(DisruptionBudgets.isReady(p)).isTrue();
                });
                assertThat(pods).extracting(p -> p.getMetadata().getName()).contains("db-0", "db-1");
            });
        }
    }

    @Test
    void aDisruptionBudgetRecoversOnceTheReplacementIsReady() {
        MutableClock clock = MutableClock.atSystemTime();
        Duration readiness = Duration.ofMinutes(1);
        try (EmulatedCluster cluster = EmulatedCluster.start(
                EmulatedCluster.Options.forTests().clock(clock).living(readiness))) {
            cluster.seed().node("w1").unschedulable().create();
            cluster.seed().node("w2").create();
            List<Pod> seeded = cluster.seed()
                    .deployment("web")
                    .namespace("shop")
                    .replicas(3)
                    .onNodes("w1")
                    .create();
            cluster.seed()
                    .pdb("web")
                    .namespace("shop")
                    .selector("app", "web")
                    .minAvailable(2)
                    .create();
            KubernetesClient client = cluster.client();

            client.pods()
                    .inNamespace("shop")
                    .withName(seeded.get(0).getMetadata().getName())
                    .evict();
            // the replacement is bound, Running and not Ready: the budget has no disruption to spare
            await().atMost(WAIT)
                    .until(() -> active(client, "shop", "web").stream()
                            .anyMatch(p -> "w2".equals(p.getSpec().getNodeName())));
            assertThat(client.pods()
                            .inNamespace("shop")
                            .withName(seeded.get(1).getMetadata().getName())
                            .evict())
                    .as("blocked while the replacement is not Ready")
                    .isFalse();

            clock.advance(readiness);

            await().atMost(WAIT)
                    .until(() -> client.pods()
                            .inNamespace("shop")
                            .withName(seeded.get(1).getMetadata().getName())
                            .evict());
        }
    }

    /**
     * The disruption controller counts a maxUnavailable budget's expected pods from the controllers' scale, so a pod
     * evicted and gone before its ReplicaSet created the replacement still counts as unavailable: upstream the second
     * eviction is refused (expected 5, desired 4, 4 healthy). Counting the pods that exist (4, desired 3) granted it
     * while the controllers lagged, which took a budget below its desired count (MaintenanceChaosTest on a busy
     * machine, seed 55752777264704). Here the controllers never look (their interval is an hour): they lag for good.
     */
    @Test
    void aPodGoneBeforeItsReplacementExistsStillCountsAgainstTheBudget() {
        try (EmulatedCluster cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests()
                .controllerInterval(Duration.ofHours(1))
                .living(Duration.ZERO))) {
            cluster.seed().node("w1").create();
            List<Pod> seeded = cluster.seed()
                    .deployment("web")
                    .namespace("shop")
                    .replicas(5)
                    .onNodes("w1")
                    .gracePeriod(1)
                    .create();
            cluster.seed()
                    .pdb("web")
                    .namespace("shop")
                    .selector("app", "web")
                    .maxUnavailable(1)
                    .create();
            KubernetesClient client = cluster.client();
            String first = seeded.get(0).getMetadata().getName();

            assertThat(client.pods().inNamespace("shop").withName(first).evict())
                    .as("the one disruption the budget allows")
                    .isTrue();
            await().atMost(WAIT)
                    .until(() ->
                            client.pods().inNamespace("shop").withName(first).get() == null);
            assertThat(client.pods()
                            .inNamespace("shop")
                            .withLabel("app", "web")
                            .list()
                            .getItems())
                    .as("gone, and not replaced yet")
                    .hasSize(4)
                    .allMatch(DisruptionBudgets::isReady);

            assertThat(client.pods()
                            .inNamespace("shop")
                            .withName(seeded.get(1).getMetadata().getName())
                            .evict())
                    .as("blocked: 4 healthy of the Deployment's 5 replicas, maxUnavailable 1")
                    .isFalse();
        }
    }

    @Test
    void aReplacementThatFitsNowhereStaysPendingWithTheSchedulersMessage() {
        try (EmulatedCluster cluster =
                EmulatedCluster.start(EmulatedCluster.Options.forTests().living(Duration.ZERO))) {
            cluster.seed().node("w1").create(); // 4 cpu each
            cluster.seed().node("w2").create();
            cluster.seed().node("w3").taint("dedicated", "infra", "NoSchedule").create();
            KubernetesClient client = cluster.client();
            cluster.seed().namespace("shop");
            // three replicas asking 3 cpu each: one per untainted node, the third fits nowhere
            client.apps()
                    .replicaSets()
                    .inNamespace("shop")
                    .resource(new io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder()
                            .withNewMetadata()
                            .withName("big")
                            .endMetadata()
                            .withNewSpec()
                            .withReplicas(3)
                            .withNewSelector()
                            .addToMatchLabels("app", "big")
                            .endSelector()
                            .withNewTemplate()
                            .withNewMetadata()
                            .addToLabels("app", "big")
                            .endMetadata()
                            .withNewSpec()
                            .addNewContainer()
                            .withName("main")
                            .withImage("pause")
                            .withNewResources()
                            .addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity("3"))
                            .endResources()
                            .endContainer()
                            .endSpec()
                            .endTemplate()
                            .endSpec()
                            .build())
                    .create();

            await().atMost(WAIT).untilAsserted(() -> {
                List<Pod> big = active(client, "shop", "big");
                assertThat(big).hasSize(3);
                assertThat(big.stream().map(p -> p.getSpec().getNodeName()).filter(n -> n != null))
                        .containsExactlyInAnyOrder("w1", "w2");
                Pod pending = big.stream()
                        .filter(p -> p.getSpec().getNodeName() == null)
                        .findFirst()
                        .orElseThrow();
                assertThat(pending.getStatus().getPhase()).isEqualTo("Pending");
                var scheduled = pending.getStatus().getConditions().stream()
                        .filter(c -> "PodScheduled".equals(c.getType()))
                        .findFirst()
                        .orElseThrow();
                assertThat(scheduled.getStatus()).isEqualTo("False");
                assertThat(scheduled.getReason()).isEqualTo("Unschedulable");
                assertThat(scheduled.getMessage())
                        .isEqualTo("0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: infra},"
                                + " 2 Insufficient cpu.");
            });
        }
    }

    // ---- scale: the subresource, the Deployment controller, the ReplicaSet's scale-down --------------------------

    static Stream<Arguments> deletionOrder() {
        Pod unscheduled = ranked("unscheduled", null, "Pending", false, null, null);
        Pod pending = ranked("pending", "w1", "Pending", false, null, null);
        Pod notReady = ranked("not-ready", "w1", "Running", false, null, null);
        Pod readyNew = ranked("ready-new", "w1", "Running", true, "2026-01-01T00:10:00Z", null);
        Pod readyOld = ranked("ready-old", "w1", "Running", true, "2026-01-01T00:00:00Z", null);
        Pod readyNewCostly = ranked("ready-new-costly", "w1", "Running", true, "2026-01-01T00:10:00Z", "100");
        Pod readyOldCheap = ranked("ready-old-cheap", "w1", "Running", true, "2026-01-01T00:00:00Z", "-5");
        return Stream.of(
                Arguments.of("an unscheduled pod before a scheduled one", List.of(pending, unscheduled), "unscheduled"),
                Arguments.of("Pending before Running", List.of(notReady, pending), "pending"),
                Arguments.of("not Ready before Ready", List.of(readyNew, notReady), "not-ready"),
                Arguments.of("Ready for less time before Ready for longer", List.of(readyOld, readyNew), "ready-new"),
                Arguments.of(
                        "pod-deletion-cost: the cheaper goes first, before readiness time",
                        List.of(readyNewCostly, readyOld),
                        "ready-old"),
                Arguments.of(
                        "pod-deletion-cost: a negative cost goes before the newest",
                        List.of(readyNew, readyOldCheap),
                        "ready-old-cheap"));
    }

    /** pkg/controller/controller_utils.go ActivePodsWithRanks.Less: the pod a ReplicaSet scaling down deletes first. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("deletionOrder")
    void replicaSetScaleDownDeletesFirst(String name, List<Pod> pods, String first) {
        assertThat(pods.stream()
                        .sorted(LivingCluster.DELETION_ORDER)
                        .findFirst()
                        .orElseThrow()
                        .getMetadata()
                        .getName())
                .isEqualTo(first);
    }

    /**
     * deployments/scale (autoscaling/v1 Scale): GET names the replicas and shares the Deployment's resourceVersion; a
     * PUT at a stale one is a 409 and changes nothing; one at the current one sets spec.replicas, which the Deployment
     * controller carries to its ReplicaSet and the ReplicaSet controller to a new pod, counted in the status.
     */
    @Test
    void aScaleSetsTheReplicasAtItsResourceVersionAndTheDeploymentFollows() {
        try (EmulatedCluster cluster =
                EmulatedCluster.start(EmulatedCluster.Options.forTests().living(Duration.ZERO))) {
            cluster.seed().node("w1").create();
            cluster.seed()
                    .deployment("web")
                    .namespace("shop")
                    .replicas(1)
                    .onNodes("w1")
                    .create();
            KubernetesClient client = cluster.client();
            var web = client.apps().deployments().inNamespace("shop").withName("web");
            await().atMost(WAIT)
                    .until(() -> web.get().getStatus() != null
                            && Integer.valueOf(1).equals(web.get().getStatus().getAvailableReplicas()));

            io.fabric8.kubernetes.api.model.autoscaling.v1.Scale scale = web.scale();
            assertThat(scale.getSpec().getReplicas()).isEqualTo(1);
            assertThat(scale.getMetadata().getResourceVersion())
                    .isEqualTo(web.get().getMetadata().getResourceVersion());
            assertThat(scale.getStatus().getSelector()).isEqualTo("app=web");

            scale.getSpec().setReplicas(3);
            scale.getMetadata().setResourceVersion("1");
            assertThatThrownBy(() -> web.scale(scale))
                    .isInstanceOf(io.fabric8.kubernetes.client.KubernetesClientException.class)
                    .satisfies(e -> assertThat(((io.fabric8.kubernetes.client.KubernetesClientException) e).getCode())
                            .isEqualTo(409));
            assertThat(web.get().getSpec().getReplicas())
                    .as("a stale scale changes nothing")
                    .isEqualTo(1);

            var current = web.scale();
            current.getSpec().setReplicas(2);
            assertThat(web.scale(current).getSpec().getReplicas()).isEqualTo(2);

            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(active(client, "shop", "web")).hasSize(2);
                var status = web.get().getStatus();
                assertThat(status.getReplicas()).isEqualTo(2);
                assertThat(status.getUpdatedReplicas()).isEqualTo(2);
                assertThat(status.getReadyReplicas()).isEqualTo(2);
                assertThat(status.getAvailableReplicas()).isEqualTo(2);
                assertThat(client.apps()
                                .replicaSets()
                                .inNamespace("shop")
                                .list()
                                .getItems())
                        .singleElement()
                        .satisfies(rs -> assertThat(rs.getSpec().getReplicas()).isEqualTo(2));
            });
        }
    }

    /** A ReplicaSet scaled down deletes its newest pod (ranked first) and keeps the one Ready for longer. */
    @Test
    void aReplicaSetScaledDownDeletesTheNewestPod() {
        MutableClock clock = MutableClock.atSystemTime();
        try (EmulatedCluster cluster = EmulatedCluster.start(
                EmulatedCluster.Options.forTests().clock(clock).living(Duration.ofSeconds(5)))) {
            cluster.seed().node("w1").create();
            List<Pod> seeded = cluster.seed()
                    .deployment("web")
                    .namespace("shop")
                    .replicas(1)
                    .onNodes("w1")
                    .create();
            KubernetesClient client = cluster.client();
            var web = client.apps().deployments().inNamespace("shop").withName("web");
            web.scale(2);
            await().atMost(WAIT).until(() -> active(client, "shop", "web").size() == 2);
            clock.advance(Duration.ofSeconds(5));
            await().atMost(WAIT)
                    .until(() -> active(client, "shop", "web").stream().allMatch(DisruptionBudgets::isReady));

            web.scale(1);

            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(active(client, "shop", "web"))
                            .singleElement()
                            .satisfies(p -> assertThat(p.getMetadata().getName())
                                    .isEqualTo(seeded.get(0).getMetadata().getName())));
        }
    }

    /** A Deployment's availableReplicas counts a pod only once it has been Ready for minReadySeconds. */
    @Test
    void availableMeansReadyForMinReadySeconds() {
        java.time.Instant now = java.time.Instant.parse("2026-01-01T00:00:30Z");
        Pod readyAt0 = ranked("p", "w1", "Running", true, "2026-01-01T00:00:00Z", null);
        Pod readyAt20 = ranked("p", "w1", "Running", true, "2026-01-01T00:00:20Z", null);
        Pod notReady = ranked("p", "w1", "Running", false, null, null);
        assertThat(LivingCluster.available(readyAt0, 30, now)).isTrue();
        assertThat(LivingCluster.available(readyAt20, 30, now)).isFalse();
        assertThat(LivingCluster.available(readyAt20, 0, now)).isTrue();
        assertThat(LivingCluster.available(notReady, 0, now)).isFalse();
    }

    // ---- fixtures ------------------------------------------------------------------------------------------------

    private static List<Pod> active(KubernetesClient client, String namespace, String app) {
        return client.pods().inNamespace(namespace).withLabel("app", app).list().getItems().stream()
                .filter(LivingCluster::active)
                .toList();
    }

    private static Pod ranked(String name, String node, String phase, boolean ready, String readySince, String cost) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withAnnotations(cost == null ? null : Map.of(LivingCluster.DELETION_COST, cost))
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec()
                .withNewStatus()
                .withPhase(phase)
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .withLastTransitionTime(readySince)
                .endCondition()
                .endStatus()
                .build();
    }

    private static Node node(boolean unschedulable, boolean ready, Map<String, String> labels) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName("n")
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .withUnschedulable(unschedulable)
                .endSpec()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .endCondition()
                .endStatus()
                .build();
    }

    private static Node withTaint(Node node, String key, String value, String effect) {
        node.getSpec().setTaints(List.of(new io.fabric8.kubernetes.api.model.Taint(effect, key, null, value)));
        return node;
    }

    private static Pod pod(Map<String, String> nodeSelector) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .endMetadata()
                .withNewSpec()
                .withNodeSelector(nodeSelector.isEmpty() ? null : nodeSelector)
                .endSpec()
                .build();
    }

    private static Pod tolerating(Pod pod, String key, String operator, String value, String effect) {
        pod.getSpec()
                .setTolerations(List.of(new TolerationBuilder()
                        .withKey(key)
                        .withOperator(operator)
                        .withValue(value)
                        .withEffect(effect)
                        .build()));
        return pod;
    }
}
