package dev.tenure.operator;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/** {@code tenure.coordination.*}: the LeaseCandidate (coordinated leader election) controller. */
public interface CoordinationConfig {

    /**
     * Run the controller at all (MaintenanceAware is always on while it runs). It runs on the leading replica
     * only: operator HA ({@code OperatorLeadership}) starts and stops it with the reconcilers.
     */
    @WithDefault("true")
    boolean enabled();

    /** Upstream strategy handling; off by default because the API server may run its own controller. */
    OldestEmulationVersion oldestEmulationVersion();

    /** {@code auto} (discover v1beta1, else v1alpha2), or {@code v1beta1} / {@code v1alpha2} to skip discovery. */
    @WithDefault("auto")
    String leaseCandidateVersion();

    /** How often expired LeaseCandidates are garbage-collected (upstream: 30 min). */
    @WithDefault("30m")
    Duration gcPeriod();

    interface OldestEmulationVersion {
        /** Elect Leases whose candidates ask for {@code OldestEmulationVersion} (and third-party strategies). */
        @WithDefault("false")
        boolean enabled();
    }
}
