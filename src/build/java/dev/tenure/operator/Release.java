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
 * the icon, and the digests of the images built for it. It turns the generator's snapshot-named CSV into a
 * release one: name, version, image reference, {@code relatedImages}, {@code replaces}/{@code olm.skipRange},
 * {@code createdAt}, icon and the OpenShift feature annotations.
 *
 * <p>With digests recorded ({@code make bundle VERSION=x.y.z OPERATOR_DIGEST=sha256:… BUNDLE_DIGEST=sha256:…})
 * every image is named by digest, so what a catalog installs is exactly what was built and tested; without
 * them (a release not yet built, like the first one recorded) the images are named by tag.
 *
 * @param version semver without pre-release ("0.1.0"), never a SNAPSHOT
 * @param history earlier releases of the channel, oldest first
 * @param createdAt ISO instant the release was cut
 * @param iconSvg the icon, SVG text
 * @param operatorDigest digest of the operator image built for this release ({@code sha256:<64 hex>}), or null
 * @param bundleDigest digest of the bundle image built from olm-bundle/ ({@code sha256:<64 hex>}), or null
 */
public record Release(
        String version,
        List<String> history,
        String createdAt,
        String iconSvg,
        String operatorDigest,
        String bundleDigest) {

    /** An image digest as registries report it and OLM accepts it in an image reference. */
    static final Pattern DIGEST = Pattern.compile("sha256:[a-f0-9]{64}");

    static final String OPERATOR_IMAGE_NAME = ManifestAssembly.NAME;

    /** Semver 2.0 (what OLM parses spec.version with); a release has no pre-release part. */
    static final Pattern RELEASE_VERSION = Pattern.compile("(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)");

    static final String BUNDLE_IMAGE_REPOSITORY = "ghcr.io/tenure-dev/tenure-operator-bundle";

    /**
     * The features.operators.openshift.io annotations the console and the operatorhub checks read. The
     * operator runs no proxy-sensitive egress beyond the API server and uses no cloud token auth;
     * {@code disconnected} is set by {@link #applyTo}: true only when the images are named by digest.
     */
    static final Map<String, String> FEATURES = featureAnnotations();

    public Release {
        if (!RELEASE_VERSION.matcher(version).matches()) {
            throw new IllegalArgumentException("release version " + version
                    + " is not x.y.z (a SNAPSHOT or pre-release is never a release bundle)");
        }
        for (String[] digest : new String[][] {{"operator-digest", operatorDigest}, {"bundle-digest", bundleDigest}}) {
            if (digest[1] != null && !DIGEST.matcher(digest[1]).matches()) {
                throw new IllegalArgumentException(
                        digest[0] + " " + digest[1] + " is not sha256:<64 lowercase hex> (an image digest)");
            }
        }
        if (bundleDigest != null && operatorDigest == null) {
            throw new IllegalArgumentException("bundle-digest " + bundleDigest
                    + " without an operator-digest: the bundle would name the operator image by tag");
        }
        history = List.copyOf(history);
        for (String earlier : history) {
            if (!RELEASE_VERSION.matcher(earlier).matches() || compare(earlier, version) >= 0) {
                throw new IllegalArgumentException("history entry " + earlier + " is not a release before " + version);
            }
        }
    }

    /** A release whose images are named by tag (not built yet). */
    public Release(String version, List<String> history, String createdAt, String iconSvg) {
        this(version, history, createdAt, iconSvg, null, null);
    }

    /** This release with its images' digests. */
    Release pinned(String operatorDigest, String bundleDigest) {
        return new Release(version, history, createdAt, iconSvg, operatorDigest, bundleDigest);
    }

    /** Whether the operator image is named by digest (the bundle and plain manifests install what was built). */
    boolean pinned() {
        return operatorDigest != null;
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
                Files.readString(olmDir.resolve("icon.svg")).strip(),
                blankToNull(p.getProperty("operator-digest")),
                blankToNull(p.getProperty("bundle-digest")));
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
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

    /** The bundle image: by digest once built, else by its release tag. */
    String bundleImage() {
        return bundleDigest != null
                ? BUNDLE_IMAGE_REPOSITORY + "@" + bundleDigest
                : BUNDLE_IMAGE_REPOSITORY + ":v" + version;
    }

    /** The image reference of {@code image}'s repository for this release: by digest once built, else by tag. */
    String image(String image) {
        String repository = repository(image);
        return operatorDigest != null ? repository + "@" + operatorDigest : repository + ":" + version;
    }

    /** The repository of an image reference, without tag or digest. */
    static String repository(String image) {
        int at = image.indexOf('@');
        String withoutDigest = at >= 0 ? image.substring(0, at) : image;
        int slash = withoutDigest.lastIndexOf('/');
        int colon = withoutDigest.lastIndexOf(':');
        return colon > slash ? withoutDigest.substring(0, colon) : withoutDigest;
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
        // Disconnected (mirrored) installs need every image named by digest in relatedImages.
        annotations.put("features.operators.openshift.io/disconnected", String.valueOf(pinned()));
        String operatorImage = image(String.valueOf(annotations.get("containerImage")));
        annotations.put("containerImage", operatorImage);
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
        // What a mirror must copy for this bundle to install (oc adm catalog mirror, opm render).
        Map<String, Object> related = new LinkedHashMap<>();
        related.put("name", OPERATOR_IMAGE_NAME);
        related.put("image", operatorImage);
        spec.put("relatedImages", List.of(related));
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
