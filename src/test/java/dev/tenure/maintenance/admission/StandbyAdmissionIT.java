package dev.tenure.maintenance.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.operator.OperatorLeadership;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusMock;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 25: a standby replica serves the webhook too (the Service selects every replica), and reads from the same
 * admission caches as the leader: no GET and no LIST per review. Here the operator lease is held by another replica
 * for the whole test, so this application never leads.
 */
@QuarkusTest
@io.quarkus.test.junit.TestProfile(StandbyAdmissionIT.Standby.class)
@EndToEnd
class StandbyAdmissionIT {

    static final String LEASE = "tenure-operator-held-elsewhere";

    /** The operator's lease, held by another replica for an hour before this application starts. */
    public static class HeldElsewhere extends EmulatedClusterResource {
        @Override
        public Map<String, String> start() {
            Map<String, String> config = super.start();
            EmulatedCluster cluster = EmulatedClusterResource.cluster();
            ZonedDateTime now = ZonedDateTime.now(java.time.ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
            cluster.client()
                    .leases()
                    .inNamespace("tenure-system")
                    .resource(new LeaseBuilder()
                            .withNewMetadata()
                            .withName(LEASE)
                            .endMetadata()
                            .withNewSpec()
                            .withHolderIdentity("tenure/the-leader")
                            .withLeaseDurationSeconds(3600)
                            .withAcquireTime(now)
                            .withRenewTime(now)
                            .endSpec()
                            .build())
                    .create();
            return config;
        }
    }

    /**
     * Its cluster comes with the profile, not a {@code @QuarkusTestResource}: those are global, and this one would
     * have started a second emulated cluster, with the lease held elsewhere, in every Quarkus test's application.
     */
    public static class Standby implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tenure.leader-election.lease-name", LEASE);
        }

        @Override
        public java.util.List<TestResourceEntry> testResources() {
            return java.util.List.of(new TestResourceEntry(HeldElsewhere.class));
        }

        @Override
        public boolean disableGlobalTestResources() {
            return true;
        }
    }

    @TestHTTPResource("/validate-nodemaintenance")
    URL webhook;

    @jakarta.inject.Inject
    AdmissionCaches caches;

    @jakarta.inject.Inject
    OperatorLeadership leadership;

    @BeforeEach
    void allowEveryone() {
        // who may cordon is not what this test is about; the emulated cluster serves no SubjectAccessReviews
        QuarkusMock.installMockForType(
                new SubjectAccessReviews(null) {
                    @Override
                    public boolean allowed(UserInfo user, ResourceAttributes attributes) {
                        return true;
                    }
                },
                SubjectAccessReviews.class);
    }

    @Test
    void aStandbyAnswersReviewsFromItsCaches() throws Exception {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        cluster.seed().node("sb-1").role("worker").create();
        cluster.seed().node("sb-2").role("worker").create();
        cluster.client()
                .resource(new NodeMaintenance("sb-held", new NodeMaintenanceSpec("sb-2", "held")))
                .create();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> caches.cached()
                        && caches.node("sb-1").isPresent()
                        && caches.maintenances().stream()
                                .anyMatch(
                                        nm -> "sb-held".equals(nm.getMetadata().getName())));
        assertThat(leadership.reconcilersStarted()).as("a standby").isFalse();
        Predicate<ApiRequest> reads = ApiRequest.resource("nodes")
                .or(ApiRequest.resource("nodemaintenances"))
                .and(ApiRequest.verb("get").or(ApiRequest.verb("list")));
        long before = cluster.requests().count(reads);

        assertThat(review("r1", nm("a", "sb-1"))).contains("\"allowed\":true");
        // the cached NodeMaintenance is seen: a second one for its node is refused
        assertThat(review("r2", nm("b", "sb-2")))
                .contains("\"allowed\":false")
                .contains("already has an active NodeMaintenance sb-held");

        assertThat(cluster.requests().count(reads))
                .as("GET/LIST of nodes and nodemaintenances made by a standby for two reviews")
                .isEqualTo(before);
        assertThat(leadership.reconcilersStarted()).as("still a standby").isFalse();
    }

    static String nm(String name, String node) {
        return "{\"apiVersion\":\"tenure.dev/v1alpha1\",\"kind\":\"NodeMaintenance\",\"metadata\":{\"name\":\"" + name
                + "\"},\"spec\":{\"nodeName\":\"" + node + "\"}}";
    }

    String review(String uid, String object) throws Exception {
        String body = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\""
                + uid + "\",\"userInfo\":{\"username\":\"ada\",\"groups\":[\"system:authenticated\"]},"
                + "\"kind\":{\"group\":\"tenure.dev\",\"version\":\"v1alpha1\",\"kind\":\"NodeMaintenance\"},"
                + "\"operation\":\"CREATE\",\"object\":" + object + "}}";
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(webhook.toString()))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
