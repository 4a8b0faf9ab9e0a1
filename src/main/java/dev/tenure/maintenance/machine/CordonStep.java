package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceMachine.Step;
import java.time.Instant;
import java.util.Optional;

/** Step 2 of the machine: cordon, taints and the Node condition, re-applied if someone removed them. */
public final class CordonStep {

    /** The reason of the Node condition {@value NodeMarks#CONDITION_TYPE} this step writes. */
    static final String CONDITION_REASON = "NodeMaintenance";

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
        String message = request.conditionMessage();
        try {
            NodeCordon.Marked marked = cordon.mark(nodeName, CONDITION_REASON, message, now);
            if (prior.cordonedAt() == null) {
                s.cordonedAt(now);
                if (marked.changed()) {
                    announce(nodeName, events);
                }
            }
            if (prior.cordonFailure() != null) {
                // the failed write went through now: the error it left in status goes with it
                s.cordonFailure(null);
                if (prior.cordonFailure().equals(prior.lastError())) {
                    s.lastError(null);
                }
            }
            return Optional.empty();
        } catch (NodeCordon.NodeWriteFailed e) {
            // Said as it is: what is on the node (a cordon that went through is Cordoned=True), which write failed and
            // the API's answer in one line; the caller counts the step as an error and retries it with backoff.
            if (e.cordoned() && prior.cordonedAt() == null) {
                s.cordonedAt(now);
                announce(nodeName, events);
            }
            s.cordonFailure(e.getMessage());
            if (prior.phase() != Phase.Failed) {
                // a Failed maintenance keeps the reason it failed for in lastError; the write's trouble is said in
                // its Cordoned condition and event, and a later write that goes through must not clear the reason
                s.lastError(e.getMessage());
            }
            return Optional.of(
                    new Step(s.build(), Optional.of(settings.drainPollInterval()), Optional.of(e.getMessage())));
        }
    }

    private static void announce(String nodeName, MaintenanceEvents events) {
        events.emit(
                false,
                MaintenanceEvents.CORDONED,
                "node " + nodeName + " cordoned and tainted " + NodeMarks.DRAIN_TAINT.getKey() + ":NoSchedule");
    }
}
