package dev.tenure.election;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.lang.ArchRule;
import dev.tenure.MainClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** docs/development.md, "The code's layers": the election core stays a library: no framework, no client, no hidden clock. */
class ElectionArchitectureTest {
    static JavaClasses core;

    @BeforeAll
    static void importCore() {
        core = MainClasses.in("dev.tenure.election")
                .that(com.tngtech.archunit.base.DescribedPredicate.describe(
                        "core (not the kube adapter)", c -> c.getPackageName().equals("dev.tenure.election")));
    }

    @Test
    void coreImportsNoFrameworkOrClient() {
        ArchRule rule = noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.quarkus..",
                        "jakarta..",
                        "javax.enterprise..",
                        "javax.inject..",
                        "io.fabric8..",
                        "io.javaoperatorsdk..",
                        "io.micrometer..",
                        "io.smallrye..")
                .because("the election core must stay free of Quarkus, CDI and fabric8 (docs/development.md)");
        rule.check(core);
    }

    @Test
    void coreNeverReadsTheWallClock() {
        ArchRule rule = noClasses()
                .that()
                .doNotHaveSimpleName("MonotonicClock") // the wiring-side source, see its javadoc
                .should()
                .callMethod(java.time.Instant.class, "now")
                .orShould()
                .callMethod(System.class, "currentTimeMillis")
                .orShould()
                .callMethod(System.class, "nanoTime")
                .orShould()
                .callMethod(java.time.Clock.class, "systemUTC")
                .orShould()
                .callMethod(java.time.Clock.class, "systemDefaultZone")
                .orShould()
                .callMethod(java.time.InstantSource.class, "system")
                .because("time is injected (InstantSource), so tests can drive it");
        rule.check(core);
    }

    /**
     * Issue 40: the opt-in that runs the fence, store calls and callbacks on the loop's thread lets a stalled call
     * block the fence. It is for virtual-time tests; no production class may call it.
     */
    @Test
    void noProductionCodeRunsAnElectorAllOnItsLoopThread() {
        JavaClasses production = MainClasses.all();
        ArchRule rule = noClasses()
                .should()
                .callMethodWhere(
                        JavaCall.Predicates.target(HasName.Predicates.name("unsafeAllOnLoopSchedulerForTests")))
                .because("a stalled store call would block the fence (docs/election-api.md, safe defaults)");
        rule.check(production);
    }
}
