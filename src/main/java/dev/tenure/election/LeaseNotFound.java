package dev.tenure.election;

/** HTTP 404: the lease does not exist. */
public final class LeaseNotFound extends LeaseStoreException {
    public LeaseNotFound(LeaseKey key, Throwable cause) {
        super(key, "lease not found", cause);
    }
}
