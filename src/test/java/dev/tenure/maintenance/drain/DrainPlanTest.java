package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.drain.DrainPlan.Action;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DrainPlanTest {

    static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
    static final DrainOptions DEFAULTS = DrainOptions.defaults();

    static DrainOptions opts(UnaryOperator<DrainSpec> edit) {
        return DrainOptions.from(edit.apply(new DrainSpec()));
    }

    static PodBuilder pod(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("ns")
                .withName(name)
                .withUid("uid-" + name)
                .endMetadata()
                .withNewSpec()
                .withNodeName("n1")
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .endStatus();
    }

    static PodBuilder owned(String name, String kind, String owner) {
        return owned(name, "apps/v1", kind, owner);
    }

    static PodBuilder owned(String name, String apiVersion, String kind, String owner) {
        return pod(name)
                .editMetadata()
                .addNewOwnerReference()
                .withKind(kind)
                .withName(owner)
                .withController(true)
                .withApiVersion(apiVersion)
                .withUid("o")
                .endOwnerReference()
                .endMetadata();
    }

    static Pod rs(String name) {
        return owned(name, "ReplicaSet", "rs").build();
    }

    static Pod ds(String name) {
        return owned(name, "DaemonSet", "ds").build();
    }

    static Pod terminating(PodBuilder b, Duration ago) {
        return b.editMetadata()
                .withDeletionTimestamp(NOW.minus(ago).toString())
                .endMetadata()
                .build();
    }

    static Pod finished(PodBuilder b) {
        return b.editStatus().withPhase("Succeeded").endStatus().build();
    }

    static Pod emptyDir(PodBuilder b) {
        return b.editSpec()
                .addNewVolume()
                .withName("scratch")
                .withNewEmptyDir()
                .endEmptyDir()
                .endVolume()
                .endSpec()
                .build();
    }

    static Pod mirror(PodBuilder b) {
        return b.editMetadata()
                .addToAnnotations(PodFilters.MIRROR_ANNOTATION, "x")
                .endMetadata()
                .build();
    }

    static final DrainPlan.Observed HEALTHY =
            new DrainPlan.Observed(Set.of("ns/ds"), false, Duration.ofSeconds(5), Map.of());
    static final DrainPlan.Observed STALE =
            new DrainPlan.Observed(Set.of("ns/ds"), true, Duration.ofSeconds(5), Map.of());
    static final DrainPlan.Observed DS_GONE = new DrainPlan.Observed(Set.of(), false, Duration.ZERO, Map.of());
    static final DrainPlan.Observed PDB_REFUSED_RECENTLY =
            new DrainPlan.Observed(Set.of(), false, Duration.ZERO, Map.of("uid-a", NOW.plusSeconds(3)));
    static final DrainPlan.Observed PDB_REFUSED_LONG_AGO =
            new DrainPlan.Observed(Set.of(), false, Duration.ZERO, Map.of("uid-a", NOW.minusSeconds(1)));

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("ReplicaSet pod is evicted", rs("a"), DEFAULTS, HEALTHY, Action.EVICT),
                Arguments.of(
                        "disableEviction deletes",
                        rs("a"),
                        opts(s -> {
                            s.setDisableEviction(true);
                            return s;
                        }),
                        HEALTHY,
                        Action.DELETE),
                Arguments.of(
                        "DaemonSet pod is left (ignoreDaemonSets default)", ds("a"), DEFAULTS, HEALTHY, Action.LEAVE),
                Arguments.of(
                        "DaemonSet pod refuses without ignoreDaemonSets",
                        ds("a"),
                        opts(s -> {
                            s.setIgnoreDaemonSets(false);
                            return s;
                        }),
                        HEALTHY,
                        Action.REFUSE),
                Arguments.of("orphaned DaemonSet pod is evicted with force", ds("a"), DEFAULTS, DS_GONE, Action.EVICT),
                Arguments.of(
                        "orphaned DaemonSet pod refuses without force",
                        ds("a"),
                        opts(s -> {
                            s.setForce(false);
                            return s;
                        }),
                        DS_GONE,
                        Action.REFUSE),
                // kubectl's daemonSetFilter compares the group and version too (kubernetes/kubernetes#128779)
                Arguments.of(
                        "a DaemonSet of another API group is an ordinary controller: evicted",
                        owned("a", "apps.kruise.io/v1alpha1", "DaemonSet", "ds").build(),
                        DEFAULTS,
                        HEALTHY,
                        Action.EVICT),
                Arguments.of(
                        "a DaemonSet of another API group, no apps/v1 one of its name: evicted, not orphaned",
                        owned("a", "apps.kruise.io/v1alpha1", "DaemonSet", "ds").build(),
                        opts(s -> {
                            s.setForce(false);
                            s.setIgnoreDaemonSets(false);
                            return s;
                        }),
                        DS_GONE,
                        Action.EVICT),
                Arguments.of(
                        "the old extensions/v1beta1 DaemonSet is not apps/v1: evicted",
                        owned("a", "extensions/v1beta1", "DaemonSet", "ds").build(),
                        DEFAULTS,
                        HEALTHY,
                        Action.EVICT),
                Arguments.of(
                        "finished DaemonSet pod is removed",
                        finished(owned("a", "DaemonSet", "ds")),
                        opts(s -> {
                            s.setIgnoreDaemonSets(false);
                            return s;
                        }),
                        HEALTHY,
                        Action.EVICT),
                Arguments.of(
                        "mirror pod is left",
                        mirror(pod("a")),
                        opts(s -> {
                            s.setForce(false);
                            return s;
                        }),
                        HEALTHY,
                        Action.LEAVE),
                Arguments.of(
                        "emptyDir pod is evicted with deleteEmptyDirData",
                        emptyDir(owned("a", "ReplicaSet", "rs")),
                        DEFAULTS,
                        HEALTHY,
                        Action.EVICT),
                Arguments.of(
                        "emptyDir pod refuses without deleteEmptyDirData",
                        emptyDir(owned("a", "ReplicaSet", "rs")),
                        opts(s -> {
                            s.setDeleteEmptyDirData(false);
                            return s;
                        }),
                        HEALTHY,
                        Action.REFUSE),
                Arguments.of(
                        "finished emptyDir pod is removed",
                        finished(owned("a", "ReplicaSet", "rs")
                                .editSpec()
                                .addNewVolume()
                                .withName("v")
                                .withNewEmptyDir()
                                .endEmptyDir()
                                .endVolume()
                                .endSpec()),
                        opts(s -> {
                            s.setDeleteEmptyDirData(false);
                            return s;
                        }),
                        HEALTHY,
                        Action.EVICT),
                Arguments.of("unmanaged pod is evicted with force", pod("a").build(), DEFAULTS, HEALTHY, Action.EVICT),
                Arguments.of(
                        "unmanaged pod refuses without force",
                        pod("a").build(),
                        opts(s -> {
                            s.setForce(false);
                            return s;
                        }),
                        HEALTHY,
                        Action.REFUSE),
                Arguments.of(
                        "finished unmanaged pod is removed",
                        finished(pod("a")),
                        opts(s -> {
                            s.setForce(false);
                            return s;
                        }),
                        HEALTHY,
                        Action.EVICT),
                Arguments.of(
                        "emptyDir is checked before unmanaged",
                        emptyDir(pod("a")),
                        opts(s -> {
                            s.setDeleteEmptyDirData(false);
                            s.setForce(false);
                            return s;
                        }),
                        HEALTHY,
                        Action.REFUSE),
                Arguments.of(
                        "terminating pod is waited for",
                        terminating(owned("a", "ReplicaSet", "rs"), Duration.ofSeconds(10)),
                        DEFAULTS,
                        HEALTHY,
                        Action.WAIT_TERMINATING),
                Arguments.of(
                        "terminating longer than skipWait is gone",
                        terminating(owned("a", "ReplicaSet", "rs"), Duration.ofSeconds(10)),
                        opts(s -> {
                            s.setSkipWaitForDeleteTimeout("5s");
                            return s;
                        }),
                        HEALTHY,
                        Action.GONE),
                Arguments.of(
                        "terminating shorter than skipWait is waited for",
                        terminating(owned("a", "ReplicaSet", "rs"), Duration.ofSeconds(10)),
                        opts(s -> {
                            s.setSkipWaitForDeleteTimeout("20s");
                            return s;
                        }),
                        HEALTHY,
                        Action.WAIT_TERMINATING),
                Arguments.of(
                        "stale kubelet: terminating pod is gone after the stale-node wait",
                        terminating(owned("a", "ReplicaSet", "rs"), Duration.ofSeconds(10)),
                        DEFAULTS,
                        STALE,
                        Action.GONE),
                Arguments.of(
                        "stale kubelet: recently terminating pod is waited for",
                        terminating(owned("a", "ReplicaSet", "rs"), Duration.ofSeconds(2)),
                        DEFAULTS,
                        STALE,
                        Action.WAIT_TERMINATING),
                Arguments.of(
                        "deleted-long-ago runs before the DaemonSet filter",
                        terminating(owned("a", "DaemonSet", "ds"), Duration.ofSeconds(10)),
                        opts(s -> {
                            s.setIgnoreDaemonSets(false);
                            s.setSkipWaitForDeleteTimeout("1s");
                            return s;
                        }),
                        HEALTHY,
                        Action.GONE),
                Arguments.of(
                        "DaemonSet filter runs before the mirror filter",
                        mirror(owned("a", "DaemonSet", "ds")),
                        opts(s -> {
                            s.setIgnoreDaemonSets(false);
                            return s;
                        }),
                        HEALTHY,
                        Action.REFUSE),
                Arguments.of(
                        "pod outside podSelector is left, even if unmanaged",
                        pod("a").build(),
                        opts(s -> {
                            s.setForce(false);
                            s.setPodSelector(new LabelSelectorBuilder()
                                    .addToMatchLabels("app", "web")
                                    .build());
                            return s;
                        }),
                        HEALTHY,
                        Action.LEAVE),
                Arguments.of(
                        "pod inside podSelector is evicted",
                        owned("a", "ReplicaSet", "rs")
                                .editMetadata()
                                .addToLabels("app", "web")
                                .endMetadata()
                                .build(),
                        opts(s -> {
                            s.setPodSelector(new LabelSelectorBuilder()
                                    .addToMatchLabels("app", "web")
                                    .build());
                            return s;
                        }),
                        HEALTHY,
                        Action.EVICT),
                Arguments.of(
                        "PDB refusal is retried only after evictionRetryDelay",
                        rs("a"),
                        DEFAULTS,
                        PDB_REFUSED_RECENTLY,
                        Action.RETRY_LATER),
                Arguments.of(
                        "PDB refusal is retried once the delay passed",
                        rs("a"),
                        DEFAULTS,
                        PDB_REFUSED_LONG_AGO,
                        Action.EVICT));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void judgesEachPodLikeKubectlDrain(
            String name, Pod pod, DrainOptions options, DrainPlan.Observed observed, Action expected) {
        DrainPlan plan = DrainPlan.of(List.of(pod), options, observed, NOW);
        assertThat(plan.verdicts())
                .singleElement()
                .extracting(DrainPlan.PodVerdict::action)
                .isEqualTo(expected);
    }

    @Test
    void oneRefusedPodStopsTheWholeDrain() {
        DrainPlan plan = DrainPlan.of(
                List.of(rs("a"), pod("b").build()),
                opts(s -> {
                    s.setForce(false);
                    return s;
                }),
                HEALTHY,
                NOW);
        assertThat(plan.refused()).isTrue();
        assertThat(plan.with(Action.REFUSE)).singleElement().satisfies(v -> {
            assertThat(v.key()).isEqualTo("ns/b");
            assertThat(v.reason()).contains("spec.drain.force");
        });
    }

    @Test
    void progressCountsPodsGoneAgainstThoseToEvictAtTheStart() {
        DrainPlan plan = DrainPlan.of(
                List.of(rs("a"), ds("d"), terminating(owned("b", "ReplicaSet", "rs"), Duration.ofSeconds(1))),
                DEFAULTS,
                HEALTHY,
                NOW);
        assertThat(plan.toDrainCount()).isEqualTo(2);
        assertThat(plan.pending()).hasSize(2);
        assertThat(plan.progress(4)).isEqualTo(50);
        assertThat(DrainPlan.of(List.of(ds("d")), DEFAULTS, HEALTHY, NOW).complete())
                .isTrue();
        assertThat(DrainPlan.of(List.of(ds("d")), DEFAULTS, HEALTHY, NOW).progress(4))
                .isEqualTo(100);
    }

    @Test
    void matchExpressionsSelect() {
        var selector = new LabelSelectorBuilder()
                .addNewMatchExpression()
                .withKey("tier")
                .withOperator("In")
                .withValues("a", "b")
                .endMatchExpression()
                .addNewMatchExpression()
                .withKey("skip")
                .withOperator("DoesNotExist")
                .endMatchExpression()
                .build();
        assertThat(PodFilters.selects(selector, Map.of("tier", "a"))).isTrue();
        assertThat(PodFilters.selects(selector, Map.of("tier", "c"))).isFalse();
        assertThat(PodFilters.selects(selector, Map.of("tier", "a", "skip", "")))
                .isFalse();
    }

    // ------------------------------------------------------------------ what the messages name (issue 25)

    static Stream<Arguments> refusalsNamingBudgets() {
        return Stream.of(
                Arguments.of(
                        "kube-apiserver 429, cause appended",
                        "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget "
                                + "web-pdb needs 2 healthy pods and has 2 currently",
                        List.of("ns/web-pdb")),
                Arguments.of(
                        "budget not yet observed by its controller",
                        "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget "
                                + "db is still being processed by the server.",
                        List.of("ns/db")),
                Arguments.of(
                        "no cause (an older or proxied API server)",
                        "Cannot evict pod as it would violate the pod's disruption budget.",
                        List.of()),
                Arguments.of("no refusal", null, List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusalsNamingBudgets")
    void aRefusalNamesItsBudgetsInThePodsNamespace(String name, String refusal, List<String> budgets) {
        assertThat(DrainPlan.budgetsNamed("ns", refusal)).isEqualTo(budgets);
    }

    @Test
    void aPodsLastRefusalIsCarriedWhileItIsStillToGo() {
        DrainPlan.Observed refusedOnce = new DrainPlan.Observed(
                Set.of("ns/ds"),
                false,
                Duration.ZERO,
                Map.of("uid-a", NOW.minusSeconds(1)),
                Map.of(
                        "uid-a",
                        "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget web "
                                + "needs 2 healthy pods and has 2 currently",
                        "uid-ds",
                        "The disruption budget other needs 1 healthy pods and has 1 currently"));

        DrainPlan plan = DrainPlan.of(List.of(rs("a"), rs("b"), ds("ds")), DEFAULTS, refusedOnce, NOW);

        assertThat(plan.verdicts().get(0).action())
                .as("retry time passed: evicted again")
                .isEqualTo(Action.EVICT);
        assertThat(plan.verdicts().get(0).blockingBudgets()).containsExactly("ns/web");
        assertThat(plan.verdicts().get(1).refusal()).isNull();
        assertThat(plan.blockingBudgets())
                .as("a pod left alone (DaemonSet) names no budget")
                .containsExactly("ns/web");
    }

    @Test
    void aPodTerminatingPastTheEndOfItsGracePeriodIsStuck() {
        // deletionTimestamp is the end of the grace period (the API server sets deletion time + grace)
        Pod past = terminating(owned("past", "ReplicaSet", "rs"), Duration.ofSeconds(1));
        Pod within = terminating(owned("within", "ReplicaSet", "rs"), Duration.ofSeconds(-20));

        DrainPlan plan = DrainPlan.of(List.of(past, within, rs("running")), DEFAULTS, HEALTHY, NOW);

        assertThat(plan.stuckTerminating()).singleElement().satisfies(v -> {
            assertThat(v.key()).isEqualTo("ns/past");
            assertThat(v.graceEnded()).isEqualTo(NOW.minusSeconds(1));
        });
        assertThat(plan.with(Action.WAIT_TERMINATING)).hasSize(2);
    }
}
