package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One node as the scheduler's {@code NodeInfo} sees it: the Node, the pods bound to it (as {@link PlacedPod}s), and
 * what they request. A
 * node the forecast cordons (the drained node, nodes in maintenance or ahead in the queue) stays here: it is still a
 * topology domain (spread, affinity), only unschedulable, with the taint the node lifecycle controller puts on a
 * cordoned node ({@code node.kubernetes.io/unschedulable:NoSchedule}).
 */
final class PlacementNode {

    static final String UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable";

    private final Node node;
    private final Map<String, Long> allocatable;
    private final Map<String, Long> requested = new HashMap<>();
    private final List<PlacedPod> pods = new ArrayList<>();
    private boolean cordoned;

    PlacementNode(Node node) {
        this.node = Objects.requireNonNull(node, "node");
        this.allocatable =
                Resources.of(node.getStatus() == null ? null : node.getStatus().getAllocatable());
    }

    String name() {
        return node.getMetadata().getName();
    }

    Node node() {
        return node;
    }

    Map<String, String> labels() {
        Map<String, String> labels = node.getMetadata().getLabels();
        return labels == null ? Map.of() : labels;
    }

    /** Allocatable, in the scheduler's units ({@link Resources}); 0 for a resource the node does not list. */
    long allocatable(String resource) {
        return allocatable.getOrDefault(resource, 0L);
    }

    boolean hasAllocatable(String resource) {
        return allocatable.containsKey(resource);
    }

    long requested(String resource) {
        return requested.getOrDefault(resource, 0L);
    }

    List<PlacedPod> pods() {
        return Collections.unmodifiableList(pods);
    }

    boolean unschedulable() {
        return cordoned
                || (node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable()));
    }

    /** The node's taints, with the unschedulable taint of a cordoned node added when it is not there yet. */
    List<Taint> taints() {
        List<Taint> taints = new ArrayList<>(
                node.getSpec() == null
                        ? List.of()
                        : Resources.list(node.getSpec().getTaints()));
        boolean marked = taints.stream().anyMatch(t -> UNSCHEDULABLE_TAINT.equals(t.getKey()));
        if (unschedulable() && !marked) {
            taints.add(new Taint("NoSchedule", UNSCHEDULABLE_TAINT, null, null));
        }
        return taints;
    }

    void cordon() {
        cordoned = true;
    }

    void add(PlacedPod pod) {
        pods.add(pod);
        Resources.add(requested, pod.requests());
    }

    /** Removes the pod with this namespace and name; true when it was here. */
    boolean remove(String namespace, String name) {
        for (int i = 0; i < pods.size(); i++) {
            PlacedPod p = pods.get(i);
            if (Objects.equals(namespace, p.namespace()) && Objects.equals(name, p.name())) {
                pods.remove(i);
                Resources.subtract(requested, p.requests());
                return true;
            }
        }
        return false;
    }

    /** Requested cpu and memory as a fraction of allocatable, for the forecast's choice among nodes that fit. */
    double load() {
        double cpu =
                allocatable(Resources.CPU) == 0 ? 1 : (double) requested(Resources.CPU) / allocatable(Resources.CPU);
        double mem = allocatable(Resources.MEMORY) == 0
                ? 1
                : (double) requested(Resources.MEMORY) / allocatable(Resources.MEMORY);
        return cpu + mem;
    }
}
