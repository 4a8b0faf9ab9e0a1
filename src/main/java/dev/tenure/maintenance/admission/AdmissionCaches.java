package dev.tenure.maintenance.admission;

import dev.tenure.kube.NodeCache;
import dev.tenure.kube.SharedInformerCache;
import dev.tenure.maintenance.api.NodeMaintenance;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * What admission decisions read — the Nodes and the NodeMaintenances — for both front doors: the NodeMaintenance
 * webhook (served by every replica, leader and standbys) and the annotation door's budget. Read from informers that
 * every replica runs once {@link #start()} has returned (reading is allowed to a standby; its writes are fenced, its
 * reads are not), so a review costs no GET and no LIST inside a fail-closed webhook (issue 25); before that, and
 * after {@link #close()}, each read goes to the API server as it did before the caches.
 *
 * <p>Nodes come from the operator's one trimmed {@link NodeCache} (this class holds a subscription, so the Node watch
 * outlives leadership terms); NodeMaintenances from an informer of their own (a second watch next to JOSDK's on the
 * leader: JOSDK's primary cache is not reachable outside the reconciler, and standbys have none).
 *
 * <p>A cache lags its watch by the delivery delay. A CREATE reviewed while the cache has not yet seen an earlier,
 * just-admitted NodeMaintenance of the same node is admitted too; the reconciler's own refusal rules then decide
 * between the two ({@link NodeMaintenanceValidator#ahead}: the earlier one goes ahead, the later one ends Failed,
 * "already has an active NodeMaintenance", before anything is written to the Node). See docs/node-maintenance.md.
 */
public final class AdmissionCaches implements AutoCloseable {

    private final KubernetesClient client;
    private final NodeCache nodeCache;
    private SharedInformerCache<Node>.Subscription nodes;
    private volatile SharedIndexInformer<NodeMaintenance> maintenances;
    /** The indexes added to each Node informer seen (a new leadership term may start a new one). */
    private final Map<SharedIndexInformer<Node>, Set<String>> indexed = new java.util.WeakHashMap<>();

    private boolean closed;

    public AdmissionCaches(KubernetesClient client, NodeCache nodeCache) {
        this.client = Objects.requireNonNull(client, "client");
        this.nodeCache = Objects.requireNonNull(nodeCache, "nodeCache");
    }

    /**
     * Starts both informers and returns once they have synced; a no-op when they run or after {@link #close()}.
     *
     * @throws RuntimeException when an informer cannot start (API server down, no access); nothing is left running
     *     and reads keep going to the API server
     */
    public synchronized void start() {
        if (closed || maintenances != null) {
            return;
        }
        SharedInformerCache<Node>.Subscription subscription =
                nodes != null ? nodes : nodeCache.open(NodeCache.NO_EVENTS);
        nodes = subscription;
        SharedIndexInformer<NodeMaintenance> started =
                client.resources(NodeMaintenance.class).runnableInformer(0);
        try {
            started.run();
        } catch (RuntimeException e) {
            started.close();
            subscription.close();
            nodes = null;
            throw e;
        }
        maintenances = started;
    }

    /** Whether reads come from the caches (both informers synced). */
    public boolean cached() {
        return nodeStore().isPresent() && maintenanceStore().isPresent();
    }

    /** The Node named {@code name}: from the cache; one GET when the cache has not seen it (just created) or is off. */
    public Optional<Node> node(String name) {
        Optional<Node> cached = nodeStore().map(i -> i.getStore().getByKey(name));
        return cached.isPresent()
                ? cached
                : Optional.ofNullable(client.nodes().withName(name).get());
    }

    /** All Nodes (trimmed: metadata, spec, conditions), or one LIST when the cache is off. */
    public List<Node> nodes() {
        return nodeStore()
                .map(i -> i.getStore().list())
                .orElseGet(() -> client.nodes().list().getItems());
    }

    /**
     * The Nodes {@code indexer} files under {@code key}: from an index of the Node cache (added at the first call;
     * a review then reads only the matching Nodes, not a copy of every cached Node), or one LIST filtered when the
     * cache is off.
     */
    public List<Node> nodesIndexed(String index, Function<Node, List<String>> indexer, String key) {
        Optional<SharedIndexInformer<Node>> store = nodeStore();
        if (store.isEmpty()) {
            return client.nodes().list().getItems().stream()
                    .filter(n -> indexer.apply(n).contains(key))
                    .toList();
        }
        SharedIndexInformer<Node> informer = store.get();
        synchronized (indexed) {
            if (!indexed.computeIfAbsent(informer, i -> new HashSet<>()).contains(index)) {
                if (!informer.getIndexer().getIndexers().containsKey(index)) {
                    informer.addIndexers(Map.of(index, indexer));
                }
                indexed.get(informer).add(index);
            }
        }
        return informer.getIndexer().byIndex(index, key);
    }

    /** All NodeMaintenances, or one LIST when the cache is off. */
    public List<NodeMaintenance> maintenances() {
        return maintenanceStore()
                .map(i -> i.getStore().list())
                .orElseGet(() -> client.resources(NodeMaintenance.class).list().getItems());
    }

    private Optional<SharedIndexInformer<Node>> nodeStore() {
        // the shared Node cache also runs on the leader for the annotation door and the election: read it whoever
        // started it
        return nodeCache.informer().filter(SharedIndexInformer::hasSynced);
    }

    private Optional<SharedIndexInformer<NodeMaintenance>> maintenanceStore() {
        return Optional.ofNullable(maintenances).filter(SharedIndexInformer::hasSynced);
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (maintenances != null) {
            maintenances.close();
            maintenances = null;
        }
        if (nodes != null) {
            nodes.close();
            nodes = null;
        }
    }
}
