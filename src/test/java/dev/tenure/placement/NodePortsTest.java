package dev.tenure.placement;

import static dev.tenure.placement.Fixtures.node;
import static dev.tenure.placement.Fixtures.withPorts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Rows from kubernetes {@code pkg/scheduler/framework/plugins/nodeports/node_ports_test.go} ({@code TestNodePorts}). */
class NodePortsTest {

    private static final List<String> CONFLICT = List.of(NodePorts.REASON);

    private static Pod initPort(boolean sidecar) {
        var init = new ContainerBuilder()
                .withName("init")
                .withPorts(new ContainerPortBuilder()
                        .withContainerPort(8001)
                        .withHostPort(8001)
                        .withProtocol("TCP")
                        .build());
        if (sidecar) {
            init.withRestartPolicy("Always");
        }
        return Fixtures.pod("p")
                .editSpec()
                .withInitContainers(init.build())
                .endSpec()
                .build();
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                arguments("skip filter", Fixtures.pod("p").build(), withPorts("e", "UDP/127.0.0.1/8080"), List.of()),
                arguments(
                        "other port",
                        withPorts("p", "UDP/127.0.0.1/8080"),
                        withPorts("e", "UDP/127.0.0.1/9090"),
                        List.of()),
                arguments(
                        "same udp port",
                        withPorts("p", "UDP/127.0.0.1/8080"),
                        withPorts("e", "UDP/127.0.0.1/8080"),
                        CONFLICT),
                arguments(
                        "same tcp port",
                        withPorts("p", "TCP/127.0.0.1/8080"),
                        withPorts("e", "TCP/127.0.0.1/8080"),
                        CONFLICT),
                arguments(
                        "different host ip",
                        withPorts("p", "TCP/127.0.0.1/8080"),
                        withPorts("e", "TCP/127.0.0.2/8080"),
                        List.of()),
                arguments(
                        "different protocol",
                        withPorts("p", "UDP/127.0.0.1/8080"),
                        withPorts("e", "TCP/127.0.0.1/8080"),
                        List.of()),
                arguments(
                        "second udp port conflict",
                        withPorts("p", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
                        withPorts("e", "UDP/127.0.0.1/8080"),
                        CONFLICT),
                arguments(
                        "first tcp port conflict",
                        withPorts("p", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
                        withPorts("e", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"),
                        CONFLICT),
                arguments(
                        "first tcp port conflict due to 0.0.0.0 hostIP",
                        withPorts("p", "TCP/0.0.0.0/8001"),
                        withPorts("e", "TCP/127.0.0.1/8001"),
                        CONFLICT),
                arguments(
                        "TCP hostPort conflict due to 0.0.0.0 hostIP",
                        withPorts("p", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
                        withPorts("e", "TCP/127.0.0.1/8001"),
                        CONFLICT),
                arguments(
                        "second tcp port conflict to 0.0.0.0 hostIP",
                        withPorts("p", "TCP/127.0.0.1/8001"),
                        withPorts("e", "TCP/0.0.0.0/8001"),
                        CONFLICT),
                arguments(
                        "second different protocol",
                        withPorts("p", "UDP/127.0.0.1/8001"),
                        withPorts("e", "TCP/0.0.0.0/8001"),
                        List.of()),
                arguments(
                        "UDP hostPort conflict due to 0.0.0.0 hostIP",
                        withPorts("p", "UDP/127.0.0.1/8001"),
                        withPorts("e", "TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"),
                        CONFLICT),
                arguments(
                        "non-sidecar initContainer using hostPort",
                        initPort(false),
                        withPorts("e", "TCP/0.0.0.0/8001"),
                        List.of()),
                arguments(
                        "TCP hostPort conflict from sidecar initContainer",
                        initPort(true),
                        withPorts("e", "TCP/0.0.0.0/8001"),
                        CONFLICT),
                // Tenure's row: an empty hostIP and protocol mean 0.0.0.0 and TCP (API defaults)
                arguments(
                        "empty hostIP and protocol default to 0.0.0.0/TCP",
                        withPorts("p", "//8002"),
                        withPorts("e", "TCP/10.0.0.1/8002"),
                        CONFLICT));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void filter(String name, Pod pod, Pod existing, List<String> reasons) {
        assertThat(Fixtures.filter(new NodePorts(), pod, node("n1").build(), existing))
                .isEqualTo(reasons);
    }
}
