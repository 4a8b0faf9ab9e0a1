package dev.tenure.operator;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/** {@code tenure.coordination.*}: the LeaseCandidate (coordinated leader election) controller. */
public interface CoordinationConfig {

    /** Run the controller at all (MaintenanceAware is always on while it runs). */
    @WithDefault("true")
    boolean enabled();

    /**
     * Start with the operator at boot. Set to false when the operator's own leader election drives
     * {@code CoordinationController.start()/stop()}.
     */
    @WithDefault("true")
    boolean autostart();

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
