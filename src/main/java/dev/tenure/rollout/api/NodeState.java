package dev.tenure.rollout.api;

/** What the rollout did with one node (status.nodes); a node without a record waits. */
public enum NodeState {
    /** Its child NodeMaintenance exists (or is being created); the node holds a slot. */
    InProgress,
    /** Its done signal came; its child was ended; it holds its slot until it has soaked. */
    Soaking,
    /** Done and soaked: its slot is free. */
    Done,
    /** Done before it started (the signal already held): never maintained. */
    Skipped,
    /** Its maintenance failed, ended before the node was done, or timed out; counts against the failure budget. */
    Failed
}
