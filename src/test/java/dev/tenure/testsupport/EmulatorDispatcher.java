package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenure.kube.FencedWrites;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocketFrame;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * The emulated API server: the fabric8 CRUD dispatcher plus, in this one place, what it lacks — discovery,
 * JSON content type everywhere, strategic-merge-patch accepted as merge patch, field and label selectors on
 * list and watch, the pod eviction subresource with PodDisruptionBudgets, graceful pod deletion, a request
 * log and a fault hook.
 */
final class EmulatorDispatcher extends Dispatcher {
    static final String PDB_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";
    private static final String SMP = "application/strategic-merge-patch+json";
    private static final String MERGE_PATCH = "application/merge-patch+json";
    private static final String JSON_PATCH = "application/json-patch+json";
    /** API groups of built-in kinds (strategic merge patch applies); any other group is a CRD's. */
    private static final java.util.Set<String> BUILT_IN_GROUPS = java.util.Set.of(
            "",
            "apps",
            "batch",
            "policy",
            "coordination.k8s.io",
            "events.k8s.io",
            "apiextensions.k8s.io",
            "rbac.authorization.k8s.io",
            "admissionregistration.k8s.io",
            "networking.k8s.io",
            "storage.k8s.io",
            "scheduling.k8s.io",
            "discovery.k8s.io");

    /** Built-in resources whose status is a struct (never null in what kube-apiserver stores and answers). */
    private static final java.util.Set<String> WITH_STATUS = java.util.Set.of(
            "nodes",
            "pods",
            "namespaces",
            "services",
            "persistentvolumes",
            "persistentvolumeclaims",
            "deployments",
            "replicasets",
            "statefulsets",
            "daemonsets",
            "jobs",
            "cronjobs",
            "poddisruptionbudgets",
            "volumeattachments");

    private final IndexedCrudDispatcher crud;
    private final ClusterStore store;
    private final TableView tables;
    private final Discovery discovery;
    private final OpenApiDocuments openApi;
    private final RequestLog log;
    private final Faults faults;
    private final AdmissionWebhooks webhooks;
    private volatile KubeletSimulator kubelets;
    private final Clock clock;
    /**
     * Whether a namespace's workloads live ({@link LivingCluster}): there an eviction counts a budget's expected pods
     * from the controllers' scale, as the disruption controller does ({@link DisruptionBudgets#decide}).
     */
    private volatile java.util.function.Predicate<String> living = ns -> false;

    EmulatorDispatcher(
            IndexedCrudDispatcher crud,
            ClusterStore store,
            TableView tables,
            Discovery discovery,
            RequestLog log,
            Faults faults,
            Clock clock) {
        this.crud = crud;
        this.store = store;
        this.tables = tables;
        this.discovery = discovery;
        this.openApi = new OpenApiDocuments(store, discovery);
        this.log = log;
        this.faults = faults;
        this.clock = clock;
        this.webhooks = new AdmissionWebhooks(() -> crud.stored("validatingwebhookconfigurations").stream()
                .map(store::tree)
                .toList());
    }

    AdmissionWebhooks webhooks() {
        return webhooks;
    }

    void kubelets(KubeletSimulator kubelets) {
        this.kubelets = kubelets;
    }

    /** Which namespaces live ({@link #living}). */
    void living(java.util.function.Predicate<String> living) {
        this.living = living;
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        ApiRequest api = ApiRequest.parse(request.getMethod(), request.getPath(), request.getHeader("User-Agent"))
                .withTerm(request.getHeader(FencedWrites.TERM_HEADER));
        log.record(api);
        Optional<Faults.Fault> fault = faults.next(api);
        MockResponse response;
        if (fault.isPresent() && fault.get().status() > 0) {
            int code = fault.get().status();
            response = status(code, reasonFor(code), "injected fault for " + api, null);
        } else {
            try {
                response = serve(request, api);
            } catch (RuntimeException e) {
                // Never leave a client hanging on an emulator bug: answer 500 with the cause.
                response = status(500, "InternalError", "emulated cluster: " + e, null);
            }
        }
        if (response.code() == 404
                && api.isResourceRequest()
                && !api.name().isEmpty()
                && ClusterStore.body(response).isBlank()) {
            // the CRUD store answers a missing object with an empty body; kube-apiserver with a Status naming it
            response = notFound(api);
        }
        log.answered(new RequestLog.Answer(
                api,
                response.code(),
                response.code() >= 400 ? causeReason(response) : "",
                fault.isPresent() && fault.get().status() > 0,
                clock.instant()));
        java.time.Duration delay = fault.map(Faults.Fault::delay).orElse(java.time.Duration.ZERO);
        if (response.getWebSocketListener() == null) {
            response.setHeader("Content-Type", "application/json");
        } else {
            // a delayed watch: its socket opens, and its events (the first included) go out once the delay is over
            UnaryOperator<WebSocket> delayed = delay.isZero() ? w -> w : w -> Faults.delayed(w, delay);
            response = response.withWebSocketUpgrade(
                    new WrappingListener(response.getWebSocketListener(), w -> counted(delayed.apply(wholeFrames(w)))));
        }
        if (api.verb().equals("list") && response.code() == 200) {
            response = typedList(api, response);
        }
        if ((api.verb().equals("list") || api.verb().equals("get"))
                && response.code() == 200
                && TableView.wanted(request.getHeader("Accept"))) {
            // kubectl get asks for server-side printing; the body becomes a Table of the same objects
            String includeObject = api.query().get("includeObject");
            response = json(200, tables.table(ClusterStore.body(response), includeObject))
                    .setHeader("Content-Type", TableView.TABLE_CONTENT_TYPE);
        }
        if (!delay.isZero() && response.getWebSocketListener() == null) {
            // set last: the rewrites above (typed list, table) answer through new responses, and a delay set on the
            // first one was lost with it while the fault's rule was used up
            response.setBodyDelay(delay);
        }
        return response;
    }

    /** The first cause's reason of an error's Status body ({@code DisruptionBudget} for a budget's refusal), or "". */
    private String causeReason(MockResponse response) {
        String body = ClusterStore.body(response);
        if (!body.trim().startsWith("{")) {
            return "";
        }
        try {
            return store.tree(body).at("/details/causes/0/reason").asText("");
        } catch (RuntimeException e) {
            return "";
        }
    }

    @Override
    public void shutdown() {
        crud.shutdown();
    }

    private MockResponse serve(RecordedRequest request, ApiRequest api) {
        String method = request.getMethod();
        if ((method.equals("POST") || method.equals("PUT"))
                && String.valueOf(request.getHeader("Content-Type")).startsWith(ProtobufBodies.CONTENT_TYPE)) {
            // client-go's typed clients (kubectl create namespace) send built-in kinds as protobuf
            Optional<String> json = ProtobufBodies.toJson(request.getBody().getBytes());
            if (json.isEmpty()) {
                return status(
                        415,
                        "UnsupportedMediaType",
                        "the emulated cluster reads protobuf bodies of Namespace, "
                                + "ConfigMap and Secret only; send JSON (e.g. kubectl apply -f)",
                        null);
            }
            io.fabric8.mockwebserver.http.Buffer body = new io.fabric8.mockwebserver.http.Buffer();
            body.writeUtf8(json.get());
            request = withBody(request, "application/json", body);
        }
        if (method.equals("GET") && api.path().equals("/version")) {
            return json(
                    200,
                    "{\"major\":\"1\",\"minor\":\"32\",\"gitVersion\":\"v1.32.0-tenure-emulated\","
                            + "\"platform\":\"linux/amd64\"}");
        }
        if (api.path().startsWith("/openapi")) {
            return method.equals("GET")
                    ? openApi.document(api.path())
                            .map(d -> json(200, d))
                            .orElseGet(() -> status(
                                    404, "NotFound", "the emulated cluster serves OpenAPI v3 only (/openapi/v3)", null))
                    : status(405, "MethodNotAllowed", "the OpenAPI documents are read-only", null);
        }
        if (!api.isResourceRequest() && method.equals("GET") && Discovery.isDiscoveryPath(api.path())) {
            return discovery
                    .document(api.path())
                    .map(d -> json(200, d))
                    .orElseGet(() -> status(404, "NotFound", "the server could not find the requested resource", null));
        }
        if (api.isResourceRequest()
                && api.apiGroup().equals("authorization.k8s.io")
                && api.is("create", "selfsubjectaccessreviews")) {
            return selfSubjectAccessReview(api, request.getUtf8Body());
        }
        if (api.isResourceRequest()
                && api.apiGroup().equals("apps")
                && api.subresource().equals("scale")
                && (api.resource().equals("deployments") || api.resource().equals("replicasets"))) {
            return scale(api, method, String.valueOf(request.getHeader("Content-Type")), request.getUtf8Body());
        }
        if (api.isResourceRequest()
                && api.apiGroup().isEmpty()
                && api.resource().equals("pods")) {
            if (api.is("create", "pods", "eviction")) {
                return evict(api, request.getUtf8Body());
            }
            if (api.is("delete", "pods")) {
                Optional<MockResponse> refused = admission(api, "DELETE", null);
                if (refused.isPresent()) {
                    return refused.get();
                }
                return deletePod(api, request.getUtf8Body());
            }
        }
        if (method.equals("DELETE") && api.isResourceRequest() && !api.name().isEmpty()) {
            Optional<MockResponse> refused = admission(api, "DELETE", null);
            if (refused.isPresent()) {
                return refused.get();
            }
        }
        String contentType = String.valueOf(request.getHeader("Content-Type"));
        if (method.equals("PATCH")
                && api.isResourceRequest()
                && !api.name().isEmpty()
                && (contentType.startsWith(SMP) || contentType.startsWith(MERGE_PATCH))) {
            return mergePatch(api, contentType.startsWith(SMP), false, request.getUtf8Body());
        }
        if (method.equals("PATCH")
                && api.isResourceRequest()
                && !api.name().isEmpty()
                && (api.subresource().isEmpty() || api.subresource().equals("status"))
                && contentType.startsWith(JSON_PATCH)
                && (schema(api).isPresent() || BUILT_IN_GROUPS.contains(api.apiGroup()))) {
            // a JSON patch (also of /status) is applied here: a custom resource's result goes through its schema and
            // rules like any write, a failed test op is a 422 as upstream, and the query (kubectl's fieldManager) is
            // no part of the object's path
            return mergePatch(api, false, true, request.getUtf8Body());
        }
        if (method.equals("PUT") && api.isResourceRequest() && api.subresource().equals("status")) {
            Optional<StructuralSchema> schema = schema(api);
            String body = request.getUtf8Body(); // consumes the request's body: handed on anew below
            if (schema.isPresent() && body != null && body.trim().startsWith("{")) {
                JsonNode written = store.tree(body);
                MockResponse current =
                        store.send(io.fabric8.mockwebserver.dsl.HttpMethod.GET, objectPath(api), null, null);
                if (current.code() == 200 && written instanceof ObjectNode w) {
                    // the whole object is validated, with only its status taken from the request (see mergePatch)
                    JsonNode old = store.tree(ClusterStore.body(current));
                    ObjectNode candidate = (ObjectNode) old.deepCopy();
                    candidate.set("status", w.path("status").deepCopy());
                    Optional<MockResponse> refused = admitted(api, schema.get(), candidate, old);
                    if (refused.isPresent()) {
                        return refused.get();
                    }
                    if (candidate.has("status")) {
                        w.set("status", candidate.get("status"));
                    }
                    body = w.toString();
                }
            }
            io.fabric8.mockwebserver.http.Buffer again = new io.fabric8.mockwebserver.http.Buffer();
            again.writeUtf8(body == null ? "" : body);
            request = withBody(request, String.valueOf(request.getHeader("Content-Type")), again);
        }
        if ((method.equals("POST") || method.equals("PUT"))
                && api.isResourceRequest()
                && api.subresource().isEmpty()) {
            String body = request.getUtf8Body(); // consumes the request's body: handed on anew below
            if (body != null && body.trim().startsWith("{")) {
                JsonNode object = store.tree(body);
                JsonNode old = null; // the stored object an update replaces, read once for the precondition and rules
                if (method.equals("PUT")) {
                    MockResponse current =
                            store.send(io.fabric8.mockwebserver.dsl.HttpMethod.GET, api.path(), null, null);
                    old = current.code() == 200 ? store.tree(ClusterStore.body(current)) : null;
                    Optional<MockResponse> stale = stalePrecondition(api, object, old);
                    if (stale.isPresent()) {
                        return stale.get();
                    }
                }
                Optional<MockResponse> undecodable = undecodable(api, object);
                if (undecodable.isPresent()) {
                    return undecodable.get();
                }
                Optional<MockResponse> invalid = invalid(api, object);
                if (invalid.isPresent()) {
                    return invalid.get();
                }
                if (method.equals("POST")
                        && BUILT_IN_GROUPS.contains(api.apiGroup())
                        && WITH_STATUS.contains(api.resource())
                        && !object.path("status").isObject()
                        && object instanceof ObjectNode created) {
                    // a Go struct, never null: an object created without one has status {} (a later write keeps it)
                    created.putObject("status");
                    body = created.toString();
                }
                Optional<StructuralSchema> schema = schema(api);
                if (schema.isPresent() && object instanceof ObjectNode written) {
                    Optional<MockResponse> refused = admitted(api, schema.get(), written, old);
                    if (refused.isPresent()) {
                        return refused.get();
                    }
                    body = written.toString();
                }
                Optional<MockResponse> refused = admission(api, method.equals("POST") ? "CREATE" : "UPDATE", object);
                if (refused.isPresent()) {
                    return refused.get();
                }
            }
            io.fabric8.mockwebserver.http.Buffer again = new io.fabric8.mockwebserver.http.Buffer();
            again.writeUtf8(body == null ? "" : body);
            request = withBody(request, contentType, again);
        }
        if ((api.verb().equals("list") || api.verb().equals("watch"))
                && (api.query().containsKey("fieldSelector") || api.query().containsKey("labelSelector"))) {
            return selected(request, api);
        }
        return crud.dispatch(request);
    }

    /**
     * An update names the resourceVersion it was read at; a different one stored is a 409, whatever the update does
     * (kube-apiserver's precondition, checked before the write). The CRUD store checks it too, but only after it has
     * finished the deletion of an object whose update removes its last finalizer — so a stale update of an object
     * in deletion deleted whatever object held the name by then (a Lease created anew in the meantime, and with it a
     * leader's term: an 83 ms overlap in the real-time election chaos).
     */
    private Optional<MockResponse> stalePrecondition(ApiRequest api, JsonNode object, JsonNode old) {
        String wanted = object.path("metadata").path("resourceVersion").asText("");
        if (wanted.isEmpty() || old == null) {
            return Optional.empty(); // no precondition, or a missing object: the store answers 404 as upstream
        }
        String stored = old.path("metadata").path("resourceVersion").asText("");
        if (stored.equals(wanted)) {
            return Optional.empty();
        }
        return Optional.of(status(
                409,
                "Conflict",
                "Operation cannot be fulfilled on " + api.resource() + " \"" + api.name()
                        + "\": the object has been modified; please apply your changes to the latest version and try"
                        + " again",
                null));
    }

    /**
     * JSON merge patch (RFC 7386) and strategic merge patch, computed here ({@link MergePatches}) and written as an
     * update of the version read: the CRUD store's own merge appends to lists and keeps nulls. As kube-apiserver's
     * GuaranteedUpdate, a conflict with a concurrent write is retried on the newer version, unless the patch itself
     * names a resourceVersion (then it is the client's precondition: 409). Strategic merge patch of a custom
     * resource is refused with 415, as upstream (apiextensions-apiserver serves no Go type to take strategies from).
     */
    private MockResponse mergePatch(ApiRequest api, boolean strategic, boolean jsonPatch, String body) {
        if (strategic && !BUILT_IN_GROUPS.contains(api.apiGroup())) {
            return status(
                    415,
                    "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted media types include: "
                            + "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
                    null);
        }
        JsonNode patch;
        try {
            patch = store.tree(body == null || body.isBlank() ? "{}" : body);
        } catch (java.io.UncheckedIOException e) {
            return status(
                    400, "BadRequest", "error decoding patch: " + e.getCause().getMessage(), null);
        }
        String objectPath = "status".equals(api.subresource())
                ? api.path().substring(0, api.path().length() - "/status".length())
                : api.path();
        boolean preconditioned = jsonPatch
                ? patch.toString().contains("/metadata/resourceVersion")
                : !patch.path("metadata").path("resourceVersion").asText("").isEmpty();
        for (int attempt = 0; ; attempt++) {
            MockResponse current = store.send(io.fabric8.mockwebserver.dsl.HttpMethod.GET, objectPath, null, null);
            if (current.code() == 404) {
                return notFound(api);
            }
            JsonNode before = store.tree(ClusterStore.body(current));
            JsonNode after;
            try {
                after = jsonPatch
                        ? io.fabric8.zjsonpatch.JsonPatch.apply(patch, before)
                        : strategic
                                ? MergePatches.strategic(api.resource(), before, patch)
                                : MergePatches.json(before, patch);
            } catch (MergePatches.Invalid e) {
                return status(422, "Invalid", e.getMessage(), null);
            } catch (RuntimeException e) {
                if (!jsonPatch) {
                    throw e;
                }
                return status(422, "Invalid", "the JSON patch does not apply: " + e.getMessage(), null);
            }
            if (!(after.path("metadata") instanceof ObjectNode meta)) {
                return status(422, "Invalid", "metadata: Required value: a patch cannot remove metadata", null);
            }
            if (preconditioned) {
                // the patched object's resourceVersion is the client's precondition, checked before anything else is
                // (the CRUD store does not check it on a /status write)
                Optional<MockResponse> stale = stalePrecondition(api, after, before);
                if (stale.isPresent()) {
                    return stale.get();
                }
            } else {
                meta.put(
                        "resourceVersion",
                        before.path("metadata").path("resourceVersion").asText());
            }
            if (api.subresource().equals("status") && after instanceof ObjectNode written) {
                // kube-apiserver validates the whole object on a status write (apiextensions-apiserver
                // pkg/registry/customresource/status_strategy.go ValidateUpdate): only status is taken from it
                Optional<StructuralSchema> schema = schema(api);
                if (schema.isPresent()) {
                    ObjectNode candidate = ((ObjectNode) before.deepCopy());
                    candidate.set("status", written.path("status").deepCopy());
                    Optional<MockResponse> refused = admitted(api, schema.get(), candidate, before);
                    if (refused.isPresent()) {
                        return refused.get();
                    }
                    if (candidate.has("status")) {
                        written.set("status", candidate.get("status"));
                    }
                }
            }
            if (api.subresource().isEmpty()) {
                Optional<MockResponse> undecodable = undecodable(api, after);
                if (undecodable.isPresent()) {
                    return undecodable.get();
                }
                Optional<MockResponse> invalid = invalid(api, after);
                if (invalid.isPresent()) {
                    return invalid.get();
                }
                Optional<StructuralSchema> schema = schema(api);
                if (schema.isPresent()) {
                    Optional<MockResponse> refused = admitted(api, schema.get(), (ObjectNode) after, before);
                    if (refused.isPresent()) {
                        return refused.get();
                    }
                }
            }
            JsonNode stored = before;
            Optional<MockResponse> refused = admission(api, "UPDATE", after, () -> stored);
            if (refused.isPresent()) {
                return refused.get();
            }
            io.fabric8.mockwebserver.http.Buffer buffer = new io.fabric8.mockwebserver.http.Buffer();
            buffer.writeUtf8(after.toString());
            io.fabric8.mockwebserver.http.Headers headers = io.fabric8.mockwebserver.http.Headers.builder()
                    .set("Content-Type", "application/json")
                    .build();
            MockResponse written = crud.dispatch(new RecordedRequest(
                    "HTTP/1.1", io.fabric8.mockwebserver.dsl.HttpMethod.PUT, api.path(), headers, buffer));
            if (written.code() == 409 && !preconditioned && attempt < 20) {
                continue;
            }
            return written;
        }
    }

    private volatile boolean enforceCrdSchemas = true;

    /**
     * The validating admission webhooks a write must pass ({@link AdmissionWebhooks}), after its schema, as in
     * kube-apiserver; {@code object} is null for a DELETE, the stored object is read only if a webhook asks.
     */
    private Optional<MockResponse> admission(ApiRequest api, String operation, JsonNode object) {
        return admission(api, operation, object, () -> {
            MockResponse current = store.send(io.fabric8.mockwebserver.dsl.HttpMethod.GET, objectPath(api), null, null);
            return current.code() == 200 ? store.tree(ClusterStore.body(current)) : null;
        });
    }

    private Optional<MockResponse> admission(
            ApiRequest api, String operation, JsonNode object, java.util.function.Supplier<JsonNode> old) {
        if (!webhooks.any()) {
            return Optional.empty();
        }
        String kind = object == null ? "" : object.path("kind").asText("");
        if (kind.isEmpty()) {
            kind = discovery.kind(api.apiGroup(), api.resource()).orElse("");
        }
        String name = api.name().isEmpty() && object != null
                ? object.path("metadata").path("name").asText("")
                : api.name();
        return webhooks.review(new AdmissionWebhooks.Attributes(
                        operation,
                        api.apiGroup(),
                        api.version(),
                        api.resource(),
                        api.subresource(),
                        api.namespace() == null ? "" : api.namespace(),
                        name,
                        kind,
                        username(api),
                        object,
                        old))
                .map(r -> json(r.code(), r.status().toString()));
    }

    /**
     * authorization.k8s.io/v1 SelfSubjectAccessReview (pkg/registry/authorization/selfsubjectaccessreview): the
     * review's resource attributes judged for the user the request is taken to come from, by the RBAC objects stored
     * here ({@link RbacAuthorizer}; its limits apply: no aggregation, no other authorizer). Nothing is stored.
     */
    private MockResponse selfSubjectAccessReview(ApiRequest api, String body) {
        ObjectNode review = (ObjectNode) store.tree(body);
        io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes attributes = store.serialization.unmarshal(
                review.path("spec").path("resourceAttributes").toString(),
                io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributes.class);
        io.fabric8.kubernetes.api.model.authentication.UserInfo user =
                new io.fabric8.kubernetes.api.model.authentication.UserInfoBuilder()
                        .withUsername(username(api))
                        .withGroups(List.of("system:authenticated"))
                        .build();
        boolean allowed = attributes != null && new RbacAuthorizer(store).allowed(user, attributes);
        ObjectNode status = review.putObject("status");
        status.put("allowed", allowed);
        if (!allowed) {
            status.put("reason", "no RBAC rule of the emulated cluster allows it");
        }
        return json(201, review.toString());
    }

    /** The user a request is taken to come from (the emulator has no authentication; RequestOrigin stands in). */
    private static String username(ApiRequest api) {
        return switch (RequestOrigin.of(api)) {
            case OPERATOR, PREVIOUS_RELEASE -> "system:serviceaccount:tenure-system:tenure-operator";
            case WORKLOAD -> "system:serviceaccount:default:workload";
            default -> "kubernetes-admin";
        };
    }

    /** The path of the object a request names, without its subresource. */
    private static String objectPath(ApiRequest api) {
        return api.subresource().isEmpty()
                ? api.path()
                : api.path()
                        .substring(0, api.path().length() - api.subresource().length() - 1);
    }

    /** Off: custom resources are stored as written, as by an API server that does not enforce CRD schemas. */
    void enforceCrdSchemas(boolean enforce) {
        this.enforceCrdSchemas = enforce;
    }

    /** The structural schema of the custom resource a request writes, if its CRD is stored and has one. */
    private Optional<StructuralSchema> schema(ApiRequest api) {
        if (!enforceCrdSchemas || BUILT_IN_GROUPS.contains(api.apiGroup())) {
            return Optional.empty();
        }
        return store.crdSchema(api.apiGroup(), api.version(), api.resource()).map(StructuralSchema::new);
    }

    /**
     * Prunes and defaults a written custom resource in place, then validates it against its schema and rules
     * ({@code old}: the stored object of an update, for transition rules): 422 Invalid naming every refused field.
     */
    private Optional<MockResponse> admitted(ApiRequest api, StructuralSchema schema, ObjectNode object, JsonNode old) {
        schema.pruneAndDefault(object);
        List<StructuralSchema.Violation> violations = schema.validate(object, old);
        if (violations.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(invalid(
                api,
                object,
                violations.stream()
                        .map(v -> new Cause(
                                v.field(),
                                v.detail(),
                                v.detail().startsWith("Required") ? "FieldValueRequired" : "FieldValueInvalid"))
                        .toList()));
    }

    /** A field refused, with the reason kube-apiserver gives it (FieldValueInvalid, FieldValueRequired...). */
    private record Cause(String field, String message, String reason) {}

    /**
     * 422 Invalid, shaped as kube-apiserver's (apimachinery errors.NewInvalid), when the object's name or labels
     * break {@link ObjectNames}.
     */
    private Optional<MockResponse> invalid(ApiRequest api, JsonNode object) {
        List<ObjectNames.Cause> causes = ObjectNames.check(api.resource(), object);
        if (causes.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(invalid(
                api,
                object,
                causes.stream()
                        .map(c -> new Cause(c.field(), c.message(), "FieldValueInvalid"))
                        .toList()));
    }

    /**
     * 400 BadRequest when a built-in object cannot be decoded into its Go type: a string map (labels, annotations,
     * matchLabels, nodeSelector, a ConfigMap's or Secret's data) holding a value that is not a string, as
     * kube-apiserver's decoder refuses it (apiserver pkg/endpoints/handlers/rest.go: "Deployment in version \"v1\"
     * cannot be handled as a Deployment: json: cannot unmarshal bool into Go struct field ... of type string"). The
     * field is named by its path in the object; Go names it after its struct type first.
     */
    private Optional<MockResponse> undecodable(ApiRequest api, JsonNode object) {
        if (!BUILT_IN_GROUPS.contains(api.apiGroup()) || api.apiGroup().equals("apiextensions.k8s.io")) {
            return Optional.empty(); // a CRD's schema names fields (properties.labels...) that are no string maps
        }
        Optional<String> wrong = StringMaps.firstNonString(api.resource(), object);
        if (wrong.isEmpty()) {
            return Optional.empty();
        }
        String kind = object.path("kind").asText("");
        if (kind.isEmpty()) {
            kind = discovery.kind(api.apiGroup(), api.resource()).orElse(api.resource());
        }
        return Optional.of(status(
                400,
                "BadRequest",
                kind + " in version \"" + api.version() + "\" cannot be handled as a " + kind + ": " + wrong.get(),
                null));
    }

    private MockResponse invalid(ApiRequest api, JsonNode object, List<Cause> causes) {
        String kind = object.path("kind").asText("");
        if (kind.isEmpty()) {
            kind = discovery.kind(api.apiGroup(), api.resource()).orElse(api.resource());
        }
        String qualifiedKind = api.apiGroup().isEmpty() ? kind : kind + "." + api.apiGroup();
        String name = object.path("metadata").path("name").asText(api.name());
        String fields = causes.size() == 1
                ? causes.get(0).field() + ": " + causes.get(0).message()
                : causes.stream().map(c -> c.field() + ": " + c.message()).collect(Collectors.joining(", ", "[", "]"));
        ObjectNode details = store.json.createObjectNode().put("name", name);
        if (!api.apiGroup().isEmpty()) {
            details.put("group", api.apiGroup());
        }
        details.put("kind", kind);
        ArrayNode list = details.putArray("causes");
        causes.forEach(c -> list.addObject()
                .put("reason", c.reason())
                .put("message", c.message())
                .put("field", c.field()));
        return status(422, "Invalid", qualifiedKind + " \"" + name + "\" is invalid: " + fields, details, true);
    }

    /** The same request with another body and Content-Type (what the CRUD store is given instead). */
    private static RecordedRequest withBody(
            RecordedRequest request, String contentType, io.fabric8.mockwebserver.http.Buffer body) {
        return new RecordedRequest(
                "HTTP/1.1",
                request.method(),
                request.getPath(),
                request.getHeaders()
                        .newBuilder()
                        .removeAll("Content-Type")
                        .removeAll("content-type")
                        .set("Content-Type", contentType)
                        .build(),
                body);
    }

    /**
     * The CRUD store answers lists with kind "List"; client-go's typed clients (kubectl drain) then decode no
     * items, so name the list kind as the API server does (PodList, NodeList...).
     */
    private MockResponse typedList(ApiRequest api, MockResponse response) {
        String body = ClusterStore.body(response);
        if (!body.contains("\"kind\":\"List\"")) {
            return response;
        }
        JsonNode list = store.tree(body);
        if (!"List".equals(list.path("kind").asText())) {
            return response;
        }
        return discovery
                .kind(api.apiGroup(), api.resource())
                .map(kind -> {
                    ((ObjectNode) list).put("kind", kind + "List");
                    return json(200, list.toString());
                })
                .orElse(response);
    }

    // ---- selectors -------------------------------------------------------------------------------------------

    private MockResponse selected(RecordedRequest request, ApiRequest api) {
        ObjectSelector selector =
                ObjectSelector.of(api.query().get("fieldSelector"), api.query().get("labelSelector"));
        String query = api.query().entrySet().stream()
                .filter(e -> !e.getKey().equals("fieldSelector") && !e.getKey().equals("labelSelector"))
                .map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                .collect(Collectors.joining("&"));
        String path = api.path() + (query.isEmpty() ? "" : "?" + query);
        Optional<String> node = selector.equalTo("spec.nodeName").filter(n -> !n.isEmpty()); // "" = unscheduled pods
        if (node.isPresent() && api.verb().equals("list")) {
            // kubectl drain's and Tenure's list of a node's pods: only that node's pods are read and tested.
            Optional<IndexedCrudDispatcher.Listing> onNode = crud.podsOnNode(path, node.get());
            if (onNode.isPresent()) {
                List<String> kept = onNode.get().items().stream()
                        .map(IndexedCrudDispatcher.Stored::json)
                        .filter(pod -> selector.test(store.tree(pod)))
                        .toList();
                return json(200, crud.list(kept, onNode.get().resourceVersion()));
            }
        }
        MockResponse response = crud.dispatch(
                new RecordedRequest("HTTP/1.1", request.method(), path, request.getHeaders(), request.getBody()));
        WebSocketListener listener = response.getWebSocketListener();
        if (listener != null) {
            return response.withWebSocketUpgrade(new WrappingListener(listener, w -> filtering(w, selector)));
        }
        if (response.code() != 200) {
            return response;
        }
        JsonNode list = store.tree(ClusterStore.body(response));
        if (list.has("items")) {
            ArrayNode kept = store.json.createArrayNode();
            list.get("items").forEach(item -> {
                if (selector.test(item)) {
                    kept.add(item);
                }
            });
            ((ObjectNode) list).set("items", kept);
        }
        return json(200, list.toString());
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** Passes on only the watch events whose object matches the selector. */
    private WebSocket filtering(WebSocket w, ObjectSelector selector) {
        return new ForwardingWebSocket(w) {
            @Override
            public boolean send(String text) {
                JsonNode object = store.tree(text).path("object");
                if (object.isObject() && !"Status".equals(object.path("kind").asText()) && !selector.test(object)) {
                    return true;
                }
                return w.send(text);
            }
        };
    }

    /**
     * Sends each watch event as one WebSocket frame, as kube-apiserver does (golang.org/x/net/websocket writes a
     * message as a single frame). The mock server's Vert.x socket would split a message over 64 KiB into
     * continuation frames, which fabric8's Vert.x client stalls on for good (fabric8io/kubernetes-client#7347): an
     * object that large would silently stop every informer watching its kind, which no real cluster does.
     */
    private final java.util.concurrent.atomic.AtomicLong watchEventsSent = new java.util.concurrent.atomic.AtomicLong();

    /** Watch events sent to clients so far (every WebSocket message of every watch). */
    long watchEventsSent() {
        return watchEventsSent.get();
    }

    private WebSocket counted(WebSocket w) {
        return new ForwardingWebSocket(w) {
            @Override
            public boolean send(String text) {
                watchEventsSent.incrementAndGet();
                return super.send(text);
            }
        };
    }

    static WebSocket wholeFrames(WebSocket w) {
        ServerWebSocket server;
        try {
            java.lang.reflect.Field field = w.getClass().getDeclaredField("webSocket");
            field.setAccessible(true);
            server = (ServerWebSocket) field.get(w);
        } catch (ReflectiveOperationException | ClassCastException e) {
            return w;
        }
        return new ForwardingWebSocket(w) {
            @Override
            public boolean send(String text) {
                return !server.writeFrame(WebSocketFrame.textFrame(text, true)).failed();
            }
        };
    }

    /** A WebSocket passing everything on to another; {@link #send(byte[])} goes through {@link #send(String)}. */
    private static class ForwardingWebSocket implements WebSocket {
        private final WebSocket delegate;

        ForwardingWebSocket(WebSocket delegate) {
            this.delegate = delegate;
        }

        @Override
        public RecordedRequest request() {
            return delegate.request();
        }

        @Override
        public boolean send(String text) {
            return delegate.send(text);
        }

        @Override
        public boolean send(byte[] bytes) {
            return send(new String(bytes, StandardCharsets.UTF_8));
        }

        @Override
        public boolean close(int code, String reason) {
            return delegate.close(code, reason);
        }
    }

    /** Hands the listener every socket through {@code wrapper} (one wrapper per socket). */
    private static final class WrappingListener extends WebSocketListener {
        private final WebSocketListener delegate;
        private final UnaryOperator<WebSocket> wrapper;
        private final Map<WebSocket, WebSocket> wrapped = new java.util.concurrent.ConcurrentHashMap<>();

        WrappingListener(WebSocketListener delegate, UnaryOperator<WebSocket> wrapper) {
            this.delegate = delegate;
            this.wrapper = wrapper;
        }

        private WebSocket wrap(WebSocket ws) {
            return wrapped.computeIfAbsent(ws, wrapper);
        }

        @Override
        public void onBeforeAccept(WebSocket ws, Response response) {
            delegate.onBeforeAccept(wrap(ws), response);
        }

        @Override
        public void onOpen(WebSocket ws, Response response) {
            delegate.onOpen(wrap(ws), response);
        }

        @Override
        public void onMessage(WebSocket ws, String text) {
            delegate.onMessage(wrap(ws), text);
        }

        @Override
        public void onMessage(WebSocket ws, ByteString bytes) {
            delegate.onMessage(wrap(ws), bytes);
        }

        @Override
        public void onMessage(WebSocket ws, byte[] bytes) {
            delegate.onMessage(wrap(ws), bytes);
        }

        @Override
        public void onClosing(WebSocket ws, int code, String reason) {
            delegate.onClosing(wrap(ws), code, reason);
        }

        @Override
        public void onClosed(WebSocket ws, int code, String reason) {
            delegate.onClosed(wrap(ws), code, reason);
            wrapped.remove(ws);
        }

        @Override
        public void onFailure(WebSocket ws, Throwable t, Response response) {
            delegate.onFailure(wrap(ws), t, response);
            wrapped.remove(ws);
        }
    }

    // ---- the scale subresource ---------------------------------------------------------------------------------

    /**
     * apps/v1 {@code deployments/scale} and {@code replicasets/scale} (pkg/registry/apps/deployment/storage
     * ScaleREST, replicaset likewise): GET answers an autoscaling/v1 Scale of the object (its name, namespace, uid,
     * resourceVersion; {@code spec.replicas}; {@code status.replicas} and the selector as a string); PUT and a merge
     * PATCH set the object's {@code spec.replicas} and nothing else. A Scale naming a resourceVersion is the client's
     * precondition: another stored is a 409, as upstream (the object's resourceVersion: the Scale shares it); without
     * one the write is retried on a newer version, as GuaranteedUpdate does.
     */
    private synchronized MockResponse scale(ApiRequest api, String method, String contentType, String body) {
        String path = objectPath(api);
        for (int attempt = 0; ; attempt++) {
            MockResponse current = store.send(io.fabric8.mockwebserver.dsl.HttpMethod.GET, path, null, null);
            if (current.code() != 200) {
                return notFound(api);
            }
            ObjectNode object = (ObjectNode) store.tree(ClusterStore.body(current));
            ObjectNode scale = scaleOf(object);
            if (method.equals("GET")) {
                return json(200, scale.toString());
            }
            JsonNode written;
            if (method.equals("PUT")) {
                written = store.tree(body);
            } else if (method.equals("PATCH") && (contentType.startsWith(MERGE_PATCH) || contentType.startsWith(SMP))) {
                written = MergePatches.json(scale, store.tree(body));
            } else {
                return status(405, "MethodNotAllowed", method + " " + contentType + " on " + api.path(), null);
            }
            JsonNode replicas = written.at("/spec/replicas");
            if (!replicas.canConvertToInt() || replicas.asInt() < 0) {
                return invalid(
                        api,
                        written,
                        List.of(new Cause(
                                "spec.replicas",
                                "Invalid value: " + replicas + ": must be greater than or equal to 0",
                                "FieldValueInvalid")));
            }
            String wanted = written.at("/metadata/resourceVersion").asText("");
            Optional<MockResponse> stale = stalePrecondition(api, written, object);
            if (stale.isPresent()) {
                return stale.get();
            }
            ((ObjectNode) object.with("spec")).put("replicas", replicas.asInt());
            MockResponse r = store.send(
                    io.fabric8.mockwebserver.dsl.HttpMethod.PUT, path, "application/json", object.toString());
            if (r.code() == 409 && wanted.isEmpty() && attempt < 5) {
                continue; // written meanwhile (a controller's status): no precondition of the client's, so again
            }
            if (r.code() >= 300) {
                return r;
            }
            return json(
                    200, scaleOf((ObjectNode) store.tree(ClusterStore.body(r))).toString());
        }
    }

    /** The autoscaling/v1 Scale of a Deployment or ReplicaSet as stored. */
    private ObjectNode scaleOf(ObjectNode object) {
        ObjectNode scale = store.json.createObjectNode();
        scale.put("kind", "Scale");
        scale.put("apiVersion", "autoscaling/v1");
        ObjectNode meta = scale.putObject("metadata");
        for (String field : List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
            JsonNode v = object.path("metadata").path(field);
            if (!v.isMissingNode() && !v.isNull()) {
                meta.set(field, v.deepCopy());
            }
        }
        JsonNode replicas = object.at("/spec/replicas");
        scale.putObject("spec").put("replicas", replicas.canConvertToInt() ? replicas.asInt() : 1);
        ObjectNode status = scale.putObject("status");
        status.put("replicas", object.at("/status/replicas").asInt(0));
        List<String> selector = new java.util.ArrayList<>();
        object.at("/spec/selector/matchLabels")
                .fields()
                .forEachRemaining(
                        e -> selector.add(e.getKey() + "=" + e.getValue().asText()));
        status.put("selector", String.join(",", selector));
        return scale;
    }

    // ---- eviction and graceful deletion ------------------------------------------------------------------------

    /** policy/v1 Eviction: synchronized so two evictions never both spend the last allowed disruption. */
    private synchronized MockResponse evict(ApiRequest api, String body) {
        String podPath = "/api/v1/namespaces/" + api.namespace() + "/pods/" + api.name();
        Optional<Pod> found = store.get(podPath, Pod.class);
        if (found.isEmpty()) {
            return notFound(api);
        }
        Pod pod = found.get();
        boolean namespaceTerminating = store.get("/api/v1/namespaces/" + api.namespace(), JsonNode.class)
                .map(ns -> "Terminating".equals(ns.at("/status/phase").asText()))
                .orElse(false);
        if (namespaceTerminating) {
            // plugin/pkg/admission/namespace/lifecycle: no create (an eviction is one) in a namespace being deleted
            ObjectNode cause = store.json
                    .createObjectNode()
                    .put("reason", "NamespaceTerminating")
                    .put("message", "namespace " + api.namespace() + " is being terminated")
                    .put("field", "metadata.namespace");
            return status(
                    403,
                    "Forbidden",
                    "pods \"" + api.name() + "\" is forbidden: unable to create new content in namespace "
                            + api.namespace() + " because it is being terminated",
                    cause);
        }
        if (DisruptionBudgets.isTerminating(pod)) {
            return evicted();
        }
        List<PodDisruptionBudget> budgets = store.list(
                "/apis/policy/v1/namespaces/" + api.namespace() + "/poddisruptionbudgets", PodDisruptionBudget.class);
        List<Pod> pods = budgets.isEmpty()
                ? List.of()
                : store.list("/api/v1/namespaces/" + api.namespace() + "/pods", Pod.class);
        // On a living cluster the budget counts the replicas its controllers want, so a pod evicted and gone before
        // its ReplicaSet replaced it (the controllers lag on a busy machine) still counts as unavailable; counting the
        // pods that exist granted a second eviction there (MaintenanceChaosTest seed 55752777264704).
        DisruptionBudgets.Decision decision = DisruptionBudgets.decide(
                pod, budgets, pods, living.test(api.namespace()) ? p -> DisruptionController.scaleOf(store, p) : null);
        if (decision instanceof DisruptionBudgets.Blocked blocked) {
            ObjectNode cause = store.json
                    .createObjectNode()
                    .put("reason", "DisruptionBudget")
                    .put(
                            "message",
                            "The disruption budget " + blocked.pdbName() + " needs " + blocked.desiredHealthy()
                                    + " healthy pods and has " + blocked.currentHealthy() + " currently");
            return status(429, "TooManyRequests", PDB_VIOLATION, cause);
        }
        if (decision instanceof DisruptionBudgets.TooManyBudgets) {
            return status(
                    500,
                    "InternalError",
                    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
                    null);
        }
        Long grace = gracePeriod(store.tree(body.isEmpty() ? "{}" : body).path("deleteOptions"), api);
        terminate(pod, podPath, grace);
        return evicted();
    }

    /**
     * The garbage collector's delete of an object whose owners are all gone (background propagation): checked again
     * when it runs, since an owner may have come back meanwhile; a pod goes through graceful termination, as any
     * deleted pod.
     */
    synchronized void collect(IndexedCrudDispatcher.Stored orphan) {
        Optional<IndexedCrudDispatcher.Stored> now = crud.byUid(orphan.uid());
        if (now.isEmpty()
                || now.get().ownerUids().stream().anyMatch(o -> crud.byUid(o).isPresent())) {
            return;
        }
        String path = now.get().path();
        if ("pods".equals(orphan.plural()) && "v1".equals(orphan.apiVersion())) {
            store.get(path, Pod.class)
                    .filter(p -> !DisruptionBudgets.isTerminating(p))
                    .ifPresent(p -> terminate(p, path, null));
        } else {
            store.delete(path);
        }
    }

    /** DELETE of a pod: into termination (deletionTimestamp), removed by the kubelet after the grace period. */
    private synchronized MockResponse deletePod(ApiRequest api, String body) {
        String podPath = "/api/v1/namespaces/" + api.namespace() + "/pods/" + api.name();
        Optional<Pod> found = store.get(podPath, Pod.class);
        if (found.isEmpty()) {
            return notFound(api);
        }
        Pod pod = found.get();
        Long grace = gracePeriod(store.tree(body == null || body.isBlank() ? "{}" : body), api);
        if (DisruptionBudgets.isTerminating(pod) && (grace == null || grace != 0)) {
            return json(200, store.serialization.asJson(pod));
        }
        Pod result = terminate(pod, podPath, grace);
        return json(200, store.serialization.asJson(result));
    }

    /** gracePeriodSeconds from DeleteOptions, else from the query; null = the pod's own. */
    private static Long gracePeriod(JsonNode deleteOptions, ApiRequest api) {
        if (deleteOptions.hasNonNull("gracePeriodSeconds")) {
            return deleteOptions.get("gracePeriodSeconds").asLong();
        }
        String q = api.query().get("gracePeriodSeconds");
        return q == null ? null : Long.parseLong(q);
    }

    private Pod terminate(Pod pod, String podPath, Long requestedGrace) {
        long grace = requestedGrace != null
                ? requestedGrace
                : pod.getSpec() != null && pod.getSpec().getTerminationGracePeriodSeconds() != null
                        ? pod.getSpec().getTerminationGracePeriodSeconds()
                        : 30;
        boolean scheduled = pod.getSpec() != null
                && pod.getSpec().getNodeName() != null
                && !pod.getSpec().getNodeName().isEmpty();
        // Upstream: grace 0 (force) and pods never scheduled to a node are removed at once.
        if (grace <= 0 || !scheduled) {
            store.delete(podPath);
            return pod;
        }
        return kubelets.terminate(pod, grace);
    }

    private MockResponse evicted() {
        return json(
                201, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Success\",\"code\":201}");
    }

    /** apimachinery's errors.NewNotFound: {@code <resource>[.<group>] "<name>" not found}, details kind = resource. */
    private MockResponse notFound(ApiRequest api) {
        ObjectNode details = store.json.createObjectNode().put("name", api.name());
        if (!api.apiGroup().isEmpty()) {
            details.put("group", api.apiGroup());
        }
        details.put("kind", api.resource());
        String resource = api.apiGroup().isEmpty() ? api.resource() : api.resource() + "." + api.apiGroup();
        return status(404, "NotFound", resource + " \"" + api.name() + "\" not found", details, true);
    }

    // ---- responses -----------------------------------------------------------------------------------------------

    private static MockResponse json(int code, String body) {
        return new MockResponse()
                .setResponseCode(code)
                .setHeader("Content-Type", "application/json")
                .setBody(body);
    }

    private MockResponse status(int code, String reason, String message, ObjectNode cause) {
        ObjectNode details = null;
        if (cause != null) {
            details = store.json.createObjectNode();
            details.putArray("causes").add(cause);
        }
        return status(code, reason, message, details, true);
    }

    private MockResponse status(int code, String reason, String message, ObjectNode details, boolean unused) {
        ObjectNode s = store.json.createObjectNode().put("kind", "Status").put("apiVersion", "v1");
        s.putObject("metadata");
        s.put("status", "Failure").put("message", message).put("reason", reason).put("code", code);
        if (details != null) {
            s.set("details", details);
        }
        return json(code, s.toString());
    }

    static String reasonFor(int code) {
        return switch (code) {
            case 400 -> "BadRequest";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "NotFound";
            case 409 -> "Conflict";
            case 410 -> "Expired";
            case 422 -> "Invalid";
            case 429 -> "TooManyRequests";
            case 500 -> "InternalError";
            case 503 -> "ServiceUnavailable";
            case 504 -> "Timeout";
            default -> "Unknown";
        };
    }
}
