package dev.tenure.rollout.api;

/** Where a rollout stands. */
public enum RolloutPhase {
    /** Nodes are started as the limits allow. */
    Progressing,
    /**
     * No new node starts: spec.paused, the failure budget is spent, or a health gate stayed closed past
     * spec.health.gateTimeout (status.reason says which: Paused, FailureBudget, GateTimeout).
     */
    Paused,
    /** Every selected node is done or failed, and none is in progress. */
    Complete,
    /** The spec is refused (status.message names the field); nothing is started. */
    Invalid
}
