package dev.tenure.placement;

import static dev.tenure.placement.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which arriving pods may give room to a stranded pod (issue 49): those its required pod affinity selects
 * ({@code plugins/interpodaffinity/filtering.go}: a term's namespaces are its {@code namespaces} and those its
 * {@code namespaceSelector} selects, else the owner's) or
 * its {@code DoNotSchedule} spread constraint counts ({@code plugins/podtopologyspread/filtering.go}: pods of the
 * owner's namespace). Anti-affinity and preferred terms are never awaited: an arrival there only takes room.
 */
class AwaitedPodsTest {

    static final LabelSelector PEER =
            new LabelSelectorBuilder().withMatchLabels(Map.of("app", "peer")).build();

    static Pod affinity(PodAffinityTermBuilder term) {
        return new io.fabric8.kubernetes.api.model.PodBuilder(pod("s").build())
                .editSpec()
                .withNewAffinity()
                .withNewPodAffinity()
                .withRequiredDuringSchedulingIgnoredDuringExecution(
                        term.withTopologyKey("zone").withLabelSelector(PEER).build())
                .endPodAffinity()
                .endAffinity()
                .endSpec()
                .build();
    }

    static Pod antiAffinity() {
        return new io.fabric8.kubernetes.api.model.PodBuilder(pod("s").build())
                .editSpec()
                .withNewAffinity()
                .withNewPodAntiAffinity()
                .withRequiredDuringSchedulingIgnoredDuringExecution(new PodAffinityTermBuilder()
                        .withTopologyKey("zone")
                        .withLabelSelector(PEER)
                        .build())
                .endPodAntiAffinity()
                .endAffinity()
                .endSpec()
                .build();
    }

    static Pod spread(String whenUnsatisfiable) {
        return new io.fabric8.kubernetes.api.model.PodBuilder(pod("s").build())
                .editSpec()
                .withTopologySpreadConstraints(new TopologySpreadConstraintBuilder()
                        .withMaxSkew(1)
                        .withTopologyKey("zone")
                        .withWhenUnsatisfiable(whenUnsatisfiable)
                        .withLabelSelector(PEER)
                        .build())
                .endSpec()
                .build();
    }

    static Stream<Arguments> rows() {
        Map<String, String> peer = Map.of("app", "peer");
        return Stream.of(
                arguments(
                        "affinity: a selected pod of the owner's namespace",
                        affinity(new PodAffinityTermBuilder()),
                        "ns",
                        peer,
                        true),
                arguments(
                        "affinity: a selected pod of another namespace",
                        affinity(new PodAffinityTermBuilder()),
                        "other",
                        peer,
                        false),
                arguments(
                        "affinity: a pod it does not select",
                        affinity(new PodAffinityTermBuilder()),
                        "ns",
                        Map.of("app", "x"),
                        false),
                arguments(
                        "affinity with namespaces: a pod of a listed one",
                        affinity(new PodAffinityTermBuilder().withNamespaces("other")),
                        "other",
                        peer,
                        true),
                arguments(
                        "affinity with namespaces: the owner's own is not listed",
                        affinity(new PodAffinityTermBuilder().withNamespaces("other")),
                        "ns",
                        peer,
                        false),
                arguments(
                        "affinity with a namespaceSelector: any namespace (labels unknown to the watch)",
                        affinity(new PodAffinityTermBuilder()
                                .withNewNamespaceSelector()
                                .addToMatchLabels("team", "a")
                                .endNamespaceSelector()),
                        "elsewhere",
                        peer,
                        true),
                arguments("spread DoNotSchedule: a counted pod", spread("DoNotSchedule"), "ns", peer, true),
                arguments("spread ScheduleAnyway is no filter", spread("ScheduleAnyway"), "ns", peer, false),
                arguments("required anti-affinity: an arrival only takes room", antiAffinity(), "ns", peer, false));
    }

    /** The namespaces the forecast read: team-a and team-b by their {@code team} label, plain without labels. */
    static final Map<String, Map<String, String>> READ =
            Map.of("ns", Map.of(), "team-a", Map.of("team", "a"), "team-b", Map.of("team", "b"), "plain", Map.of());

    static Pod teamA() {
        return affinity(new PodAffinityTermBuilder()
                .withNewNamespaceSelector()
                .addToMatchLabels("team", "a")
                .endNamespaceSelector());
    }

    /**
     * With the namespace labels the forecast read, a {@code namespaceSelector} is resolved as kube-scheduler resolves
     * it at PreFilter ({@code interpodaffinity/plugin.go mergeAffinityTermNamespacesIfNotEmpty}): only the namespaces
     * it selects, plus those it names; a namespace the forecast did not know may be a new one that matches.
     */
    static Stream<Arguments> withLabels() {
        Map<String, String> peer = Map.of("app", "peer");
        return Stream.of(
                arguments("namespaceSelector: a selected pod of a namespace it selects", teamA(), "team-a", peer, true),
                arguments("namespaceSelector: a namespace it does not select", teamA(), "team-b", peer, false),
                arguments("namespaceSelector: not the owner's own unless selected", teamA(), "ns", peer, false),
                arguments("namespaceSelector: a pod it does not select", teamA(), "team-a", Map.of("app", "x"), false),
                arguments("namespaceSelector: a namespace created since the forecast", teamA(), "new", peer, true),
                arguments(
                        "namespaceSelector {}: every namespace",
                        affinity(new PodAffinityTermBuilder()
                                .withNewNamespaceSelector()
                                .endNamespaceSelector()),
                        "plain",
                        peer,
                        true),
                arguments(
                        "namespaces and a namespaceSelector are ORed: a listed one",
                        affinity(new PodAffinityTermBuilder()
                                .withNamespaces("plain")
                                .withNewNamespaceSelector()
                                .addToMatchLabels("team", "a")
                                .endNamespaceSelector()),
                        "plain",
                        peer,
                        true),
                arguments(
                        "no namespaces, no selector: the owner's namespace only",
                        affinity(new PodAffinityTermBuilder()),
                        "team-a",
                        peer,
                        false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("withLabels")
    void aNamespaceSelectorAwaitsTheNamespacesItSelected(
            String name, Pod stranded, String namespace, Map<String, String> labels, boolean opens) {
        assertThat(AwaitedPods.of(List.of(stranded), READ).opensRoom(namespace, labels))
                .isEqualTo(opens);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void anArrivalOpensRoomOnlyForWhatAStrandedPodNeeds(
            String name, Pod stranded, String namespace, Map<String, String> labels, boolean opens) {
        assertThat(AwaitedPods.of(List.of(stranded)).opensRoom(namespace, labels))
                .isEqualTo(opens);
    }
}
