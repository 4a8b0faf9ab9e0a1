package dev.tenure.election;

/** Where a Lease lives: namespace and name. */
public record LeaseKey(String namespace, String name) {
    public LeaseKey {
        if (namespace == null || namespace.isBlank()) {
            throw new IllegalArgumentException("lease namespace must be non-empty");
        }
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("lease name must be non-empty");
        }
    }

    public static LeaseKey of(String namespace, String name) {
        return new LeaseKey(namespace, name);
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
