package dev.tenure.maintenance.drain;

import dev.tenure.maintenance.api.DrainBehavior;
import dev.tenure.maintenance.api.DrainPlanStatus.PlannedPod;
import dev.tenure.maintenance.api.SurgeOutlook;
import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code spec.preview}: what the drain would do with each pod on the node, from the same {@link DrainPlan} the drain
 * runs, and what it would meet: the waves walked in order against the PodDisruptionBudgets ({@link
 * BudgetSimulation}), so a pod waits for a budget that pods of the plan ahead of it spend. Pure: the caller lists,
 * nothing is written.
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
    public static List<PlannedPod> of(
            DrainPlan plan,
            List<Pod> pods,
            Map<String, List<PodDisruptionBudget>> budgets,
            DrainOptions options,
            Instant now) {
        Map<String, BudgetSimulation.PodOutlook> outlooks = BudgetSimulation.of(plan, pods, budgets, options, now);
        return plan.verdicts().stream()
                .sorted(Comparator.comparing((PodVerdict v) -> !v.holdsItsWave())
                        .thenComparing(PodVerdict::wave)
                        .thenComparing(PodVerdict::key))
                .map(v -> {
                    BudgetSimulation.PodOutlook o = outlooks.get(v.key());
                    PlannedPod p = new PlannedPod(
                            v.key(),
                            behaviorOf(v),
                            v.holdsItsWave() ? v.wave() : null,
                            actionOf(v) + ": " + v.reason(),
                            orNull(o.budgets()));
                    p.setOutlook(o.outlook());
                    p.setOutlookReason(o.why());
                    p.setEstimatedSeconds(o.afterSeconds());
                    return p;
                })
                .toList();
    }

    /**
     * The preview with each pod's surge outlook ({@code spec.drain.evacuation: Surge}): a pod with a decision that is
     * a surge or a refusal to surge gets {@code surge} and {@code surgeReason}; a pod without one, or for which no
     * surge is called for ({@link SurgePlanner.NotNeeded}), is left as it was.
     *
     * @param decisions "namespace/name" → the planner's decision
     */
    public static List<PlannedPod> withSurges(List<PlannedPod> planned, Map<String, SurgePlanner.Decision> decisions) {
        for (PlannedPod p : planned) {
            SurgePlanner.Decision d = decisions.get(p.getPod());
            if (d instanceof SurgePlanner.Surge) {
                p.setSurge(SurgeOutlook.Surges);
                p.setSurgeReason(d.shown());
            } else if (d instanceof SurgePlanner.CannotSurge) {
                p.setSurge(SurgeOutlook.CannotSurge);
                p.setSurgeReason(d.shown());
            }
        }
        return planned;
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

    private static List<String> orNull(List<String> l) {
        return l.isEmpty() ? null : l;
    }
}
