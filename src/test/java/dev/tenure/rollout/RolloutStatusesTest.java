package dev.tenure.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.rollout.RolloutPlanner.Observed;
import dev.tenure.rollout.RolloutPlanner.RolloutPlan;
import dev.tenure.rollout.api.GateStatus;
import dev.tenure.rollout.api.RolloutStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The status written from a plan. */
class RolloutStatusesTest {

    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

    @Test
    void anOpenedGateLeavesStatusGates() {
        GateState closed = AlertGate.firing("AlertsFiring: 1 alert(s) firing in Prometheus: NodeDown")
                .asGate();
        RolloutPlan held = RolloutPlanner.plan(
                new Observed(RolloutPlannerTest.pool(2, 1), Map.of(), List.of(), List.of(closed), List.of()),
                RolloutPlannerTest.rules(1, 9, 1, false),
                NOW);
        RolloutStatus heldStatus = RolloutStatuses.of(held, 1);
        assertThat(heldStatus.getGates())
                .containsExactly(new GateStatus(
                        "Alerts", null, NOW.toString(), "AlertsFiring: 1 alert(s) firing in Prometheus: NodeDown"));

        RolloutPlan opened = RolloutPlanner.plan(
                new Observed(
                        RolloutPlannerTest.pool(2, 1),
                        Map.of(),
                        List.of(),
                        List.of(AlertGate.OPEN.asGate()),
                        RolloutStatuses.gates(heldStatus)),
                RolloutPlannerTest.rules(1, 9, 1, false),
                NOW.plusSeconds(60));
        // absent: the status is replaced whole (WholeStatus), so the old gate goes (NodeMaintenanceRolloutIT)
        assertThat(RolloutStatuses.of(opened, 1).getGates()).isNullOrEmpty();
    }
}
