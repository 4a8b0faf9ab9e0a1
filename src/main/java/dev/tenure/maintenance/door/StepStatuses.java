package dev.tenure.maintenance.door;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The status after a machine step the door ran for a decision ({@link DoorDecision.Advance}, {@link
 * DoorDecision.Preview}), and when to look again. Pure.
 */
final class StepStatuses {

    /** The status to write and when to look again; {@code events}: what the mapping had to say (a window overrun). */
    record Mapped(NodeMaintenanceStatus status, Optional<Duration> look) {}

    private StepStatuses() {}

    /**
     * After an admitted maintenance's step: its node pinned (an edit of spec.nodeName cannot move it), no place in
     * the queue, who joined it, status.schedule; a drain running when its window closes is looked at then.
     */
    static Mapped advanced(
            NodeMaintenance nm,
            DoorDecision.Advance advance,
            MaintenanceMachine.Step step,
            Instant began,
            Instant now,
            Consumer<DoorDecision.Event> events) {
        NodeMaintenanceStatus prior = nm.getStatus();
        ScheduleStatuses.AfterStep schedule = ScheduleStatuses.afterStep(
                nm, prior, advance.admit().schedule(), step.state(), step.requeueAfter(), began, events);
        NodeMaintenanceStatus next = NodeMaintenanceStatuses.toStatus(
                step.state(),
                prior,
                Optional.ofNullable(nm.getMetadata().getGeneration()).orElse(0L),
                now);
        next.setNodeName(advance.nodeName());
        next.setQueuePosition(null);
        next.setSharedWith(orNull(advance.sharedWith()));
        next.setSchedule(schedule.status());
        NodeMaintenanceStatuses.touch(next, prior, now);
        return new Mapped(next, schedule.look());
    }

    /**
     * The preview's status: phase Pending, status.drainPlan.pods the plan, the node not pinned (the maintenance is
     * admitted, and its node pinned, only when spec.preview goes back to false).
     */
    static Mapped previewed(
            NodeMaintenance nm, DoorDecision.Preview preview, MaintenanceMachine.Step step, Instant now) {
        return new Mapped(
                NodeMaintenanceStatuses.toStatus(step.state(), nm.getStatus(), preview.generation(), now),
                step.requeueAfter());
    }

    /**
     * The machine's step with the move note (spec.nodeName edited away from the pinned node) in front of its
     * lastError: the machine carries the last status's error forward, so the note written last time is taken off it
     * first.
     */
    static MaintenanceMachine.Step withMoveNote(MaintenanceMachine.Step step, Optional<String> note) {
        if (note.isEmpty()) {
            return step;
        }
        return new MaintenanceMachine.Step(
                step.state().toBuilder()
                        .lastError(withMoveNote(step.state().lastError(), note.get()))
                        .build(),
                step.requeueAfter());
    }

    static String withMoveNote(String machineError, String note) {
        String error = machineError;
        if (error != null && error.startsWith(note)) {
            error = error.substring(note.length()).replaceFirst("^; ", "");
        }
        return error == null || error.isEmpty() ? note : note + "; " + error;
    }

    private static <T> List<T> orNull(List<T> list) {
        return list.isEmpty() ? null : list;
    }
}
