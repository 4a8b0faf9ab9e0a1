package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.DrainBehavior;
import dev.tenure.maintenance.api.DrainPlanStatus;
import dev.tenure.maintenance.api.LeaseStatus;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.DrainReport;
import dev.tenure.maintenance.drain.DrainedWorkloads;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class NodeMaintenanceStatusesTest {

    static final Instant T0 = Instant.parse("2026-01-01T12:00:00Z");

    static Condition condition(NodeMaintenanceStatus s, String type) {
        return NodeMaintenanceStatuses.condition(s, type).orElseThrow();
    }

    @Test
    void stepTimestampsSurviveARoundTripThroughStatus() {
        MaintenanceState state = new MaintenanceState.Builder()
                .phase(Phase.Running)
                .leaseAcquiredAt(T0)
                .cordonedAt(T0.plusSeconds(1))
                .handoverStartedAt(T0.plusSeconds(1))
                .handedOverAt(T0.plusSeconds(2))
                .handoverMessage("2 leases moved")
                .drainStartedAt(T0.plusSeconds(3))
                .totalPods(7)
                .evictionPods(5)
                .drainProgress(40)
                .pendingPods(List.of("ns/a", "ns/b", "ns/c"))
                .errorOnLeaseCount(0)
                .lease(new LeaseStatus("node-w1", "tenure-system", "tenure", T0.toString(), T0.toString(), null))
                .build();
        NodeMaintenanceStatus status = NodeMaintenanceStatuses.toStatus(state, null, 3, T0.plusSeconds(4));
        MaintenanceState back = NodeMaintenanceStatuses.toState(status);
        assertThat(back.leaseAcquiredAt()).isEqualTo(T0);
        assertThat(back.cordonedAt()).isEqualTo(T0.plusSeconds(1));
        assertThat(back.handedOverAt()).isEqualTo(T0.plusSeconds(2));
        assertThat(back.drainStartedAt()).isEqualTo(T0.plusSeconds(3));
        assertThat(back.totalPods()).isEqualTo(7);
        assertThat(back.evictionPods()).isEqualTo(5);
        assertThat(back.pendingPods()).containsExactly("ns/a", "ns/b", "ns/c");
        assertThat(status.getConditions())
                .allSatisfy(c -> assertThat(c.getObservedGeneration()).isEqualTo(3L));
        assertThat(status.getConditions())
                .extracting(Condition::getType)
                .containsExactly("LeaseHeld", "Cordoned", "LeadersHandedOver", "Drained");
    }

    /**
     * SurgeChaosIT trial 2703152294382547 (on b7bcde6): the state read from a status shared its surge entries with it,
     * so a raise (the surge step sets {@code raised} on its entry) changed the status read as well; the door's status
     * to write then compared equal to the one read and was not written, the next step decided from {@code raised:
     * false}, and a count another client had put back to the owner's was raised again. The entries are copies now.
     */
    @Test
    void aSurgeMovedOnInTheStateLeavesTheStatusItWasReadFromAsItWas() {
        dev.tenure.maintenance.api.SurgeStatus read =
                new dev.tenure.maintenance.api.SurgeStatus("Deployment", "surge", "app1", "app1-rs", 1, 1, false, null);
        NodeMaintenanceStatus status = NodeMaintenanceStatuses.toStatus(
                new MaintenanceState.Builder()
                        .phase(Phase.Running)
                        .surges(List.of(read))
                        .build(),
                null,
                1,
                T0);
        MaintenanceState state = NodeMaintenanceStatuses.toState(status);

        state.surges().get(0).setRaised(true); // what the surge step does when it raises

        assertThat(status.getSurges().get(0).getRaised())
                .as("the status read is untouched")
                .isFalse();
        assertThat(NodeMaintenanceStatuses.toStatus(state, status, 1, T0))
                .as("the status to write differs from the one read: the door writes it")
                .isNotEqualTo(status);
    }

    @Test
    void theDrainedWorkloadsSurviveARoundTripThroughStatus() {
        // a restarted operator goes on adding to the list, so a rollout's gate sees every workload the drain touched
        DrainedWorkloads drained = new DrainedWorkloads(
                List.of(new io.fabric8.kubernetes.api.model.ObjectReferenceBuilder()
                        .withApiVersion("apps/v1")
                        .withKind("ReplicaSet")
                        .withNamespace("shop")
                        .withName("web-5d8f")
                        .withUid("u1")
                        .build()),
                3);
        MaintenanceState state = new MaintenanceState.Builder()
                .phase(Phase.Running)
                .leaseAcquiredAt(T0)
                .drainedWorkloads(drained)
                .build();
        NodeMaintenanceStatus status = NodeMaintenanceStatuses.toStatus(state, null, 1, T0);
        assertThat(status.getDrainedWorkloads()).isEqualTo(drained.listed());
        assertThat(status.getDrainedWorkloadsNotListed()).isEqualTo(3);
        assertThat(NodeMaintenanceStatuses.toState(status).drainedWorkloads()).isEqualTo(drained);
        assertThat(NodeMaintenanceStatuses.toStatus(new MaintenanceState.Builder().build(), null, 1, T0)
                        .getDrainedWorkloads())
                .isNull();
    }

    @Test
    void aPreviewOfMorePodsThanAreListedShowsTheFirstInDrainOrderAndCountsTheRest() {
        int more = 7;
        List<DrainPlanStatus.PlannedPod> planned = IntStream.range(0, DrainReport.LISTED + more)
                .mapToObj(i -> new DrainPlanStatus.PlannedPod(
                        "ns/p%03d".formatted(i), DrainBehavior.Drain, 0, "Evict: default", null))
                .toList();
        MaintenanceState state = new MaintenanceState.Builder()
                .phase(Phase.Pending)
                .preview(planned)
                .build();

        DrainPlanStatus plan =
                NodeMaintenanceStatuses.toStatus(state, null, 1, T0).getDrainPlan();

        assertThat(plan.getPods())
                .as("cut at DrainReport.LISTED, as every other list of status.drainPlan")
                .containsExactlyElementsOf(planned.subList(0, DrainReport.LISTED));
        assertThat(plan.getPodsNotListed()).isEqualTo(more);
    }

    @Test
    void aPreviewWithinTheBoundListsEveryPodAndCountsNone() {
        List<DrainPlanStatus.PlannedPod> planned =
                List.of(new DrainPlanStatus.PlannedPod("ns/a", DrainBehavior.Drain, 0, "Evict: default", null));
        MaintenanceState state = new MaintenanceState.Builder()
                .phase(Phase.Pending)
                .preview(planned)
                .build();

        DrainPlanStatus plan =
                NodeMaintenanceStatuses.toStatus(state, null, 1, T0).getDrainPlan();

        assertThat(plan.getPods()).containsExactlyElementsOf(planned);
        assertThat(plan.getPodsNotListed()).isNull();
    }

    @Test
    void lastTransitionTimeMovesOnlyWhenAConditionChangesStatus() {
        MaintenanceState pending = MaintenanceState.initial();
        NodeMaintenanceStatus first = NodeMaintenanceStatuses.toStatus(pending, null, 1, T0);
        assertThat(condition(first, "Drained").getLastTransitionTime()).isEqualTo(T0.toString());

        NodeMaintenanceStatus again = NodeMaintenanceStatuses.toStatus(pending, first, 1, T0.plusSeconds(30));
        assertThat(condition(again, "Drained").getLastTransitionTime()).isEqualTo(T0.toString());
        assertThat(again).isEqualTo(first);
        assertThat(again.getLastUpdate()).isEqualTo(first.getLastUpdate());

        MaintenanceState draining = pending.toBuilder()
                .phase(Phase.Running)
                .leaseAcquiredAt(T0.plusSeconds(40))
                .drainStartedAt(T0.plusSeconds(41))
                .build();
        NodeMaintenanceStatus later = NodeMaintenanceStatuses.toStatus(draining, again, 1, T0.plusSeconds(42));
        assertThat(condition(later, "LeaseHeld").getLastTransitionTime())
                .isEqualTo(T0.plusSeconds(40).toString());
        assertThat(condition(later, "Drained").getStatus()).isEqualTo("False");
        // Drained stayed False (Pending -> Draining): its transition time is the drain start, not "now".
        assertThat(condition(later, "Drained").getLastTransitionTime())
                .isEqualTo(T0.plusSeconds(41).toString());
        assertThat(later.getLastUpdate()).isEqualTo(T0.plusSeconds(42).toString());
    }

    @Test
    void waitingNamesTheHolder() {
        MaintenanceState waiting = new MaintenanceState.Builder()
                .phase(Phase.Waiting)
                .waitingFor("other-operator")
                .lease(new LeaseStatus("node-w1", "tenure-system", "other-operator", null, null, null))
                .build();
        NodeMaintenanceStatus s = NodeMaintenanceStatuses.toStatus(waiting, null, 1, T0);
        assertThat(condition(s, "LeaseHeld").getReason()).isEqualTo("LeaseWaiting");
        assertThat(condition(s, "LeaseHeld").getMessage()).contains("other-operator");
        assertThat(NodeMaintenanceStatuses.toState(s).waitingFor()).isEqualTo("other-operator");
    }

    @Test
    void aLeaseRenewalLeavesAPinnedStatusAndItsLastUpdateAlone() {
        MaintenanceState.Builder held = new MaintenanceState.Builder()
                .phase(Phase.Succeeded)
                .leaseAcquiredAt(T0)
                .cordonedAt(T0)
                .handedOverAt(T0)
                .drainStartedAt(T0)
                .drainedAt(T0.plusSeconds(1))
                .drainProgress(100);
        NodeMaintenanceStatus first = NodeMaintenanceStatuses.toStatus(
                held.lease(new LeaseStatus(
                                "node-w1",
                                "tenure-system",
                                "tenure",
                                T0.toString(),
                                T0.toString(),
                                "2026-01-01T12:01:00Z"))
                        .build(),
                null,
                1,
                T0.plusSeconds(1));
        first.setNodeName("w1"); // pinned by the front door after toStatus, as the reconciler does
        NodeMaintenanceStatus renewed = NodeMaintenanceStatuses.toStatus(
                held.lease(new LeaseStatus(
                                "node-w1",
                                "tenure-system",
                                "tenure",
                                T0.toString(),
                                T0.plusSeconds(20).toString(),
                                "2026-01-01T12:01:20Z"))
                        .build(),
                first,
                1,
                T0.plusSeconds(21));
        renewed.setNodeName("w1");

        assertThat(renewed).isEqualTo(first);
        assertThat(renewed.getLastUpdate()).isEqualTo(T0.plusSeconds(1).toString());
        assertThat(renewed.getLease().getRenewTime()).isNull();
        assertThat(renewed.getLease().getExpireTime()).isNull();
        assertThat(condition(renewed, "LeaseHeld").getMessage())
                .isEqualTo("lease tenure-system/node-w1 held by tenure");
    }

    /** Issue 25: an Ended maintenance (window over) no longer says Cordoned=True or LeaseHeld=True. */
    @Test
    void anEndedMaintenanceHoldsAndCordonsNothing() {
        MaintenanceState ended = new MaintenanceState.Builder()
                .phase(Phase.Ended)
                .cordonedAt(T0)
                .handedOverAt(T0)
                .drainStartedAt(T0)
                .drainedAt(T0.plusSeconds(1))
                .drainProgress(100)
                .build();
        NodeMaintenanceStatus status = NodeMaintenanceStatuses.toStatus(ended, null, 1, T0.plusSeconds(60));
        assertThat(condition(status, "Cordoned").getStatus()).isEqualTo("False");
        assertThat(condition(status, "Cordoned").getReason()).isEqualTo("Uncordoned");
        assertThat(condition(status, "LeaseHeld").getStatus()).isEqualTo("False");
        assertThat(condition(status, "Drained").getStatus()).isEqualTo("True");
    }

    /**
     * Issue 50, item 1: a maintenance that Ended mid-drain (its window closed) drains nothing any more and says so: not
     * Drained=False/Draining, nor a handover InProgress.
     */
    @Test
    void anEndedMaintenanceIsNotStillDraining() {
        MaintenanceState ended = new MaintenanceState.Builder()
                .phase(Phase.Ended)
                .cordonedAt(T0)
                .handoverStartedAt(T0)
                .drainStartedAt(T0)
                .pendingPods(List.of("app/web-1"))
                .build();
        NodeMaintenanceStatus status = NodeMaintenanceStatuses.toStatus(ended, null, 1, T0.plusSeconds(60));
        assertThat(condition(status, "Drained").getStatus()).isEqualTo("False");
        assertThat(condition(status, "Drained").getReason()).isEqualTo("Ended");
        assertThat(condition(status, "LeadersHandedOver").getReason()).isEqualTo("Ended");
        assertThat(NodeMaintenanceStatuses.toStatus(
                                MaintenanceState.initial().toBuilder()
                                        .phase(Phase.Ended)
                                        .build(),
                                null,
                                1,
                                T0)
                        .getConditions())
                .as("an Ended maintenance says nothing is Pending")
                .noneSatisfy(c -> assertThat(c.getReason()).isEqualTo("Pending"));
    }

    /**
     * Issue 50, item 4: a lease hijacked mid-maintenance (phase Waiting) is not LeaseHeld=True/Acquired "held by
     * intruder"; the time this maintenance took it survives the round trip (its window and its marks to undo).
     */
    @Test
    void aHijackedLeaseIsNotHeldAndTheMaintenanceStillHoldsItsStart() {
        MaintenanceState hijacked = new MaintenanceState.Builder()
                .phase(Phase.Waiting)
                .leaseAcquiredAt(T0)
                .cordonedAt(T0)
                .waitingFor("intruder")
                .lease(new LeaseStatus("node-w1", "tenure-system", "intruder", null, null, null))
                .build();
        NodeMaintenanceStatus s = NodeMaintenanceStatuses.toStatus(hijacked, null, 1, T0.plusSeconds(30));
        assertThat(condition(s, "LeaseHeld").getStatus()).isEqualTo("False");
        assertThat(condition(s, "LeaseHeld").getReason()).isEqualTo("LeaseWaiting");
        assertThat(condition(s, "LeaseHeld").getMessage()).startsWith("held by intruder");
        MaintenanceState back = NodeMaintenanceStatuses.toState(s);
        assertThat(back.leaseAcquiredAt()).isEqualTo(T0);
        assertThat(back.holdsNode()).isTrue();
        assertThat(back.waitingFor()).isEqualTo("intruder");
    }

    /** Issue 38, item 5: a failed cordon-step write is said on Cordoned as it is, and survives the round trip. */
    @org.junit.jupiter.params.ParameterizedTest(name = "cordoned={0}")
    @org.junit.jupiter.params.provider.CsvSource({"true, True, ConditionWriteFailed", "false, False, NodeWriteFailed"})
    void aFailedCordonWriteIsSaidOnCordonedAsItIs(boolean cordoned, String status, String reason) {
        String failure = "writing its condition tenure.dev/Maintenance (PATCH nodes/w1/status) failed: HTTP 500"
                + " InternalError: boom";
        MaintenanceState state = new MaintenanceState.Builder()
                .phase(Phase.Running)
                .leaseAcquiredAt(T0)
                .cordonedAt(cordoned ? T0.plusSeconds(1) : null)
                .cordonFailure(failure)
                .lastError(failure)
                .build();
        NodeMaintenanceStatus written = NodeMaintenanceStatuses.toStatus(state, null, 1, T0.plusSeconds(2));
        Condition c = condition(written, NodeMaintenanceStatuses.CORDONED);
        assertThat(c.getStatus()).isEqualTo(status);
        assertThat(c.getReason()).isEqualTo(reason);
        assertThat(c.getMessage()).isEqualTo(failure);
        MaintenanceState back = NodeMaintenanceStatuses.toState(written);
        assertThat(back.cordonFailure()).isEqualTo(failure);
        assertThat(back.cordonedAt()).isEqualTo(cordoned ? T0.plusSeconds(1) : null);
    }
}
