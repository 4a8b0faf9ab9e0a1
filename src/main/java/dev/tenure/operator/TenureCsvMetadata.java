package dev.tenure.operator;

import io.quarkiverse.operatorsdk.annotations.CSVMetadata;
import io.quarkiverse.operatorsdk.annotations.SharedCSVMetadata;
import java.util.List;

/**
 * The one source of the OLM ClusterServiceVersion metadata. Every reconciler lands in this bundle
 * because its name is the application name, which is the bundle name the generator infers.
 *
 * <p>quarkus-operator-sdk 7.2.3's {@code @CSVMetadata} has no fields for spec/status descriptors or
 * webhook definitions, so those are declared here as data ({@link #WEBHOOK}, {@link #DESCRIPTORS})
 * and written into the generated CSV by {@code ManifestAssembly} (build-time code, src/build/java) during
 * {@code package}.
 */
@CSVMetadata(
        name = TenureCsvMetadata.BUNDLE_NAME,
        displayName = "Tenure",
        description = TenureCsvMetadata.DESCRIPTION,
        keywords = {
            "node",
            "maintenance",
            "drain",
            "cordon",
            "eviction",
            "lease",
            "leader election",
            "LeaseCandidate",
            "medik8s"
        },
        maturity = "alpha",
        minKubeVersion = "1.31.0",
        provider = @CSVMetadata.Provider(name = "Tenure", url = "https://tenure.dev"),
        maintainers = @CSVMetadata.Maintainer(name = "Tenure maintainers", email = "maintainers@tenure.dev"),
        links = {
            @CSVMetadata.Link(name = "Documentation", url = "https://github.com/tenure-dev/tenure#readme"),
            @CSVMetadata.Link(name = "Source", url = "https://github.com/tenure-dev/tenure")
        },
        // AllNamespaces only: NodeMaintenance is cluster-scoped and nodes are cluster-wide, so the
        // operator cannot do its job from inside a namespace subset.
        installModes = {
            @CSVMetadata.InstallMode(type = "AllNamespaces", supported = true),
            @CSVMetadata.InstallMode(type = "OwnNamespace", supported = false),
            @CSVMetadata.InstallMode(type = "SingleNamespace", supported = false),
            @CSVMetadata.InstallMode(type = "MultiNamespace", supported = false)
        },
        annotations =
                @CSVMetadata.Annotations(
                        capabilities = "Seamless Upgrades",
                        categories = "OpenShift Optional",
                        repository = "https://github.com/tenure-dev/tenure",
                        almExamples = TenureCsvMetadata.ALM_EXAMPLES))
public class TenureCsvMetadata implements SharedCSVMetadata {

    /** Bundle (and OLM package) name; equal to {@code quarkus.application.name}. */
    public static final String BUNDLE_NAME = "tenure-operator";

    static final String DESCRIPTION = """
            Tenure puts Kubernetes nodes into maintenance safely and runs coordinated leader election.

            **Node maintenance.** Create a `NodeMaintenance` for a node: Tenure takes a per-node Lease \
            (medik8s-compatible, in the operator's namespace), cordons and taints the node, \
            hands leadership of leader-elected workloads away from it, drains it through the Eviction \
            API with PodDisruptionBudgets respected, and reports progress (phase, drain progress, \
            pending pods) in status, events and metrics. Deleting the resource ends the maintenance and \
            undoes exactly what Tenure did: a node an administrator had cordoned stays cordoned.

            ```yaml
            apiVersion: tenure.dev/v1alpha1
            kind: NodeMaintenance
            metadata:
              name: worker-1-kernel-upgrade
            spec:
              nodeName: worker-1
              reason: kernel upgrade
            ```

            The console's create form starts from an example naming `replace-with-a-node-name` with \
            `preview: true`: put one of your nodes there (the webhook refuses a node that does not exist); \
            created, it fills status.drainPlan with what the drain would do and touches nothing until \
            `preview` is set to false.

            **Coordinated leader election.** Tenure reconciles `coordination.k8s.io` LeaseCandidate \
            objects and picks each Lease's holder like the upstream controller, plus a \
            maintenance-aware strategy that moves leadership off nodes before they are drained.

            **Before installing.** Kubernetes 1.31 or later. A NodeMaintenance does what its creator could do \
            by hand, so the admission webhook admits it only for a user who may patch the node and create \
            pods/eviction (and delete pods with `disableEviction`), checked with a SubjectAccessReview; \
            deleting one, which uncordons the node, needs patch on that node. \
            Coordinated leader election needs the LeaseCandidate API (coordination.k8s.io v1alpha2 in \
            Kubernetes 1.32, v1beta1 from 1.33), which is off by default: turn on the \
            CoordinatedLeaderElection feature gate and serve the API, else Tenure does node maintenance only. \
            Blast radius: to write the Lease a LeaseCandidate names, the operator may create and update \
            Leases in every namespace. OLM cannot install admission policies, so apply \
            `deploy/lease-guard.yaml` from the repository (a ValidatingAdmissionPolicy, Kubernetes 1.30+): it \
            denies the operator every Lease and LeaseCandidate write in kube-node-lease and kube-system, any \
            Lease write but of its own Leases (by name) and coordinated ones, and any LeaseCandidate change \
            but a ping. The running operator reports whether the policy and its \
            binding are installed: readiness detail `tenure-lease-guard` and the metric \
            `tenure_lease_guard_installed` (0 = missing). Under OLM v1 the bundle's webhook needs \
            cert-manager, which operator-controller uses for webhook certificates (webhook support is on by \
            default in current releases; older ones need the WebhookProviderCertManager feature gate, or \
            WebhookProviderOpenshiftServiceCA on OpenShift).

            **Capability level.** Seamless Upgrades: besides restarts and failovers of one release, every \
            release is tested upgrading from the previous one with maintenances in flight (waiting, draining \
            under a PodDisruptionBudget, succeeded, failed, the annotation door, coordinated Leases handed over \
            and mid-handover), rolling and stop-the-world, with nothing evicted twice and every node restored.

            Metrics are exposed on `/q/metrics` with the `tenure_` prefix. A ServiceMonitor, a \
            PrometheusRule with alerts and a Grafana dashboard are published beside the bundle \
            (`deploy/monitoring/` in the repository), not in it: the bundle installs on clusters \
            without the Prometheus operator.
            """;

    /**
     * The console's "create" template. No node name exists on every cluster and the webhook refuses a node that does
     * not exist, so the example names an obvious placeholder to replace, and asks for a preview: created as it
     * stands once the name is set, it shows the drain plan in status.drainPlan and touches nothing (no lease,
     * cordon or eviction) until {@code preview} is set to false.
     */
    static final String ALM_EXAMPLES = """
            [
              {
                "apiVersion": "tenure.dev/v1alpha1",
                "kind": "NodeMaintenance",
                "metadata": {"name": "example-maintenance"},
                "spec": {"nodeName": "replace-with-a-node-name", "reason": "kernel upgrade", "preview": true}
              }
            ]""";

    /**
     * The CSV's metadata.labels: the platforms the operator image is built for, as OperatorHub filters them
     * (operatorframework.io/os.*, operatorframework.io/arch.*; without any, OLM assumes linux/amd64 only).
     */
    static final java.util.Map<String, String> PLATFORM_LABELS = java.util.Map.of(
            "operatorframework.io/os.linux", "supported",
            "operatorframework.io/arch.amd64", "supported",
            "operatorframework.io/arch.arm64", "supported");

    /** Path the validating webhook is served on; shared with the NodeMaintenance webhook endpoint. */
    public static final String VALIDATING_WEBHOOK_PATH = "/validate-nodemaintenance";

    /** Port Quarkus serves HTTPS on when OLM has mounted the webhook serving certificate. */
    public static final int WEBHOOK_TARGET_PORT = 8443;

    /** Where OLM mounts the webhook serving certificate (tls.crt, tls.key) into the deployment. */
    public static final String OLM_WEBHOOK_CERT_DIR = "/tmp/k8s-webhook-server/serving-certs";

    /** The CSV {@code webhookdefinitions} entry for the NodeMaintenance validating webhook. */
    public record WebhookDefinition(
            String generateName,
            String group,
            String version,
            String resource,
            List<String> operations,
            String path,
            int containerPort,
            int targetPort,
            String failurePolicy,
            int timeoutSeconds) {}

    // failurePolicy Fail: a NodeMaintenance that skipped validation could cordon a second
    // control-plane node, and a DELETE that skipped the requester check could uncordon any node; the
    // webhook only covers nodemaintenances, so an outage blocks nothing else. It delays, and never
    // strands, the operator's own finalizer removal: that UPDATE is retried until a replica serves
    // the webhook again, which then admits the operator's writes unchecked (OLM's webhookdefinitions
    // have no matchConditions to exempt it at the API server).
    static final WebhookDefinition WEBHOOK =
            validating("vnodemaintenance.tenure.dev", "nodemaintenances", VALIDATING_WEBHOOK_PATH);

    /** Path the NodeMaintenanceRollout validating webhook is served on. */
    public static final String ROLLOUT_WEBHOOK_PATH = "/validate-nodemaintenancerollout";

    // The rollout's: its children are created with the operator's account, so the requester's rights are checked
    // on the rollout (create, update, delete); failurePolicy Fail for the same reason as NodeMaintenance's.
    static final WebhookDefinition ROLLOUT_WEBHOOK =
            validating("vnodemaintenancerollout.tenure.dev", "nodemaintenancerollouts", ROLLOUT_WEBHOOK_PATH);

    /** A validating webhook of tenure.dev/v1alpha1 {@code resource}: CREATE, UPDATE, DELETE; Fail; 10 s. */
    private static WebhookDefinition validating(String generateName, String resource, String path) {
        return new WebhookDefinition(
                generateName,
                "tenure.dev",
                "v1alpha1",
                resource,
                List.of("CREATE", "UPDATE", "DELETE"),
                path,
                443,
                WEBHOOK_TARGET_PORT,
                "Fail",
                10);
    }

    /** Which part of the resource a descriptor points into. */
    public enum Section {
        SPEC,
        STATUS
    }

    /** An OLM spec or status descriptor: what the console shows for one field of an owned CRD. */
    public record Descriptor(
            String kind,
            Section section,
            String path,
            String displayName,
            String description,
            List<String> xDescriptors) {}

    private static final String NM = "NodeMaintenance";
    private static final String ROLLOUT = "NodeMaintenanceRollout";
    private static final String TEXT = "urn:alm:descriptor:text";
    private static final String NODE = "urn:alm:descriptor:io.kubernetes:Node";
    private static final String PHASE = "urn:alm:descriptor:io.kubernetes.phase";
    private static final String CONDITIONS = "urn:alm:descriptor:io.kubernetes.conditions";
    private static final String NUMBER = "urn:alm:descriptor:com.tectonic.ui:number";
    private static final String BOOLEAN = "urn:alm:descriptor:com.tectonic.ui:booleanSwitch";

    /** Descriptors per owned kind; {@code path} is relative to spec or status (OLM convention). */
    static final List<Descriptor> DESCRIPTORS = List.of(
            new Descriptor(
                    NM,
                    Section.SPEC,
                    "nodeName",
                    "Node",
                    "The node to put into maintenance (immutable).",
                    List.of(NODE)),
            new Descriptor(
                    NM,
                    Section.SPEC,
                    "reason",
                    "Reason",
                    "Why the node is in maintenance; shown in events and the node condition.",
                    List.of(TEXT)),
            new Descriptor(
                    NM,
                    Section.SPEC,
                    "window",
                    "Window",
                    "Optional duration after which the maintenance ends by itself.",
                    List.of(TEXT)),
            new Descriptor(
                    NM,
                    Section.SPEC,
                    "drain.timeout",
                    "Drain timeout",
                    "How long the drain may take before the maintenance fails.",
                    List.of(TEXT)),
            new Descriptor(
                    NM,
                    Section.SPEC,
                    "handover.enabled",
                    "Leader handover",
                    "Move leadership of leases held on the node before draining it.",
                    List.of(BOOLEAN)),
            new Descriptor(
                    NM,
                    Section.STATUS,
                    "phase",
                    "Phase",
                    "Pending, Waiting, Running, Succeeded, Failed or Ended.",
                    List.of(PHASE)),
            new Descriptor(
                    NM,
                    Section.STATUS,
                    "drainProgress",
                    "Drain progress",
                    "Percentage of the pods to evict that are gone.",
                    List.of(NUMBER)),
            new Descriptor(
                    NM,
                    Section.STATUS,
                    "totalpods",
                    "Total pods",
                    "Pods on the node when the drain started.",
                    List.of(NUMBER)),
            new Descriptor(
                    NM,
                    Section.STATUS,
                    "evictionPods",
                    "Pods to evict",
                    "Pods the drain has to evict.",
                    List.of(NUMBER)),
            new Descriptor(
                    NM,
                    Section.STATUS,
                    "pendingPods",
                    "Pending pods",
                    "Pods still to be evicted or to terminate, as namespace/name.",
                    List.of()),
            new Descriptor(
                    NM,
                    Section.STATUS,
                    "lastError",
                    "Last error",
                    "The last error the maintenance ran into, if any.",
                    List.of(TEXT)),
            new Descriptor(
                    NM,
                    Section.STATUS,
                    "conditions",
                    "Conditions",
                    "LeaseHeld, Cordoned, LeadersHandedOver and Drained.",
                    List.of(CONDITIONS)),
            new Descriptor(
                    ROLLOUT,
                    Section.SPEC,
                    "paused",
                    "Paused",
                    "Start no new node; nodes in progress finish.",
                    List.of(BOOLEAN)),
            new Descriptor(
                    ROLLOUT,
                    Section.STATUS,
                    "phase",
                    "Phase",
                    "Progressing, Paused, Complete or Invalid.",
                    List.of(PHASE)),
            new Descriptor(
                    ROLLOUT,
                    Section.STATUS,
                    "done",
                    "Done",
                    "Nodes done (or already done before they started).",
                    List.of(NUMBER)));

    /** Display name and description of each owned kind, keyed by kind. */
    static final java.util.Map<String, String[]> OWNED_KINDS = java.util.Map.of(
            NM,
            new String[] {
                "Node Maintenance",
                "Puts one node into maintenance: lease, cordon and taint, leader handover, drain; "
                        + "undone when deleted or when its window ends."
            },
            ROLLOUT,
            new String[] {
                "Node Maintenance Rollout",
                "Rolls maintenance across the nodes a selector picks, a few at a time within maxUnavailable and per "
                        + "zone, one NodeMaintenance per node, pausing at its failure budget."
            });
}
