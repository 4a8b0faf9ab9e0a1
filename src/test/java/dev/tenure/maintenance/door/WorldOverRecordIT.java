package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceHooks;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import dev.tenure.maintenance.machine.NodeMarks;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.Conflicts;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 38, items 3-5, end to end (operator + emulated API server): status is a record, not an authority. A failed
 * Node write is reported as failed, counted and retried with backoff; a node whose lease another holder took is left
 * as that holder needs it, and said so where an admin finds it; a status the operator did not write is re-derived
 * from the node, its pods and the lease before the machine moves on.
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class WorldOverRecordIT {

    static final Duration WAIT = Duration.ofSeconds(40);

    @Inject
    MeterRegistry registry;

    EmulatedCluster cluster() {
        return EmulatedClusterResource.cluster();
    }

    KubernetesClient client() {
        return cluster().client();
    }

    @AfterEach
    void noFaultsLeft() {
        cluster().faults().clear();
    }

    NodeMaintenance create(String name, String node) {
        return client().resource(new NodeMaintenance(name, new NodeMaintenanceSpec(node, "test " + name)))
                .create();
    }

    NodeMaintenance get(String name) {
        return client().resources(NodeMaintenance.class).withName(name).get();
    }

    Phase phaseOf(String name) {
        NodeMaintenance nm = get(name);
        return nm == null || nm.getStatus() == null ? null : nm.getStatus().getPhase();
    }

    static Condition condition(NodeMaintenanceStatus status, String type) {
        return status.getConditions().stream()
                .filter(c -> type.equals(c.getType()))
                .findFirst()
                .orElseThrow();
    }

    List<Event> events(String involvedName) {
        return client().v1().events().inAnyNamespace().list().getItems().stream()
                .filter(e -> involvedName.equals(e.getInvolvedObject().getName()))
                .toList();
    }

    double failedReconciles() {
        return registry.find("operator.sdk.reconciliations.failed").counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    long podsOn(String node) {
        return client().pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName()))
                .count();
    }

    // ------------------------------------------------------------------ item 5: a failed write is reported as failed

    @Test
    void aFailedNodeStatusWriteIsReportedAsFailedCountedAndRetriedWithBackoff() {
        cluster().seed().node("nw-1").role("worker").create();
        cluster()
                .seed()
                .deployment("nw")
                .namespace("nw")
                .replicas(1)
                .onNodes("nw-1")
                .create();
        List<Long> failedAt = new CopyOnWriteArrayList<>();
        Predicate<ApiRequest> nodeStatusWrite = r -> {
            boolean match = r.is("patch", "nodes", "status") && "nw-1".equals(r.name());
            if (match && failedAt.size() < 4) {
                failedAt.add(System.nanoTime());
            }
            return match;
        };
        cluster().faults().failNext(4, nodeStatusWrite, 500);
        double failedBefore = failedReconciles();

        create("nw", "nw-1");

        // While the condition write fails: what is on the node (cordoned, tainted), which write failed and how, in
        // one line: not Cordoned=False, not fabric8's Status(...) dump.
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            NodeMaintenanceStatus status = get("nw").getStatus();
            assertThat(status).isNotNull();
            Condition cordoned = condition(status, NodeMaintenanceStatuses.CORDONED);
            assertThat(cordoned.getStatus()).isEqualTo("True");
            assertThat(cordoned.getReason())
                    .isEqualTo("ConditionWriteFailed"); // NodeMaintenanceStatuses.CONDITION_WRITE_FAILED
            assertThat(cordoned.getMessage())
                    .contains("nodes/nw-1/status")
                    .contains(NodeMarks.CONDITION_TYPE)
                    .contains("HTTP 500 InternalError");
            assertThat(status.getLastError())
                    .contains("HTTP 500 InternalError: injected fault")
                    .doesNotContain("Status(")
                    .doesNotContain("Failure executing")
                    .doesNotContain("\n");
        });
        Node node = client().nodes().withName("nw-1").get();
        assertThat(node.getSpec().getUnschedulable()).isTrue();
        // the reconcile that failed to write is an error in the reconcile metrics
        await().atMost(WAIT).until(() -> failedReconciles() > failedBefore);

        // Retried, and with backoff, not at every drain poll (200 ms here): after the first failure (whose status write
        // also wakes the reconcile at once), the retries came 2 s, then 3 s, 4.5 s... apart.
        await().atMost(WAIT).until(() -> phaseOf("nw") == Phase.Succeeded);
        assertThat(failedAt).hasSize(4);
        assertThat(Duration.ofNanos(failedAt.get(3) - failedAt.get(1))).isGreaterThan(Duration.ofSeconds(4));
        NodeMaintenanceStatus done = get("nw").getStatus();
        assertThat(condition(done, NodeMaintenanceStatuses.CORDONED).getReason())
                .isEqualTo("Cordoned");
        assertThat(done.getLastError()).isNull();
        assertThat(NodeMarks.conditionOf(client().nodes().withName("nw-1").get()))
                .isPresent();
        assertThat(podsOn("nw-1")).isZero();
        client().resources(NodeMaintenance.class).withName("nw").delete();
        await().atMost(WAIT).until(() -> get("nw") == null);
    }

    // ------------------------------------------------------------------ item 4: a taken-over node lease

    @Test
    void aNodeWhoseLeaseAnotherHolderTookIsLeftAsItIsAndSaidSoWithTheUndo() {
        cluster().seed().node("tl-1").role("worker").create();
        create("tl", "tl-1");
        await().atMost(WAIT).until(() -> phaseOf("tl") == Phase.Succeeded);
        // Tenure's node lease, not the kubelet's (kube-node-lease/tl-1, which a living cluster renews)
        Lease lease = client().leases().inAnyNamespace().list().getItems().stream()
                .filter(l -> !"kube-node-lease".equals(l.getMetadata().getNamespace()))
                .filter(l -> l.getMetadata().getName().endsWith("tl-1"))
                .collect(java.util.stream.Collectors.collectingAndThen(java.util.stream.Collectors.toList(), leases -> {
                    assertThat(leases).as("Tenure's node lease of tl-1").hasSize(1);
                    return leases.get(0);
                }));
        // hand-edited to another holder, valid for an hour (retried: Tenure renews it meanwhile)
        Conflicts.retry(() -> client().leases()
                .inNamespace(lease.getMetadata().getNamespace())
                .withName(lease.getMetadata().getName())
                .edit(l -> {
                    l.getSpec().setHolderIdentity("someone-else");
                    l.getSpec().setLeaseDurationSeconds(3600);
                    l.getSpec().setRenewTime(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC));
                    return l;
                }));

        client().resources(NodeMaintenance.class).withName("tl").delete();
        await().atMost(WAIT).until(() -> get("tl") == null);

        // Not touched: still as that holder's maintenance needs it, with what lets an admin finish the undo.
        Node node = client().nodes().withName("tl-1").get();
        assertThat(node.getSpec().getUnschedulable()).isTrue();
        assertThat(node.getSpec().getTaints())
                .anySatisfy(t -> assertThat(t.getKey()).isEqualTo(NodeMarks.DRAIN_TAINT.getKey()));
        assertThat(NodeMarks.conditionOf(node)).isPresent();
        assertThat(node.getMetadata().getAnnotations()).containsKey(NodeMarks.PRIOR_STATE);
        // never "out of maintenance" for a restore that did not happen
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(events("tl"))
                        .filteredOn(e -> MaintenanceEvents.REMOVED.equals(e.getReason()))
                        .singleElement()
                        .satisfies(e -> {
                            assertThat(e.getType()).isEqualTo("Warning");
                            assertThat(e.getMessage())
                                    .contains("NOT restored")
                                    .contains("someone-else")
                                    .doesNotContain("out of maintenance");
                        }));
        // what was left, and the commands, on the Node itself (kubectl describe node)
        Event left = await().atMost(WAIT)
                .until(
                        () -> events("tl-1").stream()
                                .filter(e -> "Node".equals(e.getInvolvedObject().getKind()))
                                .filter(e -> MaintenanceEvents.NODE_LEFT_TO_HOLDER.equals(e.getReason()))
                                .findFirst(),
                        java.util.Optional::isPresent)
                .orElseThrow();
        assertThat(left.getMessage())
                .contains("someone-else")
                .contains("cordoned")
                .contains("taint " + NodeMarks.DRAIN_TAINT.getKey() + ":NoSchedule")
                .contains("condition " + NodeMarks.CONDITION_TYPE)
                .contains("kubectl uncordon tl-1")
                .contains("kubectl taint nodes tl-1 " + NodeMarks.DRAIN_TAINT.getKey() + ":NoSchedule-")
                .contains("kubectl annotate node tl-1 " + NodeMarks.PRIOR_STATE + "-");
        // the condition's command is a valid patch of this node's status (what kubectl sends)
        String patch = left.getMessage().replaceAll(".*--type=json -p '([^']*)'.*", "$1");
        client().nodes().withName("tl-1").subresource("status").patch(PatchContext.of(PatchType.JSON), patch);
        assertThat(NodeMarks.conditionOf(client().nodes().withName("tl-1").get()))
                .isEmpty();
    }

    // ------------------------------------------------------------------ item 3: a written status is a record

    @Test
    void aForeignSucceededStatusIsRederivedFromTheNodeAndTheDrainIsDone() {
        cluster().seed().node("fs-1").role("worker").create();
        cluster()
                .seed()
                .deployment("fs")
                .namespace("fs")
                .replicas(2)
                .onNodes("fs-1")
                .create();
        NodeMaintenance nm = new NodeMaintenance("fs", new NodeMaintenanceSpec("fs-1", "test fs"));
        nm.getMetadata().setAnnotations(java.util.Map.of(MaintenanceHooks.PRE_DRAIN_PREFIX + "backup", ""));
        client().resource(nm).create();
        await().atMost(WAIT).until(() -> {
            NodeMaintenance read = get("fs");
            return read != null && read.getStatus() != null && read.getStatus().getHooks() != null;
        });
        assertThat(podsOn("fs-1")).isEqualTo(2);

        // another tool (or a backup restore) says it is done
        client().resources(NodeMaintenance.class)
                .withName("fs")
                .subresource("status")
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"status\":{\"phase\":\"Succeeded\",\"drainProgress\":100}}");

        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(events("fs")).anySatisfy(e -> {
                    assertThat(e.getReason()).isEqualTo("StatusRederived"); // MaintenanceEvents.STATUS_REDERIVED
                    assertThat(e.getMessage())
                            .contains("not written by this operator")
                            .contains("fs-1");
                }));
        // held at its hook again, nothing evicted behind the hook's back
        await().atMost(WAIT).until(() -> phaseOf("fs") == Phase.Running);
        assertThat(podsOn("fs-1")).isEqualTo(2);

        client().resources(NodeMaintenance.class).withName("fs").edit(r -> {
            r.getMetadata().setAnnotations(java.util.Map.of());
            return r;
        });
        await().atMost(WAIT).until(() -> phaseOf("fs") == Phase.Succeeded);
        assertThat(podsOn("fs-1")).isZero();
        assertThat(get("fs").getStatus().getDrainProgress()).isEqualTo(100);
        client().resources(NodeMaintenance.class).withName("fs").delete();
        await().atMost(WAIT).until(() -> get("fs") == null);
    }

    /**
     * Issue 50 item 4: status written by others moves no deadline. A pre-drain hook holds the drain; another client
     * moves the wait's start an hour forward: the timeout still passes at the deadline this operator recorded (and the
     * status says that start again), not an hour later.
     */
    @Test
    void aForeignStatusThatMovesAHookWaitsStartMovesNoDeadline() {
        cluster().seed().node("hm-1").role("worker").create();
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("hm-1", "test hm");
        Duration timeout = Duration.ofSeconds(15);
        dev.tenure.maintenance.api.HooksSpec hooks = new dev.tenure.maintenance.api.HooksSpec("15s");
        hooks.setOnTimeout(dev.tenure.maintenance.api.TimeoutOutcome.Fail);
        spec.setHooks(hooks);
        NodeMaintenance nm = new NodeMaintenance("hm", spec);
        nm.getMetadata().setAnnotations(java.util.Map.of(MaintenanceHooks.PRE_DRAIN_PREFIX + "backup", ""));
        client().resource(nm).create();
        await().atMost(WAIT).until(() -> {
            NodeMaintenance read = get("hm");
            return read != null && read.getStatus() != null && read.getStatus().getHooks() != null;
        });
        String since = get("hm").getStatus().getHooks().getSince();
        java.time.Instant deadline = java.time.Instant.parse(since).plus(timeout);
        String moved = java.time.Instant.parse(since).plus(Duration.ofHours(1)).toString();

        // another client (or a backup restore) says the wait began an hour later
        client().resources(NodeMaintenance.class)
                .withName("hm")
                .subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"hooks\":{\"since\":\"" + moved + "\"}}}");
        assertThat(java.time.Instant.now())
                .as("the foreign write landed before the recorded deadline (else this proves nothing)")
                .isBefore(deadline);

        await().atMost(WAIT).until(() -> phaseOf("hm") == Phase.Failed);
        assertThat(java.time.Instant.now())
                .as("the timeout passed no earlier than the recorded deadline")
                .isAfterOrEqualTo(deadline);
        NodeMaintenanceStatus failed = get("hm").getStatus();
        assertThat(failed.getLastError()).contains("(spec.hooks.timeout)").contains("stays cordoned");
        assertThat(failed.getHooks().getSince())
                .as("the wait's start this operator recorded, written back over the foreign one")
                .isEqualTo(since);
        assertThat(client().nodes().withName("hm-1").get().getSpec().getUnschedulable())
                .isTrue();
        client().resources(NodeMaintenance.class).withName("hm").delete();
        await().atMost(WAIT).until(() -> get("hm") == null);
    }

    @Test
    void aForeignStatusThatDropsTheReasonOfARefusalIsWrittenBackAtOnce() {
        cluster().seed().node("fr-1").role("worker").create();
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("fr-1", "test fr");
        spec.setHooks(new dev.tenure.maintenance.api.HooksSpec("0s")); // admitted by the schema, refused by the door
        client().resource(new NodeMaintenance("fr", spec)).create();
        await().atMost(WAIT).until(() -> {
            NodeMaintenance read = get("fr");
            return read != null
                    && read.getStatus() != null
                    && read.getStatus().getPhase() == Phase.Failed
                    && String.valueOf(read.getStatus().getLastError()).contains("spec.hooks.timeout");
        });

        // another client keeps the phase and wipes the reason: nothing else changes, so no requeue, hook or queue
        // change would wake the maintenance; only the foreign status write itself can
        client().resources(NodeMaintenance.class)
                .withName("fr")
                .subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"lastError\":\"\",\"conditions\":[]}}");

        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(get("fr").getStatus().getLastError())
                        .as("the refusal named again in status, not the foreign write kept")
                        .contains("spec.hooks.timeout"));
        assertThat(get("fr").getStatus().getPhase()).isEqualTo(Phase.Failed);
        client().resources(NodeMaintenance.class).withName("fr").delete();
        await().atMost(WAIT).until(() -> get("fr") == null);
    }

    @Test
    void aForeignStatusThatSaysARefusedMaintenanceRunsIsReviewedAndRefusedAgain() {
        client().resource(new NodeMaintenance("fg", new NodeMaintenanceSpec("ghost-fg", "test fg")))
                .create();
        await().atMost(WAIT).until(() -> phaseOf("fg") == Phase.Failed);

        // another client says it runs, drained half: no lease, no node, nothing of it was ever done
        client().resources(NodeMaintenance.class)
                .withName("fg")
                .subresource("status")
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"status\":{\"phase\":\"Running\",\"lastError\":\"\",\"drainProgress\":50,"
                                + "\"conditions\":[{\"type\":\"Drained\",\"status\":\"True\",\"reason\":\"Restored\","
                                + "\"lastTransitionTime\":\"2001-01-01T00:00:00Z\",\"message\":\"foreign\"}]}}");

        await().atMost(WAIT).untilAsserted(() -> {
            NodeMaintenanceStatus status = get("fg").getStatus();
            assertThat(status.getPhase()).isEqualTo(Phase.Failed);
            assertThat(status.getLastError()).contains("ghost-fg").contains("not found");
        });
        assertThat(client().leases().inAnyNamespace().list().getItems())
                .as("no node lease taken for a maintenance the status alone said was running")
                .noneMatch(l -> l.getMetadata().getName().endsWith("ghost-fg"));
        client().resources(NodeMaintenance.class).withName("fg").delete();
        await().atMost(WAIT).until(() -> get("fg") == null);
    }

    @Test
    void aForeignStatusThatPinsARefusedMaintenanceToANodeIsRefusedAgain() {
        cluster().seed().node("fp-1").role("worker").create();
        cluster().seed().node("fp-2").role("worker").create();
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("fp-1", "test fp");
        spec.setHooks(new dev.tenure.maintenance.api.HooksSpec("1.5ns"));
        client().resource(new NodeMaintenance("fp", spec)).create();
        await().atMost(WAIT).until(() -> phaseOf("fp") == Phase.Failed);

        client().resources(NodeMaintenance.class)
                .withName("fp")
                .subresource("status")
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"status\":{\"phase\":\"Failed\",\"lastError\":\"\",\"nodeName\":\"fp-2\","
                                + "\"drainProgress\":100,\"conditions\":[]}}");
        await().atMost(WAIT)
                .untilAsserted(
                        () -> assertThat(get("fp").getStatus().getLastError()).contains("spec.hooks.timeout"));
        // and a node name no node can have (253 characters): the refusal is still written back
        String longNode = "n" + "0123456789abcdef".repeat(16).substring(0, 252);
        client().resources(NodeMaintenance.class)
                .withName("fp")
                .subresource("status")
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"status\":{\"phase\":\"Pending\",\"lastError\":\"\",\"nodeName\":\"" + longNode + "\"}}");

        await().atMost(WAIT)
                .untilAsserted(
                        () -> assertThat(get("fp").getStatus().getLastError()).contains("spec.hooks.timeout"));
        Node other = client().nodes().withName("fp-2").get();
        assertThat(other.getSpec().getUnschedulable())
                .as("the node the foreign status named")
                .isNotEqualTo(true);
        client().resources(NodeMaintenance.class).withName("fp").delete();
        await().atMost(WAIT).until(() -> get("fp") == null);
    }

    /** Tenure's maintenance Lease of {@code node} (not the kubelet's, in kube-node-lease), if there is one. */
    java.util.Optional<Lease> tenureLeaseOf(String node) {
        return client().leases().inAnyNamespace().list().getItems().stream()
                .filter(l -> !"kube-node-lease".equals(l.getMetadata().getNamespace()))
                .filter(l -> l.getMetadata().getName().endsWith(node))
                .findFirst();
    }

    static java.util.Map<String, String> annotations(Node node) {
        return node.getMetadata().getAnnotations() == null
                ? java.util.Map.of()
                : node.getMetadata().getAnnotations();
    }

    void patchStatus(String name, String status) {
        client().resources(NodeMaintenance.class)
                .withName(name)
                .subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":" + status + "}");
    }

    /**
     * GeneratedInputIT, seed 3780571230079580367: another client patches status.nodeName of a running maintenance. The
     * node it is pinned to is the one whose lease Tenure holds for it, not the one a foreign status names: the status
     * is written back, and at deletion the undo is of the node held, whose lease is released; the node the status
     * named is never touched.
     */
    @Test
    void aForeignStatusNamingAnotherNodeMovesNothingAndTheUndoIsOfTheNodeHeld() {
        cluster()
                .seed()
                .node("pn-1")
                .role("worker")
                .taint("example.com/gpu", "a100", "NoSchedule")
                .create();
        cluster().seed().node("pn-2").role("worker").create();
        List<io.fabric8.kubernetes.api.model.Taint> taintsBefore =
                client().nodes().withName("pn-1").get().getSpec().getTaints();
        create("pn", "pn-1");
        await().atMost(WAIT).until(() -> phaseOf("pn") == Phase.Succeeded);
        assertThat(client().nodes().withName("pn-1").get().getSpec().getUnschedulable())
                .isTrue();

        // another node that exists, with a place in the queue; then a node that does not
        for (String foreign : List.of("pn-2", "ghost-pn")) {
            patchStatus("pn", "{\"nodeName\":\"" + foreign + "\",\"queuePosition\":50}");
            await().atMost(WAIT).untilAsserted(() -> {
                NodeMaintenanceStatus status = get("pn").getStatus();
                assertThat(status.getNodeName())
                        .as("written back: the node it holds")
                        .isEqualTo("pn-1");
                assertThat(status.getQueuePosition()).isNull();
                assertThat(status.getPhase()).isEqualTo(Phase.Succeeded);
            });
        }
        assertThat(tenureLeaseOf("pn-1").map(l -> l.getSpec().getHolderIdentity()))
                .as("pn-1's lease still held by Tenure")
                .hasValueSatisfying(h -> assertThat(h).isNotBlank());

        // foreign again, and deleted before (or after) the write-back: the undo is pn-1's either way
        patchStatus("pn", "{\"nodeName\":\"pn-2\",\"queuePosition\":50}");
        client().resources(NodeMaintenance.class).withName("pn").delete();
        await().atMost(WAIT).until(() -> get("pn") == null);

        Node held = client().nodes().withName("pn-1").get();
        assertThat(held.getSpec().getUnschedulable()).as("pn-1 uncordoned").isNotEqualTo(true);
        assertThat(held.getSpec().getTaints()).as("pn-1's taints as before").isEqualTo(taintsBefore);
        assertThat(NodeMarks.conditionOf(held)).isEmpty();
        assertThat(annotations(held)).doesNotContainKey(NodeMarks.PRIOR_STATE);
        assertThat(tenureLeaseOf("pn-1")
                        .map(l -> l.getSpec().getHolderIdentity())
                        .filter(h -> !h.isBlank()))
                .as("pn-1's lease released")
                .isEmpty();
        Node other = client().nodes().withName("pn-2").get();
        assertThat(other.getSpec().getUnschedulable()).as("pn-2 never cordoned").isNotEqualTo(true);
        assertThat(other.getSpec().getTaints()).as("pn-2 never tainted").isNullOrEmpty();
        assertThat(NodeMarks.conditionOf(other)).isEmpty();
        assertThat(annotations(other)).doesNotContainKey(NodeMarks.PRIOR_STATE);
        assertThat(tenureLeaseOf("pn-2")).as("no lease of pn-2 ever taken").isEmpty();
        assertThat(events("pn"))
                .filteredOn(e -> MaintenanceEvents.REMOVED.equals(e.getReason()))
                .singleElement()
                .satisfies(e -> assertThat(e.getMessage()).contains("node pn-1 is out of maintenance"));
    }
}
