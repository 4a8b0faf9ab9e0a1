package dev.tenure.maintenance.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which Node updates queue a Node at the annotation door: what the protocol acts on, never kubelet status. */
class ActedOnChangeTest {

    private static Node node() {
        return new NodeBuilder()
                .withNewMetadata()
                .withName("n1")
                .withResourceVersion("1")
                .addToAnnotations(MaintenanceAnnotation.REQUEST, "600")
                .addToAnnotations(MaintenanceAnnotation.STATUS, MaintenanceAnnotation.ACTIVE)
                .addToLabels("zone", "a")
                .endMetadata()
                .withNewSpec()
                .withUnschedulable(true)
                .endSpec()
                .withNewStatus()
                .addToConditions(new NodeConditionBuilder()
                        .withType("Ready")
                        .withStatus("True")
                        .withLastHeartbeatTime("2026-01-01T00:00:00Z")
                        .build())
                .endStatus()
                .build();
    }

    static Stream<Arguments> updates() {
        return Stream.of(
                Arguments.of(
                        "kubelet heartbeat (condition time, resourceVersion)",
                        (UnaryOperator<NodeBuilder>) b -> b.editMetadata()
                                .withResourceVersion("2")
                                .endMetadata()
                                .editStatus()
                                .editFirstCondition()
                                .withLastHeartbeatTime("2026-01-01T00:00:10Z")
                                .endCondition()
                                .endStatus(),
                        false),
                Arguments.of(
                        "an unrelated label",
                        (UnaryOperator<NodeBuilder>)
                                b -> b.editMetadata().addToLabels("zone", "b").endMetadata(),
                        false),
                Arguments.of(
                        "an unrelated annotation",
                        (UnaryOperator<NodeBuilder>) b -> b.editMetadata()
                                .addToAnnotations("example.com/x", "y")
                                .endMetadata(),
                        false),
                Arguments.of(
                        "request annotation changed",
                        (UnaryOperator<NodeBuilder>) b -> b.editMetadata()
                                .addToAnnotations(MaintenanceAnnotation.REQUEST, "1200")
                                .endMetadata(),
                        true),
                Arguments.of(
                        "request annotation removed",
                        (UnaryOperator<NodeBuilder>) b -> b.editMetadata()
                                .removeFromAnnotations(MaintenanceAnnotation.REQUEST)
                                .endMetadata(),
                        true),
                Arguments.of(
                        "status annotation changed",
                        (UnaryOperator<NodeBuilder>) b -> b.editMetadata()
                                .addToAnnotations(MaintenanceAnnotation.STATUS, MaintenanceAnnotation.ENDED)
                                .endMetadata(),
                        true),
                Arguments.of(
                        "recorded state annotation added",
                        (UnaryOperator<NodeBuilder>) b -> b.editMetadata()
                                .addToAnnotations(MaintenanceAnnotation.STATE, "{}")
                                .endMetadata(),
                        true),
                Arguments.of(
                        "uncordoned by someone",
                        (UnaryOperator<NodeBuilder>)
                                b -> b.editSpec().withUnschedulable(false).endSpec(),
                        true),
                Arguments.of(
                        "a taint added",
                        (UnaryOperator<NodeBuilder>) b -> b.editSpec()
                                .addToTaints(new TaintBuilder()
                                        .withKey("k")
                                        .withEffect("NoSchedule")
                                        .build())
                                .endSpec(),
                        true),
                Arguments.of(
                        "deletion started",
                        (UnaryOperator<NodeBuilder>) b -> b.editMetadata()
                                .withDeletionTimestamp("2026-01-01T00:01:00Z")
                                .endMetadata(),
                        true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("updates")
    void onlyChangesTheProtocolActsOnQueueTheNode(String name, UnaryOperator<NodeBuilder> change, boolean wakes) {
        Node old = node();
        Node updated = change.apply(new NodeBuilder(node())).build();
        assertThat(AnnotationDoor.ACTED_ON_CHANGE.test(updated, old)).isEqualTo(wakes);
    }
}
