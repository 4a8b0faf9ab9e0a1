package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.TestProfile;
import java.lang.annotation.Annotation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;
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
 * lanes) instead (pom.xml). Quarkus's orderer delegates to the class {@code quarkus.test.class-orderer} names, ours
 * ({@link QuarkusLastClassOrderer}): the classes that start no application first, so the last application ends with
 * its last class.
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

    /**
     * The orderer in effect, as JUnit builds it from its configuration (Quarkus's, which reads
     * {@code quarkus.test.class-orderer}), given a mix of plain classes and {@code @QuarkusTest} classes of three
     * profiles: the plain ones first, in class-name order, then the Quarkus ones, each profile's together. Were the
     * plain ones last (Quarkus's own order), the default application would idle beside all of them.
     */
    @Test
    void theClassesThatStartNoApplicationRunBeforeTheQuarkusOnes() throws Exception {
        ClassOrderer inEffect = Class.forName(classOrderer.orElseThrow())
                .asSubclass(ClassOrderer.class)
                .getDeclaredConstructor()
                .newInstance();
        List<ClassDescriptor> classes = new ArrayList<>();
        for (String name : List.of(
                "dev.tenure.maintenance.door.QuietStatusIT",
                "dev.tenure.election.kube.EvidenceOfDeathIT",
                "dev.tenure.maintenance.door.NodeMaintenanceReconcilerIT",
                "dev.tenure.maintenance.admission.StandbyAdmissionIT",
                "dev.tenure.LayeringTest",
                "dev.tenure.maintenance.door.MetricSeriesIT",
                "dev.tenure.operator.CrdReadinessIT")) {
            // not initialized: only its annotations are read
            classes.add(new Descriptor(Class.forName(name, false, getClass().getClassLoader())));
        }

        inEffect.orderClasses(new ClassOrdererContext() {
            @Override
            public List<? extends ClassDescriptor> getClassDescriptors() {
                return classes;
            }

            @Override
            public Optional<String> getConfigurationParameter(String key) {
                return Optional.empty();
            }
        });

        List<String> order =
                classes.stream().map(c -> c.getTestClass().getSimpleName()).toList();
        assertThat(order.subList(0, 2))
                .as("the classes that start no application come first, by name: " + order)
                .containsExactly("LayeringTest", "EvidenceOfDeathIT");
        List<String> profiles = new ArrayList<>();
        for (ClassDescriptor quarkus : classes.subList(2, classes.size())) {
            String profile = quarkus.findAnnotation(TestProfile.class)
                    .map(p -> p.value().getSimpleName())
                    .orElse("(default)");
            if (profiles.isEmpty() || !profiles.get(profiles.size() - 1).equals(profile)) {
                profiles.add(profile);
            }
        }
        assertThat(profiles)
                .as("then the Quarkus classes, each profile's together (one application start each): " + order)
                .hasSize(3)
                .doesNotHaveDuplicates();
    }

    private record Descriptor(Class<?> type) implements ClassDescriptor {
        @Override
        public Class<?> getTestClass() {
            return type;
        }

        @Override
        public String getDisplayName() {
            return type.getSimpleName();
        }

        @Override
        public boolean isAnnotated(Class<? extends Annotation> annotationType) {
            return type.isAnnotationPresent(annotationType);
        }

        @Override
        public <A extends Annotation> Optional<A> findAnnotation(Class<A> annotationType) {
            return Optional.ofNullable(type.getAnnotation(annotationType));
        }

        @Override
        public <A extends Annotation> List<A> findRepeatableAnnotations(Class<A> annotationType) {
            return List.of(type.getAnnotationsByType(annotationType));
        }
    }

    @Test
    void jqwikTriesComeFromTheTestJvm() {
        assertThat(System.getProperty("jqwik.tries.default"))
                .as("jqwik.tries.default, set for the test JVM by pom.xml")
                .isNotBlank();
    }
}
