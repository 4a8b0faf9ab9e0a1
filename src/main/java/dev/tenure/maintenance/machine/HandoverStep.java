package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.machine.MaintenanceMachine.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** Step 3 of the machine: leadership of the leases held on the node handed away before the drain. */
public final class HandoverStep {

    private final LeadershipHandover handover;
    private final MaintenanceMetrics metrics;
    private final MaintenanceSettings settings;

    HandoverStep(LeadershipHandover handover, MaintenanceMetrics metrics, MaintenanceSettings settings) {
        this.handover = handover;
        this.metrics = metrics;
        this.settings = settings;
    }

    /** Asks for the handover; a step to return while it is pending, empty once it is done (or disabled). */
    Optional<Step> handOver(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            Instant now,
            MaintenanceEvents events) {
        if (!request.handover().enabled()) {
            s.handedOverAt(now).handoverMessage("handover disabled in spec.handover.enabled");
            return Optional.empty();
        }
        Instant started = Optional.ofNullable(prior.handoverStartedAt()).orElse(now);
        s.handoverStartedAt(started);
        MaintenancePlanner.HandoverVerdict verdict = MaintenancePlanner.handover(
                request.handover(),
                started,
                handover.handOver(request.nodeName(), started, now),
                settings.drainPollInterval(),
                now);
        if (verdict instanceof MaintenancePlanner.HandoverVerdict.Pending pending) {
            return Optional.of(
                    new Step(s.handoverMessage(pending.message()).build(), Optional.of(pending.requeueAfter())));
        }
        MaintenancePlanner.HandoverVerdict.Done done = (MaintenancePlanner.HandoverVerdict.Done) verdict;
        s.handedOverAt(now).handoverMessage(done.message());
        metrics.handover(
                done.timedOut()
                        ? MaintenanceMetrics.HandoverOutcome.timed_out
                        : MaintenanceMetrics.HandoverOutcome.completed,
                Duration.between(started, now));
        if (done.timedOut()) {
            events.emit(true, MaintenanceEvents.HANDOVER_TIMED_OUT, done.message());
        }
        return Optional.empty();
    }
}
