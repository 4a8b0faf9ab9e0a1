package dev.tenure.operator;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The release the bundle and catalog describe ({@code src/main/olm/release.properties}, written by
 * {@code make bundle VERSION=x.y.z}): version, the earlier releases of the channel, when it was cut, and
 * the icon. It turns the generator's snapshot-named CSV into a release one: name, version, image tag,
 * {@code replaces}/{@code olm.skipRange}, {@code createdAt}, icon and the OpenShift feature annotations.
 *
 * @param version semver without pre-release ("0.1.0"), never a SNAPSHOT
 * @param history earlier releases of the channel, oldest first
 * @param createdAt ISO instant the release was cut
 * @param iconSvg the icon, SVG text
 */
public record Release(String version, List<String> history, String createdAt, String iconSvg) {

    /** Semver 2.0 (what OLM parses spec.version with); a release has no pre-release part. */
    static final Pattern RELEASE_VERSION = Pattern.compile("(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)");

    static final String BUNDLE_IMAGE_REPOSITORY = "ghcr.io/tenure-dev/tenure-operator-bundle";

    /**
     * The features.operators.openshift.io annotations the console and the operatorhub checks read. The
     * operator runs no proxy-sensitive egress beyond the API server, uses no cloud token auth, and ships by
     * tag (not digest), so it does not claim disconnected support.
     */
    static final Map<String, String> FEATURES = featureAnnotations();

    public Release {
        if (!RELEASE_VERSION.matcher(version).matches()) {
            throw new IllegalArgumentException("release version " + version
                    + " is not x.y.z (a SNAPSHOT or pre-release is never a release bundle)");
        }
        history = List.copyOf(history);
        for (String earlier : history) {
            if (!RELEASE_VERSION.matcher(earlier).matches() || compare(earlier, version) >= 0) {
                throw new IllegalArgumentException("history entry " + earlier + " is not a release before " + version);
            }
        }
    }

    static Release read(Path olmDir) throws IOException {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(olmDir.resolve("release.properties"))) {
            p.load(in);
        }
        List<String> history = Stream.of(p.getProperty("history", "").split(","))
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .toList();
        return new Release(
                p.getProperty("version", "").strip(),
                history,
                p.getProperty("created-at", "").strip(),
                Files.readString(olmDir.resolve("icon.svg")).strip());
    }

    String csvName() {
        return csvName(version);
    }

    static String csvName(String version) {
        return ManifestAssembly.NAME + ".v" + version;
    }

    /** The release before this one, which it replaces; null for the first. */
    String previous() {
        return history.isEmpty() ? null : history.get(history.size() - 1);
    }

    /** Every older release upgrades straight to this one (no walk through each). */
    String skipRange() {
        return "<" + version;
    }

    String bundleImage() {
        return BUNDLE_IMAGE_REPOSITORY + ":v" + version;
    }

    /** The image reference with its tag replaced by the release version. */
    String image(String image) {
        int slash = image.lastIndexOf('/');
        int colon = image.lastIndexOf(':');
        String repository = colon > slash ? image.substring(0, colon) : image;
        return repository + ":" + version;
    }

    Map<String, Object> icon() {
        Map<String, Object> icon = new LinkedHashMap<>();
        icon.put(
                "base64data",
                Base64.getEncoder().encodeToString(iconSvg.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        icon.put("mediatype", "image/svg+xml");
        return icon;
    }

    /** The completed CSV, release-shaped. */
    @SuppressWarnings("unchecked")
    Map<String, Object> applyTo(Map<String, Object> completedCsv) {
        Map<String, Object> csv = new LinkedHashMap<>(completedCsv);
        Map<String, Object> metadata = new LinkedHashMap<>((Map<String, Object>) csv.get("metadata"));
        metadata.put("name", csvName());
        Map<String, Object> annotations = new LinkedHashMap<>((Map<String, Object>) metadata.get("annotations"));
        annotations.put("createdAt", createdAt);
        annotations.put("olm.skipRange", skipRange());
        annotations.put(
                "description",
                "Safe node maintenance (cordon, leader handover, PDB-respecting drain) "
                        + "and coordinated leader election on Kubernetes Leases.");
        annotations.put("support", "Tenure maintainers");
        annotations.putAll(FEATURES);
        annotations.put("containerImage", image(String.valueOf(annotations.get("containerImage"))));
        metadata.put("annotations", annotations);
        csv.put("metadata", metadata);

        Map<String, Object> spec = new LinkedHashMap<>((Map<String, Object>) csv.get("spec"));
        spec.put("version", version);
        if (previous() != null) {
            spec.put("replaces", csvName(previous()));
        } else {
            spec.remove("replaces");
        }
        spec.put("icon", List.of(icon()));
        List<Map<String, Object>> deployments = ManifestAssembly.at(spec, "install", "spec", "deployments");
        if (deployments != null) {
            for (Map<String, Object> deployment : deployments) {
                List<Map<String, Object>> containers =
                        ManifestAssembly.at(deployment, "spec", "template", "spec", "containers");
                if (containers != null) {
                    containers.stream()
                            .filter(c -> ManifestAssembly.NAME.equals(c.get("name")))
                            .forEach(c -> c.put("image", image(String.valueOf(c.get("image")))));
                }
            }
        }
        csv.put("spec", spec);
        return csv;
    }

    /** Orders release versions numerically. */
    static int compare(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < 3; i++) {
            int c = Long.compare(Long.parseLong(x[i]), Long.parseLong(y[i]));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static Map<String, String> featureAnnotations() {
        Map<String, String> features = new LinkedHashMap<>();
        String prefix = "features.operators.openshift.io/";
        for (String feature : List.of(
                "disconnected",
                "fips-compliant",
                "proxy-aware",
                "tls-profiles",
                "token-auth-aws",
                "token-auth-azure",
                "token-auth-gcp",
                "cnf",
                "cni",
                "csi")) {
            features.put(prefix + feature, "false");
        }
        return features;
    }

    /** Every release of the channel, oldest first, this one last. */
    List<String> allVersions() {
        List<String> all = new ArrayList<>(history);
        all.add(version);
        return all;
    }
}
