package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;

/**
 * kube-scheduler's {@code NodeUnschedulable} ({@code plugins/nodeunschedulable/node_unschedulable.go}): a node with
 * {@code spec.unschedulable} takes no pod unless the pod tolerates {@code node.kubernetes.io/unschedulable:NoSchedule}.
 */
final class NodeUnschedulable implements FilterPlugin {

    static final String REASON = "node(s) were unschedulable";

    private static final Taint CORDON = new Taint("NoSchedule", PlacementNode.UNSCHEDULABLE_TAINT, null, null);

    @Override
    public String name() {
        return "NodeUnschedulable";
    }

    @Override
    public NodeFilter prepare(Pod pod, PlacementCluster cluster) {
        boolean tolerates = TaintToleration.tolerates(pod, CORDON);
        return node -> node.unschedulable() && !tolerates ? List.of(REASON) : List.of();
    }
}
