package dev.tenure.maintenance.admission;

import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributesBuilder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;

/**
 * Who may put a node into maintenance: a user who could do by hand what the maintenance will do. Creating a
 * NodeMaintenance is node-admin power (cordon and taint a node, evict every pod on it, and with
 * {@code disableEviction} delete pods past their PodDisruptionBudgets), yet OLM aggregates the CRD's rights
 * into the built-in {@code edit} role, which cannot patch a Node. The admission webhook therefore asks, with a
 * SubjectAccessReview for the requesting user, for each right in {@link #requiredRights}, and names those missing.
 * Ending one (a DELETE) uncordons the node, and asks likewise for {@link #rightsToEnd}.
 */
@ApplicationScoped
public class NodeMaintenanceAuthorizer {

    /** One right the maintenance exercises on the user's behalf, and what for. */
    public record Right(String verb, String resource, String subresource, String name, String purpose) {

        ResourceAttributes attributes() {
            // Namespace unset: every namespace (the drain evicts the node's pods wherever they run).
            return new ResourceAttributesBuilder()
                    .withVerb(verb)
                    .withGroup("")
                    .withResource(resource)
                    .withSubresource(subresource)
                    .withName(name)
                    .build();
        }

        @Override
        public String toString() {
            String scope = "nodes".equals(resource) ? " (every node)" : " (all namespaces)";
            return verb + " " + resource + (subresource == null ? "" : "/" + subresource)
                    + (name == null ? scope : " " + name) + " (" + purpose + ")";
        }
    }

    private final AccessReviews reviews;

    @Inject
    public NodeMaintenanceAuthorizer(AccessReviews reviews) {
        this.reviews = reviews;
    }

    /** The rights a maintenance of {@code spec} exercises: kubectl cordon + drain's, on that node. */
    public static List<Right> requiredRights(NodeMaintenanceSpec spec) {
        List<Right> rights = new ArrayList<>();
        rights.add(new Right("patch", "nodes", null, spec.getNodeName(), "cordon and taint the node"));
        rights.add(new Right("create", "pods", "eviction", null, "evict the node's pods"));
        if (spec.getDrain() != null && Boolean.TRUE.equals(spec.getDrain().getDisableEviction())) {
            rights.add(new Right(
                    "delete", "pods", null, null, "disableEviction deletes pods past their PodDisruptionBudgets"));
        }
        return rights;
    }

    /**
     * The rights ending a maintenance of {@code nodeName} exercises: the undo's (uncordon, untaint, remove the
     * condition, restore the recorded prior state), all patches of that Node, what {@code kubectl uncordon} needs.
     */
    public static List<Right> rightsToEnd(String nodeName) {
        return List.of(new Right("patch", "nodes", null, nodeName, "uncordon, untaint and restore the node"));
    }

    /**
     * Why {@code user} may not request a maintenance of {@code spec}: empty when they hold every right in
     * {@link #requiredRights}, else one error naming the missing rights. A review that fails refuses too (the
     * webhook fails closed, as its failurePolicy does).
     */
    public List<String> refusals(UserInfo user, NodeMaintenanceSpec spec) {
        return refusals(
                user,
                requiredRights(spec),
                "may not put node " + spec.getNodeName()
                        + " into maintenance: a NodeMaintenance does what its creator could do by hand");
    }

    /**
     * Why {@code user} may not end the maintenance of {@code nodeName} (delete its NodeMaintenance): empty when they
     * hold every right in {@link #rightsToEnd}, else one error naming the node and the missing right. Deleting
     * uncordons the node, so it needs what undoing by hand needs; a review that fails refuses, as on create.
     */
    public List<String> endRefusals(UserInfo user, String nodeName) {
        return refusals(
                user,
                rightsToEnd(nodeName),
                "may not end the maintenance of node " + nodeName
                        + ": deleting a NodeMaintenance undoes what it did to the node, which its deleter must be"
                        + " able to do by hand");
    }

    /**
     * Why {@code user} may not make a request that exercises {@code rights}: empty when they hold each, else one error,
     * {@code "user <name> " + refusal}, naming the missing rights. A review that fails refuses (fail closed).
     */
    public List<String> refusals(UserInfo user, List<Right> rights, String refusal) {
        if (user == null || user.getUsername() == null || user.getUsername().isBlank()) {
            return List.of("the request names no user, so its rights cannot be checked");
        }
        List<String> missing = new ArrayList<>();
        for (Right right : rights) {
            boolean allowed;
            try {
                allowed = reviews.allowed(user, right.attributes());
            } catch (RuntimeException e) {
                return List.of(
                        "could not check whether " + user.getUsername() + " may " + right + ": " + e.getMessage());
            }
            if (!allowed) {
                missing.add(right.toString());
            }
        }
        if (missing.isEmpty()) {
            return List.of();
        }
        return List.of("user " + user.getUsername() + " " + refusal + ", and they lack " + String.join("; ", missing));
    }
}
