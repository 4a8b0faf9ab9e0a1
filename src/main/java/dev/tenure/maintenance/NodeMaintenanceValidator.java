package dev.tenure.maintenance;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The admission rules for NodeMaintenance, used by the validating webhook and, for clusters without
 * it, by the reconciler (a refused request ends in phase Failed with the message). Pure: the caller
 * passes what it read.
 */
public final class NodeMaintenanceValidator {

    static final String CONTROL_PLANE_LABEL = "node-role.kubernetes.io/control-plane";
    static final String MASTER_LABEL = "node-role.kubernetes.io/master";

    /** Operator-wide limits (from {@code tenure.maintenance.*}). */
    public record Limits(OptionalInt maxNodesInMaintenance, OptionalInt controlPlaneMinAvailable) {
        public static Limits none() {
            return new Limits(OptionalInt.empty(), OptionalInt.empty());
        }
    }

    /**
     * What the rules look at.
     *
     * @param node the Node named by the request, empty when it does not exist
     * @param nodes all Nodes (for the control-plane budget)
     * @param ahead the other NodeMaintenances that hold or are entitled to their node before this one
     * @param maintainedElsewhere nodes in maintenance by other front doors of the machine (e.g. the node
     *        annotation protocol): node name → what holds it, for the messages
     */
    public record ClusterView(
            Optional<Node> node,
            List<Node> nodes,
            List<NodeMaintenance> ahead,
            Map<String, String> maintainedElsewhere) {
        public ClusterView {
            maintainedElsewhere = Map.copyOf(maintainedElsewhere);
        }

        public ClusterView(Optional<Node> node, List<Node> nodes, List<NodeMaintenance> ahead) {
            this(node, nodes, ahead, Map.of());
        }
    }

    private NodeMaintenanceValidator() {}

    /**
     * The reasons to refuse {@code candidate} ({@code old} is its previous version on update, else null);
     * empty when it is acceptable. Each message starts with the field or rule it is about.
     */
    public static List<String> validate(
            NodeMaintenance candidate, NodeMaintenance old, ClusterView view, Limits limits) {
        List<String> errors = refusals(candidate, old, view);
        // A scheduled one takes its budget slot when its time comes: the reconciler holds it Pending then if need be.
        boolean scheduled = candidate.getSpec() != null && candidate.getSpec().getSchedule() != null;
        if (errors.isEmpty() && old == null && !scheduled) {
            Set<String> inMaintenance = new HashSet<>(view.maintainedElsewhere().keySet());
            view.ahead().stream().filter(nm -> !waitsForItsSchedule(nm)).forEach(nm -> inMaintenance.add(nodeOf(nm)));
            errors.addAll(budget(view.node().get(), view.nodes(), inMaintenance, limits));
        }
        return errors;
    }

    /**
     * The reasons that refuse {@code candidate} for good (the spec, the node, a NodeMaintenance ahead of it on
     * the node), without the operator-wide limits, which change as other maintenances end. A node in maintenance
     * by another front door (the annotation) is no reason here: the later request waits for the node's lease
     * (phase Waiting), whichever door it came by.
     */
    public static List<String> refusals(NodeMaintenance candidate, NodeMaintenance old, ClusterView view) {
        List<String> errors = new ArrayList<>();
        NodeMaintenanceSpec spec = candidate.getSpec();
        if (spec == null) {
            errors.add("spec: required (with spec.nodeName)");
            return errors;
        }
        if (spec.getNodeName() == null || spec.getNodeName().isBlank()) {
            errors.add("spec.nodeName: required");
            return errors;
        }
        try {
            MaintenanceRequest.from(spec);
        } catch (IllegalArgumentException e) {
            errors.add(e.getMessage());
            return errors;
        }
        String nodeName = spec.getNodeName();
        if (old != null
                && old.getSpec() != null
                && old.getSpec().getNodeName() != null
                && !old.getSpec().getNodeName().equals(nodeName)) {
            errors.add("spec.nodeName: is immutable (was " + old.getSpec().getNodeName() + ", now " + nodeName + ")");
            return errors;
        }
        if (old != null) {
            return errors; // node, uniqueness and budgets were checked when it was admitted
        }
        if (view.node().isEmpty()) {
            errors.add("spec.nodeName: node " + nodeName + " not found");
            return errors;
        }
        List<NodeMaintenance> sameNode =
                view.ahead().stream().filter(nm -> nodeName.equals(nodeOf(nm))).toList();
        if (!sameNode.isEmpty()) {
            errors.add("spec.nodeName: node " + nodeName + " already has an active NodeMaintenance "
                    + sameNode.get(0).getMetadata().getName());
        }
        return errors;
    }

    /**
     * The node a NodeMaintenance is about: the one its status pinned when it was admitted (a later edit of
     * spec.nodeName does not move a maintenance), else spec.nodeName; null when neither names one.
     */
    public static String nodeOf(NodeMaintenance nm) {
        NodeMaintenanceStatus st = nm.getStatus();
        if (st != null && st.getNodeName() != null && !st.getNodeName().isBlank()) {
            return st.getNodeName();
        }
        return nm.getSpec() == null
                        || nm.getSpec().getNodeName() == null
                        || nm.getSpec().getNodeName().isBlank()
                ? null
                : nm.getSpec().getNodeName();
    }

    /**
     * The operator-wide limits for putting {@code node} into maintenance, whichever front door asks: the
     * cluster-wide cap and the control-plane budget. {@code inMaintenance} are the other nodes in maintenance
     * now (by any front door); {@code nodes} all Nodes (read only when {@code node} is a control-plane node).
     * Empty when the limits allow it.
     */
    public static List<String> budget(Node node, List<Node> nodes, Set<String> inMaintenance, Limits limits) {
        List<String> errors = new ArrayList<>();
        String nodeName = node.getMetadata().getName();
        Set<String> others = new HashSet<>(inMaintenance);
        others.remove(nodeName);
        if (limits.maxNodesInMaintenance().isPresent()
                && others.size() + 1 > limits.maxNodesInMaintenance().getAsInt()) {
            errors.add("tenure.maintenance.max-nodes-in-maintenance: at most "
                    + limits.maxNodesInMaintenance().getAsInt()
                    + " node(s) may be in maintenance at once; " + others.size() + " already are: "
                    + String.join(", ", others.stream().sorted().toList()));
        }
        if (isControlPlane(node)) {
            List<String> controlPlane = nodes.stream()
                    .filter(NodeMaintenanceValidator::isControlPlane)
                    .map(n -> n.getMetadata().getName())
                    .toList();
            int total = Math.max(controlPlane.size(), 1);
            int minAvailable = limits.controlPlaneMinAvailable().orElse(total / 2 + 1);
            long busy = controlPlane.stream().filter(others::contains).count();
            long availableAfter = total - busy - 1;
            if (availableAfter < minAvailable) {
                errors.add(
                        "control-plane budget: node " + nodeName + " is a control-plane node; with it in maintenance "
                                + availableAfter + " of " + total + " control-plane node(s) would stay available, but "
                                + minAvailable + " must ("
                                + (limits.controlPlaneMinAvailable().isPresent()
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

    /**
     * The NodeMaintenances that come before {@code self}: those that hold their node (or wait for its
     * lease), and not-yet-started ones created earlier (ties by name), so two requests racing without
     * the webhook are decided the same way by every reconcile. Deleted, ended and refused ones do not count.
     */
    public static List<NodeMaintenance> ahead(NodeMaintenance self, List<NodeMaintenance> all) {
        Comparator<NodeMaintenance> order = Comparator.comparing((NodeMaintenance nm) -> created(nm))
                .thenComparing(nm -> nm.getMetadata().getName());
        return all.stream()
                .filter(nm ->
                        !nm.getMetadata().getName().equals(self.getMetadata().getName()))
                .filter(nm -> nodeOf(nm) != null)
                .filter(nm -> nm.getMetadata().getDeletionTimestamp() == null)
                .filter(nm -> started(nm) || (admissible(nm) && order.compare(nm, self) < 0))
                .toList();
    }

    /** Holds its node, or waits for its lease: admitted by a reconcile already. */
    public static boolean started(NodeMaintenance nm) {
        NodeMaintenanceStatus st = nm.getStatus();
        if (st == null || st.getPhase() == null) {
            return false;
        }
        return switch (st.getPhase()) {
            case Waiting, Running, Succeeded -> true;
            case Failed -> NodeMaintenanceStatuses.holdsNode(st);
            default -> false;
        };
    }

    /** Could still start (not ended, not refused); a Scheduled one keeps its node, not a budget slot. */
    static boolean admissible(NodeMaintenance nm) {
        NodeMaintenanceStatus st = nm.getStatus();
        return st == null
                || st.getPhase() == null
                || st.getPhase() == Phase.Pending
                || st.getPhase() == Phase.Scheduled;
    }

    /** Phase Scheduled: it waits for its start time or window, and counts for no budget meanwhile. */
    static boolean waitsForItsSchedule(NodeMaintenance nm) {
        return nm.getStatus() != null && nm.getStatus().getPhase() == Phase.Scheduled;
    }

    private static Instant created(NodeMaintenance nm) {
        String ts = nm.getMetadata().getCreationTimestamp();
        return ts == null ? Instant.MAX : java.time.OffsetDateTime.parse(ts).toInstant();
    }
}
