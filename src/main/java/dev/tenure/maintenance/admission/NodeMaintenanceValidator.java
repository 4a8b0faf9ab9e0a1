package dev.tenure.maintenance.admission;

import dev.tenure.kube.UserText;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceSchedule;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The admission rules for NodeMaintenance, used by the validating webhook and, for clusters without
 * it, by the reconciler (a refused request ends in phase Failed with the message). Pure: the caller
 * passes what it read.
 *
 * <p>One file just over ~400 lines, on purpose for now: the duplicate, join and queue rules share one notion of which
 * requests are ahead and which have started; the queue's walk ({@code QueueAhead}) is the piece to split out next.
 */
public final class NodeMaintenanceValidator {

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
     * What the rules say about {@code candidate}: the reasons that refuse it for good, else the operator-wide limits
     * that hold it for now (checked on create only) and of those, the ones of its own ({@code ownHolds}: the
     * control-plane budget and its topology domain's cap, which a free slot does not lift; while any holds it, it is
     * passed over in the queue), the
     * request its spec resolves to when it is not refused, and what its schedule said (empty when the caller passed no
     * time, or it was refused).
     */
    public record Verdict(
            List<String> refusals,
            List<String> holds,
            List<String> ownHolds,
            Optional<MaintenanceRequest> request,
            Optional<MaintenanceSchedule.Verdict> schedule) {
        public Verdict {
            refusals = List.copyOf(refusals);
            holds = List.copyOf(holds);
            ownHolds = List.copyOf(ownHolds);
        }

        public Verdict(
                List<String> refusals,
                List<String> holds,
                Optional<MaintenanceRequest> request,
                Optional<MaintenanceSchedule.Verdict> schedule) {
            this(refusals, holds, List.of(), request, schedule);
        }

        /** Every reason to refuse it now, as the webhook answers: the refusals, else the holds. */
        public List<String> reasons() {
            return refusals.isEmpty() ? holds : refusals;
        }
    }

    /**
     * The reasons to refuse {@code candidate} ({@code old} is its previous version on update, else null);
     * empty when it is acceptable. Each message starts with the field or rule it is about.
     */
    public static List<String> validate(
            NodeMaintenance candidate, NodeMaintenance old, ClusterView view, MaintenanceLimits limits) {
        return review(candidate, old, view, limits).reasons();
    }

    /**
     * Every rule at once, the spec resolved once, as the webhook asks: no time is passed, so a request with a
     * schedule is not counted against the limits (its time is decided when it comes).
     */
    public static Verdict review(
            NodeMaintenance candidate, NodeMaintenance old, ClusterView view, MaintenanceLimits limits) {
        return review(candidate, old, view, limits, Optional.empty());
    }

    /**
     * Every rule at once: {@link #refusals}, then on create the schedule at {@code now} and the {@link
     * MaintenanceLimits}. The budget is decided here only: a request whose schedule is closed at {@code now} (or any
     * scheduled request when no time is given) takes no slot yet and is not held; one whose time has come is counted
     * like any other.
     */
    public static Verdict review(
            NodeMaintenance candidate,
            NodeMaintenance old,
            ClusterView view,
            MaintenanceLimits limits,
            Optional<Instant> now) {
        List<String> errors = new ArrayList<>();
        Optional<MaintenanceRequest> request = refusals(candidate, old, view, errors);
        if (!errors.isEmpty()) {
            return new Verdict(errors, List.of(), Optional.empty(), Optional.empty());
        }
        Optional<MaintenanceSchedule.Verdict> schedule =
                now.map(at -> request.orElseThrow().schedule().at(at));
        boolean scheduled = candidate.getSpec().getSchedule() != null;
        boolean notItsTime = schedule.map(v -> v instanceof MaintenanceSchedule.Verdict.Closed)
                .orElse(scheduled);
        // a joiner takes no slot: its node is counted already, for the maintenance it joins
        if (old != null || notItsTime || joins(candidate, view).isPresent()) {
            return new Verdict(List.of(), List.of(), request, schedule);
        }
        QueueAhead queue = QueueAhead.of(view, limits);
        Node node = view.node().orElseThrow();
        List<String> holds = new ArrayList<>();
        limits.capHold(node.getMetadata().getName(), view.nodes(), queue.inMaintenance(), queue.firstInLine())
                .ifPresent(holds::add);
        List<String> own = ownHolds(limits, node, view.nodes(), queue.inMaintenance(), queue.firstInLine());
        holds.addAll(own);
        return new Verdict(List.of(), holds, own, request, schedule);
    }

    /**
     * The limits of {@code node}'s own (its topology domain's cap, the control-plane budget), with the nodes in
     * maintenance and those promised to the requests ahead of it counted: while any holds it, a free slot of the cap
     * would not let it start, so it is passed over in the queue.
     */
    static List<String> ownHolds(
            MaintenanceLimits limits,
            Node node,
            List<Node> nodes,
            Set<String> inMaintenance,
            Map<String, String> firstInLine) {
        Set<String> counted = new HashSet<>(inMaintenance);
        counted.addAll(firstInLine.keySet());
        List<String> own = new ArrayList<>();
        limits.topologyHold(node, nodes, inMaintenance, firstInLine).ifPresent(own::add);
        limits.controlPlaneHold(node, nodes, counted).ifPresent(own::add);
        return own;
    }

    /**
     * spec.join, and a maintenance of the node ahead of {@code candidate}: the one it joins, the owner of the node's
     * lease and undo (for a maintenance ahead that joined another, that other). Empty when it joins none.
     */
    public static Optional<String> joins(NodeMaintenance candidate, ClusterView view) {
        String nodeName = nodeOf(candidate);
        if (candidate.getSpec() == null
                || !Boolean.TRUE.equals(candidate.getSpec().getJoin())
                || nodeName == null) {
            return Optional.empty();
        }
        return view.ahead().stream()
                .filter(nm -> nodeName.equals(nodeOf(nm)))
                .map(nm -> joinedTo(nm).orElse(nm.getMetadata().getName()))
                .findFirst();
    }

    /** status.joinedTo: the maintenance whose node this one shares; empty for one that owns its node (or none yet). */
    public static Optional<String> joinedTo(NodeMaintenance nm) {
        return Optional.ofNullable(nm.getStatus())
                .map(NodeMaintenanceStatus::getJoinedTo)
                .filter(n -> !n.isBlank());
    }

    /**
     * The reasons that refuse {@code candidate} for good (the spec, the node, a NodeMaintenance ahead of it on
     * the node), without the operator-wide limits, which change as other maintenances end. A node in maintenance
     * by another front door (the annotation) is no reason here: the later request waits for the node's lease
     * (phase Waiting), whichever door it came by.
     */
    public static List<String> refusals(NodeMaintenance candidate, NodeMaintenance old, ClusterView view) {
        List<String> errors = new ArrayList<>();
        refusals(candidate, old, view, errors);
        return errors;
    }

    /** Adds the refusals to {@code errors}; the request the spec resolves to, empty when the spec is refused. */
    private static Optional<MaintenanceRequest> refusals(
            NodeMaintenance candidate, NodeMaintenance old, ClusterView view, List<String> errors) {
        if (!candidate.malformedFields().isEmpty()) {
            errors.addAll(candidate.malformedFields());
            return Optional.empty();
        }
        NodeMaintenanceSpec spec = candidate.getSpec();
        if (spec == null) {
            errors.add("spec: required (with spec.nodeName)");
            return Optional.empty();
        }
        if (spec.getNodeName() == null || spec.getNodeName().isBlank()) {
            errors.add("spec.nodeName: required");
            return Optional.empty();
        }
        // user text reaches terminals (events, the Node condition, kubectl get): no control characters, as the
        // CRD's CEL rule says; ratcheted like it, so an old object whose reason is unchanged can still be updated
        boolean reasonChanged = old == null
                || old.getSpec() == null
                || !java.util.Objects.equals(old.getSpec().getReason(), spec.getReason());
        Optional<String> badReason =
                reasonChanged ? UserText.refusal("spec.reason", spec.getReason()) : Optional.empty();
        if (badReason.isPresent()) {
            errors.add(badReason.get());
            return Optional.empty();
        }
        MaintenanceRequest request;
        try {
            request = MaintenanceRequest.from(spec);
        } catch (IllegalArgumentException e) {
            errors.add(e.getMessage());
            return Optional.empty();
        }
        String nodeName = spec.getNodeName();
        if (old != null
                && old.getSpec() != null
                && old.getSpec().getNodeName() != null
                && !old.getSpec().getNodeName().equals(nodeName)) {
            errors.add("spec.nodeName: is immutable (was " + old.getSpec().getNodeName() + ", now " + nodeName + ")");
            return Optional.empty();
        }
        if (old != null) {
            return Optional.of(request); // node, uniqueness and budgets were checked when it was admitted
        }
        if (view.node().isEmpty()) {
            errors.add("spec.nodeName: node " + nodeName + " not found");
            return Optional.empty();
        }
        List<NodeMaintenance> sameNode =
                view.ahead().stream().filter(nm -> nodeName.equals(nodeOf(nm))).toList();
        if (!sameNode.isEmpty() && !Boolean.TRUE.equals(spec.getJoin())) {
            errors.add("spec.nodeName: node " + nodeName + " already has an active NodeMaintenance "
                    + sameNode.get(0).getMetadata().getName());
            return Optional.empty();
        }
        return Optional.of(request);
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
     * The NodeMaintenances that come before {@code self}: those that hold their node (or wait for its
     * lease), and not-yet-started ones earlier in the {@link #QUEUE_ORDER}, so two requests racing without
     * the webhook are decided the same way by every reconcile. Deleted, ended and refused ones do not count, nor a
     * preview that has not started: it touches nothing, so it is no active maintenance of its node (a real request
     * of that node is not its duplicate, and a join does not join it) and takes no slot.
     */
    public static List<NodeMaintenance> ahead(NodeMaintenance self, List<NodeMaintenance> all) {
        return all.stream()
                .filter(nm ->
                        !nm.getMetadata().getName().equals(self.getMetadata().getName()))
                .filter(nm -> nodeOf(nm) != null)
                .filter(nm -> nm.getMetadata().getDeletionTimestamp() == null)
                .filter(nm -> !previewOnly(nm))
                .filter(nm -> started(nm) || (admissible(nm) && QUEUE_ORDER.compare(nm, self) < 0))
                .toList();
    }

    /**
     * The fair queue's order among requests not yet started (NVIDIA maintenance-operator's scheduler admits pending
     * ones the same way): spec.priority, higher first (default 0); then the earlier created; then the name.
     */
    public static final Comparator<NodeMaintenance> QUEUE_ORDER = Comparator.comparingInt(
                    NodeMaintenanceValidator::priority)
            .reversed()
            .thenComparing(NodeMaintenanceValidator::created)
            .thenComparing(nm -> nm.getMetadata().getName());

    /** spec.priority, 0 when unset. */
    public static int priority(NodeMaintenance nm) {
        return nm.getSpec() == null || nm.getSpec().getPriority() == null
                ? 0
                : nm.getSpec().getPriority();
    }

    /**
     * The place of the request {@code view} was read for in the queue for a free slot (1 = next): one more than the
     * requests ahead of it that wait for a slot too (not started, not waiting for their schedule, not previews) and
     * are not passed over ({@link QueueAhead}).
     */
    static int queuePosition(ClusterView view, MaintenanceLimits limits) {
        return 1 + QueueAhead.of(view, limits).firstInLine().size();
    }

    /**
     * Who stands before the request {@code view} was read for, as the limits see them (NVIDIA maintenance-operator's
     * scheduler walks its ranked requests the same way, skipping one that cannot become unavailable and trying the
     * next).
     *
     * @param inMaintenance the nodes really in maintenance: by another front door, or by a maintenance ahead that
     *     started (previews and maintenances waiting for their schedule take none)
     * @param firstInLine the requests ahead that wait for a slot and get one before this request, walked in {@link
     *     #QUEUE_ORDER}: node → NodeMaintenance name. They count as if they had their slot, so a slot that frees goes
     *     to the first in the queue, never to a later one.
     * @param passedOver the requests ahead that a limit of their own holds (their topology domain's cap, the
     *     control-plane budget, with the ones before them counted): they hold no place, and the requests behind them
     *     go ahead; a later request of the same domain is held by the same cap, so the domain's next slot still goes
     *     to the first of it in the queue
     */
    public record QueueAhead(Set<String> inMaintenance, Map<String, String> firstInLine, List<String> passedOver) {
        public QueueAhead {
            inMaintenance = Set.copyOf(inMaintenance);
            firstInLine = Collections.unmodifiableMap(new LinkedHashMap<>(firstInLine));
            passedOver = List.copyOf(passedOver);
        }

        /** The nodes counted in maintenance for this request: those really in it, and those promised ahead of it. */
        public Set<String> counted() {
            Set<String> all = new HashSet<>(inMaintenance);
            all.addAll(firstInLine.keySet());
            return all;
        }

        public static QueueAhead of(ClusterView view, MaintenanceLimits limits) {
            Set<String> inMaintenance = new HashSet<>(view.maintainedElsewhere().keySet());
            view.ahead().stream()
                    .filter(NodeMaintenanceValidator::started)
                    .forEach(nm -> inMaintenance.add(nodeOf(nm)));
            Map<String, String> firstInLine = new LinkedHashMap<>();
            List<String> passedOver = new ArrayList<>();
            view.ahead().stream()
                    .filter(NodeMaintenanceValidator::waitsForASlot)
                    .sorted(QUEUE_ORDER)
                    .forEach(nm -> {
                        String node = nodeOf(nm);
                        // A node the view does not hold (not read, or gone: that request's own reconcile refuses it)
                        // is counted, as before the queue passed anyone over: never a slot given out of turn.
                        boolean heldByItsOwnLimit = view.nodes().stream()
                                .filter(n -> node.equals(n.getMetadata().getName()))
                                .findFirst()
                                .map(n -> ownHolds(limits, n, view.nodes(), inMaintenance, firstInLine))
                                .filter(own -> !own.isEmpty())
                                .isPresent();
                        if (heldByItsOwnLimit) {
                            passedOver.add(nm.getMetadata().getName());
                        } else {
                            firstInLine.putIfAbsent(node, nm.getMetadata().getName());
                        }
                    });
            return new QueueAhead(inMaintenance, firstInLine, passedOver);
        }
    }

    /**
     * Whether the limits need every Node to decide {@code node}'s request: a cap is set (it counts the nodes
     * unavailable for another reason, and a percentage is of them all), it is a control-plane node (its budget), or
     * requests ahead of it wait for a slot (whether each is passed over depends on its node).
     */
    public static boolean needsAllNodes(MaintenanceLimits limits, Optional<Node> node, List<NodeMaintenance> ahead) {
        return limits.needsAllNodes()
                || node.filter(MaintenanceLimits::isControlPlane).isPresent()
                || ahead.stream().anyMatch(NodeMaintenanceValidator::waitsForASlot);
    }

    /** Not started, and would take a slot if it had one: in the queue. */
    public static boolean waitsForASlot(NodeMaintenance nm) {
        return !started(nm) && admissible(nm) && !waitsForItsSchedule(nm) && !previewOnly(nm);
    }

    /** A preview not started: it plans and touches nothing, so it takes no slot and stands in no queue. */
    static boolean previewOnly(NodeMaintenance nm) {
        return nm.getSpec() != null && Boolean.TRUE.equals(nm.getSpec().getPreview()) && !started(nm);
    }

    /**
     * Holds its node, or waits for its lease: admitted by a reconcile already. That includes a request admitted whose
     * first step failed (say the node lease's create answered 500): Pending again, but pinned to its node
     * (status.nodeName, which only an admission writes, joiners aside) and retried with no second look at the limits,
     * so it keeps its slot: counted by every request, ahead of it in the queue or not.
     */
    public static boolean started(NodeMaintenance nm) {
        NodeMaintenanceStatus st = nm.getStatus();
        if (st == null || st.getPhase() == null) {
            return false;
        }
        return switch (st.getPhase()) {
            case Waiting, Running, Succeeded -> true;
            case Failed -> holdsNode(st);
            case Pending -> st.getNodeName() != null && !st.getNodeName().isBlank() && st.getJoinedTo() == null;
            default -> false;
        };
    }

    /**
     * Whether the status says this maintenance holds its node's lease: condition {@link
     * NodeMaintenanceStatuses#LEASE_HELD} True since a time (read here, with the rest of where a maintenance stands,
     * so the admission rules need not ask the status mapping).
     */
    public static boolean holdsNode(NodeMaintenanceStatus status) {
        return status.getConditions() != null
                && status.getConditions().stream()
                        .filter(c -> NodeMaintenanceStatuses.LEASE_HELD.equals(c.getType()))
                        .findFirst()
                        .filter(c -> "True".equals(c.getStatus()))
                        .map(c -> c.getLastTransitionTime() == null
                                ? null
                                : java.time.OffsetDateTime.parse(c.getLastTransitionTime()))
                        .isPresent();
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
