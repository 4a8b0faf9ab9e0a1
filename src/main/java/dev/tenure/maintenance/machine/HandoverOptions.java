package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.HandoverSpec;
import java.time.Duration;

/** Resolved {@link HandoverSpec}: whether to hand leadership off the node, and for how long at most. */
public record HandoverOptions(boolean enabled, Duration timeout) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    public static HandoverOptions defaults() {
        return from(null);
    }

    public static HandoverOptions from(HandoverSpec spec) {
        if (spec == null) {
            return new HandoverOptions(true, DEFAULT_TIMEOUT);
        }
        Duration timeout = GoDuration.parseOrNull("spec.handover.timeout", spec.getTimeout());
        return new HandoverOptions(
                spec.getEnabled() == null || spec.getEnabled(), timeout == null ? DEFAULT_TIMEOUT : timeout);
    }
}
