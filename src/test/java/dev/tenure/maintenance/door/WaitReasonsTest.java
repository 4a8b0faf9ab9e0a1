package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.DrainPlanStatus;
import dev.tenure.maintenance.api.HookStatus;
import dev.tenure.maintenance.api.LeaseStatus;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.ScheduleStatus;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Issue 50 item 12: status.waitingFor, kubectl get tnm's WAITING column, says why a maintenance waits. */
class WaitReasonsTest {

    static NodeMaintenanceStatus status(Phase phase, Consumer<NodeMaintenanceStatus> more) {
        NodeMaintenanceStatus s = new NodeMaintenanceStatus();
        s.setPhase(phase);
        s.setConditions(new ArrayList<>());
        more.accept(s);
        return s;
    }

    static Consumer<NodeMaintenanceStatus> condition(String type, String status, String reason) {
        return s -> s.getConditions()
                .add(new ConditionBuilder()
                        .withType(type)
                        .withStatus(status)
                        .withReason(reason)
                        .build());
    }

    static Consumer<NodeMaintenanceStatus> cordoned() {
        return condition(NodeMaintenanceStatuses.CORDONED, "True", "Cordoned");
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("no phase yet", status(null, s -> {}), null),
                Arguments.of("queued", status(Phase.Pending, s -> s.setQueuePosition(3)), "the queue (position 3)"),
                Arguments.of(
                        "held by a limit",
                        status(Phase.Pending, s -> s.setLastError("control-plane budget: 1 of 3 may be out")),
                        "admission: control-plane budget: 1 of 3 may be out"),
                Arguments.of(
                        "scheduled",
                        status(Phase.Scheduled, s -> {
                            ScheduleStatus sched = new ScheduleStatus();
                            sched.setNextStart("2026-12-01T02:00:00Z");
                            s.setSchedule(sched);
                        }),
                        "its schedule (next start 2026-12-01T02:00:00Z)"),
                Arguments.of(
                        "lease held elsewhere",
                        status(Phase.Waiting, s -> {
                            LeaseStatus lease = new LeaseStatus();
                            lease.setHolderIdentity("node-maintenance-operator");
                            s.setLease(lease);
                        }),
                        "the node lease, held by node-maintenance-operator"),
                Arguments.of(
                        "a pre-drain hook",
                        status(Phase.Running, s -> {
                            cordoned().accept(s);
                            HookStatus h = new HookStatus();
                            h.setPoint("PreDrain");
                            h.setWaitingFor(List.of("rook-ceph"));
                            s.setHooks(h);
                        }),
                        "PreDrain hook: rook-ceph"),
                Arguments.of(
                        "the handover",
                        status(
                                Phase.Running,
                                cordoned()
                                        .andThen(condition(
                                                NodeMaintenanceStatuses.LEADERS_HANDED_OVER, "False", "InProgress"))),
                        "leadership handover"),
                Arguments.of(
                        "a budget refusing",
                        status(Phase.Running, cordoned().andThen(s -> {
                            s.setLastError("eviction of pod shop/web-1 refused: ...");
                            s.setPendingPods(List.of("shop/web-1"));
                        })),
                        "a PodDisruptionBudget"),
                Arguments.of(
                        "draining",
                        status(Phase.Running, cordoned().andThen(s -> s.setPendingPods(List.of("a/b", "a/c")))),
                        "drain (2 pod(s))"),
                Arguments.of(
                        "volume detach",
                        status(
                                Phase.Running,
                                cordoned()
                                        .andThen(condition(NodeMaintenanceStatuses.DRAINED, "True", "Drained"))
                                        .andThen(s -> {
                                            DrainPlanStatus p = new DrainPlanStatus();
                                            p.setVolumeAttachments(List.of("csi-1", "csi-2"));
                                            s.setDrainPlan(p);
                                        })),
                        "volume detach (2)"),
                Arguments.of("succeeded: nothing", status(Phase.Succeeded, cordoned()), null),
                Arguments.of("failed: nothing", status(Phase.Failed, s -> s.setLastError("DrainTimedOut: ...")), null),
                Arguments.of(
                        "a long reason is one short line",
                        status(Phase.Pending, s -> s.setLastError("x".repeat(500))),
                        "admission: " + "x".repeat(WaitReasons.MAX - "admission: ".length() - 1) + "…"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void saysWhatTheMaintenanceWaitsFor(String name, NodeMaintenanceStatus status, String expected) {
        assertThat(WaitReasons.of(status)).isEqualTo(expected);
    }
}
