package dev.tenure.rollout;

import java.util.Objects;

/**
 * A controller whose pods a child's drain removed (the child's {@code status.drainedWorkloads}), as the planner keeps
 * it for the "workloads whole again" gate.
 */
public record WorkloadRef(String apiVersion, String kind, String namespace, String name) {

    public WorkloadRef {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
    }

    /** "ReplicaSet shop/web-5d8f", as status messages name it. */
    @Override
    public String toString() {
        return kind + " " + (namespace == null ? "" : namespace + "/") + name;
    }
}
