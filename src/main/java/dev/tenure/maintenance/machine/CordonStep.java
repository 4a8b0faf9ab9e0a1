package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.machine.MaintenanceMachine.Step;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.Optional;

/** Step 2 of the machine: cordon, taints and the Node condition, re-applied if someone removed them. */
public final class CordonStep {

    private final NodeCordon cordon;
    private final MaintenanceSettings settings;

    CordonStep(NodeCordon cordon, MaintenanceSettings settings) {
        this.cordon = cordon;
        this.settings = settings;
    }

    /** Marks the node; a step to return when the marks could not be sent, empty when the machine goes on. */
    Optional<Step> mark(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            Instant now,
            MaintenanceEvents events) {
        String nodeName = request.nodeName();
        try {
            String message = request.reason().isEmpty() ? "node is in maintenance" : request.reason();
            boolean changed = cordon.mark(nodeName, "NodeMaintenance", message, now);
            if (prior.cordonedAt() == null) {
                s.cordonedAt(now);
            }
            if (changed && prior.cordonedAt() == null) {
                events.emit(
                        false,
                        MaintenanceEvents.CORDONED,
                        "node " + nodeName + " cordoned and tainted " + NodeMarks.DRAIN_TAINT.getKey() + ":NoSchedule");
            }
            return Optional.empty();
        } catch (KubernetesClientException e) {
            return Optional.of(new Step(
                    s.lastError("cordoning node " + nodeName + ": HTTP " + e.getCode() + " " + e.getMessage())
                            .build(),
                    Optional.of(settings.drainPollInterval())));
        }
    }
}
