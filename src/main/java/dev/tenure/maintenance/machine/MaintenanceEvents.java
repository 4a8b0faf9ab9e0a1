package dev.tenure.maintenance.machine;

/**
 * Where the {@link MaintenanceMachine} reports what happened; the front door turns these into
 * Kubernetes events on its own object (and the Node where that helps an admin).
 */
@FunctionalInterface
public interface MaintenanceEvents {

    String BEGIN = "BeginMaintenance";
    String LEASE_WAITING = "LeaseWaiting";
    /**
     * A node lease in a shared namespace ({@code tenure.maintenance.lease.guard-namespaces}) could not be read (403):
     * a hold by another controller there is not waited for; said once, when the maintenance begins.
     */
    String SHARED_LEASE_UNREADABLE = "SharedLeaseUnreadable";
    /** A new operator instance took the node lease over from the previous one (failover, leaseTransitions + 1). */
    String LEASE_TAKEN_OVER = "LeaseTakenOver";
    /** At the end, another controller held the node's lease: the node is left as its maintenance needs it. */
    String NODE_LEFT_TO_HOLDER = "NodeLeftToLeaseHolder";

    /**
     * The status said more was done than the cluster shows (it was not written by this operator): it was re-derived
     * from the node, its pods and lease, and the maintenance goes on from there.
     */
    String STATUS_REDERIVED = "StatusRederived";

    String CORDONED = "Cordoned";
    String HANDOVER_TIMED_OUT = "HandoverTimedOut";
    String EVICTION_BLOCKED = "EvictionBlocked";
    /** Pods the drain waits on, each with its cause class and budgets (once per pod and cause). */
    String DRAIN_BLOCKED = "DrainBlocked";

    String SUCCEEDED = "SucceedMaintenance";
    String FAILED = "FailedMaintenance";
    String UNCORDONED = "UncordonNode";
    /** The undo kept the node cordoned for an admin's mark made during the maintenance (Warning; names what and why). */
    String KEPT_CORDONED = "KeptCordoned";
    /** The end left the node in maintenance for the other front door's active request (no gap between the two). */
    String HANDED_OVER = "HandedOverToNextRequest";

    String REMOVED = "RemovedMaintenance";
    String NODE_NAME_CHANGED = "NodeNameImmutable";
    /** The node was deleted after its drain succeeded (decommission): the maintenance ended, not failed. */
    String NODE_DELETED = "NodeDeleted";
    /** kubectl drain's warnings: pods removed that nothing recreates, or whose emptyDir data is lost. */
    String DRAIN_WARNING = "DrainWarning";
    /** Pods on the node past the end of their grace period, which the drain waits for: named once each. */
    String STUCK_TERMINATING = "PodsStuckTerminating";
    /** WaitCompleted pods outlived spec.drain.waitCompletedTimeout, outcome Fail: phase Failed. */
    String WAIT_COMPLETED_TIMED_OUT = "WaitCompletedTimedOut";
    /** VolumeAttachments still named the node at spec.drain.volumeDetach.timeout, outcome Fail: phase Failed. */
    String VOLUME_DETACH_TIMED_OUT = "VolumeDetachTimedOut";
    /**
     * A bounded stage's timeout passed with onTimeout Proceed: the maintenance went on as if the stage had completed;
     * the message (and status.timeoutsPassed) names what was left.
     */
    String TIMEOUT_PASSED = "TimeoutPassed";
    /**
     * A bounded stage's timeout passed with onTimeout Restore: the node was restored and the lease released, as when
     * the maintenance is deleted; phase Ended, lastError names the stage.
     */
    String TIMEOUT_RESTORED = "TimeoutRestored";
    /**
     * spec.drain.evacuation Surge: a workload was scaled up to move its pods off the node (which, by how many, from
     * what), or its replicas were given back; a gone maintenance's record was removed from a workload, or another
     * maintenance's surge of it is waited for; a Warning: the surge's record stays on the workload for now (its removal
     * conflicted at every try), removed at a later step.
     */
    String SURGE = "Surge";
    /**
     * A surge stopped without giving back (Warning, once per workload): its replicas were changed by someone else, or
     * put back while it waited, and are left as they are; or its workload is gone; or it was not started on a record
     * whose maintenance is gone at replicas not its owner's count (left for a person).
     */
    String SURGE_LEFT = "SurgeLeft";
    /** The drain moved on to its next wave (each wave's pods gone before the next is evicted). */
    String DRAIN_WAVE = "DrainWave";

    /** Lifecycle hooks hold the maintenance at a point (which hooks, until when). */
    String HOOKS_WAITING = "WaitingForHooks";
    /** The hooks that held a point are all gone: the maintenance goes on. */
    String HOOKS_RELEASED = "HooksReleased";
    /** Hooks held a point for the whole spec.hooks.timeout: pre-uncordon restores the node; pre-drain with Fail fails. */
    String HOOK_TIMED_OUT = "HookTimedOut";
    /** A scheduled maintenance waits for its start time or window. */
    String SCHEDULED = "Scheduled";
    /** The window a maintenance started in closes (or may close) before its drain finishes. */
    String WINDOW_OVERRUN = "WindowOverrun";

    /** The operator-wide limits hold the maintenance Pending: its (new) place in the queue for a free slot. */
    String QUEUED = "Queued";
    /**
     * A limit of its own (the control-plane budget) holds the maintenance Pending, out of the queue: the requests
     * behind it go ahead. Said (Warning) when what holds it changes.
     */
    String NOT_ADMISSIBLE = "NotAdmissible";

    /** A preview (spec.preview) planned the drain, or could not: what status.drainPlan now holds, or why not. */
    String PREVIEWED = "DrainPreviewed";

    /** spec.join: the maintenance shares the node's maintenance by another NodeMaintenance. */
    String JOINED = "JoinedMaintenance";
    /** A deleted owner keeps the node in maintenance while maintenances that joined it remain. */
    String SHARED_HOLD = "WaitingForJoined";
    /** The maintenance a joiner shared has ended: the joiner goes ahead on its own. */
    String SHARE_ENDED = "SharedMaintenanceEnded";

    void emit(boolean warning, String reason, String message);

    MaintenanceEvents NONE = (warning, reason, message) -> {};
}
