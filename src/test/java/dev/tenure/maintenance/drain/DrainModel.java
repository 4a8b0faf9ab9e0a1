package dev.tenure.maintenance.drain;

import dev.tenure.maintenance.api.DrainBehavior;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * The drain model's generators and oracle, one copy for its two runs: {@link DrainModelPropertyTest} (the real
 * planner against a simulated node, 1,000 plans in make test, 200,000 in make chaos) and {@link DrainModelOnClusterIT} (the real machine on the emulated
 * cluster, a handful in make test, 500 in make chaos). The generators make nodes with pods of every kind, rules, labels and drain options; the
 * oracle ({@link #judge}, {@link #refuses}) states the drain semantics apart from the planner (docs/node-maintenance.md,
 * "Rules, labels and order").
 */
final class DrainModel {

    /** One step of the model's time. */
    static final Duration STEP = Duration.ofSeconds(5);

    private DrainModel() {}

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
        EMPTYDIR; // ReplicaSet, with an emptyDir volume

        /** A DaemonSet or mirror pod: it never completes and never goes, on the simulated node or the cluster. */
        boolean neverEnds() {
            return this == DAEMONSET || this == MIRROR || this == STATIC;
        }
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

    /** Pods of every kind, ordinary ones more often, with labels, priorities, budgets and their own end times. */
    static Arbitrary<PodSpec> pods() {
        return Combinators.combine(
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
    }

    /** Up to three rules, each for one app or every pod; an order only on a Drain rule (the webhook refuses others). */
    static Arbitrary<List<RuleSpec>> rules() {
        return Arbitraries.of(DrainBehavior.class)
                .flatMap(b -> Arbitraries.of("a", "b", "c")
                        .injectNull(0.3)
                        .flatMap(app -> (b == DrainBehavior.Drain
                                        ? Arbitraries.integers().between(-2, 3).injectNull(0.3)
                                        : Arbitraries.just((Integer) null))
                                .map(order -> new RuleSpec(app, b, order))))
                .list()
                .ofMaxSize(3);
    }

    static Arbitrary<OptionSpec> options() {
        return Combinators.combine(
                        Arbitraries.integers().between(0, 9).map(i -> i > 0),
                        Arbitraries.integers().between(0, 3).map(i -> i > 0),
                        Arbitraries.integers().between(0, 3).map(i -> i > 0),
                        Arbitraries.integers().between(0, 4).map(i -> i == 0),
                        Arbitraries.integers().between(0, 2).map(i -> i == 0),
                        Arbitraries.of(0, 0, 6, 60),
                        Arbitraries.of(0, 0, 10))
                .as(OptionSpec::new);
    }

    /** The budgets b1 and b2: how many of their pods may be disrupted at once. */
    static Arbitrary<List<Integer>> budgetLimits() {
        return Arbitraries.integers().between(1, 2).list().ofSize(2);
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

    // ---- the pods, as the API server holds them ----

    /**
     * {@code spec} as a pod of {@code node} in {@code namespace} ({@code uid}: null to let the API server give one),
     * finished ({@code completed}) or terminating since {@code deletionTimestamp} (null: not terminating).
     */
    static Pod pod(
            PodSpec spec,
            String namespace,
            String name,
            String uid,
            String node,
            boolean completed,
            Instant deletionTimestamp) {
        PodBuilder b = new PodBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .withUid(uid)
                .addToLabels("app", spec.app())
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec()
                .withNewStatus()
                .withPhase(completed ? "Succeeded" : "Running")
                .addNewCondition()
                .withType("Ready")
                .withStatus(completed || deletionTimestamp != null ? "False" : "True")
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
            case DAEMONSET -> owner(b, "apps/v1", "DaemonSet", "ds");
            case ORPHAN_DAEMONSET -> owner(b, "apps/v1", "DaemonSet", "gone-ds");
            case MIRROR ->
                b.editMetadata()
                        .addToAnnotations(PodFilters.MIRROR_ANNOTATION, "hash")
                        .endMetadata();
            case STATIC ->
                owner(b, "Node", node)
                        .editMetadata()
                        .addToAnnotations(PodFilters.MIRROR_ANNOTATION, "hash")
                        .endMetadata();
            case UNMANAGED -> {}
        }
        if (deletionTimestamp != null) {
            b.editMetadata().withDeletionTimestamp(deletionTimestamp.toString()).endMetadata();
        }
        return b.build();
    }

    private static PodBuilder owner(PodBuilder b, String kind, String name) {
        return owner(b, "Node".equals(kind) ? "v1" : kind.equals("Job") ? "batch/v1" : "apps/v1", kind, name);
    }

    private static PodBuilder owner(PodBuilder b, String apiVersion, String kind, String name) {
        return b.editMetadata()
                .addNewOwnerReference()
                .withApiVersion(apiVersion)
                .withKind(kind)
                .withName(name)
                .withUid("owner-" + name)
                .withController(true)
                .endOwnerReference()
                .endMetadata();
    }
}
