package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * OpenAPI v3, as kube-apiserver publishes it ({@code /openapi/v3}: an index of group versions, then one document per
 * group version), for what kubectl reads from it: whether a kind takes {@code fieldValidation} (so {@code kubectl
 * apply} validates on the server instead of failing with "failed to download openapi") and the schema of a kind
 * ({@code kubectl explain}). A custom resource's schema is its CRD's {@code openAPIV3Schema}, read from the store at
 * each request; a built-in kind gets a schema with its metadata and no fields (the emulator keeps none of their
 * schemas). {@code /openapi/v2} stays 404: kubectl 1.32 falls back to it only when v3 is missing.
 */
final class OpenApiDocuments {

    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final String OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

    private final ClusterStore store;
    private final Discovery discovery;

    OpenApiDocuments(ClusterStore store, Discovery discovery) {
        this.store = store;
        this.discovery = discovery;
    }

    /** The document for a GET of {@code path} (without query), if there is one. */
    Optional<String> document(String path) {
        if (path.equals("/openapi/v3") || path.equals("/openapi/v3/")) {
            return Optional.of(index().toString());
        }
        if (path.startsWith("/openapi/v3/")) {
            String gvPath = path.substring("/openapi/v3/".length());
            return Optional.ofNullable(byGroupVersion().get(gvPath)).map(resources -> document(gvPath, resources));
        }
        return Optional.empty();
    }

    private ObjectNode index() {
        ObjectNode index = F.objectNode();
        ObjectNode paths = index.putObject("paths");
        byGroupVersion()
                .forEach((gvPath, resources) -> paths.putObject(gvPath)
                        .put(
                                "serverRelativeURL",
                                "/openapi/v3/" + gvPath + "?hash="
                                        + Integer.toHexString(
                                                document(gvPath, resources).hashCode())));
        return index;
    }

    /** "api/v1" or "apis/group/version" → the resources served there. */
    private Map<String, List<Discovery.Served>> byGroupVersion() {
        Map<String, List<Discovery.Served>> out = new LinkedHashMap<>();
        for (Discovery.Served r : discovery.resources()) {
            String gvPath = r.groupVersion().contains("/") ? "apis/" + r.groupVersion() : "api/" + r.groupVersion();
            out.computeIfAbsent(gvPath, k -> new java.util.ArrayList<>()).add(r);
        }
        return out;
    }

    private String document(String gvPath, List<Discovery.Served> resources) {
        ObjectNode doc = F.objectNode().put("openapi", "3.0.0");
        doc.putObject("info").put("title", "Kubernetes").put("version", "v1.32.0");
        ObjectNode paths = doc.putObject("paths");
        ObjectNode schemas = doc.putObject("components").putObject("schemas");
        schemas.set(OBJECT_META, objectMeta());
        for (Discovery.Served r : resources) {
            String group = r.groupVersion().contains("/")
                    ? r.groupVersion().substring(0, r.groupVersion().indexOf('/'))
                    : "";
            String version = r.groupVersion().substring(r.groupVersion().indexOf('/') + 1);
            ObjectNode gvk =
                    F.objectNode().put("group", group).put("version", version).put("kind", r.kind());
            String name = schemaName(group, version, r.kind());
            ObjectNode schema = crdSchema(group, version, r.kind()).orElseGet(() -> builtInSchema(r.kind()));
            ObjectNode properties = schema.with("properties");
            properties
                    .putObject("apiVersion")
                    .put("type", "string")
                    .put("description", "APIVersion defines the versioned schema of this representation of an object.");
            properties
                    .putObject("kind")
                    .put("type", "string")
                    .put(
                            "description",
                            "Kind is a string value representing the REST resource this object represents.");
            properties
                    .putObject("metadata")
                    .put("description", "Standard object's metadata.")
                    .putArray("allOf")
                    .addObject()
                    .put("$ref", "#/components/schemas/" + OBJECT_META);
            schema.putArray("x-kubernetes-group-version-kind").add(gvk);
            schemas.set(name, schema);

            String item = "/" + gvPath + (r.namespaced() ? "/namespaces/{namespace}/" : "/") + r.name() + "/{name}";
            ObjectNode patch = paths.putObject(item).putObject("patch");
            patch.put("operationId", "patch" + r.kind());
            patch.set("x-kubernetes-group-version-kind", gvk);
            patch.put("x-kubernetes-action", "patch");
            ArrayNode parameters = patch.putArray("parameters");
            for (String p : List.of("dryRun", "fieldManager", "fieldValidation", "force")) {
                parameters
                        .addObject()
                        .put("name", p)
                        .put("in", "query")
                        .putObject("schema")
                        .put("type", "string");
            }
            patch.putObject("responses").putObject("200").put("description", "OK");
        }
        return doc.toString();
    }

    /** As kube-openapi names definitions: the group reversed (tenure.dev → dev.tenure), then version and kind. */
    static String schemaName(String group, String version, String kind) {
        if (group.isEmpty()) {
            return "io.k8s.api.core." + version + "." + kind;
        }
        List<String> parts = new java.util.ArrayList<>(List.of(group.split("\\.")));
        java.util.Collections.reverse(parts);
        return String.join(".", parts) + "." + version + "." + kind;
    }

    private Optional<ObjectNode> crdSchema(String group, String version, String kind) {
        return store.crdVersion(group, version, kind)
                .map(v -> v.at("/schema/openAPIV3Schema"))
                .filter(JsonNode::isObject)
                .map(schema -> ((ObjectNode) schema).deepCopy());
    }

    private static ObjectNode builtInSchema(String kind) {
        ObjectNode schema = F.objectNode()
                .put("type", "object")
                .put("description", kind + " (the emulated cluster serves the metadata of built-in kinds only)");
        schema.put("x-kubernetes-preserve-unknown-fields", true);
        return schema;
    }

    private static ObjectNode objectMeta() {
        ObjectNode meta = F.objectNode()
                .put("type", "object")
                .put("description", "ObjectMeta is metadata that all persisted resources must have.");
        ObjectNode p = meta.putObject("properties");
        p.putObject("name").put("type", "string").put("description", "Name must be unique within a namespace.");
        p.putObject("namespace")
                .put("type", "string")
                .put("description", "Namespace defines the space within " + "which each name must be unique.");
        p.putObject("labels")
                .put("type", "object")
                .put("description", "Map of string keys and values.")
                .putObject("additionalProperties")
                .put("type", "string");
        p.putObject("annotations")
                .put("type", "object")
                .put("description", "Unstructured key value map.")
                .putObject("additionalProperties")
                .put("type", "string");
        p.putObject("finalizers")
                .put("type", "array")
                .put("description", "Must be empty before the object is " + "deleted from the registry.")
                .putObject("items")
                .put("type", "string");
        p.putObject("resourceVersion")
                .put("type", "string")
                .put("description", "An opaque value that represents " + "the internal version of this object.");
        return meta;
    }
}
