package dev.tenure.placement;

import static dev.tenure.placement.Fixtures.on;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rows from kubernetes {@code pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go}
 * ({@code TestSingleConstraint}: its nodes node-a, node-b in zone1 and node-x, node-y in zone2, pods labelled
 * {@code foo}, names kept), then Tenure's rows for the inclusion policies' defaults.
 */
class PodTopologySpreadTest {

    private static final String ZONE = "zone";
    private static final String HOST = "kubernetes.io/hostname";
    private static final List<String> OK = List.of();
    private static final List<String> SKEW = List.of(PodTopologySpread.REASON);

    static TopologySpreadConstraintBuilder spread(int maxSkew, String key) {
        return new TopologySpreadConstraintBuilder()
                .withMaxSkew(maxSkew)
                .withTopologyKey(key)
                .withWhenUnsatisfiable("DoNotSchedule")
                .withLabelSelector(new LabelSelectorBuilder()
                        .addNewMatchExpression()
                        .withKey("foo")
                        .withOperator("Exists")
                        .endMatchExpression()
                        .build());
    }

    static Pod incoming(Map<String, String> labels, TopologySpreadConstraint... constraints) {
        return Fixtures.pod("p")
                .editMetadata()
                .withLabels(labels)
                .endMetadata()
                .editSpec()
                .withTopologySpreadConstraints(constraints)
                .endSpec()
                .build();
    }

    static final Map<String, String> FOO = Map.of("foo", "");

    /** Existing pods labelled foo: how many on node-a, node-b, node-x, node-y. */
    static List<Pod> spreadAs(int a, int b, int x, int y) {
        List<Pod> pods = new ArrayList<>();
        int[] counts = {a, b, x, y};
        String[] nodes = {"node-a", "node-b", "node-x", "node-y"};
        for (int n = 0; n < 4; n++) {
            for (int i = 0; i < counts[n]; i++) {
                pods.add(on(
                        Fixtures.pod("p-" + nodes[n] + i)
                                .editMetadata()
                                .withLabels(FOO)
                                .endMetadata()
                                .build(),
                        nodes[n]));
            }
        }
        return pods;
    }

    static List<Node> nodes() {
        return List.of(
                Fixtures.node("node-a", Map.of(ZONE, "zone1")),
                Fixtures.node("node-b", Map.of(ZONE, "zone1")),
                Fixtures.node("node-x", Map.of(ZONE, "zone2")),
                Fixtures.node("node-y", Map.of(ZONE, "zone2")));
    }

    /** Row: name, incoming pod, existing pods, then the expected reasons on node-a, node-b, node-x, node-y. */
    static Stream<Arguments> rows() {
        Pod zoneSkew1 = incoming(FOO, spread(1, ZONE).build());
        Pod hostSkew1 = incoming(FOO, spread(1, HOST).build());
        return Stream.of(
                arguments("no existing pods", zoneSkew1, List.of(), List.of(OK, OK, OK, OK)),
                arguments(
                        "no existing pods, incoming pod doesn't match itself",
                        incoming(Map.of(), spread(1, ZONE).build()),
                        spreadAs(1, 0, 0, 0),
                        List.of(OK, OK, OK, OK)),
                arguments(
                        "existing pods in a different namespace do not count",
                        zoneSkew1,
                        spreadAs(0, 0, 1, 1).stream()
                                .map(p -> new PodBuilder(p)
                                        .editMetadata()
                                        .withNamespace("ns2")
                                        .endMetadata()
                                        .build())
                                .toList(),
                        List.of(OK, OK, OK, OK)),
                arguments(
                        "pods spread across zones as 3/3, all nodes fit",
                        zoneSkew1,
                        spreadAs(2, 1, 1, 2),
                        List.of(OK, OK, OK, OK)),
                arguments(
                        "pods spread across zones as 1/2, only zone1 fits",
                        zoneSkew1,
                        spreadAs(1, 0, 1, 1),
                        List.of(OK, OK, SKEW, SKEW)),
                arguments(
                        "pods spread across nodes as 2/1/0/3, only node-x fits",
                        hostSkew1,
                        spreadAs(2, 1, 0, 3),
                        List.of(SKEW, SKEW, OK, SKEW)),
                arguments(
                        "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
                        incoming(FOO, spread(2, HOST).build()),
                        spreadAs(2, 1, 0, 3),
                        List.of(SKEW, OK, OK, SKEW)),
                arguments(
                        "pod cannot be scheduled as all nodes don't have label 'rack'",
                        incoming(FOO, spread(1, "rack").build()),
                        List.of(),
                        List.of(
                                List.of(PodTopologySpread.MISSING_LABEL), List.of(PodTopologySpread.MISSING_LABEL),
                                List.of(PodTopologySpread.MISSING_LABEL), List.of(PodTopologySpread.MISSING_LABEL))),
                arguments(
                        "pods spread across zones as 1/1, minDomains 3: the global minimum is 0, no node fits",
                        incoming(FOO, spread(1, ZONE).withMinDomains(3).build()),
                        spreadAs(1, 0, 1, 0),
                        List.of(SKEW, SKEW, SKEW, SKEW)),
                arguments(
                        "pods spread across zones as 1/1, minDomains 2: every node fits",
                        incoming(FOO, spread(1, ZONE).withMinDomains(2).build()),
                        spreadAs(1, 0, 1, 0),
                        List.of(OK, OK, OK, OK)),
                arguments(
                        "terminating pods are not counted",
                        zoneSkew1,
                        spreadAs(2, 0, 0, 0).stream()
                                .map(p -> new PodBuilder(p)
                                        .editMetadata()
                                        .withDeletionTimestamp("2026-01-01T00:00:00Z")
                                        .endMetadata()
                                        .build())
                                .toList(),
                        List.of(OK, OK, OK, OK)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void filter(String name, Pod pod, List<Pod> existing, List<List<String>> reasons) {
        List<List<String>> got = new ArrayList<>();
        for (String n : List.of("node-a", "node-b", "node-x", "node-y")) {
            got.add(Fixtures.filter(new PodTopologySpread(), pod, n, nodes(), existing));
        }
        assertThat(got).isEqualTo(reasons);
    }

    /**
     * nodeAffinityPolicy (default Honor) and nodeTaintsPolicy (default Ignore), from filtering_test.go's
     * "NodeAffinityPolicy honored/ignored" and "NodeTaintsPolicy honored/ignored" rows: zone1 holds one pod, zone2
     * none; zone2's nodes are excluded by the pod's node affinity or by a taint it does not tolerate.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void inclusionPolicies(
            String name, TopologySpreadConstraint constraint, boolean excludeByAffinity, List<String> onA) {
        List<Node> nodes = new ArrayList<>(nodes().subList(0, 2));
        for (String n : List.of("node-x", "node-y")) {
            Node node = Fixtures.node(n, Map.of(ZONE, "zone2"));
            if (!excludeByAffinity) {
                node = new io.fabric8.kubernetes.api.model.NodeBuilder(node)
                        .editSpec()
                        .withTaints(Fixtures.taint("dedicated", "x", "NoSchedule"))
                        .endSpec()
                        .build();
            }
            nodes.add(node);
        }
        Pod pod = incoming(FOO, constraint);
        if (excludeByAffinity) {
            pod = Fixtures.with(
                    pod,
                    b -> b.editSpec().withNodeSelector(Map.of(ZONE, "zone1")).endSpec());
        }
        assertThat(Fixtures.filter(new PodTopologySpread(), pod, "node-a", nodes, spreadAs(1, 0, 0, 0)))
                .isEqualTo(onA);
    }

    static Stream<Arguments> policies() {
        return Stream.of(
                arguments(
                        "NodeAffinityPolicy honored by default", spread(1, ZONE).build(), true, OK),
                arguments(
                        "NodeAffinityPolicy ignored",
                        spread(1, ZONE).withNodeAffinityPolicy("Ignore").build(),
                        true,
                        SKEW),
                arguments("NodeTaintsPolicy ignored by default", spread(1, ZONE).build(), false, SKEW),
                arguments(
                        "NodeTaintsPolicy honored",
                        spread(1, ZONE).withNodeTaintsPolicy("Honor").build(),
                        false,
                        OK));
    }
}
