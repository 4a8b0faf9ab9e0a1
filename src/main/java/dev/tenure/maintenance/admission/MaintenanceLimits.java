package dev.tenure.maintenance.admission;

import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The operator-wide limits on nodes in maintenance at once, whichever front door asks (a NodeMaintenance's admission,
 * the node annotation door): the cluster-wide cap and the control-plane budget (etcd quorum, or a configured minimum).
 * Pure: the caller passes the nodes it read. Values from {@code tenure.maintenance.*}.
 */
public record MaintenanceLimits(OptionalInt maxNodesInMaintenance, OptionalInt controlPlaneMinAvailable) {

    static final String CONTROL_PLANE_LABEL = "node-role.kubernetes.io/control-plane";
    static final String MASTER_LABEL = "node-role.kubernetes.io/master";
    /** The setting the cap's message starts with. */
    static final String MAX_NODES_SETTING = "tenure.maintenance.max-nodes-in-maintenance";

    public static MaintenanceLimits none() {
        return new MaintenanceLimits(OptionalInt.empty(), OptionalInt.empty());
    }

    /**
     * Why {@code node} may not go into maintenance now; empty when the limits allow it. {@code inMaintenance} are the
     * other nodes in maintenance now (by any front door); {@code nodes} all Nodes (read only when {@code node} is a
     * control-plane node).
     */
    public List<String> refusals(Node node, List<Node> nodes, Set<String> inMaintenance) {
        List<String> errors = new ArrayList<>();
        String nodeName = node.getMetadata().getName();
        Set<String> others = new HashSet<>(inMaintenance);
        others.remove(nodeName);
        if (maxNodesInMaintenance.isPresent() && others.size() + 1 > maxNodesInMaintenance.getAsInt()) {
            errors.add(MAX_NODES_SETTING + ": at most "
                    + maxNodesInMaintenance.getAsInt()
                    + " node(s) may be in maintenance at once; " + others.size() + " already are: "
                    + String.join(", ", others.stream().sorted().toList()));
        }
        if (isControlPlane(node)) {
            List<String> controlPlane = nodes.stream()
                    .filter(MaintenanceLimits::isControlPlane)
                    .map(n -> n.getMetadata().getName())
                    .toList();
            int total = Math.max(controlPlane.size(), 1);
            int minAvailable = controlPlaneMinAvailable.orElse(total / 2 + 1);
            long busy = controlPlane.stream().filter(others::contains).count();
            long availableAfter = total - busy - 1;
            if (availableAfter < minAvailable) {
                errors.add(
                        "control-plane budget: node " + nodeName + " is a control-plane node; with it in maintenance "
                                + availableAfter + " of " + total + " control-plane node(s) would stay available, but "
                                + minAvailable + " must ("
                                + (controlPlaneMinAvailable.isPresent()
                                        ? "tenure.maintenance.control-plane-min-available"
                                        : "a majority, for etcd quorum")
                                + ")");
            }
        }
        return errors;
    }

    public static boolean isControlPlane(Node node) {
        Map<String, String> labels = node.getMetadata().getLabels();
        return labels != null && (labels.containsKey(CONTROL_PLANE_LABEL) || labels.containsKey(MASTER_LABEL));
    }
}
