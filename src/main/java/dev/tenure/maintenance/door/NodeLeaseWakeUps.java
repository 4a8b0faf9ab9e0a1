package dev.tenure.maintenance.door;

import dev.tenure.maintenance.admission.NodeMaintenanceValidator;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import dev.tenure.maintenance.machine.NodeLeaseReleases;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A NodeMaintenance waiting for its node's lease (phase Waiting: the annotation door, or another operator, holds it)
 * looks again when the holder lets the lease go, not at its next timed look ({@code tenure.maintenance.lease.wait-retry},
 * 10 s by default): a watch of the Leases in the lease namespace whose changes {@link NodeLeaseReleases#frees} wake the
 * maintenances of that node. Adds wake no one (a new lease is held by whoever created it); a delete wakes them (the
 * lease is gone). The namespace's other Leases (the operator's own HA Lease, renewed every few seconds) pass no filter.
 */
final class NodeLeaseWakeUps {

    private NodeLeaseWakeUps() {}

    /** The event source's name. */
    static final String NAME = "node-lease-releases";

    static InformerEventSource<Lease, NodeMaintenance> source(
            EventSourceContext<NodeMaintenance> context, MaintenanceSettings settings) {
        var cache = context.getPrimaryCache();
        InformerEventSourceConfiguration<Lease> config = InformerEventSourceConfiguration.from(
                        Lease.class, NodeMaintenance.class)
                .withName(NAME)
                .withNamespaces(settings.leaseNamespace())
                .withSecondaryToPrimaryMapper(
                        lease -> wakes(settings, lease, cache.list().toList()))
                .withGenericFilter(lease -> lease.getMetadata().getName().startsWith(settings.leaseNamePrefix()))
                .withOnAddFilter(lease -> false)
                .withOnUpdateFilter((now, before) -> NodeLeaseReleases.frees(before, now))
                .withOnDeleteFilter((lease, unknownState) -> true)
                .build();
        return new InformerEventSource<>(config, context);
    }

    /** Whether {@code lease} is the node lease of the node {@code nm} is about. */
    static boolean leaseOf(MaintenanceSettings settings, NodeMaintenance nm, Lease lease) {
        String node = NodeMaintenanceValidator.nodeOf(nm);
        return node != null
                && settings.leaseNamespace().equals(lease.getMetadata().getNamespace())
                && settings.leaseName(node).equals(lease.getMetadata().getName());
    }

    /** The maintenances among {@code all} that a change of {@code lease} wakes: those of its node. */
    static Set<ResourceID> wakes(MaintenanceSettings settings, Lease lease, List<NodeMaintenance> all) {
        return all.stream()
                .filter(nm -> leaseOf(settings, nm, lease))
                .map(ResourceID::fromResource)
                .collect(Collectors.toSet());
    }
}
