package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tenure.maintenance.RelaxedLeadershipProfile;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URL;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The emulated cluster calls the operator's own admission webhook as kube-apiserver would once OLM has registered it:
 * the ValidatingWebhookConfiguration is built from the shipped bundle's webhook definition (rules, failurePolicy,
 * timeoutSeconds, path), its Service reached at this test's application, and a NodeMaintenance the webhook refuses
 * never reaches the store; the client reads the refusal as from a real cluster.
 */
@QuarkusTest
@TestProfile(RelaxedLeadershipProfile.class)
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class ShippedWebhookIT {
    private static final Path CSV = Path.of("olm-bundle", "manifests", "tenure-operator.clusterserviceversion.yaml");

    @TestHTTPResource("/")
    URL application;

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
