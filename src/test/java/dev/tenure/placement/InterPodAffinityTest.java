package dev.tenure.placement;

import static dev.tenure.placement.Fixtures.on;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rows from kubernetes {@code pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go}
 * ({@code TestRequiredAffinitySingleNode} and {@code TestRequiredAffinityMultipleNodes}, names kept; their
 * {@code service in (securityscan, value2)} and {@code region}/{@code zone} topology keys), then Tenure's rows.
 */
class InterPodAffinityTest {

    private static final List<String> AFFINITY = List.of(InterPodAffinity.AFFINITY);
    private static final List<String> ANTI = List.of(InterPodAffinity.ANTI_AFFINITY);
    private static final List<String> EXISTING = List.of(InterPodAffinity.EXISTING_ANTI_AFFINITY);

    static LabelSelector in(String key, String... values) {
        return new LabelSelectorBuilder()
                .addNewMatchExpression()
                .withKey(key)
                .withOperator("In")
                .withValues(values)
                .endMatchExpression()
                .build();
    }

    static PodAffinityTerm term(LabelSelector selector, String topologyKey, String... namespaces) {
        return new PodAffinityTermBuilder()
                .withLabelSelector(selector)
                .withTopologyKey(topologyKey)
                .withNamespaces(namespaces.length == 0 ? null : List.of(namespaces))
                .build();
    }

    static Pod pod(
            String name, Map<String, String> labels, List<PodAffinityTerm> affinity, List<PodAffinityTerm> anti) {
        PodBuilder b = Fixtures.pod(name).editMetadata().withLabels(labels).endMetadata();
        if (!affinity.isEmpty() || !anti.isEmpty()) {
            b.editSpec()
                    .withNewAffinity()
                    .withNewPodAffinity()
                    .withRequiredDuringSchedulingIgnoredDuringExecution(affinity)
                    .endPodAffinity()
                    .withNewPodAntiAffinity()
                    .withRequiredDuringSchedulingIgnoredDuringExecution(anti)
                    .endPodAntiAffinity()
                    .endAffinity()
                    .endSpec();
        }
        return b.build();
    }

    static Pod labelled(String name, Map<String, String> labels) {
        return pod(name, labels, List.of(), List.of());
    }

    private static final Map<String, String> SECURITY_S1 = Map.of("security", "S1");
    private static final Map<String, String> SECURITY_S2 = Map.of("security", "S2");
    private static final Map<String, String> SCAN = Map.of("service", "securityscan");
    private static final Map<String, String> REGION_ZONE = Map.of("region", "r1", "zone", "z11");

    /** Single node rows: the node {@code machine1} with region/zone labels and the existing pods on it. */
    static Stream<Arguments> singleNode() {
        PodAffinityTerm scanByRegion = term(in("service", "securityscan", "value2"), "region");
        return Stream.of(
                arguments(
                        "A pod that has no required pod affinity scheduling rules can schedule onto a node with no"
                                + " existing pods",
                        labelled("p", Map.of()),
                        List.of(),
                        List.of()),
                arguments(
                        "satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In"
                                + " operator that matches the existing pod",
                        pod("p", SECURITY_S2, List.of(scanByRegion), List.of()),
                        List.of(labelled("e", SCAN)),
                        List.of()),
                arguments(
                        "Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
                        pod(
                                "p",
                                SECURITY_S1,
                                List.of(term(in("service", "securityscan", "value2"), "region", "DiffNameSpace")),
                                List.of()),
                        List.of(labelled("e", SCAN)),
                        AFFINITY),
                arguments(
                        "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
                        pod(
                                "p",
                                SECURITY_S1,
                                List.of(term(in("service", "antivirusscan", "value2"), "region")),
                                List.of()),
                        List.of(labelled("e", SCAN)),
                        AFFINITY),
                arguments(
                        "satisfies the PodAffinity and PodAntiAffinity with the existing pod",
                        pod(
                                "p",
                                SECURITY_S1,
                                List.of(scanByRegion),
                                List.of(term(in("service", "antivirusscan", "value2"), "node"))),
                        List.of(labelled("e", SCAN)),
                        List.of()),
                arguments(
                        "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
                        pod(
                                "p",
                                SECURITY_S1,
                                List.of(scanByRegion),
                                List.of(term(in("service", "securityscan", "value2"), "zone"))),
                        List.of(labelled("e", SCAN)),
                        ANTI),
                arguments(
                        "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry"
                                + " with the existing pod",
                        pod(
                                "p",
                                SECURITY_S1,
                                List.of(scanByRegion),
                                List.of(term(in("service", "antivirusscan", "value2"), "node"))),
                        List.of(pod("e", SCAN, List.of(), List.of(term(in("security", "S1"), "zone")))),
                        EXISTING),
                arguments(
                        "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity"
                                + " constraints. satisfy PodAntiAffinity symmetry with the existing pod",
                        labelled("p", SECURITY_S1),
                        List.of(pod("e", SCAN, List.of(), List.of(term(in("security", "S2"), "zone")))),
                        List.of()),
                arguments(
                        "The affinity rule is to schedule all of the pods of this collection to the same zone. The"
                                + " first pod of the collection should not be blocked from being scheduled onto any"
                                + " node, even there's no existing pod that matches the rule anywhere.",
                        pod("p", Map.of("foo", "bar"), List.of(term(in("foo", "bar"), "zone")), List.of()),
                        List.of(),
                        List.of()),
                arguments(
                        "the first pod of a collection is blocked when it does not match its own affinity",
                        pod("p", Map.of("foo", "baz"), List.of(term(in("foo", "bar"), "zone")), List.of()),
                        List.of(),
                        AFFINITY),
                arguments(
                        "a null label selector in an affinity term selects nothing",
                        pod("p", Map.of("foo", "bar"), List.of(term(null, "zone")), List.of()),
                        List.of(labelled("e", Map.of("foo", "bar"))),
                        AFFINITY),
                arguments(
                        "an affinity term whose topology key the node lacks fails even for the first pod",
                        pod("p", Map.of("foo", "bar"), List.of(term(in("foo", "bar"), "rack")), List.of()),
                        List.of(),
                        AFFINITY));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("singleNode")
    void singleNode(String name, Pod pod, List<Pod> existing, List<String> reasons) {
        Node node = Fixtures.node("machine1", REGION_ZONE);
        assertThat(Fixtures.filter(new InterPodAffinity(), pod, node, existing.toArray(Pod[]::new)))
                .isEqualTo(reasons);
    }

    /**
     * {@code TestRequiredAffinityMultipleNodes}: "A pod can be scheduled onto all the nodes that have the same
     * topology key & label value with one of them has an existing pod that matches the affinity rules" and the
     * anti-affinity variant: a domain (zone) spans nodes.
     */
    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("multipleNodes")
    void multipleNodes(String name, String candidate, Pod pod, List<String> reasons) {
        List<Node> nodes = List.of(
                Fixtures.node("nodeA", Map.of("zone", "az1", "hostname", "h1")),
                Fixtures.node("nodeB", Map.of("zone", "az1", "hostname", "h2")),
                Fixtures.node("nodeC", Map.of("zone", "az2", "hostname", "h3")));
        List<Pod> bound = List.of(on(labelled("e", Map.of("foo", "bar")), "nodeA"));
        assertThat(Fixtures.filter(new InterPodAffinity(), pod, candidate, nodes, bound))
                .isEqualTo(reasons);
    }

    static Stream<Arguments> multipleNodes() {
        Pod affinity = pod("p", Map.of(), List.of(term(in("foo", "bar"), "zone")), List.of());
        Pod anti = pod("p", Map.of(), List.of(), List.of(term(in("foo", "bar"), "zone")));
        return Stream.of(
                arguments("affinity: same zone as the matching pod", "nodeA", affinity, List.of()),
                arguments("affinity: same zone as the matching pod", "nodeB", affinity, List.of()),
                arguments("affinity: another zone", "nodeC", affinity, AFFINITY),
                arguments("anti-affinity: the matching pod's zone", "nodeB", anti, ANTI),
                arguments("anti-affinity: another zone", "nodeC", anti, List.of()));
    }

    // ---- namespaceSelector ---------------------------------------------------------------------------------------

    /** The namespaces of upstream's plugin tests ({@code interpodaffinity}: {@code namespaces}), labelled by team. */
    static final Map<String, Map<String, String>> NAMESPACES = Map.of(
            "subteam1.team1", Map.of("team", "team1"),
            "subteam2.team1", Map.of("team", "team1"),
            "subteam1.team2", Map.of("team", "team2"),
            "subteam2.team2", Map.of("team", "team2"));

    static LabelSelector teamIn(String team) {
        return in("team", team);
    }

    static PodAffinityTerm selecting(LabelSelector selector, String topologyKey, LabelSelector namespaces) {
        return new PodAffinityTermBuilder()
                .withLabelSelector(selector)
                .withTopologyKey(topologyKey)
                .withNamespaceSelector(namespaces)
                .build();
    }

    static Pod inNamespace(Pod pod, String namespace) {
        return Fixtures.with(pod, b -> b.editMetadata().withNamespace(namespace).endMetadata());
    }

    /**
     * Rows of {@code TestRequiredAffinitySingleNode} ({@code filtering_test.go}) that carry a {@code namespaceSelector},
     * names kept (their incoming pod in the default namespace, here {@code ns}, which no selector selects), then
     * Tenure's rows: the list and the selector ORed, an existing pod's selector read against the incoming pod's
     * namespace, a namespace not known, and labels not read.
     */
    static Stream<Arguments> namespaceSelector() {
        LabelSelector scan = in("service", "securityscan", "value2");
        return Stream.of(
                arguments(
                        "affinity with NamespaceSelector",
                        pod("p", SECURITY_S1, List.of(selecting(scan, "region", teamIn("team1"))), List.of()),
                        List.of(inNamespace(labelled("e", SCAN), "subteam1.team1")),
                        true,
                        List.of()),
                arguments(
                        "affinity with non-matching NamespaceSelector",
                        pod("p", SECURITY_S1, List.of(selecting(scan, "region", teamIn("team1"))), List.of()),
                        List.of(inNamespace(labelled("e", SCAN), "subteam1.team2")),
                        true,
                        AFFINITY),
                arguments(
                        "anti-affinity with matching NamespaceSelector",
                        inNamespace(
                                pod("p", SECURITY_S1, List.of(), List.of(selecting(scan, "zone", teamIn("team1")))),
                                "subteam1.team1"),
                        List.of(inNamespace(labelled("e", SCAN), "subteam2.team1")),
                        true,
                        ANTI),
                arguments(
                        "anti-affinity with matching all NamespaceSelector",
                        inNamespace(
                                pod("p", SECURITY_S1, List.of(), List.of(selecting(scan, "zone", new LabelSelector()))),
                                "subteam1.team1"),
                        List.of(inNamespace(labelled("e", SCAN), "subteam2.team1")),
                        true,
                        ANTI),
                arguments(
                        "anti-affinity with non-matching NamespaceSelector",
                        inNamespace(
                                pod("p", SECURITY_S1, List.of(), List.of(selecting(scan, "zone", teamIn("team1")))),
                                "subteam1.team1"),
                        List.of(inNamespace(labelled("e", SCAN), "subteam1.team2")),
                        true,
                        List.of()),
                arguments(
                        "Tenure: a term's namespaces and its namespaceSelector are ORed",
                        pod(
                                "p",
                                SECURITY_S1,
                                List.of(new PodAffinityTermBuilder(selecting(scan, "region", teamIn("team1")))
                                        .withNamespaces("subteam1.team2")
                                        .build()),
                                List.of()),
                        List.of(inNamespace(labelled("e", SCAN), "subteam1.team2")),
                        true,
                        List.of()),
                arguments(
                        "Tenure: an existing pod's namespaceSelector reads the labels of the incoming pod's namespace",
                        inNamespace(labelled("p", SECURITY_S1), "subteam2.team1"),
                        List.of(inNamespace(
                                pod(
                                        "e",
                                        SCAN,
                                        List.of(),
                                        List.of(selecting(in("security", "S1"), "zone", teamIn("team1")))),
                                "subteam1.team2")),
                        true,
                        EXISTING),
                arguments(
                        "Tenure: a namespace not found has no labels, so a DoesNotExist selector selects it",
                        pod(
                                "p",
                                SECURITY_S1,
                                List.of(selecting(
                                        scan,
                                        "region",
                                        new LabelSelectorBuilder()
                                                .addNewMatchExpression()
                                                .withKey("team")
                                                .withOperator("DoesNotExist")
                                                .endMatchExpression()
                                                .build())),
                                List.of()),
                        List.of(inNamespace(labelled("e", SCAN), "gone")),
                        true,
                        List.of()),
                arguments(
                        "Tenure: labels not read, a term that selects namespaces by label is left out",
                        pod("p", SECURITY_S1, List.of(selecting(scan, "region", teamIn("team1"))), List.of()),
                        List.of(inNamespace(labelled("e", SCAN), "subteam1.team2")),
                        false,
                        List.of()),
                arguments(
                        "Tenure: labels not read, a namespaceSelector {} still selects every namespace",
                        inNamespace(
                                pod("p", SECURITY_S1, List.of(), List.of(selecting(scan, "zone", new LabelSelector()))),
                                "subteam1.team1"),
                        List.of(inNamespace(labelled("e", SCAN), "subteam2.team1")),
                        false,
                        ANTI));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("namespaceSelector")
    void namespaceSelector(String name, Pod pod, List<Pod> existing, boolean labelsRead, List<String> reasons) {
        Node node = Fixtures.node("node1", REGION_ZONE);
        List<Pod> bound = existing.stream().map(p -> on(p, "node1")).toList();
        PlacementCluster cluster =
                PlacementCluster.of(List.of(node), bound, List.of(), List.of(), labelsRead ? NAMESPACES : Map.of());
        if (!labelsRead) {
            cluster.namespacesNotRead("list namespaces: HTTP 403 Forbidden");
        }
        assertThat(new InterPodAffinity()
                        .prepare(pod, cluster)
                        .filter(cluster.node("node1").orElseThrow()))
                .isEqualTo(reasons);
    }

    /**
     * When a forecast reads namespace labels ({@link PlacementCluster.Builder#needsNamespaceLabels}): only for a term
     * whose selector needs them (neither null nor {@code {}}), of a pod to place (affinity or anti-affinity) or of a
     * pod already bound (its anti-affinity: an existing pod's affinity is not read by the filter).
     */
    static Stream<Arguments> readsNamespaceLabels() {
        LabelSelector scan = in("service", "securityscan");
        Pod plain = labelled("p", SECURITY_S1);
        Pod teamAffinity = pod("p", SECURITY_S1, List.of(selecting(scan, "zone", teamIn("team1"))), List.of());
        Pod teamAnti = pod("p", SECURITY_S1, List.of(), List.of(selecting(scan, "zone", teamIn("team1"))));
        Pod everyAnti = pod("p", SECURITY_S1, List.of(), List.of(selecting(scan, "zone", new LabelSelector())));
        Pod listed = pod("p", SECURITY_S1, List.of(term(scan, "zone", "subteam1.team1")), List.of());
        return Stream.of(
                arguments("no pod selects namespaces", plain, List.of(labelled("e", SCAN)), false),
                arguments("the pod to place: affinity by label", teamAffinity, List.of(), true),
                arguments("the pod to place: anti-affinity by label", teamAnti, List.of(), true),
                arguments("the pod to place: namespaceSelector {} needs no labels", everyAnti, List.of(), false),
                arguments("the pod to place: namespaces listed need no labels", listed, List.of(), false),
                arguments("a bound pod: anti-affinity by label", plain, List.of(on(teamAnti, "node1")), true),
                arguments(
                        "a bound pod: affinity by label is not read",
                        plain,
                        List.of(on(teamAffinity, "node1")),
                        false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("readsNamespaceLabels")
    void readsNamespaceLabelsOnlyWhenATermNeedsThem(String name, Pod toPlace, List<Pod> bound, boolean reads) {
        PlacementCluster.Builder b = PlacementCluster.builder(List.of(Fixtures.node("node1", REGION_ZONE)));
        bound.forEach(b::pod);
        assertThat(b.needsNamespaceLabels(List.of(toPlace))).isEqualTo(reads);
    }
}
