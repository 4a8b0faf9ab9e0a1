package dev.tenure.maintenance.drain;

import java.util.List;

/**
 * Where an ordered drain stands, for status: the wave being drained and what it waits for, the waves after it, the
 * pods skipped and those waited for until they complete. Recomputed from the node's pods at every drain step.
 *
 * @param current the order of the wave being drained; null when no pod to drain is left
 * @param later the orders of the waves still to come, ascending
 * @param blockedBy the current wave's pods still on the node, each with why ("ns/name (terminating)")
 * @param skipped pods left alone by behaviour Skip ("ns/name")
 * @param waitingForCompletion WaitCompleted pods still running ("ns/name")
 */
public record DrainWaves(
        Integer current,
        List<Integer> later,
        List<String> blockedBy,
        List<String> skipped,
        List<String> waitingForCompletion) {

    public DrainWaves {
        later = later == null ? List.of() : List.copyOf(later);
        blockedBy = blockedBy == null ? List.of() : List.copyOf(blockedBy);
        skipped = skipped == null ? List.of() : List.copyOf(skipped);
        waitingForCompletion = waitingForCompletion == null ? List.of() : List.copyOf(waitingForCompletion);
    }

    public static DrainWaves of(DrainPlan plan) {
        return of(plan, java.util.Map.of());
    }

    /** As {@link #of(DrainPlan)}; {@code why} ("ns/name" → cause and budgets) explains the pods something holds. */
    public static DrainWaves of(DrainPlan plan, java.util.Map<String, String> why) {
        return new DrainWaves(
                plan.currentWave().orElse(null),
                plan.currentWave().isEmpty() ? List.of() : plan.laterWaves(),
                DrainReport.waveBlockers(plan, why),
                DrainReport.listed(plan.with(DrainPlan.Action.SKIP).stream()
                        .map(DrainPlan.PodVerdict::key)
                        .toList()),
                DrainReport.listed(plan.with(DrainPlan.Action.WAIT_COMPLETED).stream()
                        .map(DrainPlan.PodVerdict::key)
                        .toList()));
    }
}
