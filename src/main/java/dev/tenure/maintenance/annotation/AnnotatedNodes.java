package dev.tenure.maintenance.annotation;

import dev.tenure.kube.NodeCache;
import dev.tenure.maintenance.NodeMaintenance;
import dev.tenure.maintenance.NodeMaintenanceValidator;
import dev.tenure.maintenance.NodesMaintainedElsewhere;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Nodes in maintenance by the annotation protocol, for NodeMaintenance admission (uniqueness and the cap), and
 * the budget the annotation door applies to itself, counting both doors. Admission reads the operator's shared
 * trimmed Node cache when it runs; the annotation door's budget reads the Nodes (and NodeMaintenances) when asked.
 */
@ApplicationScoped
public class AnnotatedNodes implements NodesMaintainedElsewhere {

    static final String HELD_BY = "annotation " + MaintenanceAnnotation.REQUEST;

    private final KubernetesClient client;
    private final NodeCache cache;

    @Inject
    public AnnotatedNodes(KubernetesClient client, NodeCache cache) {
        this.client = client;
        this.cache = cache;
    }

    /**
     * From the shared trimmed Node cache (annotations are kept) when it runs, on the leader: admission inside a
     * fail-closed webhook then costs no full Node LIST (issue 25); otherwise one LIST.
     */
    @Override
    public Map<String, String> nodes() {
        return heldByAnnotation(cache.informer()
                .filter(SharedIndexInformer::hasSynced)
                .map(i -> i.getStore().list())
                .orElseGet(() -> client.nodes().list().getItems()));
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

    /** The budget of the annotation door: the other nodes held by either door count against the limits. */
    public static MaintenanceBudget budget(KubernetesClient client, NodeMaintenanceValidator.Limits limits) {
        return node -> {
            List<Node> nodes = client.nodes().list().getItems();
            Set<String> busy = new HashSet<>(heldByAnnotation(nodes).keySet());
            for (NodeMaintenance nm :
                    client.resources(NodeMaintenance.class).list().getItems()) {
                if (nm.getMetadata().getDeletionTimestamp() == null
                        && nm.getSpec() != null
                        && NodeMaintenanceValidator.nodeOf(nm) != null
                        && NodeMaintenanceValidator.started(nm)) {
                    busy.add(NodeMaintenanceValidator.nodeOf(nm));
                }
            }
            return NodeMaintenanceValidator.budget(node, nodes, busy, limits);
        };
    }
}
