package dev.tenure.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.operator.OperatorLeadership;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1beta1.LeaseCandidate;
import io.fabric8.kubernetes.api.model.coordination.v1beta1.LeaseCandidateBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.Test;

/**
 * The controller as the operator runs it: built from config, started by OperatorLeadership together with the
 * reconcilers, metrics under their Prometheus names, readiness detail. (Discovery against a real API
 * server is covered by CoordinationEmulatedClusterIT.)
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
@TestProfile(CoordinationWiringTest.Profile.class)
@EndToEnd
class CoordinationWiringTest {

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            // the plain mock server has no discovery for coordination.k8s.io; the version is given instead.
            // Without operator HA the reconcilers, and this controller with them, start at once (the lease
            // contest itself is OperatorLeadershipTest's subject).
            return Map.of(
                    "tenure.coordination.lease-candidate-version",
                    "v1beta1",
                    "tenure.leader-election.enabled",
                    "false");
        }
    }

    @Inject
    CoordinationController controller;

    @Inject
    @Readiness
    CoordinationHealthCheck health;

    @Inject
    KubernetesClient client;

    @Inject
    PrometheusMeterRegistry prometheus;

    @Inject
    OperatorLeadership leadership;

    @Test
    void electsAMaintenanceAwareLeaseAndExposesMetricsAndReadiness() {
        await("started by OperatorLeadership with the reconcilers")
                .atMost(Duration.ofSeconds(30))
                .until(() -> leadership.reconcilersStarted() && controller.isRunning());
        controller.start(); // idempotent

        // The candidate's own process, not the operator: the harness's client (RBAC check).
        try (KubernetesClient harness = EmulatedCluster.harnessClient(client.getConfiguration())) {
            createCandidateAndAwaitItsElection(harness);
        }
        assertMetricsAndReadiness();
    }

    private static void createCandidateAndAwaitItsElection(KubernetesClient client) {
        client.resources(LeaseCandidate.class)
                .inNamespace("default")
                .resource(new LeaseCandidateBuilder()
                        .withNewMetadata()
                        .withName("app-0")
                        .withNamespace("default")
                        .endMetadata()
                        .withNewSpec()
                        .withLeaseName("app")
                        .withEmulationVersion("1.0.0")
                        .withBinaryVersion("1.0.0")
                        .withStrategy(MaintenanceAware.NAME)
                        .withRenewTime(new MicroTime(
                                KubeObjects.microTime(Clock.systemUTC().instant())))
                        .endSpec()
                        .build())
                .create();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            Lease lease = client.resources(Lease.class)
                    .inNamespace("default")
                    .withName("app")
                    .get();
            assertThat(lease).isNotNull();
            assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("app-0");
        });
    }

    private void assertMetricsAndReadiness() {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(prometheus.scrape())
                        .contains(
                                "tenure_coordination_elections_total{outcome=\"created\",strategy=\"tenure.dev/MaintenanceAware\"")
                        .contains("tenure_coordination_election_duration_seconds_count")
                        .contains("tenure_coordination_leaderless_seconds{lease=\"app\",lease_namespace=\"default\""));

        HealthCheckResponse ready = health.call();
        assertThat(ready.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(ready.getData()).get().satisfies(d -> {
            assertThat(d).containsEntry("leaseCandidateApi", "coordination.k8s.io/v1beta1");
            assertThat(d).containsEntry("running", true);
        });
    }
}
