package dev.tenure.rollout;

import java.time.Instant;
import java.util.Objects;

/**
 * One health gate as the planner reads it: the general shape every gate has, so a new gate is one more entry of
 * {@link RolloutPlanner.Observed#gates()}. A closed gate with {@code node} null holds every start of the rollout (an
 * alert gate); with a node, it holds that node's slot (the node stays Soaking) until it opens. A gate closed for
 * {@code spec.health.gateTimeout} pauses the rollout (reason {@code GateTimeout}) until it opens.
 *
 * @param name the gate's name, one word ({@code WorkloadsWhole}); with {@code node}, its identity across looks
 * @param node the node whose slot it holds, null when it holds the whole rollout
 * @param open whether it lets the rollout go on
 * @param closedSince when it was first seen closed: null in an observation (the planner carries the time from the
 *     status, else takes {@code now}, else this when the observer knows better); set in the plan's answer
 * @param message what it waits on, for status and events ("ReplicaSet shop/web-5d8f: 2 of 3 available"); null when
 *     open
 */
public record GateState(String name, String node, boolean open, Instant closedSince, String message) {

    public GateState {
        Objects.requireNonNull(name, "name");
    }

    /** An open gate. */
    public static GateState open(String name, String node) {
        return new GateState(name, node, true, null, null);
    }

    /** A gate seen closed now, waiting on {@code message}. */
    public static GateState closed(String name, String node, String message) {
        return new GateState(name, node, false, null, message);
    }

    /** Same gate: same name and node. */
    boolean sameGate(GateState other) {
        return name.equals(other.name) && Objects.equals(node, other.node);
    }

    /** "gate WorkloadsWhole of node n1", as messages name it. */
    String shown() {
        return "gate " + name + (node == null ? "" : " of node " + node);
    }
}
