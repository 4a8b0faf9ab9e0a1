package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which Node changes free a slot of the limits, and so wake the held requests ({@link NodeSlotWakeUps}). */
class NodeSlotWakeUpsTest {

    static Node node(Boolean unschedulable, String ready) {
        NodeBuilder b = new NodeBuilder()
                .withNewMetadata()
                .withName("w2")
                .endMetadata()
                .withNewSpec()
                .withUnschedulable(unschedulable)
                .endSpec();
        if (ready != null) {
            b.withNewStatus()
                    .addNewCondition()
                    .withType("Ready")
                    .withStatus(ready)
                    .endCondition()
                    .endStatus();
        }
        return b.build();
    }

    static Stream<Arguments> changes() {
        return Stream.of(
                Arguments.of("uncordoned", node(true, "True"), node(false, "True"), true),
                Arguments.of("uncordoned (field removed)", node(true, "True"), node(null, "True"), true),
                Arguments.of("turns Ready from False", node(null, "False"), node(null, "True"), true),
                Arguments.of("turns Ready from Unknown", node(null, "Unknown"), node(null, "True"), true),
                Arguments.of("Ready condition gone (counts as available)", node(null, "False"), node(null, null), true),
                Arguments.of("uncordoned but still NotReady", node(true, "False"), node(null, "False"), false),
                Arguments.of("turns Ready but still cordoned", node(true, "False"), node(true, "True"), false),
                Arguments.of("cordoned", node(null, "True"), node(true, "True"), false),
                Arguments.of("turns NotReady", node(null, "True"), node(null, "False"), false),
                Arguments.of("an available node changes otherwise", node(null, "True"), node(false, "True"), false),
                Arguments.of("stays cordoned", node(true, "True"), node(true, "True"), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("changes")
    void aNodeFreesASlotWhenItStopsCountingAsUnavailable(String name, Node before, Node after, boolean frees) {
        assertThat(NodeSlotWakeUps.freesSlot(before, after)).isEqualTo(frees);
    }
}
