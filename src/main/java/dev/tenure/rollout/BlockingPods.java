package dev.tenure.rollout;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Kured's {@code --blocking-pod-selector}, read per node as Kured reads it ({@code pkg/blockers/kubernetespod.go},
 * {@code KubernetesBlockingChecker.IsBlocked}: the pods of the selector with field selector
 * {@code spec.nodeName=<node>,status.phase!=Succeeded,status.phase!=Failed,status.phase!=Unknown}, in every
 * namespace). A pod blocks the node it is bound to only, not every node; a Pending pod bound to the node blocks it, an
 * unscheduled one blocks none. Pure: the reconciler lists the pods by the selector, and a failed list fails the
 * reconcile, so nothing starts (Kured blocks on a list error too).
 */
final class BlockingPods {

    /** The phases Kured's field selector leaves out: a pod in them no longer blocks. */
    static final Set<String> ENDED = Set.of("Succeeded", "Failed", "Unknown");

    private BlockingPods() {}

    /** Each node with a blocking pod, and why (the first such pod named). */
    static Map<String, String> byNode(List<Pod> matching) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Pod pod : matching) {
            String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
            String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
            boolean ended = phase != null && ENDED.contains(phase);
            if (node != null && !node.isEmpty() && !ended) {
                out.putIfAbsent(
                        node,
                        "blocking pod " + pod.getMetadata().getNamespace() + "/"
                                + pod.getMetadata().getName() + " runs on it");
            }
        }
        return out;
    }
}
