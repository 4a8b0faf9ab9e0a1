package dev.tenure.rollout;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenure.maintenance.admission.AdmissionCaches;
import dev.tenure.maintenance.admission.NodeMaintenanceAuthorizer;
import dev.tenure.maintenance.admission.NodeMaintenanceWebhook;
import dev.tenure.maintenance.admission.OperatorServiceAccount;
import dev.tenure.rollout.api.NodeMaintenanceRollout;
import dev.tenure.rollout.api.RolloutSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Validating admission webhook for NodeMaintenanceRollout ({@value #PATH}), the rollout's side of
 * NodeMaintenance's ({@link NodeMaintenanceWebhook}): the operator creates the children with its own account, so the
 * requester is checked here, on the rollout, for what its children will do ({@link RolloutAdmission}). CREATE, and an
 * UPDATE that changes the spec other than {@code paused}: the spec's rules (422 naming each field), a node another
 * rollout would pick (422 naming it and the rollout), then the requester's rights (403 naming what they lack).
 * DELETE: the rights to end each maintenance in flight. The operator's own writes (finalizer, status) pass unchecked.
 * Without the webhook (plain manifests) the reconciler still refuses a bad spec ({@code phase: Invalid}) and holds a
 * node another maintenance is on; nothing checks rights or refuses an overlap.
 */
@Path(NodeMaintenanceRolloutWebhook.PATH)
public class NodeMaintenanceRolloutWebhook {

    public static final String PATH = "/validate-nodemaintenancerollout";

    private final KubernetesSerialization json;
    private final NodeMaintenanceAuthorizer authorizer;
    private final OperatorServiceAccount operator;
    /** The nodes an overlap is looked for among: the admission caches. */
    private final Supplier<List<Node>> nodes;
    /** Every rollout (a LIST per CREATE or spec UPDATE: rollouts are few and rarely written). */
    private final Supplier<List<NodeMaintenanceRollout>> rollouts;

    @Inject
    public NodeMaintenanceRolloutWebhook(
            KubernetesClient client,
            NodeMaintenanceAuthorizer authorizer,
            AdmissionCaches caches,
            OperatorServiceAccount operator) {
        this(
                client.getKubernetesSerialization(),
                authorizer,
                operator,
                caches::nodes,
                () -> client.resources(NodeMaintenanceRollout.class).list().getItems());
    }

    NodeMaintenanceRolloutWebhook(
            KubernetesSerialization json,
            NodeMaintenanceAuthorizer authorizer,
            OperatorServiceAccount operator,
            Supplier<List<Node>> nodes,
            Supplier<List<NodeMaintenanceRollout>> rollouts) {
        this.json = json;
        this.authorizer = authorizer;
        this.operator = operator;
        this.nodes = nodes;
        this.rollouts = rollouts;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public String review(String body) {
        return NodeMaintenanceWebhook.reviewed(body, json, this::respond);
    }

    AdmissionResponse respond(AdmissionRequest request, KubernetesSerialization json) {
        if (request == null) {
            return NodeMaintenanceWebhook.badRequest(null, "the AdmissionReview carries no request");
        }
        String operation = request.getOperation();
        if (operator.is(request.getUserInfo())) {
            return allowed(request);
        }
        try {
            if ("DELETE".equals(operation)) {
                if (request.getOldObject() == null) {
                    return NodeMaintenanceWebhook.badRequest(
                            request.getUid(),
                            "DELETE of NodeMaintenanceRollout " + request.getName()
                                    + ": the review carries no oldObject, so the maintenances it would end are"
                                    + " unknown");
                }
                NodeMaintenanceRollout old = json.convertValue(request.getOldObject(), NodeMaintenanceRollout.class);
                return answer(
                        request,
                        List.of(),
                        authorizer.refusals(
                                request.getUserInfo(),
                                RolloutAdmission.rightsToDelete(old.getStatus()),
                                "may not delete NodeMaintenanceRollout " + request.getName()
                                        + ": it ends the maintenances in flight, undoing what each did to its node,"
                                        + " which its deleter must be able to do by hand"));
            }
            if (!"CREATE".equals(operation) && !"UPDATE".equals(operation)) {
                return allowed(request);
            }
            JsonNode raw = json.convertValue(request.getObject(), JsonNode.class);
            NodeMaintenanceRollout candidate = json.convertValue(raw, NodeMaintenanceRollout.class);
            RolloutSpec spec = candidate.getSpec();
            if ("UPDATE".equals(operation) && request.getOldObject() != null) {
                NodeMaintenanceRollout old = json.convertValue(request.getOldObject(), NodeMaintenanceRollout.class);
                if (sameBesidesPaused(json, spec, old.getSpec())) {
                    return allowed(request);
                }
            }
            JsonNode rawSpec = raw.path("spec");
            List<String> errors = RolloutAdmission.refusals(
                    request.getName(), spec, rawSpec.isMissingNode() ? null : rawSpec, nodes.get(), rollouts.get());
            if (!errors.isEmpty()) {
                return answer(request, errors, List.of());
            }
            return answer(
                    request,
                    List.of(),
                    authorizer.refusals(
                            request.getUserInfo(),
                            RolloutAdmission.requiredRights(spec),
                            "may not run NodeMaintenanceRollout " + request.getName()
                                    + " over its nodes: its children, created by the operator, do what its"
                                    + " requester could do by hand to each node it picks ("
                                    + (spec.getNodeSelector() == null
                                            ? "each node of spec.nodes"
                                            : "a spec.nodeSelector picks any node, present or future: list them in"
                                                    + " spec.nodes to be checked per node")
                                    + ")"));
        } catch (RuntimeException e) {
            return NodeMaintenanceWebhook.badRequest(
                    request.getUid(),
                    operation + " of NodeMaintenanceRollout " + request.getName() + ": the review cannot be read: "
                            + e.getMessage());
        }
    }

    /** Whether two specs differ at most in {@code paused} (pausing and resuming run what was admitted). */
    private static boolean sameBesidesPaused(KubernetesSerialization json, RolloutSpec a, RolloutSpec b) {
        if (a == null || b == null) {
            return a == b;
        }
        RolloutSpec x = json.clone(a);
        RolloutSpec y = json.clone(b);
        x.setPaused(null);
        y.setPaused(null);
        return Objects.equals(json.asJson(x), json.asJson(y));
    }

    private static AdmissionResponse allowed(AdmissionRequest request) {
        return NodeMaintenanceWebhook.answer(request.getUid(), List.of(), List.of(), List.of(), List.of());
    }

    private static AdmissionResponse answer(AdmissionRequest request, List<String> errors, List<String> refusals) {
        return NodeMaintenanceWebhook.answer(request.getUid(), errors, refusals, List.of(), List.of());
    }
}
