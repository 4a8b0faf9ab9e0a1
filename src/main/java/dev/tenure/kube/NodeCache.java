package dev.tenure.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Objects;
import java.util.Optional;

/**
 * The operator's one Node watch and cache, shared by everything that reacts to Nodes (the annotation door, the
 * maintenance-aware election): one LIST and one WATCH on nodes however many jobs use them, and one copy of each Node
 * in memory, trimmed by {@link TrimmedNodeStore} before it is cached.
 *
 * <p>Reference counted like a shared informer factory: the first {@link #open} starts the informer (and returns once
 * it has synced), each {@link Subscription#close()} removes its handler, and the last one closes the watch. A fabric8
 * informer cannot run again once closed, so a later {@code open} (the next leadership term) starts a new one.
 */
public final class NodeCache {

    private final KubernetesClient client;
    private SharedIndexInformer<Node> informer;
    private int users;

    public NodeCache(KubernetesClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /** One user's handle: the shared informer, and {@link #close()} to stop receiving its events. */
    public final class Subscription implements AutoCloseable {
        private final SharedIndexInformer<Node> nodes;
        private final ResourceEventHandler<Node> handler;
        private boolean closed;

        private Subscription(SharedIndexInformer<Node> nodes, ResourceEventHandler<Node> handler) {
            this.nodes = nodes;
            this.handler = handler;
        }

        /** The shared informer: its store is the Node cache; do not close it, close the subscription. */
        public SharedIndexInformer<Node> informer() {
            return nodes;
        }

        @Override
        public void close() {
            synchronized (NodeCache.this) {
                if (closed) {
                    return;
                }
                closed = true;
                nodes.removeEventHandler(handler);
                if (--users == 0 && informer == nodes) {
                    informer.close();
                    informer = null;
                }
            }
        }
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

    /**
     * Adds {@code handler} to the shared informer, starting it first when nobody uses it yet. A handler added to a
     * running informer is told of every cached Node as an add, so a late user misses nothing.
     *
     * @throws RuntimeException when the informer cannot start (no access to nodes, API server down); nothing is left
     *     running then
     */
    public synchronized Subscription open(ResourceEventHandler<Node> handler) {
        Objects.requireNonNull(handler, "handler");
        if (informer == null) {
            informer = started();
        }
        informer.addEventHandler(handler);
        users++;
        return new Subscription(informer, handler);
    }

    /** A running informer ({@link InformerStart#run}: its first list tried again after a "try again" answer). */
    private SharedIndexInformer<Node> started() {
        // images, addresses, capacity and node info are read by no one here: dropped before caching
        return InformerStart.run(
                () -> client.nodes().runnableInformer(0).itemStore(new TrimmedNodeStore()), "the Node cache");
    }

    /** The running informer, for the liveness probe and tests; empty when no one uses the cache. */
    public synchronized Optional<SharedIndexInformer<Node>> informer() {
        return Optional.ofNullable(informer);
    }
}
