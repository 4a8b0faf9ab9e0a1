package dev.tenure.maintenance.door;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.ScheduleStatus;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenancePlanner;
import dev.tenure.maintenance.machine.MaintenanceSchedule;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;

/** status.schedule of a NodeMaintenance with spec.schedule, and when its reconciler looks again for it. */
public final class ScheduleStatuses {

    private ScheduleStatuses() {}

    /**
     * status.schedule: when a Scheduled maintenance may start; once it starts, when the window it started in
     * closes, and whether its drain may not (or did not) finish inside it, said once as a Warning.
     */
    static ScheduleStatus of(
            NodeMaintenance nm,
            NodeMaintenanceStatus prior,
            Optional<MaintenanceSchedule.Verdict> verdict,
            MaintenanceState state,
            Instant now,
            Consumer<DoorDecision.Event> events) {
        ScheduleStatus was = prior == null ? null : prior.getSchedule();
        if (verdict.orElse(null) instanceof MaintenanceSchedule.Verdict.Closed closed) {
            return closed(closed);
        }
        Optional<String> message;
        String closes;
        if (verdict.orElse(null) instanceof MaintenanceSchedule.Verdict.Open open) {
            // admitted now (or held by the budget): the window it starts in, and whether its drain fits
            closes = open.closes().map(NodeMaintenanceStatuses::text).orElse(null);
            message = state.phase() == Phase.Pending
                    ? Optional.empty() // held by the budget: said when it starts
                    : open.closes()
                            .flatMap(c -> MaintenanceSchedule.mayOverrun(
                                    now,
                                    c,
                                    DrainOptions.from(nm.getSpec().getDrain()).timeout()));
        } else {
            // started before: the window it started in; a drain still running past its close says so
            closes = was == null ? null : was.getWindowCloses();
            MaintenanceState s = state;
            Optional<String> overran = s.phase() == Phase.Running && s.drainedAt() == null && closes != null
                    ? MaintenanceSchedule.overran(now, Optional.of(Instant.parse(closes)))
                    : Optional.empty();
            message = overran.or(() -> Optional.ofNullable(was == null ? null : was.getMessage()));
        }
        if (closes == null) {
            return null;
        }
        if (message.isPresent() && (was == null || !message.get().equals(was.getMessage()))) {
            events.accept(new DoorDecision.Event(true, MaintenanceEvents.WINDOW_OVERRUN, message.get()));
        }
        return new ScheduleStatus(null, closes, message.orElse(null));
    }

    /** status.schedule of a maintenance that waits for its schedule: when it may start, and why not before. */
    static ScheduleStatus closed(MaintenanceSchedule.Verdict.Closed closed) {
        return new ScheduleStatus(NodeMaintenanceStatuses.text(closed.opens()), null, closed.why());
    }

    /** status.schedule after a machine step, and when to look again: at the latest when the window closes. */
    record AfterStep(ScheduleStatus status, Optional<Duration> look) {}

    /**
     * {@link #of} and {@link #untilWindowCloses} for a machine step's state and requeue.
     */
    static AfterStep afterStep(
            NodeMaintenance nm,
            NodeMaintenanceStatus prior,
            Optional<MaintenanceSchedule.Verdict> verdict,
            MaintenanceState state,
            Optional<Duration> requeue,
            Instant now,
            Consumer<DoorDecision.Event> events) {
        ScheduleStatus status = of(nm, prior, verdict, state, now, events);
        return new AfterStep(status, untilWindowCloses(status, state, requeue, now));
    }

    /** A drain still running when its window closes is looked at then, to say so at that moment. */
    static Optional<Duration> untilWindowCloses(
            ScheduleStatus schedule, MaintenanceState state, Optional<Duration> requeue, Instant now) {
        if (schedule == null
                || schedule.getWindowCloses() == null
                || state.phase() != Phase.Running
                || state.drainedAt() != null) {
            return requeue;
        }
        Instant closes = Instant.parse(schedule.getWindowCloses());
        if (!now.isBefore(closes)) {
            return requeue;
        }
        Duration left = MaintenancePlanner.max(DoorDecisions.MIN_LOOK, Duration.between(now, closes));
        return Optional.of(requeue.map(r -> MaintenancePlanner.min(r, left)).orElse(left));
    }
}
