package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The string maps of built-in objects (Go {@code map[string]string}): labels, annotations, a label selector's
 * matchLabels, a pod's nodeSelector, a ConfigMap's or Secret's data. kube-apiserver's decoder refuses any other JSON type
 * in them; the fabric8 store would keep it (and its typed clients turn it into a string).
 */
final class StringMaps {
    /** Field names that hold a string map wherever they appear in a built-in object. */
    private static final Set<String> ANYWHERE = Set.of("labels", "annotations", "matchLabels", "nodeSelector");
    /** Top-level fields that are string maps of some resources only. */
    private static final Map<String, Set<String>> TOP_LEVEL =
            Map.of("configmaps", Set.of("data"), "secrets", Set.of("data", "stringData"));

    private StringMaps() {}

    /**
     * Go's decode error for the first value of a string map of {@code object} that is not a string (or null, which Go
     * decodes as ""), e.g. {@code json: cannot unmarshal bool into Go struct field spec.selector.matchLabels of type
     * string}.
     */
    static Optional<String> firstNonString(String resource, JsonNode object) {
        for (String field : TOP_LEVEL.getOrDefault(resource, Set.of())) {
            Optional<String> wrong = check(field, object.path(field));
            if (wrong.isPresent()) {
                return wrong;
            }
        }
        return walk("", object);
    }

    private static Optional<String> walk(String path, JsonNode node) {
        if (node.isArray()) {
            for (JsonNode item : node) {
                Optional<String> wrong = walk(path, item);
                if (wrong.isPresent()) {
                    return wrong;
                }
            }
            return Optional.empty();
        }
        if (!node.isObject()) {
            return Optional.empty();
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String at = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
            Optional<String> wrong =
                    ANYWHERE.contains(e.getKey()) && e.getValue().isObject()
                            ? check(at, e.getValue())
                            : walk(at, e.getValue());
            if (wrong.isPresent()) {
                return wrong;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> check(String field, JsonNode map) {
        if (!map.isObject()) {
            return Optional.empty();
        }
        for (Iterator<JsonNode> it = map.elements(); it.hasNext(); ) {
            JsonNode value = it.next();
            if (!value.isTextual() && !value.isNull()) {
                return Optional.of("json: cannot unmarshal " + goType(value) + " into Go struct field " + field
                        + " of type string");
            }
        }
        return Optional.empty();
    }

    /** The JSON type as Go's decoder names it. */
    private static String goType(JsonNode value) {
        if (value.isBoolean()) {
            return "bool";
        }
        if (value.isNumber()) {
            return "number";
        }
        return value.isArray() ? "array" : "object";
    }
}
