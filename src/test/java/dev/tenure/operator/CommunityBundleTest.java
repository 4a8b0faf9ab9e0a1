package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 39: {@code make community-bundle VERSION=…} ({@code bin/community-bundle}) writes the committed bundle in the
 * community-operators layout, and that layout passes the static checks the community pipeline runs on a pull
 * request (redhat-openshift-ecosystem/operator-pipelines, {@code operatorcert/static_tests/community}): the layout
 * and {@code ci.yaml}, {@code check_required_fields} (fatal and warning rows alike), {@code check_operator_name},
 * {@code check_api_version_constraints} (minKubeVersion against {@code com.redhat.openshift.versions}), and the
 * update graph checks ({@code check_dangling_bundles}, {@code check_upgrade_graph_loop}: the CSV replaces an
 * earlier release). {@code operator-sdk bundle validate}'s operatorhub suite is BundleValidationTest's part.
 */
class CommunityBundleTest {

    private static final String PACKAGE = "tenure-operator";
    /** validations.py CAPABILITIES and CATEGORIES. */
    private static final Set<String> CAPABILITIES =
            Set.of("Basic Install", "Seamless Upgrades", "Full Lifecycle", "Deep Insights", "Auto Pilot");

    private static final Set<String> CATEGORIES = Set.of(
            "AI/Machine Learning",
            "Application Runtime",
            "Big Data",
            "Cloud Provider",
            "Developer Tools",
            "Database",
            "Drivers and plugins",
            "Integration & Delivery",
            "Logging & Tracing",
            "Modernization & Migration",
            "Monitoring",
            "Networking",
            "OpenShift Optional",
            "Security",
            "Storage",
            "Streaming & Messaging");
    /** The pipeline's OCP_TO_K8S_SEMVER, the rows this bundle can meet. */
    private static final Map<String, String> OPENSHIFT_TO_KUBERNETES =
            Map.of("4.16", "1.29", "4.17", "1.30", "4.18", "1.31", "4.19", "1.32", "4.20", "1.33");

    private static final Pattern SEMVER =
            Pattern.compile("(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?");

    @TempDir
    static Path out;

    static Release release;
    static Path operator;
    static Path bundle;

    @BeforeAll
    static void writeTheLayout() throws Exception {
        release = Release.read(Path.of("src/main/olm"));
        assertThat(run(release.version(), out)).isZero();
        operator = out.resolve("operators").resolve(PACKAGE);
        bundle = operator.resolve(release.version());
    }

    @Test
    void layoutIsOperatorsPackageVersionWithManifestsMetadataAndCiYaml() throws IOException {
        try (Stream<Path> entries = Files.list(operator)) {
            assertThat(entries.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(release.version(), "ci.yaml");
        }
        try (Stream<Path> entries = Files.list(bundle)) {
            assertThat(entries.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("manifests", "metadata");
        }
        try (Stream<Path> manifests = Files.list(bundle.resolve("manifests"))) {
            for (Path manifest : manifests.toList()) {
                assertThat(manifest)
                        .as("the committed bundle's manifest, unchanged")
                        .hasSameTextualContentAs(
                                Path.of("olm-bundle", "manifests").resolve(manifest.getFileName()));
            }
        }
        Map<String, Object> ci = ManifestAssembly.parseAll(Files.readString(operator.resolve("ci.yaml")))
                .get(0);
        assertThat(ci.get("updateGraph")).isIn("replaces-mode", "semver-mode", "semver-skippatch-mode");
        assertThat(ci.get("reviewers")).isInstanceOf(List.class);
        Map<String, Object> annotations = annotations();
        assertThat(annotations)
                .containsEntry("operators.operatorframework.io.bundle.package.v1", PACKAGE)
                .containsEntry("operators.operatorframework.io.bundle.manifests.v1", "manifests/")
                .containsEntry("operators.operatorframework.io.bundle.metadata.v1", "metadata/");
        List<String> channels =
                List.of(String.valueOf(annotations.get("operators.operatorframework.io.bundle.channels.v1"))
                        .split(","));
        assertThat(channels)
                .contains(String.valueOf(annotations.get("operators.operatorframework.io.bundle.channel.default.v1")));
    }

    /** check_required_fields, every row (fatal or warning): the pipeline passes it without a word. */
    @Test
    void csvHasEveryRequiredFieldInTheFormThePipelineChecks() throws IOException {
        Map<String, Object> csv = csv();
        assertThat(this.<String>at(csv, "metadata", "annotations", "capabilities"))
                .isIn(CAPABILITIES);
        assertThat(Stream.of(this.<String>at(csv, "metadata", "annotations", "categories")
                                .split(","))
                        .map(String::strip))
                .allSatisfy(c -> assertThat(c).isIn(CATEGORIES));
        assertThat(this.<String>at(csv, "metadata", "annotations", "containerImage"))
                .matches("([^/]+/){1,}[^/:]+:.+");
        assertThat(OffsetDateTime.parse(at(csv, "metadata", "annotations", "createdAt")))
                .isNotNull();
        assertThat(this.<String>at(csv, "metadata", "annotations", "repository"))
                .matches("https?://.+");
        assertThat(this.<String>at(csv, "metadata", "annotations", "support")).hasSizeGreaterThanOrEqualTo(3);
        assertThat(this.<String>at(csv, "metadata", "annotations", "alm-examples"))
                .hasSizeGreaterThanOrEqualTo(30);
        assertThat(this.<String>at(csv, "metadata", "annotations", "description"))
                .hasSizeGreaterThanOrEqualTo(10);
        assertThat(this.<String>at(csv, "spec", "displayName")).hasSizeBetween(3, 50);
        assertThat(this.<String>at(csv, "spec", "description")).hasSizeGreaterThanOrEqualTo(20);
        List<Map<String, Object>> icons = at(csv, "spec", "icon");
        assertThat(icons).isNotEmpty().allSatisfy(icon -> {
            assertThat(Base64.getDecoder().decode(String.valueOf(icon.get("base64data"))))
                    .isNotEmpty();
            assertThat(icon.get("mediatype")).isIn("image/png", "image/jpeg", "image/gif", "image/svg+xml");
        });
        assertThat(this.<String>at(csv, "spec", "version")).matches(SEMVER).isEqualTo(release.version());
        List<Map<String, Object>> maintainers = at(csv, "spec", "maintainers");
        assertThat(maintainers).isNotEmpty().allSatisfy(m -> assertThat(m).containsKeys("name", "email"));
        assertThat(this.<String>at(csv, "spec", "provider", "name")).hasSizeGreaterThanOrEqualTo(3);
        List<Map<String, Object>> links = at(csv, "spec", "links");
        assertThat(links).isNotEmpty().allSatisfy(l -> assertThat(l).containsKeys("name", "url"));
        List<Object> keywords = at(csv, "spec", "keywords");
        assertThat(keywords).isNotEmpty().allSatisfy(k -> assertThat(k).isInstanceOf(String.class));
        // check_operator_name: one operator name; the directory's version is the CSV's
        assertThat(this.<String>at(csv, "metadata", "name")).isEqualTo(PACKAGE + ".v" + release.version());
        // OperatorHub's platform filter (issue 39)
        assertThat(this.<Map<String, Object>>at(csv, "metadata", "labels"))
                .containsEntry("operatorframework.io/os.linux", "supported")
                .containsEntry("operatorframework.io/arch.amd64", "supported")
                .containsEntry("operatorframework.io/arch.arm64", "supported");
    }

    /** check_api_version_constraints: with minKubeVersion set, the OpenShift range is set and none below it. */
    @Test
    void openShiftVersionRangeStartsAtTheMinimumKubernetes() throws IOException {
        String minKube = at(csv(), "spec", "minKubeVersion");
        String range = String.valueOf(annotations().get("com.redhat.openshift.versions"));
        assertThat(range).as("com.redhat.openshift.versions").matches("v4\\.\\d+");
        String kubernetes = OPENSHIFT_TO_KUBERNETES.get(range.substring(1));
        assertThat(kubernetes).as("known OpenShift " + range).isNotNull();
        assertThat(Release.compare(kubernetes + ".0", minKube))
                .as(range + " runs Kubernetes " + kubernetes)
                .isGreaterThanOrEqualTo(0);
        String previous = "4." + (Integer.parseInt(range.substring(3)) - 1);
        assertThat(Release.compare(OPENSHIFT_TO_KUBERNETES.get(previous) + ".0", minKube))
                .as("the range starts at the first OpenShift that can run it")
                .isLessThan(0);
    }

    /** check_dangling_bundles / check_upgrade_graph_loop in replaces-mode: the CSV replaces the release before it. */
    @Test
    void csvReplacesTheReleaseBeforeIt() throws IOException {
        Object replaces = at(csv(), "spec", "replaces");
        if (release.previous() == null) {
            assertThat(replaces).as("the first release replaces nothing").isNull();
        } else {
            assertThat(replaces).isEqualTo(PACKAGE + ".v" + release.previous());
        }
    }

    @Test
    void aVersionOtherThanTheCommittedBundlesIsRefused(@TempDir Path elsewhere) throws Exception {
        assertThat(run("9.9.9", elsewhere)).isEqualTo(1);
        assertThat(elsewhere.resolve("operators")).doesNotExist();
    }

    private static int run(String version, Path into) throws Exception {
        Process process = new ProcessBuilder("bin/community-bundle", version, into.toString())
                .redirectErrorStream(true)
                .start();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(output)
                .as("bin/community-bundle says what it did or why not")
                .isNotBlank();
        return process.exitValue();
    }

    private static Map<String, Object> annotations() throws IOException {
        return ManifestAssembly.at(
                ManifestAssembly.parseAll(Files.readString(bundle.resolve("metadata/annotations.yaml")))
                        .get(0),
                "annotations");
    }

    private static Map<String, Object> csv() throws IOException {
        return ManifestAssembly.parseAll(
                        Files.readString(bundle.resolve("manifests").resolve(PACKAGE + ".clusterserviceversion.yaml")))
                .get(0);
    }

    @SuppressWarnings("TypeParameterUnusedInFormals") // a YAML path lookup: the caller names the type it expects
    private <T> T at(Map<String, Object> root, String... keys) {
        return ManifestAssembly.at(root, keys);
    }
}
