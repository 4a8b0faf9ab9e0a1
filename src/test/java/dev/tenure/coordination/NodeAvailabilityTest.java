package dev.tenure.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeAvailabilityTest {

    static Stream<Arguments> availability() {
        NodeBuilder base = new NodeBuilder().withNewMetadata().withName("n1").endMetadata();
        return Stream.of(
                Arguments.of("plain node", base.build(), null),
                Arguments.of(
                        "cordoned",
                        new NodeBuilder(base.build())
                                .withNewSpec()
                                .withUnschedulable(true)
                                .endSpec()
                                .build(),
                        "cordoned"),
                Arguments.of(
                        "explicitly schedulable",
                        new NodeBuilder(base.build())
                                .withNewSpec()
                                .withUnschedulable(false)
                                .endSpec()
                                .build(),
                        null),
                Arguments.of(
                        "drain taint",
                        new NodeBuilder(base.build())
                                .withNewSpec()
                                .addNewTaint()
                                .withKey("tenure.dev/drain")
                                .withEffect("NoSchedule")
                                .endTaint()
                                .endSpec()
                                .build(),
                        "tenure.dev/drain"),
                Arguments.of(
                        "someone else's taint",
                        new NodeBuilder(base.build())
                                .withNewSpec()
                                .addNewTaint()
                                .withKey("gpu")
                                .withEffect("NoSchedule")
                                .endTaint()
                                .endSpec()
                                .build(),
                        null),
                Arguments.of(
                        "maintenance condition True",
                        new NodeBuilder(base.build())
                                .withNewStatus()
                                .addNewCondition()
                                .withType("tenure.dev/Maintenance")
                                .withStatus("True")
                                .endCondition()
                                .endStatus()
                                .build(),
                        "in maintenance"),
                Arguments.of(
                        "maintenance condition False",
                        new NodeBuilder(base.build())
                                .withNewStatus()
                                .addNewCondition()
                                .withType("tenure.dev/Maintenance")
                                .withStatus("False")
                                .endCondition()
                                .endStatus()
                                .build(),
                        null),
                Arguments.of("unknown node", null, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void availability(String name, Node node, String reasonContains) {
        if (reasonContains == null) {
            assertThat(NodeAvailability.unavailableReason(node)).isEmpty();
        } else {
            assertThat(NodeAvailability.unavailableReason(node))
                    .hasValueSatisfying(r -> assertThat(r).contains(reasonContains));
        }
    }
}
