package dev.tenure.maintenance.annotation;

import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.TrimmedNodeStore;
import dev.tenure.maintenance.EventRecorder;
import dev.tenure.maintenance.MaintenanceMachine;
import dev.tenure.maintenance.MaintenanceSettings;
import dev.tenure.maintenance.NodeMaintenanceValidator;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.filter.GenericFilter;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import io.quarkiverse.operatorsdk.annotations.RBACRule;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * JOSDK driver of the annotation protocol: reconciles Nodes that carry one of its annotations (the request,
 * the status, or Tenure's state record) with {@link MaintenanceAnnotationController}. Registered like every
 * reconciler, so it runs only while this replica leads ({@code OperatorLeadership} starts the JOSDK operator
 * then). Not generation-aware: annotations do not move a Node's generation.
 */
@ControllerConfiguration(
        name = MaintenanceAnnotationReconciler.NAME,
        generationAwareEventProcessing = false,
        informer =
                @Informer(
                        genericFilter = MaintenanceAnnotationReconciler.ConcernsProtocol.class,
                        onUpdateFilter = MaintenanceAnnotationReconciler.ActedOnChange.class,
                        itemStore = TrimmedNodeStore.class))
// Exactly the calls JOSDK's Node informer, the controller and the maintenance machine make for it. The Node rules
// replace quarkus-operator-sdk's blanket one on the primary resource (create, update, delete on nodes, their status
// and finalizers), which ManifestAssembly drops; RbacLeastPrivilegeCheck holds these to what the tests saw.
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
@RBACRule(apiGroups = "tenure.dev", resources = "nodemaintenances", verbs = "list") // the budget counts them
public class MaintenanceAnnotationReconciler implements Reconciler<Node> {

    public static final String NAME = "maintenance-annotation";

    private final MaintenanceAnnotationController controller;
    private final boolean enabled;

    @Inject
    public MaintenanceAnnotationReconciler(
            KubernetesClient client,
            MaintenanceMachine machine,
            EventRecorder recorder,
            MaintenanceSettings maintenance,
            NodeMaintenanceValidator.Limits limits,
            AnnotationSettings settings) {
        if (settings.holder().equals(maintenance.holder())) {
            throw new IllegalArgumentException("tenure.maintenance.annotation.holder: must differ from "
                    + "tenure.maintenance.lease.holder (" + maintenance.holder() + "), or the lease cannot tell the "
                    + "annotation's maintenance from a NodeMaintenance's");
        }
        this.enabled = settings.enabled();
        this.controller = new MaintenanceAnnotationController(
                client,
                new KubeLeaseStore(client),
                machine,
                recorder,
                settings,
                AnnotatedNodes.budget(client, limits),
                Clock.systemUTC());
    }

    @Override
    public UpdateControl<Node> reconcile(Node node, Context<Node> context) {
        if (!enabled) {
            return UpdateControl.noUpdate();
        }
        Optional<java.time.Duration> next =
                controller.reconcile(node.getMetadata().getName());
        UpdateControl<Node> control = UpdateControl.noUpdate();
        return next.map(control::rescheduleAfter).orElse(control);
    }

    /**
     * A Node update reaches the reconciler only when it changes what the protocol reads or writes: the protocol's
     * annotations, the cordon and taints, the deletion. Kubelet status updates (conditions, images, every 10 s to
     * 1 min per node) do not; the reconciler's own timed requeues drive the drain.
     */
    public static final class ActedOnChange implements OnUpdateFilter<Node> {
        private static final List<String> KEYS =
                List.of(MaintenanceAnnotation.REQUEST, MaintenanceAnnotation.STATUS, MaintenanceAnnotation.STATE);

        @Override
        public boolean accept(Node updated, Node old) {
            return !KEYS.stream().allMatch(k -> Objects.equals(annotation(updated, k), annotation(old, k)))
                    || !Objects.equals(
                            spec(updated).getUnschedulable(), spec(old).getUnschedulable())
                    || !Objects.equals(spec(updated).getTaints(), spec(old).getTaints())
                    || !Objects.equals(
                            updated.getMetadata().getDeletionTimestamp(),
                            old.getMetadata().getDeletionTimestamp());
        }

        private static String annotation(Node node, String key) {
            Map<String, String> a = node.getMetadata().getAnnotations();
            return a == null ? null : a.get(key);
        }

        private static NodeSpec spec(Node node) {
            return node.getSpec() == null ? new NodeSpec() : node.getSpec();
        }
    }

    /** Only Nodes the protocol concerns reach the reconciler; the rest of the fleet costs nothing but the cache. */
    public static final class ConcernsProtocol implements GenericFilter<Node> {
        @Override
        public boolean accept(Node node) {
            return MaintenanceAnnotationController.concerns(node);
        }
    }
}
