package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import java.util.List;

/**
 * A pod reduced to what the filters of this package read, so that a forecast's view of 150,000 pods costs little heap
 * while it is built: name, namespace, labels, controller references, deletion time; the node, containers' and init
 * containers' requests, host ports and restart policy, overhead, affinity, tolerations, nodeSelector, topology spread
 * and claim volumes; the phase. Everything else (annotations, managed fields, images, env, probes, the rest of the
 * status) is dropped. Pure.
 */
public final class PlacementPods {

    private PlacementPods() {}

    /** {@code pod} with only what the filters read (a new object; {@code pod} is not changed). */
    public static Pod trimmed(Pod pod) {
        PodSpec spec = pod.getSpec();
        PodBuilder b = new PodBuilder()
                .withMetadata(new ObjectMetaBuilder()
                        .withName(pod.getMetadata().getName())
                        .withNamespace(pod.getMetadata().getNamespace())
                        .withLabels(pod.getMetadata().getLabels())
                        .withOwnerReferences(Resources.list(pod.getMetadata().getOwnerReferences()).stream()
                                .filter(o -> Boolean.TRUE.equals(o.getController()))
                                .toList())
                        .withDeletionTimestamp(pod.getMetadata().getDeletionTimestamp())
                        .build());
        if (spec != null) {
            b.withSpec(new PodSpecBuilder()
                    .withNodeName(spec.getNodeName())
                    .withContainers(containers(spec.getContainers()))
                    .withInitContainers(containers(spec.getInitContainers()))
                    .withOverhead(spec.getOverhead())
                    .withAffinity(spec.getAffinity())
                    .withTolerations(spec.getTolerations())
                    .withNodeSelector(spec.getNodeSelector())
                    .withTopologySpreadConstraints(spec.getTopologySpreadConstraints())
                    .withVolumes(claims(spec.getVolumes()))
                    .build());
        }
        if (pod.getStatus() != null) {
            b.withStatus(
                    new PodStatusBuilder().withPhase(pod.getStatus().getPhase()).build());
        }
        return b.build();
    }

    private static List<Container> containers(List<Container> containers) {
        return Resources.list(containers).stream()
                .map(c -> new ContainerBuilder()
                        .withName(c.getName())
                        .withResources(c.getResources())
                        .withRestartPolicy(c.getRestartPolicy())
                        .withPorts(hostPorts(c.getPorts()))
                        .build())
                .toList();
    }

    private static List<ContainerPort> hostPorts(List<ContainerPort> ports) {
        return Resources.list(ports).stream()
                .filter(p -> p.getHostPort() != null && p.getHostPort() > 0)
                .toList();
    }

    private static List<Volume> claims(List<Volume> volumes) {
        return Resources.list(volumes).stream()
                .filter(v -> v.getPersistentVolumeClaim() != null)
                .map(v -> new VolumeBuilder()
                        .withName(v.getName())
                        .withPersistentVolumeClaim(v.getPersistentVolumeClaim())
                        .build())
                .toList();
    }
}
