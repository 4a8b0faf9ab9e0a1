package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The assembly step's decisions on small inputs (the shipped output is checked by GeneratedArtifactsTest). */
class ManifestAssemblyTest {

    private static final String GENERATED_CSV = """
            apiVersion: operators.coreos.com/v1alpha1
            kind: ClusterServiceVersion
            metadata:
              name: tenure-operator.v0.1.0
            spec:
              customresourcedefinitions:
                owned:
                  - kind: NodeMaintenance
                    name: nodemaintenances.tenure.dev
                    version: v1alpha1
              install:
                strategy: deployment
                spec:
                  deployments:
                    - name: tenure-operator
                      spec:
                        template:
                          spec:
                            containers:
                              - name: tenure-operator
                                ports:
                                  - containerPort: 8080
                                    name: http
            """;

    @Test
    void reconcilerClusterRolesBecomeOneRoleWithEachResourceListedOnce() {
        List<Map<String, Object>> generated = ManifestAssembly.parseAll("""
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRole
                metadata: {name: nodemaintenance-cluster-role}
                rules:
                  - {apiGroups: [""], resources: [nodes], verbs: [get, list, patch]}
                  - {apiGroups: [""], resources: [pods], verbs: [list, delete]}
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRoleBinding
                metadata: {name: nodemaintenance-cluster-role-binding}
                roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: nodemaintenance-cluster-role}
                subjects: [{kind: ServiceAccount, name: tenure-operator, namespace: tenure-system}]
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRole
                metadata: {name: maintenance-annotation-cluster-role}
                rules:
                  - {apiGroups: [""], resources: [nodes], verbs: [watch, get]}
                  - {apiGroups: [""], resources: [pods], verbs: [list, delete]}
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRoleBinding
                metadata: {name: maintenance-annotation-cluster-role-binding}
                roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: maintenance-annotation-cluster-role}
                subjects: [{kind: ServiceAccount, name: tenure-operator, namespace: tenure-system}]
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRole
                metadata: {name: tenure-coordination}
                rules:
                  - {apiGroups: [""], resources: [nodes], verbs: [get, list, watch]}
                """);
        List<Map<String, Object>> merged = ManifestAssembly.withReconcilerRolesMerged(generated);
        assertThat(merged)
                .extracting(d -> d.get("kind") + "/" + at(d, "metadata", "name"))
                .containsExactlyInAnyOrder(
                        "ClusterRole/tenure-coordination",
                        "ClusterRole/tenure-maintenance",
                        "ClusterRoleBinding/tenure-maintenance");
        Map<String, Object> role = merged.stream()
                .filter(d ->
                        "tenure-maintenance".equals(at(d, "metadata", "name")) && "ClusterRole".equals(d.get("kind")))
                .findFirst()
                .orElseThrow();
        List<Map<String, Object>> rules = at(role, "rules");
        assertThat(rules).hasSize(2);
        assertThat(rules.get(0))
                .containsEntry("resources", List.of("nodes"))
                .containsEntry("verbs", List.of("get", "list", "watch", "patch"));
        assertThat(rules.get(1))
                .containsEntry("resources", List.of("pods"))
                .containsEntry("verbs", List.of("list", "delete"));
        Map<String, Object> binding = merged.stream()
                .filter(d -> "ClusterRoleBinding".equals(d.get("kind")))
                .findFirst()
                .orElseThrow();
        // Key order fixed (kind, apiGroup, name): the committed manifests are compared byte for byte with a build.
        assertThat(ManifestAssemblyTest.<Map<String, Object>>at(binding, "roleRef")
                        .keySet())
                .containsExactly("kind", "apiGroup", "name");
        assertThat(binding.get("roleRef").toString()).contains("name=tenure-maintenance");
        assertThat(ManifestAssemblyTest.<List<?>>at(binding, "subjects")).hasSize(1);
    }

    @Test
    void rulesOnDifferentResourceNamesStaySeparate() {
        List<Map<String, Object>> rules =
                ManifestAssembly.parseAll("""
                rules:
                  - {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [create, watch]}
                  - {apiGroups: [coordination.k8s.io], resources: [leases], resourceNames: [tenure-operator], verbs: [get, update]}
                  - {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, create, update]}
                """).get(0).get("rules") instanceof List<?> l ? cast(l) : List.of();
        List<Map<String, Object>> merged = ManifestAssembly.mergedRules(rules);
        assertThat(merged).hasSize(2);
        assertThat(merged.get(0))
                .containsEntry("verbs", List.of("get", "watch", "create", "update"))
                .doesNotContainKey("resourceNames");
        assertThat(merged.get(1))
                .containsEntry("resourceNames", List.of("tenure-operator"))
                .containsEntry("verbs", List.of("get", "update"));
    }

    @Test
    void containerPortsComeOutInOneOrderWhateverOrderTheGeneratorUsed() {
        String deployment = """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: tenure-operator
                spec:
                  template:
                    spec:
                      containers:
                        - name: tenure-operator
                          ports:
                            - {containerPort: %s, name: %s}
                            - {containerPort: %s, name: %s}
                """;
        String managementFirst = ManifestAssembly.toYaml(ManifestAssembly.canonical(
                ManifestAssembly.parseAll(deployment.formatted(9000, "management", 8080, "http"))));
        String httpFirst = ManifestAssembly.toYaml(ManifestAssembly.canonical(
                ManifestAssembly.parseAll(deployment.formatted(8080, "http", 9000, "management"))));
        assertThat(managementFirst).isEqualTo(httpFirst);
    }

    @Test
    void completedCsvDeclaresTheValidatingWebhook() {
        Map<String, Object> csv = ManifestAssembly.completeCsv(
                ManifestAssembly.parseAll(GENERATED_CSV).get(0));
        List<Map<String, Object>> webhooks = at(csv, "spec", "webhookdefinitions");
        assertThat(webhooks)
                .extracting(w -> w.get("webhookPath"))
                .containsExactly("/validate-nodemaintenance", "/validate-nodemaintenancerollout");
        assertThat(webhooks.get(1).get("rules").toString()).contains("nodemaintenancerollouts", "DELETE");
        assertThat(webhooks.get(0)).satisfies(w -> {
            assertThat(w)
                    .containsEntry("type", "ValidatingAdmissionWebhook")
                    .containsEntry("webhookPath", "/validate-nodemaintenance")
                    .containsEntry("deploymentName", "tenure-operator")
                    .containsEntry("targetPort", 8443);
            assertThat(w.get("rules").toString())
                    .contains("tenure.dev", "v1alpha1", "nodemaintenances", "CREATE", "UPDATE");
        });
    }

    @Test
    void completedCsvDescribesOwnedCrdsAndWiresWebhookTls() {
        Map<String, Object> csv = ManifestAssembly.completeCsv(
                ManifestAssembly.parseAll(GENERATED_CSV).get(0));
        Map<String, Object> owned = ManifestAssembly.<List<Map<String, Object>>>at(
                        csv, "spec", "customresourcedefinitions", "owned")
                .get(0);
        assertThat(owned).containsEntry("displayName", "Node Maintenance");
        assertThat(paths(owned, "statusDescriptors")).contains("phase", "drainProgress", "pendingPods");
        assertThat(paths(owned, "specDescriptors")).contains("nodeName", "reason");

        String container = ManifestAssembly.parseAll(ManifestAssembly.toYaml(List.of(csv)))
                .get(0)
                .toString();
        assertThat(container)
                .contains(
                        "QUARKUS_HTTP_SSL_CERTIFICATE_FILES",
                        "/tmp/k8s-webhook-server/serving-certs/tls.crt",
                        "containerPort=8443");
    }

    @Test
    void completingTwiceChangesNothing() {
        Map<String, Object> once = ManifestAssembly.completeCsv(
                ManifestAssembly.parseAll(GENERATED_CSV).get(0));
        assertThat(ManifestAssembly.completeCsv(once)).isEqualTo(once);
    }

    @Test
    void plainManifestsKeepMonitoringKindsApartAndStartWithNamespaceAndCrds() {
        List<Map<String, Object>> resources = ManifestAssembly.parseAll("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: tenure-operator, namespace: tenure-system}
                ---
                apiVersion: monitoring.coreos.com/v1
                kind: ServiceMonitor
                metadata: {name: tenure-operator, namespace: tenure-system}
                """);
        List<Map<String, Object>> crds = ManifestAssembly.parseAll("""
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata: {name: nodemaintenances.tenure.dev}
                """);
        assertThat(ManifestAssembly.plainOperatorManifests(crds, resources))
                .extracting(r -> r.get("kind"))
                .containsExactly("Namespace", "CustomResourceDefinition", "Deployment");
    }

    @Test
    void bundleExtrasAreTheServiceAndPdbWithoutNamespaceAndNoMonitoringKinds() {
        List<Map<String, Object>> resources = ManifestAssembly.parseAll("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: tenure-operator, namespace: tenure-system}
                ---
                apiVersion: v1
                kind: Service
                metadata: {name: tenure-operator, namespace: tenure-system}
                ---
                apiVersion: policy/v1
                kind: PodDisruptionBudget
                metadata: {name: tenure-operator, namespace: tenure-system}
                ---
                apiVersion: monitoring.coreos.com/v1
                kind: ServiceMonitor
                metadata: {name: tenure-operator, namespace: tenure-system}
                ---
                apiVersion: monitoring.coreos.com/v1
                kind: PrometheusRule
                metadata: {name: tenure-operator, namespace: tenure-system}
                """);
        assertThat(ManifestAssembly.bundleExtras(resources))
                .extracting(r -> r.get("kind"))
                .containsExactly("Service", "PodDisruptionBudget");
        assertThat(ManifestAssembly.bundleExtras(resources))
                .allSatisfy(r -> assertThat(((Map<?, ?>) r.get("metadata")).containsKey("namespace"))
                        .isFalse());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            QOSDK's rule on the primary resource                  | nodes,nodes/status,nodes/finalizers   | get,list,watch,patch,update,create,delete | false
            same verbs in another order                           | x,x/finalizers                        | delete,create,update,patch,watch,list,get | false
            a reconciler's own rule on its primary resource       | nodes                                 | get,list,watch,patch                      | true
            every verb, but no finalizers subresource             | leases                                | get,list,watch,patch,update,create,delete | true
            finalizers, but not every verb                        | nodemaintenances/finalizers           | update                                    | true
            """)
    void blanketPrimaryResourceRuleIsDroppedAndNothingElse(String name, String resources, String verbs, boolean kept) {
        Map<String, Object> rule = Map.of(
                "apiGroups",
                List.of(""),
                "resources",
                List.of(resources.split(",")),
                "verbs",
                List.of(verbs.split(",")));
        Map<String, Object> role = Map.of(
                "apiVersion",
                "rbac.authorization.k8s.io/v1",
                "kind",
                "ClusterRole",
                "metadata",
                Map.of("name", "r"),
                "rules",
                List.of(rule));

        List<Map<String, Object>> rules = at(ManifestAssembly.withoutBlanketPrimaryResourceRules(role), "rules");

        assertThat(rules).hasSize(kept ? 1 : 0);
    }

    @Test
    void csvPermissionsLoseTheBlanketRuleToo() {
        Map<String, Object> csv = ManifestAssembly.parseAll(GENERATED_CSV).get(0);
        Map<String, Object> installSpec = at(csv, "spec", "install", "spec");
        installSpec.put(
                "clusterPermissions",
                ManifestAssembly.parseAll("""
                - serviceAccountName: tenure-operator
                  rules:
                    - apiGroups: [tenure.dev]
                      resources: [nodemaintenances, nodemaintenances/status, nodemaintenances/finalizers]
                      verbs: [get, list, watch, patch, update, create, delete]
                    - apiGroups: [tenure.dev]
                      resources: [nodemaintenances]
                      verbs: [get, list, watch, patch]
                """.replace("- serviceAccountName", "permissions:\n- serviceAccountName"))
                        .get(0)
                        .get("permissions"));

        Map<String, Object> completed = ManifestAssembly.completeCsv(csv);

        List<Map<String, Object>> permissions = at(completed, "spec", "install", "spec", "clusterPermissions");
        assertThat(permissions)
                .singleElement()
                .satisfies(p -> assertThat((List<?>) p.get("rules"))
                        .singleElement()
                        .satisfies(r -> assertThat(r.toString()).contains("verbs=[get, list, watch, patch]")));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            generator order (by JSON path) | Age,Node,Reason,Progress,Phase | Node,Phase,Progress,Reason,Age
            already in order               | Node,Phase,Progress,Reason,Age | Node,Phase,Progress,Reason,Age
            an undeclared column goes last | Extra,Age,Node                 | Node,Age,Extra
            """)
    void printerColumnsFollowTheDeclaredOrder(String name, String generated, String expected) {
        List<Map<String, Object>> columns = java.util.Arrays.stream(generated.split(","))
                .map(c -> Map.<String, Object>of("name", c, "jsonPath", "." + c.toLowerCase(Locale.ROOT)))
                .toList();
        Map<String, Object> crd = Map.of(
                "spec", Map.of("versions", List.of(Map.of("name", "v1alpha1", "additionalPrinterColumns", columns))));

        Map<String, Object> ordered =
                ManifestAssembly.printerColumnsInOrder(crd, List.of("Node", "Phase", "Progress", "Reason", "Age"));

        List<Map<String, Object>> versions = at(ordered, "spec", "versions");
        List<Map<String, Object>> result = at(versions.get(0), "additionalPrinterColumns");
        assertThat(result).extracting(c -> c.get("name")).containsExactly((Object[]) expected.split(","));
    }

    @Test
    void nodeMaintenanceDeclaresItsPrinterColumnsInDesignOrder() {
        Map<String, Object> crd = Map.of(
                "spec",
                Map.of(
                        "names",
                        Map.of("kind", "NodeMaintenance"),
                        "versions",
                        List.of(Map.of(
                                "name",
                                "v1alpha1",
                                "additionalPrinterColumns",
                                List.of(
                                        Map.of("name", "Age"),
                                        Map.of("name", "Node"),
                                        Map.of("name", "Reason"),
                                        Map.of("name", "Progress"),
                                        Map.of("name", "Phase"))))));

        List<Map<String, Object>> versions =
                at(ManifestAssembly.printerColumnsInDeclaredOrder(crd), "spec", "versions");

        assertThat(ManifestAssembly.<List<Map<String, Object>>>at(versions.get(0), "additionalPrinterColumns"))
                .extracting(c -> c.get("name"))
                .containsExactly("Node", "Phase", "Progress", "Reason", "Age");
    }

    private static List<Object> paths(Map<String, Object> owned, String key) {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> descriptors = (List<Map<String, Object>>) owned.get(key);
        return descriptors.stream().map(d -> d.get("path")).toList();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> cast(List<?> list) {
        return (List<Map<String, Object>>) list;
    }

    @SuppressWarnings("TypeParameterUnusedInFormals") // a YAML path lookup: the caller names the type it expects
    private static <T> T at(Map<String, Object> root, String... keys) {
        return ManifestAssembly.at(root, keys);
    }
}
