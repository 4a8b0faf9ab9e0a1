package dev.tenure.rollout;

import dev.tenure.kube.NodeCache;
import dev.tenure.kube.SharedInformerCache;
import dev.tenure.rollout.api.NodeMaintenanceRollout;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.util.Objects;
import java.util.Set;

/**
 * Wakes every rollout when a node changes what a rollout reads (Ready, cordon, boot ID, versions, labels,
 * annotations), over the operator's one Node watch ({@link NodeCache}): no second LIST and WATCH of nodes. Heartbeats
 * alone wake nothing. Rollouts are few; each looks at its own pool.
 */
final class NodeChangeWakeUps extends AbstractEventSource<Node, NodeMaintenanceRollout>
        implements ResourceEventHandler<Node> {

    static final String NAME = "rollout-node-changes";

    private final NodeCache nodes;
    private final IndexerResourceCache<NodeMaintenanceRollout> primaries;
    private SharedInformerCache<Node>.Subscription subscription;

    NodeChangeWakeUps(NodeCache nodes, IndexerResourceCache<NodeMaintenanceRollout> primaries) {
        super(Node.class, NAME);
        this.nodes = Objects.requireNonNull(nodes, "nodes");
        this.primaries = Objects.requireNonNull(primaries, "primaries");
    }

    @Override
    public synchronized void start() {
        if (subscription == null) {
            subscription = nodes.open(this);
        }
        super.start();
    }

    @Override
    public synchronized void stop() {
        super.stop();
        if (subscription != null) {
            subscription.close();
            subscription = null;
        }
    }

    @Override
    public Set<Node> getSecondaryResources(NodeMaintenanceRollout primary) {
        return Set.of();
    }

    @Override
    public void onAdd(Node node) {
        wakeAll();
    }

    @Override
    public void onUpdate(Node before, Node after) {
        if (changed(before, after)) {
            wakeAll();
        }
    }

    @Override
    public void onDelete(Node node, boolean deletedFinalStateUnknown) {
        wakeAll();
    }

    /** What a rollout reads of a node changed; a heartbeat alone changes none of it. */
    static boolean changed(Node before, Node after) {
        return !Objects.equals(ready(before), ready(after))
                || !Objects.equals(before.getSpec(), after.getSpec())
                || !Objects.equals(
                        before.getMetadata().getLabels(), after.getMetadata().getLabels())
                || !Objects.equals(
                        before.getMetadata().getAnnotations(),
                        after.getMetadata().getAnnotations())
                || !Objects.equals(info(before), info(after));
    }

    private static String ready(Node node) {
        return node.getStatus() == null || node.getStatus().getConditions() == null
                ? null
                : node.getStatus().getConditions().stream()
                        .filter(c -> "Ready".equals(c.getType()))
                        .map(c -> c.getStatus() + "/" + c.getLastTransitionTime())
                        .findFirst()
                        .orElse(null);
    }

    private static Object info(Node node) {
        return node.getStatus() == null ? null : node.getStatus().getNodeInfo();
    }

    private void wakeAll() {
        if (!isRunning()) {
            return;
        }
        primaries.list().forEach(r -> getEventHandler().handleEvent(new Event(ResourceID.fromResource(r))));
    }
}
