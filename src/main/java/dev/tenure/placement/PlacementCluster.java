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
 * PersistentVolumes and Claims pods mount, and namespace labels for affinity terms' {@code namespaceSelector}. Built
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

    private PlacementCluster() {}

    /**
     * A snapshot of {@code nodes} and the {@code pods} bound to them (pods on nodes not listed are dropped), with the
     * volumes and claims pods use and the labels of namespaces (empty when not known: a {@code namespaceSelector}
     * other than {@code {}} then matches no namespace).
     */
    public static PlacementCluster of(
            Collection<Node> nodes,
            Collection<Pod> pods,
            Collection<PersistentVolume> volumes,
            Collection<PersistentVolumeClaim> claims,
            Map<String, Map<String, String>> namespaceLabels) {
        PlacementCluster c = new PlacementCluster();
        for (Node n : nodes) {
            c.nodes.put(n.getMetadata().getName(), new PlacementNode(n));
        }
        for (Pod p : pods) {
            String nodeName = p.getSpec() == null ? null : p.getSpec().getNodeName();
            String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
            PlacementNode node = nodeName == null ? null : c.nodes.get(nodeName);
            if (node != null && !"Succeeded".equals(phase) && !"Failed".equals(phase)) {
                node.add(p);
            }
        }
        volumes.forEach(v -> c.volumes.put(v.getMetadata().getName(), v));
        claims.forEach(pvc -> c.claims.put(
                key(pvc.getMetadata().getNamespace(), pvc.getMetadata().getName()), pvc));
        c.namespaceLabels.putAll(namespaceLabels);
        return c;
    }

    /** A snapshot of nodes and pods only (no volumes, no namespace labels). */
    public static PlacementCluster of(Collection<Node> nodes, Collection<Pod> pods) {
        return of(nodes, pods, List.of(), List.of(), Map.of());
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
