package dev.tenure.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The operator's one Node watch and cache, shared by everything that reacts to Nodes (the annotation door, the
 * maintenance-aware election): one LIST and one WATCH on nodes however many jobs use them, and one copy of each Node
 * in memory, trimmed by {@link TrimmedNodeStore} before it is cached.
 *
 * <p>Reference counted: see {@link SharedInformerCache}.
 */
public final class NodeCache extends SharedInformerCache<Node> {

    public NodeCache(KubernetesClient client) {
        super(started(Objects.requireNonNull(client, "client")), "the Node cache");
    }

    /** A subscription's handler for a user that only reads the cache (the admission caches): it hears nothing. */
    public static final ResourceEventHandler<Node> NO_EVENTS = new ResourceEventHandler<>() {
        @Override
        public void onAdd(Node node) {}

        @Override
        public void onUpdate(Node old, Node updated) {}

        @Override
        public void onDelete(Node node, boolean deletedFinalStateUnknown) {}
    };

    /** A runnable informer whose store drops what no one here reads (images, addresses, capacity, node info). */
    private static Supplier<SharedIndexInformer<Node>> started(KubernetesClient client) {
        return () -> client.nodes().runnableInformer(0).itemStore(new TrimmedNodeStore());
    }
}
