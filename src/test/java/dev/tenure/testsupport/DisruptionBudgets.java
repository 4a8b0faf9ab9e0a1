package dev.tenure.testsupport;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.List;
import java.util.Map;

/**
 * The eviction subresource's PodDisruptionBudget check, computed live from the pods at the eviction (upstream the
 * eviction reads the numbers the disruption controller wrote into the budget's status). Expected pods: on a living
 * cluster ({@link LivingCluster}) as the disruption controller counts them ({@link DisruptionController#numbers}: for
 * {@code maxUnavailable} or a percentage, the scale of the pods' controllers), so a replica its ReplicaSet has not
 * replaced yet still counts as unavailable; on a plain emulator, where an evicted pod is never replaced, the matching
 * pods (there the controllers' scale would block every drain after its first eviction).
 */
final class DisruptionBudgets {
    private DisruptionBudgets() {}

    sealed interface Decision permits Allowed, Blocked, TooManyBudgets {}

    record Allowed() implements Decision {}

    /** The upstream 429: {@code pdbName} needs {@code desiredHealthy} healthy pods and has {@code currentHealthy}. */
    record Blocked(String pdbName, int desiredHealthy, int currentHealthy) implements Decision {}

    /** Upstream answers 500 when more than one PDB selects the pod. */
    record TooManyBudgets() implements Decision {}

    /**
     * May {@code pod} be evicted, given the namespace's {@code budgets} and {@code podsInNamespace}? Expected pods are
     * the matching ones (a plain emulator's rule).
     */
    static Decision decide(Pod pod, List<PodDisruptionBudget> budgets, List<Pod> podsInNamespace) {
        return decide(pod, budgets, podsInNamespace, null);
    }

    /**
     * As {@link #decide(Pod, List, List)}; with {@code scaleOf} (the replicas of a pod's controller, empty when it has
     * none known) the budget's numbers are the disruption controller's ({@link DisruptionController#numbers}), as on
     * a living cluster: expected from the controllers' scale, not from the pods that happen to exist. A budget the
     * controller cannot sync (its fail-safe: no disruption allowed) blocks.
     */
    static Decision decide(
            Pod pod,
            List<PodDisruptionBudget> budgets,
            List<Pod> podsInNamespace,
            java.util.function.Function<Pod, java.util.OptionalInt> scaleOf) {
        // Upstream skips the budget for pods that are terminal, pending or already terminating.
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if ("Succeeded".equals(phase) || "Failed".equals(phase) || "Pending".equals(phase) || isTerminating(pod)) {
            return new Allowed();
        }
        List<PodDisruptionBudget> matching =
                budgets.stream().filter(b -> selects(b, pod)).toList();
        if (matching.isEmpty()) {
            return new Allowed();
        }
        if (matching.size() > 1) {
            return new TooManyBudgets();
        }
        PodDisruptionBudget pdb = matching.get(0);
        int healthy;
        int desired;
        int disruptionsAllowed;
        if (scaleOf == null) {
            List<Pod> selected =
                    podsInNamespace.stream().filter(p -> selects(pdb, p)).toList();
            healthy = (int) selected.stream()
                    .filter(p -> isReady(p) && !isTerminating(p))
                    .count();
            desired = desiredHealthy(pdb, selected.size());
            disruptionsAllowed = healthy - desired;
        } else {
            DisruptionController.Numbers n = DisruptionController.numbers(pdb, podsInNamespace, scaleOf);
            if (n.failure() != null) {
                return new Blocked(pdb.getMetadata().getName(), n.desiredHealthy(), n.currentHealthy());
            }
            healthy = n.currentHealthy();
            desired = n.desiredHealthy();
            disruptionsAllowed = n.disruptionsAllowed(); // 0 when no pod is expected, as upstream
        }
        boolean alwaysAllowUnhealthy = "AlwaysAllow".equals(pdb.getSpec().getUnhealthyPodEvictionPolicy());
        if (!isReady(pod)) {
            // IfHealthyBudget (default): an unready pod may go while the budget is met; AlwaysAllow: always.
            return alwaysAllowUnhealthy || healthy >= desired
                    ? new Allowed()
                    : new Blocked(pdb.getMetadata().getName(), desired, healthy);
        }
        return disruptionsAllowed >= 1
                ? new Allowed()
                : new Blocked(pdb.getMetadata().getName(), desired, healthy);
    }

    /** minAvailable (int, or percent of expected rounded up) or expected − maxUnavailable (percent rounded up). */
    static int desiredHealthy(PodDisruptionBudget pdb, int expected) {
        IntOrString min = pdb.getSpec().getMinAvailable();
        IntOrString max = pdb.getSpec().getMaxUnavailable();
        if (max != null) {
            return Math.max(0, expected - scaled(max, expected));
        }
        if (min != null) {
            return scaled(min, expected);
        }
        return 0; // neither set: policy/v1 then allows every disruption, as upstream
    }

    private static int scaled(IntOrString value, int expected) {
        if (value.getIntVal() != null) {
            return value.getIntVal();
        }
        String s = value.getStrVal().trim();
        if (!s.endsWith("%")) {
            return Integer.parseInt(s);
        }
        int pct = Integer.parseInt(s.substring(0, s.length() - 1));
        return (int) Math.ceil(pct * expected / 100.0);
    }

    static boolean isTerminating(Pod pod) {
        return pod.getMetadata().getDeletionTimestamp() != null;
    }

    static boolean isReady(Pod pod) {
        return pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** policy/v1: an empty selector selects every pod in the namespace, a missing one none. */
    static boolean selects(PodDisruptionBudget pdb, Pod pod) {
        if (!pdb.getMetadata().getNamespace().equals(pod.getMetadata().getNamespace())) {
            return false;
        }
        LabelSelector selector = pdb.getSpec().getSelector();
        if (selector == null) {
            return false;
        }
        Map<String, String> labels = pod.getMetadata().getLabels() == null
                ? Map.of()
                : pod.getMetadata().getLabels();
        if (selector.getMatchLabels() != null
                && !selector.getMatchLabels().entrySet().stream()
                        .allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
            return false;
        }
        if (selector.getMatchExpressions() != null) {
            for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
                String v = labels.get(r.getKey());
                List<String> values = r.getValues() == null ? List.of() : r.getValues();
                boolean ok = switch (r.getOperator()) {
                    case "In" -> v != null && values.contains(v);
                    case "NotIn" -> v == null || !values.contains(v);
                    case "Exists" -> v != null;
                    case "DoesNotExist" -> v == null;
                    default -> false;
                };
                if (!ok) {
                    return false;
                }
            }
        }
        return true;
    }
}
