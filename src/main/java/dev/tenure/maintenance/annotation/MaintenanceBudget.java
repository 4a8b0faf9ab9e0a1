package dev.tenure.maintenance.annotation;

import io.fabric8.kubernetes.api.model.Node;
import java.util.List;

/**
 * The operator-wide limits (cluster-wide cap, control-plane budget) as the annotation front door sees them:
 * why {@code node} may not go into maintenance now, empty when it may. The same rules as NodeMaintenance
 * admission ({@code MaintenanceLimits.refusals}), counting the nodes held by either front door.
 */
@FunctionalInterface
public interface MaintenanceBudget {

    /** No limits (tests of the protocol alone). */
    MaintenanceBudget UNLIMITED = node -> List.of();

    List<String> refusals(Node node);
}
