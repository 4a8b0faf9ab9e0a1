package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The API server's {@code fieldSelector} and {@code labelSelector} query parameters, evaluated on an object's
 * JSON. Field selectors support {@code =}, {@code ==}, {@code !=} on any dotted path (spec.nodeName,
 * metadata.name, metadata.namespace, status.phase...); label selectors the full set-based syntax.
 */
final class ObjectSelector implements Predicate<JsonNode> {
    private final List<Predicate<JsonNode>> requirements;
    private final Map<String, String> fieldEqualities;

    private ObjectSelector(List<Predicate<JsonNode>> requirements, Map<String, String> fieldEqualities) {
        this.requirements = requirements;
        this.fieldEqualities = fieldEqualities;
    }

    static ObjectSelector of(String fieldSelector, String labelSelector) {
        List<Predicate<JsonNode>> reqs = new ArrayList<>();
        Map<String, String> equalities = new HashMap<>();
        for (String term : splitTerms(fieldSelector)) {
            reqs.add(fieldRequirement(term));
            if (!term.contains("!=")) {
                String[] kv = term.split("==?", 2);
                equalities.putIfAbsent(kv[0].trim(), kv[1].trim());
            }
        }
        for (String term : splitTerms(labelSelector)) {
            reqs.add(labelRequirement(term));
        }
        return new ObjectSelector(reqs, Map.copyOf(equalities));
    }

    /** The value a field must equal ({@code field=value} or {@code field==value}), if the selector requires one. */
    Optional<String> equalTo(String field) {
        return Optional.ofNullable(fieldEqualities.get(field));
    }

    boolean isEmpty() {
        return requirements.isEmpty();
    }

    @Override
    public boolean test(JsonNode object) {
        return requirements.stream().allMatch(r -> r.test(object));
    }

    /** Splits on commas outside parentheses ("a in (x,y),b" → two terms). */
    private static List<String> splitTerms(String selector) {
        List<String> out = new ArrayList<>();
        if (selector == null || selector.isBlank()) {
            return out;
        }
        int depth = 0;
        StringBuilder cur = new StringBuilder();
        for (int i = 0; i < selector.length(); i++) {
            char c = selector.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            }
            if (c == ',' && depth == 0) {
                out.add(cur.toString().trim());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        out.add(cur.toString().trim());
        out.removeIf(String::isEmpty);
        return out;
    }

    private static Predicate<JsonNode> fieldRequirement(String term) {
        boolean negate = term.contains("!=");
        String[] kv = term.split(negate ? "!=" : "==?", 2);
        if (kv.length != 2) {
            throw new IllegalArgumentException("invalid field selector term: " + term);
        }
        String field = kv[0].trim();
        String value = kv[1].trim();
        return object -> {
            JsonNode node = object;
            for (String part : field.split("\\.")) {
                node = node == null ? null : node.get(part);
            }
            String actual = node == null || node.isNull() ? "" : node.asText();
            return negate != actual.equals(value);
        };
    }

    private static Predicate<JsonNode> labelRequirement(String term) {
        String t = term.trim();
        java.util.regex.Matcher set = java.util.regex.Pattern.compile("^(\\S+)\\s+(in|notin)\\s*\\((.*)\\)$")
                .matcher(t);
        if (set.matches()) {
            String key = set.group(1);
            boolean in = set.group(2).equals("in");
            Set<String> values = Set.copyOf(splitTerms(set.group(3)));
            return o -> {
                String v = label(o, key);
                return in ? v != null && values.contains(v) : v == null || !values.contains(v);
            };
        }
        if (t.startsWith("!")) {
            String key = t.substring(1).trim();
            return o -> label(o, key) == null;
        }
        if (t.contains("!=")) {
            String[] kv = t.split("!=", 2);
            return o -> !kv[1].trim().equals(label(o, kv[0].trim()));
        }
        if (t.contains("=")) {
            String[] kv = t.split("==?", 2);
            return o -> kv[1].trim().equals(label(o, kv[0].trim()));
        }
        return o -> label(o, t) != null;
    }

    private static String label(JsonNode object, String key) {
        JsonNode v = object.path("metadata").path("labels").get(key);
        return v == null || v.isNull() ? null : v.asText();
    }
}
