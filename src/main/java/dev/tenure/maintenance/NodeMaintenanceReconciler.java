package dev.tenure.maintenance;

import dev.tenure.election.WorkFence;
import dev.tenure.maintenance.api.LeaseStatus;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.ScheduleStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.quarkiverse.operatorsdk.annotations.RBACRule;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The NodeMaintenance front door of the {@link MaintenanceMachine}: validates (for clusters without the
 * webhook), maps status to machine state and back, turns machine reports into events, and undoes the
 * maintenance on delete (finalizer). Each reconcile does one step and reschedules; many
 * NodeMaintenances proceed at once (one reconcile at a time per resource).
 */
@ControllerConfiguration(name = NodeMaintenanceReconciler.NAME)
// Exactly the calls JOSDK (informer; finalizer and status by JSON merge patch, SSA being off), the maintenance
// machine, validator and event recorder make, for both front doors: the annotation door (AnnotationDoor, not a JOSDK
// reconciler) makes the same calls plus the watch of the shared Node cache (NodeCache). ManifestAssembly drops
// quarkus-operator-sdk's blanket rule on the primary resource (every verb on it, its status and finalizers);
// RbacLeastPrivilegeCheck holds these to what the tests saw the operator call.
@RBACRule(
        apiGroups = NodeMaintenance.GROUP,
        resources = "nodemaintenances",
        verbs = {"get", "list", "watch", "patch"})
@RBACRule(apiGroups = NodeMaintenance.GROUP, resources = "nodemaintenances/status", verbs = "patch")
@RBACRule(
        apiGroups = "",
        resources = "nodes",
        verbs = {"get", "list", "watch", "patch"})
@RBACRule(apiGroups = "", resources = "nodes/status", verbs = "patch")
@RBACRule(
        apiGroups = "",
        resources = "pods",
        verbs = {"list", "delete"})
@RBACRule(apiGroups = "", resources = "pods/eviction", verbs = "create")
@RBACRule(apiGroups = "apps", resources = "daemonsets", verbs = "get")
@RBACRule(
        apiGroups = "",
        resources = "events",
        verbs = {"get", "create", "patch"})
public class NodeMaintenanceReconciler implements Reconciler<NodeMaintenance>, Cleaner<NodeMaintenance> {

    public static final String NAME = "nodemaintenance";
    private static final Logger LOG = Logger.getLogger(NodeMaintenanceReconciler.class);
    private static final Duration REFUSED_RETRY = Duration.ofSeconds(30);
    private static final Duration END_RETRY = Duration.ofSeconds(5);
    /**
     * A Scheduled maintenance looks again at its opening, and at least this often: the wall clock may be stepped,
     * and the spec edited, in between.
     */
    private static final Duration SCHEDULE_LOOK = Duration.ofMinutes(10);

    private static final Duration MIN_LOOK = Duration.ofMillis(100);
    /** Reasons worth seeing on the Node itself too (kubectl describe node). */
    private static final Set<String> NODE_REASONS = Set.of(
            MaintenanceEvents.CORDONED,
            MaintenanceEvents.UNCORDONED,
            MaintenanceEvents.BEGIN,
            MaintenanceEvents.SUCCEEDED);

    private final MaintenanceMachine machine;
    private final KubernetesClient client;
    private final EventRecorder recorder;
    private final MaintenanceMetrics metrics;
    private final NodeMaintenanceValidator.Limits limits;
    private final Clock clock;
    private final NodesMaintainedElsewhere elsewhere;
    /** The operator's leadership term: every reconcile and cleanup holds a permit of it, so a stop waits them out. */
    private final WorkFence fence;

    @Inject
    public NodeMaintenanceReconciler(
            MaintenanceMachine machine,
            KubernetesClient client,
            EventRecorder recorder,
            MaintenanceMetrics metrics,
            NodeMaintenanceValidator.Limits limits,
            NodesMaintainedElsewhere elsewhere,
            WorkFence fence) {
        this(machine, client, recorder, metrics, limits, elsewhere, fence, Clock.systemUTC());
    }

    NodeMaintenanceReconciler(
            MaintenanceMachine machine,
            KubernetesClient client,
            EventRecorder recorder,
            MaintenanceMetrics metrics,
            NodeMaintenanceValidator.Limits limits,
            NodesMaintainedElsewhere elsewhere,
            WorkFence fence,
            Clock clock) {
        this.elsewhere = elsewhere;
        this.fence = fence;
        this.machine = machine;
        this.client = client;
        this.recorder = recorder;
        this.metrics = metrics;
        this.limits = limits;
        this.clock = clock;
    }

    /**
     * Hooks are annotations, and an annotation edit does not change a resource's generation: JOSDK's generation-aware
     * filter drops it (and every update of an object already being deleted). The removal of a hook must wake the
     * maintenance waiting on it at once, not at its timeout: a second informer of NodeMaintenances passes exactly the
     * changes of hook annotations, each to the maintenance it is on.
     */
    @Override
    public List<EventSource<?, NodeMaintenance>> prepareEventSources(EventSourceContext<NodeMaintenance> context) {
        InformerEventSourceConfiguration<NodeMaintenance> hookChanges = InformerEventSourceConfiguration.from(
                        NodeMaintenance.class, NodeMaintenance.class)
                .withName(HOOK_CHANGES)
                .withSecondaryToPrimaryMapper(nm -> Set.of(ResourceID.fromResource(nm)))
                .withOnAddFilter(nm -> false)
                .withOnUpdateFilter((now, before) -> MaintenanceHooks.changed(
                        before.getMetadata().getAnnotations(), now.getMetadata().getAnnotations()))
                .withOnDeleteFilter((nm, unknownState) -> false)
                .build();
        return List.of(new InformerEventSource<>(hookChanges, context));
    }

    /** The event source that wakes a maintenance when its hook annotations change. */
    static final String HOOK_CHANGES = "nodemaintenance-hook-changes";

    @Override
    public UpdateControl<NodeMaintenance> reconcile(NodeMaintenance nm, Context<NodeMaintenance> context) {
        try (WorkFence.Permit permit = fence.enter()) {
            return reconcileInTerm(nm, context);
        }
    }

    private UpdateControl<NodeMaintenance> reconcileInTerm(NodeMaintenance nm, Context<NodeMaintenance> context) {
        NodeMaintenanceStatus prior = nm.getStatus();
        MaintenanceState state = NodeMaintenanceStatuses.toState(prior);
        long generation = Optional.ofNullable(nm.getMetadata().getGeneration()).orElse(0L);
        boolean specChanged =
                prior != null && prior.getObservedGeneration() != null && prior.getObservedGeneration() != generation;
        if (refusedForGood(prior, state) && !specChanged) {
            return UpdateControl.noUpdate(); // refused before it started: final until the spec is edited
        }
        Optional<String> pinned = pinnedNode(nm);
        String nodeName = pinned.orElseGet(() -> NodeMaintenanceValidator.nodeOf(nm));
        MaintenanceEvents events = eventsFor(nm, nodeName);

        MaintenanceMachine.Step step;
        Instant now = clock.instant();
        boolean admitted = pinned.isPresent() || NodeMaintenanceValidator.started(nm);
        Optional<String> refusal = admitted ? specError(nm, pinned.orElse(nodeName)) : refusal(nm, context);
        // Scheduled start: until its time it touches nothing and takes no budget slot.
        Optional<MaintenanceSchedule.Verdict> schedule = refusal.isPresent() || admitted
                ? Optional.empty()
                : Optional.of(MaintenanceRequest.from(nm.getSpec(), nodeName)
                        .schedule()
                        .at(now));
        Optional<MaintenanceSchedule.Verdict.Closed> notYet = schedule.filter(
                        MaintenanceSchedule.Verdict.Closed.class::isInstance)
                .map(MaintenanceSchedule.Verdict.Closed.class::cast);
        Optional<String> budget =
                refusal.isPresent() || admitted || notYet.isPresent() ? Optional.empty() : budgetHold(nm, context);
        Optional<String> moved = pinned.filter(p ->
                        !p.equals(nm.getSpec() == null ? null : nm.getSpec().getNodeName()))
                .map(p -> "spec.nodeName: is immutable: edited to "
                        + MaintenanceRequest.shown(String.valueOf(
                                nm.getSpec() == null ? null : nm.getSpec().getNodeName()))
                        + " after the maintenance of node " + p
                        + " started; it stays on node " + p + " (delete this NodeMaintenance to end it, and create one"
                        + " for the other node)");
        if (refusal.isPresent()) {
            if (!refusal.get().equals(state.lastError())) {
                events.emit(true, MaintenanceEvents.FAILED, refusal.get());
            }
            step = new MaintenanceMachine.Step(
                    state.toBuilder()
                            .phase(Phase.Failed)
                            .lastError(refusal.get())
                            .build(),
                    state.holdsNode() ? Optional.of(machine.settings().renewEvery()) : Optional.empty());
        } else if (notYet.isPresent()) {
            MaintenanceSchedule.Verdict.Closed closed = notYet.get();
            ScheduleStatus was = prior == null ? null : prior.getSchedule();
            if (state.phase() != Phase.Scheduled
                    || was == null
                    || !MaintenanceMachine.text(closed.opens()).equals(was.getNextStart())) {
                events.emit(false, MaintenanceEvents.SCHEDULED, "waits until " + closed.opens() + ": " + closed.why());
            }
            step = new MaintenanceMachine.Step(
                    state.toBuilder().phase(Phase.Scheduled).lastError(null).build(),
                    Optional.of(MaintenancePlanner.min(
                            SCHEDULE_LOOK, MaintenancePlanner.max(MIN_LOOK, Duration.between(now, closed.opens())))));
        } else if (budget.isPresent()) {
            // The operator-wide limits change as other maintenances end: look again, nothing is touched meanwhile.
            step = new MaintenanceMachine.Step(
                    state.toBuilder()
                            .phase(Phase.Pending)
                            .lastError(budget.get())
                            .build(),
                    Optional.of(REFUSED_RETRY));
        } else {
            try {
                MaintenanceRequest request = MaintenanceRequest.from(nm.getSpec(), nodeName);
                request = request.withHooks(MaintenanceHooks.Hooks.of(
                        hookAnnotations(nm), request.hooks().timeout()));
                step = machine.advance(request, state, specChanged, events);
            } catch (RuntimeException e) {
                // API trouble the machine did not expect (e.g. reading the Node): report it, look again soon.
                LOG.debugf(
                        e, "NodeMaintenance %s: step failed", nm.getMetadata().getName());
                step = new MaintenanceMachine.Step(
                        state.toBuilder().lastError(e.getMessage()).build(), Optional.of(END_RETRY));
            }
            if (moved.isPresent()) {
                if (prior == null
                        || prior.getLastError() == null
                        || !prior.getLastError().contains(moved.get())) {
                    events.emit(true, MaintenanceEvents.NODE_NAME_CHANGED, moved.get());
                }
                // The machine carries the last status's error forward: drop our own note from it before prefixing.
                String error = step.state().lastError();
                if (error != null && error.startsWith(moved.get())) {
                    error = error.substring(moved.get().length()).replaceFirst("^; ", "");
                }
                step = new MaintenanceMachine.Step(
                        step.state().toBuilder()
                                .lastError(error == null || error.isEmpty() ? moved.get() : moved.get() + "; " + error)
                                .build(),
                        step.requeueAfter());
            }
        }
        NodeMaintenanceStatus next = NodeMaintenanceStatuses.toStatus(step.state(), prior, generation, clock.instant());
        // Admitted (the machine ran for it): the node is pinned, so an edit of spec.nodeName cannot move it.
        next.setNodeName(refusal.isEmpty() && budget.isEmpty() && notYet.isEmpty() ? nodeName : pinned.orElse(null));
        if (refusal.isEmpty()) {
            next.setSchedule(scheduleStatus(nm, prior, schedule, step, now, events));
            step = new MaintenanceMachine.Step(
                    step.state(), untilWindowCloses(next.getSchedule(), step.state(), step.requeueAfter(), now));
        }
        NodeMaintenanceStatuses.touch(next, prior, clock.instant());
        metrics.phase(nm.getMetadata().getName(), next.getPhase());
        if (prior == null
                || prior.getPhase() != next.getPhase()
                || !java.util.Objects.equals(prior.getDrainProgress(), next.getDrainProgress())) {
            LOG.infof(
                    "NodeMaintenance %s (node %s): %s, drain %d%% (%d pod(s) to go)%s",
                    nm.getMetadata().getName(),
                    nodeName == null ? null : MaintenanceRequest.shown(nodeName),
                    next.getPhase(),
                    next.getDrainProgress(),
                    next.getPendingPods() == null ? 0 : next.getPendingPods().size(),
                    next.getLastError() == null ? "" : " - " + next.getLastError());
        }
        if (!next.equals(prior)) {
            writeStatus(nm, next);
        }
        UpdateControl<NodeMaintenance> control = UpdateControl.noUpdate();
        return step.requeueAfter().map(control::rescheduleAfter).orElse(control);
    }

    /**
     * The object's annotations as the API server has them now, when the cached copy carries hooks. The hook-change
     * informer that woke this reconcile is not the one that feeds the primary cache: the cache may not show the
     * removal yet (seen under load), and its own copy of that update is dropped by the generation filter, so a hold
     * read from it would last until the next renewal. One GET, only while hooks are on the object.
     */
    private Map<String, String> hookAnnotations(NodeMaintenance nm) {
        Map<String, String> cached = nm.getMetadata().getAnnotations();
        if (!MaintenanceHooks.changed(null, cached)) {
            return cached; // no hooks in the cache: an added one is seen by the next reconcile its event causes
        }
        NodeMaintenance fresh = client.resources(NodeMaintenance.class)
                .withName(nm.getMetadata().getName())
                .get();
        return fresh == null ? cached : fresh.getMetadata().getAnnotations();
    }

    /**
     * status.schedule: when a Scheduled maintenance may start; once it starts, when the window it started in
     * closes, and whether its drain may not (or did not) finish inside it, said once as a Warning.
     */
    private static ScheduleStatus scheduleStatus(
            NodeMaintenance nm,
            NodeMaintenanceStatus prior,
            Optional<MaintenanceSchedule.Verdict> verdict,
            MaintenanceMachine.Step step,
            Instant now,
            MaintenanceEvents events) {
        ScheduleStatus was = prior == null ? null : prior.getSchedule();
        if (verdict.orElse(null) instanceof MaintenanceSchedule.Verdict.Closed closed) {
            return new ScheduleStatus(MaintenanceMachine.text(closed.opens()), null, closed.why());
        }
        Optional<String> message;
        String closes;
        if (verdict.orElse(null) instanceof MaintenanceSchedule.Verdict.Open open) {
            // admitted now (or held by the budget): the window it starts in, and whether its drain fits
            closes = open.closes().map(MaintenanceMachine::text).orElse(null);
            message = step.state().phase() == Phase.Pending
                    ? Optional.empty() // held by the budget: said when it starts
                    : open.closes()
                            .flatMap(c -> MaintenanceSchedule.mayOverrun(
                                    now,
                                    c,
                                    DrainOptions.from(nm.getSpec().getDrain()).timeout()));
        } else {
            // started before: the window it started in; a drain still running past its close says so
            closes = was == null ? null : was.getWindowCloses();
            MaintenanceState s = step.state();
            Optional<String> overran = s.phase() == Phase.Running && s.drainedAt() == null && closes != null
                    ? MaintenanceSchedule.overran(now, Optional.of(Instant.parse(closes)))
                    : Optional.empty();
            message = overran.or(() -> Optional.ofNullable(was == null ? null : was.getMessage()));
        }
        if (closes == null) {
            return null;
        }
        if (message.isPresent() && (was == null || !message.get().equals(was.getMessage()))) {
            events.emit(true, MaintenanceEvents.WINDOW_OVERRUN, message.get());
        }
        return new ScheduleStatus(null, closes, message.orElse(null));
    }

    /** A drain still running when its window closes is looked at then, to say so at that moment. */
    private static Optional<Duration> untilWindowCloses(
            ScheduleStatus schedule, MaintenanceState state, Optional<Duration> requeue, Instant now) {
        if (schedule == null
                || schedule.getWindowCloses() == null
                || state.phase() != Phase.Running
                || state.drainedAt() != null) {
            return requeue;
        }
        Instant closes = Instant.parse(schedule.getWindowCloses());
        if (!now.isBefore(closes)) {
            return requeue;
        }
        Duration left = MaintenancePlanner.max(MIN_LOOK, Duration.between(now, closes));
        return Optional.of(requeue.map(r -> MaintenancePlanner.min(r, left)).orElse(left));
    }

    /** Failed before it held its node (bad spec, unknown node, a duplicate): nothing to do until the spec changes. */
    private static boolean refusedForGood(NodeMaintenanceStatus prior, MaintenanceState state) {
        return prior != null
                && prior.getPhase() == Phase.Failed
                && !state.holdsNode()
                && (prior.getNodeName() == null || prior.getNodeName().isBlank())
                && prior.getLease() == null;
    }

    /**
     * The node this maintenance was admitted for: {@code status.nodeName}, or for a status written before it
     * was recorded, the node of the lease it holds or waits for ({@code <prefix><node>}).
     */
    private Optional<String> pinnedNode(NodeMaintenance nm) {
        NodeMaintenanceStatus st = nm.getStatus();
        if (st == null) {
            return Optional.empty();
        }
        if (st.getNodeName() != null && !st.getNodeName().isBlank()) {
            return Optional.of(st.getNodeName());
        }
        String prefix = machine.settings().leaseNamePrefix();
        return Optional.ofNullable(st.getLease())
                .map(LeaseStatus::getName)
                .filter(n -> n.startsWith(prefix) && n.length() > prefix.length())
                .map(n -> n.substring(prefix.length()));
    }

    /**
     * Replaces the whole status in one JSON patch on the status subresource: works whether or not a
     * status exists yet, and clears fields that became empty (a merge patch would keep them).
     */
    private void writeStatus(NodeMaintenance nm, NodeMaintenanceStatus status) {
        String patch = "[{\"op\":\"add\",\"path\":\"/status\",\"value\":"
                + client.getKubernetesSerialization().asJson(status) + "}]";
        client.resources(NodeMaintenance.class)
                .withName(nm.getMetadata().getName())
                .subresource("status")
                .patch(PatchContext.of(PatchType.JSON), patch);
        nm.setStatus(status);
    }

    /** The spec read for {@code nodeName} (pinned, or being admitted); a bad field is the message. */
    private static Optional<String> specError(NodeMaintenance nm, String nodeName) {
        try {
            MaintenanceRequest.from(nm.getSpec(), nodeName);
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.of(e.getMessage());
        }
    }

    /**
     * The webhook's rules that refuse a request for good (spec, node, a NodeMaintenance ahead of it on the
     * node), applied here too for clusters without the webhook, before anything is written to the Node.
     */
    private Optional<String> refusal(NodeMaintenance nm, Context<NodeMaintenance> context) {
        List<String> errors = NodeMaintenanceValidator.refusals(nm, null, view(nm, context));
        return errors.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", errors));
    }

    /** The operator-wide limits (cap, control-plane budget) that keep an admissible request Pending for now. */
    private Optional<String> budgetHold(NodeMaintenance nm, Context<NodeMaintenance> context) {
        var view = view(nm, context);
        List<String> errors = NodeMaintenanceValidator.validate(nm, null, view, limits);
        return errors.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", errors));
    }

    private NodeMaintenanceValidator.ClusterView view(NodeMaintenance nm, Context<NodeMaintenance> context) {
        String nodeName = NodeMaintenanceValidator.nodeOf(nm);
        Optional<Node> node = nodeName == null
                ? Optional.empty()
                : Optional.ofNullable(client.nodes().withName(nodeName).get());
        List<Node> nodes = node.filter(NodeMaintenanceValidator::isControlPlane).isPresent()
                ? client.nodes().list().getItems()
                : List.of();
        List<NodeMaintenance> all = context.getPrimaryCache().list().toList();
        return new NodeMaintenanceValidator.ClusterView(
                node, nodes, NodeMaintenanceValidator.ahead(nm, all), elsewhere.nodes());
    }

    @Override
    public DeleteControl cleanup(NodeMaintenance nm, Context<NodeMaintenance> context) {
        try (WorkFence.Permit permit = fence.enter()) {
            return cleanupInTerm(nm, context);
        }
    }

    private DeleteControl cleanupInTerm(NodeMaintenance nm, Context<NodeMaintenance> context) {
        MaintenanceState state = NodeMaintenanceStatuses.toState(nm.getStatus());
        // The node it was admitted for, whatever spec.nodeName says now; none when it never named a valid one.
        String nodeName = pinnedNode(nm).orElseGet(() -> NodeMaintenanceValidator.nodeOf(nm));
        MaintenanceEvents events = eventsFor(nm, nodeName);
        boolean ended = nodeName != null && state.phase() != Phase.Ended && ownsNode(nm, nodeName, state, context);
        if (ended) {
            // only a maintenance that held the node has something for pre-uncordon hooks to wait for
            Optional<Duration> hooksHold = state.holdsNode() ? preUncordonHooks(nm, state, events) : Optional.empty();
            if (hooksHold.isPresent()) {
                return DeleteControl.noFinalizerRemoval().rescheduleAfter(hooksHold.get());
            }
            try {
                machine.end(nodeName, events);
            } catch (RuntimeException e) {
                LOG.warnf(
                        "NodeMaintenance %s: ending maintenance of node %s failed, retrying: %s",
                        nm.getMetadata().getName(), nodeName, e.getMessage());
                return DeleteControl.noFinalizerRemoval().rescheduleAfter(END_RETRY);
            }
            // Only a maintenance that had the node says it is out of maintenance (a waiting or refused one never had
            // it, and the node may well stay in someone else's maintenance).
            events.emit(
                    false,
                    MaintenanceEvents.REMOVED,
                    "NodeMaintenance " + nm.getMetadata().getName() + " removed; node " + nodeName
                            + " is out of maintenance");
        }
        machine.forget(nm.getMetadata().getName(), nodeName == null ? "" : nodeName);
        LOG.infof("NodeMaintenance %s (node %s) removed", nm.getMetadata().getName(), nodeName);
        return DeleteControl.defaultDelete();
    }

    /**
     * Pre-uncordon hooks (Cluster API's pre-terminate hook): the node stays in maintenance while any is on the
     * deleted NodeMaintenance, for at most spec.hooks.timeout; the wait is in status.hooks. Empty when the undo
     * may go ahead (no hooks, or they timed out: the node is restored anyway, with a Warning).
     */
    private Optional<Duration> preUncordonHooks(NodeMaintenance nm, MaintenanceState state, MaintenanceEvents events) {
        Duration timeout;
        try {
            timeout = MaintenanceRequest.hooks(
                            nm.getSpec() == null ? null : nm.getSpec().getHooks())
                    .timeout();
        } catch (IllegalArgumentException e) {
            timeout = MaintenanceHooks.DEFAULT_TIMEOUT; // an edited bad spec does not keep the node
        }
        MaintenanceHooks.Hooks hooks = MaintenanceHooks.Hooks.of(hookAnnotations(nm), timeout);
        Instant now = clock.instant();
        MaintenanceHooks.Verdict verdict =
                MaintenanceHooks.decide(MaintenanceHooks.Point.PreUncordon, hooks, state.hookWait(), now);
        boolean waited = state.hookWait() != null && state.hookWait().point() == MaintenanceHooks.Point.PreUncordon;
        if (verdict instanceof MaintenanceHooks.Verdict.Hold hold) {
            if (!hold.waiting().equals(state.hookWait())) {
                events.emit(false, MaintenanceEvents.HOOKS_WAITING, hold.message());
            }
            NodeMaintenanceStatus prior = nm.getStatus();
            NodeMaintenanceStatus next = NodeMaintenanceStatuses.toStatus(
                    state.toBuilder().hookWait(hold.waiting()).build(),
                    prior,
                    Optional.ofNullable(nm.getMetadata().getGeneration()).orElse(0L),
                    now);
            if (!next.equals(prior)) {
                writeStatus(nm, next);
            }
            return Optional.of(MaintenancePlanner.max(MIN_LOOK, hold.recheck()));
        }
        if (verdict instanceof MaintenanceHooks.Verdict.TimedOut timedOut) {
            events.emit(
                    true,
                    MaintenanceEvents.HOOK_TIMED_OUT,
                    timedOut.message() + "; restoring node " + NodeMaintenanceValidator.nodeOf(nm) + " anyway");
        } else if (waited) {
            events.emit(false, MaintenanceEvents.HOOKS_RELEASED, "pre-uncordon hooks removed; ending the maintenance");
        }
        return Optional.empty();
    }

    /**
     * Whether undoing is ours to do: we hold the node, or (status lost) no other NodeMaintenance does.
     * A refused duplicate must never uncordon the node another one is draining.
     */
    private boolean ownsNode(
            NodeMaintenance nm, String nodeName, MaintenanceState state, Context<NodeMaintenance> context) {
        if (state.holdsNode()) {
            return true;
        }
        if (nm.getStatus() != null && nm.getStatus().getPhase() == Phase.Waiting) {
            return false; // waited for a lease held elsewhere: the machine touches the node only with the lease
        }
        if (nm.getStatus() != null
                && nm.getStatus().getPhase() == Phase.Failed
                && pinnedNode(nm).isEmpty()) {
            return false; // refused before it was admitted: it never touched the node
        }
        return context.getPrimaryCache()
                .list()
                .filter(other ->
                        !other.getMetadata().getName().equals(nm.getMetadata().getName()))
                .filter(other -> nodeName.equals(NodeMaintenanceValidator.nodeOf(other)))
                .noneMatch(NodeMaintenanceValidator::started);
    }

    private MaintenanceEvents eventsFor(NodeMaintenance nm, String nodeName) {
        ObjectReference self = new ObjectReferenceBuilder()
                .withApiVersion(nm.getApiVersion())
                .withKind(nm.getKind())
                .withName(nm.getMetadata().getName())
                .withUid(nm.getMetadata().getUid())
                .build();
        return (warning, reason, message) -> {
            String type = warning ? "Warning" : "Normal";
            recorder.record(self, type, reason, message);
            if (nodeName != null && NODE_REASONS.contains(reason)) {
                recorder.record(
                        new ObjectReferenceBuilder()
                                .withApiVersion("v1")
                                .withKind("Node")
                                .withName(nodeName)
                                .withUid(nodeName)
                                .build(),
                        type,
                        reason,
                        message);
            }
        };
    }
}
