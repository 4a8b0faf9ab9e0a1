package dev.tenure.maintenance.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the webhook answers for each kind of verdict: a rule broken denies (422), a right missing denies (403), a
 * full operator-wide limit admits with a warning, so the NodeMaintenance queues (issue 29's fair queue) rather than
 * being refused at the door.
 */
class NodeMaintenanceWebhookTest {

    static final String HOLD = "tenure.maintenance.max-nodes-in-maintenance: at most 1 node(s) in maintenance at once";

    @Test
    void aFullLimitAdmitsTheRequestWithAWarningSoItQueues() {
        AdmissionResponse answer = NodeMaintenanceWebhook.answer("u-1", List.of(), List.of(), List.of(HOLD), List.of());
        assertThat(answer.getAllowed()).isTrue();
        assertThat(answer.getUid()).isEqualTo("u-1");
        assertThat(answer.getStatus()).isNull();
        assertThat(answer.getWarnings()).containsExactly("held in the queue until a slot frees: " + HOLD);
    }

    @Test
    void aControlPlaneBudgetHoldIsNotWordedAsAWaitForASlot() {
        String budget = MaintenanceLimits.none()
                .controlPlaneHold(
                        new io.fabric8.kubernetes.api.model.NodeBuilder()
                                .withNewMetadata()
                                .withName("cp1")
                                .addToLabels(MaintenanceLimits.CONTROL_PLANE_LABEL, "")
                                .endMetadata()
                                .build(),
                        List.of(),
                        java.util.Set.of())
                .orElseThrow();
        AdmissionResponse answer =
                NodeMaintenanceWebhook.answer("u-4", List.of(), List.of(), List.of(HOLD, budget), List.of(budget));
        assertThat(answer.getAllowed()).isTrue();
        assertThat(answer.getWarnings()).hasSize(2);
        assertThat(answer.getWarnings().get(0)).isEqualTo("held in the queue until a slot frees: " + HOLD);
        assertThat(answer.getWarnings().get(1))
                .startsWith("waits Pending until its own limit allows it (the queue passes it over meanwhile): "
                        + "control-plane budget: node cp1 is a control-plane node")
                .doesNotContain("until a slot frees");
    }

    @Test
    void aBrokenRuleIsDeniedAsInvalidAndNoHoldIsMentioned() {
        AdmissionResponse answer = NodeMaintenanceWebhook.answer(
                "u-2", List.of("spec.nodeName: node \"ghost\" not found"), List.of(), List.of(HOLD), List.of());
        assertThat(answer.getAllowed()).isFalse();
        assertThat(answer.getStatus().getCode()).isEqualTo(422);
        assertThat(answer.getStatus().getMessage()).isEqualTo("spec.nodeName: node \"ghost\" not found");
        assertThat(answer.getWarnings()).isNullOrEmpty();
    }

    @Test
    void aMissingRightIsDeniedAsForbidden() {
        AdmissionResponse answer = NodeMaintenanceWebhook.answer(
                "u-3", List.of(), List.of("user mallory cannot patch nodes"), List.of(), List.of());
        assertThat(answer.getAllowed()).isFalse();
        assertThat(answer.getStatus().getCode()).isEqualTo(403);
        assertThat(answer.getStatus().getReason()).isEqualTo("Forbidden");
    }

    @Test
    void aValidRequestWithRoomIsAdmittedWithoutWarnings() {
        AdmissionResponse answer = NodeMaintenanceWebhook.answer("u-4", List.of(), List.of(), List.of(), List.of());
        assertThat(answer.getAllowed()).isTrue();
        assertThat(answer.getWarnings()).isNullOrEmpty();
    }
}
