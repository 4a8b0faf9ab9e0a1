package dev.tenure.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rows from kubernetes {@code pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go}
 * ({@code TestNodeAffinity}, same names; the node is {@code node1} with the row's labels).
 */
class NodeAffinityTest {

    private static final List<String> REFUSED = List.of(NodeAffinity.REASON);

    static NodeSelectorRequirement req(String key, String operator, String... values) {
        return new NodeSelectorRequirement(key, operator, values.length == 0 ? null : Arrays.asList(values));
    }

    static NodeSelectorTerm term(List<NodeSelectorRequirement> expressions, List<NodeSelectorRequirement> fields) {
        return new NodeSelectorTerm(expressions, fields);
    }

    static NodeSelectorTerm exprs(NodeSelectorRequirement... r) {
        return term(List.of(r), null);
    }

    private static Pod affinity(NodeSelectorTerm... terms) {
        return required(new NodeSelector(List.of(terms)));
    }

    private static Pod required(NodeSelector selector) {
        return Fixtures.pod("p")
                .editSpec()
                .withNewAffinity()
                .withNewNodeAffinity()
                .withRequiredDuringSchedulingIgnoredDuringExecution(selector)
                .endNodeAffinity()
                .endAffinity()
                .endSpec()
                .build();
    }

    private static Pod selector(Map<String, String> selector) {
        return Fixtures.pod("p").editSpec().withNodeSelector(selector).endSpec().build();
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                arguments("no selector", Fixtures.pod("p").build(), Map.of(), List.of()),
                arguments("missing labels", selector(Map.of("foo", "bar")), Map.of(), REFUSED),
                arguments("same labels", selector(Map.of("foo", "bar")), Map.of("foo", "bar"), List.of()),
                arguments(
                        "node labels are superset",
                        selector(Map.of("foo", "bar")),
                        Map.of("foo", "bar", "baz", "blah"),
                        List.of()),
                arguments(
                        "node labels are subset",
                        selector(Map.of("foo", "bar", "baz", "blah")),
                        Map.of("foo", "bar"),
                        REFUSED),
                arguments(
                        "Pod with matchExpressions using In operator that matches the existing node",
                        affinity(exprs(req("foo", "In", "bar", "value2"))),
                        Map.of("foo", "bar"),
                        List.of()),
                arguments(
                        "Pod with matchExpressions using Gt operator that matches the existing node",
                        affinity(exprs(req("kernel-version", "Gt", "0204"))),
                        Map.of("kernel-version", "0206"),
                        List.of()),
                arguments(
                        "Pod with matchExpressions using NotIn operator that explicitly forbids scheduling on node",
                        affinity(exprs(req("mem-type", "NotIn", "DDR", "DDR2"))),
                        Map.of("mem-type", "DDR3"),
                        List.of()),
                arguments(
                        "Pod with matchExpressions using Exists operator that matches the existing node",
                        affinity(exprs(req("GPU", "Exists"))),
                        Map.of("GPU", "NVIDIA-GRID-K1"),
                        List.of()),
                arguments(
                        "Pod with affinity that don't match node's labels won't schedule onto the node",
                        affinity(exprs(req("foo", "In", "value1", "value2"))),
                        Map.of("foo", "bar"),
                        REFUSED),
                arguments(
                        "Pod with a nil []NodeSelectorTerm in affinity, can't match the node's labels and won't"
                                + " schedule onto the node",
                        required(new NodeSelector(null)),
                        Map.of("foo", "bar"),
                        REFUSED),
                arguments(
                        "Pod with an empty []NodeSelectorTerm in affinity, can't match the node's labels and won't"
                                + " schedule onto the node",
                        required(new NodeSelector(List.of())),
                        Map.of("foo", "bar"),
                        REFUSED),
                arguments(
                        "Pod with empty MatchExpressions is not a valid value will match no objects and won't"
                                + " schedule onto the node",
                        affinity(term(List.of(), null)),
                        Map.of("foo", "bar"),
                        REFUSED),
                arguments(
                        "Pod with no Affinity will schedule onto a node",
                        Fixtures.pod("p").build(),
                        Map.of("foo", "bar"),
                        List.of()),
                arguments(
                        "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
                        affinity(exprs(req("GPU", "Exists"), req("GPU", "NotIn", "AMD", "INTER"))),
                        Map.of("GPU", "AMD"),
                        REFUSED),
                arguments(
                        "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will"
                                + " schedule onto the node",
                        affinity(
                                exprs(req("foo", "In", "bar", "value2")),
                                exprs(req("diffkey", "In", "wrong", "value2"))),
                        Map.of("foo", "bar"),
                        List.of()),
                arguments(
                        "Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) is"
                                + " not satisfied, won't schedule onto the node",
                        Fixtures.with(
                                affinity(exprs(req("foo", "Exists"))),
                                b -> b.editSpec()
                                        .withNodeSelector(Map.of("foo", "bar"))
                                        .endSpec()),
                        Map.of("foo", "barrrrrr"),
                        REFUSED),
                arguments(
                        "Pod with an invalid value in Affinity term won't be scheduled onto the node",
                        affinity(exprs(req("foo", "NotIn", "invalid value: ___@#$%^"))),
                        Map.of("foo", "bar"),
                        REFUSED),
                arguments(
                        "Pod with matchFields using In operator that matches the existing node",
                        affinity(term(null, List.of(req("metadata.name", "In", "node1")))),
                        Map.of(),
                        List.of()),
                arguments(
                        "Pod with matchFields using In operator that does not match the existing node",
                        affinity(term(null, List.of(req("metadata.name", "In", "node2")))),
                        Map.of(),
                        REFUSED),
                arguments(
                        "Pod with two terms: matchFields does not match, but matchExpressions matches",
                        affinity(
                                term(null, List.of(req("metadata.name", "In", "node2"))),
                                exprs(req("foo", "In", "bar"))),
                        Map.of("foo", "bar"),
                        List.of()),
                arguments(
                        "Pod with one term: matchFields does not match, but matchExpressions matches",
                        affinity(term(List.of(req("foo", "In", "bar")), List.of(req("metadata.name", "In", "node2")))),
                        Map.of("foo", "bar"),
                        REFUSED),
                arguments(
                        "Pod with one term: both matchFields and matchExpressions match",
                        affinity(term(List.of(req("foo", "In", "bar")), List.of(req("metadata.name", "In", "node1")))),
                        Map.of("foo", "bar"),
                        List.of()),
                arguments(
                        "Pod with two terms: both matchFields and matchExpressions do not match",
                        affinity(
                                term(null, List.of(req("metadata.name", "In", "node2"))),
                                exprs(req("foo", "In", "not-match-to-bar"))),
                        Map.of("foo", "bar"),
                        REFUSED),
                // Tenure's rows: a field other than metadata.name, Lt, DoesNotExist, a Gt bound that is not an integer
                arguments(
                        "matchFields on a field other than metadata.name selects nothing",
                        affinity(term(null, List.of(req("metadata.namespace", "In", "node1")))),
                        Map.of(),
                        REFUSED),
                arguments("Lt compares integers", affinity(exprs(req("gen", "Lt", "5"))), Map.of("gen", "10"), REFUSED),
                arguments(
                        "DoesNotExist refuses a node with the label",
                        affinity(exprs(req("spot", "DoesNotExist"))),
                        Map.of("spot", "true"),
                        REFUSED),
                arguments(
                        "a Gt bound that is not an integer matches nothing",
                        affinity(exprs(req("gen", "Gt", "x"))),
                        Map.of("gen", "10"),
                        REFUSED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void filter(String name, Pod pod, Map<String, String> labels, List<String> reasons) {
        Node node = Fixtures.node("node1", labels);
        assertThat(Fixtures.filter(new NodeAffinity(), pod, node)).isEqualTo(reasons);
    }
}
