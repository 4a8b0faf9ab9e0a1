package dev.tenure.election;

/**
 * HTTP 409: the resourceVersion of an update is stale (someone else wrote first), or a create
 * found the lease already there ({@link #alreadyExists()}).
 */
public final class LeaseConflict extends LeaseStoreException {
    private final boolean alreadyExists;

    public LeaseConflict(LeaseKey key, boolean alreadyExists, Throwable cause) {
        super(key, alreadyExists ? "lease already exists" : "lease was changed since it was read", cause);
        this.alreadyExists = alreadyExists;
    }

    public boolean alreadyExists() {
        return alreadyExists;
    }
}
