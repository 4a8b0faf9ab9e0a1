package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tenure.maintenance.admission.SubjectAccessReviews;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusMock;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The emulated cluster calls the operator's own admission webhook as kube-apiserver would once OLM has registered it:
 * the ValidatingWebhookConfiguration is built from the shipped bundle's webhook definition (rules, failurePolicy,
 * timeoutSeconds, path), its Service reached at this test's application, and a NodeMaintenance the webhook refuses
 * never reaches the store; the client reads the refusal as from a real cluster.
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class ShippedWebhookIT {
    private static final Path CSV = Path.of("olm-bundle", "manifests", "tenure-operator.clusterserviceversion.yaml");

    @TestHTTPResource("/")
    URL application;

    /**
     * The emulated cluster serves no SubjectAccessReviews: the webhook's review port answers from the RBAC objects
     * the test seeds ({@link RbacAuthorizer}). The operator's own service account is bound to nothing here.
     */
    @BeforeEach
    void answerSubjectAccessReviewsFromSeededRbac() {
        RbacAuthorizer rbac =
                new RbacAuthorizer(EmulatedClusterResource.cluster().client());
        QuarkusMock.installMockForType(
                new SubjectAccessReviews(null) {
                    @Override
                    public boolean allowed(UserInfo user, ResourceAttributes attributes) {
                        return rbac.allowed(user, attributes);
                    }
                },
                SubjectAccessReviews.class);
    }

    /**
     * Issue 39: with the bundle's registration, deleting a NodeMaintenance (which uncordons the node) is refused to a
     * user holding what {@code edit} gives, naming the node and the right, and admitted for a node admin; the
     * operator's own writes (its finalizer, added and removed by UPDATEs) pass though its service account holds no
     * right here, so the maintenance starts, and ends with the node restored and the resource gone.
     */
    @Test
    void anEditOnlyUserCannotEndAMaintenanceANodeAdminCanAndTheOperatorsFinalizerPasses() throws Exception {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        KubernetesClient client = cluster.client();
        cluster.seed().node("shipped-1").role("worker").create();
        List<HasMetadata> rbac = List.of(
                clusterRole(
                        "shipped-node-admin",
                        rule("", "nodes", "get", "patch"),
                        rule("", "pods/eviction", "create"),
                        rule("", "pods", "get", "list", "delete")),
                clusterRole(
                        "shipped-edit",
                        rule("", "pods", "get", "list", "create", "update", "patch", "delete"),
                        rule("", "pods/eviction", "create"),
                        rule("tenure.dev", "nodemaintenances", "get", "list", "create", "update", "patch", "delete")),
                // the harness's requests come from kubernetes-admin, the workload client's from default/workload
                binding("shipped-node-admin", "User", null, "kubernetes-admin"),
                binding("shipped-edit", "ServiceAccount", "default", "workload"));
        rbac.forEach(r -> client.resource(r).createOr(u -> u.update()));
        cluster.serviceUrl("tenure-system", "tenure-operator-service", application.toString());
        GenericKubernetesResource configuration = client.genericKubernetesResources(
                        "admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration")
                .resource(configurationFromBundle())
                .create();
        try {
            client.resource(new NodeMaintenance("shipped", new NodeMaintenanceSpec("shipped-1", "issue 39")))
                    .create();
            await().atMost(WAIT).until(() -> phase(client, "shipped") == Phase.Succeeded && cordoned(client));

            assertThatThrownBy(() -> cluster.workloadClient()
                            .resources(NodeMaintenance.class)
                            .withName("shipped")
                            .delete())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(403);
                        assertThat(e.getStatus().getMessage())
                                .startsWith("admission webhook \"vnodemaintenance.tenure.dev\" denied the request: "
                                        + "user system:serviceaccount:default:workload may not end the maintenance "
                                        + "of node shipped-1")
                                .endsWith("patch nodes shipped-1 (uncordon, untaint and restore the node)");
                    });
            NodeMaintenance kept =
                    client.resources(NodeMaintenance.class).withName("shipped").get();
            assertThat(kept.getMetadata().getDeletionTimestamp()).isNull();
            assertThat(cordoned(client)).isTrue();

            client.resources(NodeMaintenance.class).withName("shipped").delete();
            await().atMost(WAIT)
                    .until(() -> client.resources(NodeMaintenance.class)
                                            .withName("shipped")
                                            .get()
                                    == null
                            && !cordoned(client));
        } finally {
            client.resource(configuration).delete();
            rbac.forEach(r -> client.resource(r).delete());
        }
    }

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static Phase phase(KubernetesClient client, String name) {
        NodeMaintenance nm =
                client.resources(NodeMaintenance.class).withName(name).get();
        return nm == null || nm.getStatus() == null ? null : nm.getStatus().getPhase();
    }

    private static boolean cordoned(KubernetesClient client) {
        return Boolean.TRUE.equals(
                client.nodes().withName("shipped-1").get().getSpec().getUnschedulable());
    }

    private static PolicyRule rule(String group, String resource, String... verbs) {
        return new PolicyRuleBuilder()
                .withApiGroups(group)
                .withResources(resource)
                .withVerbs(verbs)
                .build();
    }

    private static HasMetadata clusterRole(String name, PolicyRule... rules) {
        return new ClusterRoleBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withRules(rules)
                .build();
    }

    private static HasMetadata binding(String role, String kind, String namespace, String name) {
        return new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(role + "-" + name)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", role)
                .addNewSubject()
                .withApiGroup("ServiceAccount".equals(kind) ? null : "rbac.authorization.k8s.io")
                .withKind(kind)
                .withNamespace(namespace)
                .withName(name)
                .endSubject()
                .build();
    }

    @Test
    void aNodeMaintenanceTheWebhookRefusesIsNotStoredAndTheClientReadsWhy() throws Exception {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        KubernetesClient client = cluster.client();
        cluster.serviceUrl("tenure-system", "tenure-operator-service", application.toString());
        GenericKubernetesResource configuration = client.genericKubernetesResources(
                        "admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration")
                .resource(configurationFromBundle())
                .create();
        try {
            GenericKubernetesResource nm = new GenericKubernetesResource();
            nm.setApiVersion("tenure.dev/v1alpha1");
            nm.setKind("NodeMaintenance");
            nm.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                    .withName("webhook-refused")
                    .build());
            nm.setAdditionalProperty("spec", java.util.Map.of("nodeName", "no-such-node", "reason", "webhook"));
            var nodeMaintenances = client.genericKubernetesResources("tenure.dev/v1alpha1", "NodeMaintenance");

            assertThatThrownBy(() -> nodeMaintenances.resource(nm).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(422);
                        assertThat(e.getStatus().getMessage())
                                .isEqualTo("admission webhook \"vnodemaintenance.tenure.dev\" denied the request: "
                                        + "spec.nodeName: node no-such-node not found");
                    });
            assertThat(nodeMaintenances.withName("webhook-refused").get()).isNull();
        } finally {
            client.resource(configuration).delete();
        }
    }

    /** What OLM registers for the bundle's ValidatingAdmissionWebhook definition (its Service: the deployment's). */
    private static GenericKubernetesResource configurationFromBundle() throws Exception {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        JsonNode definition = yaml.readTree(CSV.toFile()).at("/spec/webhookdefinitions/0");
        assertThat(definition.path("type").asText()).isEqualTo("ValidatingAdmissionWebhook");
        ObjectMapper json = new ObjectMapper();
        ObjectNode webhook = json.createObjectNode()
                .put("name", definition.path("generateName").asText());
        webhook.set("admissionReviewVersions", definition.path("admissionReviewVersions"));
        webhook.put("sideEffects", definition.path("sideEffects").asText());
        webhook.put("failurePolicy", definition.path("failurePolicy").asText());
        webhook.put("timeoutSeconds", definition.path("timeoutSeconds").asInt());
        webhook.set("rules", definition.path("rules"));
        webhook.putObject("clientConfig")
                .putObject("service")
                .put("namespace", "tenure-system")
                .put("name", definition.path("deploymentName").asText() + "-service")
                .put("path", definition.path("webhookPath").asText());
        ObjectNode configuration = json.createObjectNode()
                .put("apiVersion", "admissionregistration.k8s.io/v1")
                .put("kind", "ValidatingWebhookConfiguration");
        configuration.putObject("metadata").put("name", "tenure-nodemaintenance");
        configuration.putArray("webhooks").add(webhook);
        return json.treeToValue(configuration, GenericKubernetesResource.class);
    }
}
