package dev.tenure.maintenance.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Puts one node into maintenance: lease, cordon and taints, leadership handover, drain; undone when
 * the resource is deleted or its window ends. Field names follow medik8s' NodeMaintenance so that
 * moving over is a change of apiVersion. Cluster-scoped (it does not implement {@link Namespaced}).
 */
@Group(NodeMaintenance.GROUP)
@Version(NodeMaintenance.VERSION)
@ShortNames("tnm")
@AdditionalPrinterColumn(name = "Node", jsonPath = ".spec.nodeName", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Progress",
        jsonPath = ".status.drainProgress",
        type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Reason", jsonPath = ".spec.reason", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
public class NodeMaintenance extends CustomResource<NodeMaintenanceSpec, NodeMaintenanceStatus> {

    public static final String GROUP = "tenure.dev";
    public static final String VERSION = "v1alpha1";

    public NodeMaintenance() {}

    public NodeMaintenance(String name, NodeMaintenanceSpec spec) {
        getMetadata().setName(name);
        setSpec(spec);
    }

    @Override
    protected NodeMaintenanceStatus initStatus() {
        return new NodeMaintenanceStatus();
    }
}
