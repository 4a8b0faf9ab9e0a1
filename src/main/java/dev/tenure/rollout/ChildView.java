package dev.tenure.rollout;

import java.util.List;

/**
 * A child NodeMaintenance of the rollout, as the planner reads it.
 *
 * @param phase its status.phase name (Pending, Running, Succeeded, Failed, Ended...), null before its first status
 * @param error its status.lastError, null when none
 * @param acknowledged it carries the manual acknowledgement annotation
 * @param ending it has a deletionTimestamp: its undo is running
 * @param workloads its status.drainedWorkloads: the controllers whose pods its drain removed
 */
public record ChildView(
        String nodeName,
        String phase,
        String error,
        boolean acknowledged,
        boolean ending,
        List<WorkloadRef> workloads) {

    public ChildView {
        workloads = workloads == null ? List.of() : List.copyOf(workloads);
    }

    /** A child whose drain has removed no controller's pods (yet). */
    public ChildView(String nodeName, String phase, String error, boolean acknowledged, boolean ending) {
        this(nodeName, phase, error, acknowledged, ending, List.of());
    }
}
