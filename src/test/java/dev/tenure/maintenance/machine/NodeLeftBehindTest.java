package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a node left to another lease holder still carries of Tenure's maintenance, and the undo an admin runs: only
 * what maintenance added, as {@link NodeMarks#restorePatch} would undo it (issue 38, item 4).
 */
class NodeLeftBehindTest {

    /** The node after Tenure's marks on {@code before}: cordon, taints, condition, record of the state before. */
    static Node marked(Node before) throws Exception {
        Node cordoned = NodeMarksTest.apply(before, NodeMarks.markPatch(before));
        return NodeMarksTest.apply(
                cordoned, NodeMarks.conditionPatch(cordoned, "NodeMaintenance", "upgrade", NodeMarksTest.NOW));
    }

    static Stream<Arguments> undos() throws Exception {
        return Stream.of(
                Arguments.of(
                        "a schedulable node: uncordon, both taints, condition, record",
                        marked(NodeMarksTest.node(false)),
                        List.of(
                                "kubectl uncordon n1",
                                "kubectl taint nodes n1 node.kubernetes.io/unschedulable:NoSchedule-",
                                "kubectl taint nodes n1 tenure.dev/drain:NoSchedule-",
                                "/status/conditions/2",
                                "kubectl annotate node n1 tenure.dev/prior-state-"),
                        List.of()),
                Arguments.of(
                        "cordoned by an admin before: stays cordoned, its unschedulable taint stays",
                        marked(NodeMarksTest.node(
                                true, NodeMarksTest.taint("node.kubernetes.io/unschedulable", "NoSchedule"))),
                        List.of("kubectl taint nodes n1 tenure.dev/drain:NoSchedule-", "kubectl annotate node n1"),
                        List.of("kubectl uncordon", "node.kubernetes.io/unschedulable:NoSchedule-")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("undos")
    void saysWhatIsLeftAndTheUndoOfOnlyWhatMaintenanceAdded(
            String name, Node node, List<String> says, List<String> neverSays) {
        String left = NodeLeftBehind.describe(node).orElseThrow();
        assertThat(left).contains(says);
        neverSays.forEach(never -> assertThat(left).doesNotContain(never));
    }

    @Test
    void aNodeWithNothingOfOursHasNothingToSay() {
        assertThat(NodeLeftBehind.describe(NodeMarksTest.node(true))).isEmpty();
    }
}
