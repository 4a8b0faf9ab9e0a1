package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * kube-scheduler's {@code VolumeZone} ({@code plugins/volumezone/volume_zone.go}): a bound PersistentVolume labelled
 * with a zone or region ({@code topology.kubernetes.io/zone|region} or their {@code failure-domain.beta} forms; a
 * value may list several zones joined by {@code __}) only lets the pod onto a node with a matching label (a beta key
 * on the volume is also matched by the GA key on the node). A node with none of these labels passes.
 */
final class VolumeZone implements FilterPlugin {

    static final String REASON = "node(s) had no available volume zone";

    private static final Map<String, String> TO_GA = Map.of(
            "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone",
            "failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region");
    private static final List<String> KEYS = List.of(
            "topology.kubernetes.io/zone",
            "topology.kubernetes.io/region",
            "failure-domain.beta.kubernetes.io/zone",
            "failure-domain.beta.kubernetes.io/region");

    @Override
    public String name() {
        return "VolumeZone";
    }

    @Override
    public NodeFilter prepare(Pod pod, PlacementCluster cluster) {
        List<PersistentVolume> volumes = VolumeBinding.boundVolumes(pod, cluster);
        return node -> {
            Map<String, String> labels = node.labels();
            if (KEYS.stream().noneMatch(labels::containsKey)) {
                return List.of();
            }
            for (PersistentVolume pv : volumes) {
                Map<String, String> pvLabels = pv.getMetadata().getLabels() == null
                        ? Map.of()
                        : pv.getMetadata().getLabels();
                for (String key : KEYS) {
                    String wanted = pvLabels.get(key);
                    if (wanted == null) {
                        continue;
                    }
                    String value = labels.get(key);
                    if (value == null && TO_GA.containsKey(key)) {
                        value = labels.get(TO_GA.get(key));
                    }
                    if (value == null || !Arrays.asList(wanted.split("__")).contains(value)) {
                        return List.of(REASON);
                    }
                }
            }
            return List.of();
        };
    }
}
