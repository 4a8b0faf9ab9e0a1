package dev.tenure.maintenance.api;

/** What the drain does with one pod (Cluster API's MachineDrainRule behaviours). */
public enum DrainBehavior {
    /** Evicted (or deleted) in its wave: the default. */
    Drain,
    /** Never evicted; counted and named in status, and the drain does not wait for it. */
    Skip,
    /** Never evicted; the drain waits until it finishes by itself, at most spec.drain.waitCompletedTimeout. */
    WaitCompleted
}
