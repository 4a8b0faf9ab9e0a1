package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The emulator's own reads and writes, straight into the CRUD store (bypassing request log and faults),
 * so seeding and kubelet work never show up as client traffic; watchers still see every change.
 */
final class ClusterStore {
    private final Dispatcher crud;
    /**
     * One mapper and one serialization for every emulated cluster of the JVM: both are thread-safe once built, and
     * each new one builds its (de)serializers for every model class again (a quarter of a chaos trial's CPU when each
     * cluster had its own).
     */
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    final ObjectMapper json = JSON;
    final KubernetesSerialization serialization = SERIALIZATION;

    ClusterStore(Dispatcher crud) {
        this.crud = crud;
    }

    static String collectionPath(String apiVersion, String plural, String namespace) {
        String base = apiVersion.contains("/") ? "/apis/" + apiVersion : "/api/" + apiVersion;
        return base + (namespace == null || namespace.isEmpty() ? "" : "/namespaces/" + namespace) + "/" + plural;
    }

    static String path(HasMetadata o) {
        String ns = o instanceof Namespaced ? o.getMetadata().getNamespace() : null;
        return collectionPath(o.getApiVersion(), o.getPlural(), ns) + "/"
                + o.getMetadata().getName();
    }

    MockResponse send(HttpMethod method, String path, String contentType, String body) {
        Headers.Builder h = Headers.builder();
        if (contentType != null) {
            h.set("Content-Type", contentType);
        }
        Buffer buffer = new Buffer();
        if (body != null) {
            buffer.writeUtf8(body);
        }
        return crud.dispatch(new RecordedRequest("HTTP/1.1", method, path, h.build(), buffer));
    }

    <T extends HasMetadata> T create(T object) {
        String ns = object instanceof Namespaced ? object.getMetadata().getNamespace() : null;
        MockResponse r = send(
                HttpMethod.POST,
                collectionPath(object.getApiVersion(), object.getPlural(), ns),
                "application/json",
                serialization.asJson(object));
        if (r.code() >= 300) {
            throw new IllegalStateException("seeding " + path(object) + " failed: " + r.code() + " " + body(r));
        }
        @SuppressWarnings("unchecked")
        T created = (T) serialization.unmarshal(body(r), object.getClass());
        return created;
    }

    <T> Optional<T> get(String path, Class<T> type) {
        MockResponse r = send(HttpMethod.GET, path, null, null);
        return r.code() == 200 ? Optional.of(serialization.unmarshal(body(r), type)) : Optional.empty();
    }

    <T> List<T> list(String collectionPath, Class<T> type) {
        MockResponse r = send(HttpMethod.GET, collectionPath, null, null);
        List<T> out = new ArrayList<>();
        if (r.code() == 200) {
            for (JsonNode item : tree(body(r)).path("items")) {
                out.add(serialization.unmarshal(item.toString(), type));
            }
        }
        return out;
    }

    MockResponse mergePatch(String path, String patch) {
        return send(HttpMethod.PATCH, path, "application/merge-patch+json", patch);
    }

    MockResponse update(String path, Object object) {
        return send(HttpMethod.PUT, path, "application/json", serialization.asJson(object));
    }

    MockResponse delete(String path) {
        return send(HttpMethod.DELETE, path, "application/json", null);
    }

    /**
     * The {@code spec.versions[]} entry of the stored CRD serving {@code kind} in {@code group} at {@code version}:
     * what the emulator's printing (printer columns) and OpenAPI (schema) read. Empty for a built-in kind.
     */
    Optional<JsonNode> crdVersion(String group, String version, String kind) {
        return servedVersion(
                group, version, crd -> kind.equals(crd.at("/spec/names/kind").asText()));
    }

    /**
     * The {@code openAPIV3Schema} of the stored CRD serving {@code plural} in {@code group} at {@code version};
     * empty for a built-in kind or a version without a schema.
     */
    Optional<JsonNode> crdSchema(String group, String version, String plural) {
        return servedVersion(
                        group,
                        version,
                        crd -> plural.equals(crd.at("/spec/names/plural").asText()))
                .map(v -> v.at("/schema/openAPIV3Schema"))
                .filter(JsonNode::isObject);
    }

    /** The {@code spec.versions[]} entry {@code version} of the stored CRD in {@code group} that {@code names}. */
    private Optional<JsonNode> servedVersion(String group, String version, Predicate<JsonNode> names) {
        if (group.isEmpty()) {
            return Optional.empty();
        }
        MockResponse r = send(HttpMethod.GET, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", null, null);
        if (r.code() != 200) {
            return Optional.empty();
        }
        for (JsonNode crd : tree(body(r)).path("items")) {
            if (group.equals(crd.at("/spec/group").asText()) && names.test(crd)) {
                for (JsonNode v : crd.at("/spec/versions")) {
                    if (version.equals(v.path("name").asText())) {
                        return Optional.of(v);
                    }
                }
            }
        }
        return Optional.empty();
    }

    JsonNode tree(String body) {
        try {
            return json.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String body(MockResponse r) {
        return r.getBody() == null ? "" : new String(r.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
}
