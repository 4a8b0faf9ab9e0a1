package dev.tenure.rollout;

import dev.tenure.rollout.api.NodeState;
import java.time.Instant;
import java.util.Objects;

/** One node's record in the rollout's status ({@code status.nodes}), as the planner reads and writes it. */
public record NodeProgress(
        String name,
        NodeState state,
        String bootIDBefore,
        Instant startedAt,
        Instant drainedAt,
        Instant doneAt,
        Instant endedAt,
        String message) {

    public NodeProgress {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
    }

    static NodeProgress started(PoolNode node, Instant now) {
        return new NodeProgress(node.name(), NodeState.InProgress, node.bootID(), now, null, null, null, null);
    }

    NodeProgress drained(Instant now) {
        return new NodeProgress(name, state, bootIDBefore, startedAt, now, doneAt, endedAt, message);
    }

    NodeProgress soaking(Instant now) {
        return new NodeProgress(name, NodeState.Soaking, bootIDBefore, startedAt, drainedAt, now, endedAt, null);
    }

    NodeProgress doneAndSoaked(Instant now) {
        return new NodeProgress(name, NodeState.Done, bootIDBefore, startedAt, drainedAt, doneAt, now, null);
    }

    NodeProgress failed(Instant now, String why) {
        return new NodeProgress(name, NodeState.Failed, bootIDBefore, startedAt, drainedAt, doneAt, now, why);
    }

    /** Holds a slot: in progress or soaking. */
    public boolean inFlight() {
        return state == NodeState.InProgress || state == NodeState.Soaking;
    }

    /** Its state no longer changes. */
    public boolean finished() {
        return state == NodeState.Done || state == NodeState.Skipped || state == NodeState.Failed;
    }
}
