package dev.tenure.election;

/**
 * An owner reference of a Lease, kept free of any client library. The adapter maps it to
 * {@code metadata.ownerReferences}; the rules never look at it.
 */
public record LeaseOwner(String apiVersion, String kind, String name, String uid) {
    public LeaseOwner {
        if (apiVersion == null || kind == null || name == null || uid == null || uid.isBlank()) {
            throw new IllegalArgumentException("owner reference needs apiVersion, kind, name and uid");
        }
    }

    /** The owner a node-scoped lease gets (kubelet node-lease parity: garbage collected with the Node). */
    public static LeaseOwner node(String nodeName, String uid) {
        return new LeaseOwner("v1", "Node", nodeName, uid);
    }
}
