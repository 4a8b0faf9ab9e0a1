package dev.tenure;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import com.tngtech.archunit.lang.ArchRule;
import dev.tenure.election.MonotonicClock;
import dev.tenure.election.kube.KubeLeaseCandidateStore;
import dev.tenure.election.kube.KubeLeaseStore;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Wiring lives in {@code operator}: the jobs (maintenance, coordination) are handed their lease-store adapters and
 * their clock, and never build them; and the maintenance planners are pure (what they decide depends on what they are
 * given, no client, no clock, no framework). Coordination's planners have the same rule in
 * {@code CoordinationArchitectureTest}, the election core in {@code ElectionArchitectureTest}.
 */
class WiringArchitectureTest {

    private static final JavaClasses MAIN = MainClasses.all();

    private static final DescribedPredicate<JavaConstructorCall> BUILDS_A_LEASE_STORE_ADAPTER =
            DescribedPredicate.describe(
                    "builds a lease store adapter (KubeLeaseStore, KubeLeaseCandidateStore)",
                    call -> call.getTargetOwner().isAssignableTo(KubeLeaseStore.class)
                            || call.getTargetOwner().isAssignableTo(KubeLeaseCandidateStore.class));

    /** The adapters' own package may offer factories; everything else is handed its store by operator's wiring. */
    static final ArchRule ADAPTERS_ARE_BUILT_IN_THE_WIRING = noClasses()
            .that()
            .resideOutsideOfPackages("dev.tenure.operator..", "dev.tenure.election.kube..")
            .should()
            .callConstructorWhere(BUILDS_A_LEASE_STORE_ADAPTER)
            .because("jobs are handed their adapters by dev.tenure.operator (issue 27)");

    /** The system clock is read in the wiring only ({@code Clocks}); the core's monotonic clock anchors on it once. */
    static final ArchRule THE_CLOCK_IS_SUPPLIED_BY_THE_WIRING = noClasses()
            .that()
            .resideOutsideOfPackage("dev.tenure.operator..")
            .and()
            .doNotBelongToAnyOf(MonotonicClock.class)
            .should()
            .callMethod(Clock.class, "systemUTC")
            .orShould()
            .callMethod(Clock.class, "systemDefaultZone")
            .orShould()
            .callMethod(Instant.class, "now")
            .orShould()
            .callMethod(System.class, "currentTimeMillis")
            .because("time is injected: dev.tenure.operator.Clocks supplies the one wall clock");

    /** The maintenance side's decide steps: (observed objects, now, settings) -> decision. */
    /** The maintenance side's decide steps, by room: (observed objects, now, settings) -> decision. */
    static final List<String> PLANNER_NAMES = List.of(
            // issue 36's: the door's one decision (observe, decide, act), and the sealed type it returns
            "door.DoorDecisions",
            "door.DoorDecision",
            "door.SharedRequests",
            "door.ScheduleStatuses",
            "admission.NodeMaintenanceAdmission",
            "admission.NodeMaintenanceValidator",
            "admission.MaintenanceLimits",
            "admission.JoinedSpecs",
            "machine.MaintenancePlanner",
            "machine.NodeMaintenanceStatuses",
            "machine.MaintenanceRequest",
            "machine.MaintenanceSchedule",
            // issue 37's: a schedule's recurring window, by wall time
            "machine.RecurringWindow",
            "machine.MaintenanceHooks",
            // issue 27's: the machine's "what next", split from the steps that do the I/O
            "machine.MaintenanceStages",
            "machine.PlacementGate",
            "drain.DrainPlan",
            "drain.PodFilters",
            "drain.DrainPacing",
            "drain.DrainReport",
            // issue 29's: ordered drain and per-pod behaviour, volume detach, preview
            "drain.DrainRules",
            "drain.DrainWaves",
            "drain.VolumeDetach",
            "drain.DrainPreview",
            // issue 37's: the preview's walk of the plan against the PodDisruptionBudgets
            "drain.BudgetSimulation",
            // issue 51's: may a pod its budget holds surge
            "drain.SurgePlanner",
            "annotation.AnnotationProtocol");

    private static final Pattern PLANNERS = Pattern.compile(
            "dev\\.tenure\\.maintenance\\.(" + String.join("|", PLANNER_NAMES).replace(".", "\\.") + ")(\\$.*)?");

    /** What a planner may be given or use: values and other planners, never a client, store, machine or framework. */
    private static final Set<String> VALUES = Set.of(
            "MaintenanceState",
            "DrainOptions",
            "HandoverOptions",
            "MaintenanceSettings",
            "BoundedNames",
            "MaintenanceAnnotation",
            "AnnotationSettings",
            "AnnotationDecision",
            "RecordedState",
            "DrainedWorkloads",
            "LeadershipHandover$Outcome");

    private static final DescribedPredicate<JavaClass> PURE = DescribedPredicate.describe(
            "JDK types, the NodeMaintenance API, Kubernetes model objects, the election core's rules and records, "
                    + "maintenance values and planners",
            WiringArchitectureTest::pure);

    private static boolean pure(JavaClass c) {
        if (c.isArray()) {
            return pure(c.getBaseComponentType());
        }
        String name = c.getName();
        String pkg = c.getPackageName();
        String outer = name.contains("$") ? name.substring(0, name.indexOf('$')) : name;
        String simple = outer.substring(outer.lastIndexOf('.') + 1);
        String nested = name.substring(name.lastIndexOf('.') + 1);
        return pkg.startsWith("java.")
                || c.isPrimitive()
                || (c.isArray() && !c.getBaseComponentType().getPackageName().startsWith("dev.tenure"))
                || pkg.equals("dev.tenure.maintenance.api")
                || pkg.startsWith("io.fabric8.kubernetes.api.model")
                || pkg.equals("dev.tenure.election")
                // the placement forecast (pure: fabric8 model types only, PlacementArchitectureTest) and the escaping
                // of user text shared with the coordination controller
                || pkg.equals("dev.tenure.placement")
                || outer.equals("dev.tenure.kube.UserText")
                || PLANNERS.matcher(name).matches()
                || (pkg.startsWith("dev.tenure.maintenance") && (VALUES.contains(simple) || VALUES.contains(nested)));
    }

    static final ArchRule MAINTENANCE_PLANNERS_ARE_PURE = classes()
            .that()
            .haveNameMatching(PLANNERS.pattern())
            .should()
            .onlyDependOnClassesThat(PURE)
            .because("decisions are pure functions of what was observed (STYLE habit 1); I/O stays in reconcilers");

    @Test
    void adaptersAreBuiltInTheWiring() {
        ADAPTERS_ARE_BUILT_IN_THE_WIRING.check(MAIN);
    }

    @Test
    void theClockIsSuppliedByTheWiring() {
        THE_CLOCK_IS_SUPPLIED_BY_THE_WIRING.check(MAIN);
    }

    @Test
    void maintenancePlannersArePure() {
        MAINTENANCE_PLANNERS_ARE_PURE.check(MAIN);
    }

    /**
     * The rollout's decision (issue 52) is stricter still: no fabric8 at all, not even model types; the JDK, its own
     * records and the rollout API's enums. {@code PoolNodes} and {@code RolloutStatuses} are the edge that reads
     * Nodes and writes status.
     */
    static final ArchRule ROLLOUT_PLANNER_IS_PURE = classes()
            .that()
            .haveNameMatching("dev\\.tenure\\.rollout\\.(RolloutPlanner|RolloutRules|DoneSignal|PoolNode|ChildView"
                    + "|NodeProgress|GateState|WorkloadRef|AlertGate)(\\$.*)?")
            .should()
            .onlyDependOnClassesThat(DescribedPredicate.describe(
                    "JDK types, the rollout's records and the rollout API's enums",
                    c -> c.getPackageName().startsWith("java.")
                            || c.isPrimitive()
                            || (c.getPackageName().equals("dev.tenure.rollout")
                                    && !c.getSimpleName().equals("NodeMaintenanceRolloutReconciler")
                                    && !c.getSimpleName().equals("RolloutSpecs")
                                    && !c.getSimpleName().equals("PoolNodes")
                                    && !c.getSimpleName().equals("RolloutStatuses")
                                    && !c.getSimpleName().equals("NodeChangeWakeUps")
                                    && !c.getSimpleName().equals("PrometheusAlertSource")
                                    && !c.getSimpleName().equals("AlertFilter"))
                            || c.getName().equals("dev.tenure.rollout.api.NodeState")
                            || c.getName().equals("dev.tenure.rollout.api.RolloutPhase")))
            .because("which nodes start is decided purely (STYLE habit 1); the reconciler only applies it");

    @Test
    void theRolloutPlannerIsPure() {
        ROLLOUT_PLANNER_IS_PURE.check(MAIN);
    }

    /** A planner that moved rooms must not drop out of the rule unnoticed (it did once, when the rooms were made). */
    @Test
    void everyNamedPlannerIsAClassTheRuleChecks() {
        for (String planner : PLANNER_NAMES) {
            String name = "dev.tenure.maintenance." + planner;
            assertThat(MAIN.contain(name)).as(name).isTrue();
            assertThat(PLANNERS.matcher(name).matches()).as(name).isTrue();
        }
    }
}
