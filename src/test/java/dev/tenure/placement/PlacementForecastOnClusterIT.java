package dev.tenure.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.placement.PlacementForecast.Drain;
import dev.tenure.placement.PlacementForecast.PodForecast;
import dev.tenure.placement.PlacementForecast.Verdict;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.SuiteCounts;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * The forecast checked against the living emulated cluster (issue 49, "Done when"): on a generated cluster, the pods
 * {@link PlacementForecast} says will not fit or are pinned when node {@value #DRAINED} is drained are exactly the pods
 * whose replacements the living cluster leaves Pending ({@code PodScheduled=False}, reason {@code Unschedulable})
 * after that node is actually drained; for a pod that does not fit, the forecast's message is the scheduler's message
 * on the Pending replacement. The two readings of kube-scheduler's filters are written apart: the forecast's plugins
 * ({@code dev.tenure.placement}) and the emulated scheduler ({@code testsupport.EmulatedScheduler}).
 *
 * <p>One try: generated nodes (cpu, memory and pod room, zones, a {@code disk} label, NoSchedule/NoExecute/
 * PreferNoSchedule taints, some cordoned) and pods (requests with init containers and overhead, tolerations including
 * the cordon's and "everything", nodeSelector, required node affinity, required pod affinity and anti-affinity,
 * DoNotSchedule topology spread on zone or hostname, hostPorts, claims bound to a local volume on the drained node, to
 * a zonal volume with node affinity, or to one with only a zone label (GA or beta key, one or two zones); owned by a ReplicaSet or bare; other pods elsewhere, some Failed, some in a second
 * namespace). Both namespaces may carry a team label, and each affinity or anti-affinity term reaches the owner's
 * namespace, a namespace it names, every namespace ({@code namespaceSelector: {}}), the namespaces of one team, or a
 * namespace named or of a team: the forecast reads the namespaces' labels as the operator does, the emulated scheduler
 * from its own store. They are written to an emulated
 * cluster; the forecast is made from what the API server serves back; then the node is drained as a drain does it
 * (cordoned; its pods listed by {@code spec.nodeName} and evicted through the Eviction API, in the order the forecast
 * takes them), and only then does the namespace come alive: the ReplicaSet controller recreates each evicted replica
 * and the emulated scheduler places the replacements one by one or marks them Unschedulable.
 *
 * <p>Order: the forecast places replacements in wave order and asks "fits somewhere"; the scheduler places them one by
 * one, in its own order, on a node of its choice. The comparison is made honest by generating only clusters where
 * neither the order nor the choice can change the answer: each evicted pod is its own workload (group label
 * {@code g=e<i>}: spread, its anti-affinity and other pods' anti-affinity select one group, so no replacement counts in
 * another's constraints), its hostPort is its own, affinity targets ({@code t=...}) are carried only by pods that stay,
 * and every node either has room for all the replacements together (cpu, memory, pod count) or for none of them (less
 * free room than the smallest replacement, or no pod slot). The drained node had room for all of them, so replacements
 * that tolerate the cordon may go back to it in any number. What the forecast adds when several drains share room is
 * covered by {@code PlacementForecastTest} and the invariants of {@code PlacementForecastPropertyTest}.
 *
 * <p>Tries: {@value SuiteCounts#PLACEMENT_CLUSTER_TRIES_PROPERTY} ({@link SuiteCounts#PLACEMENT_CLUSTER_TRIES} in
 * {@code make test}, one emulated cluster each; {@code make chaos} passes {@code PLACEMENT_CLUSTER_TRIES}). A failure
 * prints jqwik's seed and the generated case; {@code @Property(seed = "<seed>")} replays it.
 */
@EndToEnd
class PlacementForecastOnClusterIT {

    static final String NS = "shop";
    /** A second namespace, for pods that stay: reached only by terms that name or select it. */
    static final String LAB = "lab";
    /** The namespaces' label that terms' {@code namespaceSelector} select by. */
    static final String TEAM = "team";

    private static final String[] TEAMS = {"red", "blue"};
    static final String DRAINED = "n0";
    static final String ZONE = "topology.kubernetes.io/zone";
    static final String HOSTNAME = "kubernetes.io/hostname";
    static final String CORDON = "node.kubernetes.io/unschedulable";
    private static final String[] ZONES = {"a", "b", "c"};

    /** The tries from {@value SuiteCounts#PLACEMENT_CLUSTER_TRIES_PROPERTY}, not the pom's jqwik default. */
    public static final class Tries implements AroundPropertyHook {
        @Override
        public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
            context.attributes()
                    .setTries(SuiteCounts.of(
                            SuiteCounts.PLACEMENT_CLUSTER_TRIES_PROPERTY, SuiteCounts.PLACEMENT_CLUSTER_TRIES));
            return property.execute();
        }

        /** Outermost: the tries are read when the property starts. */
        @Override
        public int aroundPropertyProximity() {
            return -100;
        }
    }

    /** A generated cluster: nodes, the pods on the drained node (evicted in this order), the rest, volumes. */
    record Case(
            long seed,
            List<io.fabric8.kubernetes.api.model.Namespace> namespaces,
            List<Node> nodes,
            List<Pod> evicted,
            List<Pod> others,
            List<ReplicaSet> replicaSets,
            List<PersistentVolume> volumes,
            List<PersistentVolumeClaim> claims) {

        String describe() {
            StringBuilder b = new StringBuilder("seed " + seed + "\n");
            namespaces.forEach(n -> b.append("  namespace ")
                    .append(n.getMetadata().getName())
                    .append(' ')
                    .append(n.getMetadata().getLabels())
                    .append('\n'));
            nodes.forEach(n -> b.append("  node ")
                    .append(n.getMetadata().getName())
                    .append(' ')
                    .append(new TreeMap<>(n.getMetadata().getLabels()))
                    .append(" alloc=")
                    .append(n.getStatus().getAllocatable())
                    .append(" taints=")
                    .append(n.getSpec().getTaints())
                    .append(" unschedulable=")
                    .append(n.getSpec().getUnschedulable())
                    .append('\n'));
            evicted.forEach(p -> b.append("  evict ").append(pod(p)).append('\n'));
            others.forEach(p -> b.append("  other ").append(pod(p)).append('\n'));
            volumes.forEach(v -> b.append("  pv ")
                    .append(v.getMetadata().getName())
                    .append(' ')
                    .append(v.getSpec().getNodeAffinity())
                    .append('\n'));
            return b.toString();
        }

        private static String pod(Pod p) {
            PodSpec s = p.getSpec();
            return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName() + " on " + s.getNodeName()
                    + " labels="
                    + p.getMetadata().getLabels()
                    + " owned=" + !p.getMetadata().getOwnerReferences().isEmpty()
                    + " containers=" + s.getContainers() + " init=" + s.getInitContainers() + " overhead="
                    + s.getOverhead() + " tolerations=" + s.getTolerations() + " nodeSelector=" + s.getNodeSelector()
                    + " affinity=" + s.getAffinity() + " spread=" + s.getTopologySpreadConstraints() + " volumes="
                    + s.getVolumes() + " phase=" + p.getStatus().getPhase();
        }
    }

    @Property(shrinking = ShrinkingMode.OFF)
    @AddLifecycleHook(Tries.class)
    void theForecastsStrandedPodsAreThePodsTheDrainLeavesPending(@ForAll long seed) {
        Case c = generate(seed);
        try (EmulatedCluster cluster = EmulatedCluster.start(
                EmulatedCluster.Options.forTests().gracePeriodScale(0).controllerInterval(Duration.ofMillis(10)))) {
            c.namespaces().forEach(cluster.seed()::object);
            c.nodes().forEach(cluster.seed()::object);
            c.volumes().forEach(cluster.seed()::object);
            c.claims().forEach(cluster.seed()::object);
            Map<String, String> replicaSetUids = new HashMap<>();
            c.replicaSets()
                    .forEach(rs -> replicaSetUids.put(
                            rs.getMetadata().getName(),
                            cluster.seed().object(rs).getMetadata().getUid()));
            for (Pod p : c.evicted()) {
                p.getMetadata().getOwnerReferences().forEach(o -> o.setUid(replicaSetUids.get(o.getName())));
                cluster.seed().object(p);
            }
            c.others().forEach(cluster.seed()::object);
            KubernetesClient client = cluster.client();

            // the forecast, from what the API server serves (as the operator reads it)
            List<Pod> served = client.pods().inAnyNamespace().list().getItems();
            Map<String, Map<String, String>> namespaceLabels = new HashMap<>();
            client.namespaces()
                    .list()
                    .getItems()
                    .forEach(n -> namespaceLabels.put(
                            n.getMetadata().getName(),
                            n.getMetadata().getLabels() == null
                                    ? Map.of()
                                    : n.getMetadata().getLabels()));
            List<Pod> onNode =
                    client.pods().inAnyNamespace().withField("spec.nodeName", DRAINED).list().getItems().stream()
                            .filter(p -> !"Failed".equals(p.getStatus().getPhase()))
                            .toList();
            Map<String, Pod> byName = new HashMap<>();
            onNode.forEach(p -> byName.put(p.getMetadata().getName(), p));
            List<Pod> evictions = c.evicted().stream()
                    .map(p -> byName.get(p.getMetadata().getName()))
                    .toList();
            assertThat(evictions)
                    .as("the drained node's pods, listed by spec.nodeName")
                    .doesNotContainNull();
            assertThat(onNode).hasSameSizeAs(c.evicted());
            PlacementForecast forecast = PlacementForecast.of(
                    PlacementCluster.of(
                            client.nodes().list().getItems(),
                            served,
                            client.persistentVolumes().list().getItems(),
                            client.persistentVolumeClaims()
                                    .inAnyNamespace()
                                    .list()
                                    .getItems(),
                            namespaceLabels),
                    List.of(new Drain(DRAINED, evictions)),
                    List.of());

            // the drain: cordon, evict every pod the plan evicts, in its order
            client.nodes()
                    .withName(DRAINED)
                    .edit(n -> new NodeBuilder(n)
                            .editSpec()
                            .withUnschedulable(true)
                            .endSpec()
                            .build());
            for (Pod p : evictions) {
                assertThat(client.pods()
                                .inNamespace(NS)
                                .withName(p.getMetadata().getName())
                                .evict())
                        .as("eviction of %s", p.getMetadata().getName())
                        .isTrue();
            }
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() ->
                            client.pods().inNamespace(NS).withField("spec.nodeName", DRAINED).list().getItems().stream()
                                    .noneMatch(
                                            p -> !"Failed".equals(p.getStatus().getPhase())));

            // the cluster lives: replicas recreated, replacements scheduled or marked Unschedulable
            Map<String, Pod> replacements;
            try (EmulatedCluster.Living living = cluster.living(NS, Duration.ZERO)) {
                replacements = await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(10))
                        .until(() -> decided(client, c), Optional::isPresent)
                        .orElseThrow();
            }

            Map<String, String> pending = new TreeMap<>();
            replacements.forEach((evicted, replacement) ->
                    unschedulable(replacement).ifPresent(condition -> pending.put(evicted, condition.getMessage())));
            Map<String, String> stranded = new TreeMap<>();
            forecast.stranded().forEach(p -> stranded.put(p.name(), p.message()));
            assertThat(stranded.keySet())
                    .as(
                            "the forecast's stranded pods (%s) vs the replacements left Pending (%s)\n%s",
                            stranded, pending, c.describe())
                    .isEqualTo(pending.keySet());
            for (PodForecast p : forecast.doesNotFit()) {
                assertThat(p.message())
                        .as("the scheduler's message for %s\n%s", p.name(), c.describe())
                        .isEqualTo(pending.get(p.name()));
            }
            for (PodForecast p : forecast.pods()) {
                boolean owned = c.replicaSets().stream()
                        .anyMatch(rs -> rs.getMetadata().getName().equals(replicaSetOf(p.name())));
                assertThat(p.verdict() == Verdict.NOT_RECREATED)
                        .as("%s: not recreated exactly when bare", p.name())
                        .isEqualTo(!owned);
            }
        }
    }

    /**
     * Each evicted replica's replacement (by the evicted pod's name), once every one is bound or marked Unschedulable.
     */
    private static Optional<Map<String, Pod>> decided(KubernetesClient client, Case c) {
        Map<String, Pod> out = new LinkedHashMap<>();
        List<Pod> pods = client.pods().inNamespace(NS).list().getItems();
        for (ReplicaSet rs : c.replicaSets()) {
            String evicted = rs.getMetadata().getName().substring("rs-".length());
            List<Pod> owned = pods.stream()
                    .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                    .filter(p -> p.getMetadata().getOwnerReferences().stream()
                            .anyMatch(o -> o.getName().equals(rs.getMetadata().getName())))
                    .toList();
            if (owned.size() != 1) {
                return Optional.empty();
            }
            Pod p = owned.get(0);
            boolean bound = p.getSpec().getNodeName() != null
                    && !p.getSpec().getNodeName().isEmpty();
            if (!bound && unschedulable(p).isEmpty()) {
                return Optional.empty();
            }
            out.put(evicted, p);
        }
        return Optional.of(out);
    }

    private static Optional<PodCondition> unschedulable(Pod p) {
        if (p.getStatus() == null || p.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return p.getStatus().getConditions().stream()
                .filter(x -> "PodScheduled".equals(x.getType())
                        && "False".equals(x.getStatus())
                        && "Unschedulable".equals(x.getReason()))
                .findFirst();
    }

    private static String replicaSetOf(String evictedPod) {
        return "rs-" + evictedPod;
    }

    // ---- the generator ---------------------------------------------------------------------------------------------

    /** Requests of one pod as the scheduler sums them: max(containers, init container) + overhead; cpu m, memory Mi. */
    private record Want(int cpu, int memory) {}

    static Case generate(long seed) {
        Random r = new Random(seed);
        List<io.fabric8.kubernetes.api.model.Namespace> namespaces = new ArrayList<>();
        for (String ns : List.of(NS, LAB)) {
            Map<String, String> labels = new HashMap<>();
            if (r.nextInt(4) > 0) {
                labels.put(TEAM, TEAMS[r.nextInt(TEAMS.length)]);
            }
            namespaces.add(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                    .withNewMetadata()
                    .withName(ns)
                    .withLabels(labels)
                    .endMetadata()
                    .withNewStatus()
                    .withPhase("Active")
                    .endStatus()
                    .build());
        }
        int nodeCount = 2 + r.nextInt(5);
        int evictedCount = r.nextInt(6);
        List<String> zoneOf = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            zoneOf.add(ZONES[r.nextInt(ZONES.length)]);
        }

        List<Pod> evicted = new ArrayList<>();
        List<ReplicaSet> replicaSets = new ArrayList<>();
        List<PersistentVolume> volumes = new ArrayList<>();
        List<PersistentVolumeClaim> claims = new ArrayList<>();
        int sumCpu = 0;
        int sumMemory = 0;
        int minCpu = Integer.MAX_VALUE;
        int minMemory = Integer.MAX_VALUE;
        for (int i = 0; i < evictedCount; i++) {
            String name = "e" + i;
            PodBuilder b = basePod(name, DRAINED, Map.of("g", name));
            Want want = requests(r, b);
            sumCpu += want.cpu();
            sumMemory += want.memory();
            minCpu = Math.min(minCpu, want.cpu());
            minMemory = Math.min(minMemory, want.memory());
            List<Toleration> tolerations = new ArrayList<>();
            if (r.nextInt(3) == 0) {
                tolerations.add(new Toleration("", "k", "Equal", null, "v"));
            }
            if (r.nextInt(12) == 0) {
                tolerations.add(new Toleration(null, null, "Exists", null, null)); // tolerates everything
            }
            if (r.nextInt(12) == 0) {
                tolerations.add(new Toleration("NoSchedule", CORDON, "Exists", null, null));
            }
            b.editSpec().withTolerations(tolerations).endSpec();
            if (r.nextInt(5) == 0) {
                b.editSpec()
                        .withNodeSelector(r.nextBoolean() ? Map.of(ZONE, ZONES[r.nextInt(3)]) : Map.of("disk", "ssd"))
                        .endSpec();
            }
            if (r.nextInt(6) == 0) {
                var requirement = r.nextBoolean()
                        ? new NodeSelectorRequirementBuilder()
                                .withKey(ZONE)
                                .withOperator("In")
                                .withValues(ZONES[r.nextInt(3)], ZONES[r.nextInt(3)])
                                .build()
                        : new NodeSelectorRequirementBuilder()
                                .withKey(HOSTNAME)
                                .withOperator("NotIn")
                                .withValues("n" + (1 + r.nextInt(nodeCount - 1)))
                                .build();
                b.editSpec()
                        .editOrNewAffinity()
                        .editOrNewNodeAffinity()
                        .editOrNewRequiredDuringSchedulingIgnoredDuringExecution()
                        .withNodeSelectorTerms(new NodeSelectorTermBuilder()
                                .withMatchExpressions(requirement)
                                .build())
                        .endRequiredDuringSchedulingIgnoredDuringExecution()
                        .endNodeAffinity()
                        .endAffinity()
                        .endSpec();
            }
            if (r.nextInt(5) == 0) {
                hostPort(b, 8000 + i);
            }
            if (r.nextInt(4) == 0) {
                b.editSpec()
                        .withTopologySpreadConstraints(new TopologySpreadConstraintBuilder()
                                .withMaxSkew(1 + r.nextInt(2))
                                .withTopologyKey(r.nextInt(3) == 0 ? HOSTNAME : ZONE)
                                .withWhenUnsatisfiable("DoNotSchedule")
                                .withLabelSelector(new LabelSelectorBuilder()
                                        .withMatchLabels(Map.of("g", name))
                                        .build())
                                .build())
                        .endSpec();
            }
            if (r.nextInt(6) == 0) {
                b.editSpec()
                        .editOrNewAffinity()
                        .editOrNewPodAffinity()
                        .withRequiredDuringSchedulingIgnoredDuringExecution(term(r, "t", r.nextBoolean() ? "p" : "q"))
                        .endPodAffinity()
                        .endAffinity()
                        .endSpec();
            }
            if (r.nextInt(6) == 0) {
                b.editSpec()
                        .editOrNewAffinity()
                        .editOrNewPodAntiAffinity()
                        .withRequiredDuringSchedulingIgnoredDuringExecution(term(r, "g", name))
                        .endPodAntiAffinity()
                        .endAffinity()
                        .endSpec();
            }
            // 0: local volume on the drained node; 1: zonal volume by node affinity (and zone label); 2: zonal volume
            // by its zone label only (VolumeZone alone), GA or beta key, one zone or two joined by "__"
            int volume = r.nextInt(9);
            if (volume <= 2) {
                String pv = "pv-" + name;
                String zone = ZONES[r.nextInt(3)];
                PersistentVolumeBuilder v = new PersistentVolumeBuilder()
                        .withNewMetadata()
                        .withName(pv)
                        .endMetadata()
                        .withNewSpec()
                        .addToCapacity("storage", new Quantity("1Gi"))
                        .withAccessModes("ReadWriteOnce")
                        .withNewClaimRef()
                        .withNamespace(NS)
                        .withName("data-" + name)
                        .endClaimRef()
                        .endSpec();
                if (volume <= 1) {
                    var affinity = volume == 0
                            ? new NodeSelectorRequirementBuilder()
                                    .withKey(HOSTNAME)
                                    .withOperator("In")
                                    .withValues(DRAINED)
                                    .build()
                            : new NodeSelectorRequirementBuilder()
                                    .withKey(ZONE)
                                    .withOperator("In")
                                    .withValues(zone)
                                    .build();
                    v.editSpec()
                            .withNewNodeAffinity()
                            .withNewRequired()
                            .withNodeSelectorTerms(new NodeSelectorTermBuilder()
                                    .withMatchExpressions(affinity)
                                    .build())
                            .endRequired()
                            .endNodeAffinity()
                            .endSpec();
                }
                if (volume == 0) {
                    v.editSpec()
                            .withNewLocal()
                            .withPath("/mnt/disks/" + name)
                            .endLocal()
                            .endSpec();
                } else {
                    String key = volume == 2 && r.nextBoolean() ? "failure-domain.beta.kubernetes.io/zone" : ZONE;
                    String zones = volume == 2 && r.nextBoolean() ? zone + "__" + ZONES[r.nextInt(3)] : zone;
                    v.editMetadata()
                            .withLabels(Map.of(key, zones))
                            .endMetadata()
                            .editSpec()
                            .withNewCsi()
                            .withDriver("pd.csi.example.com")
                            .withVolumeHandle(pv)
                            .endCsi()
                            .endSpec();
                }
                volumes.add(v.build());
                claims.add(new PersistentVolumeClaimBuilder()
                        .withNewMetadata()
                        .withNamespace(NS)
                        .withName("data-" + name)
                        .endMetadata()
                        .withNewSpec()
                        .withAccessModes("ReadWriteOnce")
                        .withVolumeName(pv)
                        .withNewResources()
                        .addToRequests("storage", new Quantity("1Gi"))
                        .endResources()
                        .endSpec()
                        .withNewStatus()
                        .withPhase("Bound")
                        .endStatus()
                        .build());
                b.editSpec()
                        .addNewVolume()
                        .withName("data")
                        .withNewPersistentVolumeClaim()
                        .withClaimName("data-" + name)
                        .endPersistentVolumeClaim()
                        .endVolume()
                        .endSpec();
            }
            if (r.nextInt(8) != 0) { // else bare: nothing recreates it
                String rsName = replicaSetOf(name);
                b.editMetadata()
                        .withOwnerReferences(new OwnerReferenceBuilder()
                                .withApiVersion("apps/v1")
                                .withKind("ReplicaSet")
                                .withName(rsName)
                                .withUid("set-when-created")
                                .withController(true)
                                .build())
                        .endMetadata();
                Pod template = b.build();
                PodSpec spec = new PodBuilder(template).build().getSpec();
                spec.setNodeName(null);
                replicaSets.add(new ReplicaSetBuilder()
                        .withNewMetadata()
                        .withNamespace(NS)
                        .withName(rsName)
                        .endMetadata()
                        .withNewSpec()
                        .withReplicas(1)
                        .withNewSelector()
                        .withMatchLabels(Map.of("g", name))
                        .endSelector()
                        .withNewTemplate()
                        .withNewMetadata()
                        .withLabels(Map.of("g", name))
                        .endMetadata()
                        .withSpec(spec)
                        .endTemplate()
                        .endSpec()
                        .build());
            }
            evicted.add(b.build());
        }
        Collections.shuffle(evicted, r);

        // pods that stay, on the other nodes: the groups' other members, affinity targets, ports, anti-affinity
        List<Pod> others = new ArrayList<>();
        Map<String, Want> used = new HashMap<>();
        Map<String, Integer> podCount = new HashMap<>();
        int otherCount = nodeCount == 1 ? 0 : r.nextInt(12);
        for (int i = 0; i < otherCount; i++) {
            String node = "n" + (1 + r.nextInt(nodeCount - 1));
            Map<String, String> labels = new HashMap<>();
            labels.put("g", evictedCount > 0 && r.nextInt(3) > 0 ? "e" + r.nextInt(evictedCount) : "none");
            if (r.nextInt(3) == 0) {
                labels.put("t", r.nextBoolean() ? "p" : "q");
            }
            PodBuilder b = basePod("o" + i, node, labels);
            if (r.nextInt(3) == 0) {
                b.editMetadata().withNamespace(LAB).endMetadata(); // counted only by terms that reach its namespace
            }
            Want want = requests(r, b);
            if (r.nextInt(6) == 0) {
                hostPort(b, 8000 + r.nextInt(Math.max(1, evictedCount)));
            }
            if (evictedCount > 0 && r.nextInt(8) == 0) {
                b.editSpec()
                        .editOrNewAffinity()
                        .editOrNewPodAntiAffinity()
                        .withRequiredDuringSchedulingIgnoredDuringExecution(term(r, "g", "e" + r.nextInt(evictedCount)))
                        .endPodAntiAffinity()
                        .endAffinity()
                        .endSpec();
            }
            if (r.nextInt(10) == 0) {
                b.editStatus().withPhase("Failed").endStatus(); // takes no room in either reading
            } else {
                used.merge(node, want, (a, w) -> new Want(a.cpu() + w.cpu(), a.memory() + w.memory()));
                podCount.merge(node, 1, Integer::sum);
            }
            others.add(b.build());
        }

        // every node has room for all the replacements together, or for none of them
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            String name = "n" + i;
            Want u = used.getOrDefault(name, new Want(0, 0));
            int pods = podCount.getOrDefault(name, 0);
            int cpu;
            int memory;
            int slots;
            if (i == 0) {
                cpu = sumCpu + r.nextInt(3);
                memory = sumMemory + r.nextInt(3);
                slots = evictedCount + r.nextInt(3);
            } else {
                boolean cpuRoom = r.nextInt(4) > 0;
                boolean memoryRoom = r.nextInt(4) > 0;
                boolean slotRoom = r.nextInt(5) > 0;
                cpu = u.cpu() + (cpuRoom || evictedCount == 0 ? sumCpu + r.nextInt(3) : r.nextInt(minCpu));
                memory = u.memory()
                        + (memoryRoom || evictedCount == 0 ? sumMemory + r.nextInt(3) : r.nextInt(minMemory));
                slots = pods + (slotRoom ? evictedCount + r.nextInt(2) : 0);
            }
            Map<String, String> labels = new HashMap<>();
            labels.put(HOSTNAME, name);
            if (r.nextInt(10) > 0) {
                labels.put(ZONE, zoneOf.get(i));
            }
            if (r.nextBoolean()) {
                labels.put("disk", "ssd");
            }
            List<Taint> taints = new ArrayList<>();
            if (r.nextInt(5) == 0) {
                taints.add(new Taint(r.nextBoolean() ? "NoSchedule" : "NoExecute", "k", null, "v"));
            }
            if (r.nextInt(10) == 0) {
                taints.add(new Taint("PreferNoSchedule", "soft", null, "x"));
            }
            nodes.add(new NodeBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withLabels(labels)
                    .endMetadata()
                    .withNewSpec()
                    .withTaints(taints)
                    .withUnschedulable((i > 0 && r.nextInt(8) == 0) ? Boolean.TRUE : null)
                    .endSpec()
                    .withNewStatus()
                    .addNewCondition()
                    .withType("Ready")
                    .withStatus("True")
                    .endCondition()
                    .addToAllocatable("cpu", new Quantity(cpu + "m"))
                    .addToAllocatable("memory", new Quantity(memory + "Mi"))
                    .addToAllocatable("pods", new Quantity(String.valueOf(slots)))
                    .endStatus()
                    .build());
        }
        return new Case(seed, namespaces, nodes, evicted, others, replicaSets, volumes, claims);
    }

    private static PodBuilder basePod(String name, String node, Map<String, String> labels) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(NS)
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .withTerminationGracePeriodSeconds(0L)
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .endStatus();
    }

    /** Containers (one or two), maybe a larger init container, maybe overhead; what the scheduler adds up. */
    private static Want requests(Random r, PodBuilder b) {
        int containers = 1 + r.nextInt(2);
        int cpu = 0;
        int memory = 0;
        for (int c = 0; c < containers; c++) {
            // the first container asks for some cpu and memory, so that "no room" can be generated for every pod
            int cc = c == 0 ? 1 + r.nextInt(3) : r.nextInt(4);
            int cm = c == 0 ? 1 + r.nextInt(3) : r.nextInt(4);
            cpu += cc;
            memory += cm;
            b.editSpec()
                    .addToContainers(new ContainerBuilder()
                            .withName("c" + c)
                            .withImage("example/app")
                            .withNewResources()
                            .addToRequests("cpu", new Quantity(cc + "m"))
                            .addToRequests("memory", new Quantity(cm + "Mi"))
                            .endResources()
                            .build())
                    .endSpec();
        }
        if (r.nextInt(6) == 0) {
            int ic = r.nextInt(6);
            int im = r.nextInt(6);
            cpu = Math.max(cpu, ic);
            memory = Math.max(memory, im);
            b.editSpec()
                    .addToInitContainers(new ContainerBuilder()
                            .withName("init")
                            .withImage("example/init")
                            .withNewResources()
                            .addToRequests("cpu", new Quantity(ic + "m"))
                            .addToRequests("memory", new Quantity(im + "Mi"))
                            .endResources()
                            .build())
                    .endSpec();
        }
        if (r.nextInt(8) == 0) {
            cpu += 1;
            b.editSpec().addToOverhead("cpu", new Quantity("1m")).endSpec();
        }
        return new Want(cpu, memory);
    }

    private static void hostPort(PodBuilder b, int port) {
        b.editSpec()
                .editFirstContainer()
                .addNewPort()
                .withContainerPort(port)
                .withHostPort(port)
                .endPort()
                .endContainer()
                .endSpec();
    }

    /**
     * A required term selecting {@code key=value} by zone or hostname, over the owner's namespace, a namespace named,
     * every namespace ({@code namespaceSelector: {}}), the namespaces labelled with a team, or a namespace named or
     * labelled.
     */
    private static io.fabric8.kubernetes.api.model.PodAffinityTerm term(Random r, String key, String value) {
        PodAffinityTermBuilder b = new PodAffinityTermBuilder()
                .withTopologyKey(r.nextBoolean() ? ZONE : HOSTNAME)
                .withLabelSelector(new LabelSelectorBuilder()
                        .withMatchLabels(Map.of(key, value))
                        .build());
        int scope = r.nextInt(6);
        if (scope == 2 || scope == 5) {
            b.withNamespaces(r.nextBoolean() ? NS : LAB);
        }
        if (scope == 3) {
            b.withNamespaceSelector(new LabelSelectorBuilder().build());
        }
        if (scope == 4 || scope == 5) {
            b.withNamespaceSelector(new LabelSelectorBuilder()
                    .withMatchLabels(Map.of(TEAM, TEAMS[r.nextInt(TEAMS.length)]))
                    .build());
        }
        return b.build();
    }
}
