package dev.tenure.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.operator.OperatorLeadership;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1beta1.LeaseCandidate;
import io.fabric8.kubernetes.api.model.coordination.v1beta1.LeaseCandidateBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.Test;

/**
 * The controller as the operator runs it: built from config, started by OperatorLeadership together with the
 * reconcilers once the application leads, metrics under their Prometheus names, readiness detail, in the application
 * the other end-to-end tests share, on its emulated cluster (which serves discovery for coordination.k8s.io). The
 * start without leader election is OperatorLeadershipLossTest's; discovery against other API servers is
 * CoordinationEmulatedClusterIT's.
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class CoordinationWiringTest {

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
