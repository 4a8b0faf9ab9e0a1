package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.assertj.core.api.AbstractStringAssert;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contracts of kube-apiserver that the emulated cluster keeps, one row each, run against the emulator over
 * plain HTTP (what any client sees). Each row names the upstream behaviour it mirrors (a source file of
 * kubernetes/kubernetes or a documentation page), so a reviewer can check the emulator against Kubernetes row by
 * row. Where the emulator differs from kube-apiserver, tests prove nothing about real clusters: a contract found
 * broken gets a row here before it is fixed.
 */
@EndToEnd
@SecondLane
class EmulatorConformanceTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final String JSON_TYPE = "application/json";
    private static final String MERGE = "application/merge-patch+json";
    private static final String JSON_PATCH = "application/json-patch+json";
    private static final String SMP = "application/strategic-merge-patch+json";
    private static final String NM = "/apis/tenure.dev/v1alpha1/nodemaintenances";
    private static final String LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

    private static EmulatedCluster cluster;
    /** Changes the conformance cluster keeps per resource for watches (the 410 row writes more). */
    private static final int WATCH_CACHE = 50;

    /** One contract: what it is, the kube-apiserver source or doc it mirrors, and the check. */
    record Row(String contract, String upstream, Check check) {
        @Override
        public String toString() {
            return contract;
        }
    }

    @FunctionalInterface
    interface Check {
        void run(String name) throws Exception;
    }

    record Http(int code, JsonNode body) {
        /** Asserts the answer's code (the body shown when it differs); returns an assertion on its Status message. */
        AbstractStringAssert<?> assertStatus(int expected) {
            assertThat(code).as("%s", body).isEqualTo(expected);
            return assertThat(body.path("message").asText());
        }
    }

    @BeforeAll
    static void start() throws IOException {
        cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests().watchCacheSize(WATCH_CACHE));
        try (InputStream in = Files.newInputStream(Path.of("deploy", "tenure-operator.yaml"))) {
            cluster.client().load(in).items().stream()
                    .filter(o -> o.getKind().equals("CustomResourceDefinition"))
                    .forEach(crd -> cluster.client().resource(crd).create());
        }
    }

    @AfterAll
    static void stop() {
        if (WEBHOOK != null) {
            WEBHOOK.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    static Stream<Row> contracts() {
        return Stream.of(
                // ---- SelfSubjectAccessReview ---------------------------------------------------------------
                new Row(
                        "SelfSubjectAccessReview: answered for the requester from the stored RBAC objects",
                        "pkg/registry/authorization/selfsubjectaccessreview/rest.go (the requester's user info,"
                                + " judged by the authorizer; plugin/pkg/auth/authorizer/rbac)",
                        name -> {
                            String ssar = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
                            String review = "{\"apiVersion\":\"authorization.k8s.io/v1\","
                                    + "\"kind\":\"SelfSubjectAccessReview\",\"spec\":{\"resourceAttributes\":"
                                    + "{\"group\":\"apps\",\"resource\":\"deployments\",\"verb\":\"%s\"}}}";
                            assertThat(send("POST", ssar, JSON_TYPE, review.formatted("get"))
                                            .body()
                                            .at("/status/allowed")
                                            .asBoolean())
                                    .as("no role bound yet")
                                    .isFalse();
                            cluster.client()
                                    .rbac()
                                    .clusterRoles()
                                    .resource(new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder()
                                            .withNewMetadata()
                                            .withName(name)
                                            .endMetadata()
                                            .addNewRule()
                                            .withApiGroups("apps")
                                            .withResources("deployments")
                                            .withVerbs("get")
                                            .endRule()
                                            .build())
                                    .create();
                            cluster.client()
                                    .rbac()
                                    .clusterRoleBindings()
                                    .resource(new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder()
                                            .withNewMetadata()
                                            .withName(name)
                                            .endMetadata()
                                            .withNewRoleRef()
                                            .withApiGroup("rbac.authorization.k8s.io")
                                            .withKind("ClusterRole")
                                            .withName(name)
                                            .endRoleRef()
                                            .addNewSubject()
                                            .withKind("User")
                                            .withName("kubernetes-admin")
                                            .endSubject()
                                            .build())
                                    .create();
                            Http allowed = send("POST", ssar, JSON_TYPE, review.formatted("get"));
                            assertThat(allowed.code()).isEqualTo(201);
                            assertThat(allowed.body().at("/status/allowed").asBoolean())
                                    .isTrue();
                            assertThat(send("POST", ssar, JSON_TYPE, review.formatted("delete"))
                                            .body()
                                            .at("/status/allowed")
                                            .asBoolean())
                                    .as("only the verb the role grants")
                                    .isFalse();
                            cluster.client()
                                    .rbac()
                                    .clusterRoleBindings()
                                    .withName(name)
                                    .delete();
                        }),
                // ---- status subresource -------------------------------------------------------------------
                new Row(
                        "custom resource: a main-resource PUT keeps the status",
                        "apiextensions-apiserver pkg/registry/customresource/strategy.go PrepareForUpdate"
                                + " (status subresource enabled: new status := old status)",
                        name -> {
                            nodeMaintenanceWithStatus(name);
                            JsonNode nm = get(NM + "/" + name).body();
                            ((com.fasterxml.jackson.databind.node.ObjectNode) nm).remove("status");
                            ((com.fasterxml.jackson.databind.node.ObjectNode) nm.path("metadata"))
                                    .putArray("finalizers")
                                    .add("tenure.dev/finalizer");
                            assertThat(send("PUT", NM + "/" + name, JSON_TYPE, nm.toString())
                                            .code())
                                    .isEqualTo(200);
                            assertThat(get(NM + "/" + name)
                                            .body()
                                            .at("/status/phase")
                                            .asText())
                                    .isEqualTo("Running");
                        }),
                new Row(
                        "custom resource: a main-resource patch that names status leaves the status alone",
                        "apiextensions-apiserver pkg/registry/customresource/strategy.go PrepareForUpdate",
                        name -> {
                            nodeMaintenanceWithStatus(name);
                            assertThat(send(
                                                    "PATCH",
                                                    NM + "/" + name,
                                                    MERGE,
                                                    "{\"spec\":{\"reason\":\"edited\"},\"status\":null}")
                                            .code())
                                    .isBetween(200, 202);
                            JsonNode nm = get(NM + "/" + name).body();
                            assertThat(nm.at("/spec/reason").asText()).isEqualTo("edited");
                            assertThat(nm.at("/status/phase").asText()).isEqualTo("Running");
                        }),
                new Row(
                        "custom resource: a /status write keeps spec and metadata",
                        "apiextensions-apiserver pkg/registry/customresource/status_strategy.go PrepareForUpdate"
                                + " (only status is taken from the request)",
                        name -> {
                            nodeMaintenanceWithStatus(name);
                            assertThat(send(
                                                    "PATCH",
                                                    NM + "/" + name + "/status",
                                                    MERGE,
                                                    "{\"spec\":{\"reason\":\"sneaked\"},"
                                                            + "\"status\":{\"phase\":\"Succeeded\"}}")
                                            .code())
                                    .isBetween(200, 202);
                            JsonNode nm = get(NM + "/" + name).body();
                            assertThat(nm.at("/spec/reason").asText()).isEqualTo("conformance");
                            assertThat(nm.at("/status/phase").asText()).isEqualTo("Succeeded");
                        }),
                new Row(
                        "custom resource: a /status patch that names a stale resourceVersion is a 409 and changes"
                                + " nothing; the current one replaces the whole status",
                        "apiserver pkg/registry/generic/registry/store.go Update (a resourceVersion in the object that"
                                + " is not the stored one: Conflict); pkg/endpoints/handlers/patch.go (the patch applied"
                                + " to the stored object, its resourceVersion then the precondition)",
                        name -> {
                            nodeMaintenanceWithStatus(name);
                            patch(
                                    NM + "/" + name + "/status",
                                    MERGE,
                                    "{\"status\":{\"phase\":\"Running\",\"lastError\":\"kept by a merge\"}}");
                            String current = get(NM + "/" + name)
                                    .body()
                                    .at("/metadata/resourceVersion")
                                    .asText();
                            String stale = String.valueOf(Long.parseLong(current) - 1);
                            for (String[] write : new String[][] {
                                {
                                    JSON_PATCH,
                                    "[{\"op\":\"replace\",\"path\":\"/metadata/resourceVersion\",\"value\":\""
                                            + stale + "\"},{\"op\":\"add\",\"path\":\"/status\",\"value\":"
                                            + "{\"phase\":\"Succeeded\"}}]"
                                },
                                {
                                    MERGE,
                                    "{\"metadata\":{\"resourceVersion\":\"" + stale
                                            + "\"},\"status\":{\"phase\":\"Succeeded\"}}"
                                }
                            }) {
                                Http refused = send("PATCH", NM + "/" + name + "/status", write[0], write[1]);
                                assertThat(refused.code()).as(write[1]).isEqualTo(409);
                                assertThat(refused.body().path("reason").asText())
                                        .isEqualTo("Conflict");
                            }
                            JsonNode kept = get(NM + "/" + name).body();
                            assertThat(kept.at("/status/phase").asText()).isEqualTo("Running");
                            assertThat(kept.at("/metadata/resourceVersion").asText())
                                    .isEqualTo(current);
                            Http written = send(
                                    "PATCH",
                                    NM + "/" + name + "/status",
                                    JSON_PATCH,
                                    "[{\"op\":\"replace\",\"path\":\"/metadata/resourceVersion\",\"value\":\""
                                            + current + "\"},{\"op\":\"add\",\"path\":\"/status\",\"value\":"
                                            + "{\"phase\":\"Succeeded\"}}]");
                            assertThat(written.code())
                                    .as(written.body().toString())
                                    .isEqualTo(200);
                            JsonNode replaced = get(NM + "/" + name).body();
                            assertThat(replaced.at("/status/phase").asText()).isEqualTo("Succeeded");
                            assertThat(replaced.at("/status/lastError").isMissingNode())
                                    .as("a field the new status leaves out is gone")
                                    .isTrue();
                        }),
                new Row(
                        "custom resource: a /status write is validated against the schema (the whole object)",
                        "apiextensions-apiserver pkg/registry/customresource/status_strategy.go ValidateUpdate"
                                + " (customResourceValidator.Validate of the whole object)",
                        name -> {
                            nodeMaintenanceWithStatus(name);
                            for (String[] write : new String[][] {
                                {MERGE, "{\"status\":{\"phase\":\"Bogus\"}}"},
                                {JSON_PATCH, "[{\"op\":\"replace\",\"path\":\"/status/phase\",\"value\":\"Bogus\"}]"},
                                {MERGE, "{\"status\":{\"drainProgress\":150}}"}
                            }) {
                                Http refused = send("PATCH", NM + "/" + name + "/status", write[0], write[1]);
                                assertThat(refused.code()).as(write[1]).isEqualTo(422);
                                assertThat(refused.body().path("message").asText())
                                        .contains("status.");
                            }
                            JsonNode nm = get(NM + "/" + name).body();
                            ((com.fasterxml.jackson.databind.node.ObjectNode) nm.path("status")).put("phase", "Bogus");
                            Http put = send("PUT", NM + "/" + name + "/status", JSON_TYPE, nm.toString());
                            put.assertStatus(422).contains("status.phase");
                            assertThat(get(NM + "/" + name)
                                            .body()
                                            .at("/status/phase")
                                            .asText())
                                    .isEqualTo("Running");
                            patch(NM + "/" + name + "/status", MERGE, "{\"status\":{\"phase\":\"Succeeded\"}}");
                        }),
                new Row(
                        "custom resource: status in a create is dropped",
                        "apiextensions-apiserver pkg/registry/customresource/strategy.go PrepareForCreate"
                                + " (status subresource enabled: status is cleared)",
                        name -> {
                            assertThat(send(
                                                    "POST",
                                                    NM,
                                                    JSON_TYPE,
                                                    nodeMaintenance(name)
                                                            .replaceFirst(
                                                                    "}$", ",\"status\":{\"phase\":\"Succeeded\"}}"))
                                            .code())
                                    .isBetween(200, 201);
                            assertThat(get(NM + "/" + name).body().has("status"))
                                    .isFalse();
                        }),
                new Row(
                        "Node: a main-resource update keeps the status (conditions written by the kubelet)",
                        "pkg/registry/core/node/strategy.go nodeStrategy.PrepareForUpdate (newNode.Status ="
                                + " oldNode.Status)",
                        name -> {
                            cluster.seed().node(name).create();
                            JsonNode node = get("/api/v1/nodes/" + name).body();
                            assertThat(node.at("/status/conditions").size()).isPositive();
                            ((com.fasterxml.jackson.databind.node.ObjectNode) node).remove("status");
                            ((com.fasterxml.jackson.databind.node.ObjectNode) node.path("spec"))
                                    .put("unschedulable", true);
                            assertThat(send("PUT", "/api/v1/nodes/" + name, JSON_TYPE, node.toString())
                                            .code())
                                    .isEqualTo(200);
                            JsonNode after = get("/api/v1/nodes/" + name).body();
                            assertThat(after.at("/spec/unschedulable").asBoolean())
                                    .isTrue();
                            assertThat(after.at("/status/conditions").size()).isPositive();
                        }),
                new Row(
                        "Node: a /status patch keeps the spec",
                        "pkg/registry/core/node/strategy.go nodeStatusStrategy.PrepareForUpdate (newNode.Spec ="
                                + " oldNode.Spec)",
                        name -> {
                            cluster.seed().node(name).create();
                            assertThat(send(
                                                    "PATCH",
                                                    "/api/v1/nodes/" + name + "/status",
                                                    MERGE,
                                                    "{\"spec\":{\"unschedulable\":true},"
                                                            + "\"status\":{\"phase\":\"Running\"}}")
                                            .code())
                                    .isBetween(200, 202);
                            JsonNode after = get("/api/v1/nodes/" + name).body();
                            assertThat(after.at("/spec/unschedulable").asBoolean(false))
                                    .isFalse();
                            assertThat(after.at("/status/phase").asText()).isEqualTo("Running");
                        }),
                // ---- JSON merge patch --------------------------------------------------------------------------
                new Row(
                        "merge patch: a null deletes the key (kubectl annotate node n1 k-)",
                        "RFC 7386; apimachinery pkg/util/jsonmergepatch, evanphx/json-patch MergePatch",
                        name -> {
                            cluster.seed().node(name).create();
                            patch("/api/v1/nodes/" + name, MERGE, "{\"metadata\":{\"annotations\":{\"k\":\"v\"}}}");
                            patch("/api/v1/nodes/" + name, MERGE, "{\"metadata\":{\"annotations\":{\"k\":null}}}");
                            assertThat(get("/api/v1/nodes/" + name)
                                            .body()
                                            .at("/metadata/annotations")
                                            .has("k"))
                                    .isFalse();
                        }),
                new Row(
                        "merge patch: a list is replaced whole, never appended to",
                        "RFC 7386 (arrays are values: the patch's replaces the target's)",
                        name -> {
                            cluster.seed().node(name).create();
                            patch("/api/v1/nodes/" + name, MERGE, taints("t1"));
                            patch("/api/v1/nodes/" + name, MERGE, taints("t2"));
                            assertThat(taintKeys(name)).containsExactly("t2");
                        }),
                // ---- strategic merge patch ---------------------------------------------------------------------
                new Row(
                        "strategic merge patch: Node spec.taints has no patch strategy, so it is replaced whole"
                                + " (kubectl taint sends the full list)",
                        "k8s.io/api core/v1 types.go NodeSpec.Taints (no patchStrategy tag: atomic);"
                                + " apimachinery pkg/util/strategicpatch/patch.go mergeSliceHandler",
                        name -> {
                            cluster.seed().node(name).create();
                            patch("/api/v1/nodes/" + name, SMP, taints("t1"));
                            patch("/api/v1/nodes/" + name, SMP, taints("t1", "t2"));
                            assertThat(taintKeys(name)).containsExactly("t1", "t2");
                            patch("/api/v1/nodes/" + name, SMP, taints("t2"));
                            assertThat(taintKeys(name)).containsExactly("t2");
                        }),
                new Row(
                        "strategic merge patch: Node status.conditions merge by type, $patch: delete removes one",
                        "k8s.io/api core/v1 types.go NodeStatus.Conditions (patchStrategy:\"merge\""
                                + " patchMergeKey:\"type\"); strategicpatch mergeSlice, $patch directive",
                        name -> {
                            cluster.seed().node(name).create();
                            patch(
                                    "/api/v1/nodes/" + name + "/status",
                                    SMP,
                                    "{\"status\":{\"conditions\":[{\"type\":\"tenure.dev/Maintenance\","
                                            + "\"status\":\"True\"}]}}");
                            assertThat(conditionTypes(name)).containsExactly("Ready", "tenure.dev/Maintenance");
                            patch(
                                    "/api/v1/nodes/" + name + "/status",
                                    SMP,
                                    "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}]}}");
                            assertThat(conditionTypes(name)).containsExactly("Ready", "tenure.dev/Maintenance");
                            assertThat(get("/api/v1/nodes/" + name)
                                            .body()
                                            .at("/status/conditions/0/reason")
                                            .asText())
                                    .as("a merged element keeps the fields the patch does not name")
                                    .isEqualTo("KubeletReady");
                            patch(
                                    "/api/v1/nodes/" + name + "/status",
                                    SMP,
                                    "{\"status\":{\"conditions\":[{\"type\":\"tenure.dev/Maintenance\","
                                            + "\"$patch\":\"delete\"}]}}");
                            assertThat(conditionTypes(name)).containsExactly("Ready");
                        }),
                new Row(
                        "strategic merge patch: finalizers merge as a set; $deleteFromPrimitiveList removes",
                        "k8s.io/apimachinery meta/v1 types.go ObjectMeta.Finalizers (patchStrategy:\"merge\");"
                                + " strategicpatch deleteFromPrimitiveListDirectivePrefix",
                        name -> {
                            cluster.seed().node(name).create();
                            patch("/api/v1/nodes/" + name, SMP, "{\"metadata\":{\"finalizers\":[\"a/x\"]}}");
                            patch("/api/v1/nodes/" + name, SMP, "{\"metadata\":{\"finalizers\":[\"b/y\",\"a/x\"]}}");
                            assertThat(get("/api/v1/nodes/" + name)
                                            .body()
                                            .at("/metadata/finalizers")
                                            .toString())
                                    .isEqualTo("[\"a/x\",\"b/y\"]");
                            patch(
                                    "/api/v1/nodes/" + name,
                                    SMP,
                                    "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"a/x\",\"b/y\"]}}");
                            assertThat(get("/api/v1/nodes/" + name)
                                            .body()
                                            .at("/metadata/finalizers")
                                            .size())
                                    .isZero();
                        }),
                new Row(
                        "strategic merge patch: $retainKeys clears the fields it does not list",
                        "k8s.io/api apps/v1 types.go DeploymentSpec.Strategy (patchStrategy:\"retainKeys\");"
                                + " strategicpatch retainKeysDirective",
                        name -> {
                            String ns = name;
                            String path = "/apis/apps/v1/namespaces/" + ns + "/deployments/web";
                            cluster.seed()
                                    .deployment("web")
                                    .namespace(ns)
                                    .replicas(0)
                                    .create();
                            patch(
                                    path,
                                    MERGE,
                                    "{\"spec\":{\"strategy\":{\"type\":\"RollingUpdate\","
                                            + "\"rollingUpdate\":{\"maxSurge\":1}}}}");
                            patch(
                                    path,
                                    SMP,
                                    "{\"spec\":{\"strategy\":{\"$retainKeys\":[\"type\"],\"type\":\"Recreate\"}}}");
                            assertThat(get(path).body().at("/spec/strategy").toString())
                                    .isEqualTo("{\"type\":\"Recreate\"}");
                        }),
                new Row(
                        "strategic merge patch of a custom resource is refused with 415",
                        "apiextensions-apiserver pkg/apiserver/customresource_handler.go (supported patch types:"
                                + " json, merge, apply)",
                        name -> {
                            assertThat(send("POST", NM, JSON_TYPE, nodeMaintenance(name))
                                            .code())
                                    .isBetween(200, 201);
                            Http refused = send("PATCH", NM + "/" + name, SMP, "{\"spec\":{\"reason\":\"smp\"}}");
                            assertThat(refused.code()).isEqualTo(415);
                            assertThat(refused.body().path("reason").asText()).isEqualTo("UnsupportedMediaType");
                            assertThat(get(NM + "/" + name)
                                            .body()
                                            .at("/spec/reason")
                                            .asText())
                                    .isEqualTo("conformance");
                        }),
                // ---- names and labels --------------------------------------------------------------------------
                new Row(
                        "a name longer than 253 characters is refused: 422 Invalid naming metadata.name",
                        "apimachinery pkg/util/validation/validation.go IsDNS1123Subdomain (DNS1123SubdomainMaxLength"
                                + " 253); pkg/api/errors NewInvalid",
                        name -> {
                            String longName = "l".repeat(258);
                            Http refused = send(
                                    "POST",
                                    "/apis/coordination.k8s.io/v1/namespaces/default/leases",
                                    JSON_TYPE,
                                    "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\","
                                            + "\"metadata\":{\"name\":\"" + longName + "\"},\"spec\":{}}");
                            assertThat(refused.code()).isEqualTo(422);
                            assertThat(refused.body().path("reason").asText()).isEqualTo("Invalid");
                            assertThat(refused.body().path("message").asText())
                                    .startsWith("Lease.coordination.k8s.io \"" + longName
                                            + "\" is invalid: metadata.name:" + " Invalid value: \"" + longName
                                            + "\": must be no more than 253 characters");
                            assertThat(refused.body()
                                            .at("/details/causes/0/field")
                                            .asText())
                                    .isEqualTo("metadata.name");
                            assertThat(get("/apis/coordination.k8s.io/v1/namespaces/default/leases/" + longName)
                                            .code())
                                    .isEqualTo(404);
                        }),
                new Row(
                        "a name that is not a DNS subdomain is refused (uppercase, underscore)",
                        "apimachinery pkg/util/validation/validation.go IsDNS1123Subdomain",
                        name -> {
                            Http refused = send(
                                    "POST",
                                    "/api/v1/namespaces/default/configmaps",
                                    JSON_TYPE,
                                    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"W2_Bad\"}}");
                            refused.assertStatus(422).contains("a lowercase RFC 1123 subdomain must consist of");
                        }),
                new Row(
                        "a label value longer than 63 characters is refused, also when patched in",
                        "apimachinery pkg/util/validation/validation.go IsValidLabelValue (LabelValueMaxLength 63)",
                        name -> {
                            cluster.seed().node(name).create();
                            String value = "v".repeat(64);
                            Http refused = send(
                                    "PATCH",
                                    "/api/v1/nodes/" + name,
                                    MERGE,
                                    "{\"metadata\":{\"labels\":{\"k\":\"" + value + "\"}}}");
                            assertThat(refused.code()).isEqualTo(422);
                            assertThat(refused.body()
                                            .at("/details/causes/0/field")
                                            .asText())
                                    .isEqualTo("metadata.labels");
                            assertThat(refused.body()
                                            .at("/details/causes/0/message")
                                            .asText())
                                    .isEqualTo("Invalid value: \"" + value + "\": must be no more than 63 characters");
                            assertThat(get("/api/v1/nodes/" + name)
                                            .body()
                                            .at("/metadata/labels")
                                            .has("k"))
                                    .isFalse();
                        }),
                // ---- CRD structural schema and CEL rules --------------------------------------------------------
                new Row(
                        "custom resource: a value breaking the schema's pattern is refused, the field named",
                        "apiextensions-apiserver pkg/apiserver/validation (OpenAPI pattern: \"in body should match\");"
                                + " pkg/registry/customresource/validator.go",
                        name -> {
                            Http refused = send("POST", NM, JSON_TYPE, nodeMaintenance(name, ",\"window\":\"-5m\""));
                            refused.assertStatus(422)
                                    .startsWith("NodeMaintenance.tenure.dev \"" + name
                                            + "\" is invalid: spec.window: Invalid value: \"-5m\": spec.window in body"
                                            + " should match");
                            assertThat(refused.body()
                                            .at("/details/causes/0/field")
                                            .asText())
                                    .isEqualTo("spec.window");
                            assertThat(get(NM + "/" + name).code()).isEqualTo(404);
                        }),
                new Row(
                        "custom resource: required, minimum, maxLength and type are enforced, every violation listed",
                        "apiextensions-apiserver pkg/apiserver/validation/validation.go (kube-openapi validate);"
                                + " field.ErrorList aggregated in one 422",
                        name -> {
                            Http refused = send(
                                    "POST",
                                    NM,
                                    JSON_TYPE,
                                    "{\"apiVersion\":\"tenure.dev/v1alpha1\",\"kind\":\"NodeMaintenance\","
                                            + "\"metadata\":{\"name\":\"" + name + "\"},\"spec\":{\"reason\":\""
                                            + "r".repeat(1025) + "\",\"drain\":{\"gracePeriodSeconds\":-2,"
                                            + "\"force\":\"yes\"}}}");
                            assertThat(refused.code()).isEqualTo(422);
                            assertThat(refused.body().at("/details/causes").findValuesAsText("field"))
                                    .containsExactlyInAnyOrder(
                                            "spec.nodeName",
                                            "spec.reason",
                                            "spec.drain.gracePeriodSeconds",
                                            "spec.drain.force");
                            assertThat(refused.body().path("message").asText())
                                    .contains("spec.nodeName: Required value")
                                    .contains("spec.drain.gracePeriodSeconds: Invalid value: -2:"
                                            + " spec.drain.gracePeriodSeconds in body should be greater than or equal"
                                            + " to -1")
                                    .contains("spec.drain.force: Invalid value: \"string\": spec.drain.force in body"
                                            + " must be of type boolean");
                        }),
                new Row(
                        "custom resource: unknown fields are pruned, defaults are set",
                        "apiextensions-apiserver pkg/apiserver/schema/pruning/algorithm.go;"
                                + " pkg/apiserver/schema/defaulting/algorithm.go",
                        name -> {
                            assertThat(send(
                                                    "POST",
                                                    NM,
                                                    JSON_TYPE,
                                                    nodeMaintenance(name, ",\"bogus\":1,\"drain\":{\"typo\":true}"))
                                            .code())
                                    .isBetween(200, 201);
                            JsonNode spec = get(NM + "/" + name).body().path("spec");
                            assertThat(spec.has("bogus")).isFalse();
                            assertThat(spec.path("drain").has("typo")).isFalse();
                            assertThat(spec.at("/drain/gracePeriodSeconds").asInt())
                                    .isEqualTo(-1);
                            assertThat(spec.at("/drain/evictionRetryDelay").asText())
                                    .isEqualTo("5s");
                        }),
                new Row(
                        "custom resource: an x-kubernetes-validations transition rule (oldSelf) refuses an update",
                        "apiextensions-apiserver pkg/apiserver/schema/cel/validation.go (transition rules: oldSelf,"
                                + " update only); docs tasks/extend-kubernetes/custom-resources#validation-rules",
                        name -> {
                            assertThat(send("POST", NM, JSON_TYPE, nodeMaintenance(name))
                                            .code())
                                    .isBetween(200, 201);
                            Http refused =
                                    send("PATCH", NM + "/" + name, MERGE, "{\"spec\":{\"nodeName\":\"elsewhere\"}}");
                            refused.assertStatus(422)
                                    .isEqualTo("NodeMaintenance.tenure.dev \"" + name + "\" is invalid: spec.nodeName:"
                                            + " Invalid value: \"string\": spec.nodeName is immutable");
                            JsonNode nm = get(NM + "/" + name).body();
                            Http jsonPatched = send(
                                    "PATCH",
                                    NM + "/" + name,
                                    JSON_PATCH,
                                    "[{\"op\":\"replace\",\"path\":\"/spec/nodeName\",\"value\":\"other\"}]");
                            assertThat(jsonPatched.code()).isEqualTo(422);
                            ((com.fasterxml.jackson.databind.node.ObjectNode) nm.path("spec")).put("nodeName", "third");
                            assertThat(send("PUT", NM + "/" + name, JSON_TYPE, nm.toString())
                                            .code())
                                    .isEqualTo(422);
                            patch(NM + "/" + name, MERGE, "{\"spec\":{\"reason\":\"other fields still change\"}}");
                            assertThat(get(NM + "/" + name)
                                            .body()
                                            .at("/spec/nodeName")
                                            .asText())
                                    .isEqualTo(name);
                        }),
                new Row(
                        "custom resource: an update keeping an invalid stored value is admitted (ratcheting)",
                        "KEP-4008 CRD validation ratcheting (CRDValidationRatcheting, on by default since 1.30);"
                                + " apiextensions-apiserver pkg/apiserver/schema/cel/ratcheting",
                        name -> {
                            cluster.enforceCrdSchemas(false);
                            try {
                                assertThat(send("POST", NM, JSON_TYPE, nodeMaintenance(name, ",\"window\":\"soon\""))
                                                .code())
                                        .isBetween(200, 201);
                            } finally {
                                cluster.enforceCrdSchemas(true);
                            }
                            patch(NM + "/" + name, MERGE, "{\"metadata\":{\"finalizers\":[\"tenure.dev/f\"]}}");
                            patch(NM + "/" + name, MERGE, "{\"spec\":{\"reason\":\"still invalid window\"}}");
                            assertThat(send("PATCH", NM + "/" + name, MERGE, "{\"spec\":{\"window\":\"later\"}}")
                                            .code())
                                    .as("a changed value is validated")
                                    .isEqualTo(422);
                            patch(NM + "/" + name, MERGE, "{\"metadata\":{\"finalizers\":null}}");
                        }),
                // ---- watches ----------------------------------------------------------------------------------
                new Row(
                        "a watch from a resourceVersion is sent every change after it, deletions included",
                        "staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go getAllEventsSinceLocked;"
                                + " docs reference/using-api/api-concepts \"Efficient detection of changes\"",
                        name -> {
                            ownedLease(name);
                            ownedLease(name + "-gone");
                            String since = get(LEASES)
                                    .body()
                                    .at("/metadata/resourceVersion")
                                    .asText();
                            patch(LEASES + "/" + name, MERGE, "{\"spec\":{\"holderIdentity\":\"after-list\"}}");
                            assertThat(send("DELETE", LEASES + "/" + name + "-gone", null, null)
                                            .code())
                                    .isEqualTo(200);
                            java.util.List<JsonNode> events =
                                    watch(LEASES + "?watch=true&timeoutSeconds=1&resourceVersion=" + since);
                            assertThat(events)
                                    .extracting(e -> e.path("type").asText() + " "
                                            + e.at("/object/metadata/name").asText())
                                    .containsExactly("MODIFIED " + name, "DELETED " + name + "-gone");
                            long modified = events.get(0)
                                    .at("/object/metadata/resourceVersion")
                                    .asLong();
                            long deleted = events.get(1)
                                    .at("/object/metadata/resourceVersion")
                                    .asLong();
                            assertThat(deleted)
                                    .as("a deletion has a resourceVersion of its own")
                                    .isGreaterThan(modified);
                            assertThat(modified).isGreaterThan(Long.parseLong(since));
                        }),
                new Row(
                        "a watch from a resourceVersion older than the watch cache keeps gets 410 Gone",
                        "staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go getAllEventsSinceLocked"
                                + " (too old resource version); cacher.go Watch (newErrWatcher: one ERROR event)",
                        name -> {
                            String path = "/api/v1/namespaces/default/configmaps";
                            Http created = send(
                                    "POST",
                                    path,
                                    JSON_TYPE,
                                    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
                                            + "\"},\"data\":{\"n\":\"0\"}}");
                            assertThat(created.code()).isEqualTo(201);
                            String since = created.body()
                                    .at("/metadata/resourceVersion")
                                    .asText();
                            for (int i = 1; i <= WATCH_CACHE + 1; i++) {
                                patch(path + "/" + name, MERGE, "{\"data\":{\"n\":\"" + i + "\"}}");
                            }
                            java.util.List<JsonNode> events =
                                    watch(path + "?watch=true&timeoutSeconds=1&resourceVersion=" + since);
                            assertThat(events).hasSize(1);
                            assertThat(events.get(0).path("type").asText()).isEqualTo("ERROR");
                            assertThat(events.get(0).at("/object/code").asInt()).isEqualTo(410);
                            assertThat(events.get(0).at("/object/reason").asText())
                                    .isEqualTo("Expired");
                            assertThat(events.get(0).at("/object/message").asText())
                                    .startsWith("too old resource version: " + since + " (");
                        }),
                new Row(
                        "a watch without a resourceVersion starts with the current objects, as ADDED",
                        "staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go getAllEventsSinceLocked"
                                + " (resourceVersion 0 or unset: the current state first)",
                        name -> {
                            ownedLease(name);
                            assertThat(watch(LEASES + "?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3D"
                                            + name))
                                    .extracting(e -> e.path("type").asText() + " "
                                            + e.at("/object/metadata/name").asText())
                                    .containsExactly("ADDED " + name);
                        }),
                // ---- validating admission webhooks -------------------------------------------------------------
                new Row(
                        "a matching webhook is sent an AdmissionReview; its refusal is the client's answer",
                        "staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/validating/dispatcher.go;"
                                + " webhook/errors/statuserror.go ToStatusErr (\"admission webhook %q denied the request\")",
                        name -> withWebhook(
                                name, "/verdict", "Fail", 10, "[\"CREATE\",\"UPDATE\"]", "[\"configmaps\"]", () -> {
                                    Http denied = createConfigMap(name + "-no", "deny");
                                    denied.assertStatus(403)
                                            .isEqualTo("admission webhook \"" + name
                                                    + ".conformance.tenure.dev\" denied the request: verdict deny");
                                    assertThat(get("/api/v1/namespaces/default/configmaps/" + name + "-no")
                                                    .code())
                                            .isEqualTo(404);
                                    assertThat(createConfigMap(name + "-yes", "allow")
                                                    .code())
                                            .isEqualTo(201);
                                    JsonNode review = WEBHOOK.reviews.get(WEBHOOK.reviews.size() - 1);
                                    assertThat(review.at("/request/operation").asText())
                                            .isEqualTo("CREATE");
                                    assertThat(review.at("/request/resource/resource")
                                                    .asText())
                                            .isEqualTo("configmaps");
                                    assertThat(review.at("/request/object/metadata/name")
                                                    .asText())
                                            .isEqualTo(name + "-yes");
                                    Http update = send(
                                            "PATCH",
                                            "/api/v1/namespaces/default/configmaps/" + name + "-yes",
                                            MERGE,
                                            "{\"data\":{\"verdict\":\"deny\"}}");
                                    assertThat(update.code())
                                            .as("a patch is reviewed as the object it makes")
                                            .isEqualTo(403);
                                    review = WEBHOOK.reviews.get(WEBHOOK.reviews.size() - 1);
                                    assertThat(review.at("/request/operation").asText())
                                            .isEqualTo("UPDATE");
                                    assertThat(review.at("/request/oldObject/data/verdict")
                                                    .asText())
                                            .isEqualTo("allow");
                                })),
                new Row(
                        "rules: a write whose operation or resource no rule lists is not sent to the webhook",
                        "staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules/rules.go Matcher",
                        name -> withWebhook(name, "/verdict", "Fail", 10, "[\"DELETE\"]", "[\"configmaps\"]", () -> {
                            int before = WEBHOOK.reviews.size();
                            assertThat(createConfigMap(name, "deny").code()).isEqualTo(201);
                            assertThat(WEBHOOK.reviews).hasSize(before);
                            Http delete = send("DELETE", "/api/v1/namespaces/default/configmaps/" + name, null, null);
                            assertThat(delete.code()).isEqualTo(403);
                            assertThat(WEBHOOK.reviews
                                            .get(before)
                                            .at("/request/oldObject/data/verdict")
                                            .asText())
                                    .isEqualTo("deny");
                        })),
                new Row(
                        "failurePolicy Fail: a webhook that cannot be called fails the request with 500",
                        "staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/validating/dispatcher.go"
                                + " (ErrCallingWebhook, failurePolicy Fail: apierrors.NewInternalError)",
                        name -> withWebhookAt(name, "http://127.0.0.1:" + closedPort() + "/", "Fail", 10, () -> {
                            Http failed = createConfigMap(name, "allow");
                            failed.assertStatus(500)
                                    .startsWith("Internal error occurred: failed calling webhook \"" + name
                                            + ".conformance.tenure.dev\": failed to call webhook: Post");
                        })),
                new Row(
                        "failurePolicy Ignore: a webhook that cannot be called is skipped",
                        "staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/validating/dispatcher.go"
                                + " (failurePolicy Ignore: the call's error is logged, the request admitted)",
                        name -> withWebhookAt(
                                name,
                                "http://127.0.0.1:" + closedPort() + "/",
                                "Ignore",
                                10,
                                () -> assertThat(createConfigMap(name, "allow").code())
                                        .isEqualTo(201))),
                new Row(
                        "timeoutSeconds: a webhook slower than its timeout is a failed call",
                        "staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/validating/dispatcher.go"
                                + " (context deadline of timeoutSeconds)",
                        name -> withWebhook(name, "/stall", "Fail", 1, "[\"CREATE\"]", "[\"configmaps\"]", () -> {
                            Http failed = createConfigMap(name, "allow");
                            failed.assertStatus(500).endsWith("context deadline exceeded");
                        })),
                // ---- PodDisruptionBudget status (the disruption controller, on a living namespace) ----------
                new Row(
                        "PDB status: minAvailable as a number counts the selected pods; Ready pods are healthy",
                        "pkg/controller/disruption/disruption.go getExpectedPodCount (int minAvailable: expected ="
                                + " len(pods)), countHealthyPods, updatePdbStatus; UpdateDisruptionAllowedCondition",
                        name -> {
                            webOnItsNode(name, 4);
                            cluster.seed()
                                    .pdb("web")
                                    .namespace(name)
                                    .selector("app", "web")
                                    .minAvailable(2)
                                    .create();
                            try (var living = cluster.living(name, Duration.ofHours(1))) {
                                JsonNode status = budgetStatus(name, "web", 2);
                                assertThat(numbers(status)).containsExactly(4, 2, 4, 2);
                                assertThat(status.at("/observedGeneration").asLong())
                                        .isEqualTo(get(pdbPath(name, "web"))
                                                .body()
                                                .at("/metadata/generation")
                                                .asLong());
                                JsonNode condition = status.at("/conditions/0");
                                assertThat(condition.path("type").asText()).isEqualTo("DisruptionAllowed");
                                assertThat(condition.path("status").asText()).isEqualTo("True");
                                assertThat(condition.path("reason").asText()).isEqualTo("SufficientPods");
                            }
                        }),
                new Row(
                        "PDB status: a percentage counts the controllers' scale, rounds up, leaves bare pods out",
                        "pkg/controller/disruption/disruption.go getExpectedScale (sum of controller scales,"
                                + " unmanaged pods skipped), intstr.GetScaledValueFromIntOrPercent(roundUp=true)",
                        name -> {
                            webOnItsNode(name, 3);
                            cluster.seed()
                                    .pod("bare")
                                    .namespace(name)
                                    .label("app", "web")
                                    .onNode(name)
                                    .create();
                            cluster.seed()
                                    .pdb("web")
                                    .namespace(name)
                                    .selector("app", "web")
                                    .minAvailable("50%")
                                    .create();
                            try (var living = cluster.living(name, Duration.ofHours(1))) {
                                // expected 3 (the Deployment's scale), desired ceil(1.5) = 2, healthy 4 (the bare
                                // pod is Ready and counted healthy, as upstream counts every selected pod)
                                assertThat(numbers(budgetStatus(name, "web", 2)))
                                        .containsExactly(4, 2, 3, 2);
                            }
                        }),
                new Row(
                        "PDB status: maxUnavailable needs the scale; a pod being deleted is not healthy, recomputed",
                        "pkg/controller/disruption/disruption.go getExpectedPodCount (maxUnavailable: desired ="
                                + " expected - maxUnavailable), countHealthyPods (DeletionTimestamp != nil: skipped)",
                        name -> {
                            java.util.List<io.fabric8.kubernetes.api.model.Pod> pods = webOnItsNode(name, 3);
                            cluster.seed()
                                    .pdb("web")
                                    .namespace(name)
                                    .selector("app", "web")
                                    .maxUnavailable(1)
                                    .create();
                            try (var living = cluster.living(name, Duration.ofHours(1))) {
                                assertThat(numbers(budgetStatus(name, "web", 1)))
                                        .containsExactly(3, 2, 3, 1);
                                deletePod(pods.get(0));
                                // the replacement is not Ready for an hour: 2 healthy, none to spare
                                JsonNode after = budgetStatus(name, "web", 0);
                                assertThat(numbers(after)).containsExactly(2, 2, 3, 0);
                                assertThat(after.at("/conditions/0/status").asText())
                                        .isEqualTo("False");
                                assertThat(after.at("/conditions/0/reason").asText())
                                        .isEqualTo("InsufficientPods");
                            }
                        }),
                // ---- workload status (the ReplicaSet controller, on a living namespace) -----------------------
                new Row(
                        "ReplicaSet status: replicas counts active pods, a replacement not Ready is not available",
                        "pkg/controller/replicaset/replica_set_utils.go calculateStatus (Replicas = active pods,"
                                + " Pending included; ReadyReplicas, AvailableReplicas with minReadySeconds 0;"
                                + " ObservedGeneration)",
                        name -> {
                            java.util.List<io.fabric8.kubernetes.api.model.Pod> pods = webOnItsNode(name, 3);
                            String rs = replicaSetOf(pods.get(0));
                            // as seeded: what the controller wrote for three Ready pods
                            assertThat(replicaCounts(get(rs).body().path("status")))
                                    .containsExactly(3, 3, 3);
                            try (var living = cluster.living(name, Duration.ofHours(1))) {
                                deletePod(pods.get(0));
                                // the replacement is created and bound, not Ready for an hour: active, not available
                                JsonNode[] status = new JsonNode[1];
                                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                                    status[0] = get(rs).body();
                                    assertThat(replicaCounts(status[0].path("status")))
                                            .containsExactly(3, 2, 2);
                                });
                                assertThat(status[0]
                                                .at("/status/observedGeneration")
                                                .asLong())
                                        .isEqualTo(status[0]
                                                .at("/metadata/generation")
                                                .asLong());
                            }
                        }),
                // ---- metadata.generation of Deployments and ReplicaSets -------------------------------------
                new Row(
                        "generation: a Deployment's moves on a spec or annotation change, a ReplicaSet's on spec only",
                        "pkg/registry/apps/deployment/strategy.go PrepareForCreate (Generation = 1), PrepareForUpdate"
                                + " (spec or annotations changed: Generation + 1), deploymentStatusStrategy (none);"
                                + " pkg/registry/apps/replicaset/strategy.go PrepareForUpdate (spec changed only);"
                                + " the scale subresource updates through the same strategy (storage.go ScaleREST)",
                        name -> {
                            java.util.List<io.fabric8.kubernetes.api.model.Pod> pods = webOnItsNode(name, 1);
                            String deployment = "/apis/apps/v1/namespaces/" + name + "/deployments/web";
                            String rs = replicaSetOf(pods.get(0));
                            String note = "{\"metadata\":{\"annotations\":{\"example.com/note\":\"%s\"}}}";
                            long created = generation(deployment);
                            assertThat(created).as("a created Deployment").isEqualTo(1);

                            assertThat(send("PATCH", deployment, MERGE, note.formatted("a"))
                                            .body()
                                            .at("/metadata/generation")
                                            .asLong())
                                    .as("a Deployment's annotation added")
                                    .isEqualTo(created + 1);
                            send("PATCH", deployment, MERGE, note.formatted("a"));
                            assertThat(generation(deployment))
                                    .as("the same annotation again: nothing changed")
                                    .isEqualTo(created + 1);
                            send("PATCH", deployment, MERGE, "{\"metadata\":{\"labels\":{\"tier\":\"x\"}}}");
                            assertThat(generation(deployment)).as("a label").isEqualTo(created + 1);
                            assertThat(send("PATCH", deployment + "/scale", MERGE, "{\"spec\":{\"replicas\":2}}")
                                            .code())
                                    .isEqualTo(200);
                            assertThat(generation(deployment)).as("scaled").isEqualTo(created + 2);
                            send(
                                    "PATCH",
                                    deployment + "/status",
                                    MERGE,
                                    "{\"status\":{\"observedGeneration\":" + (created + 2) + "}}");
                            assertThat(generation(deployment)).as("its status").isEqualTo(created + 2);

                            long rsCreated = generation(rs);
                            send("PATCH", rs, MERGE, note.formatted("b"));
                            assertThat(generation(rs))
                                    .as("a ReplicaSet's annotation")
                                    .isEqualTo(rsCreated);
                            send("PATCH", rs + "/scale", MERGE, "{\"spec\":{\"replicas\":3}}");
                            assertThat(generation(rs)).as("a ReplicaSet scaled").isEqualTo(rsCreated + 1);
                        }),
                new Row(
                        "eviction of a pod two PodDisruptionBudgets select: 500, nothing deleted",
                        "pkg/registry/core/pod/storage/eviction.go getPodDisruptionBudgets/Create (len(pdbs) > 1:"
                                + " InternalError \"This pod has more than one PodDisruptionBudget, which the"
                                + " eviction subresource does not support.\")",
                        name -> {
                            cluster.seed().node(name).create();
                            cluster.seed()
                                    .pod("yy")
                                    .namespace(name)
                                    .label("app", "yy")
                                    .onNode(name)
                                    .create();
                            cluster.seed()
                                    .pdb("a")
                                    .namespace(name)
                                    .selector("app", "yy")
                                    .minAvailable(0)
                                    .create();
                            cluster.seed()
                                    .pdb("b")
                                    .namespace(name)
                                    .selector("app", "yy")
                                    .minAvailable(0)
                                    .create();
                            Http refused = send(
                                    "POST",
                                    "/api/v1/namespaces/" + name + "/pods/yy/eviction",
                                    JSON_TYPE,
                                    "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":"
                                            + "{\"name\":\"yy\",\"namespace\":\"" + name + "\"}}");
                            refused.assertStatus(500)
                                    .isEqualTo("This pod has more than one PodDisruptionBudget, which the eviction"
                                            + " subresource does not support.");
                            assertThat(get("/api/v1/namespaces/" + name + "/pods/yy")
                                            .body()
                                            .at("/metadata/deletionTimestamp")
                                            .isMissingNode())
                                    .isTrue();
                        }),
                new Row(
                        "eviction in a namespace being deleted: 403 with cause NamespaceTerminating",
                        "plugin/pkg/admission/namespace/lifecycle/admission.go (no create in a terminating"
                                + " namespace; cause NamespaceTerminating, field metadata.namespace)",
                        name -> {
                            cluster.seed().node(name).create();
                            cluster.seed()
                                    .object(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                                            .withNewMetadata()
                                            .withName(name)
                                            .endMetadata()
                                            .withNewStatus()
                                            .withPhase("Terminating")
                                            .endStatus()
                                            .build());
                            cluster.seed().pod("p").namespace(name).onNode(name).create();
                            Http refused = send(
                                    "POST",
                                    "/api/v1/namespaces/" + name + "/pods/p/eviction",
                                    JSON_TYPE,
                                    "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":"
                                            + "{\"name\":\"p\",\"namespace\":\"" + name + "\"}}");
                            refused.assertStatus(403)
                                    .contains("unable to create new content in namespace " + name
                                            + " because it is being terminated");
                            assertThat(refused.body()
                                            .at("/details/causes/0/reason")
                                            .asText())
                                    .isEqualTo("NamespaceTerminating");
                            assertThat(get("/api/v1/namespaces/" + name + "/pods/p")
                                            .code())
                                    .isEqualTo(200);
                        }),
                // ---- PersistentVolumes and claims ----------------------------------------------------------
                new Row(
                        "PersistentVolumes (cluster-scoped) and claims (namespaced) are served and discovered",
                        "pkg/registry/core/persistentvolume, persistentvolumeclaim (REST storage, status"
                                + " subresource); discovery /api/v1 lists persistentvolumes (pv) and"
                                + " persistentvolumeclaims (pvc)",
                        name -> {
                            JsonNode discovery = get("/api/v1").body();
                            assertThat(discovery.path("resources").findValuesAsText("name"))
                                    .contains(
                                            "persistentvolumes",
                                            "persistentvolumes/status",
                                            "persistentvolumeclaims",
                                            "persistentvolumeclaims/status");
                            String pv = "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":"
                                    + "{\"name\":\"" + name + "\"},\"spec\":{\"capacity\":{\"storage\":\"1Gi\"},"
                                    + "\"accessModes\":[\"ReadWriteOnce\"],\"local\":{\"path\":\"/mnt/d\"},"
                                    + "\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[{\"matchExpressions\":"
                                    + "[{\"key\":\"kubernetes.io/hostname\",\"operator\":\"In\",\"values\":[\"w1\"]}]}]}}}}";
                            assertThat(send("POST", "/api/v1/persistentvolumes", JSON_TYPE, pv)
                                            .code())
                                    .isEqualTo(201);
                            send(
                                    "POST",
                                    "/api/v1/namespaces",
                                    JSON_TYPE,
                                    "{\"apiVersion\":\"v1\",\"kind\":" + "\"Namespace\",\"metadata\":{\"name\":\""
                                            + name + "\"}}");
                            String pvc = "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":"
                                    + "{\"name\":\"data\"},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],"
                                    + "\"volumeName\":\"" + name
                                    + "\",\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}}}";
                            assertThat(send(
                                                    "POST",
                                                    "/api/v1/namespaces/" + name + "/persistentvolumeclaims",
                                                    JSON_TYPE,
                                                    pvc)
                                            .code())
                                    .isEqualTo(201);
                            assertThat(get("/api/v1/persistentvolumes/" + name)
                                            .body()
                                            .at(
                                                    "/spec/nodeAffinity/required/nodeSelectorTerms/0/matchExpressions/0/values/0")
                                            .asText())
                                    .isEqualTo("w1");
                            assertThat(get("/api/v1/namespaces/" + name + "/persistentvolumeclaims/data")
                                            .body()
                                            .at("/spec/volumeName")
                                            .asText())
                                    .isEqualTo(name);
                            assertThat(send("DELETE", "/api/v1/persistentvolumes/" + name, null, null)
                                            .code())
                                    .isEqualTo(200);
                            assertThat(get("/api/v1/persistentvolumes/" + name).code())
                                    .isEqualTo(404);
                        }),
                // ---- garbage collection ------------------------------------------------------------------------
                new Row(
                        "an object whose owners are all deleted is deleted in the background (a node's Lease)",
                        "pkg/controller/garbagecollector/garbagecollector.go attemptToDeleteItem (all owners absent:"
                                + " delete the dependent); docs concepts/architecture/garbage-collection",
                        name -> {
                            cluster.seed().node(name).create();
                            ownedLease(name, name);
                            assertThat(send("DELETE", "/api/v1/nodes/" + name, null, null)
                                            .code())
                                    .isEqualTo(200);
                            await().atMost(Duration.ofSeconds(10))
                                    .until(() -> get(LEASES + "/" + name).code() == 404);
                        }),
                new Row(
                        "an object keeps living while one of its owners does",
                        "pkg/controller/garbagecollector/garbagecollector.go attemptToDeleteItem (some owners remain:"
                                + " only the dangling references are dropped; the object stays)",
                        name -> {
                            cluster.seed().node(name + "-a").create();
                            cluster.seed().node(name + "-b").create();
                            cluster.seed().node(name + "-c").create();
                            ownedLease(name, name + "-a", name + "-b");
                            ownedLease(name + "-marker", name + "-c");
                            send("DELETE", "/api/v1/nodes/" + name + "-a", null, null);
                            send("DELETE", "/api/v1/nodes/" + name + "-c", null, null);
                            // the collector works in order: once the marker is gone, the lease was judged
                            await().atMost(Duration.ofSeconds(10))
                                    .until(() ->
                                            get(LEASES + "/" + name + "-marker").code() == 404);
                            assertThat(get(LEASES + "/" + name).code()).isEqualTo(200);
                        }),
                new Row(
                        "a namespace name must be a DNS label (no dots, at most 63)",
                        "pkg/apis/core/validation/validation.go ValidateNamespaceName (IsDNS1123Label)",
                        name -> {
                            Http refused = send(
                                    "POST",
                                    "/api/v1/namespaces",
                                    JSON_TYPE,
                                    "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"a.b\"}}");
                            refused.assertStatus(422).contains("a lowercase RFC 1123 label must consist of");
                        }),
                // ---- issue 50: where kubectl looks ---------------------------------------------------------
                new Row(
                        "a missing object is a 404 Status naming it (pods \"nope\" not found)",
                        "apimachinery pkg/api/errors/errors.go NewNotFound (message \"%s %q not found\","
                                + " details name, group, kind = the resource)",
                        name -> {
                            Http pod = get("/api/v1/namespaces/default/pods/" + name);
                            assertThat(pod.code()).isEqualTo(404);
                            assertThat(pod.body().path("kind").asText()).isEqualTo("Status");
                            assertThat(pod.body().path("reason").asText()).isEqualTo("NotFound");
                            assertThat(pod.body().path("code").asInt()).isEqualTo(404);
                            assertThat(pod.body().path("message").asText())
                                    .isEqualTo("pods \"" + name + "\" not found");
                            assertThat(pod.body().at("/details/name").asText()).isEqualTo(name);
                            assertThat(pod.body().at("/details/kind").asText()).isEqualTo("pods");
                            Http nm = get(NM + "/" + name);
                            nm.assertStatus(404).isEqualTo("nodemaintenances.tenure.dev \"" + name + "\" not found");
                            assertThat(nm.body().at("/details/group").asText()).isEqualTo("tenure.dev");
                        }),
                new Row(
                        "a built-in /status JSON patch with kubectl's fieldManager query is applied",
                        "apiserver pkg/endpoints/handlers/patch.go (query parameters: fieldManager, dryRun...;"
                                + " kubectl patch --subresource=status --type=json)",
                        name -> {
                            cluster.seed().node(name).create();
                            Http patched = send(
                                    "PATCH",
                                    "/api/v1/nodes/" + name + "/status?fieldManager=kubectl-patch",
                                    JSON_PATCH,
                                    "[{\"op\":\"add\",\"path\":\"/status/conditions/-\",\"value\":"
                                            + "{\"type\":\"Conformance\",\"status\":\"True\"}}]");
                            assertThat(patched.code())
                                    .as(patched.body().toString())
                                    .isEqualTo(200);
                            assertThat(conditionTypes(name)).contains("Ready", "Conformance");
                        }),
                new Row(
                        "a JSON patch whose test op fails is a 422, and changes nothing",
                        "apiserver pkg/endpoints/handlers/patch.go applyJSPatch (jsonpatch.ErrTestFailed:"
                                + " 422 Unprocessable Entity)",
                        name -> {
                            cluster.seed().node(name).create();
                            for (String path :
                                    new String[] {"/api/v1/nodes/" + name, "/api/v1/nodes/" + name + "/status"}) {
                                Http refused = send(
                                        "PATCH",
                                        path,
                                        JSON_PATCH,
                                        "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"1\"},"
                                                + "{\"op\":\"add\",\"path\":\"/metadata/labels/tested\",\"value\":\"x\"}]");
                                assertThat(refused.code())
                                        .as(path + " " + refused.body())
                                        .isEqualTo(422);
                                assertThat(refused.body().path("reason").asText())
                                        .isEqualTo("Invalid");
                            }
                            assertThat(get("/api/v1/nodes/" + name)
                                            .body()
                                            .at("/metadata/labels/tested")
                                            .isMissingNode())
                                    .isTrue();
                        }),
                new Row(
                        "a built-in object whose string map holds a non-string is refused (matchLabels: {app: true})",
                        "apiserver pkg/endpoints/handlers/rest.go decode: 400 BadRequest \"... cannot be handled as"
                                + " a Deployment: json: cannot unmarshal bool into Go struct field ... of type string\"",
                        name -> {
                            Http refused = send(
                                    "POST",
                                    "/apis/apps/v1/namespaces/default/deployments",
                                    JSON_TYPE,
                                    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\""
                                            + name + "\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":true}},"
                                            + "\"template\":{\"metadata\":{\"labels\":{\"app\":\"x\"}},\"spec\":"
                                            + "{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}}}");
                            assertThat(refused.code())
                                    .as(refused.body().toString())
                                    .isEqualTo(400);
                            assertThat(refused.body().path("reason").asText()).isEqualTo("BadRequest");
                            assertThat(refused.body().path("message").asText())
                                    .contains("cannot be handled as a Deployment")
                                    .contains("cannot unmarshal bool")
                                    .contains("spec.selector.matchLabels");
                            assertThat(get("/apis/apps/v1/namespaces/default/deployments/" + name)
                                            .code())
                                    .isEqualTo(404);
                            Http label = send(
                                    "POST",
                                    "/api/v1/namespaces/default/configmaps",
                                    JSON_TYPE,
                                    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
                                            + "\",\"labels\":{\"n\":1}}}");
                            assertThat(label.code()).as(label.body().toString()).isEqualTo(400);
                            assertThat(label.body().path("message").asText()).contains("metadata.labels");
                        }),
                new Row(
                        "a pod's finalizers are listed once when it is deleted",
                        "pkg/registry/core/pod/strategy.go (graceful deletion sets deletionTimestamp; metadata"
                                + ".finalizers is a set: apimachinery ValidateObjectMeta refuses duplicates)",
                        name -> {
                            cluster.seed()
                                    .pod(name)
                                    .onNode(cluster.seed()
                                            .node(name)
                                            .create()
                                            .getMetadata()
                                            .getName())
                                    .gracePeriod(30)
                                    .create();
                            patch(
                                    "/api/v1/namespaces/default/pods/" + name,
                                    MERGE,
                                    "{\"metadata\":{\"finalizers\":[\"example.com/keep\"]}}");
                            assertThat(send("DELETE", "/api/v1/namespaces/default/pods/" + name, null, null)
                                            .code())
                                    .isEqualTo(200);
                            JsonNode listed = get("/api/v1/namespaces/default/pods/" + name)
                                    .body()
                                    .at("/metadata/finalizers");
                            java.util.List<String> names = new java.util.ArrayList<>();
                            listed.forEach(f -> names.add(f.asText()));
                            assertThat(names).contains("example.com/keep");
                            assertThat(names).doesNotHaveDuplicates();
                        }),
                new Row(
                        "a Node created without a status is stored with an empty status, never null",
                        "staging/src/k8s.io/api/core/v1/types.go Node.Status (a struct, not a pointer: {} at least)",
                        name -> {
                            Http created = send(
                                    "POST",
                                    "/api/v1/nodes",
                                    JSON_TYPE,
                                    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" + name
                                            + "\"}}");
                            assertThat(created.code())
                                    .as(created.body().toString())
                                    .isEqualTo(201);
                            assertThat(created.body().path("status").isObject())
                                    .as(created.body().toString())
                                    .isTrue();
                            JsonNode node = get("/api/v1/nodes/" + name).body();
                            assertThat(node.path("status").isObject())
                                    .as(node.toString())
                                    .isTrue();
                            patch("/api/v1/nodes/" + name, MERGE, "{\"spec\":{\"unschedulable\":true}}");
                            node = get("/api/v1/nodes/" + name).body();
                            assertThat(node.path("status").isObject())
                                    .as(node.toString())
                                    .isTrue();
                            JsonNode listed = get("/api/v1/nodes").body().path("items");
                            listed.forEach(n -> assertThat(n.path("status").isObject())
                                    .as(n.toString())
                                    .isTrue());
                        }));
    }

    private static void ownedLease(String name, String... ownerNodes) throws Exception {
        StringBuilder owners = new StringBuilder();
        for (String node : ownerNodes) {
            String uid = get("/api/v1/nodes/" + node).body().at("/metadata/uid").asText();
            owners.append(owners.length() == 0 ? "" : ",")
                    .append("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"")
                    .append(node)
                    .append("\",\"uid\":\"")
                    .append(uid)
                    .append("\"}");
        }
        Http created = send(
                "POST",
                LEASES,
                JSON_TYPE,
                "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":\"" + name
                        + "\",\"ownerReferences\":[" + owners + "]},\"spec\":{}}");
        assertThat(created.code()).as(created.body().toString()).isBetween(200, 201);
    }

    /** The events of an HTTP watch that ends by itself (timeoutSeconds), one JSON object per line. */
    private static java.util.List<JsonNode> watch(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(cluster.url() + path))
                .header("User-Agent", EmulatedCluster.HARNESS_USER_AGENT)
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build();
        HttpResponse<Stream<String>> r = HTTP.send(request, HttpResponse.BodyHandlers.ofLines());
        assertThat(r.statusCode()).isEqualTo(200);
        java.util.List<JsonNode> events = new java.util.ArrayList<>();
        for (String line : (Iterable<String>) r.body()::iterator) {
            if (!line.isBlank()) {
                events.add(JSON.readTree(line));
            }
        }
        return events;
    }

    /** A webhook server for the admission rows: {@code /verdict} denies when data.verdict is "deny". */
    static final class Webhook implements AutoCloseable {
        final java.util.List<JsonNode> reviews = new java.util.concurrent.CopyOnWriteArrayList<>();
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        final com.sun.net.httpserver.HttpServer server;

        Webhook() throws IOException {
            server = com.sun.net.httpserver.HttpServer.create(
                    new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
            server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
            server.createContext("/", exchange -> {
                JsonNode review = JSON.readTree(exchange.getRequestBody());
                reviews.add(review);
                if (exchange.getRequestURI().getPath().equals("/stall")) {
                    try {
                        release.await(30, java.util.concurrent.TimeUnit.SECONDS); // until the row is over
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                JsonNode object = review.at("/request/object").isMissingNode()
                        ? review.at("/request/oldObject")
                        : review.at("/request/object");
                boolean deny = object.at("/data/verdict").asText().equals("deny");
                com.fasterxml.jackson.databind.node.ObjectNode answer = JSON.createObjectNode()
                        .put("apiVersion", "admission.k8s.io/v1")
                        .put("kind", "AdmissionReview");
                com.fasterxml.jackson.databind.node.ObjectNode response = answer.putObject("response")
                        .put("uid", review.at("/request/uid").asText())
                        .put("allowed", !deny);
                if (deny) {
                    response.putObject("status").put("code", 403).put("message", "verdict deny");
                }
                byte[] bytes = answer.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", JSON_TYPE);
                exchange.sendResponseHeaders(200, bytes.length);
                exchange.getResponseBody().write(bytes);
                exchange.close();
            });
            server.start();
        }

        String url(String path) {
            return "http://127.0.0.1:" + server.getAddress().getPort() + path;
        }

        @Override
        public void close() {
            release.countDown();
            server.stop(0);
        }
    }

    private static Webhook WEBHOOK;

    @FunctionalInterface
    interface Body {
        void run() throws Exception;
    }

    /** Runs {@code body} with a ValidatingWebhookConfiguration for configmaps calling the test webhook at {@code path}. */
    private static void withWebhook(
            String name, String path, String failurePolicy, int timeout, String operations, String resources, Body body)
            throws Exception {
        if (WEBHOOK == null) {
            WEBHOOK = new Webhook();
        }
        withWebhookConfiguration(name, WEBHOOK.url(path), failurePolicy, timeout, operations, resources, body);
    }

    private static void withWebhookAt(String name, String url, String failurePolicy, int timeout, Body body)
            throws Exception {
        withWebhookConfiguration(name, url, failurePolicy, timeout, "[\"CREATE\"]", "[\"configmaps\"]", body);
    }

    private static void withWebhookConfiguration(
            String name, String url, String failurePolicy, int timeout, String operations, String resources, Body body)
            throws Exception {
        String configurations = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
        Http created = send(
                "POST",
                configurations,
                JSON_TYPE,
                "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingWebhookConfiguration\","
                        + "\"metadata\":{\"name\":\"" + name + "\"},\"webhooks\":[{\"name\":\"" + name
                        + ".conformance.tenure.dev\",\"admissionReviewVersions\":[\"v1\"],\"sideEffects\":\"None\","
                        + "\"failurePolicy\":\"" + failurePolicy + "\",\"timeoutSeconds\":" + timeout + ","
                        + "\"clientConfig\":{\"url\":\"" + url + "\"},\"rules\":[{\"operations\":" + operations
                        + ",\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"resources\":" + resources + "}]}]}");
        assertThat(created.code()).as(created.body().toString()).isEqualTo(201);
        try {
            body.run();
        } finally {
            assertThat(send("DELETE", configurations + "/" + name, null, null).code())
                    .isEqualTo(200);
        }
    }

    private static Http createConfigMap(String name, String verdict) throws Exception {
        return send(
                "POST",
                "/api/v1/namespaces/default/configmaps",
                JSON_TYPE,
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
                        + "\"},\"data\":{\"verdict\":\"" + verdict + "\"}}");
    }

    /**
     * A local port nothing listens on, held for the JVM's life so that no other process's server takes it and
     * receives the webhook calls meant to fail ({@link RefusingPort}).
     */
    private static int closedPort() throws IOException {
        synchronized (EmulatorConformanceTest.class) {
            if (refusing == null) {
                refusing = RefusingPort.hold();
            }
            return refusing.port();
        }
    }

    private static RefusingPort refusing;

    private static void patch(String path, String type, String body) throws Exception {
        Http r = send("PATCH", path, type, body);
        assertThat(r.code()).as(path + " " + body + " -> " + r.body()).isBetween(200, 202);
    }

    private static String taints(String... keys) {
        StringBuilder b = new StringBuilder("{\"spec\":{\"taints\":[");
        for (int i = 0; i < keys.length; i++) {
            b.append(i == 0 ? "" : ",")
                    .append("{\"key\":\"")
                    .append(keys[i])
                    .append("\",\"value\":\"v\",\"effect\":\"NoSchedule\"}");
        }
        return b.append("]}}").toString();
    }

    private static java.util.List<String> taintKeys(String node) throws Exception {
        return get("/api/v1/nodes/" + node).body().at("/spec/taints").findValuesAsText("key");
    }

    private static java.util.List<String> conditionTypes(String node) throws Exception {
        return get("/api/v1/nodes/" + node).body().at("/status/conditions").findValuesAsText("type");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("contracts")
    void emulatorKeeps(Row row) throws Exception {
        assertThat(row.upstream()).as("each row names the upstream behaviour").isNotBlank();
        row.check().run("c" + NAMES.incrementAndGet());
    }

    // ---- fixtures ------------------------------------------------------------------------------------------------

    private static String pdbPath(String namespace, String name) {
        return "/apis/policy/v1/namespaces/" + namespace + "/poddisruptionbudgets/" + name;
    }

    /** The budget's status once the disruption controller has written {@code disruptionsAllowed} = {@code allowed}. */
    private static JsonNode budgetStatus(String namespace, String name, int allowed) {
        JsonNode[] seen = new JsonNode[1];
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            seen[0] = get(pdbPath(namespace, name)).body().path("status");
            return seen[0].has("expectedPods")
                    && seen[0].path("disruptionsAllowed").asInt(-1) == allowed;
        });
        return seen[0];
    }

    /** A ReplicaSet's replicas, readyReplicas, availableReplicas. */
    private static java.util.List<Integer> replicaCounts(JsonNode status) {
        return java.util.List.of(
                status.path("replicas").asInt(-1),
                status.path("readyReplicas").asInt(-1),
                status.path("availableReplicas").asInt(-1));
    }

    /** currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed. */
    private static java.util.List<Integer> numbers(JsonNode status) {
        return java.util.List.of(
                status.path("currentHealthy").asInt(-1),
                status.path("desiredHealthy").asInt(-1),
                status.path("expectedPods").asInt(-1),
                status.path("disruptionsAllowed").asInt(-1));
    }

    private static String nodeMaintenance(String name) {
        return nodeMaintenance(name, "");
    }

    /** A NodeMaintenance for node {@code name}; {@code moreSpec} is appended to its spec (",\"window\":\"1h\""). */
    private static String nodeMaintenance(String name, String moreSpec) {
        return "{\"apiVersion\":\"tenure.dev/v1alpha1\",\"kind\":\"NodeMaintenance\",\"metadata\":{\"name\":\"" + name
                + "\"},\"spec\":{\"nodeName\":\"" + name + "\",\"reason\":\"conformance\"" + moreSpec + "}}";
    }

    /** A NodeMaintenance created, then given a status through /status (as the operator writes it). */
    private static void nodeMaintenanceWithStatus(String name) throws Exception {
        assertThat(send("POST", NM, JSON_TYPE, nodeMaintenance(name)).code()).isBetween(200, 201);
        Http written = send(
                "PATCH",
                NM + "/" + name + "/status",
                JSON_PATCH,
                "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"phase\":\"Running\"}}]");
        assertThat(written.code()).as(written.body().toString()).isBetween(200, 202);
        assertThat(get(NM + "/" + name).body().at("/status/phase").asText()).isEqualTo("Running");
    }

    /** The API path of the ReplicaSet that controls {@code pod}. */
    private static String replicaSetOf(io.fabric8.kubernetes.api.model.Pod pod) {
        return "/apis/apps/v1/namespaces/" + pod.getMetadata().getNamespace() + "/replicasets/"
                + pod.getMetadata().getOwnerReferences().get(0).getName();
    }

    /**
     * Node {@code name}, and in namespace {@code name} a Deployment {@code web} (label app=web) of {@code replicas} pods
     * on it, Ready as seeded; returns the pods.
     */
    static java.util.List<io.fabric8.kubernetes.api.model.Pod> webOnItsNode(String name, int replicas) {
        cluster.seed().node(name).create();
        return cluster.seed()
                .deployment("web")
                .namespace(name)
                .replicas(replicas)
                .onNodes(name)
                .create();
    }

    /** DELETE of the pod, without a body (its own grace period). */
    static Http deletePod(io.fabric8.kubernetes.api.model.Pod pod) throws IOException, InterruptedException {
        return send(
                "DELETE",
                "/api/v1/namespaces/" + pod.getMetadata().getNamespace() + "/pods/"
                        + pod.getMetadata().getName(),
                null,
                null);
    }

    /** The {@code metadata.generation} of the object at {@code path} as stored. */
    static long generation(String path) throws IOException, InterruptedException {
        Http read = get(path);
        assertThat(read.code()).as("%s", read.body()).isEqualTo(200);
        return read.body().at("/metadata/generation").asLong();
    }

    static Http get(String path) throws IOException, InterruptedException {
        return send("GET", path, null, null);
    }

    static Http send(String method, String path, String contentType, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(cluster.url() + path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        // the harness, not the operator: the RBAC check charges every other User-Agent to the operator
        b.header("User-Agent", EmulatedCluster.HARNESS_USER_AGENT);
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Http(r.statusCode(), r.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(r.body()));
    }
}
