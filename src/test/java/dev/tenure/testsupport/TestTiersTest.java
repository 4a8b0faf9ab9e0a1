package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Keeps {@code make test-fast} fast: it runs the tests without the {@code e2e} and {@code chaos} tags, so a test class
 * that starts an emulated cluster or the Quarkus application must carry {@link EndToEnd}, and a chaos suite
 * {@link Chaos}. And a {@link SecondLane} class, which runs beside the others in the one test JVM, shares nothing
 * the JVM holds once: it neither starts the Quarkus application nor sets a system property. Reads the test sources (no ArchUnit): a class is a test class by surefire's includes ({@code *Test},
 * {@code *IT}).
 */
class TestTiersTest {

    private static final Path TESTS = Path.of("src", "test", "java");
    private static final Pattern STARTS_CLUSTER_OR_APP = Pattern.compile(
            "EmulatedCluster\\.start\\(|^@Quarkus(Main|Integration)?Test\\b|^@QuarkusTestResource\\b",
            Pattern.MULTILINE);
    private static final Pattern END_TO_END = Pattern.compile("^@(EndToEnd|Tag\\(\"e2e\"\\))\\s*$", Pattern.MULTILINE);
    private static final Pattern SECOND_LANE =
            Pattern.compile("^@(dev\\.tenure\\.testsupport\\.)?SecondLane\\s*$", Pattern.MULTILINE);
    private static final Pattern SHARES_THE_JVM = Pattern.compile(
            "^@(Quarkus(Main|Integration)?Test|QuarkusTestResource|TestProfile)\\b|System\\.(setProperty|clearProperty|setProperties)\\(",
            Pattern.MULTILINE);
    /** Starts a process: a JVM of the previous release, kubectl, a script, Prometheus. */
    private static final Pattern STARTS_A_PROCESS =
            Pattern.compile("\\bPreviousRelease\\b|\\bProcessBuilder\\b|Runtime\\.getRuntime\\(\\)\\.exec\\(");

    private static final Pattern CHAOS = Pattern.compile("^@(Chaos|Tag\\(\"chaos\"\\))\\s*$", Pattern.MULTILINE);

    @Test
    void everyClusterOrAppTestIsTaggedEndToEnd() throws IOException {
        List<String> untagged = testClasses()
                .filter(f -> f.name.endsWith("IT")
                        || STARTS_CLUSTER_OR_APP.matcher(f.source).find())
                .filter(f -> !END_TO_END.matcher(f.source).find()
                        && !CHAOS.matcher(f.source).find())
                .map(f -> f.name)
                .toList();
        assertThat(untagged)
                .as(
                        "start an emulated cluster or the app, or are *IT, but lack @EndToEnd (make test-fast would run them)")
                .isEmpty();
    }

    @Test
    void everyChaosSuiteIsTaggedChaos() throws IOException {
        List<String> untagged = testClasses()
                .filter(f -> f.name.contains("Chaos") || f.path.startsWith(TESTS.resolve("dev/tenure/chaos")))
                .filter(f -> !CHAOS.matcher(f.source).find())
                .map(f -> f.name)
                .toList();
        assertThat(untagged).as("chaos suites without @Chaos").isEmpty();
    }

    @Test
    void noSecondLaneClassStartsTheAppOrSetsASystemProperty() throws IOException {
        List<String> shared = testClasses()
                .filter(f -> SECOND_LANE.matcher(f.source).find())
                .filter(f -> SHARES_THE_JVM.matcher(f.source).find())
                .map(f -> f.name)
                .toList();
        assertThat(shared)
                .as("@SecondLane classes that start the Quarkus application or set a system property: they would"
                        + " share it with the class running beside them (SecondLane's javadoc)")
                .isEmpty();
    }

    /**
     * A process the class starts has time bounds of its own and no share of the lane's lock: beside a busy first lane
     * {@code UpgradeIT}'s previous release took 33 s to start, lost its lease to a starved renewal and missed its
     * first 60 s stage (docs/development.md, "Where the time goes"). Such a class runs on the first lane.
     */
    @Test
    void noSecondLaneClassStartsAProcess() throws IOException {
        List<String> starting = testClasses()
                .filter(f -> SECOND_LANE.matcher(f.source).find())
                .filter(f -> STARTS_A_PROCESS.matcher(f.source).find())
                .map(f -> f.name)
                .toList();
        assertThat(starting)
                .as(
                        "@SecondLane classes that start a process (a JVM, kubectl, a script): they belong on the first lane")
                .isEmpty();
    }

    /**
     * A first-lane class or method that takes the second lane's lock stops the first lane until the second-lane class
     * running then ends: {@code EmulatedClusterTest}'s Vert.x check did, and waited out 61 s of
     * {@code EvidenceOfDeathIT} in two of three full runs (issue 48; its class took 78.6 s for 15.4 s of tests). Only
     * {@link SecondLane} itself names the lock (this class reads the sources, so it is not counted).
     */
    @Test
    void onlySecondLaneClassesTakeTheSecondLanesLock() throws IOException {
        List<String> taking = testClasses()
                .filter(f -> !f.name.equals(TestTiersTest.class.getSimpleName()))
                .filter(f -> f.source.contains("SecondLane.LOCK") || f.source.contains(SecondLane.LOCK))
                .map(f -> f.name)
                .toList();
        assertThat(taking)
                .as("classes that take the second lane's lock without being @SecondLane: the first lane waits there")
                .isEmpty();
    }

    /**
     * Issue 48: the second lane is on by default, so {@code make test} (and CI through it) uses the time the
     * {@link SecondLane} classes wait; {@code -Dtests.second-lane=false} is for telling whether a red depends on it.
     */
    @Test
    void theSecondLaneIsOnByDefault() throws IOException {
        assertThat(Files.readString(Path.of("pom.xml"))).contains("<tests.second-lane>true</tests.second-lane>");
        assertThat(recipe("test")).doesNotContain("second-lane");
    }

    @Test
    void theScanSeesTheSecondLane() throws IOException {
        assertThat(testClasses()
                        .filter(f -> SECOND_LANE.matcher(f.source).find())
                        .map(f -> f.name))
                .contains("EvidenceOfDeathIT");
    }

    @Test
    void theScanSeesTheTaggedSuites() throws IOException {
        assertThat(testClasses().map(f -> f.name))
                .contains(
                        "OperatorStartIT",
                        "EmulatedClusterTest",
                        "LeaseElectionChaosTest",
                        TestTiersTest.class.getSimpleName());
    }

    /**
     * {@code make test-fast} leaves out what its tests do not need: Quarkus's code generation (it writes nothing here)
     * and Error Prone, and runs the property tests at fewer tries. {@code make test} keeps all of it: Error Prone, every
     * Quarkus step and the pom's tries.
     */
    @Test
    void theFastTierSkipsOnlyWhatItsTestsDoNotNeed() throws IOException {
        assertThat(recipe("test-fast"))
                .contains(
                        "-DexcludedGroups=e2e,chaos",
                        "-Dsurefire.excludesFile=src/test/fast-tier-excludes.txt",
                        "-Dquarkus.generate-code.skip=true",
                        "-Djqwik.tries.default=$(FAST_TRIES)")
                .doesNotContain("-Perrorprone");
        String test = recipe("test");
        assertThat(test).contains("-Perrorprone").doesNotContain("jqwik.tries");
        // the one skip: the build's own formatting gate, which the recipe runs beside the build instead
        assertThat(test).contains("spotless:check", "-Dspotless.check.skip=true");
        // and the verify after the tests keeps what they recorded for the RBAC check (the compile cleared it, first)
        assertThat(test.replace("-Dspotless.check.skip=true", "").replace("-Dmaven.clean.skip=true", ""))
                .doesNotContain(".skip");
        // -Dtest=NoTestHere turns on pom.xml's partial-test-run profile, and the RBAC check would skip its unused-grant
        // half (it did in the first run of this recipe): the verify turns the profile off
        assertThat(test).contains("!partial-test-run verify -Dtest=NoTestHere").doesNotContain("partial-run=true");
    }

    /**
     * {@code make test} runs the formatting gate beside the build and fails when either fails: its recipe run with a
     * stand-in for Maven that fails the one or the other (the set-up step taken as done).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "the formatting gate fails, spotless:check, the formatting gate (spotless:check) failed",
        "the build fails, -Perrorprone, the formatting gate (spotless:check) passed"
    })
    void makeTestFailsWhenTheBuildOrTheFormattingGateFails(String name, String failing, String said, @TempDir Path dir)
            throws Exception {
        Path mvn = dir.resolve("mvn");
        Files.writeString(mvn, "#!/bin/sh\ncase \"$*\" in *" + failing + "*) echo failed; exit 1;; esac\n");
        assertThat(mvn.toFile().setExecutable(true)).isTrue();
        Made make =
                make("-o", "test-tools", "test", "MVN=" + mvn, "TEST_SECOND_JVM_LOG=" + dir.resolve("properties.log"));
        String output = make.output();
        assertThat(make.exit()).as(output).isNotZero();
        assertThat(output).contains(said).as("stopped before verify-generated").doesNotContain("verify-generated]");
    }

    /**
     * {@code make test} runs the jqwik properties (and the waiting classes listed with them) in a second test JVM beside
     * the first one's Jupiter classes (issue 48: in one JVM the JUnit Platform ran them after both lanes, alone), and
     * fails when either half fails, or the compile
     * before them, or the verify after them (the package and the RBAC check over both halves' recordings): its recipe
     * run with a stand-in for Maven. Each half's stand-in waits up to 20 s for the other's to have started, so a
     * recipe that ran them one after the other (either first), or lost a half, fails here.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "the compile fails, process-test-classes, make test: the formatting gate (spotless:check) passed",
        "the second test JVM fails, GeneratedInputIT, the second test JVM (src/test/second-test-jvm.txt) failed",
        "the Jupiter half fails, surefire.excludesFile, the second test JVM passed",
        "the verify after the tests fails, NoTestHere, the second test JVM passed",
        "nothing fails, nothing, the second test JVM passed"
    })
    void makeTestRunsThePropertiesBesideTheOtherTestsAndFailsWhenEitherFails(
            String name, String failing, String said, @TempDir Path dir) throws Exception {
        Path mvn = dir.resolve("mvn");
        Path propertiesStarted = dir.resolve("properties-started");
        Path jupiterStarted = dir.resolve("jupiter-started");
        Path calls = dir.resolve("calls");
        // each half's stand-in says it started, then waits up to 20 s for the other's: one after the other, either way
        // round, the first of them never sees the second start
        String waitFor = " i=0; while [ ! -e %s ]; do i=$((i+1)); [ $i -gt 200 ] && { echo 'the %s did not start"
                + " beside the %s'; exit 1; }; sleep 0.1; done;;";
        Files.writeString(
                mvn,
                "#!/bin/sh\n"
                        + "echo \"mvn $*\" >> " + calls + "\n"
                        + "case \"$*\" in *GeneratedInputIT*) touch " + propertiesStarted + ";"
                        + waitFor.formatted(jupiterStarted, "other tests", "properties") + " esac\n"
                        + "case \"$*\" in *surefire.excludesFile*) touch " + jupiterStarted + ";"
                        + waitFor.formatted(propertiesStarted, "properties", "other tests") + " esac\n"
                        + "case \"$*\" in *'" + failing + "'*) echo failed; exit 1;; esac\n");
        assertThat(mvn.toFile().setExecutable(true)).isTrue();
        Made make = make(
                "-s",
                "-o",
                "test-tools",
                "test",
                "MVN=" + mvn,
                // the recipe's last step, verify-generated, is make again: a stand-in too (the build's output
                // it checks is not there)
                "MAKE=true",
                "TEST_SECOND_JVM_LOG=" + dir.resolve("properties.log"));
        String output = make.output();
        assertThat(output).contains(said).doesNotContain("did not start beside");
        if (failing.equals("nothing")) {
            assertThat(make.exit()).as(output).isZero();
        } else {
            assertThat(make.exit()).as(output).isNotZero();
        }
        List<String> runs = Files.readAllLines(calls);
        if (failing.equals("process-test-classes")) {
            assertThat(runs).as("Maven's runs after a failed compile").noneMatch(r -> r.contains("surefire:test"));
            return;
        }
        assertThat(Files.readString(dir.resolve("properties.log")))
                .as("the properties' output")
                .doesNotContain("did not start beside");
        String properties = runs.stream()
                .filter(r -> r.contains("surefire:test") && r.contains("-Dtest="))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no run of the properties: " + runs));
        assertThat(properties).as("the second test JVM's run").contains(secondJvmClasses());
        assertThat(runs)
                .as("Maven's runs")
                .anyMatch(r -> r.contains("-Perrorprone clean process-test-classes"))
                .anyMatch(r -> r.contains("surefire:test -Dsurefire.excludesFile=src/test/second-test-jvm.txt"));
        boolean verified = runs.stream().anyMatch(r -> r.contains("verify") && r.contains("-Dtest=NoTestHere"));
        assertThat(verified)
                .as("the verify (package, RBAC check) runs only after both halves passed")
                .isEqualTo(!failing.equals("GeneratedInputIT") && !failing.equals("surefire.excludesFile"));
    }

    /**
     * Every jqwik property class is in {@code src/test/second-test-jvm.txt}, which {@code make test} runs in its second
     * test JVM and keeps out of the first: a property class missing there would run after both lanes again. And every
     * class listed is a test class that starts no Quarkus application: the second JVM selects its classes by name so
     * that it builds none (a {@code @QuarkusTest} listed there would build and start its profile's application a
     * second time, beside the first JVM's).
     */
    @Test
    void theSecondTestJvmHoldsEveryPropertyClassAndNoApplication() throws IOException {
        Pattern property = Pattern.compile("^\\s*@Property\\b", Pattern.MULTILINE);
        List<TestClass> classes = testClasses()
                .filter(f -> !f.name.equals(TestTiersTest.class.getSimpleName()))
                .toList();
        List<String> propertyClasses = classes.stream()
                .filter(f -> property.matcher(f.source).find())
                .map(f -> f.name)
                .sorted()
                .toList();
        assertThat(propertyClasses).as("the scan sees the properties").contains("DrainModelPropertyTest");
        List<String> listed = secondJvmClasses();
        assertThat(listed).as("src/test/second-test-jvm.txt").containsAll(propertyClasses);
        assertThat(classes.stream().map(f -> f.name).toList())
                .as("the test classes (a name listed that is none runs nothing)")
                .containsAll(listed);
        Pattern app = Pattern.compile(
                "^@(Quarkus(Main|Integration)?Test|QuarkusTestResource|TestProfile)\\b", Pattern.MULTILINE);
        assertThat(classes.stream()
                        .filter(f ->
                                listed.contains(f.name) && app.matcher(f.source).find())
                        .map(f -> f.name))
                .as("classes of the second test JVM that start the Quarkus application")
                .isEmpty();
    }

    /** The class names of {@code src/test/second-test-jvm.txt}, from its {@code **}{@code /Name.java} lines. */
    private static List<String> secondJvmClasses() throws IOException {
        return Files.readAllLines(Path.of("src", "test", "second-test-jvm.txt")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#"))
                .map(l -> l.replaceFirst("^\\*\\*/", "").replaceFirst("\\.java$", ""))
                .sorted()
                .toList();
    }

    /**
     * Issue 48: {@code make test} is the suite every change runs, so it runs the stress suites at their smoke counts.
     * Fails when a count there creeps back up: the pom's jqwik tries (the drain model's plans), or a default of
     * {@link SuiteCounts}, or a stress count passed by the recipe or the pom, or a suite that reads its count property
     * past {@link SuiteCounts} (with a default of its own).
     */
    @Test
    void makeTestRunsTheStressSuitesAtTheirSmokeCounts() throws IOException {
        assertThat(pomProperty("jqwik.tries.default"))
                .as("pom.xml's jqwik.tries.default: the drain model's plans in make test")
                .isBetween(1, 1000);
        assertThat(SuiteCounts.KILL_TRIALS).as("kill trials in make test").isBetween(1, 20);
        assertThat(SuiteCounts.SURGE_TRIALS)
                .as("surge chaos trials in make test (one round of four side by side)")
                .isBetween(1, 4);
        assertThat(SuiteCounts.CLUSTER_PLANS)
                .as("drain model plans on the cluster in make test")
                .isBetween(1, 5);
        assertThat(SuiteCounts.WINDOW_TRIES)
                .as("generated windows in make test")
                .isBetween(1, 1000);
        assertThat(SuiteCounts.PLACEMENT_CLUSTER_TRIES)
                .as("forecasts checked on the living cluster in make test")
                .isBetween(1, 10);
        assertThat(SuiteCounts.CHAOS_RUNS)
                .as("runs per real-time chaos suite in make test (each over ~20 s of wall time at two)")
                .isEqualTo(1);
        assertThat(SuiteCounts.OPERATOR_TRIALS)
                .as("OperatorChaosIT's fault trials in make test")
                .isEqualTo(1);
        assertThat(SuiteCounts.VIRTUAL_TIME_CHAOS_RUNS)
                .as("ElectionChaosTest's runs in make test (virtual time)")
                .isBetween(1, 6);
        assertThat(recipe("test") + Files.readString(Path.of("pom.xml")))
                .as("make test's recipe and pom.xml pass no stress count")
                .doesNotContain(
                        SuiteCounts.KILL_TRIALS_PROPERTY,
                        SuiteCounts.SURGE_TRIALS_PROPERTY,
                        SuiteCounts.CLUSTER_PLANS_PROPERTY,
                        SuiteCounts.WINDOW_TRIES_PROPERTY,
                        SuiteCounts.PLACEMENT_CLUSTER_TRIES_PROPERTY,
                        SuiteCounts.PLACEMENT_FORECAST_TRIES_PROPERTY,
                        SuiteCounts.ROLLOUT_PLANNER_TRIES_PROPERTY,
                        SuiteCounts.CHAOS_RUNS_PROPERTY,
                        SuiteCounts.REALTIME_CHAOS_RUNS_PROPERTY,
                        SuiteCounts.OPERATOR_TRIALS_PROPERTY);
        List<String> readingPastSuiteCounts = testClasses()
                .filter(f -> !f.name.equals(SuiteCounts.class.getSimpleName()))
                .filter(f -> f.source.contains("\"" + SuiteCounts.KILL_TRIALS_PROPERTY + "\"")
                        || f.source.contains("\"" + SuiteCounts.SURGE_TRIALS_PROPERTY + "\"")
                        || f.source.contains("\"" + SuiteCounts.CLUSTER_PLANS_PROPERTY + "\"")
                        || f.source.contains("\"" + SuiteCounts.WINDOW_TRIES_PROPERTY + "\"")
                        || f.source.contains("\"" + SuiteCounts.PLACEMENT_CLUSTER_TRIES_PROPERTY + "\"")
                        || f.source.contains("\"" + SuiteCounts.PLACEMENT_FORECAST_TRIES_PROPERTY + "\"")
                        || f.source.contains("\"" + SuiteCounts.ROLLOUT_PLANNER_TRIES_PROPERTY + "\"")
                        || f.source.contains("\"" + SuiteCounts.CHAOS_RUNS_PROPERTY + "\"")
                        || f.source.contains("\"" + SuiteCounts.REALTIME_CHAOS_RUNS_PROPERTY + "\"")
                        || f.source.contains("\"" + SuiteCounts.OPERATOR_TRIALS_PROPERTY + "\""))
                .map(f -> f.name)
                .toList();
        assertThat(readingPastSuiteCounts)
                .as("test classes naming a stress count's property themselves (read it through SuiteCounts)")
                .isEmpty();
        Pattern ownDefault = Pattern.compile("SuiteCounts\\.of\\([^,;]+,\\s*\\d");
        assertThat(testClasses()
                        .filter(f -> ownDefault.matcher(f.source).find())
                        .map(f -> f.name))
                .as("test classes reading a count through SuiteCounts with a number of their own as its default")
                .isEmpty();
    }

    /**
     * And {@code make chaos} keeps the stress counts: every suite of the recipe gets its count property from a
     * Makefile variable whose default is no less than the count issue 48 moved there (or the chaos run had before).
     */
    @Test
    void makeChaosKeepsTheStressCounts() throws IOException {
        String chaos = expanded(recipe("chaos"));
        Map<String, Integer> atLeast = new LinkedHashMap<>();
        atLeast.put("jqwik.tries.default=$(DRAIN_MODEL_TRIES)", 200_000);
        atLeast.put(SuiteCounts.CLUSTER_PLANS_PROPERTY + "=$(DRAIN_MODEL_CLUSTER_TRIES)", 500);
        atLeast.put(SuiteCounts.KILL_TRIALS_PROPERTY + "=$(OPERATOR_KILL_TRIALS)", 1000);
        atLeast.put(SuiteCounts.SURGE_TRIALS_PROPERTY + "=$(SURGE_CHAOS_TRIALS)", 200);
        atLeast.put(SuiteCounts.WINDOW_TRIES_PROPERTY + "=$(WINDOW_TRIES)", 10_000);
        atLeast.put(SuiteCounts.PLACEMENT_CLUSTER_TRIES_PROPERTY + "=$(PLACEMENT_CLUSTER_TRIES)", 1000);
        atLeast.put(SuiteCounts.PLACEMENT_FORECAST_TRIES_PROPERTY + "=$(PLACEMENT_FORECAST_TRIES)", 10_000);
        atLeast.put(SuiteCounts.ROLLOUT_PLANNER_TRIES_PROPERTY + "=$(ROLLOUT_PLANNER_TRIES)", 10_000);
        atLeast.put(SuiteCounts.CHAOS_RUNS_PROPERTY + "=$(CHAOS_RUNS)", 20);
        atLeast.put(SuiteCounts.REALTIME_CHAOS_RUNS_PROPERTY + "=$(REALTIME_CHAOS_RUNS)", 100);
        atLeast.put(SuiteCounts.OPERATOR_TRIALS_PROPERTY + "=$(OPERATOR_CHAOS_TRIALS)", 200);
        atLeast.forEach((flag, least) -> {
            assertThat(chaos).as("make chaos passes -D%s", flag).contains("-D" + flag);
            String variable = flag.substring(flag.indexOf("$(") + 2, flag.length() - 1);
            assertThat(makeVariable(variable)).as("the Makefile's %s", variable).isGreaterThanOrEqualTo(least);
        });
        assertThat(chaos)
                .as("the suites make chaos runs")
                .contains(
                        "*Chaos*",
                        "DrainModelPropertyTest",
                        "DrainModelOnClusterIT",
                        "MaintenanceWindowPropertyTest",
                        "PlacementForecastPropertyTest",
                        "PlacementForecastOnClusterIT",
                        "RolloutPlannerPropertyTest");
    }

    /**
     * Each of make chaos's two test JVMs gets its own counts: a count passed to the other one would reach no suite
     * (the properties run in one, the real-time suites in the other).
     */
    @Test
    void eachHalfOfMakeChaosGetsItsOwnCounts() throws IOException {
        List<String> commands = List.of(recipe("chaos").split("\n"));
        String properties = commands.stream()
                .filter(c -> c.contains("-Dtest='$(CHAOS_PROPERTIES)'"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no command runs $(CHAOS_PROPERTIES)"));
        String suites = commands.stream()
                .filter(c -> c.contains("-Dtest='$(CHAOS_SUITES)'"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no command runs $(CHAOS_SUITES)"));
        assertThat(properties)
                .contains(
                        "-Djqwik.tries.default=",
                        "-D" + SuiteCounts.CLUSTER_PLANS_PROPERTY + "=",
                        "-D" + SuiteCounts.WINDOW_TRIES_PROPERTY + "=",
                        "-D" + SuiteCounts.PLACEMENT_CLUSTER_TRIES_PROPERTY + "=",
                        "-D" + SuiteCounts.PLACEMENT_FORECAST_TRIES_PROPERTY + "=",
                        "-D" + SuiteCounts.ROLLOUT_PLANNER_TRIES_PROPERTY + "=");
        assertThat(suites)
                .contains(
                        "-D" + SuiteCounts.CHAOS_RUNS_PROPERTY + "=",
                        "-D" + SuiteCounts.REALTIME_CHAOS_RUNS_PROPERTY + "=",
                        "-D" + SuiteCounts.OPERATOR_TRIALS_PROPERTY + "=",
                        "-D" + SuiteCounts.KILL_TRIALS_PROPERTY + "=",
                        "-D" + SuiteCounts.SURGE_TRIALS_PROPERTY + "=");
        assertThat(makeValue("CHAOS_SUITES")).isEqualTo("*Chaos*");
    }

    /**
     * {@code make chaos} runs the properties beside the suites (not after them) and fails when either half fails, or
     * the RBAC check after them: its recipe run with a stand-in for Maven. The suites' stand-in waits up to 20 s for
     * the properties' to have started, so a recipe that ran them one after the other fails here.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "the properties fail, DrainModelPropertyTest, the properties (DrainModelPropertyTest",
        "the suites fail, *Chaos*, the properties passed",
        "the RBAC check fails, NoTestHere, the properties passed",
        "nothing fails, nothing, the properties passed"
    })
    void makeChaosRunsThePropertiesBesideTheSuitesAndFailsWhenEitherFails(
            String name, String failing, String said, @TempDir Path dir) throws Exception {
        Path mvn = dir.resolve("mvn");
        Path started = dir.resolve("properties-started");
        Files.writeString(
                mvn,
                "#!/bin/sh\n"
                        + "echo \"mvn $*\" >> " + dir.resolve("calls") + "\n"
                        + "case \"$*\" in *DrainModelPropertyTest*) touch " + started + ";; esac\n"
                        + "case \"$*\" in *'*Chaos*'*) i=0; while [ ! -e " + started + " ]; do i=$((i+1));"
                        + " [ $i -gt 200 ] && { echo 'the properties did not start beside the suites'; exit 1; };"
                        + " sleep 0.1; done;; esac\n"
                        + "case \"$*\" in *'" + failing + "'*) echo failed; exit 1;; esac\n");
        assertThat(mvn.toFile().setExecutable(true)).isTrue();
        Made make = make("-s", "chaos", "MVN=" + mvn, "CHAOS_PROPERTIES_LOG=" + dir.resolve("properties.log"));
        String output = make.output();
        assertThat(output).contains(said).doesNotContain("did not start beside");
        if (failing.equals("nothing")) {
            assertThat(make.exit()).as(output).isZero();
        } else {
            assertThat(make.exit()).as(output).isNotZero();
        }
        assertThat(Files.readString(dir.resolve("calls")))
                .as("Maven's runs")
                .contains("DrainModelPropertyTest", "*Chaos*");
    }

    /**
     * The chaos recipe's {@code jqwik.tries.default} is the drain model's 200,000: every other property the recipe
     * selects reads its own count through its {@code Tries} hook, or it runs 200,000 tries too (the forecast's
     * trimmed-pods property did, and held {@code make chaos} for over an hour).
     */
    @Test
    void everyOtherPropertyOfMakeChaosReadsItsOwnCount() throws IOException {
        Pattern property = Pattern.compile("^\\s*@Property\\b", Pattern.MULTILINE);
        Pattern hooked = Pattern.compile(
                "^\\s*@Property\\b[^\\n]*\\n\\s*@AddLifecycleHook\\(Tries\\.class\\)", Pattern.MULTILINE);
        List<String> suites = List.of(
                "MaintenanceWindowPropertyTest",
                "PlacementForecastPropertyTest",
                "PlacementForecastOnClusterIT",
                "DrainModelOnClusterIT",
                "RolloutPlannerPropertyTest");
        assertThat(expanded(recipe("chaos"))).contains(suites);
        for (String suite : suites) {
            String source = testClasses()
                    .filter(c -> c.name().equals(suite))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no test class " + suite))
                    .source();
            assertThat(hooked.matcher(source).results().count())
                    .as("%s: every @Property carries @AddLifecycleHook(Tries.class)", suite)
                    .isEqualTo(property.matcher(source).results().count())
                    .isPositive();
        }
    }

    /** A {@code NAME = value} variable of the Makefile. */
    private static String makeValue(String name) throws IOException {
        Matcher m = Pattern.compile("^" + Pattern.quote(name) + " = (.*)$", Pattern.MULTILINE)
                .matcher(Files.readString(Path.of("Makefile")));
        if (!m.find()) {
            throw new AssertionError("no `" + name + " = …` in the Makefile");
        }
        return m.group(1).trim();
    }

    /** A recipe with make chaos's two lists of test classes put in. */
    private static String expanded(String recipe) throws IOException {
        return recipe.replace("$(CHAOS_SUITES)", makeValue("CHAOS_SUITES"))
                .replace("$(CHAOS_PROPERTIES)", makeValue("CHAOS_PROPERTIES"));
    }

    /** A {@code NAME ?= number} default of the Makefile. */
    private static int makeVariable(String name) {
        try {
            Matcher m = Pattern.compile("^" + Pattern.quote(name) + " \\?= (\\d+)\\s*$", Pattern.MULTILINE)
                    .matcher(Files.readString(Path.of("Makefile")));
            if (!m.find()) {
                throw new AssertionError("no numeric default `" + name + " ?= N` in the Makefile");
            }
            return Integer.parseInt(m.group(1));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A numeric property of pom.xml's {@code <properties>}. */
    private static int pomProperty(String name) throws IOException {
        Matcher m =
                Pattern.compile("<" + Pattern.quote(name) + ">(\\d+)</").matcher(Files.readString(Path.of("pom.xml")));
        if (!m.find()) {
            throw new AssertionError("no numeric <" + name + "> in pom.xml");
        }
        return Integer.parseInt(m.group(1));
    }

    /** Maven's JVM, and Error Prone's forked javac, compile with the client JIT: half the CPU of the default. */
    @Test
    void theBuildJvmsStopAtTheClientJit() throws IOException {
        assertThat(Files.readString(Path.of(".mvn", "jvm.config"))).contains("-XX:TieredStopAtLevel=1");
        assertThat(Files.readString(Path.of("pom.xml"))).contains("<arg>-J-XX:TieredStopAtLevel=1</arg>");
    }

    /** The commands of a Makefile target, its recipe lines joined. */
    private static String recipe(String target) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("Makefile"));
        int start = lines.indexOf(lines.stream()
                .filter(l -> l.startsWith(target + ":"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no target " + target + " in the Makefile")));
        StringBuilder commands = new StringBuilder();
        for (int i = start + 1; i < lines.size() && lines.get(i).startsWith("\t"); i++) {
            commands.append(lines.get(i)).append('\n');
        }
        return commands.toString();
    }

    private record TestClass(Path path, String name, String source) {}

    private static Stream<TestClass> testClasses() throws IOException {
        try (Stream<Path> files = Files.walk(TESTS)) {
            return files
                    .filter(p ->
                            p.toString().endsWith("Test.java") || p.toString().endsWith("IT.java"))
                    .map(p -> {
                        try {
                            String file = p.getFileName().toString();
                            return new TestClass(
                                    p, file.substring(0, file.length() - ".java".length()), Files.readString(p));
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .toList()
                    .stream();
        }
    }

    /** What one run of make with a stand-in Maven said and how it ended. */
    private record Made(String output, int exit) {}

    /** Runs make in the working directory with {@code args}, its output merged; it must end within 60 s. */
    private static Made make(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("make"));
        command.addAll(List.of(args));
        Process make = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(make.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(make.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
        return new Made(output, make.exitValue());
    }
}
