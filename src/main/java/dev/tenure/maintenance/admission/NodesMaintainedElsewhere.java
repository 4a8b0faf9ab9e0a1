package dev.tenure.maintenance.admission;

import dev.tenure.maintenance.machine.MaintenanceMachine;
import java.util.Map;

/**
 * Nodes put into maintenance by another front door of the {@link MaintenanceMachine} (the node
 * annotation protocol), so that NodeMaintenance validation counts them: one maintenance per node, and
 * the cluster-wide cap. The annotation protocol provides a CDI bean; without one, there are none.
 */
@FunctionalInterface
public interface NodesMaintainedElsewhere {

    /** Node name → what holds it (for messages, e.g. "annotation lifecycle.metal3.io/maintenance"). */
    Map<String, String> nodes();

    /**
     * Node name → the active request of the other door for it, holding the node or waiting to (a NodeMaintenance that
     * ends hands the node over to it rather than restoring it: no instant between the two where the node is
     * schedulable). By default, the nodes held.
     */
    default Map<String, String> requested() {
        return nodes();
    }

    /** The default bean: nothing but NodeMaintenances puts nodes into maintenance. */
    @io.quarkus.arc.DefaultBean
    @jakarta.enterprise.context.ApplicationScoped
    public class None implements NodesMaintainedElsewhere {
        @Override
        public Map<String, String> nodes() {
            return Map.of();
        }
    }
}
