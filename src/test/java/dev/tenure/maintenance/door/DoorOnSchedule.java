package dev.tenure.maintenance.door;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.ScheduleStatus;
import dev.tenure.maintenance.machine.MaintenanceSchedule;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import dev.tenure.maintenance.machine.WindowOracle;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The real door's decisions on a NodeMaintenance with {@code spec.schedule}, for a model outside this package
 * ({@code DrainModelPropertyTest}): whether it is admitted at an instant (the machine runs) and, once started, what
 * status.schedule and which events a machine step leaves ({@link DoorDecisions#decide}, {@link ScheduleStatuses}), as
 * {@link MaintenanceWindowPropertyTest} drives them.
 */
public final class DoorOnSchedule {

    private DoorOnSchedule() {}

    /** A NodeMaintenance of node w1 whose spec.schedule is {@code window} (its days, times, zone and startAt). */
    public static NodeMaintenance maintenance(WindowOracle window) {
        return MaintenanceWindowPropertyTest.maintenance(new MaintenanceWindowPropertyTest.Case(
                window.zone(), window.days(), window.start(), window.end(), null, window.startAt()));
    }

    /** The door's word on a request not yet started. */
    public sealed interface Look {
        /** Admitted now: the machine runs; {@code windowCloses} as status.schedule says it. */
        record Admitted(Optional<Instant> windowCloses, Optional<String> message) implements Look {}

        /** Phase Scheduled: nothing is touched before {@code nextStart} (status.schedule.nextStart). */
        record Held(Instant nextStart, String why) implements Look {}
    }

    /** What the door decides at {@code now} for {@code nm}, not yet started (no status), on node w1. */
    public static Look firstLook(NodeMaintenance nm, Instant now) {
        nm.setStatus(null);
        DoorDecision.Observed o = MaintenanceWindowPropertyTest.observed(nm, now);
        DoorDecision d = DoorDecisions.decide(o, MaintenanceWindowPropertyTest.RULES);
        if (d instanceof DoorDecision.Advance advance) {
            MaintenanceState running = MaintenanceState.initial().toBuilder()
                    .phase(Phase.Running)
                    .leaseAcquiredAt(now)
                    .build();
            ScheduleStatus status =
                    ScheduleStatuses.of(nm, null, advance.admit().schedule(), running, now, e -> {});
            return new Look.Admitted(
                    Optional.ofNullable(status)
                            .map(ScheduleStatus::getWindowCloses)
                            .map(Instant::parse),
                    Optional.ofNullable(status).map(ScheduleStatus::getMessage));
        }
        if (d instanceof DoorDecision.Scheduled scheduled) {
            ScheduleStatus status = scheduled.status().getSchedule();
            return new Look.Held(Instant.parse(status.getNextStart()), status.getMessage());
        }
        throw new AssertionError("neither admitted nor Scheduled: " + d);
    }

    /**
     * A reconcile at {@code now} of {@code nm}, started at {@code startedAt} and still draining, whose status.schedule
     * was {@code prior}: whether the door runs the machine ({@code advances}), and status.schedule and the events
     * after the machine's step.
     */
    public record Draining(boolean advances, ScheduleStatus schedule, List<DoorDecision.Event> events) {}

    public static Draining draining(NodeMaintenance nm, Instant startedAt, ScheduleStatus prior, Instant now) {
        MaintenanceState state = MaintenanceState.initial().toBuilder()
                .phase(Phase.Running)
                .leaseAcquiredAt(startedAt)
                .cordonedAt(startedAt)
                .drainStartedAt(startedAt)
                .build();
        NodeMaintenanceStatus status = NodeMaintenanceStatuses.toStatus(state, null, 1L, startedAt);
        status.setNodeName("w1");
        status.setSchedule(prior);
        nm.setStatus(status);
        DoorDecision d = DoorDecisions.decide(
                MaintenanceWindowPropertyTest.observed(nm, now), MaintenanceWindowPropertyTest.RULES);
        Optional<MaintenanceSchedule.Verdict> verdict =
                d instanceof DoorDecision.Advance advance ? advance.admit().schedule() : Optional.empty();
        List<DoorDecision.Event> events = new ArrayList<>();
        ScheduleStatuses.AfterStep after = ScheduleStatuses.afterStep(
                nm, status, verdict, state, Optional.of(Duration.ofSeconds(5)), now, events::add);
        nm.setStatus(null);
        return new Draining(d instanceof DoorDecision.Advance, after.status(), List.copyOf(events));
    }
}
