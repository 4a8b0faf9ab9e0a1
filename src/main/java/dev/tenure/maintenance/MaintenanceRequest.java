package dev.tenure.maintenance;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What the {@link MaintenanceMachine} is asked to do for one node, independent of where the request
 * came from (a NodeMaintenance, or the node annotation protocol).
 *
 * @param window maintenance ends by itself this long after the lease was acquired; empty = until removed
 */
public record MaintenanceRequest(String nodeName, String reason, Optional<Duration> window, DrainOptions drain,
        HandoverOptions handover) {

    public MaintenanceRequest {
        Objects.requireNonNull(nodeName, "nodeName");
        if (nodeName.isBlank()) {
            throw new IllegalArgumentException("spec.nodeName: must not be empty");
        }
        reason = reason == null ? "" : reason;
        window = window == null ? Optional.empty() : window;
        drain = drain == null ? DrainOptions.defaults() : drain;
        handover = handover == null ? HandoverOptions.defaults() : handover;
    }

    /** Resolves a NodeMaintenance spec; throws {@link IllegalArgumentException} naming the bad field. */
    public static MaintenanceRequest from(NodeMaintenanceSpec spec) {
        Duration window = GoDuration.parseOrNull("spec.window", spec.getWindow());
        if (window != null && window.isZero()) {
            throw new IllegalArgumentException("spec.window: must be more than 0 (omit it for no window)");
        }
        return new MaintenanceRequest(spec.getNodeName() == null ? "" : spec.getNodeName(), spec.getReason(),
                Optional.ofNullable(window), DrainOptions.from(spec.getDrain()), HandoverOptions.from(spec.getHandover()));
    }
}
