package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** When a budget's change frees refused evictions, and which pods go (issue 51 item 8). */
class BudgetReleaseTest {

    /** A budget at generation {@code generation} with the status numbers given (null: no status yet). */
    static PodDisruptionBudget pdb(long generation, Long observed, Integer allowed, Integer healthy) {
        PodDisruptionBudgetBuilder b = new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("web")
                .withGeneration(generation)
                .endMetadata();
        if (observed != null) {
            b.withNewStatus()
                    .withObservedGeneration(observed)
                    .withDisruptionsAllowed(allowed)
                    .withCurrentHealthy(healthy)
                    .endStatus();
        }
        return b.build();
    }

    static Stream<Arguments> changes() {
        return Stream.of(
                Arguments.of("replacement Ready: 0 → 1 allowed", pdb(1, 1L, 0, 9), pdb(1, 1L, 1, 10), 1),
                Arguments.of("two replacements Ready: 0 → 2", pdb(1, 1L, 0, 8), pdb(1, 1L, 2, 10), 2),
                Arguments.of("an eviction spent it: 1 → 0", pdb(1, 1L, 1, 10), pdb(1, 1L, 0, 10), 0),
                Arguments.of("a pod went unhealthy, still 0", pdb(1, 1L, 0, 9), pdb(1, 1L, 0, 8), 0),
                Arguments.of("still admits one, healthy moved (folded events)", pdb(1, 1L, 1, 9), pdb(1, 1L, 1, 10), 1),
                Arguments.of("still admits one, nothing moved (a resync)", pdb(1, 1L, 1, 10), pdb(1, 1L, 1, 10), 0),
                Arguments.of("spec changed, status not caught up", pdb(1, 1L, 1, 10), pdb(2, 1L, 1, 10), 0),
                Arguments.of("status caught up with the spec", pdb(2, 1L, 1, 10), pdb(2, 2L, 1, 10), 1),
                Arguments.of("first status written", pdb(1, null, null, null), pdb(1, 1L, 1, 10), 1),
                Arguments.of("first seen (add, re-list), admits", null, pdb(1, 1L, 3, 10), 3),
                Arguments.of("first seen, admits none", null, pdb(1, 1L, 0, 10), 0),
                Arguments.of("no status", pdb(1, 1L, 0, 9), pdb(1, null, null, null), 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("changes")
    void freesWhatTheBudgetNowAdmitsOnlyWhenTheChangeCouldHaveFreedIt(
            String name, PodDisruptionBudget before, PodDisruptionBudget after, int frees) {
        assertThat(BudgetRelease.frees(before, after)).isEqualTo(frees);
    }

    static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    static final Instant NOW = T0.plusSeconds(3);

    static BudgetRelease.Refusal refused(int secondsAfterT0, String... budgets) {
        Instant at = T0.plusSeconds(secondsAfterT0);
        return new BudgetRelease.Refusal(at, at.plusSeconds(60), List.of(budgets));
    }

    static Stream<Arguments> releases() {
        Map<String, BudgetRelease.Refusal> three = Map.of(
                "c", refused(2, "shop/web"),
                "a", refused(0, "shop/web"),
                "b", refused(1, "shop/web"),
                "x", refused(0, "shop/other"));
        return Stream.of(
                Arguments.of("one admitted: the oldest refusal", three, "shop/web", 1, Set.of("a")),
                Arguments.of("two admitted: the two oldest", three, "shop/web", 2, Set.of("a", "b")),
                Arguments.of("more admitted than refused: all of its", three, "shop/web", 9, Set.of("a", "b", "c")),
                Arguments.of("deleted budget: all of its", three, "shop/web", BudgetRelease.ALL, Set.of("a", "b", "c")),
                Arguments.of("another budget's pods stay", three, "shop/none", 5, Set.of()),
                Arguments.of(
                        "one already free to go takes the slot (the same change heard twice)",
                        Map.of(
                                "a", refused(0, "shop/web").retryFrom(T0.plusSeconds(2)),
                                "b", refused(1, "shop/web")),
                        "shop/web",
                        1,
                        Set.of()),
                Arguments.of(
                        "a pod two budgets refused goes with either",
                        Map.of("a", refused(0, "shop/web", "shop/other")),
                        "shop/other",
                        1,
                        Set.of("a")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("releases")
    void releasesTheOldestRefusalsOfThatBudgetAsManyAsItAdmits(
            String name, Map<String, BudgetRelease.Refusal> refused, String budget, int admits, Set<String> released) {
        assertThat(BudgetRelease.released(refused, budget, admits, NOW)).isEqualTo(released);
    }
}
