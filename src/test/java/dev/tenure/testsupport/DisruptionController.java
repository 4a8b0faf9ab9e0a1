package dev.tenure.testsupport;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatusBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;

/**
 * kube-controller-manager's disruption controller, reduced to the status it keeps on each PodDisruptionBudget
 * (pkg/controller/disruption/disruption.go trySync, getExpectedPodCount, getExpectedScale, countHealthyPods,
 * updatePdbStatus, failSafe; pkg/apis/policy/helper UpdateDisruptionAllowedCondition):
 *
 * <ul>
 *   <li>the pods are those of the budget's namespace its selector selects (policy/v1: an empty selector selects all);
 *   <li>{@code minAvailable} as a number: expectedPods = the pods, desiredHealthy = the number;
 *   <li>{@code minAvailable} as a percentage or any {@code maxUnavailable}: expectedPods = the sum of the scales of the
 *       pods' controllers (ReplicaSet, or its Deployment when it has one; StatefulSet), pods without a controller left
 *       out; a percentage rounds up; desiredHealthy = expected − maxUnavailable, at least 0;
 *   <li>currentHealthy = Ready pods not being deleted; disruptionsAllowed = currentHealthy − desiredHealthy, 0 when
 *       negative or expectedPods is 0;
 *   <li>a pod whose controller is none of the known kinds: "found no controllers for pod", the fail-safe
 *       (disruptionsAllowed 0, DisruptionAllowed False with reason SyncFailed), other numbers left as they were;
 *   <li>the condition DisruptionAllowed: True/SufficientPods when disruptions are allowed, else False/InsufficientPods;
 *       its lastTransitionTime moves only when its status does (apimachinery meta.SetStatusCondition);
 *   <li>observedGeneration = the budget's generation; the status is written only when it differs.
 * </ul>
 *
 * Not emulated: {@code disruptedPods} (the eviction subresource here does not record them), the scale subresource of
 * custom workloads, ReplicationControllers.
 */
final class DisruptionController {
    static final String CONDITION = "DisruptionAllowed";

    private DisruptionController() {}

    /** The numbers of one sync, or the error that sends it to the fail-safe. */
    record Numbers(int currentHealthy, int desiredHealthy, int expectedPods, int disruptionsAllowed, String failure) {}

    /**
     * The budget's numbers from the pods of its namespace; {@code scaleOf} answers the replicas of a pod's controller,
     * empty when no known controller has that reference.
     */
    static Numbers numbers(PodDisruptionBudget pdb, List<Pod> podsInNamespace, Function<Pod, OptionalInt> scaleOf) {
        List<Pod> pods = podsInNamespace.stream()
                .filter(p -> DisruptionBudgets.selects(pdb, p)) // getPodsForPdb
                .toList();
        IntOrString min = pdb.getSpec().getMinAvailable();
        IntOrString max = pdb.getSpec().getMaxUnavailable();
        int expected = 0;
        int desired = 0;
        if (max != null || (min != null && min.getIntVal() == null)) {
            Map<String, Integer> scales = new HashMap<>();
            for (Pod pod : pods) {
                OwnerReference controller = controllerOf(pod);
                if (controller == null) {
                    continue; // unmanaged: left out of the expected count (upstream warns with an event)
                }
                if (scales.containsKey(controller.getUid())) {
                    continue;
                }
                OptionalInt scale = scaleOf.apply(pod);
                if (scale.isEmpty()) {
                    return new Numbers(
                            0,
                            0,
                            0,
                            0,
                            "found no controllers for pod \""
                                    + pod.getMetadata().getName() + "\"");
                }
                scales.put(controller.getUid(), scale.getAsInt());
            }
            expected = scales.values().stream().mapToInt(Integer::intValue).sum();
            if (max != null) {
                desired = Math.max(0, expected - scaledUp(max, expected));
            } else {
                desired = scaledUp(min, expected);
            }
        } else if (min != null) {
            desired = min.getIntVal();
            expected = pods.size();
        }
        int healthy = (int) pods.stream()
                .filter(p -> !DisruptionBudgets.isTerminating(p) && DisruptionBudgets.isReady(p))
                .count();
        int allowed = healthy - desired;
        if (expected <= 0 || allowed <= 0) {
            allowed = 0;
        }
        return new Numbers(healthy, desired, expected, allowed, null);
    }

    /** apimachinery intstr.GetScaledValueFromIntOrPercent with roundUp = true. */
    static int scaledUp(IntOrString value, int total) {
        if (value.getIntVal() != null) {
            return value.getIntVal();
        }
        String s = value.getStrVal().trim();
        if (!s.endsWith("%")) {
            return Integer.parseInt(s);
        }
        int percent = Integer.parseInt(s.substring(0, s.length() - 1));
        return (int) Math.ceil(percent * total / 100.0);
    }

    /** The status the controller writes after a sync giving {@code n}, from the {@code prior} one. */
    static PodDisruptionBudgetStatus status(
            PodDisruptionBudget pdb, Numbers n, PodDisruptionBudgetStatus prior, Instant now) {
        PodDisruptionBudgetStatus old = prior == null ? new PodDisruptionBudgetStatus() : prior;
        Long generation = pdb.getMetadata().getGeneration();
        PodDisruptionBudgetStatusBuilder b = new PodDisruptionBudgetStatusBuilder(old);
        String conditionStatus;
        String reason;
        String message;
        if (n.failure() != null) { // failSafe: only disruptionsAllowed and the condition change
            b.withDisruptionsAllowed(0);
            conditionStatus = "False";
            reason = "SyncFailed";
            message = n.failure();
        } else {
            b.withCurrentHealthy(n.currentHealthy())
                    .withDesiredHealthy(n.desiredHealthy())
                    .withExpectedPods(n.expectedPods())
                    .withDisruptionsAllowed(n.disruptionsAllowed())
                    .withObservedGeneration(generation);
            conditionStatus = n.disruptionsAllowed() > 0 ? "True" : "False";
            reason = n.disruptionsAllowed() > 0 ? "SufficientPods" : "InsufficientPods";
            message = "";
        }
        List<Condition> conditions = new ArrayList<>(old.getConditions() == null ? List.of() : old.getConditions());
        Optional<Condition> was =
                conditions.stream().filter(c -> CONDITION.equals(c.getType())).findFirst();
        String since = was.filter(c -> conditionStatus.equals(c.getStatus()))
                .map(Condition::getLastTransitionTime)
                .orElse(now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        conditions.removeIf(c -> CONDITION.equals(c.getType()));
        conditions.add(new ConditionBuilder()
                .withType(CONDITION)
                .withStatus(conditionStatus)
                .withReason(reason)
                .withMessage(message)
                .withObservedGeneration(n.failure() != null ? old.getObservedGeneration() : generation)
                .withLastTransitionTime(since)
                .build());
        return b.withConditions(conditions).build();
    }

    /**
     * One pass over the budgets of {@code namespace} (every namespace when null), as the controller's sync of each:
     * status written through {@code /status} when it differs from the stored one.
     */
    static void sync(ClusterStore store, String namespace, Instant now) {
        String prefix = namespace == null ? "" : "/namespaces/" + namespace;
        List<PodDisruptionBudget> budgets =
                store.list("/apis/policy/v1" + prefix + "/poddisruptionbudgets", PodDisruptionBudget.class);
        if (budgets.isEmpty()) {
            return;
        }
        Map<String, List<Pod>> pods = new HashMap<>();
        for (PodDisruptionBudget pdb : budgets) {
            String ns = pdb.getMetadata().getNamespace();
            List<Pod> inNamespace =
                    pods.computeIfAbsent(ns, n -> store.list("/api/v1/namespaces/" + n + "/pods", Pod.class));
            Numbers n = numbers(pdb, inNamespace, pod -> scaleOf(store, pod));
            PodDisruptionBudgetStatus next = status(pdb, n, pdb.getStatus(), now);
            if (!Objects.equals(next, pdb.getStatus())) {
                pdb.setStatus(next);
                store.update(ClusterStore.path(pdb) + "/status", pdb);
            }
        }
    }

    /** The finders of getExpectedScale: a ReplicaSet's replicas (its Deployment's when it has one), a StatefulSet's. */
    static OptionalInt scaleOf(ClusterStore store, Pod pod) {
        OwnerReference c = controllerOf(pod);
        String ns = pod.getMetadata().getNamespace();
        if ("ReplicaSet".equals(c.getKind())) {
            Optional<ReplicaSet> rs = store.get(
                            "/apis/apps/v1/namespaces/" + ns + "/replicasets/" + c.getName(), ReplicaSet.class)
                    .filter(r -> c.getUid() == null
                            || c.getUid().equals(r.getMetadata().getUid()));
            if (rs.isEmpty()) {
                return OptionalInt.empty();
            }
            Optional<OwnerReference> deployment = rs.get().getMetadata().getOwnerReferences().stream()
                    .filter(o -> Boolean.TRUE.equals(o.getController()) && "Deployment".equals(o.getKind()))
                    .findFirst();
            if (deployment.isPresent()) {
                return store.get(
                                "/apis/apps/v1/namespaces/" + ns + "/deployments/"
                                        + deployment.get().getName(),
                                Deployment.class)
                        .map(d -> OptionalInt.of(replicas(d.getSpec().getReplicas())))
                        .orElse(OptionalInt.empty());
            }
            return OptionalInt.of(replicas(rs.get().getSpec().getReplicas()));
        }
        if ("StatefulSet".equals(c.getKind())) {
            return store.get("/apis/apps/v1/namespaces/" + ns + "/statefulsets/" + c.getName(), StatefulSet.class)
                    .map(s -> OptionalInt.of(replicas(s.getSpec().getReplicas())))
                    .orElse(OptionalInt.empty());
        }
        return OptionalInt.empty();
    }

    private static int replicas(Integer replicas) {
        return replicas == null ? 1 : replicas;
    }

    static OwnerReference controllerOf(Pod pod) {
        return pod.getMetadata().getOwnerReferences().stream()
                .filter(o -> Boolean.TRUE.equals(o.getController()))
                .findFirst()
                .orElse(null);
    }
}
