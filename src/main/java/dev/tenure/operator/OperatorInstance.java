package dev.tenure.operator;

/**
 * This operator process: the identity it contends with for the operator lease, writes as the holder of the node
 * leases it takes, and names in the requests its work sends. One per process, so two replicas are never confused.
 */
public record OperatorInstance(String identity) {
    public OperatorInstance {
        if (identity == null || identity.isBlank()) {
            throw new IllegalArgumentException("tenure.leader-election.identity: must not be empty");
        }
    }

    /** The configured identity, or the pod's name plus a random suffix (a restarted pod is a new contender). */
    static OperatorInstance of(LeaderElectionConfig le) {
        return new OperatorInstance(le.identity().orElseGet(OperatorLeadership::defaultIdentity));
    }
}
