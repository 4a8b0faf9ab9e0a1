package dev.tenure.coordination;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.Optional;

/** Whether a node should lose the leaders it runs, for the MaintenanceAware strategy. */
public final class NodeAvailability {

    /** Taint Tenure's NodeMaintenance puts on a node it drains. */
    public static final String DRAIN_TAINT = "tenure.dev/drain";
    /** Node condition Tenure's NodeMaintenance sets while the node is in maintenance. */
    public static final String MAINTENANCE_CONDITION = "tenure.dev/Maintenance";

    private NodeAvailability() {}

    /** Why the node is unavailable for leadership (cordoned, drain taint, maintenance condition), or empty. */
    public static Optional<String> unavailableReason(Node node) {
        if (node == null) {
            return Optional.empty();
        }
        if (node.getSpec() != null) {
            if (Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
                return Optional.of("node " + node.getMetadata().getName() + " is cordoned");
            }
            if (node.getSpec().getTaints() != null) {
                for (Taint t : node.getSpec().getTaints()) {
                    if (DRAIN_TAINT.equals(t.getKey())) {
                        return Optional.of("node " + node.getMetadata().getName() + " has taint " + DRAIN_TAINT);
                    }
                }
            }
        }
        if (node.getStatus() != null && node.getStatus().getConditions() != null) {
            for (NodeCondition c : node.getStatus().getConditions()) {
                if (MAINTENANCE_CONDITION.equals(c.getType()) && "True".equals(c.getStatus())) {
                    return Optional.of("node " + node.getMetadata().getName() + " is in maintenance");
                }
            }
        }
        return Optional.empty();
    }
}
