package dev.tenure.maintenance.admission;

import dev.tenure.maintenance.api.NodeMaintenance;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponseBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Optional;

/**
 * Validating admission webhook for NodeMaintenance (CREATE and UPDATE): the {@link NodeMaintenanceValidator}
 * rules, answered before the object is stored, and the {@link NodeMaintenanceAuthorizer} check that the
 * requesting user could cordon and drain the node themselves (403, naming the missing rights). Register it with a ValidatingWebhookConfiguration pointing at
 * {@value #PATH} (see docs/node-maintenance.md); without it the reconciler applies the same rules.
 */
@Path(NodeMaintenanceWebhook.PATH)
public class NodeMaintenanceWebhook {

    public static final String PATH = "/validate-nodemaintenance";

    @Inject
    KubernetesClient client;

    @Inject
    public MaintenanceLimits limits;

    @Inject
    NodesMaintainedElsewhere elsewhere;

    @Inject
    NodeMaintenanceAuthorizer authorizer;

    @Inject
    AdmissionCaches caches;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public String review(String body) {
        KubernetesSerialization json = client.getKubernetesSerialization();
        AdmissionReview review = json.unmarshal(body, AdmissionReview.class);
        AdmissionRequest request = review.getRequest();
        NodeMaintenanceValidator.Verdict verdict = verdict(request, json);
        List<String> errors = verdict.refusals();
        // Only a valid request is worth a SubjectAccessReview per right.
        List<String> refusals = errors.isEmpty() ? refusals(request, json) : List.of();
        AdmissionReview answer = new AdmissionReview();
        answer.setApiVersion(review.getApiVersion() == null ? "admission.k8s.io/v1" : review.getApiVersion());
        answer.setKind("AdmissionReview");
        answer.setResponse(answer(request.getUid(), errors, refusals, verdict.holds()));
        return json.asJson(answer);
    }

    /**
     * The answer to a review: {@code errors} (the rules) deny it as Invalid (422), else {@code refusals} (the user's
     * rights) as Forbidden (403); {@code holds} (the operator-wide limits, full now) admit it with a warning, which
     * kubectl prints: the NodeMaintenance waits Pending in the fair queue and starts when a slot frees and it is first.
     */
    static io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse answer(
            String uid, List<String> errors, List<String> refusals, List<String> holds) {
        var response = new AdmissionResponseBuilder().withUid(uid).withAllowed(errors.isEmpty() && refusals.isEmpty());
        if (errors.isEmpty() && refusals.isEmpty() && !holds.isEmpty()) {
            response.withWarnings(holds.stream()
                    .map(hold -> hold.startsWith(MaintenanceLimits.CONTROL_PLANE_BUDGET)
                            ? "waits Pending until its own limit allows it (the queue passes it over meanwhile): "
                                    + hold
                            : "held in the queue until a slot frees: " + hold)
                    .toList());
        }
        if (!errors.isEmpty()) {
            response.withStatus(new io.fabric8.kubernetes.api.model.StatusBuilder()
                    .withCode(422)
                    .withStatus("Failure")
                    .withReason("Invalid")
                    .withMessage(String.join("; ", errors))
                    .build());
        } else if (!refusals.isEmpty()) {
            response.withStatus(new io.fabric8.kubernetes.api.model.StatusBuilder()
                    .withCode(403)
                    .withStatus("Failure")
                    .withReason("Forbidden")
                    .withMessage(String.join("; ", refusals))
                    .build());
        }
        return response.build();
    }

    /** CREATE, and an UPDATE (which may turn on disableEviction): the requesting user's rights, checked. */
    private List<String> refusals(AdmissionRequest request, KubernetesSerialization json) {
        String operation = request.getOperation();
        if (!"CREATE".equals(operation) && !"UPDATE".equals(operation)) {
            return List.of();
        }
        NodeMaintenance candidate = json.convertValue(request.getObject(), NodeMaintenance.class);
        if (candidate.getSpec() == null) {
            return List.of();
        }
        return authorizer.refusals(request.getUserInfo(), candidate.getSpec());
    }

    private NodeMaintenanceValidator.Verdict verdict(AdmissionRequest request, KubernetesSerialization json) {
        String operation = request.getOperation();
        if (!"CREATE".equals(operation) && !"UPDATE".equals(operation)) {
            return new NodeMaintenanceValidator.Verdict(List.of(), List.of(), Optional.empty(), Optional.empty());
        }
        NodeMaintenance candidate = json.convertValue(request.getObject(), NodeMaintenance.class);
        NodeMaintenance old = "UPDATE".equals(operation) && request.getOldObject() != null
                ? json.convertValue(request.getOldObject(), NodeMaintenance.class)
                : null;
        if (old != null) {
            return NodeMaintenanceValidator.review(
                    candidate,
                    old,
                    new NodeMaintenanceValidator.ClusterView(Optional.empty(), List.of(), List.of()),
                    limits);
        }
        return reviewOfCreate(candidate, caches, elsewhere, limits);
    }

    /**
     * A CREATE's refusals and holds, read from {@code caches} (every replica runs them: no GET or LIST per review once they
     * have synced). A cache that lags may admit a duplicate of a NodeMaintenance created a moment before; the
     * reconciler refuses the later one ({@link NodeMaintenanceValidator#ahead}).
     */
    public static NodeMaintenanceValidator.Verdict reviewOfCreate(
            NodeMaintenance candidate,
            AdmissionCaches caches,
            NodesMaintainedElsewhere elsewhere,
            MaintenanceLimits limits) {
        String nodeName =
                candidate.getSpec() == null ? null : candidate.getSpec().getNodeName();
        Optional<Node> node = nodeName == null || nodeName.isBlank() ? Optional.empty() : caches.node(nodeName);
        List<NodeMaintenance> ahead = NodeMaintenanceValidator.ahead(candidate, caches.maintenances());
        List<Node> nodes = NodeMaintenanceValidator.needsAllNodes(node, ahead) ? caches.nodes() : List.of();
        return NodeMaintenanceValidator.review(
                candidate,
                null,
                new NodeMaintenanceValidator.ClusterView(node, nodes, ahead, elsewhere.nodes()),
                limits);
    }
}
