package dev.tenure.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rows from kubernetes {@code pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable_test.go}
 * ({@code TestNodeUnschedulable}), and Tenure's row for a node the forecast cordons.
 */
class NodeUnschedulableTest {

    private static final Toleration TOLERATES_CORDON =
            new Toleration("NoSchedule", PlacementNode.UNSCHEDULABLE_TAINT, "Exists", null, null);

    private static Node unschedulable(Boolean value) {
        return Fixtures.node("n1").editSpec().withUnschedulable(value).endSpec().build();
    }

    private static Pod tolerating() {
        return Fixtures.pod("p")
                .editSpec()
                .withTolerations(TOLERATES_CORDON)
                .endSpec()
                .build();
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                arguments(
                        "Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)",
                        Fixtures.pod("p").build(),
                        unschedulable(true),
                        false,
                        List.of(NodeUnschedulable.REASON)),
                arguments(
                        "Schedule pod to normal node",
                        Fixtures.pod("p").build(),
                        unschedulable(false),
                        false,
                        List.of()),
                arguments(
                        "Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)",
                        tolerating(),
                        unschedulable(true),
                        false,
                        List.of()),
                arguments(
                        "a node the forecast cordons refuses a pod",
                        Fixtures.pod("p").build(),
                        unschedulable(null),
                        true,
                        List.of(NodeUnschedulable.REASON)),
                arguments(
                        "a node the forecast cordons takes a pod that tolerates the cordon",
                        tolerating(),
                        unschedulable(null),
                        true,
                        List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void filter(String name, Pod pod, Node node, boolean cordoned, List<String> reasons) {
        PlacementCluster cluster = PlacementCluster.of(List.of(node), List.of());
        PlacementNode n = cluster.node("n1").orElseThrow();
        if (cordoned) {
            n.cordon();
        }
        assertThat(new NodeUnschedulable().prepare(pod, cluster).filter(n)).isEqualTo(reasons);
    }
}
