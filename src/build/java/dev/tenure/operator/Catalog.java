package dev.tenure.operator;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The file-based catalog (FBC) for the package: one {@code olm.package}, one {@code olm.channel} per bundle
 * channel whose entries form the upgrade graph (each release replaces the one before it and skips every
 * older one), and one {@code olm.bundle} per release. {@code opm} serves it as is; a catalog image is
 * {@code opm generate dockerfile catalog} away.
 *
 * <p>Each {@code olm.bundle} carries what {@code opm render} writes for a bundle image: its manifests as
 * {@code olm.bundle.object} properties (the CSV and the CRDs), the CSV's listing fields as
 * {@code olm.csv.metadata}, and {@code relatedImages}. OLM's packageserver builds the PackageManifest (what
 * {@code kubectl get packagemanifests} and the OperatorHub console show) from the CSV it finds there; a bundle
 * without one has its channel elided ("packagemanifest has no valid channels").
 *
 * <p>Released entries are frozen: the {@code olm.bundle} of every earlier release is copied from the committed
 * catalog as it was when that release was cut, never regenerated from the current CSV, so what it advertises
 * (APIs, images, description) stays what that release's bundle image holds.
 */
final class Catalog {

    static final String PACKAGE = "olm.package";
    static final String CHANNEL = "olm.channel";
    static final String BUNDLE = "olm.bundle";
    static final String BUNDLE_OBJECT = "olm.bundle.object";
    static final String CSV_METADATA = "olm.csv.metadata";

    private Catalog() {}

    /**
     * The catalog documents for the release-shaped {@code csv} of {@code release}.
     *
     * @param crds the CRDs the bundle ships (as in olm-bundle/manifests)
     * @param committed the committed catalog's documents (empty when there is none): the source of the
     *     frozen entries of the earlier releases
     * @throws IllegalStateException when an earlier release has no entry in {@code committed}
     */
    static List<Map<String, Object>> of(
            Map<String, Object> csv,
            List<Map<String, Object>> crds,
            Release release,
            List<String> channels,
            List<Map<String, Object>> committed) {
        List<Map<String, Object>> documents = new ArrayList<>();
        Map<String, Object> pkg = new LinkedHashMap<>();
        pkg.put("schema", PACKAGE);
        pkg.put("name", ManifestAssembly.NAME);
        pkg.put("defaultChannel", channels.get(0));
        pkg.put("icon", release.icon());
        pkg.put("description", ManifestAssembly.<String>at(csv, "metadata", "annotations", "description"));
        documents.add(pkg);

        for (String channel : channels) {
            List<Map<String, Object>> entries = new ArrayList<>();
            String previous = null;
            for (String version : release.allVersions()) {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("name", Release.csvName(version));
                if (previous != null) {
                    entry.put("replaces", Release.csvName(previous));
                }
                entry.put("skipRange", "<" + version);
                entries.add(entry);
                previous = version;
            }
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", CHANNEL);
            doc.put("package", ManifestAssembly.NAME);
            doc.put("name", channel);
            doc.put("entries", entries);
            documents.add(doc);
        }

        for (String earlier : release.history()) {
            documents.add(frozenEntry(committed, Release.csvName(earlier)));
        }
        documents.add(bundle(csv, crds, release));
        return documents;
    }

    /** The committed {@code olm.bundle} named {@code name}, unchanged. */
    static Map<String, Object> frozenEntry(List<Map<String, Object>> committed, String name) {
        return committed.stream()
                .filter(d -> BUNDLE.equals(d.get("schema")) && name.equals(d.get("name")))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("catalog: released entry " + name
                        + " is missing from the committed catalog/" + ManifestAssembly.NAME
                        + "/catalog.yaml; a released entry is copied from there, never regenerated"));
    }

    /** The {@code olm.bundle} of this release, as {@code opm render} writes it for the bundle image. */
    static Map<String, Object> bundle(Map<String, Object> csv, List<Map<String, Object>> crds, Release release) {
        List<Map<String, Object>> properties = new ArrayList<>();
        properties.add(property(
                PACKAGE, new TreeMap<>(Map.of("packageName", ManifestAssembly.NAME, "version", release.version()))));
        List<Map<String, Object>> owned = ManifestAssembly.at(csv, "spec", "customresourcedefinitions", "owned");
        for (Map<String, Object> crd : Objects.requireNonNullElse(owned, List.<Map<String, Object>>of())) {
            String name = String.valueOf(crd.get("name"));
            Map<String, Object> gvk = new TreeMap<>();
            gvk.put("group", name.substring(name.indexOf('.') + 1));
            gvk.put("kind", crd.get("kind"));
            gvk.put("version", crd.get("version"));
            properties.add(property("olm.gvk", gvk));
        }
        properties.add(property(CSV_METADATA, csvMetadata(csv)));
        for (Map<String, Object> crd : crds) {
            properties.add(property(BUNDLE_OBJECT, bundleObject(crd)));
        }
        properties.add(property(BUNDLE_OBJECT, bundleObject(csv)));

        List<Map<String, Object>> relatedImages = new ArrayList<>();
        // opm render lists the bundle image itself, unnamed, beside the CSV's relatedImages.
        relatedImages.add(relatedImage("", release.bundleImage()));
        for (Map<String, Object> image : Objects.requireNonNullElse(
                ManifestAssembly.<List<Map<String, Object>>>at(csv, "spec", "relatedImages"),
                List.<Map<String, Object>>of())) {
            relatedImages.add(relatedImage(String.valueOf(image.get("name")), String.valueOf(image.get("image"))));
        }

        Map<String, Object> bundle = new LinkedHashMap<>();
        bundle.put("schema", BUNDLE);
        bundle.put("name", release.csvName());
        bundle.put("package", ManifestAssembly.NAME);
        bundle.put("image", release.bundleImage());
        bundle.put("properties", properties);
        bundle.put("relatedImages", relatedImages);
        return bundle;
    }

    /**
     * The CSV's listing fields under operator-registry's {@code property.CSVMetadata} JSON names; what
     * packageserver falls back to when a bundle carries no CSV object.
     */
    static Map<String, Object> csvMetadata(Map<String, Object> csv) {
        Map<String, Object> metadata = new LinkedHashMap<>();
        putIfPresent(metadata, "annotations", ManifestAssembly.at(csv, "metadata", "annotations"));
        putIfPresent(metadata, "apiServiceDefinitions", ManifestAssembly.at(csv, "spec", "apiservicedefinitions"));
        putIfPresent(metadata, "crdDescriptions", ManifestAssembly.at(csv, "spec", "customresourcedefinitions"));
        putIfPresent(metadata, "description", ManifestAssembly.at(csv, "spec", "description"));
        putIfPresent(metadata, "displayName", ManifestAssembly.at(csv, "spec", "displayName"));
        putIfPresent(metadata, "installModes", ManifestAssembly.at(csv, "spec", "installModes"));
        putIfPresent(metadata, "keywords", ManifestAssembly.at(csv, "spec", "keywords"));
        putIfPresent(metadata, "labels", ManifestAssembly.at(csv, "metadata", "labels"));
        putIfPresent(metadata, "links", ManifestAssembly.at(csv, "spec", "links"));
        putIfPresent(metadata, "maintainers", ManifestAssembly.at(csv, "spec", "maintainers"));
        putIfPresent(metadata, "maturity", ManifestAssembly.at(csv, "spec", "maturity"));
        putIfPresent(metadata, "minKubeVersion", ManifestAssembly.at(csv, "spec", "minKubeVersion"));
        putIfPresent(metadata, "nativeAPIs", ManifestAssembly.at(csv, "spec", "nativeAPIs"));
        putIfPresent(metadata, "provider", ManifestAssembly.at(csv, "spec", "provider"));
        return metadata;
    }

    /** An {@code olm.bundle.object} value: the manifest's JSON, base64 ({@code property.File.data}). */
    static Map<String, Object> bundleObject(Map<String, Object> manifest) {
        return Map.of(
                "data",
                Base64.getEncoder()
                        .encodeToString(ManifestAssembly.toJson(manifest).getBytes(StandardCharsets.UTF_8)));
    }

    private static void putIfPresent(Map<String, Object> into, String key, Object value) {
        if (value != null) {
            into.put(key, value);
        }
    }

    private static Map<String, Object> relatedImage(String name, String image) {
        Map<String, Object> related = new LinkedHashMap<>();
        related.put("name", name);
        related.put("image", image);
        return related;
    }

    private static Map<String, Object> property(String type, Map<String, Object> value) {
        Map<String, Object> property = new LinkedHashMap<>();
        property.put("type", type);
        property.put("value", value);
        return property;
    }
}
