package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import java.util.List;
import java.util.Map;

/** PersistentVolumes, claims and pods that mount them, for the volume tables and the forecast. */
final class VolumeFixtures {

    private VolumeFixtures() {}

    static Pod mounting(String name, String... claims) {
        var b = Fixtures.pod(name).editSpec();
        for (String c : claims) {
            b.addToVolumes(new VolumeBuilder()
                    .withName(c)
                    .withNewPersistentVolumeClaim()
                    .withClaimName(c)
                    .endPersistentVolumeClaim()
                    .build());
        }
        return b.endSpec().build();
    }

    /** A claim in namespace ns, bound to {@code volume} (unbound when null). */
    static PersistentVolumeClaim claim(String name, String volume) {
        return new PersistentVolumeClaimBuilder()
                .withNewMetadata()
                .withNamespace("ns")
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withVolumeName(volume)
                .endSpec()
                .build();
    }

    static PersistentVolume volume(String name, Map<String, String> labels) {
        return new PersistentVolumeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .build();
    }

    /** A volume whose node affinity requires {@code key In values}. */
    static PersistentVolume affine(String name, String key, String... values) {
        return new PersistentVolumeBuilder(volume(name, Map.of()))
                .editSpec()
                .withNewNodeAffinity()
                .withNewRequired()
                .addNewNodeSelectorTerm()
                .withMatchExpressions(new NodeSelectorRequirement(key, "In", List.of(values)))
                .endNodeSelectorTerm()
                .endRequired()
                .endNodeAffinity()
                .endSpec()
                .build();
    }

    /** A local volume on {@code node} (local path, node affinity on the hostname). */
    static PersistentVolume local(String name, String node) {
        return new PersistentVolumeBuilder(affine(name, "kubernetes.io/hostname", node))
                .editSpec()
                .withNewLocal()
                .withPath("/mnt/disks/" + name)
                .endLocal()
                .endSpec()
                .build();
    }
}
