package dev.tenure.placement;

import static dev.tenure.placement.Fixtures.container;
import static dev.tenure.placement.Fixtures.node;
import static dev.tenure.placement.Fixtures.pod;
import static dev.tenure.placement.Fixtures.requesting;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rows from kubernetes {@code pkg/scheduler/framework/plugins/noderesources/fit_test.go} ({@code TestEnoughRequests},
 * {@code TestNotEnoughRequests}, {@code TestStorageRequests}: the node's allocatable is theirs, {@code cpu=10m,
 * memory=20, pods=32, ephemeral-storage=20, example.com/aaa=5}); the sidecar rows follow {@code PodRequests} of
 * {@code k8s.io/component-helpers/resource/helpers_test.go}.
 */
class NodeResourcesFitTest {

    private static Pod withInit(Pod pod, Container... init) {
        return Fixtures.with(pod, b -> b.editSpec().withInitContainers(init).endSpec());
    }

    private static Container sidecar(String... requests) {
        return new ContainerBuilder(container(requests))
                .withRestartPolicy("Always")
                .build();
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                arguments(
                        "no resources requested always fits",
                        pod("p").build(),
                        List.of("cpu", "10m", "memory", "20"),
                        List.of()),
                arguments(
                        "too many resources fails",
                        requesting("p", "cpu", "1m", "memory", "1"),
                        List.of("cpu", "10m", "memory", "20"),
                        List.of("Insufficient cpu", "Insufficient memory")),
                arguments(
                        "too many resources fails due to init container cpu",
                        withInit(requesting("p", "cpu", "1m", "memory", "1"), container("cpu", "3m", "memory", "1")),
                        List.of("cpu", "8m", "memory", "19"),
                        List.of("Insufficient cpu")),
                arguments(
                        "too many resources fails due to highest init container memory",
                        withInit(
                                requesting("p", "cpu", "1m", "memory", "1"),
                                container("cpu", "1m", "memory", "3"),
                                container("cpu", "1m", "memory", "2")),
                        List.of("cpu", "9m", "memory", "19"),
                        List.of("Insufficient memory")),
                arguments(
                        "init container fits because it's the max, not sum, of containers and init containers",
                        withInit(
                                requesting("p", "cpu", "1m", "memory", "1"),
                                container("cpu", "1m", "memory", "1"),
                                container("cpu", "1m", "memory", "1")),
                        List.of("cpu", "9m", "memory", "19"),
                        List.of()),
                arguments(
                        "one resource memory fits",
                        requesting("p", "cpu", "2m", "memory", "1"),
                        List.of("cpu", "9m", "memory", "5"),
                        List.of("Insufficient cpu")),
                arguments(
                        "equal edge case",
                        requesting("p", "cpu", "5m", "memory", "1"),
                        List.of("cpu", "5m", "memory", "19"),
                        List.of()),
                arguments(
                        "equal edge case for init container",
                        withInit(requesting("p", "cpu", "4m", "memory", "1"), container("cpu", "5m", "memory", "1")),
                        List.of("cpu", "5m", "memory", "19"),
                        List.of()),
                arguments(
                        "extended resource allocatable enforced",
                        requesting("p", "cpu", "1m", "memory", "1", "example.com/aaa", "1"),
                        List.of("example.com/aaa", "5"),
                        List.of("Insufficient example.com/aaa")),
                arguments(
                        "extended resource allocatable enforced for unknown resource",
                        requesting("p", "cpu", "1m", "memory", "1", "example.com/bbb", "1"),
                        List.of(),
                        List.of("Insufficient example.com/bbb")),
                arguments(
                        "storage ephemeral local storage request exceeds allocatable",
                        requesting("p", "ephemeral-storage", "25"),
                        List.of(),
                        List.of("Insufficient ephemeral-storage")),
                arguments(
                        "ephemeral local storage request fits",
                        requesting("p", "ephemeral-storage", "10"),
                        List.of("ephemeral-storage", "10"),
                        List.of()),
                arguments(
                        "pod overhead counts: fits without it, not with it",
                        Fixtures.with(
                                requesting("p", "cpu", "4m"),
                                b -> b.editSpec()
                                        .withOverhead(Fixtures.quantities("cpu", "2m"))
                                        .endSpec()),
                        List.of("cpu", "5m"),
                        List.of("Insufficient cpu")),
                arguments(
                        "a sidecar init container runs beside the containers: its requests add",
                        withInit(requesting("p", "cpu", "3m"), sidecar("cpu", "3m")),
                        List.of("cpu", "5m"),
                        List.of("Insufficient cpu")),
                arguments(
                        "an init container after a sidecar needs the sidecar's room too",
                        withInit(requesting("p", "cpu", "1m"), sidecar("cpu", "2m"), container("cpu", "8m")),
                        List.of("cpu", "1m"),
                        List.of("Insufficient cpu")),
                arguments(
                        "quantities in cores round up to millicores",
                        requesting("p", "cpu", "0.0011"),
                        List.of("cpu", "9m"),
                        List.of("Insufficient cpu")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void filter(String name, Pod pod, List<String> existingRequests, List<String> reasons) {
        Node node = node("n1").build();
        Pod existing = requesting("existing", existingRequests.toArray(String[]::new));
        assertThat(Fixtures.filter(new NodeResourcesFit(), pod, node, existing))
                .as(name)
                .isEqualTo(reasons);
    }

    @ParameterizedTest(name = "pods on the node: {0}")
    @MethodSource("podCounts")
    void tooManyPods(int onNode, List<String> reasons) {
        Node node = node("n1")
                .editStatus()
                .addToAllocatable("pods", new io.fabric8.kubernetes.api.model.Quantity("3"))
                .endStatus()
                .build();
        List<Pod> bound = new ArrayList<>();
        for (int i = 0; i < onNode; i++) {
            bound.add(pod("existing-" + i).build());
        }
        assertThat(Fixtures.filter(new NodeResourcesFit(), pod("p").build(), node, bound.toArray(Pod[]::new)))
                .isEqualTo(reasons);
    }

    /** {@code TestNotEnoughRequests} ("even without specified resources, predicate fails when there's no space"). */
    static Stream<Arguments> podCounts() {
        return Stream.of(arguments(2, List.of()), arguments(3, List.of(NodeResourcesFit.TOO_MANY_PODS)));
    }
}
