package dev.tenure.maintenance;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.quarkiverse.operatorsdk.annotations.RBACRule;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
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
// machine, validator and event recorder make. ManifestAssembly drops quarkus-operator-sdk's blanket rule on the
// primary resource (every verb on it, its status and finalizers); RbacLeastPrivilegeCheck holds these to what the
// tests saw the operator call.
@RBACRule(apiGroups = NodeMaintenance.GROUP, resources = "nodemaintenances", verbs = {"get", "list", "watch", "patch"})
@RBACRule(apiGroups = NodeMaintenance.GROUP, resources = "nodemaintenances/status", verbs = "patch")
@RBACRule(apiGroups = "", resources = "nodes", verbs = {"get", "list", "patch"})
@RBACRule(apiGroups = "", resources = "nodes/status", verbs = "patch")
@RBACRule(apiGroups = "", resources = "pods", verbs = {"list", "delete"})
@RBACRule(apiGroups = "", resources = "pods/eviction", verbs = "create")
@RBACRule(apiGroups = "apps", resources = "daemonsets", verbs = "get")
@RBACRule(apiGroups = "", resources = "events", verbs = {"get", "create", "patch"})
public class NodeMaintenanceReconciler implements Reconciler<NodeMaintenance>, Cleaner<NodeMaintenance> {

    public static final String NAME = "nodemaintenance";
    private static final Logger LOG = Logger.getLogger(NodeMaintenanceReconciler.class);
    private static final Duration REFUSED_RETRY = Duration.ofSeconds(30);
    private static final Duration END_RETRY = Duration.ofSeconds(5);
    /** Reasons worth seeing on the Node itself too (kubectl describe node). */
    private static final Set<String> NODE_REASONS = Set.of(MaintenanceEvents.CORDONED, MaintenanceEvents.UNCORDONED,
            MaintenanceEvents.BEGIN, MaintenanceEvents.SUCCEEDED);

    private final MaintenanceMachine machine;
    private final KubernetesClient client;
    private final EventRecorder recorder;
    private final MaintenanceMetrics metrics;
    private final NodeMaintenanceValidator.Limits limits;
    private final Clock clock;
    private final NodesMaintainedElsewhere elsewhere;

    @Inject
    public NodeMaintenanceReconciler(MaintenanceMachine machine, KubernetesClient client, EventRecorder recorder,
            MaintenanceMetrics metrics, NodeMaintenanceValidator.Limits limits, NodesMaintainedElsewhere elsewhere) {
        this(machine, client, recorder, metrics, limits, elsewhere, Clock.systemUTC());
    }

    NodeMaintenanceReconciler(MaintenanceMachine machine, KubernetesClient client, EventRecorder recorder,
            MaintenanceMetrics metrics, NodeMaintenanceValidator.Limits limits, NodesMaintainedElsewhere elsewhere,
            Clock clock) {
        this.elsewhere = elsewhere;
        this.machine = machine;
        this.client = client;
        this.recorder = recorder;
        this.metrics = metrics;
        this.limits = limits;
        this.clock = clock;
    }

    @Override
    public UpdateControl<NodeMaintenance> reconcile(NodeMaintenance nm, Context<NodeMaintenance> context) {
        NodeMaintenanceStatus prior = nm.getStatus();
        MaintenanceState state = NodeMaintenanceStatuses.toState(prior);
        long generation = Optional.ofNullable(nm.getMetadata().getGeneration()).orElse(0L);
        MaintenanceEvents events = eventsFor(nm);

        Optional<String> refusal = refusal(nm, context);
        MaintenanceMachine.Step step;
        if (refusal.isPresent()) {
            if (!refusal.get().equals(state.lastError())) {
                events.emit(true, MaintenanceEvents.FAILED, refusal.get());
            }
            step = new MaintenanceMachine.Step(state.toBuilder().phase(Phase.Failed).lastError(refusal.get()).build(),
                    state.holdsNode() ? Optional.of(machine.settings().renewEvery()) : Optional.of(REFUSED_RETRY));
        } else {
            boolean specChanged = prior != null && prior.getObservedGeneration() != null
                    && prior.getObservedGeneration() != generation;
            try {
                step = machine.advance(MaintenanceRequest.from(nm.getSpec()), state, specChanged, events);
            } catch (RuntimeException e) {
                // API trouble the machine did not expect (e.g. reading the Node): report it, look again soon.
                LOG.debugf(e, "NodeMaintenance %s: step failed", nm.getMetadata().getName());
                step = new MaintenanceMachine.Step(state.toBuilder().lastError(e.getMessage()).build(),
                        Optional.of(END_RETRY));
            }
        }
        NodeMaintenanceStatus next = NodeMaintenanceStatuses.toStatus(step.state(), prior, generation, clock.instant());
        metrics.phase(nm.getMetadata().getName(), next.getPhase());
        if (prior == null || prior.getPhase() != next.getPhase()
                || !java.util.Objects.equals(prior.getDrainProgress(), next.getDrainProgress())) {
            LOG.infof("NodeMaintenance %s (node %s): %s, drain %d%% (%d pod(s) to go)%s", nm.getMetadata().getName(),
                    nm.getSpec().getNodeName(), next.getPhase(), next.getDrainProgress(),
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
     * Replaces the whole status in one JSON patch on the status subresource: works whether or not a
     * status exists yet, and clears fields that became empty (a merge patch would keep them).
     */
    private void writeStatus(NodeMaintenance nm, NodeMaintenanceStatus status) {
        String patch = "[{\"op\":\"add\",\"path\":\"/status\",\"value\":"
                + client.getKubernetesSerialization().asJson(status) + "}]";
        client.resources(NodeMaintenance.class).withName(nm.getMetadata().getName()).subresource("status")
                .patch(PatchContext.of(PatchType.JSON), patch);
        nm.setStatus(status);
    }

    /**
     * The webhook's rules, applied here too. Once a maintenance has started only the spec is checked:
     * the node, uniqueness and budgets were decided when it began and must not flip while it runs.
     */
    private Optional<String> refusal(NodeMaintenance nm, Context<NodeMaintenance> context) {
        boolean started = NodeMaintenanceValidator.started(nm);
        if (started) {
            try {
                MaintenanceRequest.from(nm.getSpec());
                return Optional.empty();
            } catch (IllegalArgumentException e) {
                return Optional.of(e.getMessage());
            }
        }
        String nodeName = nm.getSpec() == null ? null : nm.getSpec().getNodeName();
        Optional<Node> node = nodeName == null || nodeName.isBlank() ? Optional.empty()
                : Optional.ofNullable(client.nodes().withName(nodeName).get());
        List<Node> nodes = node.filter(NodeMaintenanceValidator::isControlPlane).isPresent()
                ? client.nodes().list().getItems() : List.of();
        List<NodeMaintenance> all = context.getPrimaryCache().list().toList();
        var view = new NodeMaintenanceValidator.ClusterView(node, nodes, NodeMaintenanceValidator.ahead(nm, all),
                elsewhere.nodes());
        List<String> errors = NodeMaintenanceValidator.validate(nm, null, view, limits);
        return errors.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", errors));
    }

    @Override
    public DeleteControl cleanup(NodeMaintenance nm, Context<NodeMaintenance> context) {
        MaintenanceState state = NodeMaintenanceStatuses.toState(nm.getStatus());
        String nodeName = nm.getSpec() == null ? null : nm.getSpec().getNodeName();
        MaintenanceEvents events = eventsFor(nm);
        if (nodeName != null && state.phase() != Phase.Ended && ownsNode(nm, state, context)) {
            try {
                machine.end(nodeName, events);
            } catch (RuntimeException e) {
                LOG.warnf("NodeMaintenance %s: ending maintenance of node %s failed, retrying: %s",
                        nm.getMetadata().getName(), nodeName, e.getMessage());
                return DeleteControl.noFinalizerRemoval().rescheduleAfter(END_RETRY);
            }
        }
        events.emit(false, MaintenanceEvents.REMOVED, "NodeMaintenance " + nm.getMetadata().getName() + " removed"
                + (nodeName == null ? "" : "; node " + nodeName + " is out of maintenance"));
        machine.forget(nm.getMetadata().getName(), nodeName == null ? "" : nodeName);
        LOG.infof("NodeMaintenance %s (node %s) removed", nm.getMetadata().getName(), nodeName);
        return DeleteControl.defaultDelete();
    }

    /**
     * Whether undoing is ours to do: we hold the node, or (status lost) no other NodeMaintenance does.
     * A refused duplicate must never uncordon the node another one is draining.
     */
    private boolean ownsNode(NodeMaintenance nm, MaintenanceState state, Context<NodeMaintenance> context) {
        if (state.holdsNode()) {
            return true;
        }
        String nodeName = nm.getSpec().getNodeName();
        return context.getPrimaryCache().list()
                .filter(other -> !other.getMetadata().getName().equals(nm.getMetadata().getName()))
                .filter(other -> other.getSpec() != null && nodeName.equals(other.getSpec().getNodeName()))
                .noneMatch(NodeMaintenanceValidator::started);
    }

    private MaintenanceEvents eventsFor(NodeMaintenance nm) {
        ObjectReference self = new ObjectReferenceBuilder().withApiVersion(nm.getApiVersion()).withKind(nm.getKind())
                .withName(nm.getMetadata().getName()).withUid(nm.getMetadata().getUid()).build();
        String nodeName = nm.getSpec() == null ? null : nm.getSpec().getNodeName();
        return (warning, reason, message) -> {
            String type = warning ? "Warning" : "Normal";
            recorder.record(self, type, reason, message);
            if (nodeName != null && NODE_REASONS.contains(reason)) {
                recorder.record(new ObjectReferenceBuilder().withApiVersion("v1").withKind("Node").withName(nodeName)
                        .withUid(nodeName).build(), type, reason, message);
            }
        };
    }
}
