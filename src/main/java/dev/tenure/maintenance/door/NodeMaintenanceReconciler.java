package dev.tenure.maintenance.door;

import dev.tenure.election.WorkFence;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.NodeMaintenanceAdmission;
import dev.tenure.maintenance.admission.NodeMaintenanceValidator;
import dev.tenure.maintenance.admission.NodesMaintainedElsewhere;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.ScheduleStatus;
import dev.tenure.maintenance.drain.DrainReport;
import dev.tenure.maintenance.machine.EventRecorder;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceHooks;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenancePlanner;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceSchedule;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
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
// issue 29: drain rules that select by namespace read the pods' namespaces; the wait for volume detach lists
// VolumeAttachments; a preview lists the budgets that would refuse an eviction
@RBACRule(apiGroups = "", resources = "namespaces", verbs = "get")
@RBACRule(apiGroups = "storage.k8s.io", resources = "volumeattachments", verbs = "list")
@RBACRule(apiGroups = "policy", resources = "poddisruptionbudgets", verbs = "list")
@RBACRule(
        apiGroups = "",
        resources = "events",
        verbs = {"get", "create", "patch"})
public class NodeMaintenanceReconciler implements Reconciler<NodeMaintenance>, Cleaner<NodeMaintenance> {

    public static final String NAME = "nodemaintenance";
    private static final Logger LOG = Logger.getLogger(NodeMaintenanceReconciler.class);
    private static final Duration REFUSED_RETRY = Duration.ofSeconds(30);
    /**
     * A request the limits hold is woken when a maintenance ends or the queue moves ({@link NodeMaintenanceWakeUps#QUEUE_AND_HOOK_CHANGES});
     * this look is only the backstop for a missed event.
     */
    static final Duration QUEUE_LOOK = Duration.ofSeconds(30);

    private static final Duration END_RETRY = Duration.ofSeconds(5);
    /**
     * A Scheduled maintenance looks again at its opening, and at least this often: the wall clock may be stepped,
     * and the spec edited, in between.
     */
    private static final Duration SCHEDULE_LOOK = Duration.ofMinutes(10);

    static final Duration MIN_LOOK = Duration.ofMillis(100);
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
    private final MaintenanceLimits limits;
    private final Clock clock;
    private final NodesMaintainedElsewhere elsewhere;
    /** The operator's leadership term: every reconcile and cleanup holds a permit of it, so a stop waits them out. */
    private final WorkFence fence;
    /** How often a held request looks again without being woken ({@link #QUEUE_LOOK}; tests set it long). */
    private final Duration queueLook;

    private final SharedRequests shared;
    /** This reconciler's status writes: no reconcile decides from a version one of them wrote over. */
    private final OwnStatusWrites ownWrites;
    /** The informer behind {@link NodeMaintenanceWakeUps#QUEUE_AND_HOOK_CHANGES}, once the operator has asked for it. */
    private volatile InformerEventSource<NodeMaintenance, NodeMaintenance> changes;

    @Inject
    public NodeMaintenanceReconciler(
            MaintenanceMachine machine,
            KubernetesClient client,
            EventRecorder recorder,
            MaintenanceMetrics metrics,
            MaintenanceLimits limits,
            NodesMaintainedElsewhere elsewhere,
            WorkFence fence,
            Clock clock) {
        this(machine, client, recorder, metrics, limits, elsewhere, fence, clock, QUEUE_LOOK);
    }

    /** As the CDI constructor, with the backstop look of a held request given ({@link #QUEUE_LOOK} there). */
    public NodeMaintenanceReconciler(
            MaintenanceMachine machine,
            KubernetesClient client,
            EventRecorder recorder,
            MaintenanceMetrics metrics,
            MaintenanceLimits limits,
            NodesMaintainedElsewhere elsewhere,
            WorkFence fence,
            Clock clock,
            Duration queueLook) {
        this.queueLook = queueLook;
        this.shared = new SharedRequests(clock, metrics, queueLook, this::writeStatus);
        this.ownWrites = new OwnStatusWrites(client.getKubernetesSerialization());
        this.elsewhere = elsewhere;
        this.fence = fence;
        this.machine = machine;
        this.client = client;
        this.recorder = recorder;
        this.metrics = metrics;
        this.limits = limits;
        this.clock = clock;
    }

    /** The second NodeMaintenance informer: {@link NodeMaintenanceWakeUps}. */
    @Override
    public List<EventSource<?, NodeMaintenance>> prepareEventSources(EventSourceContext<NodeMaintenance> context) {
        changes = NodeMaintenanceWakeUps.source(context);
        return List.of(changes);
    }

    @Override
    public UpdateControl<NodeMaintenance> reconcile(NodeMaintenance nm, Context<NodeMaintenance> context) {
        try (WorkFence.Permit permit = fence.enter()) {
            return reconcileInTerm(asRead(nm, context), context);
        }
    }

    /**
     * The NodeMaintenance to decide from: JOSDK hands over a copy made by serializing the cached object, and what was
     * malformed is noted on that one; and the informer's cache may not have this reconciler's last status write yet.
     */
    private NodeMaintenance asRead(NodeMaintenance nm, Context<NodeMaintenance> context) {
        context.getPrimaryCache()
                .get(io.javaoperatorsdk.operator.processing.event.ResourceID.fromResource(nm))
                .ifPresent(read -> NodeMaintenance.carryMalformedFields(read, nm));
        return ownWrites.freshest(nm);
    }

    /** Observe (the resource; for a request not yet admitted, one cluster view), decide (pure), act. */
    private UpdateControl<NodeMaintenance> reconcileInTerm(NodeMaintenance nm, Context<NodeMaintenance> context) {
        NodeMaintenanceStatus prior = nm.getStatus();
        MaintenanceState state = NodeMaintenanceStatuses.toState(prior);
        Optional<String> pinned = pinnedNode(nm);
        Instant now = clock.instant();
        if (previewing(nm, state, pinned)) {
            return preview(
                    nm,
                    prior,
                    state,
                    NodeMaintenanceAdmission.nodeName(nm, pinned),
                    NodeMaintenanceAdmission.generation(nm));
        }
        Optional<NodeMaintenanceValidator.ClusterView> view =
                NodeMaintenanceAdmission.needsClusterView(nm, state, pinned)
                        ? Optional.of(view(nm, context))
                        : Optional.empty();
        NodeMaintenanceAdmission.Decision decision = NodeMaintenanceAdmission.decide(
                new NodeMaintenanceAdmission.Observed(nm, state, pinned, view, now), limits);
        if (decision instanceof NodeMaintenanceAdmission.Unchanged) {
            return UpdateControl.noUpdate();
        }
        String nodeName = NodeMaintenanceAdmission.nodeName(nm, pinned);
        if (decision instanceof NodeMaintenanceAdmission.Joined joined) {
            return shared.follow(
                    nm, prior, state, nodeName, joined.owner(), changes, context, eventsFor(nm, nodeName), now);
        }
        MaintenanceMachine.Step step = act(nm, prior, state, nodeName, decision, now);
        NodeMaintenanceStatus next = NodeMaintenanceStatuses.toStatus(
                step.state(), prior, NodeMaintenanceAdmission.generation(nm), clock.instant());
        // Admitted (the machine ran for it): the node is pinned, so an edit of spec.nodeName cannot move it.
        next.setNodeName(decision instanceof NodeMaintenanceAdmission.Admit ? nodeName : pinned.orElse(null));
        next.setQueuePosition(
                decision instanceof NodeMaintenanceAdmission.Hold hold ? Integer.valueOf(hold.position()) : null);
        if (decision instanceof NodeMaintenanceAdmission.Admit) {
            next.setSharedWith(orNull(NodeMaintenanceWakeUps.joiners(changes, nm, nodeName, context)));
        }
        if (!(decision instanceof NodeMaintenanceAdmission.Refuse)) {
            next.setSchedule(ScheduleStatuses.of(nm, prior, decision.schedule(), step, now, eventsFor(nm, nodeName)));
            step = new MaintenanceMachine.Step(
                    step.state(),
                    ScheduleStatuses.untilWindowCloses(next.getSchedule(), step.state(), step.requeueAfter(), now));
        }
        NodeMaintenanceStatuses.touch(next, prior, clock.instant());
        metrics.phase(nm.getMetadata().getName(), next.getPhase());
        if (prior == null
                || prior.getPhase() != next.getPhase()
                || !java.util.Objects.equals(prior.getDrainProgress(), next.getDrainProgress())) {
            LOG.infof(
                    "NodeMaintenance %s (node %s): %s, drain %d%% (%d pod(s) to go)%s",
                    nm.getMetadata().getName(),
                    nodeName == null ? null : DrainReport.shown(nodeName),
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

    /** Carries out the admission's decision: the next machine state and when to look again. */
    private MaintenanceMachine.Step act(
            NodeMaintenance nm,
            NodeMaintenanceStatus prior,
            MaintenanceState state,
            String nodeName,
            NodeMaintenanceAdmission.Decision decision,
            Instant now) {
        MaintenanceEvents events = eventsFor(nm, nodeName);
        if (decision instanceof NodeMaintenanceAdmission.Scheduled scheduled) {
            // not its time yet: it touches nothing and takes no budget slot; said once per next start
            MaintenanceSchedule.Verdict.Closed closed = scheduled.closed();
            ScheduleStatus was = prior == null ? null : prior.getSchedule();
            if (state.phase() != Phase.Scheduled
                    || was == null
                    || !NodeMaintenanceStatuses.text(closed.opens()).equals(was.getNextStart())) {
                events.emit(false, MaintenanceEvents.SCHEDULED, "waits until " + closed.opens() + ": " + closed.why());
            }
            return new MaintenanceMachine.Step(
                    state.toBuilder().phase(Phase.Scheduled).lastError(null).build(),
                    Optional.of(MaintenancePlanner.min(
                            SCHEDULE_LOOK, MaintenancePlanner.max(MIN_LOOK, Duration.between(now, closed.opens())))));
        }
        if (decision instanceof NodeMaintenanceAdmission.Refuse refuse) {
            if (refuse.announce()) {
                events.emit(true, MaintenanceEvents.FAILED, refuse.error());
            }
            return new MaintenanceMachine.Step(
                    state.toBuilder()
                            .phase(Phase.Failed)
                            .lastError(refuse.error())
                            .build(),
                    state.holdsNode() ? Optional.of(machine.settings().renewEvery()) : Optional.empty());
        }
        if (decision instanceof NodeMaintenanceAdmission.Hold hold) {
            // The operator-wide limits change as other maintenances end: woken then (QUEUE_AND_HOOK_CHANGES), and
            // looked at again now and then; nothing is touched meanwhile. A new place in the queue is said once.
            Integer was = prior == null ? null : prior.getQueuePosition();
            if (was == null || was != hold.position()) {
                events.emit(false, MaintenanceEvents.QUEUED, hold.error());
            }
            return new MaintenanceMachine.Step(
                    state.toBuilder()
                            .phase(Phase.Pending)
                            .lastError(hold.error())
                            .build(),
                    Optional.of(queueLook));
        }
        return advance(nm, state, (NodeMaintenanceAdmission.Admit) decision, events);
    }

    private MaintenanceMachine.Step advance(
            NodeMaintenance nm,
            MaintenanceState state,
            NodeMaintenanceAdmission.Admit admit,
            MaintenanceEvents events) {
        MaintenanceMachine.Step step;
        try {
            MaintenanceRequest request = admit.request()
                    .withHooks(MaintenanceHooks.Hooks.of(
                            hookAnnotations(nm), admit.request().hooks().timeout()));
            step = machine.advance(request, state, admit.retryFailed(), admit.node(), events);
        } catch (RuntimeException e) {
            // API trouble the machine did not expect (e.g. reading the Node): report it, look again soon.
            LOG.debugf(e, "NodeMaintenance %s: step failed", nm.getMetadata().getName());
            step = new MaintenanceMachine.Step(
                    state.toBuilder().lastError(e.getMessage()).build(), Optional.of(END_RETRY));
        }
        if (admit.moved().isEmpty()) {
            return step;
        }
        String note = admit.moved().get();
        if (admit.announceMove()) {
            events.emit(true, MaintenanceEvents.NODE_NAME_CHANGED, note);
        }
        return new MaintenanceMachine.Step(
                step.state().toBuilder()
                        .lastError(NodeMaintenanceAdmission.withMoveNote(
                                step.state().lastError(), note))
                        .build(),
                step.requeueAfter());
    }

    private static <T> List<T> orNull(List<T> list) {
        return list.isEmpty() ? null : list;
    }

    /** spec.preview on a maintenance that has not started: plan only, touch nothing. */
    private static boolean previewing(NodeMaintenance nm, MaintenanceState state, Optional<String> pinned) {
        return nm.getSpec() != null
                && Boolean.TRUE.equals(nm.getSpec().getPreview())
                && pinned.isEmpty()
                && !state.holdsNode();
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
     * The preview's status: phase Pending, status.drainPlan.pods the plan, the node not pinned (the maintenance is
     * admitted, and its node pinned, only when spec.preview goes back to false). Refreshed every 30 s.
     */
    private UpdateControl<NodeMaintenance> preview(
            NodeMaintenance nm, NodeMaintenanceStatus prior, MaintenanceState state, String nodeName, long generation) {
        MaintenanceMachine.Step step;
        try {
            step = machine.preview(MaintenanceRequest.from(nm.getSpec(), nodeName), state);
        } catch (IllegalArgumentException e) {
            step = new MaintenanceMachine.Step(
                    state.toBuilder()
                            .phase(Phase.Pending)
                            .lastError(e.getMessage())
                            .build(),
                    Optional.of(REFUSED_RETRY));
        }
        NodeMaintenanceStatus next = NodeMaintenanceStatuses.toStatus(step.state(), prior, generation, clock.instant());
        if (!next.equals(prior)) {
            writeStatus(nm, next);
        }
        UpdateControl<NodeMaintenance> control = UpdateControl.noUpdate();
        return step.requeueAfter().map(control::rescheduleAfter).orElse(control);
    }

    private Optional<String> pinnedNode(NodeMaintenance nm) {
        return NodeMaintenanceAdmission.pinnedNode(nm, machine.settings().leaseNamePrefix());
    }

    /**
     * Replaces the whole status in one JSON patch on the status subresource: works whether or not a
     * status exists yet, and clears fields that became empty (a merge patch would keep them).
     */
    private void writeStatus(NodeMaintenance nm, NodeMaintenanceStatus status) {
        String patch = "[{\"op\":\"add\",\"path\":\"/status\",\"value\":"
                + client.getKubernetesSerialization().asJson(status) + "}]";
        NodeMaintenance answer = client.resources(NodeMaintenance.class)
                .withName(nm.getMetadata().getName())
                .subresource("status")
                .patch(PatchContext.of(PatchType.JSON), patch);
        ownWrites.wrote(nm, answer);
        nm.setStatus(status);
    }

    private NodeMaintenanceValidator.ClusterView view(NodeMaintenance nm, Context<NodeMaintenance> context) {
        String nodeName = NodeMaintenanceValidator.nodeOf(nm);
        Optional<Node> node = nodeName == null
                ? Optional.empty()
                : Optional.ofNullable(client.nodes().withName(nodeName).get());
        List<Node> nodes = node.filter(MaintenanceLimits::isControlPlane).isPresent()
                ? client.nodes().list().getItems()
                : List.of();
        // Read from the informer whose events wake the queue: a request woken by a release sees that release (the
        // primary cache is fed by another watch and may not show it yet).
        InformerEventSource<NodeMaintenance, NodeMaintenance> source = changes;
        List<NodeMaintenance> all = source == null
                ? context.getPrimaryCache().list().toList()
                : source.list().toList();
        return new NodeMaintenanceValidator.ClusterView(
                node, nodes, NodeMaintenanceValidator.ahead(nm, all), elsewhere.nodes());
    }

    @Override
    public DeleteControl cleanup(NodeMaintenance nm, Context<NodeMaintenance> context) {
        try (WorkFence.Permit permit = fence.enter()) {
            DeleteControl control = cleanupInTerm(asRead(nm, context), context);
            if (control.isRemoveFinalizer()) {
                ownWrites.forget(nm.getMetadata().getName());
            }
            return control;
        }
    }

    private DeleteControl cleanupInTerm(NodeMaintenance nm, Context<NodeMaintenance> context) {
        MaintenanceState state = NodeMaintenanceStatuses.toState(nm.getStatus());
        // The node it was admitted for, whatever spec.nodeName says now; none when it never named a valid one.
        String nodeName = NodeMaintenanceAdmission.nodeName(nm, pinnedNode(nm));
        MaintenanceEvents events = eventsFor(nm, nodeName);
        boolean ended = nodeName != null && state.phase() != Phase.Ended && ownsNode(nm, nodeName, state, context);
        if (ended) {
            Optional<Duration> sharedHold = state.holdsNode()
                    ? shared.holdForJoiners(nm, state, nodeName, changes, context, events)
                    : Optional.empty();
            if (sharedHold.isPresent()) {
                return DeleteControl.noFinalizerRemoval().rescheduleAfter(sharedHold.get());
            }
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
        // a joiner never had the node: its owner's drain state and node metrics stay
        boolean joiner = NodeMaintenanceValidator.joinedTo(nm).isPresent();
        machine.forget(nm.getMetadata().getName(), nodeName == null || joiner ? "" : nodeName);
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
        if (nm.getSpec() != null
                && Boolean.TRUE.equals(nm.getSpec().getPreview())
                && pinnedNode(nm).isEmpty()) {
            return false; // a preview that never started: it never touched the node
        }
        if (NodeMaintenanceValidator.joinedTo(nm).isPresent()) {
            return false; // joined another's maintenance: the owner holds the lease and does the undo
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
