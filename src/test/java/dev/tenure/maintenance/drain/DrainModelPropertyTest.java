package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.DrainBehavior;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * A model over generated drain plans: nodes with pods of every kind, rules, labels and options, drained step by step
 * by the real planner ({@link DrainPlan}, {@link PodFilters}, {@link DrainRules}, {@link DrainWaves}) against a
 * simulated node (evictions succeed or are refused by a budget model, evicted pods go after a few steps, pods
 * complete at their own times), each step checked against an oracle that states the drain semantics independently
 * (docs/node-maintenance.md, "Rules, labels and order").
 *
 * <p>Tries: {@code jqwik.tries.default} (10,000, a system property the pom gives the test JVM; {@code make chaos}
 * passes more). A failure prints jqwik's seed and the shrunk case.
 */
class DrainModelPropertyTest {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final Duration STEP = Duration.ofSeconds(5);
    /** Every pod in the model completes or goes within this many steps; a plan without timeouts must end by then. */
    static final int MAX_STEPS = 400;

    enum Kind {
        ORDINARY, // ReplicaSet
        JOB,
        DAEMONSET, // its DaemonSet exists: never completes, never goes
        ORPHAN_DAEMONSET, // its DaemonSet is gone: an ordinary pod then, which may end
        MIRROR, // kubelet's mirror of a static pod, annotated
        STATIC, // a mirror pod owned by its Node, as kubelet writes it
        COMPLETED, // phase Succeeded from the start
        TERMINATING, // deletionTimestamp set from the start
        UNMANAGED, // no controller
        EMPTYDIR // ReplicaSet, with an emptyDir volume
    }

    /** One generated pod. {@code completesAt}: the step its containers finish (DaemonSet and mirror pods never). */
    record PodSpec(
            Kind kind,
            String app,
            String drainLabel,
            int priorityChoice,
            int budget,
            int completesAt,
            int terminationSteps,
            String orderAnnotation) {}

    record RuleSpec(String app, DrainBehavior behavior, Integer order) {}

    record OptionSpec(
            boolean ignoreDaemonSets,
            boolean deleteEmptyDirData,
            boolean force,
            boolean disableEviction,
            boolean skipWait,
            int drainTimeoutSteps,
            int waitCompletedTimeoutSteps) {}

    record Case(List<PodSpec> pods, List<RuleSpec> rules, OptionSpec options, List<Integer> budgetLimits) {}

    static final String[] LABELS = {
        null,
        null,
        null,
        "skip",
        "SKIP",
        "Skip",
        "wait-completed",
        "WAIT-COMPLETED",
        "Wait-Completed",
        "WaitCompleted",
        "yes",
        ""
    };

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<PodSpec> pod = Combinators.combine(
                        Arbitraries.frequencyOf(
                                Tuple.of(6, Arbitraries.just(Kind.ORDINARY)), Tuple.of(10, Arbitraries.of(Kind.class))),
                        Arbitraries.of("a", "b", "c"),
                        Arbitraries.of(LABELS),
                        Arbitraries.integers().between(0, 6),
                        Arbitraries.integers().between(0, 2),
                        Arbitraries.integers().between(1, 40),
                        Arbitraries.integers().between(1, 3),
                        Arbitraries.of("-9", "5", "x").injectNull(0.7))
                .as(PodSpec::new);
        Arbitrary<RuleSpec> rule = Arbitraries.of(DrainBehavior.class)
                .flatMap(b -> Arbitraries.of("a", "b", "c")
                        .injectNull(0.3)
                        .flatMap(app -> (b == DrainBehavior.Drain
                                        ? Arbitraries.integers().between(-2, 3).injectNull(0.3)
                                        : Arbitraries.just((Integer) null))
                                .map(order -> new RuleSpec(app, b, order))));
        Arbitrary<OptionSpec> options = Combinators.combine(
                        Arbitraries.integers().between(0, 9).map(i -> i > 0),
                        Arbitraries.integers().between(0, 3).map(i -> i > 0),
                        Arbitraries.integers().between(0, 3).map(i -> i > 0),
                        Arbitraries.integers().between(0, 4).map(i -> i == 0),
                        Arbitraries.integers().between(0, 2).map(i -> i == 0),
                        Arbitraries.of(0, 0, 6, 60),
                        Arbitraries.of(0, 0, 10))
                .as(OptionSpec::new);
        return Combinators.combine(
                        pod.list().ofMinSize(1).ofMaxSize(8),
                        rule.list().ofMaxSize(3),
                        options,
                        Arbitraries.integers().between(1, 2).list().ofSize(2))
                .as(Case::new);
    }

    // ---- the oracle: the drain semantics, stated apart from the planner ----

    enum Fate {
        UNTOUCHED, // DaemonSet (its DaemonSet exists) or mirror pod: never evicted, never waited for
        SKIP,
        WAIT_COMPLETED,
        DRAIN
    }

    record Judged(Fate fate, int wave) {}

    static Judged judge(PodSpec p, List<RuleSpec> rules, OptionSpec o) {
        if (p.kind() == Kind.MIRROR || p.kind() == Kind.STATIC) {
            return new Judged(Fate.UNTOUCHED, 0);
        }
        if (p.kind() == Kind.DAEMONSET) {
            return new Judged(Fate.UNTOUCHED, 0);
        }
        String label = p.drainLabel() == null ? null : p.drainLabel().toLowerCase(Locale.ROOT);
        if ("skip".equals(label)) {
            return new Judged(Fate.SKIP, 0);
        }
        if ("wait-completed".equals(label) || "waitcompleted".equals(label)) { // Cluster API: the hyphen optional
            return new Judged(Fate.WAIT_COMPLETED, 0);
        }
        for (RuleSpec r : rules) {
            if (r.app() == null || r.app().equals(p.app())) {
                return switch (r.behavior()) {
                    case Skip -> new Judged(Fate.SKIP, 0);
                    case WaitCompleted -> new Judged(Fate.WAIT_COMPLETED, 0);
                    case Drain -> new Judged(Fate.DRAIN, r.order() != null ? r.order() : defaultWave(p));
                };
            }
        }
        return new Judged(Fate.DRAIN, defaultWave(p));
    }

    /** kubectl's one wave, system-cluster-critical after, system-node-critical and DaemonSet pods last. */
    static int defaultWave(PodSpec p) {
        if (p.kind() == Kind.ORPHAN_DAEMONSET || p.priorityChoice() == 6) {
            return DrainRules.LAST;
        }
        return p.priorityChoice() == 5 ? DrainRules.CLUSTER_CRITICAL : 0;
    }

    /** kubectl's refusing filters, rules applied after the DaemonSet and mirror filters. */
    static boolean refuses(PodSpec p, Judged j, OptionSpec o) {
        boolean finished = p.kind() == Kind.COMPLETED;
        if (p.kind() == Kind.DAEMONSET) {
            return !o.ignoreDaemonSets();
        }
        if (p.kind() == Kind.ORPHAN_DAEMONSET && !o.force()) {
            return true;
        }
        if (j.fate() != Fate.DRAIN) {
            return false;
        }
        if (!finished && p.kind() == Kind.EMPTYDIR && !o.deleteEmptyDirData()) {
            return true;
        }
        return !finished && p.kind() == Kind.UNMANAGED && !o.force();
    }

    // ---- the simulated node ----

    static final class SimPod {
        final PodSpec spec;
        final Judged judged;
        final String name;
        boolean completed;
        Integer terminatingSince; // step
        int goneAt = Integer.MAX_VALUE;
        private Pod built;
        private String builtFor;

        SimPod(PodSpec spec, Judged judged, String name) {
            this.spec = spec;
            this.judged = judged;
            this.name = name;
            this.completed = spec.kind() == Kind.COMPLETED;
        }

        boolean neverEnds() {
            return spec.kind() == Kind.DAEMONSET || spec.kind() == Kind.MIRROR || spec.kind() == Kind.STATIC;
        }

        String key() {
            return "ns/" + name;
        }

        Pod toPod() {
            String state = completed + "/" + terminatingSince;
            if (!state.equals(builtFor)) {
                built = build();
                builtFor = state;
            }
            return built;
        }

        private Pod build() {
            PodBuilder b = new PodBuilder()
                    .withNewMetadata()
                    .withNamespace("ns")
                    .withName(name)
                    .withUid("uid-" + name)
                    .addToLabels("app", spec.app())
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName("n1")
                    .endSpec()
                    .withNewStatus()
                    .withPhase(completed ? "Succeeded" : "Running")
                    .addNewCondition()
                    .withType("Ready")
                    .withStatus(completed || terminatingSince != null ? "False" : "True")
                    .endCondition()
                    .endStatus();
            if (spec.budget() > 0) {
                b.editMetadata().addToLabels("budget", "b" + spec.budget()).endMetadata();
            }
            if (spec.drainLabel() != null) {
                b.editMetadata()
                        .addToLabels(DrainRules.SKIP_LABEL, spec.drainLabel())
                        .endMetadata();
            }
            if (spec.orderAnnotation() != null) {
                b.editMetadata()
                        .addToAnnotations(DrainRules.ORDER_ANNOTATION, spec.orderAnnotation())
                        .endMetadata();
            }
            switch (spec.priorityChoice()) {
                case 1 -> b.editSpec().withPriority(-5).endSpec();
                case 2 -> b.editSpec().withPriority(0).endSpec();
                case 3 -> b.editSpec().withPriority(100).endSpec();
                case 4 -> b.editSpec().withPriority(1_000_000_000).endSpec();
                case 5 ->
                    b.editSpec()
                            .withPriority(2_000_000_000)
                            .withPriorityClassName("system-cluster-critical")
                            .endSpec();
                case 6 ->
                    b.editSpec()
                            .withPriority(2_000_001_000)
                            .withPriorityClassName("system-node-critical")
                            .endSpec();
                default -> {}
            }
            switch (spec.kind()) {
                case ORDINARY, COMPLETED, TERMINATING -> owner(b, "ReplicaSet", "rs-" + spec.app());
                case EMPTYDIR ->
                    owner(b, "ReplicaSet", "rs-" + spec.app())
                            .editSpec()
                            .addNewVolume()
                            .withName("scratch")
                            .withNewEmptyDir()
                            .endEmptyDir()
                            .endVolume()
                            .endSpec();
                case JOB -> owner(b, "Job", "job-" + spec.app());
                case DAEMONSET -> owner(b, "DaemonSet", "ds");
                case ORPHAN_DAEMONSET -> owner(b, "DaemonSet", "gone-ds");
                case MIRROR ->
                    b.editMetadata()
                            .addToAnnotations(PodFilters.MIRROR_ANNOTATION, "hash")
                            .endMetadata();
                case STATIC ->
                    owner(b, "Node", "n1")
                            .editMetadata()
                            .addToAnnotations(PodFilters.MIRROR_ANNOTATION, "hash")
                            .endMetadata();
                case UNMANAGED -> {}
            }
            if (terminatingSince != null) {
                b.editMetadata()
                        .withDeletionTimestamp(
                                T0.plus(STEP.multipliedBy(terminatingSince)).toString())
                        .endMetadata();
            }
            return b.build();
        }

        private static PodBuilder owner(PodBuilder b, String kind, String name) {
            return b.editMetadata()
                    .addNewOwnerReference()
                    .withApiVersion("v1")
                    .withKind(kind)
                    .withName(name)
                    .withUid("owner-" + name)
                    .withController(true)
                    .endOwnerReference()
                    .endMetadata();
        }
    }

    enum Outcome {
        COMPLETE,
        REFUSED,
        TIMED_OUT,
        WAIT_COMPLETED_TIMED_OUT,
        NEVER_ENDED
    }

    static DrainOptions options(Case c) {
        OptionSpec o = c.options();
        List<DrainRules.Rule> rules = c.rules().stream()
                .map(r ->
                        new DrainRules.Rule(null, r.app() == null ? null : selector(r.app()), r.behavior(), r.order()))
                .toList();
        return new DrainOptions(
                o.drainTimeoutSteps() == 0 ? Optional.empty() : Optional.of(STEP.multipliedBy(o.drainTimeoutSteps())),
                -1,
                o.ignoreDaemonSets(),
                o.deleteEmptyDirData(),
                o.force(),
                null,
                STEP,
                o.skipWait() ? Optional.of(STEP.multipliedBy(2)) : Optional.empty(),
                o.disableEviction(),
                new DrainRules(rules),
                o.waitCompletedTimeoutSteps() == 0
                        ? Optional.empty()
                        : Optional.of(STEP.multipliedBy(o.waitCompletedTimeoutSteps())),
                VolumeDetach.Options.off(),
                null,
                null);
    }

    static LabelSelector selector(String app) {
        return new LabelSelectorBuilder().addToMatchLabels("app", app).build();
    }

    @Property
    void everyPlanKeepsTheDrainSemanticsAndEnds(@ForAll("cases") Case c) {
        DrainOptions options = options(c);
        OptionSpec o = c.options();
        List<SimPod> node = new ArrayList<>();
        for (int i = 0; i < c.pods().size(); i++) {
            PodSpec p = c.pods().get(i);
            SimPod s = new SimPod(p, judge(p, c.rules(), o), p.kind().name().toLowerCase(Locale.ROOT) + "-" + i);
            if (p.kind() == Kind.TERMINATING) {
                s.terminatingSince = 0;
                s.goneAt = p.terminationSteps() + 1;
            }
            node.add(s);
        }
        boolean oracleRefuses = node.stream().anyMatch(s -> refuses(s.spec, s.judged, o));
        Map<String, Instant> retryNotBefore = new HashMap<>();
        Outcome outcome = Outcome.NEVER_ENDED;
        for (int step = 0; step < MAX_STEPS; step++) {
            int k = step;
            Instant now = T0.plus(STEP.multipliedBy(step));
            node.removeIf(s -> s.goneAt <= k);
            for (SimPod s : node) {
                if (!s.neverEnds() && !s.completed && s.terminatingSince == null && s.spec.completesAt() <= k) {
                    s.completed = true;
                }
            }
            DrainPlan plan = DrainPlan.of(
                    node.stream().map(SimPod::toPod).toList(),
                    options,
                    new DrainPlan.Observed(Set.of("ns/ds"), false, Duration.ZERO, retryNotBefore),
                    now);
            DrainWaves waves = DrainWaves.of(plan); // status is computed every step
            assertThat(waves.current()).isEqualTo(plan.currentWave().orElse(null));
            for (SimPod s : node) {
                String label = s.spec.drainLabel();
                boolean unknown = label != null
                        && !label.equalsIgnoreCase(DrainRules.SKIP_VALUE)
                        && !label.equalsIgnoreCase(DrainRules.WAIT_VALUE)
                        && !label.equalsIgnoreCase("WaitCompleted");
                if (unknown && s.judged.fate() == Fate.DRAIN && !goneBySkipWait(s, o, k)) {
                    assertThat(plan.warnings())
                            .as("an unknown %s value on %s is named", DrainRules.SKIP_LABEL, s.key())
                            .anyMatch(w -> w.contains(s.key()));
                }
            }
            if (plan.refused()) {
                assertThat(oracleRefuses)
                        .as("refused though no pod refuses the drain: %s", plan.verdicts())
                        .isTrue();
                assertThat(step)
                        .as("a drain is refused before anything is evicted")
                        .isZero();
                outcome = Outcome.REFUSED;
                break;
            }
            assertThat(oracleRefuses)
                    .as("a pod refuses the drain, the plan does not: %s", plan.verdicts())
                    .isFalse();
            if (plan.complete()) {
                for (SimPod s : node) {
                    assertThat(s.judged.fate() == Fate.DRAIN && !goneBySkipWait(s, o, k))
                            .as("complete with a pod to drain still on the node: %s", s.key())
                            .isFalse();
                    assertThat(s.judged.fate() == Fate.WAIT_COMPLETED && !s.completed && !goneBySkipWait(s, o, k))
                            .as("complete with a WaitCompleted pod still running: %s", s.key())
                            .isFalse();
                }
                outcome = Outcome.COMPLETE;
                break;
            }
            if (o.drainTimeoutSteps() > 0 && step >= o.drainTimeoutSteps()) {
                outcome = Outcome.TIMED_OUT;
                break;
            }
            if (o.waitCompletedTimeoutSteps() > 0
                    && step >= o.waitCompletedTimeoutSteps()
                    && !plan.with(DrainPlan.Action.WAIT_COMPLETED).isEmpty()) {
                outcome = Outcome.WAIT_COMPLETED_TIMED_OUT;
                break;
            }
            Map<String, SimPod> byKey =
                    node.stream().collect(Collectors.toMap(SimPod::key, s -> s, (a, b) -> a, LinkedHashMap::new));
            // what the oracle says is sent now: the Drain pods of the lowest wave that holds a pod, ready to go
            List<SimPod> holding = node.stream()
                    .filter(s -> !goneBySkipWait(s, o, k))
                    .filter(s ->
                            s.judged.fate() == Fate.DRAIN || (s.judged.fate() == Fate.WAIT_COMPLETED && !s.completed))
                    .toList();
            Optional<Integer> wave = holding.stream().map(s -> s.judged.wave()).min(Integer::compare);
            Set<String> expected = holding.stream()
                    .filter(s -> s.judged.fate() == Fate.DRAIN && s.judged.wave() == wave.orElseThrow())
                    .filter(s -> s.terminatingSince == null)
                    .filter(s -> o.disableEviction()
                            || !retryNotBefore.containsKey("uid-" + s.name)
                            || !now.isBefore(retryNotBefore.get("uid-" + s.name)))
                    .map(SimPod::key)
                    .collect(Collectors.toSet());
            for (DrainPlan.PodVerdict v : plan.toSend()) {
                SimPod s = byKey.get(v.key());
                assertThat(s.judged.fate())
                        .as(
                                "%s sent, but it is %s (a Skip or WaitCompleted pod is never evicted; DaemonSet and"
                                        + " mirror pods are never touched)",
                                v.key(), s.judged.fate())
                        .isEqualTo(Fate.DRAIN);
                List<String> earlier = holding.stream()
                        .filter(h -> h.judged.wave() < s.judged.wave())
                        .map(h -> h.key() + " (" + h.judged.fate() + ", wave " + h.judged.wave() + ")")
                        .toList();
                assertThat(earlier)
                        .as("%s of wave %d sent while an earlier wave still runs", v.key(), s.judged.wave())
                        .isEmpty();
            }
            assertThat(plan.toSend().stream().map(DrainPlan.PodVerdict::key).collect(Collectors.toSet()))
                    .as("sent now: every ready pod of the current wave %s, no other", wave.orElse(null))
                    .isEqualTo(expected);
            // the preview of this step (issue 37), when no refusal is remembered in the current wave (a preview
            // knows none): the budgets it says the wave's pods wait for are those the drain now meets refused
            boolean fresh = plan.currentWavePods().stream().noneMatch(v -> v.action() == DrainPlan.Action.RETRY_LATER);
            List<String> previewWaits = fresh ? previewWaits(plan, node, c.budgetLimits(), options, now) : List.of();
            List<String> met = new ArrayList<>();
            for (DrainPlan.PodVerdict v : plan.toSend()) {
                SimPod s = byKey.get(v.key());
                if (v.action() == DrainPlan.Action.DELETE || s.completed || budgetAllows(s, node, c.budgetLimits())) {
                    s.terminatingSince = k;
                    s.goneAt = k + s.spec.terminationSteps();
                } else {
                    retryNotBefore.put(v.uid(), now.plus(options.evictionRetryDelay()));
                    met.add("ns/b" + s.spec.budget());
                }
            }
            if (fresh) {
                assertThat(met.stream().sorted().toList())
                        .as("the budgets the preview says the current wave waits for are those the drain meets")
                        .isEqualTo(previewWaits);
            }
        }
        if (o.drainTimeoutSteps() == 0 && o.waitCompletedTimeoutSteps() == 0) {
            assertThat(outcome)
                    .as("without timeouts, a plan whose pods all complete or are evictable completes")
                    .isIn(Outcome.COMPLETE, Outcome.REFUSED);
        } else {
            assertThat(outcome).as("a plan with a timeout ends").isNotEqualTo(Outcome.NEVER_ENDED);
        }
    }

    /** A terminating pod older than skipWaitForDeleteTimeout counts as gone (kubectl's skipDeletedFilter). */
    static boolean goneBySkipWait(SimPod s, OptionSpec o, int step) {
        return o.skipWait() && s.terminatingSince != null && step - s.terminatingSince > 2;
    }

    /**
     * The budget model: at most {@code limits} pods of a budget's group disrupted (evicted while running, still
     * terminating) at once. A finished pod's eviction asks no budget and spends none (kube-apiserver's canIgnorePDB).
     */
    static boolean budgetAllows(SimPod s, List<SimPod> node, List<Integer> limits) {
        if (s.spec.budget() == 0) {
            return true;
        }
        return disrupted(s.spec.budget(), node) < limits.get(s.spec.budget() - 1);
    }

    static long disrupted(int budget, List<SimPod> node) {
        return node.stream()
                .filter(o -> o.spec.budget() == budget && o.terminatingSince != null && !o.completed)
                .count();
    }

    /**
     * The preview's answer for the current wave: one "ns/b&lt;n&gt;" per pod it says waits for budget n, sorted. The
     * budgets' status is what the disruption controller would write for the model: {@code disruptionsAllowed} the
     * limit less the group's disrupted pods, every running pod not terminating Ready.
     */
    static List<String> previewWaits(
            DrainPlan plan, List<SimPod> node, List<Integer> limits, DrainOptions options, Instant now) {
        List<io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget> pdbs = new ArrayList<>();
        for (int b = 1; b <= limits.size(); b++) {
            int allowed = (int) Math.max(0, limits.get(b - 1) - disrupted(b, node));
            int bb = b;
            int healthy = (int) node.stream()
                    .filter(o -> o.spec.budget() == bb && !o.completed && o.terminatingSince == null)
                    .count();
            pdbs.add(new io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder()
                    .withNewMetadata()
                    .withNamespace("ns")
                    .withName("b" + b)
                    .endMetadata()
                    .withNewSpec()
                    .withNewSelector()
                    .addToMatchLabels("budget", "b" + b)
                    .endSelector()
                    .endSpec()
                    .withNewStatus()
                    .withDisruptionsAllowed(allowed)
                    .withCurrentHealthy(healthy)
                    .withDesiredHealthy(Math.max(0, healthy - allowed))
                    .endStatus()
                    .build());
        }
        Integer current = plan.currentWave().orElse(null);
        Map<String, BudgetSimulation.PodOutlook> outlooks =
                BudgetSimulation.of(plan, node.stream().map(SimPod::toPod).toList(), Map.of("ns", pdbs), options, now);
        return plan.verdicts().stream()
                .filter(v -> current != null && v.wave() == current)
                .map(v -> outlooks.get(v.key()))
                .filter(o -> o.outlook() == dev.tenure.maintenance.api.DrainOutlook.WaitsForBudget)
                .flatMap(o -> o.budgets().stream())
                .sorted()
                .toList();
    }
}
