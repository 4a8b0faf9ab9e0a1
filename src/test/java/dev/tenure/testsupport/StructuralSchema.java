package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A CRD version's structural schema applied to a custom resource as kube-apiserver applies it
 * (apiextensions-apiserver pkg/apiserver/schema): unknown fields pruned (pruning/algorithm.go), defaults set
 * (defaulting/algorithm.go), then the OpenAPI v3 validation (type, required, pattern, enum, minimum/maximum,
 * minLength/maxLength, minItems/maxItems) and the {@code x-kubernetes-validations} CEL rules (cel/validation.go),
 * evaluated by a real CEL implementation ({@code dev.cel}); a rule that names {@code oldSelf} is a transition rule,
 * checked on updates only where an old value exists. An update is checked only where it changes a value
 * (validation ratcheting). Only {@code spec}, {@code status} and other top-level fields are walked; metadata is
 * the API server's own.
 */
final class StructuralSchema {
    /** One refused field: its path, what kube-apiserver says of it (the text after "path: "). */
    record Violation(String field, String detail) {}

    private static final CelCompiler CEL = CelCompilerFactory.standardCelCompilerBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("self", SimpleType.DYN)
            .addVar("oldSelf", SimpleType.DYN)
            .build();
    private static final CelRuntime RUNTIME =
            CelRuntimeFactory.standardCelRuntimeBuilder().build();
    private static final Map<String, CelRuntime.Program> PROGRAMS = new ConcurrentHashMap<>();
    private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

    private final JsonNode schema;

    StructuralSchema(JsonNode openApiV3Schema) {
        this.schema = openApiV3Schema;
    }

    /** Prunes and defaults {@code object} in place (the stored form), below its metadata. */
    void pruneAndDefault(ObjectNode object) {
        JsonNode properties = schema.path("properties");
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = e.getKey();
            if (key.equals("apiVersion") || key.equals("kind") || key.equals("metadata")) {
                continue;
            }
            if (!properties.has(key)
                    && !schema.path("x-kubernetes-preserve-unknown-fields").asBoolean()) {
                it.remove();
            } else if (properties.has(key)) {
                object.set(key, prune(properties.get(key), e.getValue()));
            }
        }
    }

    private static JsonNode prune(JsonNode schema, JsonNode value) {
        if (value.isObject()) {
            ObjectNode object = (ObjectNode) value;
            JsonNode properties = schema.path("properties");
            JsonNode additional = schema.path("additionalProperties");
            boolean preserve =
                    schema.path("x-kubernetes-preserve-unknown-fields").asBoolean();
            for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (properties.has(e.getKey())) {
                    e.setValue(prune(properties.get(e.getKey()), e.getValue()));
                } else if (additional.isObject()) {
                    e.setValue(prune(additional, e.getValue()));
                } else if (!preserve && !additional.asBoolean(false)) {
                    it.remove();
                }
            }
            // defaults of absent properties (null is not absent: defaulting.go applies to missing keys)
            properties.fields().forEachRemaining(p -> {
                if (!object.has(p.getKey()) && p.getValue().has("default")) {
                    object.set(p.getKey(), p.getValue().get("default").deepCopy());
                }
            });
            return object;
        }
        if (value.isArray() && schema.has("items")) {
            ArrayNode array = (ArrayNode) value;
            for (int i = 0; i < array.size(); i++) {
                array.set(i, prune(schema.get("items"), array.get(i)));
            }
        }
        return value;
    }

    /** What the schema and its rules refuse in {@code object}; {@code old} is the stored object on an update. */
    List<Violation> validate(JsonNode object, JsonNode old) {
        List<Violation> out = new ArrayList<>();
        JsonNode properties = schema.path("properties");
        properties.fields().forEachRemaining(p -> {
            if (object.has(p.getKey()) && !p.getKey().equals("metadata")) {
                validate(
                        p.getKey(),
                        p.getValue(),
                        object.get(p.getKey()),
                        old == null ? null : old.get(p.getKey()),
                        out);
            }
        });
        required(schema, object, "", out);
        return out;
    }

    private static void required(JsonNode schema, JsonNode object, String path, List<Violation> out) {
        for (JsonNode name : schema.path("required")) {
            if (!object.has(name.asText()) || object.get(name.asText()).isNull()) {
                out.add(new Violation(join(path, name.asText()), "Required value"));
            }
        }
    }

    private static void validate(String path, JsonNode schema, JsonNode value, JsonNode old, List<Violation> out) {
        if (old != null && old.equals(value)) {
            // validation ratcheting (KEP-4008, on by default since 1.30): an update may keep a stored value that
            // no longer validates; only what it changes is checked
            return;
        }
        if (value.isNull()) {
            if (!schema.path("nullable").asBoolean()) {
                out.add(new Violation(
                        path,
                        "Invalid value: \"null\": " + path + " in body must be of type "
                                + schema.path("type").asText() + ": \"null\""));
            }
            return;
        }
        String type = schema.path("type").asText("");
        if (!type.isEmpty() && !hasType(value, type)) {
            out.add(new Violation(
                    path,
                    "Invalid value: \"" + typeOf(value) + "\": " + path + " in body must be of type " + type + ": \""
                            + typeOf(value) + "\""));
            return;
        }
        String shown = value.isTextual() ? "\"" + value.asText() + "\"" : value.toString();
        if (schema.has("enum")) {
            boolean allowed = false;
            List<String> values = new ArrayList<>();
            for (JsonNode e : schema.get("enum")) {
                allowed |= e.equals(value);
                values.add(e.isTextual() ? "\"" + e.asText() + "\"" : e.toString());
            }
            if (!allowed) {
                out.add(new Violation(
                        path, "Unsupported value: " + shown + ": supported values: " + String.join(", ", values)));
            }
        }
        if (value.isTextual()) {
            String s = value.asText();
            if (schema.has("maxLength") && s.length() > schema.get("maxLength").asLong()) {
                out.add(new Violation(
                        path,
                        "Too long: may not be more than "
                                + schema.get("maxLength").asLong() + " bytes"));
            }
            if (schema.has("minLength") && s.length() < schema.get("minLength").asLong()) {
                out.add(new Violation(
                        path,
                        "Invalid value: " + shown + ": " + path + " in body should be at least "
                                + schema.get("minLength").asLong() + " chars long"));
            }
            if (schema.has("pattern")) {
                String pattern = schema.get("pattern").asText();
                if (!PATTERNS.computeIfAbsent(pattern, Pattern::compile)
                        .matcher(s)
                        .find()) {
                    out.add(new Violation(
                            path, "Invalid value: " + shown + ": " + path + " in body should match '" + pattern + "'"));
                }
            }
        }
        if (value.isNumber()) {
            double n = value.asDouble();
            if (schema.has("minimum") && n < schema.get("minimum").asDouble()) {
                out.add(new Violation(
                        path,
                        "Invalid value: " + value + ": " + path + " in body should be greater than or equal to "
                                + number(schema.get("minimum"))));
            }
            if (schema.has("maximum") && n > schema.get("maximum").asDouble()) {
                out.add(new Violation(
                        path,
                        "Invalid value: " + value + ": " + path + " in body should be less than or equal to "
                                + number(schema.get("maximum"))));
            }
        }
        if (value.isObject()) {
            required(schema, value, path, out);
            JsonNode properties = schema.path("properties");
            JsonNode additional = schema.path("additionalProperties");
            value.fields().forEachRemaining(e -> {
                JsonNode child = properties.has(e.getKey())
                        ? properties.get(e.getKey())
                        : additional.isObject() ? additional : null;
                if (child != null) {
                    validate(
                            join(path, e.getKey()), child, e.getValue(), old == null ? null : old.get(e.getKey()), out);
                }
            });
        }
        if (value.isArray()) {
            if (schema.has("maxItems") && value.size() > schema.get("maxItems").asInt()) {
                out.add(new Violation(
                        path,
                        "Too many: " + value.size() + ": must have at most "
                                + schema.get("maxItems").asInt() + " items"));
            }
            if (schema.has("minItems") && value.size() < schema.get("minItems").asInt()) {
                out.add(new Violation(
                        path,
                        "Invalid value: " + value.size() + ": " + path + " in body should have at least "
                                + schema.get("minItems").asInt() + " items"));
            }
            if (schema.has("items")) {
                for (int i = 0; i < value.size(); i++) {
                    validate(path + "[" + i + "]", schema.get("items"), value.get(i), null, out);
                }
            }
        }
        for (JsonNode rule : schema.path("x-kubernetes-validations")) {
            celRule(path, rule, value, old, out);
        }
    }

    /** One x-kubernetes-validations rule; a transition rule (oldSelf) only where an old value exists. */
    private static void celRule(String path, JsonNode rule, JsonNode value, JsonNode old, List<Violation> out) {
        String expression = rule.path("rule").asText();
        boolean transition = expression.contains("oldSelf");
        if (transition && (old == null || old.isNull())) {
            return;
        }
        Object result;
        try {
            CelRuntime.Program program = PROGRAMS.computeIfAbsent(expression, StructuralSchema::program);
            Map<String, Object> vars = new HashMap<>();
            vars.put("self", cel(value));
            if (transition) {
                vars.put("oldSelf", cel(old));
            }
            result = program.eval(vars);
        } catch (CelEvaluationException | IllegalStateException e) {
            out.add(new Violation(path, "Invalid value: \"object\": rule evaluation error: " + e.getMessage()));
            return;
        }
        if (!Boolean.TRUE.equals(result)) {
            String message = rule.hasNonNull("message") ? rule.get("message").asText() : "failed rule: " + expression;
            String reason = rule.path("reason").asText("FieldValueInvalid");
            String detail = switch (reason) {
                case "FieldValueForbidden" -> "Forbidden: " + message;
                case "FieldValueRequired" -> "Required value: " + message;
                case "FieldValueDuplicate" -> "Duplicate value: " + message;
                default -> "Invalid value: \"" + typeOf(value) + "\": " + message;
            };
            String field =
                    rule.hasNonNull("fieldPath") ? path + rule.get("fieldPath").asText() : path;
            out.add(new Violation(field, detail));
        }
    }

    /**
     * Loads and initialises CEL (its protobuf descriptors take seconds on a loaded machine) on the calling thread. The
     * emulator calls it while it starts: done lazily, it ran on the server's one event-loop thread at the first
     * custom-resource write and stalled every request, the operator's informer list included, past its 10 s timeout
     * (MetricSeriesIT and QuietStatusIT once failed so, the operator's reconcilers never started).
     */
    static void warmUp() {
        try {
            PROGRAMS.computeIfAbsent("self == self", StructuralSchema::program).eval(Map.of("self", 1L));
        } catch (CelEvaluationException e) {
            throw new IllegalStateException("CEL does not evaluate self == self", e);
        }
    }

    private static CelRuntime.Program program(String expression) {
        try {
            CelAbstractSyntaxTree ast = CEL.compile(expression).getAst();
            return RUNTIME.createProgram(ast);
        } catch (CelValidationException | CelEvaluationException e) {
            throw new IllegalStateException("CEL rule " + expression + " does not compile: " + e.getMessage(), e);
        }
    }

    /** JSON as CEL values: strings, int64, double, bool, lists and maps with string keys. */
    private static Object cel(JsonNode value) {
        if (value.isTextual()) {
            return value.asText();
        }
        if (value.isIntegralNumber()) {
            return value.asLong();
        }
        if (value.isNumber()) {
            return value.asDouble();
        }
        if (value.isBoolean()) {
            return value.asBoolean();
        }
        if (value.isArray()) {
            List<Object> list = new ArrayList<>();
            value.forEach(v -> list.add(cel(v)));
            return list;
        }
        if (value.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            value.fields().forEachRemaining(e -> map.put(e.getKey(), cel(e.getValue())));
            return map;
        }
        return dev.cel.common.values.NullValue.NULL_VALUE;
    }

    private static boolean hasType(JsonNode value, String type) {
        return switch (type) {
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            case "array" -> value.isArray();
            case "object" -> value.isObject();
            default -> true;
        };
    }

    private static String typeOf(JsonNode value) {
        if (value.isTextual()) {
            return "string";
        }
        if (value.isIntegralNumber()) {
            return "integer";
        }
        if (value.isNumber()) {
            return "number";
        }
        if (value.isBoolean()) {
            return "boolean";
        }
        if (value.isArray()) {
            return "array";
        }
        return value.isObject() ? "object" : "null";
    }

    private static String number(JsonNode n) {
        double d = n.asDouble();
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
    }

    private static String join(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }
}
