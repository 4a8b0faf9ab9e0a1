package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.maintenance.drain.SurgePlanner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What we ship, parsed and checked: the committed OLM bundle (olm-bundle/) and plain manifests
 * (deploy/). Reading the committed copies is sound because `make test` runs verify-generated
 * after the build, which fails when they differ from what this build generated.
 */
class GeneratedArtifactsTest {

    private static final Path BUNDLE = Path.of("olm-bundle", "manifests");
    private static final Path DEPLOY = Path.of("deploy");
    /** Where runbook links point: files of the repository on GitHub. */
    private static final String REPOSITORY_FILES = "https://github.com/tenure-dev/tenure/blob/main/";

    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * Kinds OLM installs from a registry+v1 bundle that every cluster serves (OLM's supported bundle
     * kinds, less those that need another operator's CRDs, such as ServiceMonitor and PrometheusRule).
     */
    private static final Set<String> BARE_CLUSTER_BUNDLE_KINDS = Set.of(
            "ClusterServiceVersion",
            "CustomResourceDefinition",
            "Service",
            "ConfigMap",
            "Secret",
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "Role",
            "RoleBinding",
            "PodDisruptionBudget",
            "PriorityClass");

    // --- OLM bundle --------------------------------------------------------------------------

    @Test
    void csvCarriesTheListingMetadata() throws IOException {
        Map<String, Object> csv = csv();
        Map<String, Object> spec = at(csv, "spec");
        assertThat(spec)
                .containsEntry("displayName", "Tenure")
                .containsEntry("maturity", "alpha")
                .containsKey("minKubeVersion");
        assertThat((String) spec.get("description")).contains("kind: NodeMaintenance", "nodeName:");
        assertThat((List<Object>) spec.get("keywords")).contains("node", "maintenance", "drain");
        assertThat((List<Object>) spec.get("maintainers")).isNotEmpty();
        assertThat((List<Object>) spec.get("links")).isNotEmpty();
        assertThat(ManifestAssembly.<String>at(csv, "spec", "provider", "name")).isEqualTo("Tenure");
        // Cluster-scoped CR and cluster-wide nodes: only AllNamespaces makes sense.
        List<Map<String, Object>> modes = at(csv, "spec", "installModes");
        assertThat(modes)
                .filteredOn(m -> Boolean.TRUE.equals(m.get("supported")))
                .extracting(m -> m.get("type"))
                .containsExactly("AllNamespaces");
    }

    /**
     * Issue 26: the console proposes the operator's own namespace, and the CSV states what the install needs and
     * what it may touch: the LeaseCandidate API's version and default, the Lease guard OLM cannot install, and
     * OLM v1's webhook feature gate.
     */
    @Test
    void csvSuggestsANamespaceAndStatesPrerequisitesAndBlastRadius() throws IOException {
        Map<String, Object> csv = csv();
        assertThat(ManifestAssembly.<String>at(
                        csv, "metadata", "annotations", "operatorframework.io/suggested-namespace"))
                .isEqualTo("tenure-system");
        assertThat(ManifestAssembly.<String>at(csv, "spec", "minKubeVersion")).isEqualTo("1.31.0");
        assertThat(ManifestAssembly.<String>at(csv, "spec", "description"))
                .contains("Kubernetes 1.31 or later")
                .contains("LeaseCandidate API (coordination.k8s.io v1alpha2 in Kubernetes 1.32")
                .contains("off by default")
                .contains("Leases in every namespace")
                .contains("deploy/lease-guard.yaml")
                .contains("kube-node-lease and kube-system")
                .contains("OLM v1")
                .contains("SubjectAccessReview");
    }

    /** Issue 26: `kubectl apply -n <ns>` of the monitoring manifests works in any namespace (none is written). */
    @Test
    void monitoringManifestsNameNoNamespace() throws IOException {
        try (Stream<Path> files = Files.list(DEPLOY.resolve("monitoring"))) {
            List<Path> yamls =
                    files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
            assertThat(yamls).hasSizeGreaterThanOrEqualTo(3);
            for (Path file : yamls) {
                for (Map<String, Object> doc : ManifestAssembly.parseAll(Files.readString(file))) {
                    if (doc.containsKey("kind")) {
                        assertThat(ManifestAssembly.<Object>at(doc, "metadata", "namespace"))
                                .as(file + " " + doc.get("kind"))
                                .isNull();
                    }
                }
            }
        }
    }

    @Test
    void almExampleIsAValidNodeMaintenance() throws IOException {
        JsonNode examples =
                JSON.readTree(ManifestAssembly.<String>at(csv(), "metadata", "annotations", "alm-examples"));
        assertThat(examples).hasSize(1);
        JsonNode example = examples.get(0);
        assertThat(example.get("apiVersion").asText()).isEqualTo("tenure.dev/v1alpha1");
        assertThat(example.get("kind").asText()).isEqualTo("NodeMaintenance");
        assertThat(example.at("/spec/nodeName").asText()).isNotBlank();
        assertThat(example.at("/spec/reason").asText()).isNotBlank();
        // Issue 39: no node name exists on every cluster, and the webhook refuses one that does not exist; the
        // template names a placeholder to replace and previews, so creating it touches no node.
        assertThat(example.at("/spec/nodeName").asText()).isEqualTo("replace-with-a-node-name");
        assertThat(example.at("/spec/preview").asBoolean()).isTrue();
        assertThat(ManifestAssembly.<String>at(csv(), "spec", "description")).contains("replace-with-a-node-name");

        Map<String, Object> specSchema = schema(crd("NodeMaintenance"), "spec");
        Map<String, Object> properties = at(specSchema, "properties");
        example.get("spec")
                .fieldNames()
                .forEachRemaining(field -> assertThat(properties).containsKey(field));
        List<String> required = Objects.requireNonNullElse(at(specSchema, "required"), List.of());
        required.forEach(field -> assertThat(example.get("spec").has(field))
                .as("required " + field)
                .isTrue());
    }

    @Test
    void everyBundledCrdIsOwnedAndDescribedWithDescriptorsThatExistInItsSchema() throws IOException {
        List<Map<String, Object>> owned = at(csv(), "spec", "customresourcedefinitions", "owned");
        List<Map<String, Object>> crds = bundleCrds();
        assertThat(crds).isNotEmpty();
        for (Map<String, Object> crd : crds) {
            String name = at(crd, "metadata", "name");
            String kind = at(crd, "spec", "names", "kind");
            assertThat(owned)
                    .as("owned entry for " + name)
                    .anySatisfy(o -> assertThat(o).containsEntry("name", name).containsEntry("kind", kind));
        }
        for (Map<String, Object> entry : owned) {
            assertThat(entry).containsKeys("displayName", "description");
            Map<String, Object> crd = crd((String) entry.get("kind"));
            for (String section : List.of("spec", "status")) {
                List<Map<String, Object>> descriptors = Objects.requireNonNullElse(
                        ManifestAssembly.<List<Map<String, Object>>>at(entry, section + "Descriptors"), List.of());
                for (Map<String, Object> descriptor : descriptors) {
                    assertThat(schemaHasPath(schema(crd, section), (String) descriptor.get("path")))
                            .as(
                                    "%s %s descriptor path %s exists in the CRD schema",
                                    entry.get("kind"), section, descriptor.get("path"))
                            .isTrue();
                }
            }
        }
        Map<String, Object> nodeMaintenance = owned.stream()
                .filter(o -> "NodeMaintenance".equals(o.get("kind")))
                .findFirst()
                .orElseThrow();
        assertThat(paths(nodeMaintenance, "statusDescriptors")).contains("phase", "drainProgress", "pendingPods");
        assertThat(paths(nodeMaintenance, "specDescriptors")).contains("nodeName", "reason");
    }

    @Test
    void nodeMaintenanceCrdIsClusterScopedWithPrinterColumns() throws IOException {
        Map<String, Object> crd = crd("NodeMaintenance");
        assertThat(ManifestAssembly.<String>at(crd, "spec", "scope")).isEqualTo("Cluster");
        assertThat(ManifestAssembly.<List<String>>at(crd, "spec", "names", "shortNames"))
                .containsExactly("tnm");
        List<Map<String, Object>> versions = at(crd, "spec", "versions");
        Map<String, Object> v1alpha1 = versions.stream()
                .filter(v -> "v1alpha1".equals(v.get("name")))
                .findFirst()
                .orElseThrow();
        List<Map<String, Object>> columns = at(v1alpha1, "additionalPrinterColumns");
        // The order NodeMaintenance declares them in, as kubectl shows them (ManifestAssembly; the generator
        // alone sorts them by JSON path).
        assertThat(columns)
                .extracting(c -> c.get("name"))
                .containsExactly("Node", "Phase", "Progress", "Waiting", "Reason", "Age");
    }

    @Test
    void csvDeclaresTheValidatingWebhookOnTheOperatorDeployment() throws IOException {
        Map<String, Object> csv = csv();
        List<Map<String, Object>> webhooks = at(csv, "spec", "webhookdefinitions");
        // NodeMaintenance's, and the rollout's (issue 52: its children are created with the operator's account, so
        // its requester is checked on the rollout), each served at its own path for its own resource
        assertThat(webhooks)
                .extracting(w -> w.get("webhookPath") + " " + at(w, "rules").toString())
                .containsExactly(
                        "/validate-nodemaintenance [{apiGroups=[tenure.dev], apiVersions=[v1alpha1], operations=[CREATE,"
                                + " UPDATE, DELETE], resources=[nodemaintenances], scope=Cluster}]",
                        "/validate-nodemaintenancerollout [{apiGroups=[tenure.dev], apiVersions=[v1alpha1],"
                                + " operations=[CREATE, UPDATE, DELETE], resources=[nodemaintenancerollouts],"
                                + " scope=Cluster}]");
        assertThat(webhooks).allSatisfy(webhook -> {
            assertThat(webhook)
                    .containsEntry("type", "ValidatingAdmissionWebhook")
                    .containsEntry("failurePolicy", "Fail")
                    .containsEntry("sideEffects", "None");
            assertThat(webhook.get("deploymentName")).isEqualTo(webhooks.get(0).get("deploymentName"));
            assertThat(webhook.get("targetPort")).isEqualTo(webhooks.get(0).get("targetPort"));
        });
        assertThat(webhooks.get(0)).satisfies(webhook -> {
            assertThat(webhook)
                    .containsEntry("type", "ValidatingAdmissionWebhook")
                    .containsEntry("webhookPath", "/validate-nodemaintenance")
                    .containsEntry("sideEffects", "None");
            assertThat((List<Object>) webhook.get("admissionReviewVersions")).contains("v1");
            Map<String, Object> rule = ManifestAssembly.<List<Map<String, Object>>>at(webhook, "rules")
                    .get(0);
            assertThat((List<Object>) rule.get("apiGroups")).containsExactly("tenure.dev");
            assertThat((List<Object>) rule.get("apiVersions")).containsExactly("v1alpha1");
            assertThat((List<Object>) rule.get("resources")).containsExactly("nodemaintenances");
            // DELETE too: ending a maintenance uncordons the node, so the requester check covers it (issue 39)
            assertThat((List<Object>) rule.get("operations")).containsExactlyInAnyOrder("CREATE", "UPDATE", "DELETE");

            Map<String, Object> deployment = csvDeployment(csv, (String) webhook.get("deploymentName"));
            Map<String, Object> container = operatorContainer(at(deployment, "spec"));
            assertThat(ManifestAssembly.<List<Map<String, Object>>>at(container, "ports"))
                    .anySatisfy(p -> assertThat(p.get("containerPort")).isEqualTo(webhook.get("targetPort")));
            // how the webhook knows the operator's own requests, which it admits unchecked
            assertThat(ManifestAssembly.<List<Map<String, Object>>>at(container, "env"))
                    .anySatisfy(e -> assertThat(e)
                            .containsEntry("name", "POD_SERVICE_ACCOUNT")
                            .containsEntry(
                                    "valueFrom", Map.of("fieldRef", Map.of("fieldPath", "spec.serviceAccountName"))));
        });
    }

    @Test
    void csvDeploymentIsHardenedAndProbed() throws IOException {
        Map<String, Object> csv = csv();
        Map<String, Object> deploymentSpec = at(csvDeployment(csv, "tenure-operator"), "spec");
        assertHardened(deploymentSpec);
        assertThat(ManifestAssembly.<String>at(csv, "metadata", "annotations", "containerImage"))
                .isEqualTo(operatorContainer(deploymentSpec).get("image"));
    }

    @Test
    void csvPermissionsHaveNoWildcards() throws IOException {
        Map<String, Object> install = at(csv(), "spec", "install", "spec");
        List<Map<String, Object>> rules = new ArrayList<>();
        for (String key : List.of("clusterPermissions", "permissions")) {
            List<Map<String, Object>> permissions = Objects.requireNonNullElse(at(install, key), List.of());
            permissions.forEach(p -> rules.addAll(at(p, "rules")));
        }
        assertThat(rules).isNotEmpty();
        assertNoWildcards(rules);
    }

    /**
     * The shipped RBAC's shape; that it is exactly what the code calls is RbacLeastPrivilegeCheck's job, after
     * the whole suite recorded the operator's requests.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"plain manifests", "CSV"})
    void operatorNeitherCreatesNorDeletesNodesNorTouchesFinalizers(String source) throws IOException {
        List<Map<String, Object>> rules = source.equals("CSV") ? csvRules() : plainRules();
        assertThat(rules).isNotEmpty().allSatisfy(rule -> {
            List<Object> resources =
                    Objects.requireNonNullElse(ManifestAssembly.<List<Object>>at(rule, "resources"), List.of());
            List<Object> verbs =
                    Objects.requireNonNullElse(ManifestAssembly.<List<Object>>at(rule, "verbs"), List.of());
            assertThat(resources)
                    .as("rule %s", rule)
                    .noneMatch(r -> String.valueOf(r).endsWith("/finalizers"));
            if (resources.contains("nodes") || resources.contains("nodes/status")) {
                assertThat(verbs).as("rule %s", rule).doesNotContain("create", "update", "delete");
            }
        });
        // Issue 52: a NodeMaintenanceRollout creates and deletes its child NodeMaintenances; nothing else of ours is
        // created, updated or deleted by the operator (the rollouts themselves are the user's).
        assertThat(rules)
                .as("tenure.dev: read, watched, patched (finalizer), status patched; only the rollouts' children"
                        + " NodeMaintenances created and deleted")
                .filteredOn(
                        r -> ManifestAssembly.<List<Object>>at(r, "apiGroups").contains("tenure.dev"))
                .allSatisfy(r -> {
                    List<Object> verbs = ManifestAssembly.at(r, "verbs");
                    assertThat(verbs).doesNotContain("update");
                    if (!ManifestAssembly.<List<Object>>at(r, "resources").equals(List.of("nodemaintenances"))) {
                        assertThat(verbs).doesNotContain("create", "delete");
                    }
                });
    }

    /** Issue 19 item 8: what the CRD documents is in its schema, for kubectl explain, defaulting and validation. */
    @Test
    void crdSchemaCarriesDefaultsConditionMapTimestampFormatsAndProgressBounds() throws IOException {
        requireBundle();
        Map<String, Object> crd = bundleCrds().stream()
                .filter(c -> "NodeMaintenance".equals(ManifestAssembly.at(c, "spec", "names", "kind")))
                .findFirst()
                .orElseThrow();
        List<Map<String, Object>> versions = ManifestAssembly.at(crd, "spec", "versions");
        Map<String, Object> root = ManifestAssembly.at(versions.get(0), "schema", "openAPIV3Schema", "properties");
        Map<String, Object> drain = ManifestAssembly.at(root, "spec", "properties", "drain", "properties");
        assertThat(ManifestAssembly.<Object>at(drain, "ignoreDaemonSets", "default"))
                .isEqualTo(true);
        assertThat(ManifestAssembly.<Object>at(drain, "deleteEmptyDirData", "default"))
                .isEqualTo(true);
        assertThat(ManifestAssembly.<Object>at(drain, "force", "default")).isEqualTo(true);
        assertThat(ManifestAssembly.<Object>at(drain, "gracePeriodSeconds", "default"))
                .isEqualTo(-1);
        assertThat(ManifestAssembly.<Object>at(drain, "evictionRetryDelay", "default"))
                .isEqualTo("5s");
        Map<String, Object> handover = ManifestAssembly.at(root, "spec", "properties", "handover", "properties");
        assertThat(ManifestAssembly.<Object>at(handover, "enabled", "default")).isEqualTo(true);
        assertThat(ManifestAssembly.<Object>at(handover, "timeout", "default")).isEqualTo("30s");
        Map<String, Object> status = ManifestAssembly.at(root, "status", "properties");
        assertThat(ManifestAssembly.<Object>at(status, "conditions", "x-kubernetes-list-type"))
                .isEqualTo("map");
        assertThat(ManifestAssembly.<List<Object>>at(status, "conditions", "x-kubernetes-list-map-keys"))
                .containsExactly("type");
        assertThat(ManifestAssembly.<List<Object>>at(status, "conditions", "items", "required"))
                .contains("type", "status");
        for (List<String> path : ManifestAssembly.STATUS_TIMESTAMPS) {
            Map<String, Object> node = status;
            for (String key : path) {
                node = ManifestAssembly.at(node, key);
            }
            assertThat(node.get("format"))
                    .as("format of status.%s", String.join(".", path))
                    .isEqualTo("date-time");
        }
        assertThat(((Number) ManifestAssembly.at(status, "drainProgress", "minimum")).doubleValue())
                .isEqualTo(0.0);
        assertThat(((Number) ManifestAssembly.at(status, "drainProgress", "maximum")).doubleValue())
                .isEqualTo(100.0);
    }

    /**
     * Issue 51: {@code status.drainPlan.pods[].surgeReason} is what a preview shows before a surge starts, so its schema
     * description (kubectl explain) names every reason the planner can give, by the name it shows, in the bundle's CRD
     * and in the plain manifests' alike.
     */
    @Test
    void surgeReasonDescriptionNamesEveryReasonThePlannerGives() throws IOException {
        List<Map<String, Object>> shipped = new ArrayList<>();
        shipped.add(crd("NodeMaintenance"));
        ManifestAssembly.parseAll(Files.readString(DEPLOY.resolve("tenure-operator.yaml"))).stream()
                .filter(d -> "CustomResourceDefinition".equals(d.get("kind"))
                        && "NodeMaintenance".equals(ManifestAssembly.at(d, "spec", "names", "kind")))
                .forEach(shipped::add);
        assertThat(shipped).as("the bundle's CRD and deploy/'s").hasSize(2);
        for (Map<String, Object> crd : shipped) {
            String description = at(
                    schema(crd, "status"),
                    "properties",
                    "drainPlan",
                    "properties",
                    "pods",
                    "items",
                    "properties",
                    "surgeReason",
                    "description");
            assertThat(description)
                    .as("surgeReason's description")
                    .contains(Stream.of(SurgePlanner.Reason.values())
                            .map(SurgePlanner.Reason::shown)
                            .toList());
        }
    }

    /**
     * OLM fails the whole install when a bundle object's kind is not served by the cluster (issue 19.1):
     * every bundle manifest must be of a kind a bare cluster with OLM serves; ServiceMonitor,
     * PrometheusRule and the dashboard live in deploy/monitoring, outside the bundle.
     */
    @Test
    void everyBundleManifestIsOfAKindOlmInstallsOnABareCluster() throws IOException {
        requireBundle();
        List<Object> kinds = new ArrayList<>();
        for (Path file : files(BUNDLE)) {
            ManifestAssembly.parseAll(Files.readString(file)).forEach(d -> kinds.add(d.get("kind")));
        }
        assertThat(kinds)
                .contains("ClusterServiceVersion", "CustomResourceDefinition", "Service", "PodDisruptionBudget");
        assertThat(kinds)
                .allSatisfy(kind -> assertThat(BARE_CLUSTER_BUNDLE_KINDS).contains(String.valueOf(kind)));
        assertThat(Files.exists(DEPLOY.resolve("monitoring/servicemonitor.yaml")))
                .isTrue();
        assertThat(Files.exists(DEPLOY.resolve("monitoring/prometheusrule.yaml")))
                .isTrue();
    }

    // --- Plain manifests ---------------------------------------------------------------------

    @Test
    void plainManifestsInstallTheOperatorWithoutOlm() throws IOException {
        List<Map<String, Object>> all =
                ManifestAssembly.parseAll(Files.readString(DEPLOY.resolve("tenure-operator.yaml")));
        List<Object> kinds = all.stream().map(r -> r.get("kind")).toList();
        assertThat(kinds.get(0)).isEqualTo("Namespace");
        assertThat(kinds)
                .contains("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Deployment", "Service")
                .doesNotContain("ServiceMonitor", "PrometheusRule");
        if (Files.exists(BUNDLE)) {
            assertThat(all.stream()
                            .filter(r -> "CustomResourceDefinition".equals(r.get("kind")))
                            .map(r -> ManifestAssembly.<String>at(r, "metadata", "name"))
                            .collect(Collectors.toSet()))
                    .isEqualTo(bundleCrds().stream()
                            .map(r -> ManifestAssembly.<String>at(r, "metadata", "name"))
                            .collect(Collectors.toSet()));
        }
        Map<String, Object> deployment = all.stream()
                .filter(r -> "Deployment".equals(r.get("kind")))
                .findFirst()
                .orElseThrow();
        assertHardened(at(deployment, "spec"));
        List<Map<String, Object>> rules = new ArrayList<>();
        all.stream()
                .filter(r -> Set.of("ClusterRole", "Role").contains(r.get("kind")))
                .forEach(r -> rules.addAll(Objects.requireNonNullElse(at(r, "rules"), List.of())));
        assertNoWildcards(rules);
        // No blanket role from quarkus-kubernetes-client's RBAC generation.
        assertThat(all)
                .noneSatisfy(r -> assertThat(ManifestAssembly.<String>at(r, "roleRef", "name"))
                        .isIn("view", "edit", "admin", "cluster-admin"));
    }

    @Test
    void serviceMonitorSelectsTheMetricsService() throws IOException {
        Map<String, Object> monitor = ManifestAssembly.parseAll(
                        Files.readString(DEPLOY.resolve("monitoring/servicemonitor.yaml")))
                .get(0);
        Map<String, Object> service =
                ManifestAssembly.parseAll(Files.readString(DEPLOY.resolve("tenure-operator.yaml"))).stream()
                        .filter(r -> "Service".equals(r.get("kind")))
                        .findFirst()
                        .orElseThrow();
        Map<String, Object> selector = at(monitor, "spec", "selector", "matchLabels");
        assertThat(ManifestAssembly.<Map<String, Object>>at(service, "metadata", "labels"))
                .containsAllEntriesOf(selector);
        Map<String, Object> endpoint = ManifestAssembly.<List<Map<String, Object>>>at(monitor, "spec", "endpoints")
                .get(0);
        assertThat(endpoint).containsEntry("path", "/q/metrics");
        assertThat(ManifestAssembly.<List<Map<String, Object>>>at(service, "spec", "ports"))
                .anySatisfy(p -> assertThat(p.get("name")).isEqualTo(endpoint.get("port")));
    }

    @Test
    void alertsCoverWhatAnOperatorMustKnow() throws IOException {
        Map<String, Object> rule = ManifestAssembly.parseAll(
                        Files.readString(DEPLOY.resolve("monitoring/prometheusrule.yaml")))
                .get(0);
        List<Map<String, Object>> groups = at(rule, "spec", "groups");
        Map<String, Map<String, Object>> alerts = groups.stream()
                .flatMap(g -> ManifestAssembly.<List<Map<String, Object>>>at(g, "rules").stream())
                .collect(Collectors.toMap(r -> (String) r.get("alert"), r -> r));
        assertThat(alerts.get("TenureMaintenanceStuck")).containsEntry("for", "1h");
        assertThat(alerts.get("TenureEvictionBlockedByPDB")).containsEntry("for", "30m");
        assertThat((String) alerts.get("TenureEvictionBlockedByPDB").get("expr"))
                .contains("blocked_by_pdb");
        assertThat(alerts.get("TenureOperatorNoLeader")).containsEntry("for", "5m");
        assertThat((String) alerts.get("TenureLeaseRenewFailures").get("expr")).contains("renew_failures");
        assertThat(alerts.values())
                .allSatisfy(a -> assertThat(ManifestAssembly.<String>at(a, "annotations", "description"))
                        .isNotBlank());
        assertThat(alerts)
                .containsKeys(
                        "TenureOperatorAbsent",
                        "TenureMaintenanceFailed",
                        "TenureCoordinatedLeaseLeaderless",
                        "TenureReconcileErrors",
                        "TenureEvictionErrors");
        assertThat((String) alerts.get("TenureOperatorAbsent").get("expr")).contains("absent(");
    }

    /**
     * Day two (issue 25): each alert has its own runbook section, a promtool case where it fires and one where
     * it stays silent, and no expression assumes how the scrape job is named.
     */
    @Test
    void everyAlertHasItsRunbookSectionAndFiringAndSilentTests() throws IOException {
        Map<String, Object> rule = ManifestAssembly.parseAll(
                        Files.readString(DEPLOY.resolve("monitoring/prometheusrule.yaml")))
                .get(0);
        List<Map<String, Object>> alerts =
                ManifestAssembly.<List<Map<String, Object>>>at(rule, "spec", "groups").stream()
                        .flatMap(g -> ManifestAssembly.<List<Map<String, Object>>>at(g, "rules").stream())
                        .toList();
        String runbooks = Files.readString(Path.of("docs", "troubleshooting.md"));
        String tests;
        try (var in = getClass().getResourceAsStream("/prometheus/alerts-test.yaml")) {
            tests = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        assertThat(alerts).isNotEmpty().allSatisfy(a -> {
            String name = (String) a.get("alert");
            assertThat(ManifestAssembly.<String>at(a, "annotations", "runbook_url"))
                    .isEqualTo(REPOSITORY_FILES + "docs/troubleshooting.md#" + name.toLowerCase(java.util.Locale.ROOT));
            assertThat(runbooks).as("runbook section of " + name).contains("\n### " + name + "\n");
            assertThat((String) a.get("expr")).as(name).doesNotContain("job=");
            Pattern firing = Pattern.compile("labels: 'ALERTS\\{alertname=\"" + name + "\", alertstate=\"firing\"");
            Pattern silent = Pattern.compile(
                    "expr: ALERTS\\{alertname=\"" + name + "\"[^}]*}\\s+eval_time: \\S+\\s+exp_samples: \\[]");
            assertThat(firing.matcher(tests).find())
                    .as("promtool case where " + name + " fires")
                    .isTrue();
            assertThat(silent.matcher(tests).find())
                    .as("promtool case where " + name + " stays silent")
                    .isTrue();
        });
    }

    @Test
    void everyMetricTheDashboardAndAlertsUseIsDocumented() throws IOException {
        String readme = ReadmeSection.of("metrics");
        String used = Files.readString(DEPLOY.resolve("monitoring/grafana-dashboard.json"))
                + Files.readString(DEPLOY.resolve("monitoring/prometheusrule.yaml"));
        JSON.readTree(Files.readString(DEPLOY.resolve("monitoring/grafana-dashboard.json"))); // valid JSON
        Set<String> names = new java.util.TreeSet<>();
        Matcher matcher = Pattern.compile("\\b(tenure_[a-z_]+?)(?:_bucket|_count|_sum)?\\b")
                .matcher(used);
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        assertThat(names).isNotEmpty();
        assertThat(names)
                .allSatisfy(name ->
                        assertThat(readme).as("README documents " + name).contains(name));
    }

    /**
     * Issue 18.4: the two replicas are spread over nodes and a PodDisruptionBudget lets a drain evict one
     * of them, never both; the memory request covers the footprint the bench measured. In the CSV (what
     * OLM installs) and in deploy/ alike.
     */
    @Test
    void operatorSurvivesTheDrainOfOneNodeInBothInstallPaths() throws IOException {
        List<Map<String, Object>> plain =
                ManifestAssembly.parseAll(Files.readString(DEPLOY.resolve("tenure-operator.yaml")));
        Map<String, Object> plainDeployment = plain.stream()
                .filter(r -> "Deployment".equals(r.get("kind")))
                .findFirst()
                .orElseThrow();
        Map<String, Object> plainPdb = plain.stream()
                .filter(r -> "PodDisruptionBudget".equals(r.get("kind")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no PodDisruptionBudget in deploy/"));
        assertSurvivesOneNodeDrain(at(plainDeployment, "spec"), plainPdb);
        requireBundle();
        Map<String, Object> bundlePdb = null;
        for (Path file : files(BUNDLE)) {
            for (Map<String, Object> d : ManifestAssembly.parseAll(Files.readString(file))) {
                if ("PodDisruptionBudget".equals(d.get("kind"))) {
                    bundlePdb = d;
                }
            }
        }
        assertThat(bundlePdb).as("PodDisruptionBudget in the bundle").isNotNull();
        assertSurvivesOneNodeDrain(at(csvDeployment(csv(), "tenure-operator"), "spec"), bundlePdb);
    }

    private static void assertSurvivesOneNodeDrain(Map<String, Object> deploymentSpec, Map<String, Object> pdb)
            throws IOException {
        int replicas = ((Number) deploymentSpec.get("replicas")).intValue();
        assertThat(replicas).isGreaterThanOrEqualTo(2);
        Map<String, Object> podLabels = at(deploymentSpec, "template", "metadata", "labels");
        Map<String, Object> podSpec = at(deploymentSpec, "template", "spec");
        List<Map<String, Object>> spread = at(podSpec, "topologySpreadConstraints");
        assertThat(spread).as("topology spread over nodes").anySatisfy(c -> {
            assertThat(c).containsEntry("topologyKey", "kubernetes.io/hostname").containsEntry("maxSkew", 1);
            assertThat(podLabels).containsAllEntriesOf(at(c, "labelSelector", "matchLabels"));
        });
        List<Map<String, Object>> antiAffinity =
                at(podSpec, "affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution");
        assertThat(antiAffinity)
                .anySatisfy(t -> assertThat(podLabels)
                        .containsAllEntriesOf(at(t, "podAffinityTerm", "labelSelector", "matchLabels")));
        // The budget selects the operator's pods and allows exactly one of them to be evicted at a time.
        assertThat(podLabels).containsAllEntriesOf(at(pdb, "spec", "selector", "matchLabels"));
        Map<String, Object> pdbSpec = at(pdb, "spec");
        int allowed = pdbSpec.containsKey("maxUnavailable")
                ? ((Number) pdbSpec.get("maxUnavailable")).intValue()
                : replicas - ((Number) pdbSpec.get("minAvailable")).intValue();
        assertThat(allowed).as("evictions the budget allows at once").isEqualTo(1);

        String memory = at(operatorContainer(deploymentSpec), "resources", "requests", "memory");
        assertThat(mebibytes(memory))
                .as("memory request %s vs the bench's RSS", memory)
                .isGreaterThanOrEqualTo(benchRssMebibytes());
    }

    private static double mebibytes(String quantity) {
        Matcher m = Pattern.compile("(\\d+)(Mi|Gi)").matcher(quantity);
        assertThat(m.matches()).as("memory quantity " + quantity).isTrue();
        return Double.parseDouble(m.group(1)) * ("Gi".equals(m.group(2)) ? 1024 : 1);
    }

    /** The largest RSS the bench's footprint row recorded (bench/results.json, committed with its run). */
    private static double benchRssMebibytes() throws IOException {
        JsonNode results = JSON.readTree(Files.readString(Path.of("bench", "results.json")));
        double max = 0;
        for (JsonNode row :
                (Iterable<JsonNode>) () -> results.findParents("measurements").iterator()) {
            if (row.path("title").asText().startsWith("Operator footprint")) {
                for (JsonNode m : row.get("measurements")) {
                    if (m.path("metric").asText().contains("RSS")
                            && "MiB".equals(m.path("unit").asText())) {
                        max = Math.max(max, m.path("value").asDouble());
                    }
                }
            }
        }
        assertThat(max).as("bench footprint RSS").isGreaterThan(0);
        return max;
    }

    @Test
    void everyAlertLinksARunbookAndNoLeaderIsPerInstall() throws IOException {
        Map<String, Object> rule = ManifestAssembly.parseAll(
                        Files.readString(DEPLOY.resolve("monitoring/prometheusrule.yaml")))
                .get(0);
        List<Map<String, Object>> alerts =
                ManifestAssembly.<List<Map<String, Object>>>at(rule, "spec", "groups").stream()
                        .flatMap(g -> ManifestAssembly.<List<Map<String, Object>>>at(g, "rules").stream())
                        .toList();
        assertThat(alerts).isNotEmpty().allSatisfy(a -> {
            String url = at(a, "annotations", "runbook_url");
            assertThat(url).as("runbook_url of " + a.get("alert")).startsWith(REPOSITORY_FILES);
            Path page = Path.of(url.substring(REPOSITORY_FILES.length(), url.indexOf('#')));
            String anchor = url.substring(url.indexOf('#') + 1);
            assertThat(page).as("runbook page of " + url).exists();
            assertThat(Files.readString(page)
                            .lines()
                            .filter(l -> l.startsWith("#"))
                            .map(GeneratedArtifactsTest::githubAnchor))
                    .as("heading for " + url)
                    .contains(anchor);
        });
        Map<String, Object> noLeader = alerts.stream()
                .filter(a -> "TenureOperatorNoLeader".equals(a.get("alert")))
                .findFirst()
                .orElseThrow();
        assertThat((String) noLeader.get("expr")).contains("by (namespace)");
    }

    private static String githubAnchor(String heading) {
        return heading.replaceFirst("^#+\\s*", "")
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^a-z0-9 _-]", "")
                .replace(' ', '-');
    }

    /** The CRD reader is narrowed to the operator's own CRDs by name (issue 19.3): exactly the ones deploy/ ships. */
    @Test
    void crdReaderNamesExactlyTheShippedCrds() throws IOException {
        List<Map<String, Object>> plain =
                ManifestAssembly.parseAll(Files.readString(DEPLOY.resolve("tenure-operator.yaml")));
        Set<String> crds = plain.stream()
                .filter(r -> "CustomResourceDefinition".equals(r.get("kind")))
                .map(r -> ManifestAssembly.<String>at(r, "metadata", "name"))
                .collect(Collectors.toSet());
        List<Map<String, Object>> crdRules = plainRules().stream()
                .filter(r -> ManifestAssembly.<List<Object>>at(r, "resources").contains("customresourcedefinitions"))
                .toList();
        assertThat(crdRules)
                .isNotEmpty()
                .allSatisfy(r -> assertThat(Set.copyOf(Objects.requireNonNullElse(
                                ManifestAssembly.<List<String>>at(r, "resourceNames"), List.of())))
                        .isEqualTo(crds));
    }

    /**
     * Issue 19.8: the webhook is not served over plain HTTP beside metrics. Metrics and probes are on the
     * management port (plain HTTP), which the Service exposes under the name the ServiceMonitor scrapes;
     * under OLM the main interface takes HTTPS only (8443) and refuses plain requests.
     */
    @Test
    void metricsAndProbesOnTheManagementPortAndTheWebhookOnlyOverTls() throws IOException {
        List<Map<String, Object>> plain =
                ManifestAssembly.parseAll(Files.readString(DEPLOY.resolve("tenure-operator.yaml")));
        Map<String, Object> service = plain.stream()
                .filter(r -> "Service".equals(r.get("kind")))
                .findFirst()
                .orElseThrow();
        Map<String, Object> monitor = ManifestAssembly.parseAll(
                        Files.readString(DEPLOY.resolve("monitoring/servicemonitor.yaml")))
                .get(0);
        String scraped = String.valueOf(ManifestAssembly.<List<Map<String, Object>>>at(monitor, "spec", "endpoints")
                .get(0)
                .get("port"));
        Map<String, Object> servicePort =
                ManifestAssembly.<List<Map<String, Object>>>at(service, "spec", "ports").stream()
                        .filter(p -> scraped.equals(p.get("name")))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("the Service has no port " + scraped));
        Map<String, Object> plainDeployment = plain.stream()
                .filter(r -> "Deployment".equals(r.get("kind")))
                .findFirst()
                .orElseThrow();
        requireBundle();
        Map<String, Object> csvDeployment = csvDeployment(csv(), "tenure-operator");
        for (Map<String, Object> deploymentSpec :
                List.<Map<String, Object>>of(at(plainDeployment, "spec"), at(csvDeployment, "spec"))) {
            Map<String, Object> container = operatorContainer(deploymentSpec);
            Object management = ManifestAssembly.<List<Map<String, Object>>>at(container, "ports").stream()
                    .filter(p -> "management".equals(p.get("name")))
                    .map(p -> p.get("containerPort"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no management port"));
            assertThat(servicePort.get("targetPort")).isEqualTo(management);
            for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
                assertThat(ManifestAssembly.<Object>at(container, probe, "httpGet", "port"))
                        .as(probe)
                        .isEqualTo(management);
            }
            assertThat(ManifestAssembly.<String>at(
                            deploymentSpec, "template", "metadata", "annotations", "prometheus.io/port"))
                    .isEqualTo(String.valueOf(management));
        }
        Map<String, Object> csvContainer = operatorContainer(at(csvDeployment, "spec"));
        List<Map<String, Object>> env = at(csvContainer, "env");
        assertThat(env)
                .anySatisfy(e -> assertThat(e)
                        .containsEntry("name", "QUARKUS_HTTP_INSECURE_REQUESTS")
                        .containsEntry("value", "disabled"));
        Map<String, Object> webhook = ManifestAssembly.<List<Map<String, Object>>>at(
                        csv(), "spec", "webhookdefinitions")
                .get(0);
        assertThat(env)
                .anySatisfy(e -> assertThat(e)
                        .containsEntry("name", "QUARKUS_HTTP_SSL_PORT")
                        .containsEntry("value", String.valueOf(webhook.get("targetPort"))));
        assertThat(webhook.get("targetPort")).isNotEqualTo(servicePort.get("targetPort"));
    }

    /**
     * Issue 39: every port of the Service OLM installs from the bundle leads to a port the CSV's container serves.
     * Under OLM plain HTTP is off (insecure requests disabled), so an {@code http} port onto 8080 led nowhere.
     */
    @Test
    void everyPortOfTheBundledServiceIsServedUnderOlm() throws IOException {
        requireBundle();
        Map<String, Object> service = ManifestAssembly.parseAll(
                        Files.readString(BUNDLE.resolve("tenure-operator-service.yaml")))
                .get(0);
        Map<String, Object> container = operatorContainer(at(csvDeployment(csv(), "tenure-operator"), "spec"));
        List<Map<String, Object>> env = at(container, "env");
        boolean plainHttpOff = env.stream()
                .anyMatch(e ->
                        "QUARKUS_HTTP_INSECURE_REQUESTS".equals(e.get("name")) && "disabled".equals(e.get("value")));
        assertThat(plainHttpOff).isTrue();
        Set<Object> served = ManifestAssembly.<List<Map<String, Object>>>at(container, "ports").stream()
                .filter(p -> !"http".equals(p.get("name")))
                .map(p -> p.get("containerPort"))
                .collect(Collectors.toSet());
        List<Map<String, Object>> ports = at(service, "spec", "ports");
        assertThat(ports).extracting(p -> p.get("name")).contains("management");
        assertThat(ports)
                .allSatisfy(p -> assertThat(served).as("port " + p.get("name")).contains(p.get("targetPort")));
    }

    /** Issue 39: OperatorHub filters by platform; the CSV says Linux on amd64 and arm64. */
    @Test
    void csvDeclaresItsOperatingSystemAndArchitectures() throws IOException {
        requireBundle();
        Map<String, Object> labels = at(csv(), "metadata", "labels");
        assertThat(labels)
                .containsEntry("operatorframework.io/os.linux", "supported")
                .containsEntry("operatorframework.io/arch.amd64", "supported")
                .containsEntry("operatorframework.io/arch.arm64", "supported");
    }

    // --- helpers -----------------------------------------------------------------------------

    /**
     * Issue 19: lease writes outside the operator's namespace come only from coordinated election's own role
     * (it writes whichever Lease a LeaseCandidate names, as kube-controller-manager's CLE controller does);
     * maintenance writes node leases through a Role in the operator's namespace and creates no namespace (it only
     * reads one, for drain rules' namespaceSelector); the
     * reconcilers' generated ClusterRoles are one.
     */
    @Test
    void leaseWritesAreNamespacedExceptCoordinatedElection() throws IOException {
        List<Map<String, Object>> documents =
                ManifestAssembly.parseAll(Files.readString(DEPLOY.resolve("tenure-operator.yaml")));
        GrantedPermissions granted = GrantedPermissions.ofManifests(
                documents, RbacLeastPrivilegeCheck.OPERATOR_NAMESPACE, RbacLeastPrivilegeCheck.SERVICE_ACCOUNT);
        Set<String> leaseWrites = Set.of("create", "update", "patch", "delete");
        assertThat(granted.permissions())
                .filteredOn(p -> p.resource().equals("leases") && p.clusterWide() && leaseWrites.contains(p.verb()))
                .extracting(GrantedPermissions.Permission::role)
                .containsOnly("ClusterRole tenure-coordination");
        assertThat(granted.permissions())
                .filteredOn(p -> p.resource().equals("leases")
                        && !p.clusterWide()
                        && p.role().equals("Role tenure-node-leases"))
                .extracting(GrantedPermissions.Permission::verb)
                .containsExactlyInAnyOrder("get", "create", "update");
        // no namespace is created or changed; drain rules with a namespaceSelector read one (issue 29), the
        // placement forecast lists them when an affinity term's namespaceSelector needs their labels (issue 49)
        assertThat(granted.permissions())
                .filteredOn(p -> p.resource().equals("namespaces"))
                .extracting(GrantedPermissions.Permission::verb)
                .containsOnly("get", "list");
        assertThat(documents)
                .filteredOn(d -> "ClusterRole".equals(d.get("kind")))
                .extracting(d -> String.valueOf((Object) at(d, "metadata", "name")))
                .containsExactlyInAnyOrder(
                        "tenure-maintenance",
                        "tenure-coordination",
                        "tenure-operator-crd-reader",
                        "tenure-operator-lease-guard-reader",
                        "tenure-operator-access-reviewer",
                        "tenure-operator-surge");
    }

    private static void assertHardened(Map<String, Object> deploymentSpec) {
        Map<String, Object> podSpec = at(deploymentSpec, "template", "spec");
        assertThat(ManifestAssembly.<Boolean>at(podSpec, "securityContext", "runAsNonRoot"))
                .isTrue();
        assertThat(ManifestAssembly.<String>at(podSpec, "securityContext", "seccompProfile", "type"))
                .isEqualTo("RuntimeDefault");
        Map<String, Object> container = operatorContainer(deploymentSpec);
        Map<String, Object> security = at(container, "securityContext");
        assertThat(security)
                .containsEntry("readOnlyRootFilesystem", true)
                .containsEntry("allowPrivilegeEscalation", false)
                .containsEntry("runAsNonRoot", true);
        assertThat(ManifestAssembly.<List<String>>at(security, "capabilities", "drop"))
                .containsExactly("ALL");
        assertThat(ManifestAssembly.<Map<String, Object>>at(container, "resources", "requests"))
                .containsKeys("cpu", "memory");
        assertThat(ManifestAssembly.<Map<String, Object>>at(container, "resources", "limits"))
                .containsKeys("cpu", "memory");
        assertThat(ManifestAssembly.<String>at(container, "livenessProbe", "httpGet", "path"))
                .isEqualTo("/q/health/live");
        assertThat(ManifestAssembly.<String>at(container, "readinessProbe", "httpGet", "path"))
                .isEqualTo("/q/health/ready");
    }

    private static void assertNoWildcards(List<Map<String, Object>> rules) {
        for (Map<String, Object> rule : rules) {
            for (String key : List.of("apiGroups", "resources", "verbs", "resourceNames", "nonResourceURLs")) {
                List<Object> values =
                        Objects.requireNonNullElse(ManifestAssembly.<List<Object>>at(rule, key), List.of());
                assertThat(values).as("%s of rule %s", key, rule).doesNotContain("*");
            }
        }
    }

    private static List<Map<String, Object>> csvRules() throws IOException {
        Map<String, Object> install = at(csv(), "spec", "install", "spec");
        List<Map<String, Object>> rules = new ArrayList<>();
        for (String key : List.of("clusterPermissions", "permissions")) {
            List<Map<String, Object>> permissions = Objects.requireNonNullElse(at(install, key), List.of());
            permissions.forEach(p -> rules.addAll(at(p, "rules")));
        }
        return rules;
    }

    private static List<Map<String, Object>> plainRules() throws IOException {
        List<Map<String, Object>> rules = new ArrayList<>();
        ManifestAssembly.parseAll(Files.readString(DEPLOY.resolve("tenure-operator.yaml"))).stream()
                .filter(r -> Set.of("ClusterRole", "Role").contains(r.get("kind")))
                .forEach(r -> rules.addAll(Objects.requireNonNullElse(at(r, "rules"), List.of())));
        return rules;
    }

    private static Map<String, Object> csv() throws IOException {
        requireBundle();
        return ManifestAssembly.parseAll(Files.readString(BUNDLE.resolve("tenure-operator.clusterserviceversion.yaml")))
                .get(0);
    }

    /**
     * The generator writes a bundle once a reconciler of a custom resource exists; from then on (the
     * plain manifests carry its CRD) a missing bundle is a failure, not a reason to skip.
     */
    private static void requireBundle() throws IOException {
        boolean crdsShipped =
                ManifestAssembly.parseAll(Files.readString(DEPLOY.resolve("tenure-operator.yaml"))).stream()
                        .anyMatch(r -> "CustomResourceDefinition".equals(r.get("kind")));
        Assumptions.assumeTrue(crdsShipped, "no custom resource yet, so no bundle is generated");
        assertThat(BUNDLE.resolve("tenure-operator.clusterserviceversion.yaml")).exists();
    }

    private static List<Map<String, Object>> bundleCrds() throws IOException {
        List<Map<String, Object>> crds = new ArrayList<>();
        for (Path file : files(BUNDLE)) {
            ManifestAssembly.parseAll(Files.readString(file)).stream()
                    .filter(d -> "CustomResourceDefinition".equals(d.get("kind")))
                    .forEach(crds::add);
        }
        return crds;
    }

    private static Map<String, Object> crd(String kind) throws IOException {
        requireBundle();
        return bundleCrds().stream()
                .filter(c -> kind.equals(at(c, "spec", "names", "kind")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no CRD for " + kind + " in " + BUNDLE));
    }

    private static Map<String, Object> schema(Map<String, Object> crd, String section) {
        List<Map<String, Object>> versions = at(crd, "spec", "versions");
        Map<String, Object> storage = versions.stream()
                .filter(v -> Boolean.TRUE.equals(v.get("storage")))
                .findFirst()
                .orElse(versions.get(0));
        return at(storage, "schema", "openAPIV3Schema", "properties", section);
    }

    /** Whether {@code dottedPath} (e.g. {@code spec.drain.timeout}) is a property path of the schema (also BundleValidationTest). */
    static boolean schemaHasPath(Map<String, Object> schema, String dottedPath) {
        Map<String, Object> node = schema;
        for (String part : dottedPath.split("\\.")) {
            Map<String, Object> properties = node == null ? null : at(node, "properties");
            node = properties == null ? null : at(properties, part);
            if (node == null) {
                return false;
            }
        }
        return true;
    }

    private static Map<String, Object> csvDeployment(Map<String, Object> csv, String name) {
        List<Map<String, Object>> deployments = at(csv, "spec", "install", "spec", "deployments");
        return deployments.stream()
                .filter(d -> name.equals(d.get("name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no deployment " + name + " in the CSV"));
    }

    private static Map<String, Object> operatorContainer(Map<String, Object> deploymentSpec) {
        List<Map<String, Object>> containers = at(deploymentSpec, "template", "spec", "containers");
        return containers.stream()
                .filter(c -> "tenure-operator".equals(c.get("name")))
                .findFirst()
                .orElseThrow();
    }

    private static List<Object> paths(Map<String, Object> owned, String key) {
        List<Map<String, Object>> descriptors = at(owned, key);
        return descriptors.stream().map(d -> d.get("path")).toList();
    }

    private static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.sorted().toList();
        }
    }

    @SuppressWarnings("TypeParameterUnusedInFormals") // a YAML path lookup: the caller names the type it expects
    private static <T> T at(Map<String, Object> root, String... keys) {
        return ManifestAssembly.at(root, keys);
    }
}
