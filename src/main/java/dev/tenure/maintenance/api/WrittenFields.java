package dev.tenure.maintenance.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * Whether two values of a NodeMaintenance field say the same, as written: compared as the JSON they serialize to, so
 * that field order, defaults the types leave null and the classes' lack of {@code equals} do not matter. Unset and empty
 * alike: an empty {@code drain: {}} (or {@code ""}) asks for nothing more than none.
 */
public final class WrittenFields {

    private static final ObjectMapper JSON = new ObjectMapper();

    private WrittenFields() {}

    public static boolean same(Object a, Object b) {
        return tree(a).equals(tree(b));
    }

    private static JsonNode tree(Object field) {
        JsonNode node = field == null ? JsonNodeFactory.instance.objectNode() : JSON.valueToTree(field);
        return node.isTextual() && node.asText().isEmpty() ? JsonNodeFactory.instance.objectNode() : node;
    }
}
