package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * kube-scheduler's {@code NodeResourcesFit} filter ({@code plugins/noderesources/fit.go}, {@code fitsRequest}): the
 * node must have room for one more pod ({@code Too many pods} against allocatable {@code pods}), and for each
 * resource the pod requests (cpu, memory, ephemeral-storage, extended resources; requests as {@link
 * Resources#podRequests}: init containers, sidecars, overhead) allocatable minus what the node's pods request must
 * cover it ({@code Insufficient <resource>}, one reason per short resource). A pod that requests nothing only
 * needs the pod slot.
 */
final class NodeResourcesFit implements FilterPlugin {

    static final String TOO_MANY_PODS = "Too many pods";

    @Override
    public String name() {
        return "NodeResourcesFit";
    }

    @Override
    public NodeFilter prepare(Pod pod, PlacementCluster cluster) {
        Map<String, Long> wants = new TreeMap<>(Resources.podRequests(pod));
        wants.remove(Resources.PODS);
        return node -> {
            List<String> reasons = new ArrayList<>();
            if (node.pods().size() + 1 > node.allocatable(Resources.PODS)) {
                reasons.add(TOO_MANY_PODS);
            }
            // fit.go checks cpu, memory and ephemeral-storage first, then the scalar (extended) resources
            for (String r : List.of(Resources.CPU, Resources.MEMORY, Resources.EPHEMERAL_STORAGE)) {
                check(r, wants.getOrDefault(r, 0L), node, reasons);
            }
            wants.forEach((r, amount) -> {
                if (!r.equals(Resources.CPU) && !r.equals(Resources.MEMORY) && !r.equals(Resources.EPHEMERAL_STORAGE)) {
                    check(r, amount, node, reasons);
                }
            });
            return reasons;
        };
    }

    private static void check(String resource, long wanted, PlacementNode node, List<String> reasons) {
        if (wanted > 0 && wanted > node.allocatable(resource) - node.requested(resource)) {
            reasons.add("Insufficient " + resource);
        }
    }
}
