package dev.tenure.rollout;

/**
 * A child NodeMaintenance of the rollout, as the planner reads it.
 *
 * @param phase its status.phase name (Pending, Running, Succeeded, Failed, Ended...), null before its first status
 * @param error its status.lastError, null when none
 * @param acknowledged it carries the manual acknowledgement annotation
 * @param ending it has a deletionTimestamp: its undo is running
 */
public record ChildView(String nodeName, String phase, String error, boolean acknowledged, boolean ending) {}
