package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.maintenance.drain.SurgePlanner.CannotSurge;
import dev.tenure.maintenance.drain.SurgePlanner.Decision;
import dev.tenure.maintenance.drain.SurgePlanner.NotNeeded;
import dev.tenure.maintenance.drain.SurgePlanner.Observed;
import dev.tenure.maintenance.drain.SurgePlanner.Reason;
import dev.tenure.maintenance.drain.SurgePlanner.Surge;
import dev.tenure.maintenance.drain.SurgePlanner.Target;
import dev.tenure.placement.PlacementForecast.Verdict;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 51: whether a pod its budget holds can surge, one row per reason, and the rows that tell a surge from "no surge
 * called for". The base row is the smallest case: a 1-replica Deployment with {@code minAvailable: 1}, its pod
 * Ready on the node, the budget counted (1 healthy of 1 expected, 0 allowed), the forecast saying it fits, the role held.
 */
class SurgePlannerTest {

    static final String NS = "app";

    record Row(String name, Observed observed, Class<? extends Decision> kind, Reason reason) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Row> rows() {
        return Stream.of(
                row("the issue's case: 1 replica, minAvailable 1, fits, role held", base(), Surge.class, null),
                row(
                        "a ReplicaSet without a Deployment surges itself",
                        base().withDeployment(null).withRsController(null),
                        Surge.class,
                        null),
                row("no budget selects it", base().withBudget(null), NotNeeded.class, null),
                row(
                        "two budgets select it (the eviction API answers 500)",
                        base().withSecondBudget(),
                        NotNeeded.class,
                        null),
                row("the budget allows a disruption", base().withBudgetNumbers(2, 1, 2, 1), NotNeeded.class, null),
                row(
                        "the budget is short of healthy pods (it frees by itself)",
                        base().withBudgetNumbers(1, 1, 2, 0),
                        NotNeeded.class,
                        null),
                row(
                        "the budget is not counted yet",
                        base().withBudgetNumbers(null, null, null, null),
                        NotNeeded.class,
                        null),
                row("a bare pod", base().withPodController(null), CannotSurge.class, Reason.BARE_POD),
                row(
                        "a StatefulSet's pod",
                        base().withPodController(owner("StatefulSet", "db", "sts-uid")),
                        CannotSurge.class,
                        Reason.STATEFUL_SET),
                row(
                        "a Job's pod",
                        base().withPodController(owner("Job", "batch", "job-uid")),
                        CannotSurge.class,
                        Reason.OTHER_CONTROLLER),
                row("its ReplicaSet is gone", base().withReplicaSet(null), CannotSurge.class, Reason.OWNER_NOT_FOUND),
                row(
                        "its ReplicaSet was recreated (another uid)",
                        base().withRsUid("other"),
                        CannotSurge.class,
                        Reason.OWNER_NOT_FOUND),
                row("its Deployment is gone", base().withDeployment(null), CannotSurge.class, Reason.OWNER_NOT_FOUND),
                row(
                        "the Deployment opts out (tenure.dev/surge: \"false\")",
                        base().withAnnotation("false"),
                        CannotSurge.class,
                        Reason.OPTED_OUT),
                row(
                        "a malformed opt-out value opts out too",
                        base().withAnnotation("no"),
                        CannotSurge.class,
                        Reason.OPTED_OUT),
                row("tenure.dev/surge: \"true\" does not opt out", base().withAnnotation("true"), Surge.class, null),
                row(
                        "a ReplicaSet without a Deployment opts out on itself",
                        base().withDeployment(null).withRsController(null).withRsAnnotation("false"),
                        CannotSurge.class,
                        Reason.OPTED_OUT),
                row("a Recreate Deployment", base().withRecreate(), CannotSurge.class, Reason.RECREATE),
                row(
                        "mid-rollout: generation not observed",
                        base().withDeploymentStatus(1L, 1, 1, 1),
                        CannotSurge.class,
                        Reason.MID_ROLLOUT),
                row(
                        "mid-rollout: old replicas pending termination",
                        base().withDeploymentStatus(2L, 2, 1, 1),
                        CannotSurge.class,
                        Reason.MID_ROLLOUT),
                row(
                        "mid-rollout: no status written",
                        base().withDeploymentStatus(null, 0, 0, 0),
                        CannotSurge.class,
                        Reason.MID_ROLLOUT),
                row("maxSurge 0", base().withMaxSurge(new IntOrString(0)), CannotSurge.class, Reason.MAX_SURGE),
                row(
                        "maxSurge 25% of 4 replicas (1) with 2 pods on the node",
                        base().withReplicas(4).withPodsOnNode(2).withDeploymentStatus(2L, 4, 4, 4),
                        CannotSurge.class,
                        Reason.MAX_SURGE),
                row(
                        "maxUnavailable 0: the budget refuses every eviction whatever the replicas",
                        base().withBudgetSpec(null, new IntOrString(0)),
                        CannotSurge.class,
                        Reason.BUDGET_FORBIDS),
                row(
                        "maxUnavailable 0%: the same",
                        base().withBudgetSpec(null, new IntOrString("0%")), CannotSurge.class, Reason.BUDGET_FORBIDS),
                row(
                        "minAvailable 100%: every expected pod, however many",
                        base().withBudgetSpec(new IntOrString("100%"), null), CannotSurge.class, Reason.BUDGET_FORBIDS),
                row(
                        "minAvailable 50% of 1 (rounded up: 1) frees with one more (1 of 2)",
                        base().withBudgetSpec(new IntOrString("50%"), null), Surge.class, null),
                row(
                        "minAvailable 90% of 1 stays 2 of 2 with one more: a surge would not free it",
                        base().withBudgetSpec(new IntOrString("90%"), null), CannotSurge.class, Reason.BUDGET_FORBIDS),
                row("an HPA at maxReplicas", base().withHpa(1, 1), CannotSurge.class, Reason.HPA_AT_MAX),
                row("an HPA below maxReplicas", base().withHpa(1, 5), CannotSurge.class, Reason.HPA_MANAGED),
                row(
                        "the forecast: would not fit",
                        base().withFit(Verdict.DOES_NOT_FIT),
                        CannotSurge.class,
                        Reason.WOULD_NOT_FIT),
                row(
                        "the forecast: pinned by a volume",
                        base().withFit(Verdict.PINNED),
                        CannotSurge.class,
                        Reason.WOULD_NOT_FIT),
                row("no forecast made (placement Ignore)", base().withFit(null), Surge.class, null),
                row("without the opt-in role", base().withRole(false), CannotSurge.class, Reason.NO_SURGE_ROLE),
                row(
                        "a StatefulSet without the role says StatefulSet (the workload's reason first)",
                        base().withRole(false).withPodController(owner("StatefulSet", "db", "sts-uid")),
                        CannotSurge.class,
                        Reason.STATEFUL_SET),
                row(
                        "an opted-out Deployment without the role: not read, so no surge role",
                        base().withRole(false).withAnnotation("false"),
                        CannotSurge.class,
                        Reason.NO_SURGE_ROLE));
    }

    @ParameterizedTest
    @MethodSource("rows")
    void decides(Row row) {
        Decision d = SurgePlanner.decide(row.observed());

        assertThat(d).isInstanceOf(row.kind());
        if (row.reason() != null) {
            assertThat(((CannotSurge) d).reason()).isEqualTo(row.reason());
            assertThat(d.shown()).startsWith("cannot surge: " + row.reason().shown());
        }
    }

    @Test
    void theSurgeScalesTheDeploymentByItsPodsOnTheNode() {
        Decision d = SurgePlanner.decide(base().withReplicas(4)
                .withPodsOnNode(1)
                .withDeploymentStatus(2L, 4, 4, 4)
                .build());

        assertThat(d).isEqualTo(new Surge(new Target("Deployment", NS, "web"), 4, 1));
        assertThat(d.shown()).isEqualTo("surge Deployment app/web by 1 (replicas 4 -> 5)");
    }

    @Test
    void aReplicaSetWithoutDeploymentIsItsOwnTarget() {
        Decision d = SurgePlanner.decide(
                base().withDeployment(null).withRsController(null).build());

        assertThat(d).isEqualTo(new Surge(new Target("ReplicaSet", NS, "web-abc"), 1, 1));
    }

    @Test
    void maxSurgeRoundsUpAsTheDeploymentControllerDoes() {
        Deployment d = deployment(10, new IntOrString("25%"), false, null);
        assertThat(SurgePlanner.maxSurge(d, 10)).isEqualTo(3); // 2.5 up
        assertThat(SurgePlanner.maxSurge(deployment(1, null, false, null), 1)).isEqualTo(1); // default 25% of 1
        assertThat(SurgePlanner.maxSurge(deployment(1, new IntOrString("x%"), false, null), 1))
                .isZero();
    }

    @Test
    void podsOnNodeBelowOneIsRefusedNamingTheField() {
        assertThatThrownBy(() -> base().withPodsOnNode(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("podsOnNode");
    }

    // ---- the base row and its variations -----------------------------------------------------------------------

    static Row row(String name, Base b, Class<? extends Decision> kind, Reason reason) {
        return new Row(name, b.build(), kind, reason);
    }

    static Base base() {
        return new Base();
    }

    /** The smallest case, to be varied one field a row. */
    static final class Base {
        OwnerReference podController = owner("ReplicaSet", "web-abc", "rs-uid");
        String rsUid = "rs-uid";
        boolean hasReplicaSet = true;
        OwnerReference rsController = owner("Deployment", "web", "d-uid");
        boolean hasDeployment = true;
        int replicas = 1;
        IntOrString maxSurge;
        boolean recreate;
        String annotation;
        String rsAnnotation;
        Long observedGeneration = 2L;
        int statusReplicas = 1;
        int updated = 1;
        int available = 1;
        boolean hasBudget = true;
        boolean secondBudget;
        Integer[] budgetNumbers = {1, 1, 1, 0}; // currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed
        List<HorizontalPodAutoscaler> hpas = List.of();
        int podsOnNode = 1;
        Verdict fit = Verdict.FITS;
        boolean role = true;

        Base withPodController(OwnerReference o) {
            podController = o;
            return this;
        }

        Base withRsUid(String uid) {
            rsUid = uid;
            return this;
        }

        Base withReplicaSet(Object none) {
            hasReplicaSet = none != null;
            return this;
        }

        Base withRsController(OwnerReference o) {
            rsController = o;
            return this;
        }

        Base withDeployment(Object none) {
            hasDeployment = none != null;
            return this;
        }

        Base withReplicas(int r) {
            replicas = r;
            return this;
        }

        Base withMaxSurge(IntOrString v) {
            maxSurge = v;
            return this;
        }

        Base withRecreate() {
            recreate = true;
            return this;
        }

        Base withAnnotation(String v) {
            annotation = v;
            return this;
        }

        Base withRsAnnotation(String v) {
            rsAnnotation = v;
            return this;
        }

        Base withDeploymentStatus(Long observed, int statusReplicas, int updated, int available) {
            this.observedGeneration = observed;
            this.statusReplicas = statusReplicas;
            this.updated = updated;
            this.available = available;
            return this;
        }

        Base withBudget(Object none) {
            hasBudget = none != null;
            return this;
        }

        Base withSecondBudget() {
            secondBudget = true;
            return this;
        }

        IntOrString minAvailable = new IntOrString(1);
        IntOrString maxUnavailable;

        Base withBudgetSpec(IntOrString minAvailable, IntOrString maxUnavailable) {
            this.minAvailable = minAvailable;
            this.maxUnavailable = maxUnavailable;
            return this;
        }

        Base withBudgetNumbers(Integer current, Integer desired, Integer expected, Integer allowed) {
            budgetNumbers = new Integer[] {current, desired, expected, allowed};
            return this;
        }

        Base withHpa(int current, int max) {
            hpas = List.of(new HorizontalPodAutoscalerBuilder()
                    .withNewMetadata()
                    .withName("web")
                    .withNamespace(NS)
                    .endMetadata()
                    .withNewSpec()
                    .withMaxReplicas(max)
                    .withNewScaleTargetRef()
                    .withApiVersion("apps/v1")
                    .withKind("Deployment")
                    .withName("web")
                    .endScaleTargetRef()
                    .endSpec()
                    .withNewStatus()
                    .withCurrentReplicas(current)
                    .endStatus()
                    .build());
            return this;
        }

        Base withPodsOnNode(int n) {
            podsOnNode = n;
            return this;
        }

        Base withFit(Verdict v) {
            fit = v;
            return this;
        }

        Base withRole(boolean r) {
            role = r;
            return this;
        }

        Observed build() {
            Pod pod = new PodBuilder()
                    .withNewMetadata()
                    .withName("web-abc-1")
                    .withNamespace(NS)
                    .withLabels(Map.of("app", "web"))
                    .withOwnerReferences(podController == null ? List.of() : List.of(podController))
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName("w1")
                    .endSpec()
                    .withNewStatus()
                    .withPhase("Running")
                    .addNewCondition()
                    .withType("Ready")
                    .withStatus("True")
                    .endCondition()
                    .endStatus()
                    .build();
            ReplicaSet rs = new ReplicaSetBuilder()
                    .withNewMetadata()
                    .withName("web-abc")
                    .withNamespace(NS)
                    .withUid(rsUid)
                    .withOwnerReferences(rsController == null ? List.of() : List.of(rsController))
                    .withAnnotations(rsAnnotation == null ? Map.of() : Map.of(SurgePlanner.OPT_OUT, rsAnnotation))
                    .endMetadata()
                    .withNewSpec()
                    .withReplicas(replicas)
                    .endSpec()
                    .build();
            Deployment d = deployment(replicas, maxSurge, recreate, annotation);
            d.getMetadata().setGeneration(2L);
            d.getStatus().setObservedGeneration(observedGeneration);
            d.getStatus().setReplicas(statusReplicas);
            d.getStatus().setUpdatedReplicas(updated);
            d.getStatus().setAvailableReplicas(available);
            if (observedGeneration == null && statusReplicas == 0) {
                d.setStatus(null);
            }
            List<PodDisruptionBudget> budgets = !hasBudget
                    ? List.of()
                    : secondBudget ? List.of(budget("web-pdb"), budget("all-pdb")) : List.of(budget("web-pdb"));
            return new Observed(
                    pod,
                    budgets,
                    hasReplicaSet ? Optional.of(rs) : Optional.empty(),
                    hasDeployment ? Optional.of(d) : Optional.empty(),
                    hpas,
                    podsOnNode,
                    fit,
                    role);
        }

        PodDisruptionBudget budget(String name) {
            return new PodDisruptionBudgetBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(NS)
                    .withGeneration(1L)
                    .endMetadata()
                    .withNewSpec()
                    .withMinAvailable(minAvailable)
                    .withMaxUnavailable(maxUnavailable)
                    .withNewSelector()
                    .withMatchLabels(Map.of("app", "web"))
                    .endSelector()
                    .endSpec()
                    .withNewStatus()
                    .withObservedGeneration(1L)
                    .withCurrentHealthy(budgetNumbers[0])
                    .withDesiredHealthy(budgetNumbers[1])
                    .withExpectedPods(budgetNumbers[2])
                    .withDisruptionsAllowed(budgetNumbers[3])
                    .endStatus()
                    .build();
        }
    }

    static Deployment deployment(int replicas, IntOrString maxSurge, boolean recreate, String annotation) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName("web")
                .withNamespace(NS)
                .withUid("d-uid")
                .withAnnotations(annotation == null ? Map.of() : Map.of(SurgePlanner.OPT_OUT, annotation))
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewStrategy()
                .withType(recreate ? "Recreate" : "RollingUpdate")
                .withNewRollingUpdate()
                .withMaxSurge(maxSurge)
                .endRollingUpdate()
                .endStrategy()
                .endSpec()
                .withNewStatus()
                .endStatus()
                .build();
    }

    static OwnerReference owner(String kind, String name, String uid) {
        return new OwnerReferenceBuilder()
                .withKind(kind)
                .withName(name)
                .withUid(uid)
                .withController(true)
                .build();
    }
}
