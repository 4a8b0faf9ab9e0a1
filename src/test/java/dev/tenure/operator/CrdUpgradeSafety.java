package dev.tenure.operator;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * OLM v1's CRD upgrade-safety preflight, as operator-controller's {@code crdupgradesafety} runs crdify's rules (its
 * default configuration: fail closed on any change no rule handles, descriptions ignored, enum values may be added),
 * over two CRDs parsed as maps: the one a cluster has (a released bundle's) and the one an upgrade brings.
 *
 * <p>CRD-wide rules: {@code scope} unchanged; no {@code storedVersionRemoval} (a version the old CRD stored, from
 * {@code status.storedVersions} or else its storage version, must stay in {@code spec.versions}); no
 * {@code servedVersionRemoval} (Tenure's own: clients of a served version must not lose it in one upgrade); no
 * {@code existingFieldRemoval} in a version both CRDs have. Per property of a version both have, and between every
 * two served versions of the new CRD unless it converts with a webhook: {@code type}, {@code enum} (no value
 * removed, none added to a field that had none), {@code required} (none added), {@code maximum}, {@code maxItems},
 * {@code maxLength}, {@code maxProperties} (not added, not lowered), {@code minimum}, {@code minItems},
 * {@code minLength}, {@code minProperties} (not added, not raised), {@code exclusiveMaximum}/{@code exclusiveMinimum}
 * (not turned on), {@code pattern} (not added or changed; removed is safe), {@code default} (not added, removed or
 * changed), {@code format} (not added or changed), {@code nullable} (not turned off), {@code x-kubernetes-validations}
 * (no rule added or changed); any other change is {@code unhandled}.
 */
final class CrdUpgradeSafety {

    /** One unsafe change: the rule that refuses it, where, and what changed. */
    record Violation(String rule, String where, String message) {
        @Override
        public String toString() {
            return rule + " at " + where + ": " + message;
        }
    }

    /** The schema keys a child path carries, and the ones no rule looks at. */
    private static final Set<String> CHILDREN = Set.of("properties", "items", "additionalProperties");

    private static final Set<String> IGNORED = Set.of("description");

    private CrdUpgradeSafety() {}

    /** Every unsafe change from {@code old} (the released CRD) to {@code updated}; empty when the upgrade is safe. */
    static List<Violation> check(Map<String, Object> old, Map<String, Object> updated) {
        List<Violation> violations = new ArrayList<>();
        String name = String.valueOf(ManifestAssembly.<Object>at(updated, "metadata", "name"));
        Object oldScope = ManifestAssembly.at(old, "spec", "scope");
        Object newScope = ManifestAssembly.at(updated, "spec", "scope");
        if (!Objects.equals(oldScope, newScope)) {
            violations.add(new Violation("scope", name, "scope changed from " + oldScope + " to " + newScope));
        }
        Map<String, Map<String, Object>> oldVersions = versions(old);
        Map<String, Map<String, Object>> newVersions = versions(updated);
        for (String stored : storedVersions(old)) {
            if (!newVersions.containsKey(stored)) {
                violations.add(new Violation("storedVersionRemoval", name, "stored version " + stored + " removed"));
            }
        }
        oldVersions.forEach((version, definition) -> {
            Map<String, Object> now = newVersions.get(version);
            if (Boolean.TRUE.equals(definition.get("served"))
                    && (now == null || !Boolean.TRUE.equals(now.get("served")))) {
                violations.add(
                        new Violation("servedVersionRemoval", name, "served version " + version + " no longer served"));
            }
        });
        for (Map.Entry<String, Map<String, Object>> version : oldVersions.entrySet()) {
            Map<String, Object> now = newVersions.get(version.getKey());
            if (now != null) {
                compareSchemas("version " + version.getKey(), schema(version.getValue()), schema(now), violations);
            }
        }
        if (!"Webhook".equals(ManifestAssembly.at(updated, "spec", "conversion", "strategy"))) {
            List<String> served = newVersions.entrySet().stream()
                    .filter(v -> Boolean.TRUE.equals(v.getValue().get("served")))
                    .map(Map.Entry::getKey)
                    .sorted(KUBE_VERSION_ORDER)
                    .toList();
            for (int i = 0; i < served.size(); i++) {
                for (int j = i + 1; j < served.size(); j++) {
                    compareSchemas(
                            "served versions " + served.get(i) + " -> " + served.get(j)
                                    + " without a conversion webhook",
                            schema(newVersions.get(served.get(i))),
                            schema(newVersions.get(served.get(j))),
                            violations);
                }
            }
        }
        return violations;
    }

    private static void compareSchemas(
            String context, Map<String, Object> oldSchema, Map<String, Object> newSchema, List<Violation> violations) {
        Map<String, Map<String, Object>> oldFields = flatten(oldSchema);
        Map<String, Map<String, Object>> newFields = flatten(newSchema);
        for (Map.Entry<String, Map<String, Object>> field : oldFields.entrySet()) {
            String where = context + ", " + field.getKey();
            Map<String, Object> now = newFields.get(field.getKey());
            if (now == null) {
                violations.add(new Violation("existingFieldRemoval", where, "field removed"));
                continue;
            }
            compareProperty(where, new LinkedHashMap<>(field.getValue()), new LinkedHashMap<>(now), violations);
        }
    }

    /** The rules over one property's own keywords; each rule removes what it looked at, and what is left must match. */
    private static void compareProperty(
            String where, Map<String, Object> a, Map<String, Object> b, List<Violation> violations) {
        Object oldType = a.remove("type");
        Object newType = b.remove("type");
        if (!Objects.equals(oldType, newType)) {
            violations.add(new Violation("type", where, "type changed from " + oldType + " to " + newType));
        }
        List<?> oldEnum = (List<?>) a.remove("enum");
        List<?> newEnum = (List<?>) b.remove("enum");
        if (oldEnum == null && newEnum != null) {
            violations.add(new Violation("enum", where, "enum " + newEnum + " added where any value was allowed"));
        } else if (oldEnum != null) {
            Set<Object> removed = new LinkedHashSet<>(oldEnum);
            if (newEnum != null) {
                newEnum.forEach(removed::remove);
            }
            if (newEnum != null && !removed.isEmpty()) {
                violations.add(new Violation("enum", where, "enum values " + removed + " removed"));
            }
        }
        List<?> oldRequired = (List<?>) a.remove("required");
        List<?> newRequired = (List<?>) b.remove("required");
        Set<Object> added = new LinkedHashSet<>(newRequired == null ? List.of() : newRequired);
        if (oldRequired != null) {
            oldRequired.forEach(added::remove);
        }
        if (!added.isEmpty()) {
            violations.add(new Violation("required", where, "new required fields " + added));
        }
        for (String bound : List.of("maximum", "maxItems", "maxLength", "maxProperties")) {
            bound(where, bound, a.remove(bound), b.remove(bound), +1, violations);
        }
        for (String bound : List.of("minimum", "minItems", "minLength", "minProperties")) {
            bound(where, bound, a.remove(bound), b.remove(bound), -1, violations);
        }
        for (String flag : List.of("exclusiveMaximum", "exclusiveMinimum")) {
            if (!Boolean.TRUE.equals(a.remove(flag)) && Boolean.TRUE.equals(b.remove(flag))) {
                violations.add(new Violation(flag, where, flag + " turned on"));
            }
        }
        Object oldPattern = a.remove("pattern");
        Object newPattern = b.remove("pattern");
        if (newPattern != null && !newPattern.equals(oldPattern)) {
            violations.add(new Violation(
                    "pattern",
                    where,
                    oldPattern == null
                            ? "pattern " + newPattern + " added"
                            : "pattern changed from " + oldPattern + " to " + newPattern));
        }
        Object oldDefault = a.remove("default");
        Object newDefault = b.remove("default");
        if (!Objects.equals(oldDefault, newDefault)) {
            violations.add(new Violation("default", where, "default changed from " + oldDefault + " to " + newDefault));
        }
        Object oldFormat = a.remove("format");
        Object newFormat = b.remove("format");
        if (newFormat != null && !newFormat.equals(oldFormat)) {
            violations.add(new Violation("format", where, "format changed from " + oldFormat + " to " + newFormat));
        }
        if (Boolean.TRUE.equals(a.remove("nullable")) && !Boolean.TRUE.equals(b.remove("nullable"))) {
            violations.add(new Violation("nullable", where, "nullable turned off"));
        }
        List<?> oldRules = (List<?>) a.remove("x-kubernetes-validations");
        List<?> newRules = (List<?>) b.remove("x-kubernetes-validations");
        List<Object> newOnes = new ArrayList<>(newRules == null ? List.of() : newRules);
        if (oldRules != null) {
            newOnes.removeAll(oldRules);
        }
        if (!newOnes.isEmpty()) {
            violations.add(
                    new Violation("x-kubernetes-validations", where, "validation rules added or changed: " + newOnes));
        }
        a.keySet().removeAll(IGNORED);
        b.keySet().removeAll(IGNORED);
        b.keySet().remove("nullable");
        if (!a.equals(b)) {
            violations.add(new Violation(
                    "unhandled", where, "unknown change " + a + " -> " + b + ", refusing to call it safe"));
        }
    }

    /** {@code direction} +1: an upper bound (may not be added or lowered); -1: a lower one (not added or raised). */
    private static void bound(
            String where, String keyword, Object oldValue, Object newValue, int direction, List<Violation> violations) {
        if (newValue == null) {
            return;
        }
        if (oldValue == null) {
            violations.add(new Violation(keyword, where, keyword + " " + newValue + " added where there was none"));
            return;
        }
        double before = ((Number) oldValue).doubleValue();
        double after = ((Number) newValue).doubleValue();
        if (direction * Double.compare(after, before) < 0) {
            violations.add(new Violation(keyword, where, keyword + " tightened from " + oldValue + " to " + newValue));
        }
    }

    /** Each property path of the schema ({@code ^}, {@code ^.spec.nodeName}, {@code ^.spec.drain.rules[*]}...) with its own keywords. */
    static Map<String, Map<String, Object>> flatten(Map<String, Object> schema) {
        Map<String, Map<String, Object>> fields = new LinkedHashMap<>();
        flatten("^", schema, fields);
        return fields;
    }

    @SuppressWarnings("unchecked")
    private static void flatten(String path, Map<String, Object> node, Map<String, Map<String, Object>> into) {
        Map<String, Object> own = new LinkedHashMap<>(node);
        own.keySet().removeAll(CHILDREN);
        if (node.get("additionalProperties") instanceof Boolean allowed) {
            own.put("additionalProperties", allowed);
        }
        into.put(path, own);
        if (node.get("properties") instanceof Map<?, ?> properties) {
            properties.forEach((name, child) -> flatten(path + "." + name, (Map<String, Object>) child, into));
        }
        if (node.get("items") instanceof Map<?, ?> items) {
            flatten(path + "[*]", (Map<String, Object>) items, into);
        }
        if (node.get("additionalProperties") instanceof Map<?, ?> values) {
            flatten(path + "{*}", (Map<String, Object>) values, into);
        }
    }

    private static Map<String, Map<String, Object>> versions(Map<String, Object> crd) {
        Map<String, Map<String, Object>> byName = new LinkedHashMap<>();
        List<Map<String, Object>> versions =
                Objects.requireNonNullElse(ManifestAssembly.at(crd, "spec", "versions"), List.of());
        versions.forEach(v -> byName.put(String.valueOf(v.get("name")), v));
        return byName;
    }

    private static List<String> storedVersions(Map<String, Object> crd) {
        List<String> stored = ManifestAssembly.at(crd, "status", "storedVersions");
        if (stored != null && !stored.isEmpty()) {
            return stored;
        }
        return versions(crd).entrySet().stream()
                .filter(v -> Boolean.TRUE.equals(v.getValue().get("storage")))
                .map(Map.Entry::getKey)
                .toList();
    }

    private static Map<String, Object> schema(Map<String, Object> version) {
        return Objects.requireNonNullElse(ManifestAssembly.at(version, "schema", "openAPIV3Schema"), Map.of());
    }

    private static final Pattern KUBE_VERSION = Pattern.compile("v(\\d+)(?:(alpha|beta)(\\d+))?");

    /** Kubernetes' version order, oldest first: v1alpha1 < v1alpha2 < v1beta1 < v1 < v2alpha1 < v2. */
    static final Comparator<String> KUBE_VERSION_ORDER = Comparator.comparingInt((String v) -> part(v, 1))
            .thenComparingInt(v -> part(v, 2))
            .thenComparingInt(v -> part(v, 3))
            .thenComparing(Comparator.naturalOrder());

    private static int part(String version, int group) {
        Matcher m = KUBE_VERSION.matcher(version);
        if (!m.matches()) {
            return Integer.MAX_VALUE;
        }
        return switch (group) {
            case 1 -> Integer.parseInt(m.group(1));
            case 2 -> m.group(2) == null ? 2 : m.group(2).equals("beta") ? 1 : 0;
            default -> m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
        };
    }
}
