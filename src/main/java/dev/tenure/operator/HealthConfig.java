package dev.tenure.operator;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/** {@code tenure.health.*}: probe tuning. */
public interface HealthConfig {

    /**
     * Liveness fails when one of the leader's watches (JOSDK event sources, coordination informers) has been
     * stopped, not watching or not synced for longer than this. Long enough to ride out an API server restart
     * (informers re-list and re-watch by themselves), short enough that a dead watch does not go unnoticed.
     */
    @WithDefault("2m")
    Duration watchGrace();
}
