package dev.tenure.maintenance.admission;

import dev.tenure.maintenance.api.LeaseStatus;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.DrainReport;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceSchedule;
import dev.tenure.maintenance.machine.MaintenanceState;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The NodeMaintenance door's decide step: from what one reconcile observed, what it does with the resource —
 * nothing, refuse it, hold it Pending, or advance the {@link MaintenanceMachine}. Pure; the reconciler observes
 * (the resource, and for a request not yet admitted one cluster view, read from caches) and acts on the decision.
 * The annotation door's counterpart is {@code AnnotationProtocol.decide}.
 */
public final class NodeMaintenanceAdmission {

    private NodeMaintenanceAdmission() {}

    /**
     * What one reconcile saw.
     *
     * @param state the machine state rebuilt from the resource's status
     * @param pinned the node the maintenance was admitted for ({@link #pinnedNode})
     * @param view the cluster as the admission rules see it; read only when {@link #needsClusterView} says so
     * @param now the reconciler's clock, for spec.schedule
     */
    public record Observed(
            NodeMaintenance nm,
            MaintenanceState state,
            Optional<String> pinned,
            Optional<NodeMaintenanceValidator.ClusterView> view,
            Instant now) {}

    /** What to do with the NodeMaintenance now. */
    public sealed interface Decision {
        /** What spec.schedule said of this reconcile (empty: refused, or admitted by an earlier reconcile). */
        default Optional<MaintenanceSchedule.Verdict> schedule() {
            return Optional.empty();
        }
    }

    /** Refused before it held its node and the spec has not changed since: final until the spec is edited. */
    public record Unchanged() implements Decision {}

    /**
     * Refused for good (spec, node, a NodeMaintenance ahead of it on the node): phase Failed with {@code error};
     * {@code announce}: the error is new, so a Warning event says it.
     */
    public record Refuse(String error, boolean announce) implements Decision {}

    /**
     * The operator-wide limits (cap, control-plane budget) keep it Pending for now, at {@code position} in the queue
     * for a free slot (1 = next): woken when a maintenance ends or the queue moves, and looked at again later.
     */
    public record Hold(String error, Optional<MaintenanceSchedule.Verdict> schedule, int position)
            implements Decision {}

    /**
     * A limit of its own (its topology domain's cap, the control-plane budget) keeps it Pending: a free slot would not let it start, so it holds
     * no place in the queue and the requests behind it go ahead ({@link NodeMaintenanceValidator.QueueAhead}). Woken
     * when a maintenance ends or the queue moves, and looked at again later.
     */
    public record Blocked(String error, Optional<MaintenanceSchedule.Verdict> schedule) implements Decision {}

    /**
     * spec.join: it shares the maintenance of its node by {@code owner}, which holds the node lease and does the
     * undo; it touches nothing on the node itself.
     */
    public record Joined(String owner) implements Decision {}

    /** spec.schedule: not its time yet; it touches nothing and takes no budget slot until {@code closed.opens()}. */
    public record Scheduled(MaintenanceSchedule.Verdict.Closed closed) implements Decision {
        @Override
        public Optional<MaintenanceSchedule.Verdict> schedule() {
            return Optional.of(closed);
        }
    }

    /**
     * Admitted (or admitted before): one step of the machine for {@code request}.
     *
     * @param retryFailed the spec changed since the last status: a failed drain is tried again
     * @param node the Node as the admission read it whole from the API server, so the machine does not read it
     *     again; empty when the maintenance was admitted by an earlier reconcile, or when the admission read the
     *     trimmed copy of the shared Node cache ({@link ClusterReads#nodeCached}): the machine then reads it whole
     *     before it acts
     * @param moved the note that spec.nodeName was edited away from the pinned node, prefixed to lastError
     * @param announceMove the note is new: an event says it
     * @param schedule what spec.schedule said when it was admitted now (empty when admitted before)
     */
    public record Admit(
            MaintenanceRequest request,
            boolean retryFailed,
            Optional<Node> node,
            Optional<String> moved,
            boolean announceMove,
            Optional<MaintenanceSchedule.Verdict> schedule)
            implements Decision {}

    /**
     * Where the NodeMaintenance stands, as its status says, for the door to know what to read.
     *
     * @param pinned the node it was admitted for ({@link #pinnedNode})
     * @param nodeName the node this reconcile is about ({@link #nodeName}), null when none
     * @param needsClusterView the admission rules run this time ({@link #needsClusterView})
     * @param generation metadata.generation (0 when unset)
     */
    public record Standing(Optional<String> pinned, String nodeName, boolean needsClusterView, long generation) {}

    /** Where {@code nm} stands: what the door reads for it. */
    public static Standing standing(NodeMaintenance nm, MaintenanceState state, String leaseNamePrefix) {
        return standing(nm, state, pinnedNode(nm, leaseNamePrefix));
    }

    /** Where {@code nm} stands when it is {@code pinned} (as its status says, or as the door judged from evidence). */
    public static Standing standing(NodeMaintenance nm, MaintenanceState state, Optional<String> pinned) {
        return new Standing(pinned, nodeName(nm, pinned), needsClusterView(nm, state, pinned), generation(nm));
    }

    /**
     * What the door read of the cluster for a request not yet admitted: its Node, all Nodes (for the control-plane
     * budget, read only when its node is a control-plane one), every NodeMaintenance (of which those ahead of it
     * count), and the nodes in maintenance by another front door.
     *
     * @param nodeCached {@code node} is the shared Node cache's trimmed copy (metadata, spec, conditions), which may
     *     lag the API server by the watch's delivery delay: good for deciding (the node exists; its labels for the
     *     limits), never handed to the machine to act on ({@link Admit#node} is then empty, and the machine reads
     *     the whole Node from the API server before it takes the lease and cordons). False: read whole from the API
     *     server in this reconcile (the cache is off, or has not seen the node)
     */
    public record ClusterReads(
            Optional<Node> node,
            boolean nodeCached,
            List<Node> nodes,
            List<NodeMaintenance> all,
            java.util.Map<String, String> maintainedElsewhere) {

        /** Reads whose {@code node} was read whole from the API server. */
        public ClusterReads(
                Optional<Node> node,
                List<Node> nodes,
                List<NodeMaintenance> all,
                java.util.Map<String, String> maintainedElsewhere) {
            this(node, false, nodes, all, maintainedElsewhere);
        }
    }

    /**
     * {@link #decide(Observed, MaintenanceLimits)} from what the door read: the cluster view is made of {@code reads}
     * here. A Node read from the cache ({@link ClusterReads#nodeCached}) decides, but an {@link Admit} does not
     * carry it to the machine.
     */
    public static Decision decide(
            NodeMaintenance nm,
            MaintenanceState state,
            Optional<String> pinned,
            Optional<ClusterReads> reads,
            Instant now,
            MaintenanceLimits limits) {
        Optional<NodeMaintenanceValidator.ClusterView> view = reads.map(r -> new NodeMaintenanceValidator.ClusterView(
                r.node(), r.nodes(), NodeMaintenanceValidator.ahead(nm, r.all()), r.maintainedElsewhere()));
        Decision decision = decide(new Observed(nm, state, pinned, view, now), limits);
        if (decision instanceof Admit admit
                && reads.map(ClusterReads::nodeCached).orElse(false)) {
            return new Admit(
                    admit.request(),
                    admit.retryFailed(),
                    Optional.empty(),
                    admit.moved(),
                    admit.announceMove(),
                    admit.schedule());
        }
        return decision;
    }

    /** The node this reconcile is about: the pinned one, else the one the resource names (null when none). */
    public static String nodeName(NodeMaintenance nm, Optional<String> pinned) {
        return pinned.orElseGet(() -> NodeMaintenanceValidator.nodeOf(nm));
    }

    /**
     * The node this maintenance was admitted for: {@code status.nodeName}, or for a status written before it
     * was recorded, the node of the lease it holds or waits for ({@code <leaseNamePrefix><node>}).
     */
    public static Optional<String> pinnedNode(NodeMaintenance nm, String leaseNamePrefix) {
        NodeMaintenanceStatus st = nm.getStatus();
        if (st == null) {
            return Optional.empty();
        }
        if (st.getNodeName() != null && !st.getNodeName().isBlank()) {
            return Optional.of(st.getNodeName());
        }
        return Optional.ofNullable(st.getLease())
                .map(LeaseStatus::getName)
                .filter(n -> n.startsWith(leaseNamePrefix) && n.length() > leaseNamePrefix.length())
                .map(n -> n.substring(leaseNamePrefix.length()));
    }

    /** Whether the admission rules run this time, so the reconciler reads the cluster view (else it reads nothing). */
    public static boolean needsClusterView(NodeMaintenance nm, MaintenanceState state, Optional<String> pinned) {
        return !unchanged(nm, state) && pinned.isEmpty() && !NodeMaintenanceValidator.started(nm);
    }

    public static Decision decide(Observed observed, MaintenanceLimits limits) {
        NodeMaintenance nm = observed.nm();
        MaintenanceState state = observed.state();
        if (unchanged(nm, state)) {
            return new Unchanged();
        }
        Optional<String> joinedTo = NodeMaintenanceValidator.joinedTo(nm);
        if (joinedTo.isPresent()) {
            return new Joined(joinedTo.get()); // joined by an earlier reconcile: it stays a joiner until deleted
        }
        String nodeName = nodeName(nm, observed.pinned());
        MaintenanceRequest request;
        Optional<Node> node = Optional.empty();
        Optional<MaintenanceSchedule.Verdict> schedule = Optional.empty();
        if (observed.pinned().isPresent() || NodeMaintenanceValidator.started(nm)) {
            // Admitted by an earlier reconcile: only the spec is read again (node, uniqueness and budget were checked).
            if (!nm.malformedFields().isEmpty()) {
                return refuse(String.join("; ", nm.malformedFields()), state);
            }
            try {
                request = MaintenanceRequest.from(nm.getSpec(), nodeName);
            } catch (IllegalArgumentException e) {
                return refuse(e.getMessage(), state);
            }
        } else {
            NodeMaintenanceValidator.ClusterView view = observed.view()
                    .orElseThrow(() -> new IllegalArgumentException(
                            "a NodeMaintenance not yet admitted is decided with a cluster view"));
            NodeMaintenanceValidator.Verdict verdict =
                    NodeMaintenanceValidator.review(nm, null, view, limits, Optional.of(observed.now()));
            if (!verdict.refusals().isEmpty()) {
                return refuse(String.join("; ", verdict.refusals()), state);
            }
            Optional<String> joins = NodeMaintenanceValidator.joins(nm, view);
            if (joins.isPresent()) {
                return new Joined(joins.get()); // the node is in maintenance already: no schedule, no slot of its own
            }
            request = verdict.request().orElseThrow();
            schedule = verdict.schedule();
            if (schedule.orElseThrow() instanceof MaintenanceSchedule.Verdict.Closed closed) {
                return new Scheduled(closed);
            }
            if (!verdict.ownHolds().isEmpty()) {
                return new Blocked(BLOCKED_NOTE + String.join("; ", verdict.ownHolds()), schedule);
            }
            if (!verdict.holds().isEmpty()) {
                int position = NodeMaintenanceValidator.queuePosition(view, limits);
                return new Hold(queueNote(position, limits) + String.join("; ", verdict.holds()), schedule, position);
            }
            node = view.node();
        }
        Optional<String> moved = movedNote(nm, observed.pinned());
        NodeMaintenanceStatus prior = nm.getStatus();
        boolean announceMove = moved.isPresent()
                && (prior == null
                        || prior.getLastError() == null
                        || !prior.getLastError().contains(moved.get()));
        return new Admit(request, specChanged(nm), node, moved, announceMove, schedule);
    }

    /**
     * Why a NodeMaintenance refused for good is refused, when its status is not this reconciler's write (another
     * client rewrote it, a backup restored it, or it dates from before this operator instance): what its spec alone
     * refuses; else the reason the status gives (a refusal by the cluster, such as an unknown node, cannot be checked
     * without a review); else that an earlier review refused it. It is not reviewed again: a refusal stays final until
     * the spec is edited, whoever writes the status.
     */
    public static String whyRefused(NodeMaintenance nm) {
        if (!nm.malformedFields().isEmpty()) {
            return String.join("; ", nm.malformedFields());
        }
        try {
            MaintenanceRequest.from(nm.getSpec(), nodeName(nm, Optional.empty()));
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        String said = nm.getStatus() == null ? null : nm.getStatus().getLastError();
        return said == null || said.isBlank() ? REFUSED_EARLIER : said;
    }

    /** {@link #whyRefused} of a refusal the spec alone does not explain (the node, or another maintenance). */
    public static final String REFUSED_EARLIER = "refused by an earlier review of this spec (the reason was in a status"
            + " another client has since rewritten); edit the spec to have it reviewed again";

    /** What a request passed over in the queue says first: that it is out of the queue, and why. */
    public static final String BLOCKED_NOTE =
            "not in the queue: a limit of its own holds it, and the requests behind it go ahead: ";

    /**
     * "2nd in queue for max-nodes-in-maintenance=1: ": the place in the queue and the cap that holds it (the only
     * limit a request in the queue waits for: one held by a limit of its own is {@link Blocked}).
     */
    static String queueNote(int position, MaintenanceLimits limits) {
        return ordinal(position) + " in queue for max-nodes-in-maintenance="
                + limits.maxNodesInMaintenance().map(String::valueOf).orElse("0") + ": ";
    }

    static String ordinal(int n) {
        int lastTwo = n % 100;
        String suffix = lastTwo >= 11 && lastTwo <= 13
                ? "th"
                : switch (n % 10) {
                    case 1 -> "st";
                    case 2 -> "nd";
                    case 3 -> "rd";
                    default -> "th";
                };
        return n + suffix;
    }

    /** The spec was edited since the status was written (its observedGeneration). */
    static boolean specChanged(NodeMaintenance nm) {
        NodeMaintenanceStatus prior = nm.getStatus();
        long generation = generation(nm);
        return prior != null && prior.getObservedGeneration() != null && prior.getObservedGeneration() != generation;
    }

    public static long generation(NodeMaintenance nm) {
        return Optional.ofNullable(nm.getMetadata().getGeneration()).orElse(0L);
    }

    private static Refuse refuse(String error, MaintenanceState state) {
        return new Refuse(error, !error.equals(state.lastError()));
    }

    /** Failed before it held its node (bad spec, unknown node, a duplicate) and the spec not edited since. */
    private static boolean unchanged(NodeMaintenance nm, MaintenanceState state) {
        NodeMaintenanceStatus prior = nm.getStatus();
        boolean refusedForGood = prior != null
                && prior.getPhase() == Phase.Failed
                && !state.holdsNode()
                && (prior.getNodeName() == null || prior.getNodeName().isBlank())
                && prior.getLease() == null;
        return refusedForGood && !specChanged(nm);
    }

    private static Optional<String> movedNote(NodeMaintenance nm, Optional<String> pinned) {
        String specNode = nm.getSpec() == null ? null : nm.getSpec().getNodeName();
        return pinned.filter(p -> !p.equals(specNode))
                .map(p -> "spec.nodeName: is immutable: edited to " + DrainReport.shown(String.valueOf(specNode))
                        + " after the maintenance of node " + p + " started; it stays on node " + p
                        + " (delete this NodeMaintenance to end it, and create one for the other node)");
    }
}
