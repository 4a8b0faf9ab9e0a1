package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The readiness endpoint, as a kubelet sees it: the API check names the server, and the CRD check
 * follows the NodeMaintenance CRD the reconciler watches, down with a reason while it is missing.
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class CrdReadinessIT {

    private static final String CRD = "nodemaintenances.tenure.dev";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/q/health/ready")
    URI ready;

    @Inject
    @Readiness
    CrdReadinessCheck crdCheck;

    @Test
    void readinessDetailsFollowTheWatchedCrd() throws Exception {
        Assumptions.assumeTrue(
                crdCheck.watchedCrdNames().contains(CRD), "the NodeMaintenance reconciler is not in this build yet");
        JsonNode checks = await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(this::checks, c -> check(c, CrdReadinessCheck.NAME).has("data"));
        assertThat(check(checks, ApiServerReadinessCheck.NAME).at("/status").asText())
                .isEqualTo("UP");
        assertThat(check(checks, ApiServerReadinessCheck.NAME)
                        .at("/data/server")
                        .asText())
                .startsWith("http");
        assertThat(check(checks, CrdReadinessCheck.NAME).at("/data/" + CRD).asText())
                .isNotBlank();

        // The harness removes the CRD (the operator only reads CRDs; RBAC check).
        KubernetesClient client = EmulatedClusterResource.cluster().client();
        CustomResourceDefinition crd = client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName(CRD)
                .get();
        try {
            client.resource(crd).delete();
            JsonNode missing = await().atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(
                            this::checks,
                            c -> check(c, CrdReadinessCheck.NAME)
                                    .at("/data/" + CRD)
                                    .asText()
                                    .startsWith("missing"));
            assertThat(check(missing, CrdReadinessCheck.NAME).at("/status").asText())
                    .isEqualTo("DOWN");
        } finally {
            crd.getMetadata().setResourceVersion(null);
            client.resource(crd).create();
        }
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(
                        this::checks,
                        c -> check(c, CrdReadinessCheck.NAME)
                                .at("/status")
                                .asText()
                                .equals("UP"));
    }

    private JsonNode checks() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(ready)
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(response.body()).get("checks");
    }

    private static JsonNode check(JsonNode checks, String name) {
        for (JsonNode check : checks) {
            if (name.equals(check.get("name").asText())) {
                return check;
            }
        }
        throw new AssertionError("no readiness check named " + name + " in " + checks);
    }
}
