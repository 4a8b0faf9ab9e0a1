package dev.tenure.maintenance.drain;

import dev.tenure.maintenance.api.DrainBehavior;
import dev.tenure.maintenance.api.DrainPlanStatus.PlannedPod;
import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code spec.preview}: what the drain would do with each pod on the node, from the same {@link DrainPlan} the drain
 * runs, and which PodDisruptionBudget would refuse its eviction now. Pure: the caller lists, nothing is written.
 */
public final class DrainPreview {

    private DrainPreview() {}

    /**
     * The preview of {@code plan}: each pod with its behaviour, wave and refusing budgets.
     *
     * @param budgets namespace → its PodDisruptionBudgets
     * @return one entry per pod, in drain order (waves ascending, a running WaitCompleted pod in its wave, then Skip and the pods left
     *     alone)
     */
    public static List<PlannedPod> of(DrainPlan plan, List<Pod> pods, Map<String, List<PodDisruptionBudget>> budgets) {
        Map<String, Pod> byKey = new java.util.HashMap<>();
        pods.forEach(p ->
                byKey.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p));
        return plan.verdicts().stream()
                .sorted(Comparator.comparing((PodVerdict v) -> !v.holdsItsWave())
                        .thenComparing(PodVerdict::wave)
                        .thenComparing(PodVerdict::key))
                .map(v -> new PlannedPod(
                        v.key(),
                        behaviorOf(v),
                        v.holdsItsWave() ? v.wave() : null,
                        actionOf(v) + ": " + v.reason(),
                        v.drained() ? orNull(blocking(byKey.get(v.key()), budgets)) : null))
                .toList();
    }

    private static DrainBehavior behaviorOf(PodVerdict v) {
        return switch (v.action()) {
            case SKIP -> DrainBehavior.Skip;
            case WAIT_COMPLETED -> DrainBehavior.WaitCompleted;
            default ->
                v.reason().startsWith("completed (WaitCompleted") ? DrainBehavior.WaitCompleted : DrainBehavior.Drain;
        };
    }

    private static String actionOf(PodVerdict v) {
        return switch (v.action()) {
            case LEAVE -> "Leave";
            case GONE -> "Gone";
            case EVICT, RETRY_LATER -> "Evict";
            case DELETE -> "Delete";
            case WAIT_TERMINATING -> "WaitTerminating";
            case REFUSE -> "Refuse";
            case SKIP -> "Skip";
            case WAIT_COMPLETED -> "WaitCompleted";
        };
    }

    /**
     * The budgets that select the pod and allow no disruption now ({@code status.disruptionsAllowed}, which
     * kube-apiserver's eviction checks), "namespace/name", sorted.
     */
    static List<String> blocking(Pod pod, Map<String, List<PodDisruptionBudget>> budgets) {
        if (pod == null) {
            return List.of();
        }
        String ns = pod.getMetadata().getNamespace();
        return budgets.getOrDefault(ns, List.of()).stream()
                .filter(b -> b.getSpec() != null && b.getSpec().getSelector() != null)
                .filter(b -> PodFilters.selects(
                        b.getSpec().getSelector(), pod.getMetadata().getLabels()))
                .filter(b -> b.getStatus() != null
                        && b.getStatus().getDisruptionsAllowed() != null
                        && b.getStatus().getDisruptionsAllowed() <= 0)
                .map(b -> ns + "/" + b.getMetadata().getName())
                .sorted()
                .toList();
    }

    private static List<String> orNull(List<String> l) {
        return l.isEmpty() ? null : l;
    }
}
