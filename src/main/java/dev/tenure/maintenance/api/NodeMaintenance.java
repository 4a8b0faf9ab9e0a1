package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

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
@AdditionalPrinterColumn(name = "Waiting", jsonPath = ".status.waitingFor", type = AdditionalPrinterColumn.Type.STRING)
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

    /** Fields read as absent because their JSON type was wrong ({@link MalformedFields}); never serialized. */
    @JsonIgnore
    private final List<String> malformed = new CopyOnWriteArrayList<>();

    /**
     * What was wrong with the fields this object was read with, one message per field naming it ({@code spec.join:
     * must be a boolean, was "yes"}); empty for a well-formed object. Only the object as read carries them: a copy
     * made by serializing it has the fields absent and no messages ({@link #carryMalformedFields}).
     */
    public List<String> malformedFields() {
        return List.copyOf(malformed);
    }

    void malformed(String message) {
        malformed.add(message);
    }

    /** Gives {@code copy} the messages of {@code read}, the object it was copied from (same resourceVersion). */
    public static void carryMalformedFields(NodeMaintenance read, NodeMaintenance copy) {
        List<String> notes = List.copyOf(read.malformed); // read may be copy itself
        if (!notes.isEmpty()
                && java.util.Objects.equals(
                        read.getMetadata().getResourceVersion(),
                        copy.getMetadata().getResourceVersion())) {
            copy.malformed.clear();
            copy.malformed.addAll(notes);
        }
    }

    @Override
    protected NodeMaintenanceStatus initStatus() {
        return new NodeMaintenanceStatus();
    }
}
