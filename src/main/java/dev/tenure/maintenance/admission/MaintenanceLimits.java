package dev.tenure.maintenance.admission;

import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

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
        capHold(node.getMetadata().getName(), inMaintenance, Map.of()).ifPresent(errors::add);
        controlPlaneHold(node, nodes, inMaintenance).ifPresent(errors::add);
        return errors;
    }

    /**
     * The cap's word on {@code nodeName}: empty when a slot is free for it. {@code inMaintenance} are the nodes really
     * in maintenance now; {@code firstInLine} the nodes promised to requests ahead of it in the queue (node → the
     * NodeMaintenance), which count as if they had their slot, but are named apart: they are not in maintenance yet.
     */
    public Optional<String> capHold(String nodeName, Set<String> inMaintenance, Map<String, String> firstInLine) {
        if (maxNodesInMaintenance.isEmpty()) {
            return Optional.empty();
        }
        Set<String> already = new TreeSet<>(inMaintenance);
        already.remove(nodeName);
        Map<String, String> promised = new TreeMap<>(firstInLine);
        promised.keySet().removeAll(already);
        promised.remove(nodeName);
        int max = maxNodesInMaintenance.getAsInt();
        if (already.size() + promised.size() + 1 <= max) {
            return Optional.empty();
        }
        String message = MAX_NODES_SETTING + ": at most " + max + " node(s) may be in maintenance at once; "
                + already.size() + " already are" + (already.isEmpty() ? "" : ": " + String.join(", ", already));
        if (!promised.isEmpty()) {
            message += "; " + promised.size() + " more go to the requests ahead of it in the queue: "
                    + String.join(
                            ", ",
                            promised.entrySet().stream()
                                    .map(e -> e.getKey() + " (NodeMaintenance " + e.getValue() + ")")
                                    .toList());
        }
        return Optional.of(message);
    }

    /**
     * The control-plane budget's word on {@code node}: empty when it is no control-plane node or enough of them stay
     * available with it in maintenance. {@code busy} are the other nodes counted in maintenance; {@code nodes} all
     * Nodes. A hold of the request's own: a free slot of the cap does not lift it.
     */
    /** How a control-plane budget hold begins (the webhook's warning words it apart from a full cap). */
    public static final String CONTROL_PLANE_BUDGET = "control-plane budget";

    public Optional<String> controlPlaneHold(Node node, List<Node> nodes, Set<String> busy) {
        if (!isControlPlane(node)) {
            return Optional.empty();
        }
        String nodeName = node.getMetadata().getName();
        List<String> controlPlane = nodes.stream()
                .filter(MaintenanceLimits::isControlPlane)
                .map(n -> n.getMetadata().getName())
                .toList();
        int total = Math.max(controlPlane.size(), 1);
        int minAvailable = controlPlaneMinAvailable.orElse(total / 2 + 1);
        long others = controlPlane.stream()
                .filter(n -> !n.equals(nodeName) && busy.contains(n))
                .count();
        long availableAfter = total - others - 1;
        if (availableAfter >= minAvailable) {
            return Optional.empty();
        }
        return Optional.of(
                CONTROL_PLANE_BUDGET + ": node " + nodeName + " is a control-plane node; with it in maintenance "
                        + availableAfter + " of " + total + " control-plane node(s) would stay available, but "
                        + minAvailable + " must ("
                        + (controlPlaneMinAvailable.isPresent()
                                ? "tenure.maintenance.control-plane-min-available"
                                : "a majority, for etcd quorum")
                        + ")");
    }

    public static boolean isControlPlane(Node node) {
        Map<String, String> labels = node.getMetadata().getLabels();
        return labels != null && (labels.containsKey(CONTROL_PLANE_LABEL) || labels.containsKey(MASTER_LABEL));
    }
}
