package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * kube-apiserver's validation of object names, label keys and label values (k8s.io/apimachinery
 * pkg/util/validation/validation.go and pkg/api/validation/objectmeta.go): most kinds are named by a DNS-1123
 * subdomain (at most 253 characters), namespaces by a DNS-1123 label (at most 63), services by a DNS-1035 label;
 * label keys are qualified names and label values at most 63 characters. The messages are upstream's.
 */
final class ObjectNames {
    /** One invalid field, as a StatusCause of a 422 Invalid answer. */
    record Cause(String field, String value, String detail) {
        String message() {
            return "Invalid value: \"" + value + "\": " + detail;
        }
    }

    private static final String DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    private static final String DNS1123_SUBDOMAIN = DNS1123_LABEL + "(\\." + DNS1123_LABEL + ")*";
    private static final String DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?";
    private static final String QUALIFIED_NAME_PART = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
    private static final Pattern SUBDOMAIN = Pattern.compile(DNS1123_SUBDOMAIN);
    private static final Pattern LABEL = Pattern.compile(DNS1123_LABEL);
    private static final Pattern DNS1035 = Pattern.compile(DNS1035_LABEL);
    private static final Pattern NAME_PART = Pattern.compile(QUALIFIED_NAME_PART);
    private static final Pattern LABEL_VALUE = Pattern.compile("(" + QUALIFIED_NAME_PART + ")?");

    /** Kinds named by a DNS-1123 label; services by a DNS-1035 label (pkg/apis/core/validation). */
    private static final Set<String> LABEL_NAMED = Set.of("namespaces");

    private static final Map<String, Pattern> NAME_RULES = Map.of("services", DNS1035);

    private ObjectNames() {}

    /** What is wrong with the object's name, label keys and label values; empty when nothing. */
    static List<Cause> check(String plural, JsonNode object) {
        List<Cause> causes = new ArrayList<>();
        JsonNode meta = object.path("metadata");
        String name = meta.path("name").asText("");
        if (!name.isEmpty()) {
            causes.addAll(name(plural, name));
        } else if (meta.hasNonNull("generateName")) {
            // the prefix is checked with the 5 random characters it will get (objectmeta.go ValidateObjectMetaAccessor)
            String prefix = meta.get("generateName").asText();
            name(plural, prefix + "abcde").stream()
                    .map(c -> new Cause("metadata.generateName", prefix, c.detail()))
                    .forEach(causes::add);
        }
        meta.path("labels").fields().forEachRemaining(e -> {
            String key = e.getKey();
            causes.addAll(qualifiedName("metadata.labels", key));
            String value = e.getValue().asText("");
            if (value.length() > 63) {
                causes.add(new Cause("metadata.labels", value, "must be no more than 63 characters"));
            }
            if (!LABEL_VALUE.matcher(value).matches()) {
                causes.add(
                        new Cause(
                                "metadata.labels",
                                value,
                                "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or"
                                        + " '.', and must start and end with an alphanumeric character (e.g. 'MyValue', "
                                        + " or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"));
            }
        });
        meta.path("annotations").fieldNames().forEachRemaining(key -> {
            causes.addAll(qualifiedName("metadata.annotations", key));
        });
        return causes;
    }

    private static List<Cause> name(String plural, String name) {
        List<Cause> causes = new ArrayList<>();
        if (LABEL_NAMED.contains(plural) || NAME_RULES.containsKey(plural)) {
            Pattern rule = NAME_RULES.getOrDefault(plural, LABEL);
            if (name.length() > 63) {
                causes.add(new Cause("metadata.name", name, "must be no more than 63 characters"));
            }
            if (!rule.matcher(name).matches()) {
                causes.add(new Cause(
                        "metadata.name",
                        name,
                        rule == DNS1035
                                ? "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start"
                                        + " with an alphabetic character, and end with an alphanumeric character"
                                        + " (e.g. 'my-name',  or 'abc-123', regex used for validation is '"
                                        + DNS1035_LABEL + "')"
                                : "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or"
                                        + " '-', and must start and end with an alphanumeric character (e.g."
                                        + " 'my-name',  or '123-abc', regex used for validation is '" + DNS1123_LABEL
                                        + "')"));
            }
            return causes;
        }
        causes.addAll(subdomain("metadata.name", name));
        return causes;
    }

    private static List<Cause> subdomain(String field, String value) {
        List<Cause> causes = new ArrayList<>();
        if (value.length() > 253) {
            causes.add(new Cause(field, value, "must be no more than 253 characters"));
        }
        if (!SUBDOMAIN.matcher(value).matches()) {
            causes.add(new Cause(
                    field,
                    value,
                    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.',"
                            + " and must start and end with an alphanumeric character (e.g. 'example.com', regex used"
                            + " for validation is '" + DNS1123_SUBDOMAIN + "')"));
        }
        return causes;
    }

    /** A label or annotation key: an optional DNS subdomain prefix and "/", then a name of at most 63. */
    private static List<Cause> qualifiedName(String field, String key) {
        List<Cause> causes = new ArrayList<>();
        String name = key;
        int slash = key.indexOf('/');
        if (slash >= 0) {
            String prefix = key.substring(0, slash);
            name = key.substring(slash + 1);
            if (prefix.isEmpty()) {
                causes.add(new Cause(field, key, "prefix part must be non-empty"));
            } else {
                subdomain(field, prefix).stream()
                        .map(c -> new Cause(field, key, "prefix part " + c.detail()))
                        .forEach(causes::add);
            }
        }
        if (name.isEmpty()) {
            causes.add(new Cause(field, key, "name part must be non-empty"));
        } else {
            if (name.length() > 63) {
                causes.add(new Cause(field, key, "name part must be no more than 63 characters"));
            }
            if (!NAME_PART.matcher(name).matches()) {
                causes.add(new Cause(
                        field,
                        key,
                        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and"
                                + " end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc',"
                                + " regex used for validation is '" + QUALIFIED_NAME_PART + "')"));
            }
        }
        return causes;
    }
}
