package dev.tenure.coordination;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchRule;
import dev.tenure.MainClasses;
import java.time.Clock;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Election decisions stay pure (JDK, their own records and the pure election core only) and no code here reads the wall clock itself. */
class CoordinationArchitectureTest {

    private static final JavaClasses MAIN = MainClasses.in("dev.tenure.coordination");

    static final ArchRule DECISIONS_ARE_PURE = classes()
            .that()
            .haveSimpleNameStartingWith("ElectionPlanner")
            .or()
            .haveSimpleNameStartingWith("ElectionStep")
            .or()
            .haveSimpleNameStartingWith("ElectionTiming")
            .or()
            .haveSimpleNameStartingWith("CandidateRanking")
            .or()
            .haveSimpleNameStartingWith("SemanticVersion")
            .or()
            .haveSimpleNameStartingWith("HandoverPlanner")
            .or()
            .areAssignableTo(LeaseStrategy.class)
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage("java..", "dev.tenure.coordination..", "dev.tenure.election..");

    static final ArchRule TIME_COMES_FROM_THE_INJECTED_CLOCK = noClasses()
            .should()
            .callMethod(Instant.class, "now")
            .orShould()
            .callMethod(System.class, "currentTimeMillis")
            .orShould()
            .callMethod(Clock.class, "systemUTC")
            .orShould()
            .callMethod(Clock.class, "systemDefaultZone");

    @Test
    void decisionsArePure() {
        DECISIONS_ARE_PURE.check(MAIN);
    }

    @Test
    void timeComesFromTheInjectedClock() {
        TIME_COMES_FROM_THE_INJECTED_CLOCK.check(MAIN);
    }
}
