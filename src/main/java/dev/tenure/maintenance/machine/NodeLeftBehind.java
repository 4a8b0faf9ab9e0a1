package dev.tenure.maintenance.machine;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What Tenure's maintenance left on a Node that it could not restore (another holder took the node lease: the node is
 * theirs now, and Tenure does not touch it), said exactly, with the kubectl commands an admin runs to finish the undo
 * once that holder is done. Pure: from the Node as read; the commands follow {@link NodeMarks#restorePatch}, so they
 * undo only what maintenance added (a node cordoned before it stays cordoned). docs/node-maintenance.md, "A node left
 * to another lease holder".
 */
public final class NodeLeftBehind {

    private NodeLeftBehind() {}

    /** What is left and how to finish the undo; empty when the node carries nothing of Tenure's. */
    public static Optional<String> describe(Node node) {
        String name = node.getMetadata().getName();
        Optional<NodeMarks.PriorState> prior = NodeMarks.PriorState.fromNode(node);
        Optional<NodeCondition> condition = NodeMarks.conditionOf(node);
        if (prior.isEmpty() && condition.isEmpty()) {
            return Optional.empty();
        }
        // without a record of the state before, only the drain taint is known to be ours (as restorePatch decides)
        NodeMarks.PriorState before =
                prior.orElse(new NodeMarks.PriorState(true, List.of(NodeMarks.key(NodeMarks.UNSCHEDULABLE_TAINT))));
        List<String> left = new ArrayList<>();
        List<String> commands = new ArrayList<>();
        boolean cordoned = Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        if (cordoned && !before.unschedulable()) {
            left.add("cordoned");
            commands.add("kubectl uncordon " + name);
        }
        for (Taint ours : NodeMarks.OUR_TAINTS) {
            String key = NodeMarks.key(ours);
            if (NodeMarks.has(NodeMarks.taintsOf(node), ours)
                    && !before.taints().contains(key)) {
                left.add("taint " + key);
                commands.add("kubectl taint nodes " + name + " " + key + "-");
            }
        }
        if (condition.isPresent()) {
            int index = NodeMarks.conditionsOf(node).indexOf(condition.get());
            left.add("condition " + NodeMarks.CONDITION_TYPE);
            commands.add("kubectl patch node " + name + " --subresource=status --type=json -p '[{\"op\":\"test\","
                    + "\"path\":\"/status/conditions/" + index + "/type\",\"value\":\"" + NodeMarks.CONDITION_TYPE
                    + "\"},{\"op\":\"remove\",\"path\":\"/status/conditions/" + index + "\"}]'");
        }
        if (prior.isPresent()) {
            left.add("annotation " + NodeMarks.PRIOR_STATE + " (the state before maintenance)");
            commands.add("kubectl annotate node " + name + " " + NodeMarks.PRIOR_STATE + "-");
        }
        return Optional.of("node " + name + " keeps what maintenance put on it: " + String.join(", ", left)
                + "; to finish the undo once that holder is done: " + String.join(" && ", commands));
    }
}
