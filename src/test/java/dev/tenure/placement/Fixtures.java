package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/** Small builders for the placement tables: nodes and pods with only what a row needs. */
final class Fixtures {

    private Fixtures() {}

    /** A node with allocatable {@code cpu=10m, memory=20, pods=32, ephemeral-storage=20, example.com/aaa=5}. */
    static NodeBuilder node(String name) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(new HashMap<>(Map.of("kubernetes.io/hostname", name)))
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .withNewStatus()
                .withAllocatable(quantities(
                        "cpu", "10m", "memory", "20", "pods", "32", "ephemeral-storage", "20", "example.com/aaa", "5"))
                .endStatus();
    }

    static Node node(String name, Map<String, String> labels) {
        Map<String, String> all = new HashMap<>(labels);
        all.put("kubernetes.io/hostname", name);
        return node(name).editMetadata().withLabels(all).endMetadata().build();
    }

    static Node tainted(String name, Taint... taints) {
        return node(name).editSpec().withTaints(taints).endSpec().build();
    }

    static Taint taint(String key, String value, String effect) {
        return new Taint(effect, key, null, value);
    }

    static Map<String, Quantity> quantities(String... pairs) {
        Map<String, Quantity> out = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            out.put(pairs[i], new Quantity(pairs[i + 1]));
        }
        return out;
    }

    static Container container(String... requests) {
        return new ContainerBuilder()
                .withName("c")
                .withNewResources()
                .withRequests(quantities(requests))
                .endResources()
                .build();
    }

    /** A pod in namespace {@code ns}, owned by a ReplicaSet (so it is recreated), with one empty container. */
    static PodBuilder pod(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("ns")
                .withName(name)
                .addNewOwnerReference()
                .withApiVersion("apps/v1")
                .withKind("ReplicaSet")
                .withName("rs")
                .withUid("rs-uid")
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .withNewSpec()
                .withContainers(new ContainerBuilder().withName("c").build())
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .endStatus();
    }

    static Pod requesting(String name, String... requests) {
        return pod(name)
                .editSpec()
                .withContainers(container(requests))
                .endSpec()
                .build();
    }

    static Pod on(Pod pod, String node) {
        return new PodBuilder(pod).editSpec().withNodeName(node).endSpec().build();
    }

    static Pod with(Pod pod, UnaryOperator<PodBuilder> change) {
        return change.apply(new PodBuilder(pod)).build();
    }

    static Pod withPorts(String name, String... protocolIpPort) {
        List<ContainerPort> ports = new ArrayList<>();
        for (String p : protocolIpPort) {
            String[] parts = p.split("/");
            ContainerPort port = new ContainerPort();
            port.setProtocol(parts[0]);
            port.setHostIP(parts[1]);
            port.setHostPort(Integer.parseInt(parts[2]));
            port.setContainerPort(Integer.parseInt(parts[2]));
            ports.add(port);
        }
        return pod(name)
                .editSpec()
                .withContainers(
                        new ContainerBuilder().withName("c").withPorts(ports).build())
                .endSpec()
                .build();
    }

    /** What {@code plugin} says about {@code pod} on the node named {@code on}, in a cluster of these nodes and pods. */
    static List<String> filter(FilterPlugin plugin, Pod pod, String on, List<Node> nodes, List<Pod> bound) {
        PlacementCluster cluster = PlacementCluster.of(nodes, bound);
        return plugin.prepare(pod, cluster).filter(cluster.node(on).orElseThrow());
    }

    /** The same, on a one-node cluster. */
    static List<String> filter(FilterPlugin plugin, Pod pod, Node node, Pod... bound) {
        List<Pod> pods = new ArrayList<>();
        for (Pod p : bound) {
            pods.add(on(p, node.getMetadata().getName()));
        }
        return filter(plugin, pod, node.getMetadata().getName(), List.of(node), pods);
    }
}
