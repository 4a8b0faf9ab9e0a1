package dev.tenure.maintenance.api;

/**
 * A preview's answer for one pod: what the drain would meet with it, the plan's waves walked in order against the
 * PodDisruptionBudgets as the eviction API applies them.
 */
public enum DrainOutlook {
    /** In the wave drained first, and no budget refuses it: evicted (or deleted) as soon as the drain starts. */
    EvictsNow,
    /** In a later wave, and no budget refuses it then: evicted once the earlier waves are gone. */
    EvictsInItsWave,
    /** A budget's disruptions are spent (now, or by pods of the plan ahead of it): it waits for the budget. */
    WaitsForBudget,
    /** Refused, not waiting: more than one budget selects it (the eviction API refuses it), or kubectl's filters. */
    Refused,
    /** Already terminating: the drain waits until it is gone. */
    Terminating,
    /** Behaviour WaitCompleted: never evicted, waited for until it completes. */
    WaitsCompleted,
    /** Behaviour Skip: never evicted, not waited for. */
    Skipped,
    /** Not drained at all (outside spec.drain.podSelector, a DaemonSet or mirror pod, already gone). */
    LeftAlone
}
