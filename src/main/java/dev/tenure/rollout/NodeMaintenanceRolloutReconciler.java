package dev.tenure.rollout;

import dev.tenure.election.WorkFence;
import dev.tenure.kube.NodeCache;
import dev.tenure.kube.WholeStatus;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.EventRecorder;
import dev.tenure.rollout.RolloutPlanner.Observed;
import dev.tenure.rollout.RolloutPlanner.RolloutPlan;
import dev.tenure.rollout.RolloutPlanner.Transition;
import dev.tenure.rollout.api.DoneWhen;
import dev.tenure.rollout.api.NodeMaintenanceRollout;
import dev.tenure.rollout.api.NodeState;
import dev.tenure.rollout.api.RolloutPhase;
import dev.tenure.rollout.api.RolloutSpec;
import dev.tenure.rollout.api.RolloutStatus;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkiverse.operatorsdk.annotations.RBACRule;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jboss.logging.Logger;

/**
 * The NodeMaintenanceRollout controller: observes the pool (the shared Node cache), its children (one informer of
 * NodeMaintenances) and its records (status), asks {@link RolloutPlanner} once, and acts: writes the status first
 * (the records with the boot ID seen before each start, with the read resourceVersion), then creates the children it
 * starts and deletes the children it ends. A child is a plain NodeMaintenance owned by the rollout, created with the
 * operator's account; deleting it runs the undo as today.
 *
 * <p>Deleting the rollout (finalizer): no node starts any more, and every child still there is deleted, so each
 * maintenance in flight ends and its undo restores its node (nothing is left cordoned by a rollout that is gone); the
 * finalizer goes once the children are gone.
 */
@ControllerConfiguration(name = NodeMaintenanceRolloutReconciler.NAME)
@RBACRule(
        apiGroups = NodeMaintenance.GROUP,
        resources = "nodemaintenancerollouts",
        verbs = {"get", "list", "watch", "patch"})
@RBACRule(apiGroups = NodeMaintenance.GROUP, resources = "nodemaintenancerollouts/status", verbs = "patch")
@RBACRule(
        apiGroups = NodeMaintenance.GROUP,
        resources = "nodemaintenances",
        verbs = {"list", "watch", "create", "delete"})
@RBACRule(apiGroups = "", resources = "pods", verbs = "list")
@RBACRule(
        apiGroups = "apps",
        resources = {"replicasets", "statefulsets"},
        verbs = "get")
@RBACRule(
        apiGroups = "",
        resources = "events",
        verbs = {"get", "create", "patch"})
public class NodeMaintenanceRolloutReconciler
        implements Reconciler<NodeMaintenanceRollout>, Cleaner<NodeMaintenanceRollout> {

    public static final String NAME = "nodemaintenancerollout";
    /** The label on each child naming its rollout. */
    public static final String ROLLOUT_LABEL = "rollout.tenure.dev/name";
    /** A rollout in progress looks again this often even without an event (a missed event's backstop). */
    static final Duration LOOK = Duration.ofSeconds(10);
    /** While its children end, a deleted rollout looks again this often. */
    static final Duration CLEANUP_LOOK = Duration.ofSeconds(1);

    private static final Logger LOG = Logger.getLogger(NodeMaintenanceRolloutReconciler.class);

    private final KubernetesClient client;
    private final NodeCache nodes;
    private final WorkFence fence;
    private final EventRecorder events;
    private final MeterRegistry meters;
    private final Clock clock;
    private final PrometheusAlertSource alerts;

    @Inject
    public NodeMaintenanceRolloutReconciler(
            KubernetesClient client,
            NodeCache nodes,
            WorkFence fence,
            EventRecorder events,
            MeterRegistry meters,
            Clock clock,
            PrometheusAlertSource alerts) {
        this.client = client;
        this.nodes = nodes;
        this.fence = fence;
        this.events = events;
        this.meters = meters;
        this.clock = clock;
        this.alerts = alerts;
    }

    /** Every NodeMaintenance (children mapped to their rollout by owner; the others are read to hold their nodes). */
    @Override
    public List<EventSource<?, NodeMaintenanceRollout>> prepareEventSources(
            EventSourceContext<NodeMaintenanceRollout> context) {
        var config = InformerEventSourceConfiguration.from(NodeMaintenance.class, NodeMaintenanceRollout.class)
                .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(NodeMaintenanceRollout.class, true))
                .build();
        return List.of(
                new InformerEventSource<>(config, context), new NodeChangeWakeUps(nodes, context.getPrimaryCache()));
    }

    /** Reads and decisions one reconcile makes at most when its status write keeps meeting newer versions. */
    static final int DECISIONS_PER_RECONCILE = 3;

    /**
     * Observe, decide once, act; when the status write meets a newer version of the rollout (409: nothing was written,
     * no child created or deleted), the rollout is read again and the decision made again from it, at most {@link
     * #DECISIONS_PER_RECONCILE} times; then the conflict ends the reconcile as an error and JOSDK retries it with
     * backoff.
     */
    @Override
    public UpdateControl<NodeMaintenanceRollout> reconcile(
            NodeMaintenanceRollout rollout, Context<NodeMaintenanceRollout> context) {
        try (WorkFence.Permit permit = fence.enter()) {
            NodeMaintenanceRollout read = rollout;
            for (int attempt = 1; ; attempt++) {
                try {
                    return decideAndAct(read, context);
                } catch (WholeStatus.Conflict e) {
                    if (attempt >= DECISIONS_PER_RECONCILE) {
                        throw e;
                    }
                    LOG.debugf("%s: reading it again", e.getMessage());
                    read = client.resources(NodeMaintenanceRollout.class)
                            .withName(rollout.getMetadata().getName())
                            .get();
                    if (read == null || read.getMetadata().getDeletionTimestamp() != null) {
                        return UpdateControl.noUpdate(); // gone or going: its own event brings the cleanup
                    }
                }
            }
        }
    }

    private UpdateControl<NodeMaintenanceRollout> decideAndAct(
            NodeMaintenanceRollout rollout, Context<NodeMaintenanceRollout> context) {
        long generation = Objects.requireNonNullElse(rollout.getMetadata().getGeneration(), 0L);
        List<String> problems = RolloutSpecs.problems(rollout.getSpec());
        if (!problems.isEmpty()) {
            String message = String.join("; ", problems);
            if (writeStatus(rollout, RolloutStatuses.invalid(rollout.getStatus(), message, generation))) {
                events.record(ref(rollout), "Warning", "InvalidSpec", message);
            }
            return UpdateControl.noUpdate();
        }
        Instant now = clock.instant();
        RolloutSpec spec = rollout.getSpec();
        List<NodeMaintenance> all = List.copyOf(context.getSecondaryResources(NodeMaintenance.class));
        Map<String, ChildView> children = new HashMap<>();
        Map<String, String> elsewhere = new HashMap<>();
        for (NodeMaintenance nm : all) {
            String node = nm.getSpec() == null ? null : nm.getSpec().getNodeName();
            if (node == null) {
                continue;
            }
            if (owned(nm, rollout)) {
                children.put(node, child(nm));
            } else if (active(nm)) {
                elsewhere.putIfAbsent(
                        node, "NodeMaintenance " + nm.getMetadata().getName() + " is on it");
            }
        }
        Map<String, String> blockingPods = blockingPods(spec);
        List<PoolNode> pool = new ArrayList<>();
        for (Node node : cachedNodes()) {
            String name = node.getMetadata().getName();
            if (node.getMetadata().getDeletionTimestamp() == null
                    && RolloutSpecs.selects(spec, name, node.getMetadata().getLabels())) {
                String blocked = elsewhere.containsKey(name) && !children.containsKey(name)
                        ? elsewhere.get(name)
                        : blockingPods.get(name);
                pool.add(PoolNodes.of(node, spec, blocked));
            }
        }
        RolloutRules rules = RolloutSpecs.rules(spec, pool.size());
        List<NodeProgress> records = RolloutStatuses.records(rollout.getStatus());
        List<GateState> gates = RolloutSpecs.waitsForWholeWorkloads(spec) ? workloadGates(records) : List.of();
        Observed observed = new Observed(pool, children, records, gates, RolloutStatuses.gates(rollout.getStatus()));
        // The alert gate is asked only when a node would start now (Kured asks before each reboot); closed, it is
        // one more gate of the whole rollout: nothing starts, the status says why, and the time it was first seen
        // closed is kept in status.gates for gateTimeout.
        AlertQuery alertQuery = RolloutSpecs.alertQuery(spec);
        RolloutPlan plan = alertQuery == null
                ? RolloutPlanner.plan(observed, rules, now)
                : RolloutPlanner.planAskingBeforeStart(observed, rules, now, () -> {
                    PrometheusAlertSource.Checked checked =
                            alerts.check(rollout.getMetadata().getUid(), alertQuery);
                    if (checked.changed()) {
                        reportGate(rollout, checked.gate());
                    }
                    return checked.gate().asGate();
                });
        // nothing tells a closed alert gate it opened: it is asked again after its interval
        Duration gateLook = alertQuery != null
                        && plan.gates().stream().anyMatch(g -> g.node() == null && AlertGate.GATE_NAME.equals(g.name()))
                ? alertQuery.interval()
                : null;

        // The records first: a restart after this write never starts these nodes again, nor loses them.
        writeStatus(rollout, RolloutStatuses.of(plan, generation));
        for (String node : plan.create()) {
            createChild(rollout, node);
        }
        for (String node : plan.end()) {
            deleteChild(rollout, node);
        }
        for (Transition t : plan.transitions()) {
            report(rollout, t);
        }
        reportPause(rollout, rollout.getStatus(), plan);
        Duration look = plan.lookAgain() == null || plan.lookAgain().compareTo(LOOK) > 0 ? LOOK : plan.lookAgain();
        if (gateLook != null && gateLook.compareTo(look) < 0) {
            look = gateLook;
        }
        return UpdateControl.<NodeMaintenanceRollout>noUpdate()
                .rescheduleAfter(look.isZero() ? Duration.ofMillis(100) : look);
    }

    /** Deleting the rollout ends every child still there (its undo restores the node); then the finalizer goes. */
    @Override
    public DeleteControl cleanup(NodeMaintenanceRollout rollout, Context<NodeMaintenanceRollout> context) {
        try (WorkFence.Permit permit = fence.enter()) {
            alerts.forget(rollout.getMetadata().getUid());
            List<NodeMaintenance> children = context.getSecondaryResources(NodeMaintenance.class).stream()
                    .filter(nm -> owned(nm, rollout))
                    .toList();
            if (children.isEmpty()) {
                return DeleteControl.defaultDelete();
            }
            for (NodeMaintenance child : children) {
                if (child.getMetadata().getDeletionTimestamp() == null) {
                    client.resource(child).delete();
                }
            }
            events.record(
                    ref(rollout),
                    "Normal",
                    "EndingChildren",
                    "the rollout is deleted: no node starts; ending " + children.size()
                            + " maintenance(s) in flight, each restoring its node");
            return DeleteControl.noFinalizerRemoval().rescheduleAfter(CLEANUP_LOOK);
        }
    }

    /** The name of the child that maintains {@code node}: rollout-node, cut with a hash past 253 characters. */
    static String childName(String rollout, String node) {
        String name = rollout + "-" + node;
        if (name.length() <= 253) {
            return name;
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return name.substring(0, 240) + "-" + HexFormat.of().formatHex(hash, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean owned(NodeMaintenance nm, NodeMaintenanceRollout rollout) {
        return nm.getMetadata().getOwnerReferences() != null
                && nm.getMetadata().getOwnerReferences().stream()
                        .anyMatch(o ->
                                Objects.equals(o.getUid(), rollout.getMetadata().getUid()));
    }

    /** A maintenance that holds its node: not ended, failed or being deleted. */
    private static boolean active(NodeMaintenance nm) {
        Phase phase = nm.getStatus() == null ? null : nm.getStatus().getPhase();
        return nm.getMetadata().getDeletionTimestamp() == null && phase != Phase.Ended;
    }

    private static ChildView child(NodeMaintenance nm) {
        var status = nm.getStatus();
        Map<String, String> annotations = nm.getMetadata().getAnnotations();
        return new ChildView(
                nm.getSpec().getNodeName(),
                status == null || status.getPhase() == null
                        ? null
                        : status.getPhase().name(),
                status == null ? null : status.getLastError(),
                annotations != null && "true".equals(annotations.get(DoneWhen.MANUAL_ACK_ANNOTATION)),
                nm.getMetadata().getDeletionTimestamp() != null,
                status == null ? List.of() : RolloutStatuses.workloads(status.getDrainedWorkloads()));
    }

    /**
     * The "workloads whole again" gate of each soaking node ({@link WorkloadsWhole}): one GET per workload its drain
     * removed pods of (each read once per look, whichever nodes name it), only for nodes that soak now: at most
     * maxUnavailable nodes, each naming at most {@code NodeMaintenanceStatus.DRAINED_WORKLOADS_LISTED} workloads.
     */
    private List<GateState> workloadGates(List<NodeProgress> records) {
        Map<WorkloadRef, WorkloadsWhole.Read> reads = new HashMap<>();
        List<GateState> gates = new ArrayList<>();
        for (NodeProgress r : records) {
            if (r.state() != NodeState.Soaking) {
                continue;
            }
            for (WorkloadRef ref : r.workloads()) {
                if (WorkloadsWhole.judged(ref) && !reads.containsKey(ref)) {
                    reads.put(ref, read(ref));
                }
            }
            gates.add(WorkloadsWhole.gate(r.name(), r.workloads(), reads));
        }
        return gates;
    }

    private WorkloadsWhole.Read read(WorkloadRef ref) {
        try {
            var apps = client.apps();
            io.fabric8.kubernetes.api.model.HasMetadata found = "ReplicaSet".equals(ref.kind())
                    ? apps.replicaSets()
                            .inNamespace(ref.namespace())
                            .withName(ref.name())
                            .get()
                    : apps.statefulSets()
                            .inNamespace(ref.namespace())
                            .withName(ref.name())
                            .get();
            return found == null ? WorkloadsWhole.Read.gone() : new WorkloadsWhole.Read(found, null);
        } catch (KubernetesClientException e) {
            return new WorkloadsWhole.Read(null, e.getCode() + " " + e.getMessage());
        }
    }

    /** An event when the rollout pauses (Warning for a gate or the budget, Normal by hand) and when it goes on. */
    private void reportPause(NodeMaintenanceRollout rollout, RolloutStatus before, RolloutPlan plan) {
        boolean wasPaused = before != null && before.getPhase() == RolloutPhase.Paused;
        String reasonBefore = before == null ? null : before.getReason();
        if (plan.phase() == RolloutPhase.Paused && (!wasPaused || !plan.reason().equals(reasonBefore))) {
            events.record(
                    ref(rollout),
                    "Paused".equals(plan.reason()) ? "Normal" : "Warning",
                    "RolloutPaused",
                    plan.reason() + ": " + plan.message());
        } else if (wasPaused && plan.phase() == RolloutPhase.Progressing) {
            events.record(
                    ref(rollout),
                    "Normal",
                    "RolloutResumed",
                    "no longer paused (" + reasonBefore + "): " + plan.message());
        }
    }

    private List<Node> cachedNodes() {
        return nodes.informer().map(i -> i.getStore().list()).orElse(List.of());
    }

    /**
     * Nodes running a pod that matches spec.health.blockingPodSelector ({@link BlockingPods}, Kured's meaning): one
     * list per reconcile, by label, across namespaces.
     */
    private Map<String, String> blockingPods(RolloutSpec spec) {
        LabelSelector selector =
                spec.getHealth() == null ? null : spec.getHealth().getBlockingPodSelector();
        if (selector == null) {
            return Map.of();
        }
        return BlockingPods.byNode(client.pods()
                .inAnyNamespace()
                .withLabelSelector(selector)
                .list()
                .getItems());
    }

    /**
     * Writes the status when it differs: the whole status replaced ({@link WholeStatus}: a field that became null is
     * gone from the object, which a merge patch would keep), on condition that the rollout is still at the
     * resourceVersion it was read at.
     *
     * @throws WholeStatus.Conflict the rollout was written since it was read (409): nothing was written
     */
    private boolean writeStatus(NodeMaintenanceRollout rollout, RolloutStatus status) {
        if (sameStatus(rollout.getStatus(), status)) {
            return false;
        }
        String name = rollout.getMetadata().getName();
        String version = rollout.getMetadata().getResourceVersion();
        WholeStatus.write(client, NodeMaintenanceRollout.class, name, version, status);
        return true;
    }

    private boolean sameStatus(RolloutStatus a, RolloutStatus b) {
        var json = client.getKubernetesSerialization();
        return a != null && json.asJson(a).equals(json.asJson(b));
    }

    private void createChild(NodeMaintenanceRollout rollout, String node) {
        NodeMaintenance child = new NodeMaintenance(
                childName(rollout.getMetadata().getName(), node),
                rollout.getSpec().getTemplate() == null
                        ? new dev.tenure.maintenance.api.NodeMaintenanceSpec(
                                node, "rollout " + rollout.getMetadata().getName())
                        : rollout.getSpec().getTemplate().childSpec(node));
        if (child.getSpec().getReason() == null) {
            child.getSpec().setReason("rollout " + rollout.getMetadata().getName());
        }
        child.getMetadata()
                .setLabels(Map.of(ROLLOUT_LABEL, rollout.getMetadata().getName()));
        child.getMetadata()
                .setOwnerReferences(List.of(new OwnerReferenceBuilder()
                        .withApiVersion(rollout.getApiVersion())
                        .withKind(rollout.getKind())
                        .withName(rollout.getMetadata().getName())
                        .withUid(rollout.getMetadata().getUid())
                        .withController(true)
                        .withBlockOwnerDeletion(true)
                        .build()));
        try {
            client.resource(child).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            LOG.debugf(
                    "rollout %s: child for %s exists already",
                    rollout.getMetadata().getName(), node);
        }
    }

    private void deleteChild(NodeMaintenanceRollout rollout, String node) {
        client.resources(NodeMaintenance.class)
                .withName(childName(rollout.getMetadata().getName(), node))
                .delete();
    }

    private void report(NodeMaintenanceRollout rollout, Transition t) {
        String name = rollout.getMetadata().getName();
        meters.counter("tenure.rollout.nodes", "state", t.to().name()).increment();
        String type = t.to() == NodeState.Failed ? "Warning" : "Normal";
        String reason = switch (t.to()) {
            case InProgress -> "NodeStarted";
            case Soaking -> "NodeDone";
            case Done -> "NodeSoaked";
            case Skipped -> "NodeSkipped";
            case Failed -> "NodeFailed";
        };
        events.record(ref(rollout), type, reason, "node " + t.node() + (t.message() == null ? "" : ": " + t.message()));
        LOG.infof(
                "rollout %s: node %s %s -> %s%s",
                name, t.node(), t.from(), t.to(), t.message() == null ? "" : " (" + t.message() + ")");
    }

    /**
     * The alert gate changed state: an event (Warning when it closes) and the counter
     * {@code tenure.rollout.alert.gate.changes{state}} ({@code Open}, {@code AlertsFiring},
     * {@code PrometheusUnreachable}).
     */
    private void reportGate(NodeMaintenanceRollout rollout, AlertGate gate) {
        meters.counter("tenure.rollout.alert.gate.changes", "state", gate.state())
                .increment();
        if (gate.open()) {
            events.record(
                    ref(rollout),
                    "Normal",
                    "AlertGateOpened",
                    "no alert of spec.health.alerts is active in Prometheus: nodes may start");
        } else {
            events.record(ref(rollout), "Warning", "AlertGateClosed", gate.message() + ": no new node starts");
        }
        LOG.infof(
                "rollout %s: alert gate %s%s",
                rollout.getMetadata().getName(), gate.state(), gate.open() ? "" : " (" + gate.message() + ")");
    }

    private static ObjectReference ref(NodeMaintenanceRollout rollout) {
        return new ObjectReferenceBuilder()
                .withApiVersion(rollout.getApiVersion())
                .withKind(rollout.getKind())
                .withName(rollout.getMetadata().getName())
                .withUid(rollout.getMetadata().getUid())
                .build();
    }
}
