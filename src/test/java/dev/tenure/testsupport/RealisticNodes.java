package dev.tenure.testsupport;

import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/** Nodes as a kubelet reports them: 40 images with digests, addresses, capacity, allocatable and node info, plus Tenure's marks. */
public final class RealisticNodes {

    private RealisticNodes() {}

    /** A cordoned node with Tenure's drain taint, maintenance condition and annotation. */
    public static Node node(String name) {

        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withUid("uid-" + name)
                .withResourceVersion("42")
                .withLabels(Map.of("node-role.kubernetes.io/worker", ""))
                .withAnnotations(Map.of("lifecycle.metal3.io/maintenance", "3600"))
                .endMetadata()
                .withNewSpec()
                .withUnschedulable(true)
                .addNewTaint("NoSchedule", "tenure.dev/drain", null, "true")
                .endSpec()
                .withNewStatus()
                .addNewCondition()
                .withType("tenure.dev/Maintenance")
                .withStatus("True")
                .endCondition()
                .addNewAddress("10.0.0.7", "InternalIP")
                .withCapacity(Map.of("cpu", new Quantity("8"), "memory", new Quantity("32Gi")))
                .withAllocatable(Map.of(
                        "cpu", new Quantity("7910m"),
                        "memory", new Quantity("31Gi"),
                        "pods", new Quantity("110"),
                        "ephemeral-storage", new Quantity("95Gi")))
                .withNewNodeInfo()
                .withKubeletVersion("v1.32.0")
                .withBootID("0a1b2c3d-boot-" + name)
                .withOsImage("Debian GNU/Linux 12 (bookworm)")
                .withMachineID("m-" + name)
                .withKernelVersion("6.1.0-18-amd64")
                .endNodeInfo()
                .withImages(IntStream.range(0, 40)
                        .mapToObj(i -> new ContainerImage(
                                List.of(
                                        "registry.example/app-" + i + "@sha256:" + "0".repeat(64),
                                        "registry.example/app-" + i + ":v" + i),
                                123_456_789L))
                        .toList())
                .endStatus()
                .build();
    }
}
