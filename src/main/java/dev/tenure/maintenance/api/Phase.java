package dev.tenure.maintenance.api;

/** NodeMaintenance phases (medik8s' Running/Succeeded/Failed plus Pending, Waiting and Ended). */
public enum Phase {
    /** Accepted, nothing done yet. */
    Pending,
    /** Waits for its spec.schedule (startAt, recurring window); nothing done yet, no budget slot taken. */
    Scheduled,
    /** The node's lease is validly held by someone else. */
    Waiting,
    /** Lease held; cordoning, handing over or draining. */
    Running,
    /** Drained; the node stays cordoned until the maintenance ends. */
    Succeeded,
    /** Invalid request or drain failure; lastError says which. */
    Failed,
    /** The window passed, or pre-drain hooks timed out; the node is back in service. */
    Ended
}
