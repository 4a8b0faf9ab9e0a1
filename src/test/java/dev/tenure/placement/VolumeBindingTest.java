package dev.tenure.placement;

import static dev.tenure.placement.VolumeFixtures.affine;
import static dev.tenure.placement.VolumeFixtures.claim;
import static dev.tenure.placement.VolumeFixtures.mounting;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rows from kubernetes {@code pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go}
 * ({@code TestVolumeBinding}, names kept; bound claims only: the forecast lets an unbound claim pass) and
 * {@code binder_test.go} ({@code TestFindPodVolumesWithoutProvisioning}: "bound-pvc,pv-not-exists",
 * "bound-pvc,pv-mismatch-node"). The node is {@code node-a} in zone1.
 */
class VolumeBindingTest {

    static Stream<Arguments> rows() {
        PersistentVolume zone1 = affine("pv-a", "zone", "zone1");
        PersistentVolume zone2 = affine("pv-b", "zone", "zone2");
        return Stream.of(
                arguments("pod has not pvcs", Fixtures.pod("p").build(), List.of(), List.of(), List.of()),
                arguments(
                        "all bound",
                        mounting("p", "pvc-a"),
                        List.of(claim("pvc-a", "pv-a")),
                        List.of(zone1),
                        List.of()),
                arguments(
                        "PVC does not exist",
                        mounting("p", "pvc-a"),
                        List.of(),
                        List.of(),
                        List.of("persistentvolumeclaim \"pvc-a\" not found")),
                arguments(
                        "Part of PVCs do not exist",
                        mounting("p", "pvc-a", "pvc-b"),
                        List.of(claim("pvc-a", "pv-a")),
                        List.of(zone1),
                        List.of("persistentvolumeclaim \"pvc-b\" not found")),
                arguments(
                        "bound-pvc,pv-not-exists",
                        mounting("p", "pvc-a"),
                        List.of(claim("pvc-a", "pv-a")),
                        List.of(),
                        List.of(VolumeBinding.PV_NOT_EXIST)),
                arguments(
                        "bound-pvc,pv-mismatch-node",
                        mounting("p", "pvc-b"),
                        List.of(claim("pvc-b", "pv-b")),
                        List.of(zone2),
                        List.of(VolumeBinding.NODE_CONFLICT)),
                arguments(
                        "one of two bound volumes mismatches",
                        mounting("p", "pvc-a", "pvc-b"),
                        List.of(claim("pvc-a", "pv-a"), claim("pvc-b", "pv-b")),
                        List.of(zone1, zone2),
                        List.of(VolumeBinding.NODE_CONFLICT)),
                arguments(
                        "unbound claim passes (binding or provisioning is not forecast)",
                        mounting("p", "pvc-a"),
                        List.of(claim("pvc-a", null)),
                        List.of(),
                        List.of()),
                arguments(
                        "a local volume on this node",
                        mounting("p", "pvc-a"),
                        List.of(claim("pvc-a", "pv-l")),
                        List.of(VolumeFixtures.local("pv-l", "node-a")),
                        List.of()),
                arguments(
                        "a local volume on another node",
                        mounting("p", "pvc-a"),
                        List.of(claim("pvc-a", "pv-l")),
                        List.of(VolumeFixtures.local("pv-l", "node-b")),
                        List.of(VolumeBinding.NODE_CONFLICT)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void filter(
            String name,
            Pod pod,
            List<PersistentVolumeClaim> claims,
            List<PersistentVolume> volumes,
            List<String> reasons) {
        Node node = Fixtures.node("node-a", Map.of("zone", "zone1"));
        PlacementCluster cluster = PlacementCluster.of(List.of(node), List.of(), volumes, claims, Map.of());
        assertThat(new VolumeBinding()
                        .prepare(pod, cluster)
                        .filter(cluster.node("node-a").orElseThrow()))
                .isEqualTo(reasons);
    }
}
