package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Watcher.Action;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which pod changes wake a maintenance that spec.drain.placement Wait holds (issue 49): those that free room as
 * kube-scheduler counts it (its cache drops a bound pod when it is deleted or has finished; a pod not bound takes no
 * room, and a pod arriving only takes room).
 */
class PodRoomWakeUpsTest {

    static Pod pod(String node, String phase) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .withNamespace("ns")
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec()
                .withNewStatus()
                .withPhase(phase)
                .endStatus()
                .build();
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                arguments("a bound pod deleted frees its room", Action.DELETED, pod("n2", "Running"), true),
                arguments("a bound pod that succeeded frees its room", Action.MODIFIED, pod("n2", "Succeeded"), true),
                arguments("a bound pod that failed frees its room", Action.MODIFIED, pod("n2", "Failed"), true),
                arguments("a running pod changing takes the same room", Action.MODIFIED, pod("n2", "Running"), false),
                arguments("a pod arriving only takes room", Action.ADDED, pod("n2", "Running"), false),
                arguments("a Pending pod deleted took no room", Action.DELETED, pod(null, "Pending"), false),
                arguments("a Pending pod failing took no room", Action.MODIFIED, pod(null, "Failed"), false),
                arguments("a bookmark is no change", Action.BOOKMARK, pod("n2", "Running"), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void wakesOnlyWhenRoomIsFreed(String name, Action action, Pod pod, boolean wakes) {
        assertThat(PodRoomWakeUps.freesRoom(action, pod)).isEqualTo(wakes);
    }
}
