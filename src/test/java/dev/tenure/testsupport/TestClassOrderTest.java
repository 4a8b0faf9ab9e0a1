package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The suite runs with Quarkus's JUnit configuration: its class orderer groups the {@code @QuarkusTest} classes by
 * test profile, so the application restarts once per profile, not between every pair of classes. That configuration
 * lives in quarkus-junit5-config's {@code junit-platform.properties}; a file of that name in our test resources would
 * come first on the class path and silently replace it (JUnit reads only the first), which is how the suite once ran
 * with the application restarted at every profile switch and two classes failing to start it. Settings of ours
 * go to the test JVM as system properties (jqwik's tries) or as surefire's JUnit configuration parameters (the two
 * lanes) instead (pom.xml).
 */
class TestClassOrderTest {
    private static Optional<String> classOrderer = Optional.empty();
    private static final Map<String, Optional<String>> PARALLEL = new TreeMap<>();

    @RegisterExtension
    static final BeforeAllCallback READ_CONFIGURATION = context -> {
        classOrderer = context.getConfigurationParameter("junit.jupiter.testclass.order.default");
        for (String key : List.of(
                "mode.default",
                "mode.classes.default",
                "config.strategy",
                "config.fixed.parallelism",
                "config.fixed.max-pool-size")) {
            PARALLEL.put(key, context.getConfigurationParameter("junit.jupiter.execution.parallel." + key));
        }
    };

    @Test
    void quarkusOrdersTheTestClasses() {
        assertThat(classOrderer)
                .as("the class orderer in effect; is a junit-platform.properties of ours shadowing Quarkus's?")
                .contains("io.quarkus.test.config.QuarkusClassOrderer");
    }

    /**
     * Two lanes at most (pom.xml; {@link SecondLane}): every class and method runs one after another unless it says
     * otherwise, on a pool of two threads that never grows (a blocked thread is not replaced by a third).
     */
    @Test
    void theClassesRunInTwoLanesAtMost() {
        assertThat(PARALLEL)
                .as("JUnit's parallel execution parameters (pom.xml, surefire's configurationParameters)")
                .isEqualTo(Map.of(
                        "mode.default", Optional.of("same_thread"),
                        "mode.classes.default", Optional.of("same_thread"),
                        "config.strategy", Optional.of("fixed"),
                        "config.fixed.parallelism", Optional.of("2"),
                        "config.fixed.max-pool-size", Optional.of("2")));
    }

    @Test
    void jqwikTriesComeFromTheTestJvm() {
        assertThat(System.getProperty("jqwik.tries.default"))
                .as("jqwik.tries.default, set for the test JVM by pom.xml")
                .isNotBlank();
    }
}
