package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The checks `operator-sdk bundle validate --select-optional suite=operatorframework` applies that matter
 * for this bundle (that binary cannot be installed here), as rules over the committed bundle (olm-bundle/)
 * and file-based catalog (catalog/); verify-generated keeps both equal to what the build generates.
 * Where a schema exists the check is a JSON-schema validation (networknt json-schema-validator): the CSV
 * against {@code olm/csv.schema.json}, alm-examples against the CRD's openAPIV3Schema, each catalog
 * document against {@code olm/fbc.schema.json}. Each rule passes on the committed bundle and is shown to
 * fire on a broken copy of it.
 */
class BundleValidationTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonSchemaFactory SCHEMAS = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7);
    private static final SchemaValidatorsConfig CONFIG =
            SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
    /** apiVersions the API server no longer serves (removed up to Kubernetes 1.32; minKubeVersion is 1.31). */
    private static final Set<String> REMOVED_API_VERSIONS = Set.of(
            "apiextensions.k8s.io/v1beta1",
            "admissionregistration.k8s.io/v1beta1",
            "rbac.authorization.k8s.io/v1beta1",
            "policy/v1beta1",
            "batch/v1beta1",
            "networking.k8s.io/v1beta1",
            "extensions/v1beta1",
            "apps/v1beta1",
            "apps/v1beta2",
            "storage.k8s.io/v1beta1",
            "autoscaling/v2beta1",
            "autoscaling/v2beta2",
            "discovery.k8s.io/v1beta1",
            "events.k8s.io/v1beta1",
            "node.k8s.io/v1beta1",
            "scheduling.k8s.io/v1beta1",
            "certificates.k8s.io/v1beta1",
            "coordination.k8s.io/v1beta1",
            "flowcontrol.apiserver.k8s.io/v1beta1",
            "flowcontrol.apiserver.k8s.io/v1beta2",
            "flowcontrol.apiserver.k8s.io/v1beta3");

    /** The bundle as parsed documents: the CSV, the CRDs, the other manifests, and the catalog. */
    record Bundle(
            Map<String, Object> csv,
            List<Map<String, Object>> crds,
            List<Map<String, Object>> others,
            List<Map<String, Object>> catalog) {

        /**
         * The committed bundle and catalog, parsed once per test JVM (the files do not change while tests run) and
         * shared: read it, and {@link #copy()} it to change it.
         */
        static Bundle committed() {
            return Committed.READ;
        }

        private static Bundle readCommitted() throws IOException {
            Map<String, Object> csv = null;
            List<Map<String, Object>> crds = new ArrayList<>();
            List<Map<String, Object>> others = new ArrayList<>();
            try (Stream<Path> files = Files.list(Path.of("olm-bundle", "manifests"))) {
                for (Path file : files.sorted().toList()) {
                    for (Map<String, Object> doc : ManifestAssembly.parseAll(Files.readString(file))) {
                        switch (String.valueOf(doc.get("kind"))) {
                            case "ClusterServiceVersion" -> csv = doc;
                            case "CustomResourceDefinition" -> crds.add(doc);
                            default -> others.add(doc);
                        }
                    }
                }
            }
            assertThat(csv).as("a CSV in olm-bundle/manifests").isNotNull();
            List<Map<String, Object>> catalog = ManifestAssembly.parseAll(
                    Files.readString(Path.of("catalog", ManifestAssembly.NAME, "catalog.yaml")));
            return new Bundle(csv, crds, others, catalog);
        }

        /** A deep copy, for a test to break. */
        Bundle copy() {
            return JSON.convertValue(this, Bundle.class);
        }

        Map<String, Object> spec() {
            return at(csv, "spec");
        }
    }

    private static final class Committed {
        static final Bundle READ = read();

        private static Bundle read() {
            try {
                return Bundle.readCommitted();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    enum Rule {
        CSV_SCHEMA,
        ALM_EXAMPLES_MATCH_CRD_SCHEMA,
        DESCRIPTORS_EXIST_IN_CRD,
        OWNED_CRDS_SHIPPED,
        WEBHOOK_MATCHES_DEPLOYMENT,
        INSTALL_MODES,
        NO_REMOVED_APIS,
        FBC_SCHEMA,
        FBC_REFERENCES_RESOLVE,
        FBC_DESCRIBES_THIS_BUNDLE
    }

    @ParameterizedTest
    @EnumSource(Rule.class)
    void committedBundlePasses(Rule rule) throws IOException {
        assertThat(violations(rule, Bundle.committed())).isEmpty();
    }

    @ParameterizedTest(name = "{0} ({1})")
    @MethodSource("brokenCopies")
    void ruleFiresOnABrokenCopy(String breakage, Rule rule, Consumer<Bundle> breakIt) throws IOException {
        Bundle broken = Bundle.committed().copy();
        breakIt.accept(broken);
        assertThat(violations(rule, broken)).as(breakage).isNotEmpty();
    }

    static Stream<Arguments> brokenCopies() {
        return Stream.of(
                broken("version not semver", Rule.CSV_SCHEMA, b -> b.spec().put("version", "1.0")),
                broken(
                        "name not <package>.v<semver>",
                        Rule.CSV_SCHEMA,
                        b -> map(b.csv(), "metadata").put("name", "tenure-operator.v0.1.0-snapshot")),
                broken(
                        "icon mediatype",
                        Rule.CSV_SCHEMA,
                        b -> ((List<Map<String, Object>>) b.spec().get("icon"))
                                .get(0)
                                .put("mediatype", "image/bmp")),
                broken("no icon", Rule.CSV_SCHEMA, b -> b.spec().remove("icon")),
                broken(
                        "maintainer email",
                        Rule.CSV_SCHEMA,
                        b -> ((List<Map<String, Object>>) b.spec().get("maintainers"))
                                .get(0)
                                .put("email", "nobody")),
                broken(
                        "link url",
                        Rule.CSV_SCHEMA,
                        b -> ((List<Map<String, Object>>) b.spec().get("links"))
                                .get(0)
                                .put("url", "docs")),
                broken("maturity", Rule.CSV_SCHEMA, b -> b.spec().put("maturity", "experimental")),
                broken("minKubeVersion", Rule.CSV_SCHEMA, b -> b.spec().put("minKubeVersion", "1.31")),
                broken("createdAt", Rule.CSV_SCHEMA, b -> annotations(b).put("createdAt", "yesterday")),
                broken(
                        "SNAPSHOT image",
                        Rule.CSV_SCHEMA,
                        b -> annotations(b).put("containerImage", "ghcr.io/tenure-dev/tenure-operator:0.1.0-SNAPSHOT")),
                broken("category", Rule.CSV_SCHEMA, b -> annotations(b).put("categories", "Maintenance")),
                broken("capabilities", Rule.CSV_SCHEMA, b -> annotations(b).put("capabilities", "Basic")),
                broken(
                        "feature annotation",
                        Rule.CSV_SCHEMA,
                        b -> annotations(b).put("features.operators.openshift.io/disconnected", "yes")),
                broken(
                        "example without required nodeName",
                        Rule.ALM_EXAMPLES_MATCH_CRD_SCHEMA,
                        b -> annotations(b)
                                .put(
                                        "alm-examples",
                                        "[{\"apiVersion\":\"tenure.dev/v1alpha1\","
                                                + "\"kind\":\"NodeMaintenance\",\"metadata\":{\"name\":\"x\"},\"spec\":{\"reason\":\"r\"}}]")),
                broken(
                        "example field of the wrong type",
                        Rule.ALM_EXAMPLES_MATCH_CRD_SCHEMA,
                        b -> annotations(b)
                                .put(
                                        "alm-examples",
                                        "[{\"apiVersion\":\"tenure.dev/v1alpha1\","
                                                + "\"kind\":\"NodeMaintenance\",\"metadata\":{\"name\":\"x\"},\"spec\":{\"nodeName\":5}}]")),
                broken(
                        "example of a kind not owned",
                        Rule.ALM_EXAMPLES_MATCH_CRD_SCHEMA,
                        b -> annotations(b)
                                .put(
                                        "alm-examples",
                                        "[{\"apiVersion\":\"tenure.dev/v1alpha1\","
                                                + "\"kind\":\"Maintenance\",\"metadata\":{\"name\":\"x\"},\"spec\":{}}]")),
                broken(
                        "spec descriptor on a missing path",
                        Rule.DESCRIPTORS_EXIST_IN_CRD,
                        b -> ((List<Map<String, Object>>) owned(b).get(0).get("specDescriptors"))
                                .add(new LinkedHashMap<>(Map.of("path", "drain.nonexistent", "displayName", "x")))),
                broken(
                        "status descriptor on a missing path",
                        Rule.DESCRIPTORS_EXIST_IN_CRD,
                        b -> ((List<Map<String, Object>>) owned(b).get(0).get("statusDescriptors"))
                                .add(new LinkedHashMap<>(Map.of("path", "progress", "displayName", "x")))),
                broken(
                        "owned CRD not in the bundle",
                        Rule.OWNED_CRDS_SHIPPED,
                        b -> b.crds().clear()),
                broken(
                        "owned CRD version not served",
                        Rule.OWNED_CRDS_SHIPPED,
                        b -> owned(b).get(0).put("version", "v9")),
                broken(
                        "webhook targetPort not a container port",
                        Rule.WEBHOOK_MATCHES_DEPLOYMENT,
                        b -> webhook(b).put("targetPort", 9999)),
                broken(
                        "webhook on another deployment",
                        Rule.WEBHOOK_MATCHES_DEPLOYMENT,
                        b -> webhook(b).put("deploymentName", "other")),
                broken(
                        "webhook path the operator does not serve",
                        Rule.WEBHOOK_MATCHES_DEPLOYMENT,
                        b -> webhook(b).put("webhookPath", "/validate")),
                broken(
                        "webhook sideEffects",
                        Rule.WEBHOOK_MATCHES_DEPLOYMENT,
                        b -> webhook(b).put("sideEffects", "Some")),
                broken(
                        "webhook admissionReviewVersions",
                        Rule.WEBHOOK_MATCHES_DEPLOYMENT,
                        b -> webhook(b).put("admissionReviewVersions", List.of("v1beta1"))),
                broken(
                        "webhook on a resource not owned",
                        Rule.WEBHOOK_MATCHES_DEPLOYMENT,
                        b -> ((List<Map<String, Object>>) webhook(b).get("rules"))
                                .get(0)
                                .put("resources", List.of("nodes"))),
                broken(
                        "webhook without AllNamespaces",
                        Rule.INSTALL_MODES,
                        b -> installModes(b).forEach(m -> m.put("supported", "OwnNamespace".equals(m.get("type"))))),
                broken(
                        "install mode listed twice",
                        Rule.INSTALL_MODES,
                        b -> installModes(b)
                                .get(1)
                                .put("type", installModes(b).get(0).get("type"))),
                broken(
                        "removed API in a manifest",
                        Rule.NO_REMOVED_APIS,
                        b -> b.others().get(0).put("apiVersion", "policy/v1beta1")),
                broken(
                        "CRD on apiextensions v1beta1",
                        Rule.NO_REMOVED_APIS,
                        b -> b.crds().get(0).put("apiVersion", "apiextensions.k8s.io/v1beta1")),
                broken(
                        "channel entry with an unknown field",
                        Rule.FBC_SCHEMA,
                        b -> ((List<Map<String, Object>>) doc(b, "olm.channel").get("entries"))
                                .get(0)
                                .put("replace", "x")),
                broken(
                        "bundle without olm.package property",
                        Rule.FBC_SCHEMA,
                        b -> ((List<Map<String, Object>>) doc(b, "olm.bundle").get("properties"))
                                .removeIf(p -> "olm.package".equals(p.get("type")))),
                broken(
                        "default channel missing",
                        Rule.FBC_REFERENCES_RESOLVE,
                        b -> doc(b, "olm.package").put("defaultChannel", "stable")),
                broken(
                        "dangling replaces",
                        Rule.FBC_REFERENCES_RESOLVE,
                        b -> ((List<Map<String, Object>>) doc(b, "olm.channel").get("entries"))
                                .get(0)
                                .put("replaces", "tenure-operator.v0.0.9")),
                broken(
                        "channel entry without a bundle",
                        Rule.FBC_REFERENCES_RESOLVE,
                        b -> ((List<Map<String, Object>>) doc(b, "olm.channel").get("entries"))
                                .add(new LinkedHashMap<>(Map.of("name", "tenure-operator.v9.9.9")))),
                broken(
                        "bundle of another package",
                        Rule.FBC_REFERENCES_RESOLVE,
                        b -> doc(b, "olm.bundle").put("package", "other")),
                broken(
                        "olm.package version differs from the bundle name",
                        Rule.FBC_REFERENCES_RESOLVE,
                        b -> olmPackageProperty(b).put("version", "0.0.1")),
                broken(
                        "catalog has no bundle for this CSV",
                        Rule.FBC_DESCRIBES_THIS_BUNDLE,
                        b -> map(b.csv(), "metadata").put("name", "tenure-operator.v0.2.0")),
                broken(
                        "CSV replaces differs from the channel",
                        Rule.FBC_DESCRIBES_THIS_BUNDLE,
                        b -> b.spec().put("replaces", "tenure-operator.v0.0.1")),
                broken(
                        "catalog bundle lacks a gvk the CSV owns",
                        Rule.FBC_DESCRIBES_THIS_BUNDLE,
                        b -> ((List<Map<String, Object>>) doc(b, "olm.bundle").get("properties"))
                                .removeIf(p -> "olm.gvk".equals(p.get("type")))));
    }

    // --- the rules ---------------------------------------------------------------------------

    static List<String> violations(Rule rule, Bundle b) {
        return switch (rule) {
            case CSV_SCHEMA -> validate(schema("/olm/csv.schema.json"), b.csv());
            case ALM_EXAMPLES_MATCH_CRD_SCHEMA -> almExamples(b);
            case DESCRIPTORS_EXIST_IN_CRD -> descriptors(b);
            case OWNED_CRDS_SHIPPED -> ownedCrds(b);
            case WEBHOOK_MATCHES_DEPLOYMENT -> webhooks(b);
            case INSTALL_MODES -> installModes(b, true);
            case NO_REMOVED_APIS ->
                Stream.of(List.of(b.csv()), b.crds(), b.others())
                        .flatMap(List::stream)
                        .filter(d -> REMOVED_API_VERSIONS.contains(String.valueOf(d.get("apiVersion"))))
                        .map(d -> d.get("kind") + " uses removed " + d.get("apiVersion"))
                        .toList();
            case FBC_SCHEMA ->
                b.catalog().stream()
                        .flatMap(d -> validate(schema("/olm/fbc.schema.json"), d).stream()
                                .map(v -> d.get("schema") + " " + d.get("name") + ": " + v))
                        .toList();
            case FBC_REFERENCES_RESOLVE -> fbcReferences(b);
            case FBC_DESCRIBES_THIS_BUNDLE -> fbcDescribesBundle(b);
        };
    }

    private static List<String> almExamples(Bundle b) {
        List<String> problems = new ArrayList<>();
        JsonNode examples;
        try {
            examples = JSON.readTree(
                    String.valueOf(ManifestAssembly.<Object>at(b.csv(), "metadata", "annotations", "alm-examples")));
        } catch (IOException e) {
            return List.of("alm-examples is not JSON: " + e.getMessage());
        }
        if (!examples.isArray() || examples.isEmpty()) {
            return List.of("alm-examples is not a non-empty array");
        }
        for (JsonNode example : examples) {
            String kind = example.path("kind").asText();
            String[] gv = example.path("apiVersion").asText().split("/");
            Map<String, Object> version = b.crds().stream()
                    .filter(c -> kind.equals(at(c, "spec", "names", "kind")) && gv[0].equals(at(c, "spec", "group")))
                    .flatMap(c -> ManifestAssembly.<List<Map<String, Object>>>at(c, "spec", "versions").stream())
                    .filter(v -> gv.length > 1 && gv[1].equals(v.get("name")))
                    .findFirst()
                    .orElse(null);
            if (version == null) {
                problems.add("alm-example of " + example.path("apiVersion").asText() + " " + kind
                        + ": no CRD in the bundle");
                continue;
            }
            JsonSchema crdSchema =
                    SCHEMAS.getSchema(JSON.valueToTree(at(version, "schema", "openAPIV3Schema")), CONFIG);
            crdSchema.validate(example).forEach(m -> problems.add("alm-example " + kind + ": " + m.getMessage()));
        }
        return problems;
    }

    private static List<String> descriptors(Bundle b) {
        List<String> problems = new ArrayList<>();
        for (Map<String, Object> owned : owned(b)) {
            Map<String, Object> crdVersion = crdVersion(b, owned);
            if (crdVersion == null) {
                continue; // OWNED_CRDS_SHIPPED reports it
            }
            for (String section : List.of("spec", "status")) {
                Map<String, Object> schema = at(crdVersion, "schema", "openAPIV3Schema", "properties", section);
                List<Map<String, Object>> descriptors =
                        Objects.requireNonNullElse(at(owned, section + "Descriptors"), List.of());
                for (Map<String, Object> d : descriptors) {
                    if (!GeneratedArtifactsTest.schemaHasPath(schema, String.valueOf(d.get("path")))) {
                        problems.add(owned.get("kind") + " " + section + "Descriptor " + d.get("path")
                                + " is not a path of the CRD's " + section);
                    }
                }
            }
        }
        return problems;
    }

    private static List<String> ownedCrds(Bundle b) {
        return owned(b).stream()
                .filter(o -> crdVersion(b, o) == null)
                .map(o ->
                        "owned " + o.get("name") + " " + o.get("version") + " is not a served version of a bundled CRD")
                .toList();
    }

    private static List<String> webhooks(Bundle b) {
        List<String> problems = new ArrayList<>();
        List<Map<String, Object>> definitions =
                Objects.requireNonNullElse(at(b.spec(), "webhookdefinitions"), List.of());
        Set<String> ownedResources = b.crds().stream()
                .map(c -> at(c, "spec", "group") + "/" + at(c, "spec", "names", "plural"))
                .collect(Collectors.toSet());
        for (Map<String, Object> w : definitions) {
            String name = String.valueOf(w.get("generateName"));
            List<Map<String, Object>> deployments = at(b.spec(), "install", "spec", "deployments");
            Map<String, Object> deployment = deployments.stream()
                    .filter(d -> Objects.equals(d.get("name"), w.get("deploymentName")))
                    .findFirst()
                    .orElse(null);
            if (deployment == null) {
                problems.add(name + ": deploymentName " + w.get("deploymentName") + " is not a CSV deployment");
            } else {
                List<Map<String, Object>> containers = at(deployment, "spec", "template", "spec", "containers");
                Object port = w.getOrDefault("targetPort", w.get("containerPort"));
                boolean served = containers.stream()
                        .flatMap(c -> ManifestAssembly.<List<Map<String, Object>>>at(c, "ports").stream())
                        .anyMatch(p -> Objects.equals(p.get("containerPort"), port));
                if (!served) {
                    problems.add(
                            name + ": targetPort " + port + " is not a container port of " + w.get("deploymentName"));
                }
            }
            // the paths the operator's JAX-RS webhook resources are served on
            Set<String> served = Set.of(
                    dev.tenure.maintenance.admission.NodeMaintenanceWebhook.PATH,
                    dev.tenure.rollout.NodeMaintenanceRolloutWebhook.PATH);
            if (!served.contains(String.valueOf(w.get("webhookPath")))) {
                problems.add(name + ": webhookPath " + w.get("webhookPath") + " is not a path the operator serves "
                        + new java.util.TreeSet<>(served));
            }
            if (!Set.of("None", "NoneOnDryRun").contains(String.valueOf(w.get("sideEffects")))) {
                problems.add(
                        name + ": sideEffects " + w.get("sideEffects") + " (admission v1 allows None, NoneOnDryRun)");
            }
            if (!Objects.requireNonNullElse((List<?>) w.get("admissionReviewVersions"), List.of())
                    .contains("v1")) {
                problems.add(name + ": admissionReviewVersions lacks v1");
            }
            for (Map<String, Object> rule : ManifestAssembly.<List<Map<String, Object>>>at(w, "rules")) {
                for (Object group : (List<?>) rule.get("apiGroups")) {
                    for (Object resource : (List<?>) rule.get("resources")) {
                        if (!ownedResources.contains(group + "/" + resource)) {
                            problems.add(name + ": rule on " + group + "/" + resource + ", not a CRD of the bundle");
                        }
                    }
                }
            }
        }
        return problems;
    }

    private static List<String> installModes(Bundle b, boolean withWebhooks) {
        List<String> problems = new ArrayList<>();
        List<Map<String, Object>> modes = installModes(b);
        Set<Object> types = new HashSet<>();
        modes.forEach(m -> {
            if (!types.add(m.get("type"))) {
                problems.add("install mode " + m.get("type") + " listed twice");
            }
        });
        boolean all = modes.stream()
                .anyMatch(m -> "AllNamespaces".equals(m.get("type")) && Boolean.TRUE.equals(m.get("supported")));
        if (withWebhooks && at(b.spec(), "webhookdefinitions") != null && !all) {
            problems.add(
                    "a CSV with webhookdefinitions must support AllNamespaces (OLM installs webhooks cluster-wide)");
        }
        return problems;
    }

    private static List<String> fbcReferences(Bundle b) {
        List<String> problems = new ArrayList<>();
        List<Map<String, Object>> packages = ofSchema(b, "olm.package");
        if (packages.size() != 1) {
            problems.add(packages.size() + " olm.package documents, want 1");
            return problems;
        }
        String pkg = String.valueOf(packages.get(0).get("name"));
        Map<String, Map<String, Object>> bundles = ofSchema(b, "olm.bundle").stream()
                .collect(Collectors.toMap(d -> String.valueOf(d.get("name")), d -> d));
        Set<String> channels = new HashSet<>();
        for (Map<String, Object> channel : ofSchema(b, "olm.channel")) {
            channels.add(String.valueOf(channel.get("name")));
            if (!pkg.equals(channel.get("package"))) {
                problems.add("channel " + channel.get("name") + " of package " + channel.get("package"));
            }
            List<Map<String, Object>> entries = at(channel, "entries");
            Set<Object> names = entries.stream().map(e -> e.get("name")).collect(Collectors.toSet());
            for (Map<String, Object> entry : entries) {
                if (!bundles.containsKey(String.valueOf(entry.get("name")))) {
                    problems.add(
                            "channel " + channel.get("name") + " entry " + entry.get("name") + " has no olm.bundle");
                }
                if (entry.get("replaces") != null && !names.contains(entry.get("replaces"))) {
                    problems.add("channel " + channel.get("name") + " entry " + entry.get("name") + " replaces "
                            + entry.get("replaces") + ", which is not in the channel (dangling)");
                }
            }
            long heads = entries.stream()
                    .filter(e -> entries.stream().noneMatch(o -> e.get("name").equals(o.get("replaces"))))
                    .count();
            if (heads != 1) {
                problems.add(
                        "channel " + channel.get("name") + " has " + heads + " heads; the upgrade graph needs one");
            }
        }
        if (!channels.contains(String.valueOf(packages.get(0).get("defaultChannel")))) {
            problems.add("defaultChannel " + packages.get(0).get("defaultChannel") + " is not a channel");
        }
        for (Map<String, Object> bundle : bundles.values()) {
            if (!pkg.equals(bundle.get("package"))) {
                problems.add("bundle " + bundle.get("name") + " of package " + bundle.get("package"));
            }
            Map<String, Object> value = olmPackage(bundle);
            if (value == null
                    || !pkg.equals(value.get("packageName"))
                    || !String.valueOf(bundle.get("name")).equals(pkg + ".v" + value.get("version"))) {
                problems.add("bundle " + bundle.get("name") + ": olm.package property " + value
                        + " does not match its name");
            }
        }
        return problems;
    }

    private static List<String> fbcDescribesBundle(Bundle b) {
        List<String> problems = new ArrayList<>();
        String name = at(b.csv(), "metadata", "name");
        Map<String, Object> bundle = ofSchema(b, "olm.bundle").stream()
                .filter(d -> name.equals(d.get("name")))
                .findFirst()
                .orElse(null);
        if (bundle == null) {
            return List.of("no olm.bundle named " + name + " in the catalog");
        }
        Map<String, Object> pkg = olmPackage(bundle);
        if (pkg == null || !Objects.equals(pkg.get("version"), b.spec().get("version"))) {
            problems.add("catalog bundle version " + (pkg == null ? null : pkg.get("version")) + " vs CSV "
                    + b.spec().get("version"));
        }
        for (Map<String, Object> channel : ofSchema(b, "olm.channel")) {
            List<Map<String, Object>> entries = at(channel, "entries");
            entries.stream()
                    .filter(e -> name.equals(e.get("name")))
                    .findFirst()
                    .ifPresentOrElse(
                            e -> {
                                if (!Objects.equals(e.get("replaces"), b.spec().get("replaces"))) {
                                    problems.add("channel " + channel.get("name") + " says " + name + " replaces "
                                            + e.get("replaces") + ", the CSV says "
                                            + b.spec().get("replaces"));
                                }
                            },
                            () -> problems.add("channel " + channel.get("name") + " has no entry " + name));
        }
        Set<String> gvks = ManifestAssembly.<List<Map<String, Object>>>at(bundle, "properties").stream()
                .filter(p -> "olm.gvk".equals(p.get("type")))
                .map(p -> (Map<String, Object>) p.get("value"))
                .map(v -> v.get("group") + "/" + v.get("version") + "/" + v.get("kind"))
                .collect(Collectors.toSet());
        for (Map<String, Object> o : owned(b)) {
            String name2 = String.valueOf(o.get("name"));
            String gvk = name2.substring(name2.indexOf('.') + 1) + "/" + o.get("version") + "/" + o.get("kind");
            if (!gvks.contains(gvk)) {
                problems.add("catalog bundle " + name + " lacks olm.gvk " + gvk);
            }
        }
        return problems;
    }

    // --- helpers -----------------------------------------------------------------------------

    private static Arguments broken(String breakage, Rule rule, Consumer<Bundle> breakIt) {
        return Arguments.of(breakage, rule, breakIt);
    }

    /** The two schemas, loaded once for every case. */
    private static final Map<String, JsonSchema> LOADED_SCHEMAS = new ConcurrentHashMap<>();

    private static JsonSchema schema(String resource) {
        return LOADED_SCHEMAS.computeIfAbsent(resource, BundleValidationTest::loadSchema);
    }

    private static JsonSchema loadSchema(String resource) {
        try (InputStream in = BundleValidationTest.class.getResourceAsStream(resource)) {
            return SCHEMAS.getSchema(JSON.readTree(in), CONFIG);
        } catch (IOException e) {
            throw new IllegalStateException(resource, e);
        }
    }

    private static List<String> validate(JsonSchema schema, Map<String, Object> document) {
        Set<ValidationMessage> messages = schema.validate(JSON.valueToTree(document));
        return messages.stream().map(ValidationMessage::getMessage).sorted().toList();
    }

    private static Map<String, Object> crdVersion(Bundle b, Map<String, Object> owned) {
        return b.crds().stream()
                .filter(c -> Objects.equals(at(c, "metadata", "name"), owned.get("name")))
                .flatMap(c -> ManifestAssembly.<List<Map<String, Object>>>at(c, "spec", "versions").stream())
                .filter(v ->
                        Objects.equals(v.get("name"), owned.get("version")) && Boolean.TRUE.equals(v.get("served")))
                .findFirst()
                .orElse(null);
    }

    private static List<Map<String, Object>> ofSchema(Bundle b, String schema) {
        return b.catalog().stream().filter(d -> schema.equals(d.get("schema"))).toList();
    }

    private static Map<String, Object> doc(Bundle b, String schema) {
        return ofSchema(b, schema).get(0);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> olmPackage(Map<String, Object> bundle) {
        return ManifestAssembly.<List<Map<String, Object>>>at(bundle, "properties").stream()
                .filter(p -> "olm.package".equals(p.get("type")))
                .map(p -> (Map<String, Object>) p.get("value"))
                .findFirst()
                .orElse(null);
    }

    private static Map<String, Object> olmPackageProperty(Bundle b) {
        return olmPackage(doc(b, "olm.bundle"));
    }

    private static Map<String, Object> annotations(Bundle b) {
        return at(b.csv(), "metadata", "annotations");
    }

    private static List<Map<String, Object>> owned(Bundle b) {
        return at(b.spec(), "customresourcedefinitions", "owned");
    }

    private static Map<String, Object> webhook(Bundle b) {
        return ManifestAssembly.<List<Map<String, Object>>>at(b.spec(), "webhookdefinitions")
                .get(0);
    }

    private static List<Map<String, Object>> installModes(Bundle b) {
        return at(b.spec(), "installModes");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> parent, String key) {
        return (Map<String, Object>) parent.get(key);
    }

    @SuppressWarnings("TypeParameterUnusedInFormals") // a YAML path lookup: the caller names the type it expects
    private static <T> T at(Map<String, Object> root, String... keys) {
        return ManifestAssembly.at(root, keys);
    }
}
