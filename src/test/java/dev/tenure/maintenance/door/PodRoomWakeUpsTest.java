package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.tenure.placement.AwaitedPods;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Watcher.Action;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which pod changes wake a maintenance that spec.drain.placement Wait holds (issue 49): those that free room as
 * kube-scheduler counts it (its cache drops a bound pod when it is deleted or has finished; a pod not bound takes no
 * room, and a pod arriving only takes room, unless a stranded pod's required affinity or spread needs it).
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

    /** A stranded pod in {@code ns} whose required affinity needs a pod {@code app=peer} on its node. */
    static AwaitedPods peerAwaited() {
        Pod stranded = new PodBuilder(pod("n1", "Running"))
                .editSpec()
                .withNewAffinity()
                .withNewPodAffinity()
                .addNewRequiredDuringSchedulingIgnoredDuringExecution()
                .withTopologyKey("kubernetes.io/hostname")
                .withNewLabelSelector()
                .addToMatchLabels("app", "peer")
                .endLabelSelector()
                .endRequiredDuringSchedulingIgnoredDuringExecution()
                .endPodAffinity()
                .endAffinity()
                .endSpec()
                .build();
        return AwaitedPods.of(List.of(stranded));
    }

    static Pod labelled(Pod pod, String app) {
        return new PodBuilder(pod)
                .editMetadata()
                .addToLabels("app", app)
                .endMetadata()
                .build();
    }

    static Stream<Arguments> arrivals() {
        Pod peer = labelled(pod("n2", "Running"), "peer");
        return Stream.of(
                arguments("a pod the affinity needs added bound", Action.ADDED, peer, peerAwaited(), true),
                arguments("a pod the affinity needs bound, or relabelled", Action.MODIFIED, peer, peerAwaited(), true),
                arguments(
                        "an unrelated pod arriving only takes room",
                        Action.ADDED,
                        labelled(peer, "other"),
                        peerAwaited(),
                        false),
                arguments(
                        "a pod the affinity needs, not bound yet",
                        Action.ADDED,
                        labelled(pod(null, "Pending"), "peer"),
                        peerAwaited(),
                        false),
                arguments(
                        "a pod the affinity needs, finished",
                        Action.MODIFIED,
                        labelled(pod("n2", "Succeeded"), "peer"),
                        peerAwaited(),
                        false),
                arguments(
                        "a pod the affinity needs, deleted (freesRoom's case)",
                        Action.DELETED,
                        peer,
                        peerAwaited(),
                        false),
                arguments("nothing awaited: no arrival wakes", Action.ADDED, peer, AwaitedPods.NONE, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("arrivals")
    void wakesOnAnArrivalItsForecastAwaits(String name, Action action, Pod pod, AwaitedPods awaited, boolean wakes) {
        assertThat(PodRoomWakeUps.opensRoom(action, pod, awaited)).isEqualTo(wakes);
    }
}
