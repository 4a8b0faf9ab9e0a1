package dev.tenure.placement;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchRule;
import dev.tenure.MainClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The placement room stays pure like the election core: fabric8's model types (the objects it reads) and the JDK,
 * no client, no framework, no other Tenure package, no wall clock (docs/node-maintenance.md, "When a drain cannot finish").
 */
class PlacementArchitectureTest {
    static JavaClasses room;

    @BeforeAll
    static void importRoom() {
        room = MainClasses.in("dev.tenure.placement");
    }

    @Test
    void readsModelTypesOnlyAndCallsNoApi() {
        ArchRule rule = noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.quarkus..",
                        "jakarta..",
                        "javax.enterprise..",
                        "javax.inject..",
                        "io.fabric8.kubernetes.client..",
                        "io.javaoperatorsdk..",
                        "io.micrometer..",
                        "io.smallrye..",
                        "io.vertx..",
                        "dev.tenure.election..",
                        "dev.tenure.kube..",
                        "dev.tenure.coordination..",
                        "dev.tenure.maintenance..",
                        "dev.tenure.operator..")
                .because("the forecast is pure: fabric8 model types in, an answer out; the callers read the caches");
        rule.check(room);
    }

    @Test
    void neverReadsTheWallClock() {
        ArchRule rule = noClasses()
                .should()
                .callMethod(java.time.Instant.class, "now")
                .orShould()
                .callMethod(System.class, "currentTimeMillis")
                .orShould()
                .callMethod(System.class, "nanoTime")
                .orShould()
                .callMethod(java.time.Clock.class, "systemUTC")
                .because("a forecast is a function of the objects it is given");
        rule.check(room);
    }
}
