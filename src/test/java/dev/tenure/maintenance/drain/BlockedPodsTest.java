package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.drain.BlockedPods.Cause;
import dev.tenure.maintenance.drain.DrainPlan.Action;
import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The cause class of a pod the drain waits on, one row per class and the rows that tell them apart. */
class BlockedPodsTest {
    static final String TWO = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not"
            + " support. (HTTP 500)";
    static final String REFUSED_429 = "Cannot evict pod as it would violate the pod's disruption budget. The disruption"
            + " budget web needs 2 healthy pods and has 2 currently";
    static final String FORBIDDEN_403 = "pods \"p\" is forbidden: unable to create new content in namespace ns because"
            + " it is being terminated" + PodDrain.NAMESPACE_TERMINATING_SUFFIX;
    static final String CONFLICT_409 =
            "Precondition failed: UID in precondition: old, UID in object meta: new" + PodDrain.PRECONDITION_SUFFIX;

    record Row(
            String name,
            Pod pod,
            String refusal,
            List<PodDisruptionBudget> budgets,
            boolean unreachable,
            String evictedUid,
            Cause expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Row> rows() {
        Pod ready = pod(true, false);
        PodDisruptionBudget full = budget("web", 2, 2, 2, 0);
        PodDisruptionBudget short1 = budget("web", 2, 2, 3, 0);
        return Stream.of(
                new Row("nothing holds a pod not yet sent", ready, null, List.of(full), false, null, null),
                new Row(
                        "429, every selected pod healthy",
                        ready,
                        REFUSED_429,
                        List.of(full),
                        false,
                        null,
                        Cause.NO_SPARE_REPLICA),
                new Row(
                        "429, a selected pod not Ready",
                        ready,
                        REFUSED_429,
                        List.of(short1),
                        false,
                        null,
                        Cause.REPLICAS_NOT_READY),
                new Row(
                        "429 for the pod itself not Ready",
                        pod(false, false),
                        REFUSED_429,
                        List.of(full),
                        false,
                        null,
                        Cause.REPLICAS_NOT_READY),
                new Row(
                        "500, two budgets",
                        ready,
                        TWO,
                        List.of(full, budget("other", 1, 0, 2, 1)),
                        false,
                        null,
                        Cause.TWO_BUDGETS),
                new Row(
                        "403, namespace terminating",
                        ready,
                        FORBIDDEN_403,
                        List.of(),
                        false,
                        null,
                        Cause.NAMESPACE_TERMINATING),
                new Row(
                        "409, UID precondition failed",
                        ready,
                        CONFLICT_409,
                        List.of(),
                        false,
                        null,
                        Cause.RECREATED_POD),
                new Row(
                        "a same-named pod evicted before with another UID",
                        ready,
                        null,
                        List.of(),
                        false,
                        "old-uid",
                        Cause.RECREATED_POD),
                new Row(
                        "the same pod evicted and still terminating: not recreated",
                        pod(true, true),
                        null,
                        List.of(),
                        false,
                        "uid",
                        null),
                new Row(
                        "stale kubelet, pod not Ready",
                        pod(false, false),
                        REFUSED_429,
                        List.of(short1),
                        true,
                        null,
                        Cause.NODE_UNREACHABLE),
                new Row(
                        "stale kubelet, pod terminating",
                        pod(true, true),
                        null,
                        List.of(),
                        true,
                        null,
                        Cause.NODE_UNREACHABLE),
                new Row(
                        "stale kubelet but the pod Ready: its budget decides",
                        ready,
                        REFUSED_429,
                        List.of(full),
                        true,
                        null,
                        Cause.NO_SPARE_REPLICA));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void classifies(Row row) {
        PodVerdict v = new PodVerdict("ns", "p", "uid", Action.RETRY_LATER, "evict");
        Optional<BlockedPods.Blocked> b =
                BlockedPods.explain(v, row.pod(), row.refusal(), row.budgets(), row.unreachable(), row.evictedUid());
        assertThat(b.map(BlockedPods.Blocked::cause).orElse(null)).isEqualTo(row.expected());
    }

    @org.junit.jupiter.api.Test
    void namesEveryBudgetWithItsNumbersAndStaysBounded() {
        PodVerdict v = new PodVerdict("ns", "p", "uid", Action.RETRY_LATER, "evict");
        BlockedPods.Blocked b = BlockedPods.explain(
                        v,
                        pod(true, false),
                        TWO,
                        List.of(budget("b", 1, 1, 1, 0), budget("a", 1, 0, 1, 1)),
                        false,
                        null)
                .orElseThrow();
        assertThat(b.shown())
                .isEqualTo("ns/p (two budgets (500); PodDisruptionBudget ns/a (currentHealthy 1, desiredHealthy 0,"
                        + " expectedPods 1, disruptionsAllowed 1, unhealthyPodEvictionPolicy IfHealthyBudget), ns/b"
                        + " (currentHealthy 1, desiredHealthy 1, expectedPods 1, disruptionsAllowed 0,"
                        + " unhealthyPodEvictionPolicy IfHealthyBudget))");

        List<PodDisruptionBudget> many = java.util.stream.IntStream.range(0, 50)
                .mapToObj(i -> budget("x".repeat(200) + i, 1, 1, 1, 0))
                .toList();
        BlockedPods.Blocked wide =
                BlockedPods.explain(v, pod(true, false), TWO, many, false, null).orElseThrow();
        assertThat(wide.shown()).contains("and 47 more").hasSizeLessThan(1_000);
    }

    @org.junit.jupiter.api.Test
    void aBudgetWithoutStatusSaysSo() {
        PodDisruptionBudget fresh = budget("web", 0, 0, 0, 0);
        fresh.setStatus(null);
        fresh.getSpec().setUnhealthyPodEvictionPolicy("AlwaysAllow");
        PodVerdict v = new PodVerdict("ns", "p", "uid", Action.RETRY_LATER, "evict");
        assertThat(BlockedPods.explain(v, pod(true, false), REFUSED_429, List.of(fresh), false, null)
                        .orElseThrow()
                        .why())
                .isEqualTo("no spare replica; PodDisruptionBudget ns/web (status not yet written by the disruption"
                        + " controller, unhealthyPodEvictionPolicy AlwaysAllow)");
    }

    static Pod pod(boolean ready, boolean terminating) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .withNamespace("ns")
                .withUid("uid")
                .addToLabels("app", "web")
                .withDeletionTimestamp(terminating ? "2026-01-01T00:00:00Z" : null)
                .endMetadata()
                .withNewStatus()
                .withPhase("Running")
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .endCondition()
                .endStatus()
                .build();
    }

    static PodDisruptionBudget budget(String name, int healthy, int desired, int expected, int allowed) {
        return new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("ns")
                .endMetadata()
                .withNewSpec()
                .withMinAvailable(new IntOrString(desired))
                .withNewSelector()
                .addToMatchLabels("app", "web")
                .endSelector()
                .endSpec()
                .withNewStatus()
                .withCurrentHealthy(healthy)
                .withDesiredHealthy(desired)
                .withExpectedPods(expected)
                .withDisruptionsAllowed(allowed)
                .endStatus()
                .build();
    }
}
