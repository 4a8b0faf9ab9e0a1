package dev.tenure.maintenance.api;

/**
 * What a bounded stage (pre-drain hooks, WaitCompleted pods, the drain, volume detach) does when its timeout passes:
 * no anchor offers all three (Cluster API proceeds past a drain or detach timeout, Kured uncordons and retries,
 * NVIDIA's maintenance-operator drains anyway after waitForPodCompletion).
 */
public enum TimeoutOutcome {
    /** Phase Failed; the node stays cordoned and tainted; lastError names the stage and what held it. */
    Fail,
    /** Go on as if the stage had completed; status.timeoutsPassed and a Warning event name what was left. */
    Proceed,
    /** Undo what Tenure did (the same restore as deleting the maintenance); phase Ended; lastError names the stage. */
    Restore
}
