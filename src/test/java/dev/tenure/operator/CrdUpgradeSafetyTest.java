package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 39: the shipped CRD (olm-bundle/, held to the build's output by verify-generated) upgrades safely from every
 * release's CRD, as OLM v1's CRD upgrade-safety preflight judges it ({@link CrdUpgradeSafety}). The released CRDs are
 * the {@code olm.bundle.object}s of the committed catalog's entries: an earlier release's entry is frozen as it was
 * cut, so it holds exactly the CRD a cluster on that release has. The rules themselves are checked on mutations of
 * the shipped CRD, each refused or accepted as operator-controller would.
 */
class CrdUpgradeSafetyTest {

    private static final Path CATALOG = Path.of("catalog", "tenure-operator", "catalog.yaml");
    private static final Path BUNDLE = Path.of("olm-bundle", "manifests");

    @Test
    void everyReleasedCrdUpgradesSafelyToTheShippedOne() throws IOException {
        Map<String, Map<String, Object>> shipped = new LinkedHashMap<>();
        shippedCrds().forEach(c -> shipped.put(ManifestAssembly.at(c, "metadata", "name"), c));
        List<String> compared = new ArrayList<>();
        for (Map<String, Object> entry : catalogBundles()) {
            for (Map<String, Object> released : bundleCrds(entry)) {
                String name = ManifestAssembly.at(released, "metadata", "name");
                Map<String, Object> now = shipped.get(name);
                assertThat(now)
                        .as("%s of %s is no longer shipped", name, entry.get("name"))
                        .isNotNull();
                assertThat(CrdUpgradeSafety.check(released, now))
                        .as("upgrading %s from %s", name, entry.get("name"))
                        .isEmpty();
                compared.add(entry.get("name") + "/" + name);
            }
        }
        assertThat(compared)
                .as("released CRDs found in the catalog")
                .contains("tenure-operator.v0.1.0/nodemaintenances.tenure.dev");
    }

    static Stream<Arguments> changes() {
        return Stream.of(
                accepted("nothing changed", crd -> {}),
                accepted(
                        "a description reworded",
                        crd -> field(crd, "^.spec.reason").put("description", "why")),
                accepted(
                        "an optional field added",
                        crd -> properties(crd, "^.spec").put("note", Map.of("type", "string"))),
                accepted(
                        "an enum value added",
                        crd -> enumOf(crd, "^.status.phase").add("Paused")),
                accepted("an enum removed", crd -> field(crd, "^.status.phase").remove("enum")),
                accepted(
                        "a maximum raised",
                        crd -> field(crd, "^.status.drainProgress").put("maximum", 200.0)),
                accepted(
                        "a minimum lowered",
                        crd -> field(crd, "^.spec.drain.gracePeriodSeconds").put("minimum", -2.0)),
                accepted(
                        "a maxLength raised",
                        crd -> field(crd, "^.spec.nodeName").put("maxLength", 300)),
                accepted(
                        "a pattern removed",
                        crd -> field(crd, "^.spec.nodeName").remove("pattern")),
                refused(
                        "a field removed",
                        "existingFieldRemoval",
                        crd -> properties(crd, "^.spec").remove("reason")),
                refused(
                        "a field renamed",
                        "existingFieldRemoval",
                        crd -> properties(crd, "^.spec")
                                .put("why", properties(crd, "^.spec").remove("reason"))),
                refused(
                        "a new required field",
                        "required",
                        crd -> required(crd, "^.spec").add("reason")),
                refused(
                        "an enum value removed",
                        "enum",
                        crd -> enumOf(crd, "^.spec.drain.rules[*].behavior").remove("Skip")),
                refused(
                        "an enum put on a free string",
                        "enum",
                        crd -> field(crd, "^.spec.reason").put("enum", List.of("upgrade"))),
                refused(
                        "a maximum lowered",
                        "maximum",
                        crd -> field(crd, "^.status.drainProgress").put("maximum", 50.0)),
                refused(
                        "a maximum added",
                        "maximum",
                        crd -> field(crd, "^.spec.drain.gracePeriodSeconds").put("maximum", 600)),
                refused(
                        "a minimum raised",
                        "minimum",
                        crd -> field(crd, "^.spec.drain.gracePeriodSeconds").put("minimum", 0)),
                refused(
                        "a maxLength lowered",
                        "maxLength",
                        crd -> field(crd, "^.spec.nodeName").put("maxLength", 63)),
                refused(
                        "a maxLength added",
                        "maxLength",
                        crd -> field(crd, "^.spec.reason").put("maxLength", 10)),
                refused(
                        "a minLength raised",
                        "minLength",
                        crd -> field(crd, "^.spec.nodeName").put("minLength", 3)),
                refused(
                        "a maxItems added",
                        "maxItems",
                        crd -> field(crd, "^.spec.drain.rules").put("maxItems", 4)),
                refused(
                        "a minItems added",
                        "minItems",
                        crd -> field(crd, "^.spec.drain.rules").put("minItems", 1)),
                refused(
                        "a pattern added",
                        "pattern",
                        crd -> field(crd, "^.spec.reason").put("pattern", "^[a-z ]+$")),
                refused(
                        "a pattern changed",
                        "pattern",
                        crd -> field(crd, "^.spec.nodeName").put("pattern", "^[a-z0-9-]+$")),
                refused(
                        "a type changed",
                        "type",
                        crd -> field(crd, "^.spec.reason").put("type", "integer")),
                refused(
                        "a default changed",
                        "default",
                        crd -> field(crd, "^.spec.drain.ignoreDaemonSets").put("default", false)),
                refused(
                        "a default added",
                        "default",
                        crd -> field(crd, "^.spec.join").put("default", false)),
                refused(
                        "a default removed",
                        "default",
                        crd -> field(crd, "^.spec.drain.force").remove("default")),
                refused(
                        "a format added",
                        "format",
                        crd -> field(crd, "^.spec.reason").put("format", "date-time")),
                refused(
                        "a CEL rule added",
                        "x-kubernetes-validations",
                        crd -> field(crd, "^.spec.reason")
                                .put("x-kubernetes-validations", List.of(Map.of("rule", "self.size() < 10")))),
                refused(
                        "an unknown keyword changed",
                        "unhandled",
                        crd -> field(crd, "^.spec.drain.rules").put("x-kubernetes-list-type", "set")),
                refused("the scope changed", "scope", crd -> spec(crd).put("scope", "Namespaced")),
                refused(
                        "the stored version renamed",
                        "storedVersionRemoval",
                        crd -> version(crd, "v1alpha1").put("name", "v1beta1")),
                refused("a served version no longer served", "servedVersionRemoval", crd -> {
                    Map<String, Object> beta = copy(version(crd, "v1alpha1"));
                    beta.put("name", "v1beta1");
                    beta.put("storage", false);
                    versions(crd).add(beta);
                    version(crd, "v1alpha1").put("served", false);
                }),
                accepted(
                        "a new served version, same schema, no conversion",
                        crd -> versions(crd).add(newVersion(crd))),
                refused("a new served version with a field renamed and no conversion", "existingFieldRemoval", crd -> {
                    Map<String, Object> beta = newVersion(crd);
                    versions(crd).add(beta);
                    properties(beta, "^.spec")
                            .put("why", properties(beta, "^.spec").remove("reason"));
                }),
                refused("a new served version with a tighter bound and no conversion", "maxLength", crd -> {
                    Map<String, Object> beta = newVersion(crd);
                    versions(crd).add(beta);
                    field(beta, "^.spec.nodeName").put("maxLength", 63);
                }),
                accepted("a new served version with a field renamed and a conversion webhook", crd -> {
                    Map<String, Object> beta = newVersion(crd);
                    versions(crd).add(beta);
                    properties(beta, "^.spec")
                            .put("why", properties(beta, "^.spec").remove("reason"));
                    spec(crd).put("conversion", Map.of("strategy", "Webhook"));
                }),
                accepted("storage moved to a new version, the old one still served, with a conversion webhook", crd -> {
                    Map<String, Object> beta = newVersion(crd);
                    beta.put("storage", true);
                    version(crd, "v1alpha1").put("storage", false);
                    versions(crd).add(beta);
                    properties(beta, "^.spec")
                            .put("why", properties(beta, "^.spec").remove("reason"));
                    spec(crd).put("conversion", Map.of("strategy", "Webhook"));
                }));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("changes")
    void eachUnsafeChangeIsRefusedAndEachSafeOneAccepted(
            String change, String refusedBy, Consumer<Map<String, Object>> edit) throws IOException {
        Map<String, Object> released = nodeMaintenanceCrd();
        Map<String, Object> updated = copy(released);
        edit.accept(updated);
        List<CrdUpgradeSafety.Violation> violations = CrdUpgradeSafety.check(released, updated);
        if (refusedBy == null) {
            assertThat(violations).as(change).isEmpty();
        } else {
            assertThat(violations)
                    .as(change)
                    .extracting(CrdUpgradeSafety.Violation::rule)
                    .contains(refusedBy);
        }
    }

    @Test
    void versionsAreOrderedTheKubernetesWay() {
        assertThat(Stream.of("v2", "v1", "v1beta1", "v1alpha2", "v1alpha1", "v2beta1")
                        .sorted(CrdUpgradeSafety.KUBE_VERSION_ORDER)
                        .toList())
                .containsExactly("v1alpha1", "v1alpha2", "v1beta1", "v1", "v2beta1", "v2");
    }

    private static Arguments accepted(String change, Consumer<Map<String, Object>> edit) {
        return Arguments.of(change, null, edit);
    }

    private static Arguments refused(String change, String rule, Consumer<Map<String, Object>> edit) {
        return Arguments.of(change, rule, edit);
    }

    // --- the released and shipped CRDs ------------------------------------------------------------

    static List<Map<String, Object>> catalogBundles() throws IOException {
        return ManifestAssembly.parseAll(Files.readString(CATALOG)).stream()
                .filter(d -> Catalog.BUNDLE.equals(d.get("schema")))
                .toList();
    }

    /** The CRDs among an {@code olm.bundle}'s {@code olm.bundle.object}s (base64 JSON, as opm renders them). */
    static List<Map<String, Object>> bundleCrds(Map<String, Object> bundle) {
        List<Map<String, Object>> properties = ManifestAssembly.at(bundle, "properties");
        return properties.stream()
                .filter(p -> Catalog.BUNDLE_OBJECT.equals(p.get("type")))
                .map(p -> new String(
                        Base64.getDecoder().decode(ManifestAssembly.<String>at(p, "value", "data")),
                        StandardCharsets.UTF_8))
                .map(json -> ManifestAssembly.parseAll(json).get(0))
                .filter(o -> "CustomResourceDefinition".equals(o.get("kind")))
                .toList();
    }

    private static List<Map<String, Object>> shippedCrds() throws IOException {
        List<Map<String, Object>> crds = new ArrayList<>();
        try (Stream<Path> files = Files.list(BUNDLE)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".crd.yml"))
                    .sorted()
                    .toList()) {
                crds.addAll(ManifestAssembly.parseAll(Files.readString(file)));
            }
        }
        return crds;
    }

    private static Map<String, Object> nodeMaintenanceCrd() throws IOException {
        return shippedCrds().stream()
                .filter(c -> "nodemaintenances.tenure.dev".equals(ManifestAssembly.at(c, "metadata", "name")))
                .findFirst()
                .orElseThrow();
    }

    // --- editing a CRD map ----------------------------------------------------------------------------

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(Map<String, Object> crd) {
        return (Map<String, Object>) crd.get("spec");
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> versions(Map<String, Object> crd) {
        return (List<Map<String, Object>>) spec(crd).get("versions");
    }

    private static Map<String, Object> version(Map<String, Object> crd, String name) {
        return versions(crd).stream()
                .filter(v -> name.equals(v.get("name")))
                .findFirst()
                .orElseThrow();
    }

    /** A v1beta1 copying v1alpha1's schema, served, not stored. */
    private static Map<String, Object> newVersion(Map<String, Object> crd) {
        Map<String, Object> beta = copy(version(crd, "v1alpha1"));
        beta.put("name", "v1beta1");
        beta.put("storage", false);
        return beta;
    }

    /** The schema node at a flattened path ({@code ^.spec.drain.rules[*].behavior}) of a CRD's only or a version's schema. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> field(Map<String, Object> crdOrVersion, String path) {
        Map<String, Object> node = crdOrVersion.containsKey("schema")
                ? ManifestAssembly.at(crdOrVersion, "schema", "openAPIV3Schema")
                : ManifestAssembly.at(version(crdOrVersion, "v1alpha1"), "schema", "openAPIV3Schema");
        for (String part : path.substring(2).split("\\.")) {
            boolean items = part.endsWith("[*]");
            String name = items ? part.substring(0, part.length() - 3) : part;
            node = (Map<String, Object>) ((Map<String, Object>) node.get("properties")).get(name);
            if (items) {
                node = (Map<String, Object>) node.get("items");
            }
        }
        return node;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> properties(Map<String, Object> crdOrVersion, String path) {
        return (Map<String, Object>) field(crdOrVersion, path).get("properties");
    }

    @SuppressWarnings("unchecked")
    private static List<Object> enumOf(Map<String, Object> crd, String path) {
        return (List<Object>) field(crd, path).get("enum");
    }

    @SuppressWarnings("unchecked")
    private static List<Object> required(Map<String, Object> crd, String path) {
        return (List<Object>) field(crd, path).computeIfAbsent("required", k -> new ArrayList<>());
    }

    @SuppressWarnings("unchecked")
    private static <T> T copy(T value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> copy = new LinkedHashMap<>();
            m.forEach((k, v) -> copy.put((String) k, copy(v)));
            return (T) copy;
        }
        if (value instanceof List<?> l) {
            List<Object> copy = new ArrayList<>();
            l.forEach(v -> copy.add(copy(v)));
            return (T) copy;
        }
        return value;
    }
}
