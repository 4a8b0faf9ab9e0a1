package dev.tenure.election;

/** Anything else (5xx, timeouts, connection loss): the attempt failed, try again later. */
public final class LeaseStoreFailure extends LeaseStoreException {
    private final int status;

    public LeaseStoreFailure(LeaseKey key, int status, String message, Throwable cause) {
        super(key, message + (status > 0 ? " (HTTP " + status + ")" : ""), cause);
        this.status = status;
    }

    /** HTTP status, or 0 when no response was received. */
    public int status() {
        return status;
    }
}
