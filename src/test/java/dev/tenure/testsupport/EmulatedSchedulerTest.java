package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The living cluster's scheduler, one table: each row a case of one kube-scheduler filter plugin, named after the
 * behaviour and the upstream file it reads (pkg/scheduler/framework/plugins/...), answering the node the pod goes to
 * or the scheduler's message when it fits nowhere.
 */
class EmulatedSchedulerTest {

    /** One case: the plugin file, the pod, the nodes, the pods bound already, and the node or message expected. */
    record Row(String name, String upstream, Pod pod, List<Node> nodes, List<Pod> bound, String expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Row> rows() {
        Node a = node("a", n -> n);
        Node b = node("b", n -> n);
        return Stream.of(
                // ---- NodeUnschedulable / TaintToleration
                new Row(
                        "NodeUnschedulable: cordoned nodes are left out",
                        "nodeunschedulable/node_unschedulable.go",
                        pod("p", p -> p),
                        List.of(node("a", n -> cordoned(n)), node("b", n -> cordoned(n))),
                        List.of(),
                        "0/2 nodes are available: 2 node(s) were unschedulable."),
                new Row(
                        "TaintToleration: an untolerated NoSchedule taint is named in the message",
                        "tainttoleration/taint_toleration.go Filter",
                        pod("p", p -> p),
                        List.of(
                                node("cp", n -> tainted(n, "node-role.kubernetes.io/control-plane", "", "NoSchedule")),
                                node("b", n -> cordoned(n))),
                        List.of(),
                        "0/2 nodes are available: 1 node(s) had untolerated taint"
                                + " {node-role.kubernetes.io/control-plane: }, 1 node(s) were unschedulable."),
                new Row(
                        "TaintToleration: PreferNoSchedule does not filter",
                        "tainttoleration/taint_toleration.go (only NoSchedule and NoExecute filter)",
                        pod("p", p -> p),
                        List.of(node("a", n -> tainted(n, "k", "v", "PreferNoSchedule"))),
                        List.of(),
                        "a"),
                // ---- NodeAffinity
                new Row(
                        "NodeAffinity: required terms are ORed, expressions ANDed (In, Gt)",
                        "nodeaffinity/node_affinity.go; component-helpers nodeaffinity",
                        pod("p", p -> nodeAffinity(p, "gen", "Gt", "3")),
                        List.of(node("a", n -> labelled(n, "gen", "2")), node("b", n -> labelled(n, "gen", "5"))),
                        List.of(),
                        "b"),
                new Row(
                        "NodeAffinity: no node matches the selector",
                        "nodeaffinity/node_affinity.go ErrReasonPod",
                        pod("p", p -> {
                            p.getSpec().setNodeSelector(Map.of("disk", "ssd"));
                            return p;
                        }),
                        List.of(a, b),
                        List.of(),
                        "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."),
                // ---- NodePorts
                new Row(
                        "NodePorts: a hostPort taken on the node (wildcard IP) sends the pod elsewhere",
                        "nodeports/node_ports.go; framework types.go HostPortInfo",
                        pod("p", p -> hostPort(p, 8080)),
                        List.of(a, b),
                        List.of(bound(pod("q", p -> hostPort(p, 8080)), "a")),
                        "b"),
                new Row(
                        "NodePorts: taken everywhere",
                        "nodeports/node_ports.go ErrReason",
                        pod("p", p -> hostPort(p, 8080)),
                        List.of(a),
                        List.of(bound(pod("q", p -> hostPort(p, 8080)), "a")),
                        "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports."),
                // ---- NodeResourcesFit
                new Row(
                        "NodeResourcesFit: requests against allocatable minus what runs",
                        "noderesources/fit.go fitsRequest",
                        pod("p", p -> requests(p, "3", "1Gi")),
                        List.of(a, b),
                        List.of(bound(pod("q", p -> requests(p, "2", "1Gi")), "a")),
                        "b"),
                new Row(
                        "NodeResourcesFit: each insufficient resource is counted",
                        "noderesources/fit.go (Insufficient <resource>)",
                        pod("p", p -> requests(p, "8", "32Gi")),
                        List.of(a, b),
                        List.of(),
                        "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient memory."),
                new Row(
                        "NodeResourcesFit: the largest init container counts when larger than the containers",
                        "noderesources/fit.go computePodResourceRequest; component-helpers resource PodRequests",
                        pod("p", p -> initRequests(requests(p, "1", "1Gi"), "5")),
                        List.of(a),
                        List.of(),
                        "0/1 nodes are available: 1 Insufficient cpu."),
                new Row(
                        "NodeResourcesFit: pod overhead is added",
                        "noderesources/fit.go (Overhead added to the request)",
                        pod("p", p -> {
                            requests(p, "3500m", "1Gi");
                            p.getSpec().setOverhead(Map.of("cpu", new Quantity("600m")));
                            return p;
                        }),
                        List.of(a),
                        List.of(),
                        "0/1 nodes are available: 1 Insufficient cpu."),
                new Row(
                        "NodeResourcesFit: allocatable pods counts",
                        "noderesources/fit.go (Too many pods)",
                        pod("p", p -> p),
                        List.of(node("a", n -> {
                            n.getStatus().getAllocatable().put("pods", new Quantity("1"));
                            return n;
                        })),
                        List.of(bound(pod("q", p -> p), "a")),
                        "0/1 nodes are available: 1 Too many pods."),
                // ---- VolumeBinding
                new Row(
                        "VolumeBinding: a bound local volume pins the pod to its node",
                        "volumebinding/volume_binding.go (FindPodVolumes: PV node affinity)",
                        pod("p", p -> claim(p, "data")),
                        List.of(a, b),
                        List.of(),
                        "b"),
                // ---- VolumeZone
                new Row(
                        "VolumeZone: a volume labelled with a zone takes the pod only to a node of that zone",
                        "volumezone/volume_zone.go (Filter: pv zone label against the node's)",
                        pod("p", p -> claim(p, "zonal")),
                        List.of(node("a", n -> labelled(n, GA_ZONE, "z1")), node("b", n -> labelled(n, GA_ZONE, "z2"))),
                        List.of(),
                        "b"),
                new Row(
                        "VolumeZone: no node in the volume's zone",
                        "volumezone/volume_zone.go (ErrReasonConflict)",
                        pod("p", p -> claim(p, "zonal")),
                        List.of(node("a", n -> labelled(n, GA_ZONE, "z1"))),
                        List.of(),
                        "0/1 nodes are available: 1 node(s) had no available volume zone."),
                new Row(
                        "VolumeZone: a node without zone labels passes",
                        "volumezone/volume_zone.go (hasAnyNodeConstraint false: nil status)",
                        pod("p", p -> claim(p, "zonal")),
                        List.of(node("a", n -> n)),
                        List.of(),
                        "a"),
                new Row(
                        "VolumeZone: a beta zone label on the volume matches the node's GA label, values split by __",
                        "volumezone/volume_zone.go (translateToGALabel; volumehelpers.LabelZonesToSet)",
                        pod("p", p -> claim(p, "beta")),
                        List.of(node("a", n -> labelled(n, GA_ZONE, "z1")), node("b", n -> labelled(n, GA_ZONE, "z3"))),
                        List.of(),
                        "b"),
                // ---- PodTopologySpread
                new Row(
                        "PodTopologySpread: DoNotSchedule over zones keeps the skew within maxSkew",
                        "podtopologyspread/filtering.go",
                        pod("p", p -> spread(labelled(p, "app", "web"), "zone")),
                        List.of(node("a", n -> labelled(n, "zone", "z1")), node("b", n -> labelled(n, "zone", "z2"))),
                        List.of(bound(pod("q", p -> labelled(p, "app", "web")), "a")),
                        "b"),
                new Row(
                        "PodTopologySpread: the only node left would exceed maxSkew",
                        "podtopologyspread/filtering.go ErrReasonConstraintsNotMatch",
                        pod("p", p -> spread(labelled(p, "app", "web"), "zone")),
                        List.of(
                                node("a", n -> labelled(n, "zone", "z1")),
                                node("b", n -> cordoned(labelled(n, "zone", "z2")))),
                        List.of(bound(pod("q", p -> labelled(p, "app", "web")), "a")),
                        "0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1"
                                + " node(s) were unschedulable."),
                // ---- InterPodAffinity
                new Row(
                        "InterPodAffinity: required anti-affinity keeps two replicas apart",
                        "interpodaffinity/filtering.go satisfyPodAntiAffinity",
                        pod("p", p -> antiAffinity(labelled(p, "app", "db"), "db")),
                        List.of(a, b),
                        List.of(bound(pod("q", p -> antiAffinity(labelled(p, "app", "db"), "db")), "a")),
                        "b"),
                new Row(
                        "InterPodAffinity: anti-affinity with every node taken",
                        "interpodaffinity/filtering.go ErrReasonAntiAffinityRulesNotMatch,"
                                + " ErrReasonExistingAntiAffinityRulesNotMatch",
                        pod("p", p -> antiAffinity(labelled(p, "app", "db"), "db")),
                        List.of(a),
                        List.of(bound(pod("q", p -> labelled(p, "app", "db")), "a")),
                        "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules."),
                new Row(
                        "InterPodAffinity: required affinity follows the pod it names",
                        "interpodaffinity/filtering.go satisfyPodAffinity",
                        pod("p", p -> affinity(p, "cache")),
                        List.of(a, b),
                        List.of(bound(pod("q", p -> labelled(p, "app", "cache")), "b")),
                        "b"),
                // ---- InterPodAffinity: a term's namespaceSelector (namespaces: ns team1, data team2, other none)
                new Row(
                        "InterPodAffinity: anti-affinity whose namespaceSelector selects the other pod's namespace",
                        "framework/types.go AffinityTerm.Matches; interpodaffinity/filtering.go",
                        pod(
                                "p",
                                p -> namespaces(antiAffinity(labelled(p, "app", "db"), "db"), Map.of("team", "team2"))),
                        List.of(a),
                        List.of(bound(inNamespace(pod("q", p -> labelled(p, "app", "db")), "data"), "a")),
                        "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules."),
                new Row(
                        "InterPodAffinity: anti-affinity whose namespaceSelector selects another namespace",
                        "framework/types.go AffinityTerm.Matches",
                        pod(
                                "p",
                                p -> namespaces(antiAffinity(labelled(p, "app", "db"), "db"), Map.of("team", "team1"))),
                        List.of(a),
                        List.of(bound(inNamespace(pod("q", p -> labelled(p, "app", "db")), "data"), "a")),
                        "a"),
                new Row(
                        "InterPodAffinity: an empty namespaceSelector selects every namespace",
                        "framework/types.go newAffinityTerm (LabelSelectorAsSelector of {} is Everything)",
                        pod("p", p -> namespaces(antiAffinity(labelled(p, "app", "db"), "db"), Map.of())),
                        List.of(a),
                        List.of(bound(inNamespace(pod("q", p -> labelled(p, "app", "db")), "other"), "a")),
                        "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules."),
                new Row(
                        "InterPodAffinity: an existing pod's namespaceSelector reads the incoming pod's namespace",
                        "interpodaffinity/filtering.go getExistingAntiAffinityCounts (GetNamespaceLabelsSnapshot)",
                        pod("p", p -> labelled(p, "app", "web")),
                        List.of(a),
                        List.of(bound(
                                inNamespace(
                                        pod("q", p -> namespaces(antiAffinity(p, "web"), Map.of("team", "team1"))),
                                        "data"),
                                "a")),
                        "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules."),
                new Row(
                        "InterPodAffinity: affinity follows a pod in a namespace its namespaceSelector selects",
                        "interpodaffinity/plugin.go mergeAffinityTermNamespacesIfNotEmpty",
                        pod("p", p -> namespaces(affinity(p, "cache"), Map.of("team", "team2"))),
                        List.of(a, b),
                        List.of(bound(inNamespace(pod("q", p -> labelled(p, "app", "cache")), "data"), "b")),
                        "b"));
    }

    /** The labels of the rows' namespaces: ns and data by team, other none. */
    static final Map<String, Map<String, String>> NAMESPACE_LABELS =
            Map.of("ns", Map.of("team", "team1"), "data", Map.of("team", "team2"), "other", Map.of());

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void placesAsKubeScheduler(Row row) {
        assertThat(row.upstream()).as("each row names the upstream plugin file").isNotBlank();
        PersistentVolumeClaim claim = new PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withName("data")
                .withNamespace("ns")
                .endMetadata()
                .withNewSpec()
                .withVolumeName("local-b")
                .endSpec()
                .build();
        PersistentVolume local = new PersistentVolumeBuilder()
                .withNewMetadata()
                .withName("local-b")
                .endMetadata()
                .withNewSpec()
                .withNewNodeAffinity()
                .withNewRequired()
                .addNewNodeSelectorTerm()
                .addToMatchExpressions(new NodeSelectorRequirementBuilder()
                        .withKey("kubernetes.io/hostname")
                        .withOperator("In")
                        .withValues("b")
                        .build())
                .endNodeSelectorTerm()
                .endRequired()
                .endNodeAffinity()
                .endSpec()
                .build();
        Map<String, PersistentVolumeClaim> claims = Map.of(
                "ns/data", claim, "ns/zonal", boundClaim("zonal", "disk-z2"), "ns/beta", boundClaim("beta", "disk-b"));
        Map<String, PersistentVolume> pvs = Map.of(
                "local-b",
                local,
                "disk-z2",
                zonal("disk-z2", GA_ZONE, "z2"),
                "disk-b",
                zonal("disk-b", "failure-domain.beta.kubernetes.io/zone", "z2__z3"));
        EmulatedScheduler.Reads volumes = new EmulatedScheduler.Reads(
                k -> Optional.ofNullable(claims.get(k)),
                k -> Optional.ofNullable(pvs.get(k)),
                ns -> NAMESPACE_LABELS.getOrDefault(ns, Map.of()));
        EmulatedScheduler.Decision d = EmulatedScheduler.schedule(row.pod(), row.nodes(), row.bound(), volumes);
        String got = d instanceof EmulatedScheduler.Bind bind
                ? bind.nodeName()
                : ((EmulatedScheduler.Unschedulable) d).message();
        assertThat(got).isEqualTo(row.expected());
    }

    // ---- fixtures: 4 cpu, 16Gi, 110 pods per node, Ready, hostname label -----------------------------------------

    static Node node(String name, UnaryOperator<Node> edit) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("kubernetes.io/hostname", name);
        Map<String, Quantity> allocatable = new LinkedHashMap<>();
        allocatable.put("cpu", new Quantity("4"));
        allocatable.put("memory", new Quantity("16Gi"));
        allocatable.put("pods", new Quantity("110"));
        return edit.apply(new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .withAllocatable(allocatable)
                .endStatus()
                .build());
    }

    static Node cordoned(Node n) {
        n.getSpec().setUnschedulable(true);
        return n;
    }

    static Node tainted(Node n, String key, String value, String effect) {
        n.getSpec()
                .setTaints(List.of(new TaintBuilder()
                        .withKey(key)
                        .withValue(value)
                        .withEffect(effect)
                        .build()));
        return n;
    }

    static Node labelled(Node n, String key, String value) {
        n.getMetadata().getLabels().put(key, value);
        return n;
    }

    static Pod pod(String name, UnaryOperator<Pod> edit) {
        return edit.apply(new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("ns")
                .withLabels(new LinkedHashMap<>())
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .endContainer()
                .endSpec()
                .build());
    }

    static Pod bound(Pod p, String node) {
        p.getSpec().setNodeName(node);
        return p;
    }

    static Pod inNamespace(Pod p, String namespace) {
        p.getMetadata().setNamespace(namespace);
        return p;
    }

    /** Every pod affinity and anti-affinity term of {@code p} selects namespaces by {@code matchLabels}. */
    static Pod namespaces(Pod p, Map<String, String> matchLabels) {
        var affinity = p.getSpec().getAffinity();
        List<io.fabric8.kubernetes.api.model.PodAffinityTerm> terms = new ArrayList<>();
        if (affinity.getPodAffinity() != null) {
            terms.addAll(affinity.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution());
        }
        if (affinity.getPodAntiAffinity() != null) {
            terms.addAll(affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution());
        }
        terms.forEach(t -> t.setNamespaceSelector(
                new LabelSelectorBuilder().withMatchLabels(matchLabels).build()));
        return p;
    }

    static Pod labelled(Pod p, String key, String value) {
        p.getMetadata().getLabels().put(key, value);
        return p;
    }

    static Pod requests(Pod p, String cpu, String memory) {
        p.getSpec()
                .getContainers()
                .get(0)
                .setResources(new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                        .addToRequests("cpu", new Quantity(cpu))
                        .addToRequests("memory", new Quantity(memory))
                        .build());
        return p;
    }

    static Pod initRequests(Pod p, String cpu) {
        Container init = new ContainerBuilder()
                .withName("init")
                .withNewResources()
                .addToRequests("cpu", new Quantity(cpu))
                .endResources()
                .build();
        p.getSpec().setInitContainers(new ArrayList<>(List.of(init)));
        return p;
    }

    static Pod hostPort(Pod p, int port) {
        p.getSpec()
                .getContainers()
                .get(0)
                .setPorts(List.of(new io.fabric8.kubernetes.api.model.ContainerPortBuilder()
                        .withContainerPort(port)
                        .withHostPort(port)
                        .build()));
        return p;
    }

    static Pod nodeAffinity(Pod p, String key, String operator, String value) {
        p.getSpec()
                .setAffinity(new AffinityBuilder()
                        .withNewNodeAffinity()
                        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                        .addNewNodeSelectorTerm()
                        .addToMatchExpressions(new NodeSelectorRequirementBuilder()
                                .withKey("no-such-label")
                                .withOperator("Exists")
                                .build())
                        .endNodeSelectorTerm()
                        .addNewNodeSelectorTerm()
                        .addToMatchExpressions(new NodeSelectorRequirementBuilder()
                                .withKey(key)
                                .withOperator(operator)
                                .withValues(value)
                                .build())
                        .addToMatchExpressions(new NodeSelectorRequirementBuilder()
                                .withKey("kubernetes.io/hostname")
                                .withOperator("Exists")
                                .build())
                        .endNodeSelectorTerm()
                        .endRequiredDuringSchedulingIgnoredDuringExecution()
                        .endNodeAffinity()
                        .build());
        return p;
    }

    static final String GA_ZONE = "topology.kubernetes.io/zone";

    static PersistentVolumeClaim boundClaim(String name, String volume) {
        return new PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("ns")
                .endMetadata()
                .withNewSpec()
                .withVolumeName(volume)
                .endSpec()
                .build();
    }

    /** A volume with a zone label only (no node affinity): VolumeZone alone keeps the pod in its zone. */
    static PersistentVolume zonal(String name, String key, String zones) {
        return new PersistentVolumeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels(key, zones)
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .build();
    }

    static Pod claim(Pod p, String claim) {
        p.getSpec()
                .setVolumes(List.of(new io.fabric8.kubernetes.api.model.VolumeBuilder()
                        .withName("data")
                        .withNewPersistentVolumeClaim()
                        .withClaimName(claim)
                        .endPersistentVolumeClaim()
                        .build()));
        return p;
    }

    static Pod spread(Pod p, String key) {
        p.getSpec()
                .setTopologySpreadConstraints(List.of(new TopologySpreadConstraintBuilder()
                        .withMaxSkew(1)
                        .withTopologyKey(key)
                        .withWhenUnsatisfiable("DoNotSchedule")
                        .withLabelSelector(new LabelSelectorBuilder()
                                .addToMatchLabels("app", "web")
                                .build())
                        .build()));
        return p;
    }

    static Pod antiAffinity(Pod p, String app) {
        p.getSpec()
                .setAffinity(new AffinityBuilder()
                        .withNewPodAntiAffinity()
                        .addToRequiredDuringSchedulingIgnoredDuringExecution(new PodAffinityTermBuilder()
                                .withTopologyKey("kubernetes.io/hostname")
                                .withLabelSelector(new LabelSelectorBuilder()
                                        .addToMatchLabels("app", app)
                                        .build())
                                .build())
                        .endPodAntiAffinity()
                        .build());
        return p;
    }

    static Pod affinity(Pod p, String app) {
        p.getSpec()
                .setAffinity(new AffinityBuilder()
                        .withNewPodAffinity()
                        .addToRequiredDuringSchedulingIgnoredDuringExecution(new PodAffinityTermBuilder()
                                .withTopologyKey("kubernetes.io/hostname")
                                .withLabelSelector(new LabelSelectorBuilder()
                                        .addToMatchLabels("app", app)
                                        .build())
                                .build())
                        .endPodAffinity()
                        .build());
        return p;
    }
}
