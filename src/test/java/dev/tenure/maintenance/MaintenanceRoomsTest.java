package dev.tenure.maintenance;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import dev.tenure.MainClasses;
import dev.tenure.maintenance.door.DoorDecisions;
import dev.tenure.maintenance.door.NodeMaintenanceReconciler;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rooms of {@code maintenance/}, each of one role, and the only way imports may point: down.
 *
 * <pre>
 *   door (NodeMaintenance reconciler)    annotation (lifecycle.metal3.io/maintenance)
 *                 \                      /
 *                  admission (validator, webhook, requester checks, limits)
 *                          |
 *                  machine (stages, steps, node lease/cordon/marks/restore, hooks, schedule)
 *                          |
 *                  drain (plan, rules, waves, pacing, preview, pod eviction, volume detach)
 *                          |
 *                  api (the CRD's types)
 * </pre>
 *
 * One rule per arrow that must never exist, so a failure names the arrow.
 */
class MaintenanceRoomsTest {

    /** Top to bottom; the two doors are peers, neither may import the other. */
    private static final List<List<String>> FLOORS = List.of(
            List.of("door", "annotation"), List.of("admission"), List.of("machine"), List.of("drain"), List.of("api"));

    private static final JavaClasses MAIN = MainClasses.in("dev.tenure.maintenance");

    static Stream<Arguments> forbiddenArrows() {
        List<Arguments> arrows = new ArrayList<>();
        for (int from = 0; from < FLOORS.size(); from++) {
            for (String room : FLOORS.get(from)) {
                for (int to = 0; to <= from; to++) {
                    for (String other : FLOORS.get(to)) {
                        if (!other.equals(room)) {
                            arrows.add(Arguments.of(room, other));
                        }
                    }
                }
            }
        }
        return arrows.stream();
    }

    @ParameterizedTest(name = "{0} -> {1} never")
    @MethodSource("forbiddenArrows")
    void noRoomImportsARoomAboveOrBesideIt(String from, String to) {
        noClasses()
                .that()
                .resideInAPackage("dev.tenure.maintenance." + from + "..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.tenure.maintenance." + to + "..")
                .because(from + " is not above " + to)
                .check(MAIN);
    }

    @Test
    void thereAreSixteenForbiddenArrows() {
        assertThat(forbiddenArrows()).hasSize(16);
    }

    /**
     * Issue 36's "the door decides once", held as a dependency: the door's one decision ({@link DoorDecisions#decide})
     * has one call site in main code, in the reconciler. It replaces {@code ReconcilePathIT}, which counted the files
     * one reconcile entered (at most two visits each): a count that moved when a helper moved between files, with no
     * change of behaviour (issue 48). What the decision decides is {@code DoorDecisionsTest}'s tables.
     */
    @Test
    void theDoorsDecisionHasOneCallSiteInTheReconciler() {
        List<String> callSites = MainClasses.all().stream()
                .flatMap(c -> c.getMethodCallsFromSelf().stream())
                .filter(call -> call.getTarget().getOwner().isEquivalentTo(DoorDecisions.class)
                        && call.getTarget().getName().equals("decide"))
                .map(call -> call.getOriginOwner().getSimpleName() + "."
                        + call.getOrigin().getName())
                .toList();
        assertThat(callSites).containsExactly(NodeMaintenanceReconciler.class.getSimpleName() + ".reconcile");
    }

    @Test
    void everyMaintenanceClassLivesInARoom() {
        List<String> rooms = FLOORS.stream().flatMap(List::stream).toList();
        assertThat(MAIN.stream().map(JavaClass::getPackageName).distinct())
                .isNotEmpty()
                .allSatisfy(p -> assertThat(rooms).contains(p.replaceFirst("^dev\\.tenure\\.maintenance\\.?", "")));
    }
}
