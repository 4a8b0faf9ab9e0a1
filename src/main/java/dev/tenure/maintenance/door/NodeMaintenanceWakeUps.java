package dev.tenure.maintenance.door;

import dev.tenure.maintenance.admission.NodeMaintenanceValidator;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceHooks;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Hooks are annotations, and an annotation edit does not change a resource's generation: JOSDK's generation-aware
 * filter drops it (and every update of an object already being deleted). The removal of a hook must wake the
 * maintenance waiting on it at once, not at its timeout. The fair queue needs the same kind of wake-up across
 * resources: a maintenance that ends (deleted, phase Ended or Failed) frees a slot, one that starts or changes its
 * priority moves the queue, and the requests held Pending must look at once, not at their next poll. A second
 * informer of NodeMaintenances passes exactly those changes: a hook change to the maintenance it is on, a change
 * of the queue (and a delete) also to every request waiting for a slot. One informer for both, so the operator
 * keeps two watches of NodeMaintenances, not three; JOSDK's own secondary-to-primary mapping does the fan-out. A
 * status edit is dropped by that filter too: one another client wrote wakes the maintenance it is on.
 */
public final class NodeMaintenanceWakeUps {

    private NodeMaintenanceWakeUps() {}

    static InformerEventSource<NodeMaintenance, NodeMaintenance> source(
            EventSourceContext<NodeMaintenance> context, Predicate<NodeMaintenance> foreignStatus) {
        var cache = context.getPrimaryCache();
        InformerEventSourceConfiguration<NodeMaintenance> config = InformerEventSourceConfiguration.from(
                        NodeMaintenance.class, NodeMaintenance.class)
                .withName(QUEUE_AND_HOOK_CHANGES)
                .withSecondaryToPrimaryMapper(nm -> wakes(nm, cache.list().toList()))
                // a new request may stand ahead of those waiting (a higher priority): they look at their place
                .withOnAddFilter(NodeMaintenanceValidator::waitsForASlot)
                .withOnUpdateFilter((now, before) -> passes(before, now, foreignStatus))
                .withOnDeleteFilter((nm, unknownState) -> true)
                .build();
        InformerEventSource<NodeMaintenance, NodeMaintenance> source = new InformerEventSource<>(config, context);
        source.addIndexers(Map.of(BY_NODE, nm -> {
            String node = NodeMaintenanceValidator.nodeOf(nm);
            return node == null ? List.of() : List.of(node);
        }));
        return source;
    }

    /** The event source that wakes a maintenance when its hook annotations change, and the queue when it moves. */
    static final String QUEUE_AND_HOOK_CHANGES = "nodemaintenance-queue-and-hook-changes";

    /** The index of the informer by the node a NodeMaintenance is about. */
    static final String BY_NODE = "node";

    /**
     * What a change of {@code changed} wakes: itself (its hooks), the other maintenances of its node (a joiner
     * follows its owner; an owner counts its joiners and waits for them to end), and every request waiting for a slot.
     */
    static Set<ResourceID> wakes(NodeMaintenance changed, List<NodeMaintenance> all) {
        Set<ResourceID> ids = new java.util.HashSet<>();
        ids.add(ResourceID.fromResource(changed));
        String node = NodeMaintenanceValidator.nodeOf(changed);
        if (node != null) {
            all.stream()
                    .filter(nm -> node.equals(NodeMaintenanceValidator.nodeOf(nm)))
                    .forEach(nm -> ids.add(ResourceID.fromResource(nm)));
        }
        all.stream()
                .filter(NodeMaintenanceValidator::waitsForASlot)
                .filter(nm -> nm.getMetadata().getDeletionTimestamp() == null)
                .forEach(nm -> ids.add(ResourceID.fromResource(nm)));
        return ids;
    }

    /**
     * Whether an update wakes anyone: a foreign status write, a hook change, a move of the queue. The foreign write is
     * looked at first, whatever else passes: it must be noted ({@link OwnStatusWrites#foreign}) so that the reconcile
     * it wakes reads past the primary cache, which may not have it yet.
     */
    static boolean passes(NodeMaintenance before, NodeMaintenance now, Predicate<NodeMaintenance> foreignStatus) {
        return statusRewritten(before, now, foreignStatus)
                || MaintenanceHooks.changed(
                        before.getMetadata().getAnnotations(), now.getMetadata().getAnnotations())
                || queueMoved(before, now);
    }

    /**
     * A status another client wrote ({@link OwnStatusWrites#foreign}): the maintenance looks at once and writes its
     * own record back, instead of leaving a foreign phase or reason in place until something else wakes it.
     */
    static boolean statusRewritten(
            NodeMaintenance before, NodeMaintenance now, Predicate<NodeMaintenance> foreignStatus) {
        return !java.util.Objects.equals(before.getStatus(), now.getStatus()) && foreignStatus.test(now);
    }

    /**
     * A change that may free a slot or reorder the queue: the phase (a request started, ended, failed or was held),
     * the start of its deletion, or its priority; and the drain's progress, which a joined maintenance shows too.
     */
    static boolean queueMoved(NodeMaintenance before, NodeMaintenance now) {
        Phase was = before.getStatus() == null ? null : before.getStatus().getPhase();
        Phase is = now.getStatus() == null ? null : now.getStatus().getPhase();
        Integer progressWas =
                before.getStatus() == null ? null : before.getStatus().getDrainProgress();
        Integer progressIs = now.getStatus() == null ? null : now.getStatus().getDrainProgress();
        return was != is
                || !java.util.Objects.equals(progressWas, progressIs)
                || (before.getMetadata().getDeletionTimestamp() == null)
                        != (now.getMetadata().getDeletionTimestamp() == null)
                || NodeMaintenanceValidator.priority(before) != NodeMaintenanceValidator.priority(now);
    }
}
