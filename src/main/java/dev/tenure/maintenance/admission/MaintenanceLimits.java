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
 * the node annotation door): the cluster-wide cap, the per-topology-domain cap and the control-plane budget (etcd
 * quorum, or a configured minimum). Pure: the caller passes the nodes it read. Values from {@code
 * tenure.maintenance.*}.
 *
 * <p>Both caps count what NVIDIA maintenance-operator's scheduler counts against {@code maxUnavailable}: the nodes in
 * maintenance and the nodes unavailable for another reason (cordoned by anyone, or Ready not True), each once; and a
 * percentage is of the nodes there are (the cluster's, or the domain's), rounded down as its code does.
 *
 * @param maxNodesInMaintenance the cluster-wide cap ({@value #MAX_NODES_SETTING}); empty: none
 * @param controlPlaneMinAvailable control-plane nodes kept available; empty: a majority
 * @param perTopology the cap per topology domain ({@value #PER_TOPOLOGY_SETTING}); empty: none
 */
public record MaintenanceLimits(
        Optional<NodeCount> maxNodesInMaintenance,
        OptionalInt controlPlaneMinAvailable,
        Optional<TopologyLimit> perTopology) {

    static final String CONTROL_PLANE_LABEL = "node-role.kubernetes.io/control-plane";
    static final String MASTER_LABEL = "node-role.kubernetes.io/master";
    /** The setting the cap's message starts with. */
    public static final String MAX_NODES_SETTING = "tenure.maintenance.max-nodes-in-maintenance";
    /** The setting the per-topology cap's message starts with. */
    public static final String PER_TOPOLOGY_SETTING = "tenure.maintenance.max-nodes-in-maintenance-per-topology";
    /** The label whose values are the domains of the per-topology cap. */
    public static final String TOPOLOGY_KEY_SETTING = "tenure.maintenance.topology-key";

    /** A cap without a per-topology one: a number of nodes (empty: no cap). */
    public MaintenanceLimits(OptionalInt maxNodesInMaintenance, OptionalInt controlPlaneMinAvailable) {
        this(
                maxNodesInMaintenance.isPresent()
                        ? Optional.of(NodeCount.nodes(maxNodesInMaintenance.getAsInt()))
                        : Optional.empty(),
                controlPlaneMinAvailable,
                Optional.empty());
    }

    public static MaintenanceLimits none() {
        return new MaintenanceLimits(Optional.empty(), OptionalInt.empty(), Optional.empty());
    }

    /**
     * A number of nodes, or a percentage of the nodes there are, as Kubernetes' IntOrString {@code maxUnavailable}:
     * {@code 2} or {@code 25%}.
     */
    public record NodeCount(int value, boolean percent) {
        public NodeCount {
            if (value < 0 || (percent && value > 100)) {
                throw new IllegalArgumentException("must be a whole number >= 0 or a percentage from 0% to 100%, was "
                        + value + (percent ? "%" : ""));
            }
        }

        public static NodeCount nodes(int nodes) {
            return new NodeCount(nodes, false);
        }

        /**
         * {@code raw} as a count, or an error that names {@code setting}, the rule and the value (the operator's
         * config check: at start-up, before anything runs).
         */
        public static NodeCount parse(String setting, String raw) {
            String value = raw.strip();
            boolean percent = value.endsWith("%");
            String digits = percent ? value.substring(0, value.length() - 1) : value;
            try {
                if (!digits.matches("[0-9]{1,9}")) {
                    throw new NumberFormatException(digits);
                }
                return new NodeCount(Integer.parseInt(digits), percent);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(setting
                        + ": must be a whole number of nodes >= 0 (e.g. 2) or a percentage of the nodes from 0% to"
                        + " 100% (e.g. 25%), was '" + raw + "'");
            }
        }

        /** The number of nodes this allows out of {@code total}: a percentage rounded down (NVIDIA's code does). */
        public int resolve(int total) {
            return percent ? (int) ((long) value * total / 100) : value;
        }

        /** The count and, for a percentage, how it was reached: "2 node(s) (25% of 8, rounded down)". */
        String shown(int total) {
            return resolve(total) + " node(s)" + (percent ? " (" + this + " of " + total + ", rounded down)" : "");
        }

        @Override
        public String toString() {
            return value + (percent ? "%" : "");
        }
    }

    /**
     * At most {@code max} nodes per topology domain: the nodes with one value of the label {@code key}. A node
     * without the label belongs to no domain, and this cap does not hold it.
     */
    public record TopologyLimit(String key, NodeCount max) {
        public TopologyLimit {
            if (key == null || key.isBlank()) {
                throw new IllegalArgumentException(
                        TOPOLOGY_KEY_SETTING + ": must name a node label, was '" + key + "'");
            }
        }
    }

    /** Whether the limits read every Node for any request: a cap counts the unavailable ones (and the total). */
    public boolean needsAllNodes() {
        return maxNodesInMaintenance.isPresent() || perTopology.isPresent();
    }

    /**
     * Why {@code node} may not go into maintenance now; empty when the limits allow it. {@code inMaintenance} are the
     * other nodes in maintenance now (by any front door); {@code nodes} all Nodes (read when {@link #needsAllNodes}
     * or {@code node} is a control-plane node).
     */
    public List<String> refusals(Node node, List<Node> nodes, Set<String> inMaintenance) {
        List<String> errors = new ArrayList<>();
        capHold(node.getMetadata().getName(), nodes, inMaintenance, Map.of()).ifPresent(errors::add);
        topologyHold(node, nodes, inMaintenance, Map.of()).ifPresent(errors::add);
        controlPlaneHold(node, nodes, inMaintenance).ifPresent(errors::add);
        return errors;
    }

    /**
     * Why {@code node} counts as unavailable whatever Tenure does with it (NVIDIA maintenance-operator counts the
     * same nodes): "cordoned" (spec.unschedulable, by anyone), "NotReady" or "Ready Unknown" (its Ready condition
     * is not True); empty when it is available. A node without a Ready condition counts as available.
     */
    public static Optional<String> unavailable(Node node) {
        if (node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
            return Optional.of("cordoned");
        }
        if (node.getStatus() == null || node.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return node.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType()) && !"True".equals(c.getStatus()))
                .findFirst()
                .map(c -> "Unknown".equals(c.getStatus()) ? "Ready Unknown" : "NotReady");
    }

    /**
     * The nodes of {@code nodes} unavailable for another reason than maintenance, not {@code nodeName} and not in
     * {@code counted}: node → why, sorted.
     */
    private static Map<String, String> unavailableOthers(List<Node> nodes, String nodeName, Set<String> counted) {
        Map<String, String> out = new TreeMap<>();
        for (Node n : nodes) {
            String name = n.getMetadata().getName();
            if (!name.equals(nodeName) && !counted.contains(name)) {
                unavailable(n).ifPresent(why -> out.put(name, why));
            }
        }
        return out;
    }

    private static String shownUnavailable(Map<String, String> unavailable) {
        return String.join(
                ", ",
                unavailable.entrySet().stream()
                        .map(e -> e.getKey() + " (" + e.getValue() + ")")
                        .toList());
    }

    /**
     * The cap's word on {@code nodeName}: empty when a slot is free for it. {@code nodes} are all Nodes (the total
     * for a percentage, and those unavailable for another reason, which count as NVIDIA's {@code maxUnavailable}
     * counts them); {@code inMaintenance} the nodes really in maintenance now; {@code firstInLine} the nodes promised
     * to requests ahead of it in the queue (node → the NodeMaintenance), which count as if they had their slot, but
     * are named apart: they are not in maintenance yet.
     */
    public Optional<String> capHold(
            String nodeName, List<Node> nodes, Set<String> inMaintenance, Map<String, String> firstInLine) {
        if (maxNodesInMaintenance.isEmpty()) {
            return Optional.empty();
        }
        Set<String> already = new TreeSet<>(inMaintenance);
        already.remove(nodeName);
        Map<String, String> promised = new TreeMap<>(firstInLine);
        promised.keySet().removeAll(already);
        promised.remove(nodeName);
        Set<String> counted = new TreeSet<>(already);
        counted.addAll(promised.keySet());
        Map<String, String> down = unavailableOthers(nodes, nodeName, counted);
        NodeCount cap = maxNodesInMaintenance.get();
        int max = cap.resolve(nodes.size());
        if (already.size() + promised.size() + down.size() + 1 <= max) {
            return Optional.empty();
        }
        String message = MAX_NODES_SETTING + ": at most " + cap.shown(nodes.size())
                + " may be in maintenance at once; " + already.size() + " already are"
                + (already.isEmpty() ? "" : ": " + String.join(", ", already));
        if (!down.isEmpty()) {
            message += "; " + down.size() + " more unavailable for another reason count against it: "
                    + shownUnavailable(down);
        }
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
     * The per-topology cap's word on {@code node}: empty when it has no domain (no {@link TopologyLimit#key} label),
     * or its domain has room for it. {@code inMaintenance} are the nodes in maintenance now, {@code firstInLine} the
     * nodes promised to the requests ahead in the queue (node → the NodeMaintenance); the domain's nodes unavailable
     * for another reason count too. A hold of the request's own: a free slot elsewhere does not lift it, so the
     * requests behind it in other domains go ahead.
     */
    public Optional<String> topologyHold(
            Node node, List<Node> nodes, Set<String> inMaintenance, Map<String, String> firstInLine) {
        if (perTopology.isEmpty()) {
            return Optional.empty();
        }
        TopologyLimit limit = perTopology.get();
        Optional<String> domain = domainOf(node, limit.key());
        if (domain.isEmpty()) {
            return Optional.empty();
        }
        String nodeName = node.getMetadata().getName();
        List<Node> domainNodes = nodes.stream()
                .filter(n -> domain.equals(domainOf(n, limit.key())))
                .toList();
        // the node itself is of its domain even when the caller read no list with it
        int total = domainNodes.size()
                + (domainNodes.stream().anyMatch(n -> n.getMetadata().getName().equals(nodeName)) ? 0 : 1);
        Set<String> inDomain = new TreeSet<>();
        domainNodes.forEach(n -> inDomain.add(n.getMetadata().getName()));
        Map<String, String> taken = new TreeMap<>();
        firstInLine.forEach((n, nm) -> taken.put(n, "NodeMaintenance " + nm + ", ahead in the queue"));
        inMaintenance.forEach(n -> taken.put(n, "in maintenance"));
        taken.keySet().retainAll(inDomain);
        taken.remove(nodeName);
        taken.putAll(unavailableOthers(domainNodes, nodeName, taken.keySet()));
        int max = limit.max().resolve(total);
        if (taken.size() + 1 <= max) {
            return Optional.empty();
        }
        return Optional.of(PER_TOPOLOGY_SETTING + ": at most " + limit.max().shown(total) + " per "
                + limit.key() + " may be in maintenance at once; " + taken.size() + " of " + max + " in "
                + limit.key() + "=" + domain.get() + " already are: " + shownUnavailable(taken));
    }

    /** The node's topology domain: the value of its label {@code key}; empty when it has none. */
    static Optional<String> domainOf(Node node, String key) {
        Map<String, String> labels = node.getMetadata().getLabels();
        return labels == null ? Optional.empty() : Optional.ofNullable(labels.get(key));
    }

    /** How a control-plane budget hold begins. */
    public static final String CONTROL_PLANE_BUDGET = "control-plane budget";

    /**
     * The control-plane budget's word on {@code node}: empty when it is no control-plane node or enough of them stay
     * available with it in maintenance. {@code busy} are the other nodes counted in maintenance; {@code nodes} all
     * Nodes. A hold of the request's own: a free slot of the cap does not lift it.
     */
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
