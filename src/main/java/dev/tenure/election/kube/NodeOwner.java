package dev.tenure.election.kube;

import dev.tenure.election.LeaseOwner;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Looks a Node up for a lease's owner reference (kubelet node-lease parity: the UID is needed,
 * so the lookup is retried by {@link dev.tenure.election.Heartbeat} until it succeeds). Needs
 * RBAC get on nodes.
 */
public final class NodeOwner implements Supplier<Optional<LeaseOwner>> {
    private final KubernetesClient client;
    private final String nodeName;

    public NodeOwner(KubernetesClient client, String nodeName) {
        this.client = client;
        this.nodeName = nodeName;
    }

    /** The Node as owner, or empty when it does not exist (errors propagate; callers retry). */
    @Override
    public Optional<LeaseOwner> get() {
        Node node = client.nodes().withName(nodeName).get();
        return node == null
                ? Optional.empty()
                : Optional.of(LeaseOwner.node(nodeName, node.getMetadata().getUid()));
    }
}
