package dev.tenure.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.CandidateRecord;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.NodeCache;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1alpha2.LeaseCandidate;
import io.fabric8.kubernetes.api.model.coordination.v1alpha2.LeaseCandidateBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Against the emulated cluster: real discovery, the v1alpha2 path, seeded nodes and pods. */
@EndToEnd
class CoordinationEmulatedClusterIT {

    private static final Duration WAIT = Duration.ofSeconds(40);
    private final Clock clock = Clock.systemUTC();

    static Stream<Arguments> discovery() {
        return Stream.of(
                Arguments.of("both served: v1beta1 preferred", new String[] {"v1beta1", "v1alpha2"}, "v1beta1"),
                Arguments.of("only v1alpha2 served", new String[] {"v1alpha2"}, "v1alpha2"),
                Arguments.of("neither served", new String[] {}, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void discovery(String name, String[] served, String expected) {
        try (EmulatedCluster cluster =
                EmulatedCluster.start(EmulatedCluster.Options.forTests().leaseCandidateVersions(served))) {
            LeaseCandidateApi api = LeaseCandidateApi.discover(cluster.operatorClient(), "auto");
            assertThat(api.version()).isEqualTo(expected);
            if (expected == null) {
                assertThat(api.detail()).contains("not served").contains("CoordinatedLeaderElection");
            }
        }
    }

    @Test
    void electsOnV1alpha2AndMovesLeadershipOffACordonedNode() {
        try (EmulatedCluster cluster =
                EmulatedCluster.start(EmulatedCluster.Options.forTests().leaseCandidateVersions("v1alpha2"))) {
            KubernetesClient client = cluster.client();
            cluster.seed().node("w1").create();
            cluster.seed().node("w2").create();
            cluster.seed().node("w3").create();
            candidate(client, "app-a", "1.31.0", "1.31.0", "w1");
            candidate(client, "app-b", "1.30.0", "1.31.0", "w2");
            candidate(client, "app-c", "1.31.0", "1.32.0", "w3");
            KubernetesClient operator = cluster.operatorClient();
            CoordinationController controller = new CoordinationController(
                    operator,
                    new KubeLeaseStore(operator),
                    new ElectionPlanner(ElectionTiming.UPSTREAM, false),
                    clock,
                    LeaseCandidateApi.discover(operator, "auto"),
                    new CoordinationMetrics(new SimpleMeterRegistry(), clock),
                    Duration.ofMinutes(30),
                    new NodeCache(operator));
            try (SimulatedCandidates processes =
                    new SimulatedCandidates(client, "app", "app-lease", clock, "v1alpha2")) {
                processes.live("app-a", "app-b", "app-c");
                controller.start();
                awaitHolder(client, "app-b");

                client.nodes()
                        .withName("w2")
                        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true}}");
                awaitHolder(client, "app-a");
                assertThat(controller.handedOver("w2")).isTrue();
            } finally {
                controller.stop();
            }
        }
    }

    private void candidate(KubernetesClient client, String name, String emulation, String binary, String node) {
        client.resources(LeaseCandidate.class)
                .inNamespace("app")
                .resource(new LeaseCandidateBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("app")
                        .withLabels(Map.of(CandidateRecord.NODE_LABEL, node))
                        .endMetadata()
                        .withNewSpec()
                        .withLeaseName("app-lease")
                        .withEmulationVersion(emulation)
                        .withBinaryVersion(binary)
                        .withStrategy(MaintenanceAware.NAME)
                        .withRenewTime(new MicroTime(KubeObjects.microTime(clock.instant())))
                        .endSpec()
                        .build())
                .create();
    }

    private static void awaitHolder(KubernetesClient client, String holder) {
        await().atMost(WAIT).untilAsserted(() -> {
            Lease l = client.resources(Lease.class)
                    .inNamespace("app")
                    .withName("app-lease")
                    .get();
            assertThat(l).isNotNull();
            assertThat(l.getSpec().getHolderIdentity()).isEqualTo(holder);
        });
    }
}
