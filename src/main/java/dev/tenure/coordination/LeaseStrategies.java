package dev.tenure.coordination;

/** The coordinated lease strategies this controller knows. */
public final class LeaseStrategies {

    /** The upstream strategy (coordination.k8s.io/v1 CoordinatedLeaseStrategy). */
    public static final String OLDEST_EMULATION_VERSION = "OldestEmulationVersion";

    /** Tenure's own: {@link #OLDEST_EMULATION_VERSION} minus candidates on cordoned or maintained nodes. */
    public static final String MAINTENANCE_AWARE = "tenure.dev/MaintenanceAware";

    private LeaseStrategies() {}

    /** A bounded metric label for a strategy name that comes from user objects. */
    public static String metricLabel(String strategy) {
        if (OLDEST_EMULATION_VERSION.equals(strategy) || MAINTENANCE_AWARE.equals(strategy)) {
            return strategy;
        }
        return "other";
    }
}
