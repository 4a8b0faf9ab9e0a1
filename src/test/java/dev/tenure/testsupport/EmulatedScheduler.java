package dev.tenure.testsupport;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.Volume;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The living cluster's scheduler: kube-scheduler's default filter plugins as this test double reads them
 * (pkg/scheduler/framework/plugins), written apart from the operator's placement forecast so that comparing the two
 * compares two readings of the scheduler's rules. Per node the filters run in the default profile's order and the
 * first that fails names the node's reason (framework RunFilterPlugins); a pod that fits no node gets the
 * scheduler's message, {@code 0/N nodes are available: <count> <reason>, ...} with the reasons sorted (the preemption
 * sentence upstream appends is left out: there is no preemption here).
 *
 * <ol>
 *   <li>NodeUnschedulable: {@code spec.unschedulable} unless tolerated ("node(s) were unschedulable");
 *   <li>the NotReady node: upstream the node lifecycle controller taints it {@code node.kubernetes.io/not-ready}; here
 *       a node whose Ready condition is not True counts as carrying that NoSchedule taint;
 *   <li>TaintToleration: an untolerated NoSchedule or NoExecute taint ("node(s) had untolerated taint {key: value}");
 *   <li>NodeAffinity: nodeSelector and required node affinity, terms ORed, expressions ANDed, operators In, NotIn,
 *       Exists, DoesNotExist, Gt, Lt; matchFields metadata.name ("node(s) didn't match Pod's node affinity/selector");
 *   <li>NodePorts: a hostPort (protocol, port, hostIP with 0.0.0.0 as any) already used on the node ("node(s) didn't
 *       have free ports for the requested pod ports");
 *   <li>NodeResourcesFit: the pod's request = max(sum of containers, largest init container) + overhead, against
 *       allocatable minus what the pods bound there request; the pod count against allocatable pods ("Insufficient
 *       cpu", "Insufficient memory", "Too many pods"; each insufficient resource counted);
 *   <li>VolumeBinding: a claim bound to a PersistentVolume whose required node affinity the node does not match
 *       ("node(s) had volume node affinity conflict"); a missing claim: "persistentvolumeclaim "x" not found";
 *   <li>VolumeZone: a bound volume's zone/region labels must name the node's, on a node that carries any ("node(s)
 *       had no available volume zone");
 *   <li>PodTopologySpread, DoNotSchedule constraints: count the matching pods of the namespace per domain over the
 *       nodes that pass the pod's node affinity (nodeAffinityPolicy Honor) and carry the key (taints ignored,
 *       nodeTaintsPolicy Ignore, the defaults); a node whose domain would exceed maxSkew over the least-filled domain
 *       fails ("node(s) didn't match pod topology spread constraints"), a node without the key too ("... (missing
 *       required label)");
 *   <li>InterPodAffinity, required terms: affinity needs a matching pod in the node's domain (or none anywhere, when
 *       the pod matches its own term); anti-affinity none; existing pods' anti-affinity applies back ("node(s) didn't
 *       match pod affinity rules", "node(s) didn't match pod anti-affinity rules", "node(s) didn't satisfy existing
 *       pods anti-affinity rules").
 * </ol>
 *
 * Not emulated: preemption, scoring beyond "fewest pods first", extended resources, minDomains, matchLabelKeys,
 * volume limits and zones of dynamic provisioning.
 *
 * <p>An affinity term's namespaces: the ones it names, or, with a {@code namespaceSelector}, also every namespace whose
 * labels the selector matches ({@code {}}: all; a namespace the cluster does not hold has no labels); with neither, the
 * term owner's own namespace.
 */
final class EmulatedScheduler {
    static final Taint NOT_READY = new Taint("NoSchedule", "node.kubernetes.io/not-ready", null, null);
    static final Taint UNSCHEDULABLE = new Taint("NoSchedule", "node.kubernetes.io/unschedulable", null, null);

    private EmulatedScheduler() {}

    /** Where the pod goes, or why it goes nowhere. */
    sealed interface Decision permits Bind, Unschedulable {}

    record Bind(String nodeName) implements Decision {}

    record Unschedulable(String message) implements Decision {}

    /**
     * What the filters read besides nodes and pods: claims by "namespace/name", volumes by name, namespace labels by
     * namespace name (a namespace not held: no labels).
     */
    record Reads(
            Function<String, Optional<PersistentVolumeClaim>> claims,
            Function<String, Optional<PersistentVolume>> volumes,
            Function<String, Map<String, String>> namespaceLabels) {
        Reads(
                Function<String, Optional<PersistentVolumeClaim>> claims,
                Function<String, Optional<PersistentVolume>> volumes) {
            this(claims, volumes, ns -> Map.of());
        }

        static Reads none() {
            return new Reads(k -> Optional.empty(), k -> Optional.empty());
        }
    }

    /**
     * The node for {@code pod} among {@code nodes}, given the pods bound now ({@code bound}: active pods with a node);
     * ties go to the node with the fewest pods, then by name.
     */
    static Decision schedule(Pod pod, List<Node> nodes, List<Pod> bound, Reads volumes) {
        Map<String, List<Pod>> byNode = new HashMap<>();
        bound.forEach(p -> byNode.computeIfAbsent(p.getSpec().getNodeName(), n -> new ArrayList<>())
                .add(p));
        Map<String, Integer> reasons = new TreeMap<>();
        Node best = null;
        for (Node node : nodes) {
            List<String> failed = filter(pod, node, nodes, byNode, bound, volumes);
            if (failed.isEmpty()) {
                if (best == null || load(byNode, node) < load(byNode, best)) {
                    best = node;
                }
            } else {
                failed.forEach(r -> reasons.merge(r, 1, Integer::sum));
            }
        }
        if (best != null) {
            return new Bind(best.getMetadata().getName());
        }
        List<String> parts = new ArrayList<>();
        reasons.forEach((reason, count) -> parts.add(count + " " + reason));
        java.util.Collections.sort(parts); // framework FitError.Error: sort.Strings over "<count> <reason>"
        return new Unschedulable("0/" + nodes.size() + " nodes are available: " + String.join(", ", parts) + ".");
    }

    private static int load(Map<String, List<Pod>> byNode, Node node) {
        return byNode.getOrDefault(node.getMetadata().getName(), List.of()).size();
    }

    /** The reasons {@code node} fails, from the first failing filter; empty when it fits. */
    static List<String> filter(
            Pod pod, Node node, List<Node> nodes, Map<String, List<Pod>> byNode, List<Pod> bound, Reads volumes) {
        List<Pod> onNode = byNode.getOrDefault(node.getMetadata().getName(), List.of());
        if (node.getSpec() != null
                && Boolean.TRUE.equals(node.getSpec().getUnschedulable())
                && tolerations(pod).stream().noneMatch(t -> LivingCluster.tolerates(t, UNSCHEDULABLE))) {
            return List.of("node(s) were unschedulable");
        }
        Optional<Taint> untolerated = taints(node).stream()
                .filter(t -> "NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect()))
                .filter(t -> tolerations(pod).stream().noneMatch(tol -> LivingCluster.tolerates(tol, t)))
                .findFirst();
        if (untolerated.isPresent()) {
            Taint t = untolerated.get();
            return List.of("node(s) had untolerated taint {" + t.getKey() + ": "
                    + (t.getValue() == null ? "" : t.getValue()) + "}");
        }
        if (!matchesNodeAffinity(pod, node)) {
            return List.of("node(s) didn't match Pod's node affinity/selector");
        }
        if (portsTaken(pod, onNode)) {
            return List.of("node(s) didn't have free ports for the requested pod ports");
        }
        List<String> insufficient = insufficient(pod, node, onNode);
        if (!insufficient.isEmpty()) {
            return insufficient;
        }
        Optional<String> volume = volumeConflict(pod, node, volumes);
        if (volume.isPresent()) {
            return List.of(volume.get());
        }
        if (!inVolumeZones(pod, node, volumes)) {
            return List.of("node(s) had no available volume zone");
        }
        Optional<String> spread = spreadFails(pod, node, nodes, byNode);
        if (spread.isPresent()) {
            return List.of(spread.get());
        }
        return interPodAffinity(pod, node, nodes, bound, volumes.namespaceLabels())
                .map(List::of)
                .orElse(List.of());
    }

    // ---- TaintToleration --------------------------------------------------------------------------------------------

    private static List<Taint> taints(Node node) {
        List<Taint> taints = new ArrayList<>(
                node.getSpec() == null || node.getSpec().getTaints() == null
                        ? List.of()
                        : node.getSpec().getTaints());
        boolean ready = node.getStatus() != null
                && node.getStatus().getConditions() != null
                && node.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        if (!ready) {
            taints.add(NOT_READY);
        }
        return taints;
    }

    private static List<Toleration> tolerations(Pod pod) {
        return pod.getSpec().getTolerations() == null
                ? List.of()
                : pod.getSpec().getTolerations();
    }

    // ---- NodeAffinity -----------------------------------------------------------------------------------------------

    /** nodeSelector and required node affinity (pkg/scheduler/framework/plugins/nodeaffinity, component-helpers). */
    static boolean matchesNodeAffinity(Pod pod, Node node) {
        Map<String, String> labels = labels(node.getMetadata().getLabels());
        Map<String, String> selector = pod.getSpec().getNodeSelector();
        if (selector != null
                && !selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
            return false;
        }
        var affinity = pod.getSpec().getAffinity();
        if (affinity == null
                || affinity.getNodeAffinity() == null
                || affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
            return true;
        }
        return matchesTerms(
                affinity.getNodeAffinity()
                        .getRequiredDuringSchedulingIgnoredDuringExecution()
                        .getNodeSelectorTerms(),
                node);
    }

    /** NodeSelectorTerms: ORed; an empty list matches nothing; a term with no requirement matches nothing. */
    static boolean matchesTerms(List<NodeSelectorTerm> terms, Node node) {
        Map<String, String> labels = labels(node.getMetadata().getLabels());
        for (NodeSelectorTerm term : terms == null ? List.<NodeSelectorTerm>of() : terms) {
            List<NodeSelectorRequirement> expressions =
                    term.getMatchExpressions() == null ? List.of() : term.getMatchExpressions();
            List<NodeSelectorRequirement> fields = term.getMatchFields() == null ? List.of() : term.getMatchFields();
            if (expressions.isEmpty() && fields.isEmpty()) {
                continue;
            }
            boolean all = expressions.stream().allMatch(r -> requirement(r, labels.get(r.getKey())))
                    && fields.stream()
                            .allMatch(r -> "metadata.name".equals(r.getKey())
                                    && requirement(r, node.getMetadata().getName()));
            if (all) {
                return true;
            }
        }
        return false;
    }

    private static boolean requirement(NodeSelectorRequirement r, String value) {
        List<String> values = r.getValues() == null ? List.of() : r.getValues();
        return switch (r.getOperator()) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            case "Gt", "Lt" -> {
                try {
                    long have = Long.parseLong(value);
                    long want = Long.parseLong(values.get(0));
                    yield "Gt".equals(r.getOperator()) ? have > want : have < want;
                } catch (RuntimeException e) {
                    yield false;
                }
            }
            default -> false;
        };
    }

    // ---- NodePorts --------------------------------------------------------------------------------------------------

    private static boolean portsTaken(Pod pod, List<Pod> onNode) {
        List<ContainerPort> wanted = hostPorts(pod);
        if (wanted.isEmpty()) {
            return false;
        }
        List<ContainerPort> used =
                onNode.stream().flatMap(p -> hostPorts(p).stream()).toList();
        return wanted.stream().anyMatch(w -> used.stream().anyMatch(u -> conflict(w, u)));
    }

    private static List<ContainerPort> hostPorts(Pod pod) {
        List<ContainerPort> out = new ArrayList<>();
        for (List<Container> containers : List.of(containers(pod), initContainers(pod))) {
            for (Container c : containers) {
                if (c.getPorts() != null) {
                    c.getPorts().stream()
                            .filter(p -> p.getHostPort() != null && p.getHostPort() > 0)
                            .forEach(out::add);
                }
            }
        }
        return out;
    }

    /** pkg/scheduler/framework types.go HostPortInfo: same protocol and port, and the same IP or a wildcard. */
    private static boolean conflict(ContainerPort a, ContainerPort b) {
        String pa = a.getProtocol() == null ? "TCP" : a.getProtocol();
        String pb = b.getProtocol() == null ? "TCP" : b.getProtocol();
        if (!pa.equals(pb) || !a.getHostPort().equals(b.getHostPort())) {
            return false;
        }
        String ia = a.getHostIP() == null || a.getHostIP().isEmpty() ? "0.0.0.0" : a.getHostIP();
        String ib = b.getHostIP() == null || b.getHostIP().isEmpty() ? "0.0.0.0" : b.getHostIP();
        return ia.equals("0.0.0.0") || ib.equals("0.0.0.0") || ia.equals(ib);
    }

    // ---- NodeResourcesFit -------------------------------------------------------------------------------------------

    private static List<String> insufficient(Pod pod, Node node, List<Pod> onNode) {
        Map<String, Quantity> allocatable =
                node.getStatus() == null || node.getStatus().getAllocatable() == null
                        ? Map.of()
                        : node.getStatus().getAllocatable();
        List<String> out = new ArrayList<>();
        if (allocatable.containsKey("pods")
                && onNode.size() + 1 > amount(allocatable.get("pods")).intValue()) {
            out.add("Too many pods");
        }
        Map<String, BigDecimal> want = requests(pod);
        for (String resource : List.of("cpu", "memory", "ephemeral-storage")) {
            BigDecimal w = want.getOrDefault(resource, BigDecimal.ZERO);
            if (w.signum() == 0 || !allocatable.containsKey(resource)) {
                continue; // nothing asked, or a node that states no capacity: not checked
            }
            BigDecimal used = onNode.stream()
                    .map(p -> requests(p).getOrDefault(resource, BigDecimal.ZERO))
                    .reduce(BigDecimal.ZERO, BigDecimal::add);
            if (used.add(w).compareTo(amount(allocatable.get(resource))) > 0) {
                out.add("Insufficient " + resource);
            }
        }
        return out;
    }

    /**
     * A pod's effective request (resource helpers PodRequests): the sum of its containers, or its largest init
     * container when larger (restartable init containers, sidecars, add to the sum), plus the pod's overhead.
     */
    static Map<String, BigDecimal> requests(Pod pod) {
        Map<String, BigDecimal> sum = new HashMap<>();
        for (Container c : containers(pod)) {
            add(sum, c);
        }
        Map<String, BigDecimal> sidecars = new HashMap<>();
        Map<String, BigDecimal> initMax = new HashMap<>();
        for (Container c : initContainers(pod)) {
            Map<String, BigDecimal> one = new HashMap<>();
            add(one, c);
            if ("Always".equals(c.getRestartPolicy())) {
                add(sidecars, c);
                one.forEach((k, v) -> sum.merge(k, v, BigDecimal::add));
            } else {
                // an init container runs beside the sidecars started before it
                one.forEach(
                        (k, v) -> initMax.merge(k, v.add(sidecars.getOrDefault(k, BigDecimal.ZERO)), BigDecimal::max));
            }
        }
        initMax.forEach((k, v) -> sum.merge(k, v, BigDecimal::max));
        if (pod.getSpec().getOverhead() != null) {
            pod.getSpec().getOverhead().forEach((k, v) -> sum.merge(k, amount(v), BigDecimal::add));
        }
        return sum;
    }

    private static void add(Map<String, BigDecimal> into, Container c) {
        if (c.getResources() != null && c.getResources().getRequests() != null) {
            c.getResources().getRequests().forEach((k, v) -> into.merge(k, amount(v), BigDecimal::add));
        }
    }

    private static BigDecimal amount(Quantity q) {
        return Quantity.getAmountInBytes(q);
    }

    private static List<Container> containers(Pod pod) {
        return pod.getSpec().getContainers() == null ? List.of() : pod.getSpec().getContainers();
    }

    private static List<Container> initContainers(Pod pod) {
        return pod.getSpec().getInitContainers() == null
                ? List.of()
                : pod.getSpec().getInitContainers();
    }

    // ---- VolumeBinding ----------------------------------------------------------------------------------------------

    private static Optional<String> volumeConflict(Pod pod, Node node, Reads volumes) {
        List<Volume> podVolumes =
                pod.getSpec().getVolumes() == null ? List.of() : pod.getSpec().getVolumes();
        for (Volume v : podVolumes) {
            if (v.getPersistentVolumeClaim() == null) {
                continue;
            }
            String claimName = v.getPersistentVolumeClaim().getClaimName();
            Optional<PersistentVolumeClaim> claim =
                    volumes.claims().apply(pod.getMetadata().getNamespace() + "/" + claimName);
            if (claim.isEmpty()) {
                return Optional.of("persistentvolumeclaim \"" + claimName + "\" not found");
            }
            String volumeName =
                    claim.get().getSpec() == null ? null : claim.get().getSpec().getVolumeName();
            if (volumeName == null || volumeName.isEmpty()) {
                continue; // unbound: WaitForFirstConsumer binds it where the pod goes (not emulated)
            }
            Optional<PersistentVolume> pv = volumes.volumes().apply(volumeName);
            if (pv.isPresent()
                    && pv.get().getSpec() != null
                    && pv.get().getSpec().getNodeAffinity() != null
                    && pv.get().getSpec().getNodeAffinity().getRequired() != null
                    && !matchesTerms(
                            pv.get().getSpec().getNodeAffinity().getRequired().getNodeSelectorTerms(), node)) {
                return Optional.of("node(s) had volume node affinity conflict");
            }
        }
        return Optional.empty();
    }

    // ---- VolumeZone
    // ---------------------------------------------------------------------------------------------------

    /** The topology labels VolumeZone compares, each with the GA key a node may carry for it. */
    private static final Map<String, String> ZONE_KEYS = Map.of(
            "topology.kubernetes.io/zone", "topology.kubernetes.io/zone",
            "topology.kubernetes.io/region", "topology.kubernetes.io/region",
            "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone",
            "failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region");

    /**
     * pkg/scheduler/framework/plugins/volumezone/volume_zone.go: a node with none of the zone/region labels passes;
     * else every zone/region label of each PersistentVolume a claim of the pod is bound to must name the node's value
     * (values joined by "__" list several; a beta key on the volume is looked up under the GA key on the node when
     * the node lacks the beta one). Unbound claims are skipped, as for WaitForFirstConsumer.
     */
    private static boolean inVolumeZones(Pod pod, Node node, Reads volumes) {
        Map<String, String> nodeLabels = labels(node.getMetadata().getLabels());
        if (ZONE_KEYS.keySet().stream().noneMatch(nodeLabels::containsKey)) {
            return true;
        }
        List<Volume> podVolumes =
                pod.getSpec().getVolumes() == null ? List.of() : pod.getSpec().getVolumes();
        for (Volume v : podVolumes) {
            if (v.getPersistentVolumeClaim() == null) {
                continue;
            }
            Optional<PersistentVolume> pv = volumes.claims()
                    .apply(pod.getMetadata().getNamespace() + "/"
                            + v.getPersistentVolumeClaim().getClaimName())
                    .map(c -> c.getSpec() == null ? null : c.getSpec().getVolumeName())
                    .filter(name -> !name.isEmpty())
                    .flatMap(volumes.volumes());
            if (pv.isEmpty()) {
                continue;
            }
            for (Map.Entry<String, String> e :
                    labels(pv.get().getMetadata().getLabels()).entrySet()) {
                if (!ZONE_KEYS.containsKey(e.getKey())) {
                    continue;
                }
                String value = nodeLabels.containsKey(e.getKey())
                        ? nodeLabels.get(e.getKey())
                        : nodeLabels.get(ZONE_KEYS.get(e.getKey()));
                if (value == null || !List.of(e.getValue().split("__")).contains(value)) {
                    return false;
                }
            }
        }
        return true;
    }

    // ---- PodTopologySpread ------------------------------------------------------------------------------------------

    private static Optional<String> spreadFails(Pod pod, Node node, List<Node> nodes, Map<String, List<Pod>> byNode) {
        List<TopologySpreadConstraint> constraints = pod.getSpec().getTopologySpreadConstraints() == null
                ? List.of()
                : pod.getSpec().getTopologySpreadConstraints().stream()
                        .filter(c -> "DoNotSchedule".equals(c.getWhenUnsatisfiable()))
                        .toList();
        for (TopologySpreadConstraint c : constraints) {
            String key = c.getTopologyKey();
            String domain = labels(node.getMetadata().getLabels()).get(key);
            if (domain == null) {
                return Optional.of("node(s) didn't match pod topology spread constraints (missing required label)");
            }
            Map<String, Integer> counts = new HashMap<>();
            for (Node n : nodes) {
                String d = labels(n.getMetadata().getLabels()).get(key);
                if (d == null || !matchesNodeAffinity(pod, n)) {
                    continue;
                }
                int matching = (int) byNode.getOrDefault(n.getMetadata().getName(), List.of()).stream()
                        .filter(p -> Objects.equals(
                                p.getMetadata().getNamespace(),
                                pod.getMetadata().getNamespace()))
                        .filter(p -> selects(c.getLabelSelector(), p))
                        .count();
                counts.merge(d, matching, Integer::sum);
            }
            int min = counts.values().stream().mapToInt(Integer::intValue).min().orElse(0);
            int self = selects(c.getLabelSelector(), pod) ? 1 : 0;
            int skew = counts.getOrDefault(domain, 0) + self - min;
            if (skew > c.getMaxSkew()) {
                return Optional.of("node(s) didn't match pod topology spread constraints");
            }
        }
        return Optional.empty();
    }

    // ---- InterPodAffinity -------------------------------------------------------------------------------------------

    private static Optional<String> interPodAffinity(
            Pod pod, Node node, List<Node> nodes, List<Pod> bound, Function<String, Map<String, String>> nsLabels) {
        var affinity = pod.getSpec().getAffinity();
        List<PodAffinityTerm> required = affinity == null
                        || affinity.getPodAffinity() == null
                        || affinity.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null
                ? List.of()
                : affinity.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
        List<PodAffinityTerm> anti = affinity == null
                        || affinity.getPodAntiAffinity() == null
                        || affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null
                ? List.of()
                : affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
        Map<String, Node> nodesByName = new HashMap<>();
        nodes.forEach(n -> nodesByName.put(n.getMetadata().getName(), n));
        // existing pods' required anti-affinity against this pod, in their own domain
        for (Pod other : bound) {
            var oa = other.getSpec().getAffinity();
            if (oa == null
                    || oa.getPodAntiAffinity() == null
                    || oa.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
                continue;
            }
            Node theirs = nodesByName.get(other.getSpec().getNodeName());
            for (PodAffinityTerm t : oa.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()) {
                if (termSelects(t, other, pod, nsLabels) && sameDomain(t.getTopologyKey(), node, theirs)) {
                    return Optional.of("node(s) didn't satisfy existing pods anti-affinity rules");
                }
            }
        }
        for (PodAffinityTerm t : required) {
            boolean anyMatchAnywhere = bound.stream().anyMatch(p -> termSelects(t, pod, p, nsLabels));
            boolean inDomain = bound.stream()
                    .anyMatch(p -> termSelects(t, pod, p, nsLabels)
                            && sameDomain(
                                    t.getTopologyKey(),
                                    node,
                                    nodesByName.get(p.getSpec().getNodeName())));
            // the first pod of a group that selects itself may go anywhere (interpodaffinity filtering.go)
            if (!inDomain && !(!anyMatchAnywhere && termSelects(t, pod, pod, nsLabels))) {
                return Optional.of("node(s) didn't match pod affinity rules");
            }
        }
        for (PodAffinityTerm t : anti) {
            boolean inDomain = bound.stream()
                    .anyMatch(p -> termSelects(t, pod, p, nsLabels)
                            && sameDomain(
                                    t.getTopologyKey(),
                                    node,
                                    nodesByName.get(p.getSpec().getNodeName())));
            if (inDomain) {
                return Optional.of("node(s) didn't match pod anti-affinity rules");
            }
        }
        return Optional.empty();
    }

    /**
     * The term of {@code owner} selects {@code candidate}: its namespaces (named, or selected by their labels; with
     * neither, the owner's) and its label selector.
     */
    private static boolean termSelects(
            PodAffinityTerm t, Pod owner, Pod candidate, Function<String, Map<String, String>> nsLabels) {
        String ns = candidate.getMetadata().getNamespace();
        List<String> named = t.getNamespaces() == null ? List.of() : t.getNamespaces();
        boolean inScope;
        if (named.isEmpty() && t.getNamespaceSelector() == null) {
            inScope = Objects.equals(ns, owner.getMetadata().getNamespace());
        } else {
            inScope = named.contains(ns) || selects(t.getNamespaceSelector(), labels(nsLabels.apply(ns)));
        }
        return inScope && selects(t.getLabelSelector(), candidate);
    }

    private static boolean sameDomain(String key, Node a, Node b) {
        if (a == null || b == null) {
            return false;
        }
        String da = labels(a.getMetadata().getLabels()).get(key);
        return da != null && da.equals(labels(b.getMetadata().getLabels()).get(key));
    }

    /** metav1 LabelSelectorAsSelector: null selects nothing, empty everything. */
    static boolean selects(LabelSelector selector, Pod pod) {
        return selects(selector, labels(pod.getMetadata().getLabels()));
    }

    /** The same, over an object's labels. */
    static boolean selects(LabelSelector selector, Map<String, String> labels) {
        if (selector == null) {
            return false;
        }
        if (selector.getMatchLabels() != null
                && !selector.getMatchLabels().entrySet().stream()
                        .allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
            return false;
        }
        for (LabelSelectorRequirement r : selector.getMatchExpressions() == null
                ? List.<LabelSelectorRequirement>of()
                : selector.getMatchExpressions()) {
            String v = labels.get(r.getKey());
            List<String> values = r.getValues() == null ? List.of() : r.getValues();
            boolean ok = switch (r.getOperator()) {
                case "In" -> v != null && values.contains(v);
                case "NotIn" -> v == null || !values.contains(v);
                case "Exists" -> v != null;
                case "DoesNotExist" -> v == null;
                default -> false;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static Map<String, String> labels(Map<String, String> labels) {
        return labels == null ? Map.of() : labels;
    }
}
