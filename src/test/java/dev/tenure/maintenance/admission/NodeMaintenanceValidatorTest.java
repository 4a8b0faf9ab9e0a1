package dev.tenure.maintenance.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.admission.NodeMaintenanceValidator.ClusterView;
import dev.tenure.maintenance.api.DrainBehavior;
import dev.tenure.maintenance.api.DrainRule;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.HandoverSpec;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeMaintenanceValidatorTest {

    static Node worker(String name) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
    }

    static Node controlPlane(String name) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("node-role.kubernetes.io/control-plane", "")
                .endMetadata()
                .build();
    }

    static Node master(String name) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("node-role.kubernetes.io/master", "")
                .endMetadata()
                .build();
    }

    static NodeMaintenance nm(String name, String node, Consumer<NodeMaintenanceSpec> edit) {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec(node, "test");
        edit.accept(spec);
        NodeMaintenance nm = new NodeMaintenance(name, spec);
        nm.getMetadata().setCreationTimestamp("2026-01-01T00:00:00Z");
        return nm;
    }

    static NodeMaintenance nm(String name, String node) {
        return nm(name, node, s -> {});
    }

    static NodeMaintenance withoutSpec(String name) {
        NodeMaintenance nm = nm(name, "w1");
        nm.setSpec(null);
        return nm;
    }

    static NodeMaintenance running(String name, String node) {
        NodeMaintenance m = nm(name, node);
        m.getStatus().setPhase(Phase.Running);
        return m;
    }

    static final List<Node> NODES =
            List.of(worker("w1"), worker("w2"), worker("w3"), controlPlane("cp1"), controlPlane("cp2"), master("cp3"));

    static ClusterView view(String node, NodeMaintenance... ahead) {
        return new ClusterView(
                NODES.stream()
                        .filter(n -> n.getMetadata().getName().equals(node))
                        .findFirst(),
                NODES,
                List.of(ahead));
    }

    static Stream<Arguments> refusals() {
        MaintenanceLimits none = MaintenanceLimits.none();
        return Stream.of(
                Arguments.of("nodeName missing", nm("a", null), null, view("w1"), none, "spec.nodeName: required"),
                Arguments.of(
                        "malformed window",
                        nm("a", "w1", s -> s.setWindow("5 minutes")),
                        null,
                        view("w1"),
                        none,
                        "spec.window: \"5 minutes\" is not a duration"),
                Arguments.of(
                        "zero window",
                        nm("a", "w1", s -> s.setWindow("0")),
                        null,
                        view("w1"),
                        none,
                        "spec.window: must be more than 0"),
                Arguments.of(
                        "negative drain timeout",
                        nm("a", "w1", s -> {
                            s.setDrain(new DrainSpec());
                            s.getDrain().setTimeout("-5m");
                        }),
                        null,
                        view("w1"),
                        none,
                        "spec.drain.timeout: \"-5m\" is not a duration"),
                Arguments.of(
                        "malformed evictionRetryDelay",
                        nm("a", "w1", s -> {
                            s.setDrain(new DrainSpec());
                            s.getDrain().setEvictionRetryDelay("5");
                        }),
                        null,
                        view("w1"),
                        none,
                        "spec.drain.evictionRetryDelay: \"5\" is not a duration"),
                Arguments.of(
                        "zero evictionRetryDelay",
                        nm("a", "w1", s -> {
                            s.setDrain(new DrainSpec());
                            s.getDrain().setEvictionRetryDelay("0s");
                        }),
                        null,
                        view("w1"),
                        none,
                        "spec.drain.evictionRetryDelay: must be more than 0"),
                Arguments.of(
                        "malformed skipWaitForDeleteTimeout",
                        nm("a", "w1", s -> {
                            s.setDrain(new DrainSpec());
                            s.getDrain().setSkipWaitForDeleteTimeout("soon");
                        }),
                        null,
                        view("w1"),
                        none,
                        "spec.drain.skipWaitForDeleteTimeout: \"soon\" is not a duration"),
                Arguments.of(
                        "order on a WaitCompleted rule (Cluster API refuses it too)",
                        nm("a", "w1", s -> {
                            s.setDrain(new DrainSpec());
                            s.getDrain()
                                    .setRules(List.of(
                                            new DrainRule(null, null, DrainBehavior.Drain, 1),
                                            new DrainRule(null, null, DrainBehavior.WaitCompleted, 2)));
                        }),
                        null,
                        view("w1"),
                        none,
                        "spec.drain.rules[1].order: not allowed with behavior WaitCompleted"),
                Arguments.of(
                        "order on a Skip rule",
                        nm("a", "w1", s -> {
                            s.setDrain(new DrainSpec());
                            s.getDrain().setRules(List.of(new DrainRule(null, null, DrainBehavior.Skip, 0)));
                        }),
                        null,
                        view("w1"),
                        none,
                        "spec.drain.rules[0].order: not allowed with behavior Skip"),
                Arguments.of(
                        "gracePeriodSeconds below -1",
                        nm("a", "w1", s -> {
                            s.setDrain(new DrainSpec());
                            s.getDrain().setGracePeriodSeconds(-2L);
                        }),
                        null,
                        view("w1"),
                        none,
                        "spec.drain.gracePeriodSeconds: must be -1"),
                Arguments.of(
                        "malformed handover timeout",
                        nm("a", "w1", s -> {
                            s.setHandover(new HandoverSpec());
                            s.getHandover().setTimeout("-1s");
                        }),
                        null,
                        view("w1"),
                        none,
                        "spec.handover.timeout: \"-1s\" is not a duration"),
                Arguments.of(
                        "node does not exist",
                        nm("a", "ghost"),
                        null,
                        view("ghost"),
                        none,
                        "spec.nodeName: node ghost not found"),
                Arguments.of(
                        "second maintenance of the same node",
                        nm("b", "w1"),
                        null,
                        view("w1", running("a", "w1")),
                        none,
                        "spec.nodeName: node w1 already has an active NodeMaintenance a"),
                Arguments.of("no spec at all", withoutSpec("a"), null, view("w1"), none, "spec: required"),
                Arguments.of(
                        "nodeName not a Node name",
                        nm("a", "W1_bad"),
                        null,
                        view("W1_bad"),
                        none,
                        "spec.nodeName: must be a Node name"),
                Arguments.of(
                        "reason too long",
                        nm("a", "w1", s -> s.setReason("x".repeat(40_000))),
                        null,
                        view("w1"),
                        none,
                        "spec.reason: must be at most 1024 characters, was 40000"),
                // issue 50 item 5: an escape sequence or a NUL would reach the admin's terminal through events
                Arguments.of(
                        "reason with an escape sequence and a NUL",
                        nm("a", "w1", s -> s.setReason("a\u001b[31mb\u0000c")),
                        null,
                        view("w1"),
                        none,
                        "spec.reason: must not contain control characters (U+001B at position 1)"),
                Arguments.of(
                        "reason changed to a C1 control (CSI)",
                        nm("a", "w1", s -> s.setReason("a\u009b31m")),
                        nm("a", "w1", s -> s.setReason("fine")),
                        view("w1"),
                        none,
                        "spec.reason: must not contain control characters (U+009B at position 1)"),
                Arguments.of(
                        "podSelector with an unknown operator",
                        nm("a", "w1", s -> {
                            s.setDrain(new DrainSpec());
                            s.getDrain()
                                    .setPodSelector(new io.fabric8.kubernetes.api.model.LabelSelectorBuilder()
                                            .addNewMatchExpression()
                                            .withKey("app")
                                            .withOperator("Near")
                                            .endMatchExpression()
                                            .build());
                        }),
                        null,
                        view("w1"),
                        none,
                        "spec.drain.podSelector.matchExpressions[0].operator: must be In, NotIn, Exists or DoesNotExist, was Near"),
                Arguments.of(
                        "podSelector In without values",
                        nm("a", "w1", s -> {
                            s.setDrain(new DrainSpec());
                            s.getDrain()
                                    .setPodSelector(new io.fabric8.kubernetes.api.model.LabelSelectorBuilder()
                                            .addNewMatchExpression()
                                            .withKey("app")
                                            .withOperator("In")
                                            .endMatchExpression()
                                            .build());
                        }),
                        null,
                        view("w1"),
                        none,
                        "spec.drain.podSelector.matchExpressions[0].values: required"),
                Arguments.of(
                        "annotation-protocol nodes count towards the cap",
                        nm("b", "w2"),
                        null,
                        new ClusterView(
                                Optional.of(worker("w2")), NODES, List.of(), java.util.Map.of("w1", "annotation")),
                        new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty()),
                        "at most 1 node(s)"),
                Arguments.of(
                        "nodeName changed",
                        nm("a", "w2"),
                        nm("a", "w1"),
                        view("w2"),
                        none,
                        "spec.nodeName: is immutable (was w1, now w2)"),
                Arguments.of(
                        "cluster-wide cap",
                        nm("c", "w3"),
                        null,
                        view("w3", running("a", "w1"), running("b", "w2")),
                        new MaintenanceLimits(OptionalInt.of(2), OptionalInt.empty()),
                        "tenure.maintenance.max-nodes-in-maintenance: at most 2 node(s)"),
                Arguments.of(
                        "control-plane majority (3 nodes, 1 already down)",
                        nm("b", "cp2"),
                        null,
                        view("cp2", running("a", "cp1")),
                        none,
                        "control-plane budget: node cp2 is a control-plane node; with it in maintenance 1 of 3"),
                Arguments.of(
                        "master label counts as control plane",
                        nm("b", "cp3"),
                        null,
                        view("cp3", running("a", "cp1")),
                        none,
                        "control-plane budget: node cp3"),
                Arguments.of(
                        "configured control-plane budget",
                        nm("a", "cp1"),
                        null,
                        view("cp1"),
                        new MaintenanceLimits(OptionalInt.empty(), OptionalInt.of(3)),
                        "tenure.maintenance.control-plane-min-available"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refusesWithAMessageNamingTheRule(
            String name,
            NodeMaintenance candidate,
            NodeMaintenance old,
            ClusterView view,
            MaintenanceLimits limits,
            String message) {
        assertThat(NodeMaintenanceValidator.validate(candidate, old, view, limits))
                .anySatisfy(e -> assertThat(e).contains(message));
    }

    static Stream<Arguments> admissions() {
        return Stream.of(
                Arguments.of(
                        "plain worker",
                        nm("a", "w1", s -> {
                            s.setWindow("1h30m");
                            s.setDrain(new DrainSpec());
                            s.getDrain().setTimeout("5m");
                        }),
                        null,
                        view("w1"),
                        MaintenanceLimits.none()),
                Arguments.of(
                        "other node in maintenance",
                        nm("b", "w2"),
                        null,
                        view("w2", running("a", "w1")),
                        MaintenanceLimits.none()),
                Arguments.of(
                        "first of three control-plane nodes",
                        nm("a", "cp1"),
                        null,
                        view("cp1"),
                        MaintenanceLimits.none()),
                // Across front doors the later request waits for the node's lease (phase Waiting), it is not refused.
                Arguments.of(
                        "node in maintenance by the annotation protocol",
                        nm("b", "w1"),
                        null,
                        new ClusterView(
                                Optional.of(worker("w1")),
                                NODES,
                                List.of(),
                                java.util.Map.of("w1", "annotation lifecycle.metal3.io/maintenance")),
                        MaintenanceLimits.none()),
                Arguments.of(
                        "cap not reached",
                        nm("b", "w2"),
                        null,
                        view("w2", running("a", "w1")),
                        new MaintenanceLimits(OptionalInt.of(2), OptionalInt.empty())),
                Arguments.of(
                        "update of an old object whose reason (unchanged) has a control character: ratcheted as the"
                                + " CRD's rule is",
                        nm("a", "w1", s -> {
                            s.setReason("a\u001bb");
                            s.setWindow("1h");
                        }),
                        nm("a", "w1", s -> s.setReason("a\u001bb")),
                        view("w1"),
                        MaintenanceLimits.none()),
                Arguments.of(
                        "update keeping nodeName (node since deleted)",
                        nm("a", "ghost", s -> s.setReason("x")),
                        nm("a", "ghost"),
                        view("ghost"),
                        MaintenanceLimits.none()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("admissions")
    void admits(
            String name, NodeMaintenance candidate, NodeMaintenance old, ClusterView view, MaintenanceLimits limits) {
        assertThat(NodeMaintenanceValidator.validate(candidate, old, view, limits))
                .isEmpty();
    }

    @Test
    void aheadCountsStartedOnesAndEarlierPendingOnesButNotEndedRefusedOrDeleted() {
        NodeMaintenance self = nm("m", "w1");
        self.getMetadata().setCreationTimestamp("2026-01-01T00:00:05Z");
        NodeMaintenance earlierPending = nm("a", "w2");
        NodeMaintenance laterRunning = running("z", "w3");
        laterRunning.getMetadata().setCreationTimestamp("2026-01-01T00:00:09Z");
        NodeMaintenance laterPending = nm("y", "w3");
        laterPending.getMetadata().setCreationTimestamp("2026-01-01T00:00:09Z");
        NodeMaintenance ended = nm("e", "w1");
        ended.getStatus().setPhase(Phase.Ended);
        NodeMaintenance refused = nm("r", "w1");
        refused.getStatus().setPhase(Phase.Failed);
        NodeMaintenance failedHolding = nm("f", "w2");
        failedHolding.getStatus().setPhase(Phase.Failed);
        Condition held = new Condition();
        held.setType(NodeMaintenanceStatuses.LEASE_HELD);
        held.setStatus("True");
        held.setLastTransitionTime("2026-01-01T00:00:00Z");
        failedHolding.getStatus().setConditions(List.of(held));
        NodeMaintenance deleting = running("d", "w1");
        deleting.getMetadata().setDeletionTimestamp("2026-01-01T00:00:06Z");

        List<NodeMaintenance> ahead = NodeMaintenanceValidator.ahead(
                self,
                List.of(self, earlierPending, laterRunning, laterPending, ended, refused, failedHolding, deleting));
        assertThat(ahead).extracting(n -> n.getMetadata().getName()).containsExactlyInAnyOrder("a", "z", "f");
    }

    @Test
    void raceWithoutWebhookIsDecidedTheSameWayFromBothSides() {
        NodeMaintenance a = nm("a", "w1");
        NodeMaintenance b = nm("b", "w1");
        var forA = NodeMaintenanceValidator.validate(
                a,
                null,
                new ClusterView(Optional.of(worker("w1")), NODES, NodeMaintenanceValidator.ahead(a, List.of(a, b))),
                MaintenanceLimits.none());
        var forB = NodeMaintenanceValidator.validate(
                b,
                null,
                new ClusterView(Optional.of(worker("w1")), NODES, NodeMaintenanceValidator.ahead(b, List.of(a, b))),
                MaintenanceLimits.none());
        assertThat(forA).isEmpty();
        assertThat(forB).singleElement().asString().contains("already has an active NodeMaintenance a");
    }
    /**
     * Issue 38: a preview that has not started touches nothing, so it is no active maintenance of its node: a real
     * request for the node is no duplicate of it, a join does not join it (it is an ordinary request, the node's
     * owner), and it takes no slot. A maintenance that started and had preview set afterwards still counts.
     */
    @Test
    void aPreviewIsNoActiveMaintenanceOfItsNode() {
        MaintenanceLimits one = new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty());
        NodeMaintenance preview = nm("preview", "w1", s -> s.setPreview(true));
        NodeMaintenance real = nm("real", "w1");
        real.getMetadata().setCreationTimestamp("2026-01-01T00:00:05Z");
        ClusterView forReal = new ClusterView(
                Optional.of(worker("w1")), NODES, NodeMaintenanceValidator.ahead(real, List.of(preview)));

        assertThat(forReal.ahead()).as("not ahead of anyone").isEmpty();
        assertThat(NodeMaintenanceValidator.review(real, null, forReal, one).reasons())
                .as("no duplicate, no slot taken")
                .isEmpty();

        NodeMaintenance joiner = nm("joiner", "w1", s -> s.setJoin(true));
        joiner.getMetadata().setCreationTimestamp("2026-01-01T00:00:05Z");
        ClusterView forJoiner = new ClusterView(
                Optional.of(worker("w1")),
                NODES,
                NodeMaintenanceValidator.ahead(joiner, List.of(preview, running("other", "w2"))));
        assertThat(NodeMaintenanceValidator.joins(joiner, forJoiner))
                .as("a join beside a preview joins nothing")
                .isEmpty();
        assertThat(NodeMaintenanceValidator.review(joiner, null, forJoiner, one).holds())
                .as("a fresh request: it takes a slot of its own, and the cap is full")
                .containsExactly("tenure.maintenance.max-nodes-in-maintenance: at most 1 node(s) may be in maintenance"
                        + " at once; 1 already are: w2");

        NodeMaintenance startedThenPreview = running("started", "w1");
        startedThenPreview.getSpec().setPreview(true);
        ClusterView besideStarted = new ClusterView(
                Optional.of(worker("w1")), NODES, NodeMaintenanceValidator.ahead(real, List.of(startedThenPreview)));
        assertThat(NodeMaintenanceValidator.validate(real, null, besideStarted, one))
                .as("preview set on a started maintenance changes nothing: it still holds the node")
                .containsExactly("spec.nodeName: node w1 already has an active NodeMaintenance started");
    }

    /** Issue 29's shared requests: spec.join turns the duplicate refusal into joining the maintenance of the node. */
    @Test
    void aJoinSharesTheMaintenanceOfItsNodeInsteadOfBeingRefused() {
        MaintenanceLimits one = new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty());
        NodeMaintenance owner = running("owner", "w1");
        ClusterView view = view("w1", owner);

        NodeMaintenance plain = nm("second", "w1");
        assertThat(NodeMaintenanceValidator.validate(plain, null, view, one))
                .as("without spec.join: refused as before")
                .containsExactly("spec.nodeName: node w1 already has an active NodeMaintenance owner");
        assertThat(NodeMaintenanceValidator.joins(plain, view)).isEmpty();

        NodeMaintenance joinFalse = nm("second", "w1", s -> s.setJoin(false));
        assertThat(NodeMaintenanceValidator.validate(joinFalse, null, view, one))
                .hasSize(1);

        NodeMaintenance joiner = nm("second", "w1", s -> s.setJoin(true));
        NodeMaintenanceValidator.Verdict verdict = NodeMaintenanceValidator.review(joiner, null, view, one);
        assertThat(verdict.refusals()).isEmpty();
        assertThat(verdict.holds())
                .as("a joiner takes no slot of the cap: its node is counted already")
                .isEmpty();
        assertThat(NodeMaintenanceValidator.joins(joiner, view)).contains("owner");

        NodeMaintenance firstJoiner = running("first-joiner", "w1");
        firstJoiner.getStatus().setJoinedTo("owner");
        assertThat(NodeMaintenanceValidator.joins(joiner, view("w1", firstJoiner)))
                .as("joining a joiner joins its owner")
                .contains("owner");
        assertThat(NodeMaintenanceValidator.joins(joiner, view("w1")))
                .as("nothing on the node to join: an ordinary maintenance")
                .isEmpty();
        assertThat(NodeMaintenanceValidator.joins(joiner, view("w1", running("other", "w2"))))
                .isEmpty();
    }
}
