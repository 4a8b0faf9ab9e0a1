package dev.tenure.operator;

import static dev.tenure.operator.ManifestAssembly.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The committed catalog rendered the way OLM turns a file-based catalog into what {@code kubectl get
 * packagemanifests} and the OperatorHub console show, from the catalog's own properties only:
 * <ol>
 * <li>operator-registry's declcfg load: each {@code olm.bundle.object} is decoded, and the one of kind
 * ClusterServiceVersion becomes the bundle's CSV JSON;</li>
 * <li>its model: every channel entry needs an {@code olm.bundle}, a bundle exactly one {@code olm.package}
 * property; a channel's head is the entry no other entry replaces or skips;</li>
 * <li>{@code ConvertBundleToAPIBundle}: without a CSV object, one {@code olm.csv.metadata} property is turned
 * into a CSV (name, package icon, version, relatedImages, package description as fallback);</li>
 * <li>packageserver's {@code newPackageManifest}: per channel, the head bundle's CSV JSON is unmarshalled and
 * described ({@code CreateCSVDescription}); a channel whose CSV is empty is elided, and a package left without
 * channels fails with "packagemanifest has no valid channels".</li>
 * </ol>
 */
class PackageManifestRenderingTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path CATALOG = Path.of("catalog", ManifestAssembly.NAME, "catalog.yaml");

    @Test
    void committedCatalogRendersAPackageManifestWithAChannelDescriptionIconAndOwnedCrds() throws IOException {
        Map<String, Object> csv = committedCsv();
        Map<String, Object> manifest = packageManifest(committedCatalog());

        assertThat((Object) at(manifest, "status", "packageName")).isEqualTo(ManifestAssembly.NAME);
        assertThat((Object) at(manifest, "status", "defaultChannel")).isEqualTo("alpha");
        List<Map<String, Object>> channels = at(manifest, "status", "channels");
        assertThat(channels).extracting(c -> c.get("name")).containsExactly("alpha");
        Map<String, Object> channel = channels.get(0);
        assertThat(channel.get("currentCSV")).isEqualTo(at(csv, "metadata", "name"));
        Map<String, Object> description = at(channel, "currentCSVDesc");
        assertThat(description.get("displayName")).isEqualTo("Tenure");
        assertThat(description.get("longDescription")).isEqualTo(at(csv, "spec", "description"));
        assertThat(description.get("version")).isEqualTo(at(csv, "spec", "version"));
        assertThat((List<Map<String, Object>>) description.get("icon"))
                .singleElement()
                .satisfies(icon -> {
                    assertThat(icon.get("mediatype")).isEqualTo("image/svg+xml");
                    assertThat(new String(
                                    Base64.getDecoder().decode(String.valueOf(icon.get("base64data"))),
                                    StandardCharsets.UTF_8))
                            .startsWith("<svg");
                });
        assertThat(ManifestAssembly.<List<Map<String, Object>>>at(description, "customresourcedefinitions", "owned"))
                .extracting(crd -> crd.get("name") + "/" + crd.get("version") + "/" + crd.get("kind"))
                .containsExactly(
                        "nodemaintenancerollouts.tenure.dev/v1alpha1/NodeMaintenanceRollout",
                        "nodemaintenances.tenure.dev/v1alpha1/NodeMaintenance");
        assertThat((Object) at(manifest, "status", "provider", "name")).isEqualTo("Tenure");
    }

    @Test
    void csvMetadataAloneStillRendersTheChannel() throws IOException {
        // Current opm writes olm.csv.metadata in place of the CSV object; packageserver builds the CSV from it.
        List<Map<String, Object>> catalog = committedCatalog();
        for (Map<String, Object> doc : catalog) {
            if (Catalog.BUNDLE.equals(doc.get("schema"))) {
                ManifestAssembly.<List<Map<String, Object>>>at(doc, "properties")
                        .removeIf(p -> Catalog.BUNDLE_OBJECT.equals(p.get("type")));
            }
        }
        Map<String, Object> description = at(
                ManifestAssembly.<List<Map<String, Object>>>at(packageManifest(catalog), "status", "channels")
                        .get(0),
                "currentCSVDesc");
        assertThat(description.get("longDescription")).isEqualTo(at(committedCsv(), "spec", "description"));
        assertThat((List<?>) description.get("icon")).hasSize(1);
        assertThat(ManifestAssembly.<List<Map<String, Object>>>at(description, "customresourcedefinitions", "owned"))
                .extracting(crd -> crd.get("kind"))
                .containsExactly("NodeMaintenanceRollout", "NodeMaintenance");
    }

    @Test
    void aBundleWithoutCsvObjectOrMetadataHasItsChannelElided() throws IOException {
        // The catalog as it was before issue 26: olm.package and olm.gvk only.
        List<Map<String, Object>> catalog = committedCatalog();
        for (Map<String, Object> doc : catalog) {
            if (Catalog.BUNDLE.equals(doc.get("schema"))) {
                ManifestAssembly.<List<Map<String, Object>>>at(doc, "properties")
                        .removeIf(p -> Set.of(Catalog.BUNDLE_OBJECT, Catalog.CSV_METADATA)
                                .contains(p.get("type")));
            }
        }
        assertThatThrownBy(() -> packageManifest(catalog)).hasMessage("packagemanifest has no valid channels");
    }

    @Test
    void bundleObjectsAreTheShippedManifests() throws IOException {
        // What the catalog says the bundle holds is what olm-bundle/manifests holds (same CSV, same CRDs).
        Map<String, Object> bundle = committedCatalog().stream()
                .filter(d -> Catalog.BUNDLE.equals(d.get("schema")))
                .reduce((a, b) -> b)
                .orElseThrow();
        List<Map<String, Object>> objects = bundleObjects(bundle);
        List<Map<String, Object>> shipped = new ArrayList<>();
        try (var files = Files.list(Path.of("olm-bundle", "manifests"))) {
            for (Path file : files.filter(f ->
                            f.toString().endsWith(".crd.yml") || f.toString().endsWith(".clusterserviceversion.yaml"))
                    .sorted()
                    .toList()) {
                shipped.addAll(ManifestAssembly.parseAll(Files.readString(file)));
            }
        }
        assertThat(objects).containsExactlyInAnyOrderElementsOf(shipped);
        assertThat(ManifestAssembly.<List<Map<String, Object>>>at(bundle, "relatedImages"))
                .extracting(i -> i.get("image"))
                .containsExactlyInAnyOrder(
                        bundle.get("image"), at(committedCsv(), "metadata", "annotations", "containerImage"));
    }

    // --- the rendering ---------------------------------------------------------------------------

    static List<Map<String, Object>> committedCatalog() throws IOException {
        return ManifestAssembly.parseAll(Files.readString(CATALOG));
    }

    static Map<String, Object> committedCsv() throws IOException {
        return ManifestAssembly.parseAll(Files.readString(
                        Path.of("olm-bundle", "manifests", ManifestAssembly.NAME + ".clusterserviceversion.yaml")))
                .get(0);
    }

    /** declcfg load: the bundle's {@code olm.bundle.object}s, decoded (base64 JSON or YAML). */
    static List<Map<String, Object>> bundleObjects(Map<String, Object> bundle) {
        return properties(bundle, Catalog.BUNDLE_OBJECT).stream()
                .map(value -> new String(
                        Base64.getDecoder().decode(String.valueOf(value.get("data"))), StandardCharsets.UTF_8))
                .map(text -> ManifestAssembly.parseAll(text).get(0))
                .toList();
    }

    private static List<Map<String, Object>> properties(Map<String, Object> bundle, String type) {
        return Objects.requireNonNullElse(
                        ManifestAssembly.<List<Map<String, Object>>>at(bundle, "properties"),
                        List.<Map<String, Object>>of())
                .stream()
                .filter(p -> type.equals(p.get("type")))
                .map(p -> ManifestAssembly.<Map<String, Object>>at(p, "value"))
                .toList();
    }

    /** The PackageManifest packageserver serves for the catalog's one package. */
    static Map<String, Object> packageManifest(List<Map<String, Object>> catalog) {
        Map<String, Object> pkg = catalog.stream()
                .filter(d -> Catalog.PACKAGE.equals(d.get("schema")))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no olm.package"));
        Map<String, Map<String, Object>> bundles = new LinkedHashMap<>();
        for (Map<String, Object> bundle : catalog) {
            if (!Catalog.BUNDLE.equals(bundle.get("schema"))) {
                continue;
            }
            List<Map<String, Object>> packages = properties(bundle, Catalog.PACKAGE);
            if (packages.size() != 1 || !pkg.get("name").equals(packages.get(0).get("packageName"))) {
                throw new IllegalStateException("bundle " + bundle.get("name") + " must have exactly 1 olm.package");
            }
            bundles.put(String.valueOf(bundle.get("name")), bundle);
        }
        Map<String, Object> channelsByName = new TreeMap<>();
        catalog.stream()
                .filter(d -> Catalog.CHANNEL.equals(d.get("schema")))
                .forEach(c -> channelsByName.put(String.valueOf(c.get("name")), c));

        List<Map<String, Object>> rendered = new ArrayList<>();
        Map<String, Object> provider = null;
        for (Object value : channelsByName.values()) {
            @SuppressWarnings("unchecked")
            Map<String, Object> channel = (Map<String, Object>) value;
            List<Map<String, Object>> entries = at(channel, "entries");
            for (Map<String, Object> entry : entries) {
                if (!bundles.containsKey(String.valueOf(entry.get("name")))) {
                    throw new IllegalStateException(
                            "no olm.bundle blobs found for olm.channel entry " + entry.get("name"));
                }
            }
            Map<String, Object> head = bundles.get(head(entries));
            String csvJson = apiBundleCsvJson(head, pkg);
            if (csvJson.isEmpty()) {
                continue; // packageserver: "error unmarshaling csv, eliding channel"
            }
            Map<String, Object> csv = parseJson(csvJson);
            Map<String, Object> packageChannel = new LinkedHashMap<>();
            packageChannel.put("name", channel.get("name"));
            packageChannel.put("currentCSV", at(csv, "metadata", "name"));
            packageChannel.put("currentCSVDesc", csvDescription(csv));
            rendered.add(packageChannel);
            if (provider == null || channel.get("name").equals(pkg.get("defaultChannel"))) {
                provider = at(csv, "spec", "provider");
            }
        }
        if (rendered.isEmpty()) {
            throw new IllegalStateException("packagemanifest has no valid channels");
        }
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("packageName", pkg.get("name"));
        status.put("defaultChannel", pkg.get("defaultChannel"));
        status.put("channels", rendered);
        status.put("provider", provider);
        Map<String, Object> manifest = new LinkedHashMap<>();
        manifest.put("kind", "PackageManifest");
        manifest.put("status", status);
        return manifest;
    }

    /** operator-registry model: the one entry that no other entry replaces or skips. */
    private static String head(List<Map<String, Object>> entries) {
        Set<String> superseded = entries.stream()
                .flatMap(e -> {
                    List<String> gone = new ArrayList<>();
                    if (e.get("replaces") != null) {
                        gone.add(String.valueOf(e.get("replaces")));
                    }
                    Objects.requireNonNullElse((List<?>) e.get("skips"), List.of())
                            .forEach(s -> gone.add(String.valueOf(s)));
                    return gone.stream();
                })
                .collect(Collectors.toSet());
        List<String> heads = entries.stream()
                .map(e -> String.valueOf(e.get("name")))
                .filter(n -> !superseded.contains(n))
                .toList();
        if (heads.size() != 1) {
            throw new IllegalStateException("channel has " + heads.size() + " heads: " + heads);
        }
        return heads.get(0);
    }

    /** ConvertBundleToAPIBundle's CsvJson: the CSV object, else one olm.csv.metadata made into a CSV, else "". */
    private static String apiBundleCsvJson(Map<String, Object> bundle, Map<String, Object> pkg) {
        for (Map<String, Object> object : bundleObjects(bundle)) {
            if ("ClusterServiceVersion".equals(object.get("kind"))) {
                return toJson(object);
            }
        }
        List<Map<String, Object>> metadata = properties(bundle, Catalog.CSV_METADATA);
        if (metadata.size() != 1) {
            return "";
        }
        Map<String, Object> m = metadata.get(0);
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("apiservicedefinitions", m.get("apiServiceDefinitions"));
        spec.put("customresourcedefinitions", m.get("crdDescriptions"));
        spec.put("description", m.get("description") != null ? m.get("description") : pkg.get("description"));
        spec.put("displayName", m.get("displayName"));
        spec.put("installModes", m.get("installModes"));
        spec.put("keywords", m.get("keywords"));
        spec.put("links", m.get("links"));
        spec.put("maintainers", m.get("maintainers"));
        spec.put("maturity", m.get("maturity"));
        spec.put("minKubeVersion", m.get("minKubeVersion"));
        spec.put("provider", m.get("provider"));
        spec.put("icon", pkg.get("icon") == null ? null : List.of(pkg.get("icon")));
        spec.put("version", properties(bundle, Catalog.PACKAGE).get(0).get("version"));
        spec.put("relatedImages", bundle.get("relatedImages"));
        Map<String, Object> csv = new LinkedHashMap<>();
        csv.put("apiVersion", "operators.coreos.com/v1alpha1");
        csv.put("kind", "ClusterServiceVersion");
        csv.put("metadata", Map.of("name", bundle.get("name"), "annotations", m.getOrDefault("annotations", Map.of())));
        csv.put("spec", spec);
        return toJson(csv);
    }

    /** operators.CreateCSVDescription: what the console lists for a channel's current CSV. */
    private static Map<String, Object> csvDescription(Map<String, Object> csv) {
        Map<String, Object> description = new LinkedHashMap<>();
        description.put("displayName", at(csv, "spec", "displayName"));
        description.put("icon", at(csv, "spec", "icon"));
        description.put("version", at(csv, "spec", "version"));
        description.put("provider", at(csv, "spec", "provider"));
        description.put("annotations", at(csv, "metadata", "annotations"));
        description.put("keywords", at(csv, "spec", "keywords"));
        description.put("links", at(csv, "spec", "links"));
        description.put("maintainers", at(csv, "spec", "maintainers"));
        description.put("maturity", at(csv, "spec", "maturity"));
        description.put("longDescription", at(csv, "spec", "description"));
        description.put("installModes", at(csv, "spec", "installModes"));
        description.put("customresourcedefinitions", at(csv, "spec", "customresourcedefinitions"));
        description.put("apiservicedefinitions", at(csv, "spec", "apiservicedefinitions"));
        description.put("minKubeVersion", at(csv, "spec", "minKubeVersion"));
        description.put("relatedImages", at(csv, "spec", "relatedImages"));
        return description;
    }

    private static String toJson(Map<String, Object> object) {
        try {
            return JSON.writeValueAsString(object);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> parseJson(String json) {
        try {
            return JSON.readValue(json, Map.class);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
