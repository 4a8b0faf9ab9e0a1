package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;

/**
 * kube-scheduler's {@code NodeAffinity} ({@code plugins/nodeaffinity/node_affinity.go}): the node must carry every
 * {@code spec.nodeSelector} label and match one term of
 * {@code affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution} ({@link Selectors}).
 */
final class NodeAffinity implements FilterPlugin {

    static final String REASON = "node(s) didn't match Pod's node affinity/selector";

    @Override
    public String name() {
        return "NodeAffinity";
    }

    @Override
    public NodeFilter prepare(Pod pod, PlacementCluster cluster) {
        return node -> matches(pod, node) ? List.of() : List.of(REASON);
    }

    /** The pod's node selector and required node affinity both select this node. */
    static boolean matches(Pod pod, PlacementNode node) {
        if (pod.getSpec() == null) {
            return true;
        }
        Map<String, String> labels = node.labels();
        Map<String, String> selector = pod.getSpec().getNodeSelector();
        if (selector != null) {
            for (Map.Entry<String, String> e : selector.entrySet()) {
                if (!e.getValue().equals(labels.get(e.getKey()))) {
                    return false;
                }
            }
        }
        return Selectors.matches(required(pod), node.name(), labels);
    }

    private static NodeSelector required(Pod pod) {
        var affinity = pod.getSpec().getAffinity();
        if (affinity == null || affinity.getNodeAffinity() == null) {
            return null;
        }
        return affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
    }
}
