package dev.tenure.maintenance.door;

import dev.tenure.election.WorkFence;
import dev.tenure.kube.BudgetCache;
import dev.tenure.kube.NodeCache;
import dev.tenure.kube.WholeStatus;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.NodeMaintenanceAdmission;
import dev.tenure.maintenance.admission.NodeMaintenanceValidator;
import dev.tenure.maintenance.admission.NodesMaintainedElsewhere;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.machine.EventRecorder;
import dev.tenure.maintenance.machine.MaintenanceHooks;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
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
import java.util.Objects;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The NodeMaintenance front door of the {@link MaintenanceMachine}. Each reconcile (and cleanup, which undoes the
 * maintenance on delete: finalizer) observes (here: the resource, and for a request not yet admitted one cluster view),
 * decides once ({@link DoorDecisions}: admit, refuse, hold, join, preview, schedule, advance), and acts ({@link
 * DoorActs}: the machine step, the events, the status write); it does one step and reschedules. Many
 * NodeMaintenances proceed at once (one reconcile at a time per resource).
 */
@ControllerConfiguration(name = NodeMaintenanceReconciler.NAME)
// Exactly the calls JOSDK (informer; finalizer and status by JSON merge patch, SSA being off), the maintenance
// machine, validator and event recorder make, for both front doors: the annotation door (AnnotationDoor, not a JOSDK
// reconciler) makes the same calls; both watch the shared Node cache (NodeCache; here for NodeSlotWakeUps).
// ManifestAssembly drops
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
        verbs = {"list", "watch", "delete"})
@RBACRule(apiGroups = "", resources = "pods/eviction", verbs = "create")
@RBACRule(apiGroups = "apps", resources = "daemonsets", verbs = "get")
// issue 29: drain rules that select by namespace read the pods' namespaces; the wait for volume detach lists
// VolumeAttachments and reads their PersistentVolumes' claims; a preview lists the budgets that would refuse an
// eviction; issue 49: the placement forecast lists namespaces when an affinity term selects them by label
@RBACRule(
        apiGroups = "",
        resources = "namespaces",
        verbs = {"get", "list"})
@RBACRule(apiGroups = "storage.k8s.io", resources = "volumeattachments", verbs = "list")
@RBACRule(apiGroups = "", resources = "persistentvolumes", verbs = "get")
// issue 49: the placement forecast reads, for the pods it will evict, their claims (and the claims' volumes, above)
@RBACRule(apiGroups = "", resources = "persistentvolumeclaims", verbs = "get")
// issue 51: the one watch of budgets (BudgetCache) wakes a drain a budget holds when it admits evictions again
@RBACRule(
        apiGroups = "policy",
        resources = "poddisruptionbudgets",
        verbs = {"list", "watch"})
@RBACRule(
        apiGroups = "",
        resources = "events",
        verbs = {"get", "create", "patch"})
public class NodeMaintenanceReconciler implements Reconciler<NodeMaintenance>, Cleaner<NodeMaintenance> {

    public static final String NAME = "nodemaintenance";
    private static final Logger LOG = Logger.getLogger(NodeMaintenanceReconciler.class);
    /**
     * A request the limits hold is woken when a maintenance ends or the queue moves ({@link NodeMaintenanceWakeUps#QUEUE_AND_HOOK_CHANGES})
     * and when a node frees a slot ({@link NodeSlotWakeUps}); this look is only the backstop for a missed event.
     */
    static final Duration QUEUE_LOOK = Duration.ofSeconds(30);
    /** A step whose write keeps failing is looked at again this often once the controller's retries are spent. */
    static final Duration FAILED_STEP_LOOK = Duration.ofMinutes(1);

    private final KubernetesClient client;
    private final Clock clock;
    private final NodesMaintainedElsewhere elsewhere;
    /** The operator's one Node watch: a node that frees a slot wakes the held requests ({@link NodeSlotWakeUps}). */
    private final NodeCache nodes;
    /** The operator's leadership term: every reconcile and cleanup holds a permit of it, so a stop waits them out. */
    private final WorkFence fence;
    /** The operator's one PodDisruptionBudget watch: a budget that admits evictions again wakes its drains. */
    private final BudgetCache budgets;
    /** The machine whose drain memory a budget's change frees ({@link BudgetWakeUps}). */
    private final MaintenanceMachine machine;

    private final DoorDecisions.Rules rules;
    /** This reconciler's status writes: no reconcile decides from a version one of them wrote over. */
    private final OwnStatusWrites ownWrites;

    private final AdmissionLedger admissions = new AdmissionLedger();

    private final DoorActs acts;
    /** A node lease holder that is this operator: this instance, or an earlier one whose leases it takes over. */
    private final java.util.function.Predicate<String> ourHolder;
    /** The node leases' namespace and names, read to pin a maintenance whose status is not ours. */
    private final MaintenanceSettings settings;
    /** The informer behind {@link NodeMaintenanceWakeUps#QUEUE_AND_HOOK_CHANGES}, once the operator has asked for it. */
    private volatile InformerEventSource<NodeMaintenance, NodeMaintenance> changes;
    /** Pods deleted or finished wake the maintenances spec.drain.placement Wait holds ({@link PodRoomWakeUps}). */
    private volatile PodRoomWakeUps podRoom;

    @Inject
    public NodeMaintenanceReconciler(
            MaintenanceMachine machine,
            KubernetesClient client,
            EventRecorder recorder,
            MaintenanceMetrics metrics,
            MaintenanceLimits limits,
            NodesMaintainedElsewhere elsewhere,
            NodeCache nodes,
            BudgetCache budgets,
            WorkFence fence,
            Clock clock) {
        this(machine, client, recorder, metrics, limits, elsewhere, nodes, budgets, fence, clock, QUEUE_LOOK);
    }

    /**
     * As the CDI constructor, with the backstop look of a held request given ({@link #QUEUE_LOOK} there) and a
     * PodDisruptionBudget watch of its own.
     */
    public NodeMaintenanceReconciler(
            MaintenanceMachine machine,
            KubernetesClient client,
            EventRecorder recorder,
            MaintenanceMetrics metrics,
            MaintenanceLimits limits,
            NodesMaintainedElsewhere elsewhere,
            NodeCache nodes,
            WorkFence fence,
            Clock clock,
            Duration queueLook) {
        this(
                machine,
                client,
                recorder,
                metrics,
                limits,
                elsewhere,
                nodes,
                new BudgetCache(client),
                fence,
                clock,
                queueLook);
    }

    /** As the CDI constructor, with the backstop look of a held request given ({@link #QUEUE_LOOK} there). */
    public NodeMaintenanceReconciler(
            MaintenanceMachine machine,
            KubernetesClient client,
            EventRecorder recorder,
            MaintenanceMetrics metrics,
            MaintenanceLimits limits,
            NodesMaintainedElsewhere elsewhere,
            NodeCache nodes,
            BudgetCache budgets,
            WorkFence fence,
            Clock clock,
            Duration queueLook) {
        this.budgets = budgets;
        this.machine = machine;
        this.rules = new DoorDecisions.Rules(
                limits,
                queueLook,
                machine.settings().renewEvery(),
                machine.settings().leaseNamePrefix());
        this.ownWrites = new OwnStatusWrites(client.getKubernetesSerialization());
        this.acts = new DoorActs(machine, client, recorder, metrics, ownWrites, clock, this::placementView, elsewhere);
        MaintenanceSettings settings = machine.settings();
        this.settings = settings;
        this.ourHolder = settings::isOurs;
        this.elsewhere = elsewhere;
        this.nodes = nodes;
        this.fence = fence;
        this.client = client;
        this.clock = clock;
    }

    /**
     * The second NodeMaintenance informer ({@link NodeMaintenanceWakeUps}), and the Node changes that free a slot
     * ({@link NodeSlotWakeUps}), both waking the requests the limits hold; the node leases let go
     * ({@link NodeLeaseWakeUps}), waking the maintenances waiting for them; the budgets that admit evictions again,
     * waking the drains they held ({@link BudgetWakeUps}); and the pods that free room ({@link PodRoomWakeUps}),
     * waking the maintenances a placement forecast holds.
     */
    @Override
    public List<EventSource<?, NodeMaintenance>> prepareEventSources(EventSourceContext<NodeMaintenance> context) {
        changes = NodeMaintenanceWakeUps.source(context, ownWrites::foreign);
        podRoom = new PodRoomWakeUps(client, context.getPrimaryCache(), ownWrites::lastWritten);
        return List.of(
                changes,
                new NodeSlotWakeUps(nodes, context.getPrimaryCache()),
                NodeLeaseWakeUps.source(context, settings),
                new BudgetWakeUps(budgets, context.getPrimaryCache(), machine::budgetFreed),
                podRoom);
    }

    /** Opens or closes the pod watch of {@link PodRoomWakeUps} as the maintenances' statuses now ask. */
    private void refreshPodRoom() {
        PodRoomWakeUps room = podRoom;
        if (room != null) {
            room.refresh();
        }
    }

    /** Observe (the resource; for a request not yet admitted, one cluster view), decide (pure), act. */
    @Override
    public UpdateControl<NodeMaintenance> reconcile(NodeMaintenance nm, Context<NodeMaintenance> context) {
        try (WorkFence.Permit permit = fence.enter()) {
            OwnStatusWrites.Read read = asRead(nm, context);
            for (int attempt = 1; ; attempt++) {
                DoorDecision.Observed observed;
                DoorDecision decision;
                // one decision that may admit at a time, each counting the admissions before it (AdmissionLedger)
                synchronized (admissions.deciding()) {
                    observed = observe(read, context, false);
                    decision = DoorDecisions.decide(observed, rules);
                    if (observed.view().isPresent()) {
                        admissions.decided(
                                observed.nm(),
                                decision instanceof DoorDecision.Advance,
                                decision instanceof DoorDecision.Advance advance ? advance.nodeName() : null);
                    }
                }
                try {
                    UpdateControl<NodeMaintenance> control =
                            acts.reconcile(observed.nm(), observed.statusOurs(), decision, observed.now());
                    refreshPodRoom();
                    return control;
                } catch (WholeStatus.Conflict e) {
                    Optional<OwnStatusWrites.Read> again = readAgain(nm, attempt, e);
                    if (again.isEmpty()) {
                        return UpdateControl.noUpdate(); // gone meanwhile: its delete event brings the cleanup
                    }
                    read = again.get();
                }
            }
        }
    }

    /** Reads and decisions one reconcile makes at most when its status write keeps meeting newer versions. */
    static final int DECISIONS_PER_RECONCILE = 3;

    /**
     * After a status write refused for a newer version ({@link WholeStatus.Conflict}): the NodeMaintenance as the
     * API server has it now, to decide again from (empty: it is gone). A status not written by this reconciler is then
     * a record only, as any foreign status ({@link OwnStatusWrites#wroteStatusOf}). After {@link
     * #DECISIONS_PER_RECONCILE} decisions the conflict ends the reconcile as an error: JOSDK retries it with backoff.
     */
    private Optional<OwnStatusWrites.Read> readAgain(NodeMaintenance nm, int attempt, WholeStatus.Conflict e) {
        if (attempt >= DECISIONS_PER_RECONCILE) {
            throw e;
        }
        LOG.debugf("%s: reading it again", e.getMessage());
        return Optional.ofNullable(client.resources(NodeMaintenance.class)
                        .withName(nm.getMetadata().getName())
                        .get())
                .map(ownWrites::readFromServer);
    }

    /**
     * A step whose write failed ({@link DoorActs.StepFailed}) has said so in status; it is retried with the
     * controller's backoff and, once those retries are spent, looked at again every {@link #FAILED_STEP_LOOK}: a node
     * left half-marked is never given up on. Anything else: JOSDK's default handling.
     */
    @Override
    public ErrorStatusUpdateControl<NodeMaintenance> updateErrorStatus(
            NodeMaintenance nm, Context<NodeMaintenance> context, Exception e) {
        boolean stepFailed = false;
        for (Throwable t = e; t != null; t = t.getCause()) {
            stepFailed |= t instanceof DoorActs.StepFailed;
        }
        boolean lastAttempt =
                context.getRetryInfo().map(RetryInfo::isLastAttempt).orElse(false);
        if (stepFailed && lastAttempt) {
            return ErrorStatusUpdateControl.<NodeMaintenance>noStatusUpdate()
                    .withNoRetry()
                    .rescheduleAfter(FAILED_STEP_LOOK);
        }
        return ErrorStatusUpdateControl.defaultErrorProcessing();
    }

    /** The same for a deleted NodeMaintenance: undo its maintenance (finalizer), unless that is not its to do yet. */
    @Override
    public DeleteControl cleanup(NodeMaintenance nm, Context<NodeMaintenance> context) {
        try (WorkFence.Permit permit = fence.enter()) {
            OwnStatusWrites.Read read = asRead(nm, context);
            for (int attempt = 1; ; attempt++) {
                DoorDecision.Observed observed = observe(read, context, true);
                DeleteControl control;
                try {
                    DoorDecision.Cleanup decision = DoorDecisions.cleanup(observed, rules);
                    // the other door's active request for the node: an end hands the node over to it (no gap between
                    // the two)
                    Optional<String> handTo = decision instanceof DoorDecision.End end
                            ? Optional.ofNullable(elsewhere.requested().get(end.nodeName()))
                            : Optional.empty();
                    control = acts.cleanup(observed.nm(), decision, handTo);
                } catch (WholeStatus.Conflict e) {
                    Optional<OwnStatusWrites.Read> again = readAgain(nm, attempt, e);
                    if (again.isEmpty()) {
                        ownWrites.forget(nm.getMetadata().getName());
                        admissions.forget(nm.getMetadata().getName());
                        return DeleteControl.defaultDelete();
                    }
                    read = again.get();
                    continue;
                }
                if (control.isRemoveFinalizer()) {
                    ownWrites.forget(nm.getMetadata().getName());
                    admissions.forget(nm.getMetadata().getName());
                }
                refreshPodRoom();
                return control;
            }
        }
    }

    /**
     * The NodeMaintenance to decide from: JOSDK hands over a copy made by serializing the cached object, and what was
     * malformed is noted on that one; and the informer's cache may not have this reconciler's last status write yet,
     * or another client's status write that woke this reconcile (then it is read from the API server).
     */
    private OwnStatusWrites.Read asRead(NodeMaintenance nm, Context<NodeMaintenance> context) {
        if (ownWrites.readFresh(nm.getMetadata().getName())) {
            // woken by another client's status write, which the primary cache may not have yet
            NodeMaintenance fresh = client.resources(NodeMaintenance.class)
                    .withName(nm.getMetadata().getName())
                    .get();
            if (fresh != null) {
                return ownWrites.readFromServer(fresh);
            }
        }
        context.getPrimaryCache()
                .get(io.javaoperatorsdk.operator.processing.event.ResourceID.fromResource(nm))
                .ifPresent(read -> NodeMaintenance.carryMalformedFields(read, nm));
        return ownWrites.read(nm);
    }

    /**
     * What one reconcile reads: the resource, the maintenances of its node (an in-memory cache), for a request not
     * yet admitted one cluster view, and on cleanup the primary cache and, for a maintenance that holds its node and
     * carries hooks, the hooks as the API server has them now; for a status not ours that names a node, the node
     * Leases of that node and of the spec's ({@link PinnedNode}).
     */
    private DoorDecision.Observed observe(
            OwnStatusWrites.Read read, Context<NodeMaintenance> context, boolean cleanup) {
        NodeMaintenance nm = read.nm();
        Instant now = clock.instant();
        MaintenanceState recordedState = NodeMaintenanceStatuses.toState(nm.getStatus());
        MaintenanceState state = read.statusOurs() ? recordedState : ownHookWait(nm, recordedState, now);
        InformerEventSource<NodeMaintenance, NodeMaintenance> source = changes;
        NodeMaintenanceAdmission.Standing recorded =
                NodeMaintenanceAdmission.standing(nm, state, rules.leaseNamePrefix());
        // a status not ours that pins a node is checked against the node leases: it moves no maintenance
        PinnedNode pin = read.statusOurs() || recorded.pinned().isEmpty()
                ? PinnedNode.trusted(recorded.pinned())
                : pin(nm, recorded.pinned(), source, context);
        NodeMaintenanceAdmission.Standing standing =
                pin.standing(recorded).orElseGet(() -> NodeMaintenanceAdmission.standing(nm, state, Optional.empty()));
        Optional<NodeMaintenanceAdmission.ClusterReads> view = !cleanup && standing.needsClusterView()
                ? Optional.of(view(nm, standing.nodeName(), source, context))
                : Optional.empty();
        List<NodeMaintenance> sameNode = onNode(source, standing.nodeName(), context);
        List<NodeMaintenance> cached =
                cleanup ? context.getPrimaryCache().list().toList() : List.of();
        Map<String, String> hooks = cleanup && (state.holdsNode() || pin.leaseOurs())
                ? acts.hookAnnotations(nm)
                : nm.getMetadata().getAnnotations();
        return new DoorDecision.Observed(
                nm, state, standing, view, sameNode, cached, hooks, now, read.statusOurs(), pin.leaseOurs());
    }

    /**
     * For a status not ours, the hook wait this reconciler recorded ({@link MaintenanceHooks#notMovedByOthers}): a
     * foreign write of {@code status.hooks} moves no {@code spec.hooks.timeout} deadline.
     */
    private MaintenanceState ownHookWait(NodeMaintenance nm, MaintenanceState recorded, Instant now) {
        NodeMaintenanceStatus own = ownWrites.lastWritten(nm.getMetadata().getName());
        MaintenanceHooks.Wait wait = MaintenanceHooks.notMovedByOthers(
                recorded.hookWait(),
                own != null,
                own == null ? null : NodeMaintenanceStatuses.toState(own).hookWait(),
                now);
        return Objects.equals(wait, recorded.hookWait())
                ? recorded
                : recorded.toBuilder().hookWait(wait).build();
    }

    /**
     * For a status not ours, the node it is pinned to on evidence ({@link PinnedNode}): the maintenance Leases of the
     * spec's node and of the status's node (one read each), and whether another maintenance started on each.
     */
    private PinnedNode pin(
            NodeMaintenance nm,
            Optional<String> recorded,
            InformerEventSource<NodeMaintenance, NodeMaintenance> source,
            Context<NodeMaintenance> context) {
        String specNode = nm.getSpec() == null ? null : nm.getSpec().getNodeName();
        String name = nm.getMetadata().getName();
        List<String> nodes = PinnedNode.candidates(recorded, specNode);
        // the reads first, then the judgement of what was read: the door still visits each room once or twice
        Map<String, Optional<String>> holders = new java.util.HashMap<>();
        nodes.forEach(node -> holders.put(node, nodeLeaseHolder(node)));
        List<PinnedNode.Candidate> candidates = nodes.stream()
                .map(node -> new PinnedNode.Candidate(
                        node,
                        holders.get(node),
                        onNode(source, node, context).stream()
                                .filter(other ->
                                        !name.equals(other.getMetadata().getName()))
                                .filter(other ->
                                        NodeMaintenanceValidator.joinedTo(other).isEmpty())
                                .anyMatch(NodeMaintenanceValidator::started)))
                .toList();
        return PinnedNode.judge(recorded, specNode, candidates, ourHolder);
    }

    /** The NodeMaintenances of {@code nodeName}, from the informer the queue and the shares are woken by. */
    private static List<NodeMaintenance> onNode(
            InformerEventSource<NodeMaintenance, NodeMaintenance> source,
            String nodeName,
            Context<NodeMaintenance> context) {
        if (nodeName == null) {
            return List.of();
        }
        return source == null
                ? context.getPrimaryCache()
                        .list()
                        .filter(nm -> nodeName.equals(NodeMaintenanceValidator.nodeOf(nm)))
                        .toList()
                : source.byIndex(NodeMaintenanceWakeUps.BY_NODE, nodeName);
    }

    /** The holder of {@code node}'s maintenance Lease as the API server has it now (empty: none, or released). */
    private Optional<String> nodeLeaseHolder(String node) {
        return Optional.ofNullable(client.leases()
                        .inNamespace(settings.leaseNamespace())
                        .withName(settings.leaseName(node))
                        .get())
                .map(lease -> lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity())
                .filter(holder -> !holder.isBlank());
    }

    /**
     * The one cluster read of a request not yet admitted: its node, the queue, and all nodes if the limits need them
     * (a cap is set, it is a control-plane node, or requests ahead of it wait for a slot). All from caches once the
     * shared Node cache has synced: a request held in the queue and looked at again sends no request to the API
     * server (issue 49). Its node is read from the API server only when the cache is off or has not seen it (created
     * a moment ago: a node the cache lags behind is never refused as not found; a deleted one, gone from the cache,
     * is read once and refused as today). What the cache says decides admit, hold or refuse; an admitted request's
     * machine reads the whole Node from the API server before its lease and cordon ({@link
     * NodeMaintenanceAdmission.ClusterReads#nodeCached}), so a lagging cache never decides what is done to a node.
     */
    private NodeMaintenanceAdmission.ClusterReads view(
            NodeMaintenance nm,
            String nodeName,
            InformerEventSource<NodeMaintenance, NodeMaintenance> source,
            Context<NodeMaintenance> context) {
        Optional<Node> cachedNode = nodeName == null ? Optional.empty() : cachedNode(nodeName);
        Optional<Node> node = nodeName == null || cachedNode.isPresent()
                ? cachedNode
                : Optional.ofNullable(client.nodes().withName(nodeName).get());
        // Read from the informer whose events wake the queue: a request woken by a release sees that release (the
        // primary cache is fed by another watch and may not show it yet); one only the primary cache has yet (created
        // just now: its own event brought this reconcile) is counted too, and so is every admission of this
        // reconciler that neither shows yet.
        Map<String, NodeMaintenance> cached = new java.util.LinkedHashMap<>();
        if (source != null) {
            source.list().forEach(m -> cached.put(m.getMetadata().getName(), m));
        }
        context.getPrimaryCache()
                .list()
                .forEach(m -> cached.putIfAbsent(m.getMetadata().getName(), m));
        List<NodeMaintenance> all =
                admissions.overlay(cached.values(), nm.getMetadata().getName());
        List<Node> nodes =
                NodeMaintenanceValidator.needsAllNodes(rules.limits(), node, NodeMaintenanceValidator.ahead(nm, all))
                        ? allNodes()
                        : List.of();
        return new NodeMaintenanceAdmission.ClusterReads(node, cachedNode.isPresent(), nodes, all, elsewhere.nodes());
    }

    /**
     * What the placement forecast of {@code nm} reads besides the pods (issue 49), read only when a forecast is made:
     * every Node from the shared Node cache, and the nodes of the maintenances in the queue ahead of it or holding
     * their node ({@link NodeMaintenanceValidator#ahead}), from the informer the queue is woken by; what the forecast
     * awaits goes to the pod watch ({@link PodRoomWakeUps#await}).
     */
    private Optional<dev.tenure.maintenance.machine.PlacementView> placementView(NodeMaintenance nm) {
        String name = nm.getMetadata().getName();
        return Optional.of(new dev.tenure.maintenance.machine.PlacementView(
                () -> allNodes(), () -> aheadNodes(nm), awaited -> {
                    PodRoomWakeUps room = podRoom;
                    if (room != null) {
                        room.await(name, awaited);
                    }
                }));
    }

    private List<String> aheadNodes(NodeMaintenance nm) {
        InformerEventSource<NodeMaintenance, NodeMaintenance> source = changes;
        if (source == null) {
            return List.of();
        }
        return NodeMaintenanceValidator.ahead(nm, source.list().toList()).stream()
                .map(NodeMaintenanceValidator::nodeOf)
                .filter(java.util.Objects::nonNull)
                .distinct()
                .toList();
    }

    /**
     * Every Node, from the shared Node cache (its trimmed copies keep what the limits read: labels, spec, conditions),
     * which this reconciler's {@link NodeSlotWakeUps} keeps open: a queued request looked at again costs no LIST of
     * all Nodes (issue 49: 100 queued requests at 5,000 nodes were 100 full LISTs per look). The API server is asked
     * only while the cache is not running or not yet synced.
     */
    /** {@code name}'s trimmed copy in the shared Node cache; empty while the cache is off or unsynced, or lacks it. */
    private Optional<Node> cachedNode(String name) {
        return nodes.informer()
                .filter(SharedIndexInformer::hasSynced)
                .map(informer -> informer.getStore().getByKey(name));
    }

    private List<Node> allNodes() {
        return nodes.informer()
                .filter(SharedIndexInformer::hasSynced)
                .map(informer -> informer.getStore().list())
                .orElseGet(() -> client.nodes().list().getItems());
    }
}
