package dev.tenure.maintenance.annotation;

import dev.tenure.maintenance.admission.AdmissionCaches;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.NodeMaintenanceValidator;
import dev.tenure.maintenance.admission.NodesMaintainedElsewhere;
import dev.tenure.maintenance.api.NodeMaintenance;
import io.fabric8.kubernetes.api.model.Node;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Nodes in maintenance by the annotation protocol, for NodeMaintenance admission (uniqueness and the cap), and
 * the budget the annotation door applies to itself, counting both doors. Both read the {@link AdmissionCaches}
 * (no LIST per request once they have synced; a LIST each before).
 */
@ApplicationScoped
public class AnnotatedNodes implements NodesMaintainedElsewhere {

    static final String HELD_BY = "annotation " + MaintenanceAnnotation.REQUEST;

    private final AdmissionCaches caches;

    @Inject
    public AnnotatedNodes(AdmissionCaches caches) {
        this.caches = caches;
    }

    /** The index of the Node cache that files the Nodes the annotation door holds under {@link #HELD_BY}. */
    static final String HELD_INDEX = "tenure.dev/held-by-annotation";

    @Override
    public Map<String, String> nodes() {
        return heldByAnnotation(caches.nodesIndexed(HELD_INDEX, AnnotatedNodes::heldKey, HELD_BY));
    }

    @Override
    public Map<String, String> requested() {
        Map<String, String> out = new LinkedHashMap<>();
        for (Node n : caches.nodes()) {
            if (MaintenanceAnnotation.requestsNode(MaintenanceAnnotationController.annotationsOf(n))) {
                out.put(n.getMetadata().getName(), HELD_BY);
            }
        }
        return out;
    }

    /**
     * The NodeMaintenance that requests {@code node} and has started (waiting for its lease included), not being
     * deleted, as "NodeMaintenance &lt;name&gt;": the annotation door's end hands the node over to it.
     */
    public static java.util.Optional<String> maintenanceOf(AdmissionCaches caches, String node) {
        return caches.maintenances().stream()
                .filter(nm -> nm.getMetadata().getDeletionTimestamp() == null)
                .filter(nm -> node.equals(NodeMaintenanceValidator.nodeOf(nm)))
                .filter(nm -> NodeMaintenanceValidator.joinedTo(nm).isEmpty())
                .filter(NodeMaintenanceValidator::started)
                .map(nm -> "NodeMaintenance " + nm.getMetadata().getName())
                .findFirst();
    }

    private static List<String> heldKey(Node n) {
        return MaintenanceAnnotation.holdsNode(MaintenanceAnnotationController.annotationsOf(n))
                ? List.of(HELD_BY)
                : List.of();
    }

    static Map<String, String> heldByAnnotation(List<Node> nodes) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Node n : nodes) {
            if (MaintenanceAnnotation.holdsNode(MaintenanceAnnotationController.annotationsOf(n))) {
                out.put(n.getMetadata().getName(), HELD_BY);
            }
        }
        return out;
    }

    /**
     * The budget of the annotation door: the other nodes held by either door count against the limits. From the
     * caches: a hold written a moment ago by another worker may not be in them yet (the watch's delivery delay),
     * as a LIST racing that write would not see it either; the door's own node is current, its event woke the
     * reconcile and the informer delivers in order.
     */
    public static MaintenanceBudget budget(AdmissionCaches caches, MaintenanceLimits limits) {
        return node -> {
            // every Node only for a cap (it counts unavailable nodes) or a control-plane node's budget; the door's
            // holds from their index
            List<Node> nodes =
                    limits.needsAllNodes() || MaintenanceLimits.isControlPlane(node) ? caches.nodes() : List.of();
            Set<String> busy =
                    new HashSet<>(heldByAnnotation(caches.nodesIndexed(HELD_INDEX, AnnotatedNodes::heldKey, HELD_BY))
                            .keySet());
            for (NodeMaintenance nm : caches.maintenances()) {
                if (nm.getMetadata().getDeletionTimestamp() == null
                        && nm.getSpec() != null
                        && NodeMaintenanceValidator.nodeOf(nm) != null
                        && NodeMaintenanceValidator.started(nm)) {
                    busy.add(NodeMaintenanceValidator.nodeOf(nm));
                }
            }
            return limits.refusals(node, nodes, busy);
        };
    }
}
