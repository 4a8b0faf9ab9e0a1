package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The suite runs with Quarkus's JUnit configuration: its class orderer groups the {@code @QuarkusTest} classes by
 * test profile, so the application restarts once per profile, not between every pair of classes. That configuration
 * lives in quarkus-junit5-config's {@code junit-platform.properties}; a file of that name in our test resources would
 * come first on the class path and silently replace it (JUnit reads only the first), which is how the suite once ran
 * with the application restarted at every profile switch and two classes failing to start it. Settings of ours
 * (jqwik's tries) go to the test JVM as system properties (pom.xml) instead.
 */
class TestClassOrderTest {
    private static Optional<String> classOrderer = Optional.empty();

    @RegisterExtension
    static final BeforeAllCallback READ_CONFIGURATION =
            context -> classOrderer = context.getConfigurationParameter("junit.jupiter.testclass.order.default");

    @Test
    void quarkusOrdersTheTestClasses() {
        assertThat(classOrderer)
                .as("the class orderer in effect; is a junit-platform.properties of ours shadowing Quarkus's?")
                .contains("io.quarkus.test.config.QuarkusClassOrderer");
    }

    @Test
    void jqwikTriesComeFromTheTestJvm() {
        assertThat(System.getProperty("jqwik.tries.default"))
                .as("jqwik.tries.default, set for the test JVM by pom.xml")
                .isNotBlank();
    }
}
