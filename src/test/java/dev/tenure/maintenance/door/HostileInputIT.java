package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.annotation.MaintenanceAnnotation;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.NodeMarks;
import dev.tenure.testsupport.Conflicts;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 16's hostile-input suite, end to end (operator + emulated API server, told to act like an old API server
 * or a CRD applied without its schema, which enforce neither the CRD schema nor its CEL rule — a real cluster's
 * refusals are EmulatorConformanceTest's and KubectlCompatibilityTest's): every input gets a status
 * naming the field, the cluster is left as it was (Node not cordoned or tainted, no node lease held), and
 * after each case the controller still takes a fresh, valid NodeMaintenance from create to delete.
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class HostileInputIT {

    static final Duration WAIT = Duration.ofSeconds(30);
    static final String LEASE_NAMESPACE = "tenure-system";
    private static final AtomicInteger PROBES = new AtomicInteger();

    EmulatedCluster cluster() {
        return EmulatedClusterResource.cluster();
    }

    @org.junit.jupiter.api.BeforeEach
    void schemasNotEnforced() {
        cluster().enforceCrdSchemas(false);
    }

    @org.junit.jupiter.api.AfterEach
    void schemasEnforcedAgain() {
        cluster().enforceCrdSchemas(true);
    }

    KubernetesClient client() {
        return cluster().client();
    }

    /** A NodeMaintenance as raw JSON, so the spec can be anything a client may send. */
    GenericKubernetesResource createRaw(String name, String specJson) {
        String json = "{\"apiVersion\":\"tenure.dev/v1alpha1\",\"kind\":\"NodeMaintenance\",\"metadata\":{\"name\":\""
                + name + "\"}" + (specJson == null ? "" : ",\"spec\":" + specJson) + "}";
        GenericKubernetesResource r =
                client().getKubernetesSerialization().unmarshal(json, GenericKubernetesResource.class);
        return client().genericKubernetesResources("tenure.dev/v1alpha1", "NodeMaintenance")
                .resource(r)
                .create();
    }

    NodeMaintenance get(String name) {
        return client().resources(NodeMaintenance.class).withName(name).get();
    }

    /** Read untyped: the harness's own client reads a wrong-typed spec no better than any plain fabric8 client. */
    GenericKubernetesResource raw(String name) {
        return client().genericKubernetesResources("tenure.dev/v1alpha1", "NodeMaintenance")
                .withName(name)
                .get();
    }

    NodeMaintenanceStatus statusOf(String name) {
        GenericKubernetesResource nm = raw(name);
        Object status = nm == null ? null : nm.getAdditionalProperties().get("status");
        return status == null
                ? null
                : client().getKubernetesSerialization().convertValue(status, NodeMaintenanceStatus.class);
    }

    Phase phaseOf(String name) {
        NodeMaintenanceStatus st = statusOf(name);
        return st == null ? null : st.getPhase();
    }

    List<String> events(String involvedName) {
        return client().v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> involvedName.equals(e.getInvolvedObject().getName()))
                .map(e -> e.getReason() + ": " + e.getMessage())
                .toList();
    }

    void delete(String name) {
        client().resources(NodeMaintenance.class).withName(name).delete();
        await().atMost(WAIT).until(() -> raw(name) == null);
    }

    Node node(String name) {
        return client().nodes().withName(name).get();
    }

    Node seedWorker(String name) {
        Node n = cluster().seed().node(name).role("worker").create();
        cluster()
                .seed()
                .deployment("app-" + name)
                .namespace("hostile")
                .replicas(2)
                .onNodes(name)
                .create();
        return n;
    }

    /** Nothing of ours on the node: not cordoned, no taint, no annotation, its lease not held by us. */
    void assertUntouched(String nodeName) {
        Node n = node(nodeName);
        assertThat(n.getSpec().getUnschedulable())
                .as("node %s cordoned", nodeName)
                .isNotEqualTo(Boolean.TRUE);
        assertThat(n.getSpec().getTaints() == null ? List.of() : n.getSpec().getTaints())
                .as("taints on %s", nodeName)
                .isEmpty();
        assertThat(
                        n.getMetadata().getAnnotations() == null
                                ? Map.of()
                                : n.getMetadata().getAnnotations())
                .as("annotations on %s", nodeName)
                .doesNotContainKeys(NodeMarks.PRIOR_STATE);
        Lease lease = client().leases()
                .inNamespace(LEASE_NAMESPACE)
                .withName("node-" + nodeName)
                .get();
        assertThat(lease == null
                        || lease.getSpec().getHolderIdentity() == null
                        || !lease.getSpec().getHolderIdentity().startsWith("tenure"))
                .as("lease of %s held by tenure: %s", nodeName, lease)
                .isTrue();
    }

    /** A fresh valid NodeMaintenance goes from create to Succeeded and back to a node left as it was. */
    void assertControllerStillWorks() {
        String node = "probe-" + PROBES.incrementAndGet();
        seedWorker(node);
        client().resource(new NodeMaintenance(node, new NodeMaintenanceSpec(node, "probe")))
                .create();
        await().atMost(WAIT).until(() -> phaseOf(node) == Phase.Succeeded);
        assertThat(node(node).getSpec().getUnschedulable()).isTrue();
        delete(node);
        await().atMost(WAIT).untilAsserted(() -> assertUntouched(node));
    }

    @AfterEach
    void controllerStillProcessesAValidNodeMaintenance() {
        assertControllerStillWorks();
    }

    static Stream<Arguments> refusedSpecs() {
        return Stream.of(
                Arguments.of("no spec", null, "spec: required"),
                Arguments.of("empty nodeName", "{\"nodeName\":\"\"}", "spec.nodeName: required"),
                Arguments.of(
                        "nodeName not a Node name", "{\"nodeName\":\"W1_Bad\"}", "spec.nodeName: must be a Node name"),
                Arguments.of(
                        "nodeName of 300 characters",
                        "{\"nodeName\":\"" + "a".repeat(300) + "\"}",
                        "spec.nodeName: must be a Node name"),
                Arguments.of("unknown node", "{\"nodeName\":\"ghost\"}", "spec.nodeName: node ghost not found"),
                Arguments.of(
                        "oversized reason",
                        "{\"nodeName\":\"%s\",\"reason\":\"" + "x".repeat(40_000) + "\"}",
                        "spec.reason: must be at most 1024 characters, was 40000"),
                // issue 50 item 5, on a server without the CRD's rule and no webhook: the door refuses it, and
                // says so without echoing the escape sequence
                Arguments.of(
                        "reason with an escape sequence and a NUL",
                        "{\"nodeName\":\"%s\",\"reason\":\"a\\u001b[31mb\\u0000c\"}",
                        "spec.reason: must not contain control characters (U+001B at position 1)"),
                Arguments.of(
                        "malformed window",
                        "{\"nodeName\":\"%s\",\"window\":\"5 minutes\"}",
                        "spec.window: \"5 minutes\" is not a duration"),
                Arguments.of(
                        "unknown podSelector operator",
                        "{\"nodeName\":\"%s\",\"drain\":{\"podSelector\":"
                                + "{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"Near\"}]}}}",
                        "spec.drain.podSelector.matchExpressions[0].operator"),
                // wrong JSON types: read with the field absent and named, not a failed read that stops the informer
                Arguments.of(
                        "join not a boolean",
                        "{\"nodeName\":\"%s\",\"join\":\"yes\"}",
                        "spec.join: must be a boolean, was \"yes\""),
                Arguments.of(
                        "priority not an integer",
                        "{\"nodeName\":\"%s\",\"priority\":{\"level\":\"high\"}}",
                        "spec.priority: must be an integer, was {\"level\":\"high\"}"),
                Arguments.of(
                        "drain not an object",
                        "{\"nodeName\":\"%s\",\"drain\":\"all\"}",
                        "spec.drain: must be an object, was \"all\""),
                Arguments.of(
                        "more wrong fields than the reader takes out",
                        "{\"nodeName\":\"%s\",\"drain\":{\"rules\":["
                                + String.join(",", java.util.Collections.nCopies(40, "1")) + "]}}",
                        "spec: not read, more than 32 fields of the wrong type"),
                Arguments.of(
                        "negative gracePeriodSeconds",
                        "{\"nodeName\":\"%s\",\"drain\":{\"gracePeriodSeconds\":-7}}",
                        "spec.drain.gracePeriodSeconds: must be -1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedSpecs")
    void aBadSpecIsFailedNamingTheFieldAndTheNodeIsNeverTouched(String name, String spec, String message) {
        String id = "bad-" + Integer.toUnsignedString(name.hashCode());
        seedWorker(id);
        createRaw(id, spec == null ? null : spec.formatted(id));
        await().atMost(WAIT).until(() -> phaseOf(id) == Phase.Failed);
        NodeMaintenanceStatus st = statusOf(id);
        assertThat(st.getLastError()).contains(message);
        assertThat(st.getNodeName())
                .as("a refused maintenance is pinned to no node")
                .isNull();
        assertThat(events(id)).anyMatch(e -> e.startsWith("FailedMaintenance") && e.contains(message));
        assertUntouched(id);
        // Deletable whatever the spec (an empty nodeName once kept its finalizer forever).
        delete(id);
        assertUntouched(id);
    }

    @Test
    void unknownFieldsAreIgnoredAndTheMaintenanceRuns() {
        seedWorker("hostile-unknown-1");
        createRaw(
                "hostile-unknown-1",
                "{\"nodeName\":\"hostile-unknown-1\",\"futureField\":{\"a\":1},\"drain\":{\"newOption\":true}}");
        await().atMost(WAIT).until(() -> phaseOf("hostile-unknown-1") == Phase.Succeeded);
        delete("hostile-unknown-1");
        await().atMost(WAIT).untilAsserted(() -> assertUntouched("hostile-unknown-1"));
    }

    @Test
    void aNodeMaintenanceOfHundredsOfKilobytesIsProcessedAndSoIsTheNext() {
        // Annotations may hold 256 KiB in all; a watch event this large once stopped the informer for good.
        seedWorker("hostile-big-1");
        NodeMaintenance big = new NodeMaintenance("hostile-big", new NodeMaintenanceSpec("hostile-big-1", "big"));
        big.getMetadata().setAnnotations(java.util.Map.of("example.com/notes", "n".repeat(200_000)));
        client().resource(big).create();
        await().atMost(WAIT).until(() -> phaseOf("hostile-big") == Phase.Succeeded);
        delete("hostile-big");
        await().atMost(WAIT).untilAsserted(() -> assertUntouched("hostile-big-1"));
    }

    @Test
    void editingNodeNameAfterTheStartKeepsTheMaintenanceOnItsNodeAndDeleteUndoesThatNode() {
        seedWorker("hostile-pin-1");
        seedWorker("hostile-pin-2");
        client().resource(new NodeMaintenance("hostile-pin", new NodeMaintenanceSpec("hostile-pin-1", "pin")))
                .create();
        await().atMost(WAIT).until(() -> phaseOf("hostile-pin") == Phase.Succeeded);
        assertThat(statusOf("hostile-pin").getNodeName()).isEqualTo("hostile-pin-1");

        client().resources(NodeMaintenance.class)
                .withName("hostile-pin")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"nodeName\":\"hostile-pin-2\"}}");
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(statusOf("hostile-pin").getLastError())
                        .contains("spec.nodeName: is immutable", "stays on node hostile-pin-1"));
        assertThat(events("hostile-pin")).anyMatch(e -> e.startsWith("NodeNameImmutable"));
        assertThat(statusOf("hostile-pin").getNodeName()).isEqualTo("hostile-pin-1");
        assertThat(node("hostile-pin-1").getSpec().getUnschedulable()).isTrue();
        assertUntouched("hostile-pin-2");
        // Later reconciles (here: a reason edit) keep one note, not one more per pass.
        client().resources(NodeMaintenance.class)
                .withName("hostile-pin")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"reason\":\"pin, again\"}}");
        long generation = client().resources(NodeMaintenance.class)
                .withName("hostile-pin")
                .get()
                .getMetadata()
                .getGeneration();
        await().atMost(WAIT)
                .until(() ->
                        Long.valueOf(generation).equals(statusOf("hostile-pin").getObservedGeneration()));
        assertThat(statusOf("hostile-pin").getLastError().split("is immutable", -1))
                .hasSize(2);

        delete("hostile-pin");
        await().atMost(WAIT).untilAsserted(() -> assertUntouched("hostile-pin-1"));
        assertUntouched("hostile-pin-2");
    }

    @Test
    void editingNodeNameWhileWaitingForAForeignLeaseKeepsWaitingOnTheFirstNode() {
        seedWorker("hostile-wait-1");
        seedWorker("hostile-wait-2");
        client().leases()
                .inNamespace(LEASE_NAMESPACE)
                .resource(new LeaseBuilder()
                        .withNewMetadata()
                        .withName("node-hostile-wait-1")
                        .withNamespace(LEASE_NAMESPACE)
                        .endMetadata()
                        .withNewSpec()
                        .withHolderIdentity("node-maintenance-operator")
                        .withLeaseDurationSeconds(3600)
                        .withAcquireTime(ZonedDateTime.now(ZoneId.systemDefault()))
                        .withRenewTime(ZonedDateTime.now(ZoneId.systemDefault()))
                        .endSpec()
                        .build())
                .create();
        client().resource(new NodeMaintenance("waits", new NodeMaintenanceSpec("hostile-wait-1", "w")))
                .create();
        await().atMost(WAIT).until(() -> phaseOf("waits") == Phase.Waiting);
        // issue 50 item 12: kubectl get tnm's WAITING column says why
        assertThat(statusOf("waits").getWaitingFor()).isEqualTo("the node lease, held by node-maintenance-operator");

        client().resources(NodeMaintenance.class)
                .withName("waits")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"nodeName\":\"hostile-wait-2\"}}");
        await().atMost(WAIT)
                .untilAsserted(
                        () -> assertThat(statusOf("waits").getLastError()).contains("spec.nodeName: is immutable"));
        assertThat(phaseOf("waits")).isEqualTo(Phase.Waiting);
        assertThat(statusOf("waits").getNodeName()).isEqualTo("hostile-wait-1");
        assertUntouched("hostile-wait-2");
        delete("waits");
        assertThat(client().leases()
                        .inNamespace(LEASE_NAMESPACE)
                        .withName("node-hostile-wait-1")
                        .get()
                        .getSpec()
                        .getHolderIdentity())
                .isEqualTo("node-maintenance-operator");
        assertUntouched("hostile-wait-2");
    }

    @Test
    void aRefusedDuplicateStaysRefusedAfterTheFirstEndsAndOnUnrelatedEdits() {
        seedWorker("hostile-dup-1");
        client().resource(new NodeMaintenance("hostile-dup-first", new NodeMaintenanceSpec("hostile-dup-1", "first")))
                .create();
        await().atMost(WAIT).until(() -> phaseOf("hostile-dup-first") == Phase.Succeeded);
        client().resource(new NodeMaintenance("hostile-dup-second", new NodeMaintenanceSpec("hostile-dup-1", "second")))
                .create();
        await().atMost(WAIT).until(() -> phaseOf("hostile-dup-second") == Phase.Failed);
        assertThat(statusOf("hostile-dup-second").getLastError())
                .contains("already has an active NodeMaintenance hostile-dup-first");

        delete("hostile-dup-first");
        await().atMost(WAIT).untilAsserted(() -> assertUntouched("hostile-dup-1"));
        // An unrelated edit (a label: no new generation) wakes the reconciler; the refusal is final.
        Conflicts.retry(() -> client().resources(NodeMaintenance.class)
                .withName("hostile-dup-second")
                .edit(nm -> {
                    nm.getMetadata().setLabels(Map.of("touched", "yes"));
                    return nm;
                }));
        assertControllerStillWorks(); // the controller has taken later events since
        assertThat(phaseOf("hostile-dup-second")).isEqualTo(Phase.Failed);
        assertThat(statusOf("hostile-dup-second").getLastError()).contains("hostile-dup-first");
        assertUntouched("hostile-dup-1");
        delete("hostile-dup-second");
        assertUntouched("hostile-dup-1");
    }

    @Test
    void aNodeMaintenanceOnANodeHeldByTheAnnotationWaitsAndStartsWhenTheAnnotationEnds() {
        seedWorker("hostile-door-1");
        Conflicts.retry(() -> client().nodes().withName("hostile-door-1").edit(n -> {
            n.getMetadata().getAnnotations().put(MaintenanceAnnotation.REQUEST, "3600");
            return n;
        }));
        await().atMost(WAIT)
                .until(() ->
                        Boolean.TRUE.equals(node("hostile-door-1").getSpec().getUnschedulable()));
        client().resource(new NodeMaintenance("hostile-door", new NodeMaintenanceSpec("hostile-door-1", "cross-door")))
                .create();
        await().atMost(WAIT).until(() -> phaseOf("hostile-door") == Phase.Waiting);
        assertThat(statusOf("hostile-door").getLease().getHolderIdentity()).isEqualTo("tenure-annotation");

        Conflicts.retry(() -> client().nodes().withName("hostile-door-1").edit(n -> {
            n.getMetadata().getAnnotations().remove(MaintenanceAnnotation.REQUEST);
            return n;
        }));
        await().atMost(WAIT).until(() -> phaseOf("hostile-door") == Phase.Succeeded);
        assertThat(statusOf("hostile-door").getLease().getHolderIdentity()).startsWith("tenure/");
        delete("hostile-door");
        await().atMost(WAIT).untilAsserted(() -> assertUntouched("hostile-door-1"));
    }

    @ParameterizedTest(name = "annotation value {0}")
    @MethodSource("malformedAnnotations")
    void aMalformedAnnotationIsReportedOnTheNodeAndNothingIsTouched(String value) {
        String node = "ann-" + Integer.toUnsignedString(value.hashCode());
        seedWorker(node);
        Conflicts.retry(() -> client().nodes().withName(node).edit(n -> {
            n.getMetadata().getAnnotations().put(MaintenanceAnnotation.REQUEST, value);
            return n;
        }));
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(
                                node(node).getMetadata().getAnnotations().get(MaintenanceAnnotation.STATUS))
                        .startsWith(MaintenanceAnnotation.INVALID_PREFIX));
        assertUntouched(node);
    }

    static Stream<String> malformedAnnotations() {
        return Stream.of("", "soon", "-5", "0", "99999999999999999999", "1e3");
    }
}
