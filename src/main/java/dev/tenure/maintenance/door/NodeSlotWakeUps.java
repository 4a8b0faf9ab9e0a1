package dev.tenure.maintenance.door;

import dev.tenure.kube.NodeCache;
import dev.tenure.kube.SharedInformerCache;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.NodeMaintenanceValidator;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.PlacementPolicy;
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
 * door already has. A node's add (the cache's first sync among them) frees no slot; it, and a change of a node's
 * labels, taints, unschedulable or allocatable, wakes the maintenances that {@code spec.drain.placement: Wait} holds
 * because a pod fits nowhere (issue 49): the room they wait for may be there now.
 */
final class NodeSlotWakeUps extends AbstractEventSource<Node, NodeMaintenance> implements ResourceEventHandler<Node> {

    /** The event source's name. */
    static final String NAME = "node-slot-changes";

    private final NodeCache nodes;
    private final IndexerResourceCache<NodeMaintenance> primaries;
    private SharedInformerCache<Node>.Subscription subscription;

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
    public void onAdd(Node node) {
        wakePlacementWaits(); // room added: a maintenance that spec.drain.placement Wait holds forecasts again
    }

    @Override
    public void onUpdate(Node before, Node after) {
        if (freesSlot(before, after)) {
            wakeHeld();
        }
        if (changesRoom(before, after)) {
            wakePlacementWaits();
        }
    }

    @Override
    public void onDelete(Node node, boolean deletedFinalStateUnknown) {
        wakeHeld();
    }

    /**
     * Whether the change of a node may change where pods fit (issue 49): its labels, taints, unschedulable or
     * allocatable. Its heartbeats (conditions) do not.
     */
    static boolean changesRoom(Node before, Node after) {
        return !Objects.equals(
                        before.getMetadata().getLabels(), after.getMetadata().getLabels())
                || !Objects.equals(
                        before.getSpec() == null ? null : before.getSpec().getTaints(),
                        after.getSpec() == null ? null : after.getSpec().getTaints())
                || !Objects.equals(
                        before.getSpec() == null ? null : before.getSpec().getUnschedulable(),
                        after.getSpec() == null ? null : after.getSpec().getUnschedulable())
                || !Objects.equals(
                        before.getStatus() == null ? null : before.getStatus().getAllocatable(),
                        after.getStatus() == null ? null : after.getStatus().getAllocatable());
    }

    /** Held Pending by spec.drain.placement Wait: a pod of its drain fits nowhere, as its status says. */
    static boolean waitsForPlacement(NodeMaintenance nm) {
        return waitsForPlacement(nm.getStatus());
    }

    /** {@link #waitsForPlacement(NodeMaintenance)} of a status. */
    static boolean waitsForPlacement(NodeMaintenanceStatus status) {
        return status != null
                && status.getPhase() == Phase.Pending
                && status.getPlacement() != null
                && PlacementPolicy.Wait.name().equals(status.getPlacement().getPolicy())
                && status.getPlacement().stranded() > 0;
    }

    private void wakePlacementWaits() {
        if (!isRunning()) {
            return;
        }
        primaries
                .list()
                .filter(NodeSlotWakeUps::waitsForPlacement)
                .filter(nm -> nm.getMetadata().getDeletionTimestamp() == null)
                .forEach(nm -> getEventHandler().handleEvent(new Event(ResourceID.fromResource(nm))));
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
