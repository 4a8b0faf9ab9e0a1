package dev.tenure.maintenance.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.maintenance.admission.MaintenanceLimits.NodeCount;
import dev.tenure.maintenance.admission.MaintenanceLimits.TopologyLimit;
import dev.tenure.maintenance.admission.NodeMaintenanceValidator.ClusterView;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 37's queue limits as tables: the cap as a number or a percentage of the nodes (rounded down, as NVIDIA
 * maintenance-operator's code rounds {@code maxUnavailable}), nodes unavailable for another reason counted against it
 * (cordoned, Ready False or Unknown, as NVIDIA counts them), and the per-topology cap with its domains.
 */
class MaintenanceLimitsTest {

    static final String ZONE = "topology.kubernetes.io/zone";

    static Node node(String name) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
    }

    static Node inZone(String name, String zone) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels(ZONE, zone)
                .endMetadata()
                .build();
    }

    static Node cordoned(Node n) {
        return new NodeBuilder(n)
                .editOrNewSpec()
                .withUnschedulable(true)
                .endSpec()
                .build();
    }

    static Node ready(Node n, String status) {
        return new NodeBuilder(n)
                .editOrNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus(status)
                .endCondition()
                .endStatus()
                .build();
    }

    static List<Node> workers(int n) {
        return java.util.stream.IntStream.rangeClosed(1, n)
                .mapToObj(i -> node("w" + i))
                .toList();
    }

    static MaintenanceLimits cap(String value) {
        return new MaintenanceLimits(
                Optional.of(NodeCount.parse(MaintenanceLimits.MAX_NODES_SETTING, value)),
                OptionalInt.empty(),
                Optional.empty());
    }

    static MaintenanceLimits perZone(String value) {
        return new MaintenanceLimits(
                Optional.empty(),
                OptionalInt.empty(),
                Optional.of(new TopologyLimit(ZONE, NodeCount.parse(MaintenanceLimits.PER_TOPOLOGY_SETTING, value))));
    }

    // --- the setting ---

    static Stream<Arguments> settings() {
        return Stream.of(
                Arguments.of("a number", "2", new NodeCount(2, false)),
                Arguments.of("zero: no node at all", "0", new NodeCount(0, false)),
                Arguments.of("a percentage", "25%", new NodeCount(25, true)),
                Arguments.of("the whole cluster", "100%", new NodeCount(100, true)),
                Arguments.of("blanks around it", " 3 ", new NodeCount(3, false)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("settings")
    void readsANumberOrAPercentage(String name, String raw, NodeCount expected) {
        assertThat(NodeCount.parse(MaintenanceLimits.MAX_NODES_SETTING, raw)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "''{0}'' is refused naming the property")
    @org.junit.jupiter.params.provider.ValueSource(
            strings = {"abc", "-1", "101%", "2.5", "", "%", "25 %", "1e3", "9999999999"})
    void refusesAnythingElseNamingTheProperty(String raw) {
        assertThatThrownBy(() -> NodeCount.parse(MaintenanceLimits.MAX_NODES_SETTING, raw))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tenure.maintenance.max-nodes-in-maintenance: must be a whole number of nodes >= 0"
                        + " (e.g. 2) or a percentage of the nodes from 0% to 100% (e.g. 25%), was '" + raw + "'");
    }

    static Stream<Arguments> rounding() {
        return Stream.of(
                Arguments.of("25% of 8", "25%", 8, 2),
                Arguments.of("25% of 3 rounds down to none", "25%", 3, 0),
                Arguments.of("50% of 5 rounds down", "50%", 5, 2),
                Arguments.of("33% of 10", "33%", 10, 3),
                Arguments.of("10% of 19 rounds down", "10%", 19, 1),
                Arguments.of("100% of 7", "100%", 7, 7),
                Arguments.of("0% of 7", "0%", 7, 0),
                Arguments.of("a number is the number whatever the total", "2", 100, 2));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rounding")
    void aPercentageIsOfTheNodesRoundedDown(String name, String raw, int total, int expected) {
        assertThat(NodeCount.parse(MaintenanceLimits.MAX_NODES_SETTING, raw).resolve(total))
                .isEqualTo(expected);
    }

    // --- the cap ---

    /** The cap's word on w1, with the cluster {@code nodes}, {@code inMaintenance}; empty: admitted. */
    static Stream<Arguments> caps() {
        List<Node> eight = workers(8);
        return Stream.of(
                Arguments.of("25% of 8: a 2nd node may go", cap("25%"), eight, Set.of("w2"), Optional.empty()),
                Arguments.of(
                        "25% of 8: not a 3rd",
                        cap("25%"),
                        eight,
                        Set.of("w2", "w3"),
                        Optional.of("tenure.maintenance.max-nodes-in-maintenance: at most 2 node(s) (25% of 8, rounded"
                                + " down) may be in maintenance at once; 2 already are: w2, w3")),
                Arguments.of(
                        "25% of 3 is none",
                        cap("25%"),
                        workers(3),
                        Set.of(),
                        Optional.of("tenure.maintenance.max-nodes-in-maintenance: at most 0 node(s) (25% of 3, rounded"
                                + " down) may be in maintenance at once; 0 already are")),
                Arguments.of(
                        "a node cordoned by someone else counts",
                        cap("2"),
                        List.of(node("w1"), node("w2"), cordoned(node("w3")), node("w4")),
                        Set.of("w2"),
                        Optional.of("tenure.maintenance.max-nodes-in-maintenance: at most 2 node(s) may be in"
                                + " maintenance at once; 1 already are: w2; 1 more unavailable for another reason"
                                + " count against it: w3 (cordoned)")),
                Arguments.of(
                        "a NotReady node counts",
                        cap("1"),
                        List.of(node("w1"), ready(node("w2"), "False")),
                        Set.of(),
                        Optional.of("tenure.maintenance.max-nodes-in-maintenance: at most 1 node(s) may be in"
                                + " maintenance at once; 0 already are; 1 more unavailable for another reason count"
                                + " against it: w2 (NotReady)")),
                Arguments.of(
                        "a Ready Unknown node counts",
                        cap("1"),
                        List.of(node("w1"), ready(node("w2"), "Unknown")),
                        Set.of(),
                        Optional.of("tenure.maintenance.max-nodes-in-maintenance: at most 1 node(s) may be in"
                                + " maintenance at once; 0 already are; 1 more unavailable for another reason count"
                                + " against it: w2 (Ready Unknown)")),
                Arguments.of(
                        "a Ready node and one without a Ready condition are available",
                        cap("1"),
                        List.of(node("w1"), ready(node("w2"), "True"), node("w3")),
                        Set.of(),
                        Optional.empty()),
                Arguments.of(
                        "a node in maintenance (and so cordoned) counts once",
                        cap("2"),
                        List.of(node("w1"), cordoned(node("w2")), node("w3")),
                        Set.of("w2"),
                        Optional.empty()),
                Arguments.of(
                        "the node itself cordoned or NotReady takes only its own slot",
                        cap("1"),
                        List.of(ready(cordoned(node("w1")), "False"), node("w2")),
                        Set.of(),
                        Optional.empty()),
                Arguments.of(
                        "50% of 4: one in maintenance and one NotReady fill it",
                        cap("50%"),
                        List.of(node("w1"), node("w2"), ready(node("w3"), "False"), node("w4")),
                        Set.of("w2"),
                        Optional.of("tenure.maintenance.max-nodes-in-maintenance: at most 2 node(s) (50% of 4, rounded"
                                + " down) may be in maintenance at once; 1 already are: w2; 1 more unavailable for"
                                + " another reason count against it: w3 (NotReady)")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("caps")
    void theCapCountsMaintenancesAndUnavailableNodes(
            String name, MaintenanceLimits limits, List<Node> nodes, Set<String> inMaintenance, Optional<String> hold) {
        assertThat(limits.capHold("w1", nodes, inMaintenance, Map.of())).isEqualTo(hold);
        Node w1 = nodes.stream()
                .filter(n -> n.getMetadata().getName().equals("w1"))
                .findFirst()
                .orElseThrow();
        assertThat(limits.refusals(w1, nodes, inMaintenance))
                .as("the annotation door asks the same")
                .isEqualTo(hold.stream().toList());
    }

    // --- the per-topology cap ---

    static final List<Node> ZONES = List.of(
            inZone("a1", "eu-1a"),
            inZone("a2", "eu-1a"),
            inZone("a3", "eu-1a"),
            inZone("a4", "eu-1a"),
            inZone("b1", "eu-1b"),
            inZone("b2", "eu-1b"),
            node("x1"),
            node("x2"));

    static Stream<Arguments> topologies() {
        return Stream.of(
                Arguments.of("the first of a zone goes", perZone("1"), "a2", ZONES, Set.of("b1"), Optional.empty()),
                Arguments.of(
                        "not a second of the same zone",
                        perZone("1"),
                        "a2",
                        ZONES,
                        Set.of("a1"),
                        Optional.of("tenure.maintenance.max-nodes-in-maintenance-per-topology: at most 1 node(s) per"
                                + " topology.kubernetes.io/zone may be in maintenance at once; 1 of 1 in"
                                + " topology.kubernetes.io/zone=eu-1a already are: a1 (in maintenance)")),
                Arguments.of("another zone is not held", perZone("1"), "b1", ZONES, Set.of("a1"), Optional.empty()),
                Arguments.of(
                        "a node without the label is in no domain",
                        perZone("1"),
                        "x1",
                        ZONES,
                        Set.of("x2", "a1", "b1"),
                        Optional.empty()),
                Arguments.of(
                        "a cordoned node of the zone counts",
                        perZone("1"),
                        "a2",
                        List.of(inZone("a2", "eu-1a"), cordoned(inZone("a3", "eu-1a")), inZone("b1", "eu-1b")),
                        Set.of(),
                        Optional.of("tenure.maintenance.max-nodes-in-maintenance-per-topology: at most 1 node(s) per"
                                + " topology.kubernetes.io/zone may be in maintenance at once; 1 of 1 in"
                                + " topology.kubernetes.io/zone=eu-1a already are: a3 (cordoned)")),
                Arguments.of(
                        "a NotReady node of another zone does not",
                        perZone("1"),
                        "a2",
                        List.of(inZone("a2", "eu-1a"), ready(inZone("b1", "eu-1b"), "False")),
                        Set.of(),
                        Optional.empty()),
                Arguments.of("50% of a zone of 4: a 2nd", perZone("50%"), "a2", ZONES, Set.of("a1"), Optional.empty()),
                Arguments.of(
                        "50% of a zone of 4: not a 3rd",
                        perZone("50%"),
                        "a3",
                        ZONES,
                        Set.of("a1", "a2"),
                        Optional.of("tenure.maintenance.max-nodes-in-maintenance-per-topology: at most 2 node(s) (50%"
                                + " of 4, rounded down) per topology.kubernetes.io/zone may be in maintenance at once;"
                                + " 2 of 2 in topology.kubernetes.io/zone=eu-1a already are: a1 (in maintenance), a2"
                                + " (in maintenance)")),
                Arguments.of(
                        "no per-topology cap: nothing",
                        MaintenanceLimits.none(),
                        "a2",
                        ZONES,
                        Set.of("a1"),
                        Optional.empty()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("topologies")
    void thePerTopologyCapCountsItsDomainOnly(
            String name,
            MaintenanceLimits limits,
            String nodeName,
            List<Node> nodes,
            Set<String> busy,
            Optional<String> hold) {
        Node n = nodes.stream()
                .filter(x -> x.getMetadata().getName().equals(nodeName))
                .findFirst()
                .orElseThrow();
        assertThat(limits.topologyHold(n, nodes, busy, Map.of())).isEqualTo(hold);
    }

    @Test
    void aTopologyKeyMustNameALabel() {
        assertThatThrownBy(() -> new TopologyLimit(" ", NodeCount.nodes(1)))
                .hasMessage("tenure.maintenance.topology-key: must name a node label, was ' '");
    }

    // --- the queue: the first admissible request in the queue's order ---

    static NodeMaintenance request(String name, String node, int minute, Phase phase) {
        NodeMaintenance nm = new NodeMaintenance(name, new NodeMaintenanceSpec(node, "test"));
        nm.getMetadata().setCreationTimestamp("2026-01-01T00:%02d:00Z".formatted(minute));
        if (phase != null) {
            nm.getStatus().setPhase(phase);
        }
        return nm;
    }

    static NodeMaintenanceValidator.Verdict review(
            NodeMaintenance self, MaintenanceLimits limits, NodeMaintenance... all) {
        List<NodeMaintenance> ahead = NodeMaintenanceValidator.ahead(self, List.of(all));
        Optional<Node> node = ZONES.stream()
                .filter(n -> n.getMetadata().getName().equals(self.getSpec().getNodeName()))
                .findFirst();
        return NodeMaintenanceValidator.review(self, null, new ClusterView(node, ZONES, ahead), limits);
    }

    static final MaintenanceLimits TWO_AND_ONE_PER_ZONE = new MaintenanceLimits(
            Optional.of(NodeCount.nodes(2)),
            OptionalInt.empty(),
            Optional.of(new TopologyLimit(ZONE, NodeCount.nodes(1))));

    @Test
    void aRequestHeldByItsZoneDoesNotHoldALaterOneOfAnotherZone() {
        NodeMaintenance a1 = request("a1-job", "a1", 0, Phase.Running);
        NodeMaintenance a2 = request("a2-job", "a2", 1, Phase.Pending);
        NodeMaintenance b1 = request("b1-job", "b1", 2, null);

        NodeMaintenanceValidator.Verdict first = review(a2, TWO_AND_ONE_PER_ZONE, a1, a2, b1);
        assertThat(first.ownHolds())
                .as("a2, first in the queue, waits for its zone")
                .singleElement()
                .asString()
                .startsWith("tenure.maintenance.max-nodes-in-maintenance-per-topology: ")
                .contains("1 of 1 in topology.kubernetes.io/zone=eu-1a already are: a1 (in maintenance)");

        NodeMaintenanceValidator.Verdict later = review(b1, TWO_AND_ONE_PER_ZONE, a1, a2, b1);
        assertThat(later.holds())
                .as("b1, behind a2, takes the free slot: a2 is passed over")
                .isEmpty();
        assertThat(NodeMaintenanceValidator.QueueAhead.of(
                                new ClusterView(
                                        Optional.of(ZONES.get(4)),
                                        ZONES,
                                        NodeMaintenanceValidator.ahead(b1, List.of(a1, a2, b1))),
                                TWO_AND_ONE_PER_ZONE)
                        .passedOver())
                .containsExactly("a2-job");
    }

    @Test
    void aZonesNextSlotGoesToTheFirstOfItInTheQueue() {
        // a1's maintenance ended: a2 and a3 both wait for zone eu-1a, a2 first
        NodeMaintenance a2 = request("a2-job", "a2", 1, Phase.Pending);
        NodeMaintenance a3 = request("a3-job", "a3", 2, null);

        assertThat(review(a2, TWO_AND_ONE_PER_ZONE, a2, a3).holds()).isEmpty();
        assertThat(review(a3, TWO_AND_ONE_PER_ZONE, a2, a3).ownHolds())
                .singleElement()
                .asString()
                .contains(
                        "1 of 1 in topology.kubernetes.io/zone=eu-1a already are: a2 (NodeMaintenance a2-job, ahead in"
                                + " the queue)");
    }

    @Test
    void aRequestAdmissibleByItsZoneKeepsItsPlaceForTheCap() {
        // the cap of 2 is full (a1, b1); x1 (no zone) and b2 wait; x1 is first: b2 is held by its zone, and x1
        // would be held by the cap only, so when a slot frees it is x1's
        NodeMaintenance a1 = request("a1-job", "a1", 0, Phase.Running);
        NodeMaintenance b1 = request("b1-job", "b1", 0, Phase.Running);
        NodeMaintenance x1 = request("x1-job", "x1", 1, Phase.Pending);
        NodeMaintenance x2 = request("x2-job", "x2", 2, null);

        NodeMaintenanceValidator.Verdict first = review(x1, TWO_AND_ONE_PER_ZONE, a1, b1, x1, x2);
        assertThat(first.holds())
                .singleElement()
                .asString()
                .startsWith("tenure.maintenance.max-nodes-in-maintenance: ");
        assertThat(first.ownHolds()).isEmpty();
        assertThat(NodeMaintenanceValidator.queuePosition(
                        new ClusterView(
                                Optional.of(ZONES.get(7)),
                                ZONES,
                                NodeMaintenanceValidator.ahead(x2, List.of(a1, b1, x1, x2))),
                        TWO_AND_ONE_PER_ZONE))
                .as("x2 is 2nd, behind x1")
                .isEqualTo(2);
    }

    @Test
    void aRequestAdmittedWhoseFirstStepFailedKeepsItsSlotForTheRequestsAheadOfIt() {
        // x1 and x2 were admitted (cap 2) before a1 (higher priority, created later) was seen; their first step
        // failed (the node lease's create answered 500): Pending again, pinned to their nodes, retried without a
        // second look at the limits. a1, ahead of both in the queue, must still find the cap full.
        NodeMaintenance x1 = request("x1-job", "x1", 0, Phase.Pending);
        x1.getStatus().setNodeName("x1");
        x1.getStatus().setLastError("taking lease tenure-system/node-x1: HTTP 500");
        NodeMaintenance x2 = request("x2-job", "x2", 1, Phase.Pending);
        x2.getStatus().setNodeName("x2");
        NodeMaintenance a1 = request("a1-job", "a1", 2, null);
        a1.getSpec().setPriority(10);

        assertThat(review(a1, TWO_AND_ONE_PER_ZONE, x1, x2, a1).holds())
                .as("two admitted requests behind it in the queue: the cap of 2 is full")
                .singleElement()
                .asString()
                .startsWith("tenure.maintenance.max-nodes-in-maintenance: ");

        NodeMaintenance queued = request("x2-job", "x2", 1, Phase.Pending); // never admitted: no nodeName
        assertThat(review(a1, TWO_AND_ONE_PER_ZONE, x1, queued, a1).holds())
                .as("a request only queued behind it takes no slot from it")
                .isEmpty();
    }
}
