package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Release versioning of the bundle (issue 18.1): bin/release, which `make bundle VERSION=…` runs, and {@link Release}. */
class ReleaseTest {

    private static final String R_OPERATOR = "sha256:" + "1".repeat(64);
    private static final String R_BUNDLE = "sha256:" + "2".repeat(64);
    private static final Map<String, String> DIGESTS =
            Map.of("A", "sha256:" + "a".repeat(64), "B", "sha256:" + "b".repeat(64), "R", R_OPERATOR, "RB", R_BUNDLE);

    /** The recorded release 0.1.0: {@code none} (by tag), {@code operator} (operator digest R) or {@code both}. */
    private static String recorded(String pinned) {
        return """
                version=0.1.0
                history=
                created-at=2026-11-24T03:40:00Z
                operator-digest=%s
                bundle-digest=%s
                """.formatted(pinned.equals("none") ? "" : R_OPERATOR, pinned.equals("both") ? R_BUNDLE : "");
    }

    /**
     * {@code generated}: what the committed olm-bundle/ CSV is when the step runs: release 0.1.0 naming the operator
     * image by the recorded digest ({@code R}) or by tag ({@code tag}), or no bundle at all ({@code -}). A
     * BUNDLE_DIGEST is taken only for a bundle generated for the recorded release and operator digest: one given
     * with a new VERSION or a new OPERATOR_DIGEST names a bundle this step has yet to generate (issue 39).
     */
    @ParameterizedTest(
            name = "VERSION={0} pom {1} OPERATOR_DIGEST={2} BUNDLE_DIGEST={3} recorded {4}, bundle names {5}: exit {6},"
                    + " {7}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            -              | 0.1.0-SNAPSHOT | -   | - | both     | R   | 0 | 0.1.0 | -     | R | RB
            -              | 0.3.0          | A   | - | both     | R   | 0 | 0.3.0 | 0.1.0 | A | -
            0.2.0          | 0.1.0-SNAPSHOT | A   | - | both     | R   | 0 | 0.2.0 | 0.1.0 | A | -
            0.2.0          | 0.1.0-SNAPSHOT | A   | B | both     | R   | 1 | 0.1.0 | -     | R | RB
            0.2.0          | 0.1.0-SNAPSHOT | -   | - | both     | R   | 1 | 0.1.0 | -     | R | RB
            -              | 0.3.0          | -   | - | both     | R   | 1 | 0.1.0 | -     | R | RB
            0.2.0          | 0.1.0-SNAPSHOT | A   | - | none     | tag | 1 | 0.1.0 | -     | - | -
            0.2.0          | 0.1.0-SNAPSHOT | A   | - | operator | R   | 1 | 0.1.0 | -     | R | -
            0.2.0          | 0.1.0-SNAPSHOT | bad | - | both     | R   | 1 | 0.1.0 | -     | R | RB
            0.1.0          | 0.1.0-SNAPSHOT | -   | - | both     | R   | 0 | 0.1.0 | -     | R | RB
            0.1.0          | 0.1.0-SNAPSHOT | A   | - | none     | tag | 0 | 0.1.0 | -     | A | -
            0.1.0          | 0.1.0-SNAPSHOT | A   | B | none     | tag | 1 | 0.1.0 | -     | - | -
            0.1.0          | 0.1.0-SNAPSHOT | A   | - | both     | R   | 0 | 0.1.0 | -     | A | -
            0.1.0          | 0.1.0-SNAPSHOT | A   | B | operator | R   | 1 | 0.1.0 | -     | R | -
            0.1.0          | 0.1.0-SNAPSHOT | -   | B | operator | R   | 0 | 0.1.0 | -     | R | B
            0.1.0          | 0.1.0-SNAPSHOT | R   | B | operator | R   | 0 | 0.1.0 | -     | R | B
            0.1.0          | 0.1.0-SNAPSHOT | -   | B | operator | tag | 1 | 0.1.0 | -     | R | -
            0.1.0          | 0.1.0-SNAPSHOT | -   | B | operator | -   | 1 | 0.1.0 | -     | R | -
            0.1.0          | 0.1.0-SNAPSHOT | -   | B | none     | tag | 1 | 0.1.0 | -     | - | -
            -              | 0.1.0-SNAPSHOT | A   | - | both     | R   | 1 | 0.1.0 | -     | R | RB
            0.2.0-SNAPSHOT | 0.1.0-SNAPSHOT | A   | - | both     | R   | 1 | 0.1.0 | -     | R | RB
            1.0            | 0.1.0-SNAPSHOT | A   | - | both     | R   | 1 | 0.1.0 | -     | R | RB
            0.2.0-rc.1     | 0.1.0-SNAPSHOT | A   | - | both     | R   | 1 | 0.1.0 | -     | R | RB
            0.0.9          | 0.1.0-SNAPSHOT | A   | - | both     | R   | 1 | 0.1.0 | -     | R | RB
            """)
    void releaseScriptRecordsDigestPinnedReleasesAndRefusesTagOnlyOnes(
            String requested,
            String pomVersion,
            String operatorDigest,
            String bundleDigest,
            String recordedPinned,
            String generated,
            int exit,
            String version,
            String history,
            String operatorAfter,
            String bundleAfter,
            @TempDir Path project)
            throws Exception {
        Files.createDirectories(project.resolve("bin"));
        Files.copy(Path.of("bin", "release"), project.resolve("bin/release"));
        project.resolve("bin/release").toFile().setExecutable(true);
        Files.writeString(
                project.resolve("pom.xml"),
                "<project>\n  <groupId>dev.tenure</groupId>\n  <version>" + pomVersion + "</version>\n</project>\n");
        Path properties = project.resolve("src/main/olm/release.properties");
        Files.createDirectories(properties.getParent());
        String before = recorded(recordedPinned);
        Files.writeString(properties, before);
        if (generated != null) {
            Path csv = project.resolve("olm-bundle/manifests/tenure-operator.clusterserviceversion.yaml");
            Files.createDirectories(csv.getParent());
            Files.writeString(csv, """
                    metadata:
                      annotations:
                        containerImage: "%s"
                    spec:
                      version: "0.1.0"
                    """.formatted(
                            generated.equals("R")
                                    ? "ghcr.io/tenure-dev/tenure-operator@" + R_OPERATOR
                                    : "ghcr.io/tenure-dev/tenure-operator:0.1.0"));
        }

        List<String> command = requested == null
                ? List.of(project.resolve("bin/release").toString())
                : List.of(project.resolve("bin/release").toString(), requested);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("OPERATOR_DIGEST");
        builder.environment().remove("BUNDLE_DIGEST");
        if (operatorDigest != null) {
            builder.environment().put("OPERATOR_DIGEST", DIGESTS.getOrDefault(operatorDigest, operatorDigest));
        }
        if (bundleDigest != null) {
            builder.environment().put("BUNDLE_DIGEST", DIGESTS.getOrDefault(bundleDigest, bundleDigest));
        }
        Process process = builder.start();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(output).isEqualTo(exit);

        String after = Files.readString(properties);
        assertThat(after)
                .contains("version=" + version + "\n")
                .contains("history=" + (history == null ? "" : history) + "\n")
                .contains("operator-digest=" + (operatorAfter == null ? "" : DIGESTS.get(operatorAfter)) + "\n")
                .contains("bundle-digest=" + (bundleAfter == null ? "" : DIGESTS.get(bundleAfter)) + "\n");
        if (exit != 0) {
            assertThat(after).as("a refused release changes nothing").isEqualTo(before);
        }
        if (exit != 0 && requested != null && !requested.equals("0.1.0") && "A".equals(operatorDigest)) {
            assertThat(output).isNotBlank();
        }
        if (bundleDigest != null && exit == 1) {
            assertThat(output).contains("BUNDLE_DIGEST");
        }
        if (operatorDigest == null && exit == 1 && "0.2.0".equals(requested)) {
            assertThat(output).contains("refusing a tag-only release").contains("OPERATOR_DIGEST");
        }
    }

    /** `make bundle VERSION=… OPERATOR_DIGEST=… BUNDLE_DIGEST=…` hands the digests to bin/release (dry run). */
    @Test
    void makeBundlePassesTheDigestsToTheReleaseStep() throws Exception {
        String operator = "sha256:" + "a".repeat(64);
        String bundle = "sha256:" + "b".repeat(64);
        ProcessBuilder builder = new ProcessBuilder(
                        "make",
                        "-n",
                        "--no-print-directory",
                        "bundle",
                        "VERSION=0.2.0",
                        "OPERATOR_DIGEST=" + operator,
                        "BUNDLE_DIGEST=" + bundle)
                .redirectErrorStream(true);
        // under `make test` the parent make's flags (-w: "Entering directory") and level would leak in
        builder.environment().remove("MAKEFLAGS");
        builder.environment().remove("MFLAGS");
        builder.environment().remove("MAKELEVEL");
        Process make = builder.start();
        assertThat(make.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String commands = new String(make.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(make.exitValue()).as(commands).isZero();
        assertThat(commands.lines().findFirst().orElse(""))
                .isEqualTo("OPERATOR_DIGEST=" + operator + " BUNDLE_DIGEST=" + bundle + " bin/release 0.2.0");
    }

    @Test
    void digestsNameEveryImageOfTheRelease() {
        String operator = "sha256:" + "a".repeat(64);
        String bundle = "sha256:" + "b".repeat(64);
        Release release = new Release("0.2.0", List.of("0.1.0"), "2026-11-24T00:00:00Z", "<svg/>", operator, bundle);
        Map<String, Object> released = release.applyTo(snapshotCsv());
        String pinned = "ghcr.io/tenure-dev/tenure-operator@" + operator;
        assertThat(ManifestAssembly.<String>at(released, "metadata", "annotations", "containerImage"))
                .isEqualTo(pinned);
        assertThat(ManifestAssembly.<String>at(
                        released, "metadata", "annotations", "features.operators.openshift.io/disconnected"))
                .isEqualTo("true");
        assertThat(ManifestAssembly.<List<Map<String, Object>>>at(released, "spec", "relatedImages"))
                .containsExactly(Map.of("name", "tenure-operator", "image", pinned));
        List<Map<String, Object>> containers = ManifestAssembly.at(
                ManifestAssembly.<List<Map<String, Object>>>at(released, "spec", "install", "spec", "deployments")
                        .get(0),
                "spec",
                "template",
                "spec",
                "containers");
        assertThat(containers.get(0).get("image")).isEqualTo(pinned);
        Map<String, Object> deployment = ManifestAssembly.withReleaseImage(
                Map.of(
                        "kind",
                        "Deployment",
                        "spec",
                        Map.of(
                                "template",
                                Map.of(
                                        "spec",
                                        Map.of(
                                                "containers",
                                                List.of(Map.of(
                                                        "name",
                                                        "tenure-operator",
                                                        "image",
                                                        "ghcr.io/tenure-dev/tenure-operator:0.1.0-SNAPSHOT")))))),
                release);
        assertThat(ManifestAssembly.<List<Map<String, Object>>>at(deployment, "spec", "template", "spec", "containers")
                        .get(0)
                        .get("image"))
                .isEqualTo(pinned);

        Map<String, Object> entry = Catalog.bundle(released, List.of(), release);
        assertThat(entry.get("image")).isEqualTo("ghcr.io/tenure-dev/tenure-operator-bundle@" + bundle);
        assertThat(ManifestAssembly.<List<Map<String, Object>>>at(entry, "relatedImages"))
                .extracting(i -> i.get("image"))
                .containsExactlyInAnyOrder("ghcr.io/tenure-dev/tenure-operator-bundle@" + bundle, pinned);
        assertThat(ManifestAssembly.toYaml(List.of(released, entry))).doesNotContain("tenure-operator:0.");
    }

    @Test
    void aDigestIsALowercaseSha256() {
        for (String malformed :
                List.of("sha256:abc", "sha256:" + "A".repeat(64), "sha512:" + "0".repeat(64), "latest", "0.1.0")) {
            assertThatThrownBy(() -> new Release("0.1.0", List.of(), "2026-11-24T00:00:00Z", "<svg/>", malformed, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("operator-digest " + malformed);
        }
        assertThatThrownBy(() -> new Release(
                        "0.1.0", List.of(), "2026-11-24T00:00:00Z", "<svg/>", null, "sha256:" + "b".repeat(64)))
                .hasMessageContaining("without an operator-digest");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.1.0-SNAPSHOT", "0.1", "v0.1.0", "0.1.0-rc.1"})
    void aReleaseIsNeverASnapshotOrPreRelease(String version) {
        assertThatThrownBy(() -> new Release(version, List.of(), "2026-11-24T00:00:00Z", "<svg/>"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(version);
    }

    @Test
    void historyMustPrecedeTheRelease() {
        assertThatThrownBy(() -> new Release("0.2.0", List.of("0.3.0"), "2026-11-24T00:00:00Z", "<svg/>"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void csvIsReleaseShaped() throws IOException {
        Release release = new Release("0.3.0", List.of("0.1.0", "0.2.0"), "2026-11-24T00:00:00Z", "<svg/>");
        Map<String, Object> csv = snapshotCsv();
        Map<String, Object> released = release.applyTo(csv);
        assertThat(ManifestAssembly.<String>at(released, "metadata", "name")).isEqualTo("tenure-operator.v0.3.0");
        assertThat(ManifestAssembly.<String>at(released, "spec", "version")).isEqualTo("0.3.0");
        assertThat(ManifestAssembly.<String>at(released, "spec", "replaces")).isEqualTo("tenure-operator.v0.2.0");
        assertThat(ManifestAssembly.<String>at(released, "metadata", "annotations", "olm.skipRange"))
                .isEqualTo("<0.3.0");
        assertThat(ManifestAssembly.<String>at(released, "metadata", "annotations", "createdAt"))
                .isEqualTo("2026-11-24T00:00:00Z");
        assertThat(ManifestAssembly.<String>at(released, "metadata", "annotations", "containerImage"))
                .isEqualTo("ghcr.io/tenure-dev/tenure-operator:0.3.0");
        assertThat(ManifestAssembly.toYaml(List.of(released))).doesNotContain("SNAPSHOT", "snapshot");
        List<Map<String, Object>> committed = List.of(frozen("0.1.0"), frozen("0.2.0"));
        List<Map<String, Object>> catalog = Catalog.of(released, List.of(), release, List.of("alpha"), committed);
        Map<String, Object> channel = catalog.stream()
                .filter(d -> "olm.channel".equals(d.get("schema")))
                .findFirst()
                .orElseThrow();
        assertThat(ManifestAssembly.<List<Map<String, Object>>>at(channel, "entries"))
                .extracting(e -> e.get("name") + "<-" + e.get("replaces"))
                .containsExactly(
                        "tenure-operator.v0.1.0<-null",
                        "tenure-operator.v0.2.0<-tenure-operator.v0.1.0",
                        "tenure-operator.v0.3.0<-tenure-operator.v0.2.0");
        // Earlier releases' entries are the committed ones, as they were; only this release's is generated.
        assertThat(catalog)
                .filteredOn(d -> "olm.bundle".equals(d.get("schema")))
                .hasSize(3);
        assertThat(catalog).contains(committed.get(0), committed.get(1));
        assertThatThrownBy(() -> Catalog.of(released, List.of(), release, List.of("alpha"), List.of(frozen("0.2.0"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("tenure-operator.v0.1.0");
    }

    /** A committed catalog entry of an earlier release, with content no generator would write. */
    private static Map<String, Object> frozen(String version) {
        return Map.of(
                "schema",
                "olm.bundle",
                "name",
                "tenure-operator.v" + version,
                "package",
                "tenure-operator",
                "image",
                "ghcr.io/tenure-dev/tenure-operator-bundle@sha256:" + "0".repeat(63) + version.charAt(2),
                "properties",
                List.of(Map.of("type", "olm.gvk", "value", Map.of("kind", "OldKind"))));
    }

    private static Map<String, Object> snapshotCsv() {
        return ManifestAssembly.parseAll("""
                apiVersion: operators.coreos.com/v1alpha1
                kind: ClusterServiceVersion
                metadata:
                  name: tenure-operator.v0.1.0-snapshot
                  annotations: {containerImage: "ghcr.io/tenure-dev/tenure-operator:0.1.0-SNAPSHOT"}
                spec:
                  version: 0.1.0-SNAPSHOT
                  install:
                    spec:
                      deployments:
                      - name: tenure-operator
                        spec: {template: {spec: {containers: [{name: tenure-operator, image: "ghcr.io/tenure-dev/tenure-operator:0.1.0-SNAPSHOT"}]}}}
                """).get(0);
    }
}
