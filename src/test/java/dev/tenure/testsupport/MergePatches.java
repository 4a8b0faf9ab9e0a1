package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The two merge patches of kube-apiserver, computed on JSON trees: JSON merge patch (RFC 7386: objects merge, a
 * null deletes, anything else replaces, lists included) and strategic merge patch
 * (k8s.io/apimachinery/pkg/util/strategicpatch), which merges the lists of built-in kinds that their Go types mark
 * {@code patchStrategy:"merge"} by their {@code patchMergeKey}, and honours the directives {@code $patch}
 * (replace, delete), {@code $retainKeys}, {@code $deleteFromPrimitiveList/<field>} and
 * {@code $setElementOrder/<field>}. The patch strategies are those of the Go types (k8s.io/api) for the kinds the
 * operator, kubectl and the tests touch; a list not in {@link #LISTS} is atomic and replaced whole, as upstream.
 */
final class MergePatches {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String PATCH = "$patch";
    private static final String RETAIN_KEYS = "$retainKeys";
    private static final String DELETE_FROM_PRIMITIVE = "$deleteFromPrimitiveList/";
    private static final String SET_ELEMENT_ORDER = "$setElementOrder/";

    /** A list field's patch strategy: merged by {@code mergeKey}, or (null key) a merged list of primitives. */
    record ListStrategy(String mergeKey) {}

    /** A refused patch: kube-apiserver answers 422 (a directive it cannot apply) or 400 (not a JSON object). */
    static final class Invalid extends RuntimeException {
        Invalid(String message) {
            super(message);
        }
    }

    private static final String POD_SPEC = "spec.";
    private static final String TEMPLATE_SPEC = "spec.template.spec.";

    /**
     * List fields with {@code patchStrategy:"merge"} in k8s.io/api, by path (a list element is {@code []}), for
     * every kind; kind-specific paths are prefixed by the plural. Node {@code spec.taints} and pod
     * {@code spec.tolerations} carry no patch strategy upstream (atomic), so they are not here.
     */
    private static final Map<String, ListStrategy> LISTS = lists();

    private static Map<String, ListStrategy> lists() {
        Map<String, ListStrategy> m = new LinkedHashMap<>();
        // ObjectMeta (all kinds)
        m.put("*:metadata.finalizers", new ListStrategy(null));
        m.put("*:metadata.ownerReferences", new ListStrategy("uid"));
        // NodeSpec / NodeStatus
        m.put("nodes:spec.podCIDRs", new ListStrategy(null));
        m.put("nodes:status.conditions", new ListStrategy("type"));
        m.put("nodes:status.addresses", new ListStrategy("type"));
        m.put("nodes:status.volumesAttached", new ListStrategy("name"));
        // PodSpec, also inside the pod templates of the workload kinds
        for (String owner : List.of(
                "pods:" + POD_SPEC,
                "deployments:" + TEMPLATE_SPEC,
                "replicasets:" + TEMPLATE_SPEC,
                "statefulsets:" + TEMPLATE_SPEC,
                "daemonsets:" + TEMPLATE_SPEC,
                "jobs:" + TEMPLATE_SPEC)) {
            for (String containers : List.of("containers", "initContainers", "ephemeralContainers")) {
                m.put(owner + containers, new ListStrategy("name"));
                m.put(owner + containers + "[].env", new ListStrategy("name"));
                m.put(owner + containers + "[].ports", new ListStrategy("containerPort"));
                m.put(owner + containers + "[].volumeMounts", new ListStrategy("mountPath"));
                m.put(owner + containers + "[].volumeDevices", new ListStrategy("devicePath"));
            }
            m.put(owner + "volumes", new ListStrategy("name"));
            m.put(owner + "imagePullSecrets", new ListStrategy("name"));
            m.put(owner + "hostAliases", new ListStrategy("ip"));
        }
        m.put("pods:status.conditions", new ListStrategy("type"));
        m.put("deployments:status.conditions", new ListStrategy("type"));
        m.put("replicasets:status.conditions", new ListStrategy("type"));
        m.put("daemonsets:status.conditions", new ListStrategy("type"));
        m.put("services:spec.ports", new ListStrategy("port"));
        return Map.copyOf(m);
    }

    private MergePatches() {}

    /** RFC 7386 JSON merge patch of {@code original} by {@code patch}. */
    static JsonNode json(JsonNode original, JsonNode patch) {
        if (!patch.isObject()) {
            return patch.deepCopy();
        }
        ObjectNode out = original != null && original.isObject() ? original.deepCopy() : NODES.objectNode();
        patch.fields().forEachRemaining(e -> {
            if (e.getValue().isNull()) {
                out.remove(e.getKey());
            } else {
                out.set(e.getKey(), json(out.get(e.getKey()), e.getValue()));
            }
        });
        return out;
    }

    /** Strategic merge patch of an object of {@code plural} (a built-in kind) by {@code patch}. */
    static JsonNode strategic(String plural, JsonNode original, JsonNode patch) {
        if (!patch.isObject()) {
            throw new Invalid("a strategic merge patch must be a JSON object");
        }
        JsonNode merged = mergeObject(plural, "", original, patch);
        return merged == null ? NODES.objectNode() : merged;
    }

    private static Optional<ListStrategy> strategy(String plural, String path) {
        return Optional.ofNullable(LISTS.get(plural + ":" + path))
                .or(() -> Optional.ofNullable(LISTS.get("*:" + path)));
    }

    /** The merged object, or null when the patch deletes it ({@code $patch: delete}). */
    private static JsonNode mergeObject(String plural, String path, JsonNode original, JsonNode patch) {
        String directive = patch.path(PATCH).asText("");
        switch (directive) {
            case "delete" -> {
                return null;
            }
            case "replace" -> {
                ObjectNode replaced = patch.deepCopy();
                replaced.remove(PATCH);
                return replaced;
            }
            case "" -> {}
            default -> throw new Invalid("unknown patch type: " + directive + " in map: " + patch);
        }
        ObjectNode out = original != null && original.isObject() ? original.deepCopy() : NODES.objectNode();
        Map<String, JsonNode> elementOrders = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = e.getKey();
            JsonNode value = e.getValue();
            if (key.equals(PATCH) || key.equals(RETAIN_KEYS)) {
                continue;
            }
            if (key.startsWith(SET_ELEMENT_ORDER)) {
                elementOrders.put(key.substring(SET_ELEMENT_ORDER.length()), value);
                continue;
            }
            if (key.startsWith(DELETE_FROM_PRIMITIVE)) {
                String field = key.substring(DELETE_FROM_PRIMITIVE.length());
                JsonNode current = out.get(field);
                if (current != null && current.isArray()) {
                    Set<JsonNode> gone = new HashSet<>();
                    value.forEach(gone::add);
                    ArrayNode kept = NODES.arrayNode();
                    current.forEach(v -> {
                        if (!gone.contains(v)) {
                            kept.add(v);
                        }
                    });
                    out.set(field, kept);
                }
                continue;
            }
            String childPath = path.isEmpty() ? key : path + "." + key;
            if (value.isNull()) {
                out.remove(key);
            } else if (value.isObject()) {
                JsonNode merged = mergeObject(plural, childPath, out.get(key), value);
                if (merged == null) {
                    out.remove(key);
                } else {
                    out.set(key, merged);
                }
            } else if (value.isArray()) {
                Optional<ListStrategy> strategy = strategy(plural, childPath);
                out.set(
                        key,
                        strategy.isPresent()
                                ? mergeList(plural, childPath, strategy.get(), out.get(key), (ArrayNode) value)
                                : withoutDirectives(value));
            } else {
                out.set(key, value);
            }
        }
        if (patch.has(RETAIN_KEYS)) {
            Set<String> retained = new HashSet<>();
            patch.get(RETAIN_KEYS).forEach(k -> retained.add(k.asText()));
            List<String> dropped = new ArrayList<>();
            out.fieldNames().forEachRemaining(k -> {
                if (!retained.contains(k)) {
                    dropped.add(k);
                }
            });
            out.remove(dropped);
        }
        elementOrders.forEach((field, order) -> {
            JsonNode list = out.get(field);
            if (list != null && list.isArray()) {
                String childPath = path.isEmpty() ? field : path + "." + field;
                String mergeKey =
                        strategy(plural, childPath).map(ListStrategy::mergeKey).orElse(null);
                out.set(field, ordered((ArrayNode) list, order, mergeKey));
            }
        });
        return out;
    }

    private static JsonNode withoutDirectives(JsonNode list) {
        ArrayNode out = NODES.arrayNode();
        list.forEach(item -> {
            if (!(item.isObject() && item.has(PATCH))) {
                out.add(item);
            }
        });
        return out;
    }

    private static ArrayNode mergeList(
            String plural, String path, ListStrategy strategy, JsonNode original, ArrayNode patch) {
        for (JsonNode item : patch) {
            if (item.isObject() && "replace".equals(item.path(PATCH).asText())) {
                return (ArrayNode) withoutDirectives(patch);
            }
        }
        ArrayNode out = original != null && original.isArray() ? original.deepCopy() : NODES.arrayNode();
        if (strategy.mergeKey() == null) { // a set of primitives: the union, in order
            Set<JsonNode> present = new HashSet<>();
            out.forEach(present::add);
            patch.forEach(v -> {
                if (present.add(v)) {
                    out.add(v);
                }
            });
            return out;
        }
        String key = strategy.mergeKey();
        for (JsonNode item : patch) {
            if (!item.isObject() || !item.has(key)) {
                throw new Invalid("map: " + item + " does not contain declared merge key: " + key);
            }
            int at = indexOf(out, key, item.get(key));
            if ("delete".equals(item.path(PATCH).asText())) {
                if (at >= 0) {
                    out.remove(at);
                }
                continue;
            }
            JsonNode merged = mergeObject(plural, path + "[]", at >= 0 ? out.get(at) : null, item);
            if (at >= 0) {
                out.set(at, merged);
            } else {
                out.add(merged);
            }
        }
        return out;
    }

    private static int indexOf(ArrayNode list, String key, JsonNode value) {
        for (int i = 0; i < list.size(); i++) {
            if (value.equals(list.get(i).get(key))) {
                return i;
            }
        }
        return -1;
    }

    /** {@code $setElementOrder}: the elements it names in its order, then the others in their order. */
    private static ArrayNode ordered(ArrayNode list, JsonNode order, String mergeKey) {
        ArrayNode out = NODES.arrayNode();
        List<JsonNode> rest = new ArrayList<>();
        list.forEach(rest::add);
        for (JsonNode wanted : order) {
            JsonNode id = mergeKey == null ? wanted : wanted.get(mergeKey);
            for (Iterator<JsonNode> it = rest.iterator(); it.hasNext(); ) {
                JsonNode item = it.next();
                if (id != null && id.equals(mergeKey == null ? item : item.get(mergeKey))) {
                    out.add(item);
                    it.remove();
                    break;
                }
            }
        }
        rest.forEach(out::add);
        return out;
    }
}
