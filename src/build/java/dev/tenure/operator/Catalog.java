package dev.tenure.operator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The file-based catalog (FBC) for the package: one {@code olm.package}, one {@code olm.channel} per bundle
 * channel whose entries form the upgrade graph (each release replaces the one before it and skips every
 * older one), and one {@code olm.bundle} per release. {@code opm} serves it as is; a catalog image is
 * {@code opm generate dockerfile catalog} away.
 */
final class Catalog {

    private Catalog() {}

    /** The catalog documents for the release-shaped {@code csv} of {@code release}. */
    static List<Map<String, Object>> of(Map<String, Object> csv, Release release, List<String> channels) {
        List<Map<String, Object>> documents = new ArrayList<>();
        Map<String, Object> pkg = new LinkedHashMap<>();
        pkg.put("schema", "olm.package");
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
            doc.put("schema", "olm.channel");
            doc.put("package", ManifestAssembly.NAME);
            doc.put("name", channel);
            doc.put("entries", entries);
            documents.add(doc);
        }

        List<Map<String, Object>> owned = ManifestAssembly.at(csv, "spec", "customresourcedefinitions", "owned");
        for (String version : release.allVersions()) {
            List<Map<String, Object>> properties = new ArrayList<>();
            properties.add(property("olm.package", Map.of("packageName", ManifestAssembly.NAME, "version", version)));
            for (Map<String, Object> crd : owned == null ? List.<Map<String, Object>>of() : owned) {
                String group = String.valueOf(crd.get("name"))
                        .substring(String.valueOf(crd.get("name")).indexOf('.') + 1);
                Map<String, Object> gvk = new LinkedHashMap<>();
                gvk.put("group", group);
                gvk.put("kind", crd.get("kind"));
                gvk.put("version", crd.get("version"));
                properties.add(property("olm.gvk", gvk));
            }
            Map<String, Object> bundle = new LinkedHashMap<>();
            bundle.put("schema", "olm.bundle");
            bundle.put("name", Release.csvName(version));
            bundle.put("package", ManifestAssembly.NAME);
            bundle.put("image", Release.BUNDLE_IMAGE_REPOSITORY + ":v" + version);
            bundle.put("properties", properties);
            documents.add(bundle);
        }
        return documents;
    }

    private static Map<String, Object> property(String type, Map<String, Object> value) {
        Map<String, Object> property = new LinkedHashMap<>();
        property.put("type", type);
        property.put("value", new java.util.TreeMap<>(value));
        return property;
    }
}
