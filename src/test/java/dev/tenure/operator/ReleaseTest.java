package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
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

    private static final String RECORDED = """
            version=0.1.0
            history=
            created-at=2026-11-24T03:40:00Z
            """;

    @ParameterizedTest(name = "VERSION={0} on a {1} pom: exit {2}, version {3}, history {4}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            -              | 0.1.0-SNAPSHOT | 0 | 0.1.0 | -
            -              | 0.3.0          | 0 | 0.3.0 | 0.1.0
            0.2.0          | 0.1.0-SNAPSHOT | 0 | 0.2.0 | 0.1.0
            0.1.0          | 0.1.0-SNAPSHOT | 0 | 0.1.0 | -
            0.2.0-SNAPSHOT | 0.1.0-SNAPSHOT | 1 | 0.1.0 | -
            1.0            | 0.1.0-SNAPSHOT | 1 | 0.1.0 | -
            0.2.0-rc.1     | 0.1.0-SNAPSHOT | 1 | 0.1.0 | -
            0.0.9          | 0.1.0-SNAPSHOT | 1 | 0.1.0 | -
            """)
    void releaseScriptRecordsReleasesAndRefusesSnapshots(
            String requested, String pomVersion, int exit, String version, String history, @TempDir Path project)
            throws Exception {
        Files.createDirectories(project.resolve("bin"));
        Files.copy(Path.of("bin", "release"), project.resolve("bin/release"));
        project.resolve("bin/release").toFile().setExecutable(true);
        Files.writeString(
                project.resolve("pom.xml"),
                "<project>\n  <groupId>dev.tenure</groupId>\n  <version>" + pomVersion + "</version>\n</project>\n");
        Path properties = project.resolve("src/main/olm/release.properties");
        Files.createDirectories(properties.getParent());
        Files.writeString(properties, RECORDED);

        List<String> command = requested == null
                ? List.of(project.resolve("bin/release").toString())
                : List.of(project.resolve("bin/release").toString(), requested);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.exitValue()).as(output).isEqualTo(exit);

        String after = Files.readString(properties);
        assertThat(after)
                .contains("version=" + version + "\n")
                .contains("history=" + (history == null ? "" : history) + "\n");
        if (exit != 0 || version.equals("0.1.0")) {
            assertThat(after).isEqualTo(RECORDED);
        } else {
            assertThat(after).doesNotContain("created-at=2026-11-24T03:40:00Z");
        }
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
        Map<String, Object> csv = ManifestAssembly.parseAll("""
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
        List<Map<String, Object>> catalog = Catalog.of(released, release, List.of("alpha"));
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
    }
}
