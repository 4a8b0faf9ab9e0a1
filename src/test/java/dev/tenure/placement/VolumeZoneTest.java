package dev.tenure.placement;

import static dev.tenure.placement.VolumeFixtures.claim;
import static dev.tenure.placement.VolumeFixtures.mounting;
import static dev.tenure.placement.VolumeFixtures.volume;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rows from kubernetes {@code pkg/scheduler/framework/plugins/volumezone/volume_zone_test.go} ({@code TestSingleZone},
 * names kept): the pod mounts claim {@code pvc} bound to {@code pv}, labelled as the row says.
 */
class VolumeZoneTest {

    private static final String BETA_ZONE = "failure-domain.beta.kubernetes.io/zone";
    private static final String BETA_REGION = "failure-domain.beta.kubernetes.io/region";
    private static final String ZONE = "topology.kubernetes.io/zone";
    private static final List<String> CONFLICT = List.of(VolumeZone.REASON);

    static Stream<Arguments> rows() {
        return Stream.of(
                arguments("pod without volume", null, Map.of(BETA_ZONE, "us-west1-a"), List.of()),
                arguments("node without labels", Map.of(BETA_ZONE, "us-west1-a"), Map.of(), List.of()),
                arguments(
                        "beta zone label matched",
                        Map.of(BETA_ZONE, "us-west1-a"),
                        Map.of(BETA_ZONE, "us-west1-a", "uselessLabel", "none"),
                        List.of()),
                arguments(
                        "beta region label matched",
                        Map.of(BETA_REGION, "us-west1"),
                        Map.of(BETA_REGION, "us-west1", "uselessLabel", "none"),
                        List.of()),
                arguments(
                        "beta region label doesn't match",
                        Map.of(BETA_REGION, "us-west1"),
                        Map.of(BETA_REGION, "no_us-west1", "uselessLabel", "none"),
                        CONFLICT),
                arguments(
                        "beta zone label doesn't match",
                        Map.of(BETA_ZONE, "us-west1-a"),
                        Map.of(BETA_ZONE, "no_us-west1-a", "uselessLabel", "none"),
                        CONFLICT),
                arguments("zone label matched", Map.of(ZONE, "us-west1-a"), Map.of(ZONE, "us-west1-a"), List.of()),
                arguments(
                        "zone label doesn't match",
                        Map.of(ZONE, "us-west1-a"),
                        Map.of(ZONE, "no_us-west1-a"),
                        CONFLICT),
                arguments(
                        "pv with zone label set, node with GA zone label",
                        Map.of(BETA_ZONE, "us-west1-a"),
                        Map.of(ZONE, "us-west1-a"),
                        List.of()),
                arguments(
                        "zone label with multiple values matched",
                        Map.of(ZONE, "us-west1-a__us-west1-b"),
                        Map.of(ZONE, "us-west1-b"),
                        List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void filter(String name, Map<String, String> pvLabels, Map<String, String> nodeLabels, List<String> reasons) {
        Node node = new io.fabric8.kubernetes.api.model.NodeBuilder(
                        Fixtures.node("host1").build())
                .editMetadata()
                .withLabels(nodeLabels)
                .endMetadata()
                .build();
        Pod pod = pvLabels == null ? Fixtures.pod("p").build() : mounting("p", "pvc");
        PlacementCluster cluster = PlacementCluster.of(
                List.of(node),
                List.of(),
                pvLabels == null ? List.of() : List.of(volume("pv", pvLabels)),
                List.of(claim("pvc", "pv")),
                Map.of());
        assertThat(new VolumeZone()
                        .prepare(pod, cluster)
                        .filter(cluster.node("host1").orElseThrow()))
                .isEqualTo(reasons);
    }
}
