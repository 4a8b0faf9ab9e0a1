package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The cluster as one scheduling cycle sees it (the scheduler's snapshot): every node with the pods bound to it, the
 * PersistentVolumes and Claims pods mount, and the labels of namespaces for affinity terms' {@code namespaceSelector}
 * (the scheduler's namespace lister; read only when a term needs them: {@link Builder#needsNamespaceLabels}). Built
 * fresh for each forecast from the caches, then changed only by the forecast (pods evicted and placed, nodes
 * cordoned); never shared between threads.
 *
 * <p>Pods in {@code Succeeded} or {@code Failed} phase and pods not bound to a node are left out, as the scheduler's
 * pod informer leaves them out: a pod already Pending elsewhere takes no room and never turns a forecast red.
 */
public final class PlacementCluster {

    private final Map<String, PlacementNode> nodes = new LinkedHashMap<>();
    private final Map<String, PersistentVolume> volumes = new HashMap<>();
    private final Map<String, PersistentVolumeClaim> claims = new HashMap<>();
    private final Map<String, Map<String, String>> namespaceLabels = new HashMap<>();
    private final Map<String, String> claimsNotRead = new LinkedHashMap<>();
    /** Why the namespaces' labels could not be read; null: read, or not needed. */
    private String namespacesNotRead;

    private final PlacedPod.Shared shared = new PlacedPod.Shared();

    private PlacementCluster() {}

    /**
     * A snapshot of {@code nodes} and the {@code pods} bound to them (pods on nodes not listed are dropped), with the
     * volumes and claims pods use and the labels of namespaces by name (a namespace not in it has no labels, as the
     * scheduler's {@code GetNamespaceLabelsSnapshot} reads a namespace it cannot find).
     */
    public static PlacementCluster of(
            Collection<Node> nodes,
            Collection<Pod> pods,
            Collection<PersistentVolume> volumes,
            Collection<PersistentVolumeClaim> claims,
            Map<String, Map<String, String>> namespaceLabels) {
        Builder b = builder(nodes);
        pods.forEach(b::pod);
        return b.build(volumes, claims, namespaceLabels);
    }

    /** A snapshot of nodes and pods only (no volumes, no namespace labels). */
    public static PlacementCluster of(Collection<Node> nodes, Collection<Pod> pods) {
        return of(nodes, pods, List.of(), List.of(), Map.of());
    }

    /**
     * A snapshot of {@code nodes} that takes its pods one at a time ({@link Builder#pod}), so that a caller reading
     * pods in pages keeps none of them: each is reduced at once to what the filters read ({@link PlacedPod}).
     */
    public static Builder builder(Collection<Node> nodes) {
        return new Builder(nodes);
    }

    /** Builds a {@link PlacementCluster}: nodes first, then pods one by one, then volumes and namespaces. */
    public static final class Builder {
        private final PlacementCluster cluster = new PlacementCluster();
        /** Some pod added has a required anti-affinity term that selects namespaces by their labels. */
        private boolean antiAffinityReadsNamespaces;

        private Builder(Collection<Node> nodes) {
            for (Node n : nodes) {
                cluster.nodes.put(n.getMetadata().getName(), new PlacementNode(n));
            }
        }

        /**
         * Adds {@code pod} to the node it is bound to, reduced to what the filters read; a pod not bound, bound to a
         * node not listed, or in phase {@code Succeeded} or {@code Failed} is left out. {@code pod} is not kept.
         *
         * @return this builder
         */
        public Builder pod(Pod pod) {
            String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
            String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
            PlacementNode node = nodeName == null ? null : cluster.nodes.get(nodeName);
            if (node != null && !"Succeeded".equals(phase) && !"Failed".equals(phase)) {
                PlacedPod placed = cluster.shared.of(pod);
                node.add(placed);
                antiAffinityReadsNamespaces |= InterPodAffinity.readsNamespaceLabels(placed.antiAffinity());
            }
            return this;
        }

        /**
         * Whether a forecast of {@code toPlace} on this snapshot reads namespace labels: some term that {@code
         * InterPodAffinity} reads has a {@code namespaceSelector} other than null and {@code {}} (null selects no
         * namespace, {@code {}} every one; neither needs labels). Those terms are the required affinity and
         * anti-affinity terms of the pods to place and the required anti-affinity terms of the pods added so far (an
         * existing pod's anti-affinity applies to every incoming pod). The caller reads the namespaces once when this
         * says so, and not at all otherwise.
         */
        public boolean needsNamespaceLabels(Collection<Pod> toPlace) {
            return antiAffinityReadsNamespaces || toPlace.stream().anyMatch(InterPodAffinity::readsNamespaceLabels);
        }

        /** The snapshot, with the volumes and claims pods use and the labels of namespaces (see {@link #of}). */
        public PlacementCluster build(
                Collection<PersistentVolume> volumes,
                Collection<PersistentVolumeClaim> claims,
                Map<String, Map<String, String>> namespaceLabels) {
            volumes.forEach(v -> cluster.volumes.put(v.getMetadata().getName(), v));
            claims.forEach(pvc -> cluster.claims.put(
                    key(pvc.getMetadata().getNamespace(), pvc.getMetadata().getName()), pvc));
            cluster.namespaceLabels.putAll(namespaceLabels);
            return cluster;
        }
    }

    /** {@code pod} as a node of this snapshot holds it (a placed replacement: not terminating). */
    PlacedPod placed(Pod pod) {
        return shared.of(pod);
    }

    /**
     * Marks the claim {@code namespace/name} as not read: the caller could not read it or its PersistentVolume (a
     * refused or failed GET, or 404). {@code VolumeBinding} and {@code VolumeZone} then pass the pods that mount it
     * (their volumes are not forecast) instead of reading the claim as missing, and the forecast lists it ({@link
     * PlacementForecast#volumesNotRead()}).
     *
     * @param why what the read answered, for status (e.g. {@code Forbidden (403)})
     * @return this snapshot
     */
    public PlacementCluster claimNotRead(String namespace, String name, String why) {
        claimsNotRead.put(key(namespace, name), why);
        return this;
    }

    /** The claims not read, as {@code namespace/name: why}, in the order they were marked. */
    List<String> claimsNotRead() {
        return claimsNotRead.entrySet().stream()
                .map(e -> e.getKey() + ": " + e.getValue())
                .toList();
    }

    /**
     * Marks the namespaces' labels as not read: the caller's LIST of namespaces failed (refused, or any error). {@code
     * InterPodAffinity} then leaves out every term whose {@code namespaceSelector} needs labels (the pods those terms
     * would hold back pass; the others are forecast as ever), and the forecast says so ({@link
     * PlacementForecast#namespacesNotRead()}).
     *
     * @param why what the read answered, for status (e.g. {@code list namespaces: HTTP 403 Forbidden})
     * @return this snapshot
     */
    public PlacementCluster namespacesNotRead(String why) {
        namespacesNotRead = java.util.Objects.requireNonNull(why, "why");
        return this;
    }

    /** Why the namespaces' labels were not read; empty: read, or not needed. */
    Optional<String> namespacesNotRead() {
        return Optional.ofNullable(namespacesNotRead);
    }

    boolean claimNotRead(String namespace, String name) {
        return claimsNotRead.containsKey(key(namespace, name));
    }

    Collection<PlacementNode> nodes() {
        return nodes.values();
    }

    Optional<PlacementNode> node(String name) {
        return Optional.ofNullable(nodes.get(name));
    }

    int size() {
        return nodes.size();
    }

    Optional<PersistentVolume> volume(String name) {
        return Optional.ofNullable(volumes.get(name));
    }

    Optional<PersistentVolumeClaim> claim(String namespace, String name) {
        return Optional.ofNullable(claims.get(key(namespace, name)));
    }

    Map<String, String> namespaceLabels(String namespace) {
        return namespaceLabels.getOrDefault(namespace, Map.of());
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }
}
