package dev.tenure.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.admission.AccessReviews;
import dev.tenure.maintenance.admission.NodeMaintenanceAuthorizer;
import dev.tenure.maintenance.admission.OperatorServiceAccount;
import dev.tenure.rollout.api.NodeMaintenanceRollout;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 52, item 8: the rollout's admission. The operator creates the children with its own account, so the
 * requester is checked on the rollout for every node it may pick (a selector: every node, present and future; a named
 * node: that node), a bad spec is refused naming the field (a field the API does not declare too, anywhere in the
 * spec), a node another rollout
 * would pick is refused naming both, and deleting needs what ending each maintenance in flight needs. Reviews are
 * parsed from AdmissionReview JSON as the endpoint parses them; rights are answered from a table, as a
 * SubjectAccessReview would answer them from RBAC.
 */
class NodeMaintenanceRolloutWebhookTest {

    static final KubernetesSerialization JSON = new KubernetesSerialization();
    static final OperatorServiceAccount OPERATOR = new OperatorServiceAccount("tenure-system", "tenure-operator");

    /** Rights per user, as "verb resource[/sub]" (any name) or "verb resource name". */
    static final Map<String, Set<String>> RIGHTS = Map.of(
            // the rights OLM aggregates into `edit`: no node
            "eddie", Set.of("create pods/eviction", "delete pods"),
            "ada", Set.of("patch nodes", "create pods/eviction", "delete pods"),
            "uma", Set.of("patch nodes worker-1", "create pods/eviction"));

    static final AccessReviews REVIEWS = (user, a) -> {
        Set<String> rights = RIGHTS.getOrDefault(user.getUsername(), Set.of());
        return rights.contains(a.getVerb() + " " + a.getResource()
                        + (a.getSubresource() == null ? "" : "/" + a.getSubresource()))
                || rights.contains(a.getVerb() + " " + a.getResource() + " " + a.getName());
    };

    static Node node(String name, String pool) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("pool", pool)
                .endMetadata()
                .build();
    }

    static NodeMaintenanceRollout rollout(String name, String spec, String metadata) {
        return JSON.unmarshal(rolloutJson(name, spec, null, metadata), NodeMaintenanceRollout.class);
    }

    static String rolloutJson(String name, String spec, String status, String metadata) {
        return "{\"apiVersion\":\"tenure.dev/v1alpha1\",\"kind\":\"NodeMaintenanceRollout\",\"metadata\":{\"name\":\""
                + name + "\"" + metadata + "},\"spec\":" + spec + (status == null ? "" : ",\"status\":" + status) + "}";
    }

    static NodeMaintenanceRolloutWebhook webhook() {
        return new NodeMaintenanceRolloutWebhook(
                JSON,
                new NodeMaintenanceAuthorizer(REVIEWS),
                OPERATOR,
                () -> List.of(node("worker-1", "a"), node("worker-2", "a"), node("worker-3", "b")),
                () -> List.of(
                        rollout(
                                "kernel",
                                "{\"nodeSelector\":{\"matchLabels\":{\"pool\":\"b\"}},\"nodes\":[\"ghost\"]}",
                                ""),
                        rollout(
                                "going",
                                "{\"nodeSelector\":{\"matchLabels\":{\"pool\":\"a\"}}}",
                                ",\"deletionTimestamp\":\"2026-03-01T00:00:00Z\",\"finalizers\":[\"f\"]"),
                        rollout("self", "{\"nodes\":[\"worker-9\"]}", "")));
    }

    static AdmissionResponse respond(String operation, String user, String name, String object, String oldObject) {
        String body = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
                + "\"uid\":\"u-1\",\"name\":\"" + name + "\",\"operation\":\"" + operation + "\""
                + ",\"userInfo\":{\"username\":\"" + user + "\"}"
                + (object == null ? "" : ",\"object\":" + object)
                + (oldObject == null ? "" : ",\"oldObject\":" + oldObject) + "}}";
        return webhook().respond(JSON.unmarshal(body, AdmissionReview.class).getRequest(), JSON);
    }

    static final String POOL_A = "\"nodeSelector\":{\"matchLabels\":{\"pool\":\"a\"}}";
    static final String REBOOTED = "\"doneWhen\":{\"rebooted\":true}";

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            a node admin may roll a selector (a deleted rollout holds none)| ada   | new  | {POOL_A,REBOOTED}                                  | -   | -
            edit-only user is refused, naming every node and the right     | eddie | new  | {POOL_A,REBOOTED}                                  | 403 | and they lack patch nodes (every node) (cordon and taint the node)
            rights on named nodes do not cover a selector (future nodes)   | uma   | new  | {POOL_A,REBOOTED}                                  | 403 | a spec.nodeSelector picks any node, present or future
            rights on a named node cover that node in spec.nodes           | uma   | new  | {"nodes":["worker-1"],REBOOTED}                    | -   | -
            every node of spec.nodes is checked                            | uma   | new  | {"nodes":["worker-1","worker-2"],REBOOTED}         | 403 | patch nodes worker-2 (cordon and taint the node)
            disableEviction in the template asks for delete pods           | uma   | new  | {"nodes":["worker-1"],"template":{"drain":{"disableEviction":true}},REBOOTED} | 403 | delete pods (all namespaces)
            maxUnavailable 0% is refused naming the field                  | ada   | new  | {POOL_A,REBOOTED,"maxUnavailable":"0%"}            | 422 | spec.maxUnavailable: a percentage from 1% to 100%
            maxUnavailable above 100% is refused                           | ada   | new  | {POOL_A,REBOOTED,"maxUnavailable":"150%"}          | 422 | spec.maxUnavailable: a percentage from 1% to 100%, was "150%"
            maxUnavailable 0 is refused                                    | ada   | new  | {POOL_A,REBOOTED,"maxUnavailable":0}               | 422 | spec.maxUnavailable: must be at least 1, was 0
            a bad selector is refused naming the expression                | ada   | new  | {"nodeSelector":{"matchExpressions":[{"key":"pool","operator":"Is"}]},REBOOTED} | 422 | spec.nodeSelector.matchExpressions[0].operator
            an unknown done-signal field is refused naming it              | ada   | new  | {POOL_A,"doneWhen":{"rebooted":true,"rebooot":true}} | 422 | spec.doneWhen.rebooot: unknown field
            two done signals are refused                                   | ada   | new  | {POOL_A,"doneWhen":{"rebooted":true,"manual":true}} | 422 | spec.doneWhen: set exactly one
            a typo under health.alerts is refused naming it                | ada   | new  | {POOL_A,REBOOTED,"health":{"alerts":{"prometheusUrl":"http://p:9090"}}} | 422 | spec.health.alerts.prometheusUrl: unknown field (one of prometheusURL, include, exclude, firingOnly, interval)
            a typo at the top of the spec is refused naming it             | ada   | new  | {POOL_A,REBOOTED,"maxUnavailble":2}                | 422 | spec.maxUnavailble: unknown field
            a typo in a list element is refused naming its index           | ada   | new  | {"nodeSelector":{"matchExpressions":[{"key":"pool","operator":"Exists","valuse":["a"]}]},REBOOTED} | 422 | spec.nodeSelector.matchExpressions[0].valuse: unknown field (one of key, operator, values)
            a typo in the child template is refused naming it              | ada   | new  | {POOL_A,REBOOTED,"template":{"drain":{"timout":"5m"}}} | 422 | spec.template.drain.timout: unknown field
            a field set to null is no unknown field                        | ada   | new  | {POOL_A,REBOOTED,"health":{"alerts":null,"soak":"1s"}} | -   | -
            an alert regex RE2 refuses is refused naming it                | ada   | new  | {POOL_A,REBOOTED,"health":{"alerts":{"prometheusURL":"http://p:9090","include":["Node.*","*"]}}} | 422 | spec.health.alerts.include[1]: not an RE2 regex (Go's syntax): missing argument to repetition operator
            an alert gate without a Prometheus is refused naming the field | ada   | new  | {POOL_A,REBOOTED,"health":{"alerts":{"exclude":["^Tenure"]}}} | 422 | spec.health.alerts.prometheusURL: required
            an alert gate as it should be is allowed                       | ada   | new  | {POOL_A,REBOOTED,"health":{"alerts":{"prometheusURL":"http://p:9090","exclude":["^Tenure"]}}} | - | -
            a node another rollout's selector picks is refused, both named | ada   | new  | {"nodes":["worker-3"],REBOOTED}                    | 422 | spec.nodes[0]: node(s) worker-3 would be picked by NodeMaintenanceRollout kernel too
            a node another rollout names is refused, even before it exists | ada   | new  | {"nodes":["ghost"],REBOOTED}                       | 422 | node(s) ghost would be picked by NodeMaintenanceRollout kernel
            selectors that share a node are refused                        | ada   | new  | {"nodeSelector":{},REBOOTED}                       | 422 | spec.nodeSelector: node(s) worker-3 would be picked by NodeMaintenanceRollout kernel
            a rollout does not overlap itself                              | ada   | self | {"nodes":["worker-9"],REBOOTED}                    | -   | -
            the operator's own writes pass, even an invalid spec           | system:serviceaccount:tenure-system:tenure-operator | new | {POOL_A} | - | -
            """)
    void create(String name, String user, String rollout, String spec, Integer code, String message) {
        String s = spec.replace("POOL_A", POOL_A).replace("REBOOTED", REBOOTED);
        AdmissionResponse answer = respond("CREATE", user, rollout, rolloutJson(rollout, s, null, ""), null);
        assertAnswer(answer, code, message);
        if (code != null && code == 422) {
            assertThat(answer.getStatus().getMessage())
                    .as("a refused spec costs no access review")
                    .doesNotContain("user ");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            pausing is no new request                          | eddie | {POOL_A,REBOOTED,"paused":true}              | -   | -
            widening the pool is checked like a create         | eddie | {"nodeSelector":{},REBOOTED}                | 422 | NodeMaintenanceRollout kernel
            changing the template is checked for rights        | eddie | {POOL_A,REBOOTED,"template":{"reason":"x"}} | 403 | user eddie may not run NodeMaintenanceRollout self
            a node admin may change it                         | ada   | {POOL_A,REBOOTED,"template":{"reason":"x"}} | -   | -
            """)
    void update(String name, String user, String spec, Integer code, String message) {
        String s = spec.replace("POOL_A", POOL_A).replace("REBOOTED", REBOOTED);
        AdmissionResponse answer = respond(
                "UPDATE",
                user,
                "self",
                rolloutJson("self", s, null, ""),
                rolloutJson("self", "{" + POOL_A + "," + REBOOTED + "}", null, ""));
        assertAnswer(answer, code, message);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            edit-only user may not end a maintenance in flight     | eddie | worker-1 | InProgress | 403 | and they lack patch nodes worker-1 (uncordon, untaint and restore the node)
            patch on that node is enough                           | uma   | worker-1 | InProgress | -   | -
            patch on another node is not                           | uma   | worker-2 | InProgress | 403 | patch nodes worker-2
            nothing in flight: nothing to end                      | eddie | worker-1 | Done       | -   | -
            """)
    void delete(String name, String user, String node, String state, Integer code, String message) {
        String status = "{\"nodes\":[{\"name\":\"" + node + "\",\"state\":\"" + state + "\"}]}";
        AdmissionResponse answer = respond(
                "DELETE", user, "self", null, rolloutJson("self", "{" + POOL_A + "," + REBOOTED + "}", status, ""));
        assertAnswer(answer, code, message);
    }

    private static void assertAnswer(AdmissionResponse answer, Integer code, String message) {
        if (code == null) {
            assertThat(answer.getAllowed())
                    .as(answer.getStatus() == null ? "" : answer.getStatus().getMessage())
                    .isTrue();
            return;
        }
        assertThat(answer.getAllowed()).isFalse();
        assertThat(answer.getStatus().getCode()).isEqualTo(code);
        assertThat(answer.getStatus().getMessage()).contains(message);
    }
}
