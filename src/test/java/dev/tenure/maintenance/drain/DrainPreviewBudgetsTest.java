package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.DrainBehavior;
import dev.tenure.maintenance.api.DrainOutlook;
import dev.tenure.maintenance.api.DrainPlanStatus.PlannedPod;
import dev.tenure.maintenance.api.DrainRule;
import dev.tenure.maintenance.api.DrainSpec;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 37, the preview: each case a node (pods with their labels, readiness and grace periods), its budgets (status
 * as the disruption controller writes it) and rules, and what the preview must say of each pod: which budget it waits
 * for, its outlook, and when its eviction can be expected at the grace periods.
 */
class DrainPreviewBudgetsTest {

    static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");

    /** A pod: app label, Ready or not, grace period (seconds). */
    record P(String name, String app, boolean ready, long grace) {
        Pod pod() {
            return new PodBuilder()
                    .withNewMetadata()
                    .withNamespace("ns")
                    .withName(name)
                    .withUid("uid-" + name)
                    .addToLabels("app", app)
                    .addToLabels("group", app.substring(0, 1))
                    .addNewOwnerReference()
                    .withKind("ReplicaSet")
                    .withName("rs-" + app)
                    .withController(true)
                    .withApiVersion("apps/v1")
                    .withUid("o-" + app)
                    .endOwnerReference()
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName("n1")
                    .withTerminationGracePeriodSeconds(grace)
                    .endSpec()
                    .withNewStatus()
                    .withPhase("Running")
                    .addNewCondition()
                    .withType("Ready")
                    .withStatus(ready ? "True" : "False")
                    .endCondition()
                    .endStatus()
                    .build();
        }
    }

    /**
     * A budget over pods of {@code app} (or of a group, "group:w": the apps starting with w), status as the controller
     * writes it; {@code allowed} null: no status yet.
     */
    record B(String name, String app, Integer allowed, int current, int desired, String policy) {
        PodDisruptionBudget pdb() {
            PodDisruptionBudgetBuilder b = new PodDisruptionBudgetBuilder()
                    .withNewMetadata()
                    .withNamespace("ns")
                    .withName(name)
                    .withGeneration(1L)
                    .endMetadata()
                    .withNewSpec()
                    .withMaxUnavailable(new IntOrString(1))
                    .withNewSelector()
                    .addToMatchLabels(
                            app.startsWith("group:") ? "group" : "app",
                            app.startsWith("group:") ? app.substring("group:".length()) : app)
                    .endSelector()
                    .withUnhealthyPodEvictionPolicy(policy)
                    .endSpec();
            if (allowed != null) {
                b.withNewStatus()
                        .withObservedGeneration(1L)
                        .withDisruptionsAllowed(allowed)
                        .withCurrentHealthy(current)
                        .withDesiredHealthy(desired)
                        .withExpectedPods(current + 1)
                        .endStatus();
            }
            return b.build();
        }
    }

    /** What the preview says of a pod: the budgets it waits for (null: none), outlook, estimate (null: none). */
    record E(List<String> budgets, DrainOutlook outlook, Long seconds) {}

    static E now() {
        return new E(null, DrainOutlook.EvictsNow, 0L);
    }

    static E inWave(Long seconds) {
        return new E(null, DrainOutlook.EvictsInItsWave, seconds);
    }

    static E waits(String budget, Long seconds) {
        return new E(List.of(budget), DrainOutlook.WaitsForBudget, seconds);
    }

    static Map<String, E> expect(Object... keyThenE) {
        Map<String, E> m = new LinkedHashMap<>();
        for (int i = 0; i < keyThenE.length; i += 2) {
            m.put("ns/" + keyThenE[i], (E) keyThenE[i + 1]);
        }
        return m;
    }

    /** A rule that puts pods of {@code app} in wave {@code order}. */
    static DrainRule order(String app, int order) {
        return new DrainRule(
                null, new LabelSelectorBuilder().addToMatchLabels("app", app).build(), DrainBehavior.Drain, order);
    }

    static Arguments row(String name, List<P> pods, List<B> budgets, List<DrainRule> rules, Map<String, E> expected) {
        return Arguments.of(name, pods, budgets, rules, expected);
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                row(
                        "two Ready pods under maxUnavailable 1: the first goes, the second waits behind it",
                        List.of(new P("web-0", "web", true, 30), new P("web-1", "web", true, 30)),
                        List.of(new B("web", "web", 1, 2, 1, null)),
                        List.of(),
                        expect("web-0", now(), "web-1", waits("ns/web", 30L))),
                row(
                        "three pods under a budget of two: the third waits for the first one's grace",
                        List.of(new P("a-0", "a", true, 10), new P("a-1", "a", true, 40), new P("a-2", "a", true, 20)),
                        List.of(new B("a", "a", 2, 3, 1, null)),
                        List.of(),
                        expect("a-0", now(), "a-1", now(), "a-2", waits("ns/a", 10L))),
                row(
                        "a Ready pod under a budget that allows nothing now waits, no time can be stated",
                        List.of(new P("db-0", "db", true, 30)),
                        List.of(new B("db", "db", 0, 2, 2, null)),
                        List.of(),
                        expect("db-0", waits("ns/db", null))),
                row(
                        "a not-Ready pod under AlwaysAllow goes even when the budget allows nothing",
                        List.of(new P("crash-0", "crash", false, 30)),
                        List.of(new B("crash", "crash", 0, 1, 2, "AlwaysAllow")),
                        List.of(),
                        expect("crash-0", now())),
                row(
                        "a not-Ready pod under IfHealthyBudget with a healthy budget goes without spending it; the"
                                + " Ready ones wait",
                        List.of(
                                new P("slow-0", "slow", false, 30),
                                new P("slow-1", "slow", true, 30),
                                new P("slow-2", "slow", true, 30)),
                        List.of(new B("slow", "slow", 0, 2, 2, "IfHealthyBudget")),
                        List.of(),
                        expect("slow-0", now(), "slow-1", waits("ns/slow", null), "slow-2", waits("ns/slow", null))),
                row(
                        "a not-Ready pod under IfHealthyBudget with an unhealthy budget waits",
                        List.of(new P("sick-0", "sick", false, 30)),
                        List.of(new B("sick", "sick", 0, 1, 2, "IfHealthyBudget")),
                        List.of(),
                        expect("sick-0", waits("ns/sick", null))),
                row(
                        "the default policy (IfHealthyBudget): a not-Ready pod goes while the budget keeps its"
                                + " healthy pods, even after a Ready one spent it; the next Ready one waits",
                        List.of(new P("m-0", "m", true, 30), new P("m-1", "m", false, 30), new P("m-2", "m", true, 30)),
                        List.of(new B("m", "m", 1, 2, 1, null)),
                        List.of(),
                        expect("m-0", now(), "m-1", now(), "m-2", waits("ns/m", 30L))),
                row(
                        "a pod two budgets select is refused (HTTP 500), named with both; the other pods go",
                        List.of(new P("x-0", "x", true, 30), new P("y-0", "y", true, 30)),
                        List.of(new B("x", "x", 5, 5, 0, null), new B("all-x", "x", 5, 5, 0, null)),
                        List.of(),
                        expect("x-0", new E(List.of("ns/all-x", "ns/x"), DrainOutlook.Refused, null), "y-0", now())),
                row(
                        "waves in order: each later wave starts at the grace periods of the earlier ones",
                        List.of(
                                new P("web-0", "web", true, 30),
                                new P("api-0", "api", true, 20),
                                new P("late-0", "late", true, 10)),
                        List.of(new B("shared", "web", 1, 2, 1, null), new B("api", "api", 1, 2, 1, null)),
                        List.of(order("api", 3), order("late", 5)),
                        expect("web-0", now(), "api-0", inWave(30L), "late-0", inWave(50L))),
                row(
                        "a pod waiting for a budget that allows nothing holds its wave: no time for the later ones",
                        List.of(new P("db-0", "db", true, 30), new P("api-0", "api", true, 20)),
                        List.of(new B("db", "db", 0, 2, 2, null)),
                        List.of(order("api", 3)),
                        expect("db-0", waits("ns/db", null), "api-0", inWave(null))),
                row(
                        "one budget over two waves: spent in wave 0, still spent in wave 3 (a replacement's"
                                + " readiness is not known)",
                        List.of(new P("w-0", "w", true, 30), new P("w2-0", "w2", true, 5)),
                        List.of(new B("both", "group:w", 1, 2, 1, null)),
                        List.of(order("w2", 3)),
                        expect("w-0", now(), "w2-0", waits("ns/both", 30L))),
                row(
                        "a budget the disruption controller has not counted yet refuses every eviction",
                        List.of(new P("new-0", "new", true, 30)),
                        List.of(new B("new", "new", null, 0, 0, null)),
                        List.of(),
                        expect("new-0", waits("ns/new", null))));
    }

    static List<PlannedPod> preview(List<P> pods, List<B> budgets, List<DrainRule> rules) {
        DrainSpec spec = new DrainSpec();
        spec.setRules(rules);
        DrainOptions options = DrainOptions.from(spec);
        List<Pod> onNode = pods.stream().map(P::pod).toList();
        DrainPlan plan = DrainPlan.of(onNode, options, DrainPlan.Observed.healthyNode(), NOW);
        Map<String, List<PodDisruptionBudget>> byNamespace =
                Map.of("ns", budgets.stream().map(B::pdb).toList());
        return DrainPreview.of(plan, onNode, byNamespace, options, NOW);
    }

    /** The blocked set: the pods the preview names a budget for (the field the preview had before issue 37). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void thePreviewNamesTheBudgetsEachPodWillMeet(
            String name, List<P> pods, List<B> budgets, List<DrainRule> rules, Map<String, E> expected) {
        Map<String, List<String>> blocked = new LinkedHashMap<>();
        preview(pods, budgets, rules).forEach(p -> blocked.put(p.getPod(), p.getBlockingBudgets()));
        Map<String, List<String>> want = new LinkedHashMap<>();
        expected.forEach((k, e) -> want.put(k, e.budgets()));
        assertThat(blocked).isEqualTo(want);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void thePreviewSaysWhenEachPodGoes(
            String name, List<P> pods, List<B> budgets, List<DrainRule> rules, Map<String, E> expected) {
        Map<String, E> said = new LinkedHashMap<>();
        for (PlannedPod p : preview(pods, budgets, rules)) {
            said.put(p.getPod(), new E(p.getBlockingBudgets(), p.getOutlook(), p.getEstimatedSeconds()));
            assertThat(p.getOutlookReason()).as("why, for %s", p.getPod()).isNotBlank();
        }
        assertThat(said).isEqualTo(expected);
    }

    /** The preview lists the pods in drain order: waves ascending, then the pods not drained. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void everyPodIsListedOnce(
            String name, List<P> pods, List<B> budgets, List<DrainRule> rules, Map<String, E> expected) {
        List<String> listed =
                preview(pods, budgets, rules).stream().map(PlannedPod::getPod).toList();
        assertThat(Set.copyOf(listed)).isEqualTo(expected.keySet());
        assertThat(listed).hasSize(pods.size());
    }
}
