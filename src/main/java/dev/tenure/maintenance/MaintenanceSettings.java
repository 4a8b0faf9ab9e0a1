package dev.tenure.maintenance;

import java.time.Duration;

/** Operator-wide settings of the maintenance machine (from {@code tenure.maintenance.*}). */
public record MaintenanceSettings(
        String leaseNamespace,
        String leaseNamePrefix,
        String holder,
        Duration leaseDuration,
        Duration windowPadding,
        Duration leaseWaitRetry,
        int evictionParallelism,
        Duration drainPollInterval,
        Duration staleNodeSkipWait) {

    public MaintenanceSettings {
        if (holder == null || holder.isBlank()) {
            throw new IllegalArgumentException("tenure.maintenance.lease.holder: must not be empty");
        }
        if (leaseDuration.compareTo(Duration.ofSeconds(3)) < 0) {
            throw new IllegalArgumentException(
                    "tenure.maintenance.lease.duration: must be at least 3s, was " + leaseDuration);
        }
        if (evictionParallelism < 1) {
            throw new IllegalArgumentException(
                    "tenure.maintenance.eviction-parallelism: must be at least 1, was " + evictionParallelism);
        }
        if (drainPollInterval.isNegative() || drainPollInterval.isZero()) {
            throw new IllegalArgumentException("tenure.maintenance.drain-poll-interval: must be more than 0");
        }
    }

    public static MaintenanceSettings defaults() {
        return new MaintenanceSettings(
                "tenure-system",
                "node-",
                "tenure",
                Duration.ofSeconds(60),
                Duration.ofSeconds(30),
                Duration.ofSeconds(10),
                10,
                Duration.ofSeconds(2),
                Duration.ofSeconds(30));
    }

    /** {@code <prefix><nodeName>}, hash-suffixed when longer than a Lease name may be ({@link BoundedNames}). */
    public String leaseName(String nodeName) {
        return BoundedNames.shorten(leaseNamePrefix + nodeName, BoundedNames.DNS_SUBDOMAIN_MAX);
    }

    /** Renew our lease when a third of its duration has passed (kubelet node-lease uses a quarter). */
    public Duration renewEvery() {
        return leaseDuration.dividedBy(3);
    }
}
