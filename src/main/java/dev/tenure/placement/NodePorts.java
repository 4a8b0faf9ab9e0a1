package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;

/**
 * kube-scheduler's {@code NodePorts} ({@code plugins/nodeports/node_ports.go}, with {@code HostPortInfo} of
 * {@code framework/types.go}): a host port the pod wants must be free on the node for its protocol (default TCP)
 * and IP (default and {@code 0.0.0.0}: every IP, so it conflicts with the same port on any IP). Ports of containers
 * and of restartable (sidecar) init containers count.
 */
final class NodePorts implements FilterPlugin {

    static final String REASON = "node(s) didn't have free ports for the requested pod ports";

    private static final String ANY_IP = "0.0.0.0";

    record HostPort(String ip, String protocol, int port) {
        boolean conflictsWith(HostPort other) {
            return port == other.port
                    && protocol.equals(other.protocol)
                    && (ip.equals(ANY_IP) || other.ip.equals(ANY_IP) || ip.equals(other.ip));
        }
    }

    @Override
    public String name() {
        return "NodePorts";
    }

    @Override
    public NodeFilter prepare(Pod pod, PlacementCluster cluster) {
        List<HostPort> wanted = hostPorts(pod);
        if (wanted.isEmpty()) {
            return node -> List.of();
        }
        return node -> {
            for (PlacedPod existing : node.pods()) {
                for (HostPort used : existing.hostPorts()) {
                    if (wanted.stream().anyMatch(used::conflictsWith)) {
                        return List.of(REASON);
                    }
                }
            }
            return List.of();
        };
    }

    static List<HostPort> hostPorts(Pod pod) {
        List<HostPort> ports = new ArrayList<>();
        if (pod.getSpec() == null) {
            return ports;
        }
        List<Container> containers =
                new ArrayList<>(Resources.list(pod.getSpec().getContainers()));
        Resources.list(pod.getSpec().getInitContainers()).stream()
                .filter(c -> "Always".equals(c.getRestartPolicy()))
                .forEach(containers::add);
        for (Container c : containers) {
            for (ContainerPort p : Resources.list(c.getPorts())) {
                if (p.getHostPort() != null && p.getHostPort() > 0) {
                    String ip = p.getHostIP() == null || p.getHostIP().isEmpty() ? ANY_IP : p.getHostIP();
                    String protocol = p.getProtocol() == null || p.getProtocol().isEmpty() ? "TCP" : p.getProtocol();
                    ports.add(new HostPort(ip, protocol, p.getHostPort()));
                }
            }
        }
        return ports;
    }
}
