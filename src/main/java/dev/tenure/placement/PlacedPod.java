package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pod bound to a node, as the filters read it there (kube-scheduler's {@code NodeInfo} keeps a {@code PodInfo} per
 * pod for the same reason): its namespace and name, labels, whether it is terminating, what it requests (the
 * scheduler's effective request: {@link Resources#podRequests}), its host ports ({@link NodePorts#hostPorts}) and its
 * required anti-affinity terms (the only terms of an existing pod {@code InterPodAffinity} reads). Nothing else of the
 * pod is kept, so a view of 150,000 pods costs a few tens of MiB, not the half GiB their fabric8 objects take.
 */
record PlacedPod(
        String namespace,
        String name,
        Map<String, String> labels,
        boolean terminating,
        Map<String, Long> requests,
        List<NodePorts.HostPort> hostPorts,
        List<PodAffinityTerm> antiAffinity) {

    /**
     * Shares equal values between the pods of one view: namespaces, label maps (the pods of one ReplicaSet carry the
     * same), request maps, host-port and term lists. Not thread-safe: one per view.
     */
    static final class Shared {
        private final Map<Object, Object> seen = new HashMap<>();

        @SuppressWarnings("unchecked")
        <T> T share(T value) {
            if (value == null) {
                return null;
            }
            T known = (T) seen.putIfAbsent(value, value);
            return known == null ? value : known;
        }

        PlacedPod of(Pod pod) {
            Map<String, String> labels = Map.of();
            Map<String, String> given = pod.getMetadata().getLabels();
            if (given != null && !given.isEmpty()) {
                Map<String, String> copy = new LinkedHashMap<>();
                given.forEach((k, v) -> {
                    if (k != null && v != null) { // a label without a value cannot be stored: the API refuses it
                        copy.put(share(k), share(v));
                    }
                });
                labels = share(Map.copyOf(copy));
            }
            Affinity affinity = pod.getSpec() == null ? null : pod.getSpec().getAffinity();
            List<PodAffinityTerm> anti = affinity == null || affinity.getPodAntiAffinity() == null
                    ? List.of()
                    : share(List.copyOf(Resources.list(
                            affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())));
            return new PlacedPod(
                    share(pod.getMetadata().getNamespace()),
                    pod.getMetadata().getName(),
                    labels,
                    pod.getMetadata().getDeletionTimestamp() != null,
                    share(Map.copyOf(Resources.podRequests(pod))),
                    share(List.copyOf(NodePorts.hostPorts(pod))),
                    anti);
        }
    }
}
