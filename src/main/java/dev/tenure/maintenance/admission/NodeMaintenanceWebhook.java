package dev.tenure.maintenance.admission;

import dev.tenure.maintenance.api.NodeMaintenance;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
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
import java.util.function.BiFunction;

/**
 * Validating admission webhook for NodeMaintenance. CREATE and UPDATE: the {@link NodeMaintenanceValidator} rules,
 * answered before the object is stored, and the {@link NodeMaintenanceAuthorizer} check that the requesting user
 * could cordon and drain the node themselves (403, naming the missing rights). DELETE: the check that they could undo
 * it by hand (patch the node). The operator's own writes pass unchecked. Register it with a
 * ValidatingWebhookConfiguration pointing at {@value #PATH} (see docs/node-maintenance.md); without it the reconciler
 * applies the same rules, and nothing checks who deletes.
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

    @Inject
    OperatorServiceAccount operator;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public String review(String body) {
        return reviewed(body, client.getKubernetesSerialization(), this::respond);
    }

    /**
     * The AdmissionReview that answers {@code body} with {@code respond} (a null request when the body cannot be
     * read): the envelope both of Tenure's webhooks share, echoing the review's apiVersion.
     */
    public static String reviewed(
            String body,
            KubernetesSerialization json,
            BiFunction<AdmissionRequest, KubernetesSerialization, AdmissionResponse> respond) {
        AdmissionReview review;
        try {
            review = json.unmarshal(body, AdmissionReview.class);
        } catch (RuntimeException e) {
            review = null;
        }
        AdmissionRequest request = review == null ? null : review.getRequest();
        AdmissionReview answer = new AdmissionReview();
        answer.setApiVersion(
                review == null || review.getApiVersion() == null ? "admission.k8s.io/v1" : review.getApiVersion());
        answer.setKind("AdmissionReview");
        answer.setResponse(respond.apply(request, json));
        return json.asJson(answer);
    }

    /**
     * The answer to one request. The operator's own writes are admitted unchecked ({@link OperatorServiceAccount}: its
     * finalizer's removal must never wait on a rule or a review). CREATE and UPDATE: the rules, then the requester's
     * rights; DELETE: the requester's rights to end the maintenance ({@link #deleteAnswer}). A review that cannot
     * be read is denied as a BadRequest naming what is wrong, never answered with an error (which the API server
     * would report as a failed call).
     */
    AdmissionResponse respond(AdmissionRequest request, KubernetesSerialization json) {
        if (request == null) {
            return badRequest(null, "the AdmissionReview carries no request");
        }
        if (operator.is(request.getUserInfo())) {
            return answer(request.getUid(), List.of(), List.of(), List.of(), List.of());
        }
        String operation = request.getOperation();
        try {
            if ("DELETE".equals(operation)) {
                return deleteAnswer(request, json);
            }
            NodeMaintenanceValidator.Verdict verdict = verdict(request, json);
            List<String> errors = verdict.refusals();
            // Only a valid request is worth a SubjectAccessReview per right.
            List<String> refusals = errors.isEmpty() ? refusals(request, json) : List.of();
            return answer(request.getUid(), errors, refusals, verdict.holds(), verdict.ownHolds());
        } catch (RuntimeException e) {
            return badRequest(
                    request.getUid(),
                    operation + " of NodeMaintenance " + request.getName() + ": the review cannot be read: "
                            + e.getMessage());
        }
    }

    /**
     * A DELETE ends the maintenance, which uncordons the node: the requester must hold {@link
     * NodeMaintenanceAuthorizer#rightsToEnd} on the node in {@code oldObject} (the one it was admitted for,
     * {@link NodeMaintenanceValidator#nodeOf}). kube-apiserver always sends oldObject on DELETE; a review without it
     * cannot say which node and is refused. A NodeMaintenance that names no node has touched none, and is let go.
     */
    private AdmissionResponse deleteAnswer(AdmissionRequest request, KubernetesSerialization json) {
        if (request.getOldObject() == null) {
            return badRequest(
                    request.getUid(),
                    "DELETE of NodeMaintenance " + request.getName()
                            + ": the review carries no oldObject, so the node whose maintenance would end is unknown");
        }
        NodeMaintenance old = json.convertValue(request.getOldObject(), NodeMaintenance.class);
        String nodeName = NodeMaintenanceValidator.nodeOf(old);
        if (nodeName == null) {
            return answer(request.getUid(), List.of(), List.of(), List.of(), List.of());
        }
        return answer(
                request.getUid(),
                List.of(),
                authorizer.endRefusals(request.getUserInfo(), nodeName),
                List.of(),
                List.of());
    }

    public static AdmissionResponse badRequest(String uid, String message) {
        return new AdmissionResponseBuilder()
                .withUid(uid)
                .withAllowed(false)
                .withStatus(new io.fabric8.kubernetes.api.model.StatusBuilder()
                        .withCode(400)
                        .withStatus("Failure")
                        .withReason("BadRequest")
                        .withMessage(message)
                        .build())
                .build();
    }

    /**
     * The answer to a review: {@code errors} (the rules) deny it as Invalid (422), else {@code refusals} (the user's
     * rights) as Forbidden (403); {@code holds} (the operator-wide limits, full now) admit it with a warning, which
     * kubectl prints: the NodeMaintenance waits Pending in the fair queue and starts when a slot frees and it is first;
     * those of {@code holds} that are also in {@code ownHolds} (its topology domain's cap, the control-plane budget)
     * are worded apart: a free slot does not lift them, and the queue passes the request over meanwhile.
     */
    public static AdmissionResponse answer(
            String uid, List<String> errors, List<String> refusals, List<String> holds, List<String> ownHolds) {
        var response = new AdmissionResponseBuilder().withUid(uid).withAllowed(errors.isEmpty() && refusals.isEmpty());
        if (errors.isEmpty() && refusals.isEmpty() && !holds.isEmpty()) {
            response.withWarnings(holds.stream()
                    .map(hold -> ownHolds.contains(hold)
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
        List<Node> nodes = NodeMaintenanceValidator.needsAllNodes(limits, node, ahead) ? caches.nodes() : List.of();
        return JoinedSpecs.review(
                candidate,
                NodeMaintenanceValidator.review(
                        candidate,
                        null,
                        new NodeMaintenanceValidator.ClusterView(node, nodes, ahead, elsewhere.nodes()),
                        limits),
                ahead);
    }
}
