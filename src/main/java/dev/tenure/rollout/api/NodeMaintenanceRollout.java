package dev.tenure.rollout.api;

import dev.tenure.maintenance.api.NodeMaintenance;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Rolls maintenance across a pool of nodes: creates one child {@link NodeMaintenance} per selected node (owned by
 * this object), a few at a time within {@code spec.maxUnavailable} and {@code spec.maxUnavailablePerDomain}, ends
 * each when its node is done ({@code spec.doneWhen}) and pauses at the failure budget. Each child is a plain
 * NodeMaintenance: what a node goes through (queue, limits, hooks, drain, forecast, undo) is exactly what a
 * NodeMaintenance does. Cluster-scoped. Modelled on system-upgrade-controller's Plan and the Deployment controller's
 * rolling update (docs/rollout.md compares it with both and with Kured, KEP-4212, NVIDIA's maintenance-operator,
 * Cluster API and the AKS/GKE pool upgrades).
 */
@Group(NodeMaintenance.GROUP)
@Version(NodeMaintenance.VERSION)
@ShortNames("tnmr")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Done", jsonPath = ".status.done", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
        name = "InProgress",
        jsonPath = ".status.inProgress",
        type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Waiting", jsonPath = ".status.waiting", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Failed", jsonPath = ".status.failed", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Reason", jsonPath = ".status.reason", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
public class NodeMaintenanceRollout extends CustomResource<RolloutSpec, RolloutStatus> {

    public NodeMaintenanceRollout() {}

    public NodeMaintenanceRollout(String name, RolloutSpec spec) {
        getMetadata().setName(name);
        setSpec(spec);
    }

    @Override
    protected RolloutStatus initStatus() {
        return new RolloutStatus();
    }
}
