package dev.tenure.maintenance.door;

import dev.tenure.kube.NodeCache;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.NodeMaintenanceValidator;
import dev.tenure.maintenance.api.NodeMaintenance;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.util.Objects;
import java.util.Set;

/**
 * Nodes cordoned by anyone, NotReady or Ready Unknown take a slot of the limits ({@link MaintenanceLimits#unavailable}),
 * so a Node change can free one: a node uncordoned, turning Ready, or deleted. Such a change wakes every request held
 * for a slot at once, as the end of a maintenance does ({@link NodeMaintenanceWakeUps}); without it they waited for
 * their backstop look. An event source of JOSDK's over the operator's one Node watch ({@link NodeCache}, shared with
 * the admission caches and the annotation door): no second LIST and WATCH of nodes, and no RBAC beyond the watch the
 * door already has. A node's add (the cache's first sync among them) frees nothing and wakes nobody.
 */
final class NodeSlotWakeUps extends AbstractEventSource<Node, NodeMaintenance> implements ResourceEventHandler<Node> {

    /** The event source's name. */
    static final String NAME = "node-slot-changes";

    private final NodeCache nodes;
    private final IndexerResourceCache<NodeMaintenance> primaries;
    private NodeCache.Subscription subscription;

    NodeSlotWakeUps(NodeCache nodes, IndexerResourceCache<NodeMaintenance> primaries) {
        super(Node.class, NAME);
        this.nodes = Objects.requireNonNull(nodes, "nodes");
        this.primaries = Objects.requireNonNull(primaries, "primaries");
    }

    /** Whether the change of a node from {@code before} to {@code after} frees a slot of the limits it took. */
    static boolean freesSlot(Node before, Node after) {
        return MaintenanceLimits.unavailable(before).isPresent()
                && MaintenanceLimits.unavailable(after).isEmpty();
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
    public Set<Node> getSecondaryResources(NodeMaintenance primary) {
        return Set.of(); // a wake-up only: no Node is a secondary resource of a NodeMaintenance
    }

    @Override
    public void onAdd(Node node) {}

    @Override
    public void onUpdate(Node before, Node after) {
        if (freesSlot(before, after)) {
            wakeHeld();
        }
    }

    @Override
    public void onDelete(Node node, boolean deletedFinalStateUnknown) {
        wakeHeld();
    }

    private void wakeHeld() {
        if (!isRunning()) {
            return;
        }
        primaries
                .list()
                .filter(NodeMaintenanceValidator::waitsForASlot)
                .filter(nm -> nm.getMetadata().getDeletionTimestamp() == null)
                .forEach(nm -> getEventHandler().handleEvent(new Event(ResourceID.fromResource(nm))));
    }
}
