package dev.tenure.maintenance.admission;

import static dev.tenure.maintenance.admission.NodeMaintenanceValidatorTest.nm;
import static dev.tenure.maintenance.admission.NodeMaintenanceValidatorTest.running;
import static dev.tenure.maintenance.admission.NodeMaintenanceValidatorTest.worker;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.admission.NodeMaintenanceValidator.ClusterView;
import dev.tenure.maintenance.api.HooksSpec;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.RecurringWindowSpec;
import dev.tenure.maintenance.api.ScheduleSpec;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The lifecycle fields in the admission rules: bad input names its field; a schedule takes no budget slot early. */
class LifecycleValidationTest {

    static final MaintenanceLimits ONE_AT_A_TIME = new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty());

    static ScheduleSpec window(String start, String end, String zone) {
        return new ScheduleSpec(null, new RecurringWindowSpec(null, start, end, zone));
    }

    @Test
    void aBadScheduleOrHookTimeoutIsRefusedNamingTheField() {
        NodeMaintenance badZone = nm("a", "w1", s -> s.setSchedule(window("02:00", "05:00", "Mars/Olympus")));
        NodeMaintenance badStart = nm("b", "w1", s -> s.setSchedule(new ScheduleSpec("tomorrow", null)));
        NodeMaintenance badTimeout = nm("c", "w1", s -> s.setHooks(new HooksSpec("0")));
        ClusterView view = new ClusterView(Optional.of(worker("w1")), List.of(), List.of());

        assertThat(NodeMaintenanceValidator.refusals(badZone, null, view))
                .containsExactly("spec.schedule.window.timeZone: not a time zone: \"Mars/Olympus\" (an IANA name such"
                        + " as Europe/Berlin, or UTC)");
        assertThat(NodeMaintenanceValidator.refusals(badStart, null, view))
                .singleElement()
                .asString()
                .startsWith("spec.schedule.startAt: must be an RFC 3339 time");
        assertThat(NodeMaintenanceValidator.refusals(badTimeout, null, view))
                .singleElement()
                .asString()
                .startsWith("spec.hooks.timeout: must be more than 0");
    }

    @Test
    void aScheduledRequestIsNotHeldByTheBudgetAtAdmission() {
        NodeMaintenance busy = running("busy", "w2");
        ClusterView view = new ClusterView(Optional.of(worker("w1")), List.of(), List.of(busy));

        assertThat(NodeMaintenanceValidator.validate(nm("now", "w1"), null, view, ONE_AT_A_TIME))
                .singleElement()
                .asString()
                .startsWith("tenure.maintenance.max-nodes-in-maintenance: at most 1");
        assertThat(NodeMaintenanceValidator.validate(
                        nm("later", "w1", s -> s.setSchedule(window("02:00", "05:00", null))),
                        null,
                        view,
                        ONE_AT_A_TIME))
                .isEmpty();
    }

    @Test
    void aMaintenanceWaitingForItsScheduleTakesNoBudgetSlotButKeepsItsNode() {
        NodeMaintenance scheduled = nm("weekend", "w2", s -> s.setSchedule(window("02:00", "05:00", null)));
        scheduled.getStatus().setPhase(Phase.Scheduled);
        List<NodeMaintenance> all = List.of(scheduled);

        NodeMaintenance other = nm("other", "w1");
        other.getMetadata().setCreationTimestamp("2026-01-02T00:00:00Z");
        List<NodeMaintenance> ahead = NodeMaintenanceValidator.ahead(other, all);
        assertThat(NodeMaintenanceValidator.validate(
                        other, null, new ClusterView(Optional.of(worker("w1")), List.of(), ahead), ONE_AT_A_TIME))
                .isEmpty();

        NodeMaintenance sameNode = nm("same", "w2");
        sameNode.getMetadata().setCreationTimestamp("2026-01-02T00:00:00Z");
        assertThat(NodeMaintenanceValidator.refusals(
                        sameNode,
                        null,
                        new ClusterView(
                                Optional.of(worker("w2")), List.of(), NodeMaintenanceValidator.ahead(sameNode, all))))
                .containsExactly("spec.nodeName: node w2 already has an active NodeMaintenance weekend");
    }
}
