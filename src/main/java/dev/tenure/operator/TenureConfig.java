package dev.tenure.operator;

import io.smallrye.config.ConfigMapping;

/** Every {@code tenure.*} setting, in one place. */
@ConfigMapping(prefix = "tenure")
public interface TenureConfig {
    MaintenanceConfig maintenance();

    CoordinationConfig coordination();

    LeaderElectionConfig leaderElection();

    HealthConfig health();
}
