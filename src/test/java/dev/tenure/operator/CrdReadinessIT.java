package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.HasMetadata;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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

    @TestHTTPResource("/q/metrics")
    URI metrics;

    /**
     * Issue 39: OLM cannot install the Lease guard, so the operator says whether it is there: the readiness detail
     * (never DOWN for it) and the gauge follow the policy and its Deny binding as the harness adds and removes them.
     */
    @Test
    void leaseGuardPresenceIsReportedInReadinessAndAsAGauge() throws Exception {
        KubernetesClient client = EmulatedClusterResource.cluster().client();
        var admission = client.admissionRegistration().v1();
        admission
                .validatingAdmissionPolicyBindings()
                .withName(LeaseGuardCheck.POLICY)
                .delete();
        admission.validatingAdmissionPolicies().withName(LeaseGuardCheck.POLICY).delete();
        JsonNode missing = await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(
                        this::checks,
                        c -> check(c, LeaseGuardCheck.NAME)
                                .at("/data/policy")
                                .asText()
                                .equals("missing"));
        assertThat(check(missing, LeaseGuardCheck.NAME).at("/status").asText()).isEqualTo("UP");
        assertThat(check(missing, LeaseGuardCheck.NAME).at("/data/effect").asText())
                .startsWith("NOT installed");
        assertThat(gauge()).isEqualTo("0.0");

        List<HasMetadata> guard;
        try (var in = Files.newInputStream(Path.of("deploy", ManifestAssembly.LEASE_GUARD_FILE))) {
            guard = client.load(in).items();
        }
        try {
            guard.forEach(o -> client.resource(o).create());
            JsonNode installed = await().atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(
                            this::checks,
                            c -> check(c, LeaseGuardCheck.NAME)
                                    .at("/data/effect")
                                    .asText()
                                    .startsWith("the operator's Lease writes are bounded"));
            assertThat(check(installed, LeaseGuardCheck.NAME)
                            .at("/data/binding")
                            .asText())
                    .isEqualTo("present");
            assertThat(gauge()).isEqualTo("1.0");
        } finally {
            guard.forEach(o -> client.resource(o).delete());
        }
    }

    private String gauge() throws Exception {
        String body = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(metrics)
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        return body.lines()
                .filter(l -> l.startsWith("tenure_lease_guard_installed"))
                .map(l -> l.substring(l.lastIndexOf(' ') + 1))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no tenure_lease_guard_installed in /q/metrics"));
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
