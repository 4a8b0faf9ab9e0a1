package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceState;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.stream.Stream;
import org.jboss.logging.Logger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 50 item 10: a machine step that throws is never hidden. Whatever it threw, the reconcile ends as a failure
 * (the step's {@code failed} makes {@link DoorActs} throw {@code StepFailed}, which the controller counts in
 * {@code operator.sdk.reconciliations.failed}); the log says it once per change, louder for a bug than for API
 * trouble, and at DEBUG only when the status already shows the same error.
 */
class StepErrorsTest {

    static KubernetesClientException api500() {
        return new KubernetesClientException(
                "boom",
                500,
                new StatusBuilder()
                        .withCode(500)
                        .withMessage("etcdserver: request timed out")
                        .build());
    }

    static MaintenanceState showing(String lastError) {
        return MaintenanceState.initial().toBuilder().lastError(lastError).build();
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(
                        "API trouble, new: WARN, counted",
                        MaintenanceState.initial(),
                        api500(),
                        "API request failed: HTTP 500: etcdserver: request timed out",
                        Logger.Level.WARN),
                Arguments.of(
                        "the same API trouble again: DEBUG, still counted",
                        showing("API request failed: HTTP 500: etcdserver: request timed out"),
                        api500(),
                        "API request failed: HTTP 500: etcdserver: request timed out",
                        Logger.Level.DEBUG),
                Arguments.of(
                        "a bug (not API trouble): ERROR, counted, named by its class",
                        showing("API request failed: HTTP 500: etcdserver: request timed out"),
                        new IllegalStateException("no lease key"),
                        "unexpected error: IllegalStateException: no lease key",
                        Logger.Level.ERROR),
                Arguments.of(
                        "a bug without a message: still says what it was",
                        MaintenanceState.initial(),
                        new NullPointerException(),
                        "unexpected error: NullPointerException",
                        Logger.Level.ERROR),
                Arguments.of(
                        "the same bug again: DEBUG, still counted",
                        showing("unexpected error: IllegalStateException: no lease key"),
                        new IllegalStateException("no lease key"),
                        "unexpected error: IllegalStateException: no lease key",
                        Logger.Level.DEBUG));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aThrowingStepIsReportedCountedAndLoggedOncePerChange(
            String name, MaintenanceState state, RuntimeException thrown, String error, Logger.Level level) {
        StepErrors.Failed failed = StepErrors.of(state, thrown);

        assertThat(failed.step().failed()).as("counted as a failed reconcile").contains(error);
        assertThat(failed.step().state().lastError()).isEqualTo(error);
        assertThat(failed.step().requeueAfter()).contains(DoorActs.END_RETRY);
        assertThat(failed.level()).isEqualTo(level);
        assertThat(failed.withStack()).isEqualTo(level == Logger.Level.ERROR);
    }

    /**
     * A Failed maintenance keeps the reason it failed for in lastError when a later step throws (make chaos, door seed
     * 11374152260548: a hook timeout's Failed status named an injected 429 on a GET of its node instead of the hook);
     * the step is still counted as a failed reconcile and logged.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(
            value = Phase.class,
            names = {"Failed", "Ended"})
    void aMaintenanceThatFailedOrEndedKeepsItsReasonWhenALaterStepThrows(Phase phase) {
        // Ended: make chaos door seed 11374152260551, a hook timeout (onTimeout Restore) that named an injected 409
        String reason = "PreDrain hook(s) pre-drain.hooks.tenure.dev/x still present after 10m (spec.hooks.timeout)"
                + " (spec.hooks.onTimeout " + (phase == Phase.Failed ? "Fail" : "Restore") + ")";
        MaintenanceState failed = MaintenanceState.initial().toBuilder()
                .phase(phase)
                .lastError(reason)
                .build();

        StepErrors.Failed step = StepErrors.of(failed, api500());

        assertThat(step.step().state().lastError()).isEqualTo(reason);
        assertThat(step.step().state().phase()).isEqualTo(phase);
        assertThat(step.step().failed()).contains("API request failed: HTTP 500: etcdserver: request timed out");
        assertThat(step.level()).isEqualTo(Logger.Level.WARN);
    }
}
