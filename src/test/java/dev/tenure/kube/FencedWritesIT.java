package dev.tenure.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.election.WorkFence;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The operator's client sends a write only inside a leadership term, timed out before the term ends. */
@EndToEnd
class FencedWritesIT {
    // not the operator's own RBAC: the client is a stand-in for any fenced client
    static final String AGENT = EmulatedCluster.WORKLOAD_USER_AGENT;
    static final Predicate<ApiRequest> OURS = r -> AGENT.equals(r.userAgent()) && r.is("create", "configmaps", "");

    EmulatedCluster cluster;
    final AtomicReference<Optional<Duration>> left = new AtomicReference<>(Optional.empty());
    final WorkFence fence = WorkFence.closed();
    KubernetesClient client;

    @BeforeEach
    void start() {
        cluster = EmulatedCluster.start();
        cluster.seed().namespace("work");
        client = FencedWrites.client(
                new ConfigBuilder(cluster.clientConfig())
                        .withUserAgent(AGENT)
                        .withRequestRetryBackoffLimit(0)
                        .build(),
                null,
                fence,
                "replica-a",
                EmulatedCluster.HTTP_CLIENTS);
    }

    @AfterEach
    void stop() {
        client.close();
        cluster.close();
    }

    ConfigMap map(String name) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("work")
                .endMetadata()
                .withData(Map.of("k", "v"))
                .build();
    }

    @Test
    void outsideATermAWriteIsNeverSentWhileReadsStillWork() {
        assertThatThrownBy(() -> client.configMaps().resource(map("a")).create())
                .hasStackTraceContaining("no leadership term is open");
        assertThat(cluster.requests().count(OURS))
                .as("the write reached the server")
                .isZero();
        assertThat(client.configMaps().inNamespace("work").list().getItems()).isEmpty(); // a standby may read

        left.set(Optional.of(Duration.ofSeconds(5)));
        fence.open(left::get);
        client.configMaps().resource(map("a")).create();
        assertThat(cluster.requests().count(OURS)).isEqualTo(1);

        fence.close();
        assertThatThrownBy(() -> client.configMaps().resource(map("b")).create())
                .hasStackTraceContaining("no leadership term is open");
        assertThatThrownBy(() ->
                        client.configMaps().inNamespace("work").withName("a").delete())
                .hasStackTraceContaining("no leadership term is open");
        assertThat(cluster.requests().count(OURS)).isEqualTo(1);
        assertThat(cluster.stored(ConfigMap.class, "work", "a")).isPresent();
    }

    /**
     * The admission webhook asks SubjectAccessReviews on every replica, standbys included (their fence is closed): a
     * review is a question, not a write, and must reach the server, or a standby refuses every NodeMaintenance.
     */
    @Test
    void aSubjectAccessReviewIsAskedOutsideATerm() {
        Predicate<ApiRequest> reviews =
                r -> AGENT.equals(r.userAgent()) && r.resource().equals("subjectaccessreviews");
        try {
            client.authorization()
                    .v1()
                    .subjectAccessReview()
                    .create(new io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder()
                            .withNewSpec()
                            .withUser("eddie")
                            .withNewResourceAttributes()
                            .withVerb("patch")
                            .withResource("nodes")
                            .endResourceAttributes()
                            .endSpec()
                            .build());
        } catch (RuntimeException answeredByTheServer) {
            // the emulated cluster does not answer reviews; what matters is that the request was sent
            assertThat(answeredByTheServer).hasStackTraceContaining("Failure executing");
        }
        assertThat(cluster.requests().count(reviews)).isEqualTo(1);
    }

    /**
     * The extension applies the CRDs at start in dev and test runs, on this client, before the first election may
     * have opened a term: refused, the cluster had no NodeMaintenance CRD whenever the start outran the election (a
     * loaded machine), and every test after it failed on the missing CRD.
     */
    @Test
    void theCrdApplyAtStartIsNotTheWorkOfATermAndIsNotFenced() {
        var crd = new io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder()
                .withNewMetadata()
                .withName("probes.example.dev")
                .endMetadata()
                .withNewSpec()
                .withGroup("example.dev")
                .withScope("Namespaced")
                .withNewNames()
                .withKind("Probe")
                .withPlural("probes")
                .withSingular("probe")
                .endNames()
                .addNewVersion()
                .withName("v1")
                .withServed(true)
                .withStorage(true)
                .withNewSchema()
                .withNewOpenAPIV3Schema()
                .withType("object")
                .withXKubernetesPreserveUnknownFields(true)
                .endOpenAPIV3Schema()
                .endSchema()
                .endVersion()
                .endSpec()
                .build();
        client.apiextensions().v1().customResourceDefinitions().resource(crd).create(); // no term is open
        assertThat(cluster.client()
                        .apiextensions()
                        .v1()
                        .customResourceDefinitions()
                        .withName("probes.example.dev")
                        .get())
                .isNotNull();
    }

    @Test
    void aWriteThatTheServerDoesNotAnswerIsAbandonedWhenTheTermEndsNotAfterTheClientsOwnTimeout() {
        left.set(Optional.of(Duration.ofMillis(600)));
        fence.open(left::get);
        cluster.faults().delayNext(1, OURS, Duration.ofSeconds(8));
        long start = System.nanoTime();
        assertThatThrownBy(() -> client.configMaps().resource(map("slow")).create())
                .isInstanceOf(RuntimeException.class);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        // the client's own request timeout is far longer; the term's 600 ms bounded this one
        assertThat(client.getConfiguration().getRequestTimeout()).isGreaterThan(5_000);
        assertThat(took).isLessThan(Duration.ofSeconds(5));
    }
}
