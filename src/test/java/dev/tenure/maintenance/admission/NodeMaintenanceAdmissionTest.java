package dev.tenure.maintenance.admission;

import static dev.tenure.maintenance.admission.NodeMaintenanceValidatorTest.NODES;
import static dev.tenure.maintenance.admission.NodeMaintenanceValidatorTest.nm;
import static dev.tenure.maintenance.admission.NodeMaintenanceValidatorTest.running;
import static dev.tenure.maintenance.admission.NodeMaintenanceValidatorTest.view;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.maintenance.admission.NodeMaintenanceAdmission.Admit;
import dev.tenure.maintenance.admission.NodeMaintenanceAdmission.Decision;
import dev.tenure.maintenance.admission.NodeMaintenanceAdmission.Hold;
import dev.tenure.maintenance.admission.NodeMaintenanceAdmission.Observed;
import dev.tenure.maintenance.admission.NodeMaintenanceAdmission.Refuse;
import dev.tenure.maintenance.admission.NodeMaintenanceAdmission.Scheduled;
import dev.tenure.maintenance.admission.NodeMaintenanceAdmission.Unchanged;
import dev.tenure.maintenance.admission.NodeMaintenanceValidator.ClusterView;
import dev.tenure.maintenance.api.LeaseStatus;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceSchedule;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The NodeMaintenance door's decide step, row by row: what one reconcile does from what it observed. */
class NodeMaintenanceAdmissionTest {

    private static final String PREFIX = "node-";
    private static final String MOVED_W1_TO_W2 = "spec.nodeName: is immutable: edited to \"w2\" after the maintenance"
            + " of node w1 started; it stays on node w1 (delete this NodeMaintenance to end it, and create one for the"
            + " other node)";

    /** A NodeMaintenance of {@code node} at generation 1 whose status {@code status} edits. */
    private static NodeMaintenance resource(String node, Consumer<NodeMaintenance> status) {
        NodeMaintenance nm = nm("m", node);
        nm.getMetadata().setGeneration(1L);
        status.accept(nm);
        return nm;
    }

    private static Consumer<NodeMaintenance> failedUnadmitted(String error, long observedGeneration) {
        return nm -> {
            nm.getStatus().setPhase(Phase.Failed);
            nm.getStatus().setLastError(error);
            nm.getStatus().setObservedGeneration(observedGeneration);
        };
    }

    private static Consumer<NodeMaintenance> pinnedTo(String node) {
        return nm -> {
            nm.getStatus().setPhase(Phase.Running);
            nm.getStatus().setNodeName(node);
            nm.getStatus().setObservedGeneration(1L);
        };
    }

    private static Decision decide(NodeMaintenance nm, Optional<ClusterView> view, MaintenanceLimits limits) {
        Optional<String> pinned = NodeMaintenanceAdmission.pinnedNode(nm, PREFIX);
        MaintenanceState state = NodeMaintenanceStatuses.toState(nm.getStatus());
        assertThat(NodeMaintenanceAdmission.needsClusterView(nm, state, pinned))
                .as("the reconciler reads the cluster view exactly when the rules need it")
                .isEqualTo(view.isPresent());
        return NodeMaintenanceAdmission.decide(new Observed(nm, state, pinned, view, NOW), limits);
    }

    static final Instant NOW = Instant.parse("2026-11-26T10:00:00Z");
    /** What spec.schedule says of a maintenance without one: open now, no window to close. */
    static final Optional<MaintenanceSchedule.Verdict> OPEN =
            Optional.of(new MaintenanceSchedule.Verdict.Open(Optional.empty()));

    static Stream<Arguments> decisions() {
        MaintenanceLimits one = new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty());
        ClusterView w2ByAnnotation = new ClusterView(
                NODES.stream()
                        .filter(n -> n.getMetadata().getName().equals("w1"))
                        .findFirst(),
                NODES,
                List.of(),
                Map.of("w2", "the maintenance annotation"));
        return Stream.of(
                Arguments.of(
                        "new, spec.schedule.startAt later: Scheduled until then, the limits not asked",
                        resource("w1", nm -> nm.getSpec().setSchedule(startAt("2026-11-26T12:00:00Z"))),
                        Optional.of(w2ByAnnotation),
                        one,
                        new Scheduled(new MaintenanceSchedule.Verdict.Closed(
                                Instant.parse("2026-11-26T12:00:00Z"),
                                "spec.schedule.startAt is 2026-11-26T12:00:00Z"))),
                Arguments.of(
                        "new, spec.schedule.startAt passed, the cap reached: its time has come, so held Pending",
                        resource("w1", nm -> nm.getSpec().setSchedule(startAt("2026-11-26T09:00:00Z"))),
                        Optional.of(w2ByAnnotation),
                        one,
                        new Hold(
                                "1st in queue for max-nodes-in-maintenance=1: tenure.maintenance.max-nodes-in-maintenance:"
                                        + " at most 1 node(s) may be in maintenance at once; 1 already are: w2",
                                OPEN,
                                1)),
                Arguments.of(
                        "new, node exists: admitted, with the node as read",
                        resource("w1", nm -> {}),
                        Optional.of(view("w1")),
                        MaintenanceLimits.none(),
                        new Admit(
                                MaintenanceRequest.from(nm("m", "w1").getSpec()),
                                false,
                                view("w1").node(),
                                Optional.empty(),
                                false,
                                OPEN)),
                Arguments.of(
                        "new, no such node: refused, announced",
                        resource("w9", nm -> {}),
                        Optional.of(view("w9")),
                        MaintenanceLimits.none(),
                        new Refuse("spec.nodeName: node w9 not found", true)),
                Arguments.of(
                        "new, refused again with the error already shown: not announced again",
                        resource("w9", nm -> nm.getStatus().setLastError("spec.nodeName: node w9 not found")),
                        Optional.of(view("w9")),
                        MaintenanceLimits.none(),
                        new Refuse("spec.nodeName: node w9 not found", false)),
                Arguments.of(
                        "new, another NodeMaintenance holds the node: refused",
                        resource("w1", nm -> {}),
                        Optional.of(view("w1", running("first", "w1"))),
                        MaintenanceLimits.none(),
                        new Refuse("spec.nodeName: node w1 already has an active NodeMaintenance first", true)),
                Arguments.of(
                        "new, bad spec: refused with the field named",
                        resource("w1", nm -> nm.getSpec().setWindow("soon")),
                        Optional.of(view("w1")),
                        MaintenanceLimits.none(),
                        new Refuse(
                                "spec.window: \"soon\" is not a duration; write a non-negative Go duration such as"
                                        + " \"90s\", \"5m\" or \"1h30m\" (units ns, us, ms, s, m, h)",
                                true)),
                Arguments.of(
                        "new, the cap is reached by the other door: held Pending",
                        resource("w1", nm -> {}),
                        Optional.of(w2ByAnnotation),
                        one,
                        new Hold(
                                "1st in queue for max-nodes-in-maintenance=1: tenure.maintenance.max-nodes-in-maintenance:"
                                        + " at most 1 node(s) may be in maintenance at once; 1 already are: w2",
                                OPEN,
                                1)),
                Arguments.of(
                        "refused before, spec not edited since: nothing to do, nothing read",
                        resource("w9", failedUnadmitted("spec.nodeName: node w9 not found", 1)),
                        Optional.empty(),
                        MaintenanceLimits.none(),
                        new Unchanged()),
                Arguments.of(
                        "refused before, spec edited since: decided again, the failure retried",
                        resource("w1", failedUnadmitted("spec.nodeName: node w1 not found", 0)),
                        Optional.of(view("w1")),
                        MaintenanceLimits.none(),
                        new Admit(
                                MaintenanceRequest.from(nm("m", "w1").getSpec()),
                                true,
                                view("w1").node(),
                                Optional.empty(),
                                false,
                                OPEN)),
                Arguments.of(
                        "pinned: only the spec is read again, no cluster view, the machine reads the node",
                        resource("w1", pinnedTo("w1")),
                        Optional.empty(),
                        MaintenanceLimits.none(),
                        new Admit(
                                MaintenanceRequest.from(nm("m", "w1").getSpec()),
                                false,
                                Optional.empty(),
                                Optional.empty(),
                                false,
                                Optional.empty())),
                Arguments.of(
                        "pinned, the cap reached meanwhile: not held (limits are checked once, on admission)",
                        resource("w1", pinnedTo("w1")),
                        Optional.empty(),
                        one,
                        new Admit(
                                MaintenanceRequest.from(nm("m", "w1").getSpec()),
                                false,
                                Optional.empty(),
                                Optional.empty(),
                                false,
                                Optional.empty())),
                Arguments.of(
                        "pinned by an older status's lease name: stays on its node",
                        resource("w1", nm -> {
                            nm.getStatus().setPhase(Phase.Waiting);
                            nm.getStatus().setLease(new LeaseStatus("node-w1", "ns", "other", null, null, null));
                        }),
                        Optional.empty(),
                        MaintenanceLimits.none(),
                        new Admit(
                                MaintenanceRequest.from(nm("m", "w1").getSpec()),
                                false,
                                Optional.empty(),
                                Optional.empty(),
                                false,
                                Optional.empty())),
                Arguments.of(
                        "pinned to w1, spec.nodeName edited to w2: stays on w1, the move noted and announced",
                        resource("w2", pinnedTo("w1")),
                        Optional.empty(),
                        MaintenanceLimits.none(),
                        new Admit(
                                MaintenanceRequest.from(nm("m", "w1").getSpec()),
                                false,
                                Optional.empty(),
                                Optional.of(MOVED_W1_TO_W2),
                                true,
                                Optional.empty())),
                Arguments.of(
                        "the move already noted: not announced again",
                        resource(
                                "w2",
                                pinnedTo("w1")
                                        .andThen(
                                                nm -> nm.getStatus().setLastError(MOVED_W1_TO_W2 + "; drain blocked"))),
                        Optional.empty(),
                        MaintenanceLimits.none(),
                        new Admit(
                                MaintenanceRequest.from(nm("m", "w1").getSpec()),
                                false,
                                Optional.empty(),
                                Optional.of(MOVED_W1_TO_W2),
                                false,
                                Optional.empty())),
                Arguments.of(
                        "pinned, spec edited into a bad one: refused, the node kept",
                        resource("w1", pinnedTo("w1").andThen(nm -> nm.getSpec().setWindow("0"))),
                        Optional.empty(),
                        MaintenanceLimits.none(),
                        new Refuse("spec.window: must be more than 0 (omit it for no window)", true)),
                Arguments.of(
                        "started by a status without its node (running, no lease recorded): not admitted again",
                        resource("w1", nm -> nm.getStatus().setPhase(Phase.Running)),
                        Optional.empty(),
                        MaintenanceLimits.none(),
                        new Admit(
                                MaintenanceRequest.from(nm("m", "w1").getSpec()),
                                false,
                                Optional.empty(),
                                Optional.empty(),
                                false,
                                Optional.empty())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("decisions")
    void decides(
            String name, NodeMaintenance nm, Optional<ClusterView> view, MaintenanceLimits limits, Decision expected) {
        assertThat(decide(nm, view, limits)).isEqualTo(expected);
    }

    @Test
    void aRequestNotYetAdmittedIsNeverDecidedWithoutTheClusterView() {
        NodeMaintenance nm = resource("w1", m -> {});
        MaintenanceState state = NodeMaintenanceStatuses.toState(nm.getStatus());

        assertThatThrownBy(() -> NodeMaintenanceAdmission.decide(
                        new Observed(nm, state, Optional.empty(), Optional.empty(), NOW), MaintenanceLimits.none()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Issue 49: the door reads a queued request's Node from the shared cache (a trimmed copy that may lag); it
     * decides from it alike, but an Admit carries to the machine only a Node read whole from the API server, so the
     * machine reads it again before the lease and the cordon.
     */
    @ParameterizedTest(name = "node cached: {0}")
    @CsvSource({"false", "true"})
    void anAdmitCarriesTheNodeOnlyWhenItWasReadFromTheApiServer(boolean cached) {
        NodeMaintenance nm = resource("w1", m -> {});
        MaintenanceState state = NodeMaintenanceStatuses.toState(nm.getStatus());
        Optional<io.fabric8.kubernetes.api.model.Node> w1 = view("w1").node();
        NodeMaintenanceAdmission.ClusterReads reads =
                new NodeMaintenanceAdmission.ClusterReads(w1, cached, NODES, List.of(), Map.of());

        Decision decision = NodeMaintenanceAdmission.decide(
                nm, state, Optional.empty(), Optional.of(reads), NOW, MaintenanceLimits.none());

        assertThat(decision)
                .isEqualTo(new Admit(
                        MaintenanceRequest.from(nm("m", "w1").getSpec()),
                        false,
                        cached ? Optional.empty() : w1,
                        Optional.empty(),
                        false,
                        OPEN));
    }

    /** A cached Node decides a hold as one read from the API server does: the same place in the queue. */
    @ParameterizedTest(name = "node cached: {0}")
    @CsvSource({"false", "true"})
    void aCachedNodeDecidesAHoldAlike(boolean cached) {
        NodeMaintenance held = resource("w1", m -> {});
        NodeMaintenance running = running("other", "w2");
        NodeMaintenanceAdmission.ClusterReads reads =
                new NodeMaintenanceAdmission.ClusterReads(view("w1").node(), cached, NODES, List.of(running), Map.of());
        Decision decision = NodeMaintenanceAdmission.decide(
                held,
                NodeMaintenanceStatuses.toState(held.getStatus()),
                Optional.empty(),
                Optional.of(reads),
                NOW,
                new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty()));
        assertThat(decision).isInstanceOf(Hold.class);
        assertThat(((Hold) decision).position()).isEqualTo(1);
    }

    /** Issue 29's fair queue: the place of {@code self} and whether it may start, given who else is there. */
    private static Decision queued(NodeMaintenance self, NodeMaintenance... others) {
        List<NodeMaintenance> all = List.of(others);
        ClusterView view = new ClusterView(
                NODES.stream()
                        .filter(n -> n.getMetadata().getName().equals(NodeMaintenanceValidator.nodeOf(self)))
                        .findFirst(),
                NODES,
                NodeMaintenanceValidator.ahead(self, all));
        return decide(self, Optional.of(view), new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty()));
    }

    private static NodeMaintenance request(String name, String node, String created, Integer priority) {
        NodeMaintenance nm = nm(name, node, s -> s.setPriority(priority));
        nm.getMetadata().setCreationTimestamp(created);
        nm.getMetadata().setGeneration(1L);
        return nm;
    }

    private static NodeMaintenance pending(String name, String node, String created, Integer priority) {
        NodeMaintenance nm = request(name, node, created, priority);
        nm.getStatus().setPhase(Phase.Pending);
        return nm;
    }

    @Test
    void theQueueIsOrderedByPriorityThenCreationThenNameAndNobodyJumpsIt() {
        NodeMaintenance runningW2 = running("r", "w2");
        NodeMaintenance earlier = pending("e", "w3", "2026-01-01T00:00:00Z", null);
        NodeMaintenance self = request("m", "w1", "2026-01-02T00:00:00Z", null);

        assertThat(queued(self, runningW2, earlier))
                .as("behind the earlier one: second in the queue")
                .isInstanceOfSatisfying(Hold.class, h -> {
                    assertThat(h.position()).isEqualTo(2);
                    assertThat(h.error()).startsWith("2nd in queue for max-nodes-in-maintenance=1: ");
                });
        assertThat(queued(self, earlier))
                .as("the running one ended: the free slot is the earlier one's, not this one's")
                .isInstanceOfSatisfying(
                        Hold.class, h -> assertThat(h.position()).isEqualTo(2));
        assertThat(queued(request("m", "w1", "2026-01-02T00:00:00Z", 5), runningW2, earlier))
                .as("a higher priority goes ahead of the earlier one")
                .isInstanceOfSatisfying(
                        Hold.class, h -> assertThat(h.position()).isEqualTo(1));
        assertThat(queued(request("m", "w1", "2026-01-02T00:00:00Z", 5), earlier))
                .as("a higher priority takes the free slot")
                .isInstanceOf(Admit.class);
        assertThat(queued(
                        request("m", "w1", "2026-01-02T00:00:00Z", -1),
                        pending("e", "w3", "2026-01-03T00:00:00Z", null)))
                .as("a negative priority goes behind a later request of the default")
                .isInstanceOfSatisfying(
                        Hold.class, h -> assertThat(h.position()).isEqualTo(2));
        assertThat(queued(
                        request("a", "w1", "2026-01-01T00:00:00Z", null),
                        pending("b", "w3", "2026-01-01T00:00:00Z", null)))
                .as("created in the same second: the name decides")
                .isInstanceOf(Admit.class);
        NodeMaintenance preview = pending("e", "w3", "2026-01-01T00:00:00Z", null);
        preview.getSpec().setPreview(true);
        assertThat(queued(self, preview))
                .as("a preview takes no slot and stands in no queue")
                .isInstanceOf(Admit.class);
        NodeMaintenance scheduled = pending("e", "w3", "2026-01-01T00:00:00Z", null);
        scheduled.getStatus().setPhase(Phase.Scheduled);
        assertThat(queued(self, scheduled))
                .as("one waiting for its schedule takes no slot yet")
                .isInstanceOf(Admit.class);
    }

    /** One control-plane node and two workers: the control-plane budget (a majority of one) never admits cp1. */
    static final List<io.fabric8.kubernetes.api.model.Node> ONE_CONTROL_PLANE = List.of(
            NodeMaintenanceValidatorTest.controlPlane("cp1"),
            NodeMaintenanceValidatorTest.worker("w1"),
            NodeMaintenanceValidatorTest.worker("w2"));

    static final String CP1_NEVER = "control-plane budget: node cp1 is a control-plane node; with it in maintenance 0"
            + " of 1 control-plane node(s) would stay available, but 1 must (a majority, for etcd quorum)";

    /** {@link #queued} on the cluster {@code nodes}, with the cap at {@code cap}. */
    private static Decision queuedOn(
            List<io.fabric8.kubernetes.api.model.Node> nodes,
            int cap,
            NodeMaintenance self,
            NodeMaintenance... others) {
        ClusterView view = new ClusterView(
                nodes.stream()
                        .filter(n -> n.getMetadata().getName().equals(NodeMaintenanceValidator.nodeOf(self)))
                        .findFirst(),
                nodes,
                NodeMaintenanceValidator.ahead(self, List.of(others)));
        return decide(self, Optional.of(view), new MaintenanceLimits(OptionalInt.of(cap), OptionalInt.empty()));
    }

    /**
     * Issue 38: a priority-100 request for the only control-plane node, which its budget never admits, stood first in
     * the queue and held the only slot while no node was in maintenance; the workers waited for ever, told "1 already
     * are: cp1". A request held by a limit of its own is passed over (NVIDIA maintenance-operator's scheduler skips a
     * candidate that cannot become unavailable and tries the next), says what holds it, and holds no place.
     */
    @Test
    void aRequestItsOwnLimitHoldsIsPassedOverAndSaysWhatHoldsIt() {
        NodeMaintenance cp = pending("cp", "cp1", "2026-01-01T00:00:00Z", 100);
        NodeMaintenance w1 = request("a", "w1", "2026-01-02T00:00:00Z", null);
        NodeMaintenance w2 = request("b", "w2", "2026-01-03T00:00:00Z", null);

        assertThat(queuedOn(ONE_CONTROL_PLANE, 1, w1, cp, w2))
                .as("the slot is free and the request ahead cannot take it: the worker starts")
                .isInstanceOf(Admit.class);
        assertThat(queuedOn(ONE_CONTROL_PLANE, 1, cp, w2))
                .as("the control-plane request says its own limit, holds no place in the queue")
                .isEqualTo(
                        new NodeMaintenanceAdmission.Blocked(NodeMaintenanceAdmission.BLOCKED_NOTE + CP1_NEVER, OPEN));

        NodeMaintenance w1Running = running("a", "w1");
        assertThat(queuedOn(ONE_CONTROL_PLANE, 1, cp, w1Running))
                .as("the cap full too: what holds it is still its own limit, said the same way")
                .isEqualTo(
                        new NodeMaintenanceAdmission.Blocked(NodeMaintenanceAdmission.BLOCKED_NOTE + CP1_NEVER, OPEN));
        assertThat(queuedOn(ONE_CONTROL_PLANE, 1, w2, cp, w1Running))
                .as("behind the running worker: first in the queue, naming only the node really in maintenance")
                .isEqualTo(new Hold(
                        "1st in queue for max-nodes-in-maintenance=1: tenure.maintenance.max-nodes-in-maintenance: at"
                                + " most 1 node(s) may be in maintenance at once; 1 already are: w1",
                        OPEN,
                        1));

        NodeMaintenance w1Queued = pending("a", "w1", "2026-01-02T00:00:00Z", null);
        assertThat(queuedOn(ONE_CONTROL_PLANE, 1, w2, cp, w1Queued))
                .as("behind a request that gets the free slot first: not in maintenance, so named apart")
                .isEqualTo(new Hold(
                        "2nd in queue for max-nodes-in-maintenance=1: tenure.maintenance.max-nodes-in-maintenance: at"
                                + " most 1 node(s) may be in maintenance at once; 0 already are; 1 more go to the"
                                + " requests ahead of it in the queue: w1 (NodeMaintenance a)",
                        OPEN,
                        2));
    }

    /** With three control-plane nodes, one in maintenance: the second waits for the first, the workers do not. */
    @Test
    void aControlPlaneRequestWaitingForItsBudgetTakesNoSlotFromTheWorkers() {
        NodeMaintenance cp1Running = running("cp-a", "cp1");
        NodeMaintenance cp2 = pending("cp-b", "cp2", "2026-01-01T00:00:00Z", 100);
        NodeMaintenance w1 = request("a", "w1", "2026-01-02T00:00:00Z", null);

        assertThat(queuedOn(NODES, 2, w1, cp1Running, cp2))
                .as("cp2 is passed over while cp1 is down: the second slot is the worker's")
                .isInstanceOf(Admit.class);
        assertThat(queuedOn(NODES, 2, cp2, cp1Running))
                .as("cp2 says the budget holds it, with cp1 counted")
                .isInstanceOfSatisfying(
                        NodeMaintenanceAdmission.Blocked.class,
                        b -> assertThat(b.error())
                                .isEqualTo(NodeMaintenanceAdmission.BLOCKED_NOTE
                                        + "control-plane budget: node cp2 is a control-plane node; with it in maintenance 1"
                                        + " of 3 control-plane node(s) would stay available, but 2 must (a majority, for etcd"
                                        + " quorum)"));
        assertThat(queuedOn(NODES, 2, w1, cp2))
                .as("cp1 done: cp2 is admissible again and first in the queue; the worker takes the other slot")
                .isInstanceOf(Admit.class);
        assertThat(queuedOn(NODES, 1, w1, cp2))
                .as("with one slot, the admissible cp2 gets it first: the worker waits behind it")
                .isInstanceOfSatisfying(
                        Hold.class, h -> assertThat(h.position()).isEqualTo(2));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"1,1st", "2,2nd", "3,3rd", "4,4th", "11,11th", "12,12th", "13,13th", "21,21st", "102,102nd", "111,111th"
    })
    void queuePlacesReadAsOrdinals(int n, String ordinal) {
        assertThat(NodeMaintenanceAdmission.ordinal(n)).isEqualTo(ordinal);
    }

    private static dev.tenure.maintenance.api.ScheduleSpec startAt(String at) {
        dev.tenure.maintenance.api.ScheduleSpec spec = new dev.tenure.maintenance.api.ScheduleSpec();
        spec.setStartAt(at);
        return spec;
    }
}
