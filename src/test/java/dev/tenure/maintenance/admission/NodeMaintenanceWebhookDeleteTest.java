package dev.tenure.maintenance.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 39: deleting a NodeMaintenance ends it and uncordons the node, so the webhook asks of the deleter what undoing
 * by hand needs (patch on the node), and never stands in the way of the operator's own writes (its finalizer's
 * removal is an UPDATE). Reviews are parsed from AdmissionReview JSON as the endpoint parses them.
 */
class NodeMaintenanceWebhookDeleteTest {

    static final KubernetesSerialization JSON = new KubernetesSerialization();
    static final OperatorServiceAccount OPERATOR = new OperatorServiceAccount("tenure-system", "tenure-operator");

    /** Rights per user, as "verb resource[/sub]" (any name) or "verb resource name". */
    static final Map<String, Set<String>> RIGHTS = Map.of(
            // what a cluster-wide `edit` binding gives, with the NodeMaintenance rights OLM aggregates into it
            "eddie", Set.of("create pods/eviction", "delete pods", "delete nodemaintenances"),
            "ada", Set.of("patch nodes", "create pods/eviction", "delete pods"),
            "uma", Set.of("patch nodes worker-1"));

    // the webhook is built by hand here: only the parts a DELETE and the operator's exemption read are set
    @SuppressWarnings("UnnecessaryAssignment")
    static NodeMaintenanceWebhook webhook(AccessReviews reviews) {
        NodeMaintenanceWebhook webhook = new NodeMaintenanceWebhook();
        webhook.authorizer = new NodeMaintenanceAuthorizer(reviews);
        webhook.operator = OPERATOR;
        return webhook;
    }

    /** The operator's service account holds no right here: its writes must pass without asking. */
    static final NodeMaintenanceWebhook WEBHOOK = webhook((user, a) -> {
        Set<String> rights = RIGHTS.getOrDefault(user.getUsername(), Set.of());
        return rights.contains(a.getVerb() + " " + a.getResource()
                        + (a.getSubresource() == null ? "" : "/" + a.getSubresource()))
                || rights.contains(a.getVerb() + " " + a.getResource() + " " + a.getName());
    });

    static String nm(String name, String spec, String status, String metadata) {
        return "{\"apiVersion\":\"tenure.dev/v1alpha1\",\"kind\":\"NodeMaintenance\",\"metadata\":{\"name\":\"" + name
                + "\"" + metadata + "},\"spec\":" + spec + (status == null ? "" : ",\"status\":" + status) + "}";
    }

    static AdmissionRequest request(String operation, String user, String object, String oldObject) {
        String body = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
                + "\"uid\":\"u-1\",\"name\":\"m\",\"operation\":\"" + operation + "\""
                + (user == null ? "" : ",\"userInfo\":{\"username\":\"" + user + "\"}")
                + (object == null ? "" : ",\"object\":" + object)
                + (oldObject == null ? "" : ",\"oldObject\":" + oldObject) + "}}";
        return JSON.unmarshal(body, AdmissionReview.class).getRequest();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            edit-only user is refused, naming the node and the right | eddie | worker-1 | -        | 403 | user eddie may not end the maintenance of node worker-1; patch nodes worker-1 (uncordon, untaint and restore the node)
            a node admin may end it                                   | ada   | worker-1 | -        | -   | -
            patch on that one node is enough                          | uma   | worker-1 | -        | -   | -
            patch on another node is not                              | uma   | worker-2 | -        | 403 | may not end the maintenance of node worker-2
            the node it was admitted for is asked, not an edited spec | uma   | worker-2 | worker-1 | -   | -
            the pinned node is named in the refusal                   | eddie | worker-1 | worker-3 | 403 | node worker-3; patch nodes worker-3
            an unknown node is asked about like any other             | eddie | ghost    | -        | 403 | node ghost; patch nodes ghost
            a node admin may end one on an unknown node               | ada   | ghost    | -        | -   | -
            the operator's own delete is not checked                  | system:serviceaccount:tenure-system:tenure-operator | worker-1 | - | - | -
            a namesake in another namespace is checked                | system:serviceaccount:other:tenure-operator | worker-1 | - | 403 | user system:serviceaccount:other:tenure-operator may not end
            """)
    void deleteNeedsWhatUndoingByHandNeeds(
            String name, String user, String specNode, String pinnedNode, Integer code, String messages) {
        String status = pinnedNode == null ? null : "{\"phase\":\"Running\",\"nodeName\":\"" + pinnedNode + "\"}";
        AdmissionResponse answer = WEBHOOK.respond(
                request("DELETE", user, null, nm("m", "{\"nodeName\":\"" + specNode + "\"}", status, "")), JSON);
        assertThat(answer.getUid()).isEqualTo("u-1");
        if (code == null) {
            assertThat(answer.getAllowed()).as(name).isTrue();
            assertThat(answer.getStatus()).isNull();
        } else {
            assertThat(answer.getAllowed()).as(name).isFalse();
            assertThat(answer.getStatus().getCode()).isEqualTo(code);
            for (String part : messages.split("; ")) {
                assertThat(answer.getStatus().getMessage()).as(name).contains(part);
            }
        }
    }

    @Test
    void aDeleteWithoutOldObjectIsABadRequestNamingWhy() {
        AdmissionResponse answer = WEBHOOK.respond(request("DELETE", "ada", null, null), JSON);
        assertThat(answer.getAllowed()).isFalse();
        assertThat(answer.getStatus().getCode()).isEqualTo(400);
        assertThat(answer.getStatus().getMessage())
                .isEqualTo("DELETE of NodeMaintenance m: the review carries no oldObject, so the node whose "
                        + "maintenance would end is unknown");
    }

    @Test
    void aNodeMaintenanceThatNamesNoNodeTouchedNoneAndMayBeDeleted() {
        AdmissionResponse answer = WEBHOOK.respond(request("DELETE", "eddie", null, nm("m", "{}", null, "")), JSON);
        assertThat(answer.getAllowed()).isTrue();
    }

    @Test
    void aDeleteWithNoUserOrAFailedReviewIsRefused() {
        String old = nm("m", "{\"nodeName\":\"worker-1\"}", null, "");
        assertThat(WEBHOOK.respond(request("DELETE", null, null, old), JSON)
                        .getStatus()
                        .getMessage())
                .contains("names no user");
        NodeMaintenanceWebhook failing = webhook((user, a) -> {
            throw new IllegalStateException("connection refused");
        });
        AdmissionResponse answer = failing.respond(request("DELETE", "ada", null, old), JSON);
        assertThat(answer.getAllowed()).isFalse();
        assertThat(answer.getStatus().getMessage())
                .contains("could not check whether ada may patch nodes worker-1")
                .contains("connection refused");
    }

    @Test
    void anUnreadableReviewIsABadRequestNotAnError() {
        assertThat(WEBHOOK.respond(null, JSON).getStatus().getCode()).isEqualTo(400);
        AdmissionResponse answer =
                WEBHOOK.respond(request("DELETE", "eddie", null, "{\"metadata\":\"not an object\"}"), JSON);
        assertThat(answer.getAllowed()).isFalse();
        assertThat(answer.getStatus().getCode()).isEqualTo(400);
        assertThat(answer.getStatus().getMessage())
                .startsWith("DELETE of NodeMaintenance m: the review cannot be read: ");
    }

    /**
     * The operator removes its finalizer with an UPDATE of a NodeMaintenance being deleted; it passes though the
     * operator holds no right here and the spec is one today's rules refuse (written before a rule was tightened).
     * Anyone else's UPDATE of it is still checked.
     */
    @Test
    void theOperatorsFinalizerRemovalIsNeverRefused() {
        String spec = "{\"nodeName\":\"worker-1\",\"window\":\"1000000h\",\"drain\":{\"disableEviction\":true}}";
        String deleting = ",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"";
        String before = nm("m", spec, null, deleting + ",\"finalizers\":[\"nodemaintenances.tenure.dev/finalizer\"]");
        String after = nm("m", spec, null, deleting);
        AdmissionResponse operator = WEBHOOK.respond(request("UPDATE", OPERATOR.username(), after, before), JSON);
        assertThat(operator.getAllowed()).isTrue();
        assertThat(operator.getStatus()).isNull();
        AdmissionResponse someoneElse = WEBHOOK.respond(request("UPDATE", "ada", after, before), JSON);
        assertThat(someoneElse.getAllowed()).isFalse();
        assertThat(someoneElse.getStatus().getMessage()).contains("spec.window");
    }
}
