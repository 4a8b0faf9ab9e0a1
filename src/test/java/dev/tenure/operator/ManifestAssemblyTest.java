package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

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
    void completedCsvDeclaresTheValidatingWebhook() {
        Map<String, Object> csv = ManifestAssembly.completeCsv(ManifestAssembly.parseAll(GENERATED_CSV).get(0));
        List<Map<String, Object>> webhooks = at(csv, "spec", "webhookdefinitions");
        assertThat(webhooks).singleElement().satisfies(w -> {
            assertThat(w).containsEntry("type", "ValidatingAdmissionWebhook")
                    .containsEntry("webhookPath", "/validate-nodemaintenance")
                    .containsEntry("deploymentName", "tenure-operator")
                    .containsEntry("targetPort", 8443);
            assertThat(w.get("rules").toString()).contains("tenure.dev", "v1alpha1", "nodemaintenances", "CREATE",
                    "UPDATE");
        });
    }

    @Test
    void completedCsvDescribesOwnedCrdsAndWiresWebhookTls() {
        Map<String, Object> csv = ManifestAssembly.completeCsv(ManifestAssembly.parseAll(GENERATED_CSV).get(0));
        Map<String, Object> owned = ManifestAssembly.<List<Map<String, Object>>> at(csv, "spec",
                "customresourcedefinitions", "owned").get(0);
        assertThat(owned).containsEntry("displayName", "Node Maintenance");
        assertThat(paths(owned, "statusDescriptors")).contains("phase", "drainProgress", "pendingPods");
        assertThat(paths(owned, "specDescriptors")).contains("nodeName", "reason");

        String container = ManifestAssembly.parseAll(ManifestAssembly.toYaml(List.of(csv))).get(0).toString();
        assertThat(container).contains("QUARKUS_HTTP_SSL_CERTIFICATE_FILES",
                "/tmp/k8s-webhook-server/serving-certs/tls.crt", "containerPort=8443");
    }

    @Test
    void completingTwiceChangesNothing() {
        Map<String, Object> once = ManifestAssembly.completeCsv(ManifestAssembly.parseAll(GENERATED_CSV).get(0));
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
        assertThat(ManifestAssembly.plainOperatorManifests(crds, resources)).extracting(r -> r.get("kind"))
                .containsExactly("Namespace", "CustomResourceDefinition", "Deployment");
        assertThat(ManifestAssembly.bundleExtras(resources, "{}")).extracting(r -> r.get("kind"))
                .containsExactly("ServiceMonitor", "ConfigMap");
        assertThat(ManifestAssembly.bundleExtras(resources, "{}"))
                .allSatisfy(r -> assertThat(((Map<?, ?>) r.get("metadata")).containsKey("namespace")).isFalse());
    }

    private static List<Object> paths(Map<String, Object> owned, String key) {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> descriptors = (List<Map<String, Object>>) owned.get(key);
        return descriptors.stream().map(d -> d.get("path")).toList();
    }

    private static <T> T at(Map<String, Object> root, String... keys) {
        return ManifestAssembly.at(root, keys);
    }
}
