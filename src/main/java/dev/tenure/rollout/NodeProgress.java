package dev.tenure.rollout;

import dev.tenure.rollout.api.NodeState;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One node's record in the rollout's status ({@code status.nodes}), as the planner reads and writes it.
 *
 * @param workloads the controllers its child's drain removed pods of (the child's {@code status.drainedWorkloads}),
 *     kept while the node is in flight for the "workloads whole again" gate and dropped once it is Done or Failed
 */
public record NodeProgress(
        String name,
        NodeState state,
        String bootIDBefore,
        Instant startedAt,
        Instant drainedAt,
        Instant doneAt,
        Instant endedAt,
        String message,
        List<WorkloadRef> workloads) {

    public NodeProgress {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        workloads = workloads == null ? List.of() : List.copyOf(workloads);
    }

    /** A record without workloads. */
    public NodeProgress(
            String name,
            NodeState state,
            String bootIDBefore,
            Instant startedAt,
            Instant drainedAt,
            Instant doneAt,
            Instant endedAt,
            String message) {
        this(name, state, bootIDBefore, startedAt, drainedAt, doneAt, endedAt, message, List.of());
    }

    static NodeProgress started(PoolNode node, Instant now) {
        return new NodeProgress(node.name(), NodeState.InProgress, node.bootID(), now, null, null, null, null);
    }

    NodeProgress drained(Instant now) {
        return new NodeProgress(name, state, bootIDBefore, startedAt, now, doneAt, endedAt, message, workloads);
    }

    /** The workloads its child names now (the child's list only grows while it drains). */
    NodeProgress withWorkloads(List<WorkloadRef> fromChild) {
        return fromChild.isEmpty() || fromChild.equals(workloads)
                ? this
                : new NodeProgress(
                        name, state, bootIDBefore, startedAt, drainedAt, doneAt, endedAt, message, fromChild);
    }

    NodeProgress soaking(Instant now) {
        return new NodeProgress(
                name, NodeState.Soaking, bootIDBefore, startedAt, drainedAt, now, endedAt, null, workloads);
    }

    /** Still soaking, waiting on what {@code why} says (a gate). */
    NodeProgress waiting(String why) {
        return Objects.equals(why, message)
                ? this
                : new NodeProgress(name, state, bootIDBefore, startedAt, drainedAt, doneAt, endedAt, why, workloads);
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
