package dev.tenure.election;

/**
 * Why a {@link LeaseStore} call failed. Sealed so callers branch on the cases that matter
 * (conflict, not found) and treat the rest as a failed attempt.
 */
public abstract sealed class LeaseStoreException extends RuntimeException
        permits LeaseConflict, LeaseNotFound, LeaseStoreFailure {

    private final LeaseKey key;

    protected LeaseStoreException(LeaseKey key, String message, Throwable cause) {
        super(key + ": " + message, cause);
        this.key = key;
    }

    public LeaseKey key() {
        return key;
    }
}
