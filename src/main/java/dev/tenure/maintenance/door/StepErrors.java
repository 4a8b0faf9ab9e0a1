package dev.tenure.maintenance.door;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.ApiErrors;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceState;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * A machine step that threw instead of answering: what the status says, that the reconcile ends as a failure (counted
 * in {@code operator.sdk.reconciliations.failed} and retried with the controller's backoff, through {@link
 * DoorActs.StepFailed}), and how loud the log line is. API trouble the machine did not expect is a WARN, anything
 * else (a bug) an ERROR with its stack; the same error as the status already shows is at DEBUG, so a failure that
 * repeats at every retry is logged once per change, not once per pass. Pure.
 */
final class StepErrors {

    private StepErrors() {}

    /** The step to record, its error, and the level to log it at. */
    record Failed(MaintenanceMachine.Step step, String error, Logger.Level level, boolean withStack) {}

    static Failed of(MaintenanceState state, RuntimeException e) {
        String error = e instanceof KubernetesClientException k
                ? "API request failed: " + ApiErrors.oneLine(k)
                : "unexpected error: " + e.getClass().getSimpleName()
                        + (e.getMessage() == null ? "" : ": " + e.getMessage());
        boolean unexpected = !(e instanceof KubernetesClientException);
        boolean repeated = error.equals(state.lastError());
        Logger.Level level = repeated ? Logger.Level.DEBUG : unexpected ? Logger.Level.ERROR : Logger.Level.WARN;
        // a maintenance that failed or ended by itself keeps the reason it failed or ended for (a hook's timeout): the
        // step's trouble is in the log and the failed count
        boolean keepReason =
                (state.phase() == Phase.Failed || state.phase() == Phase.Ended) && state.lastError() != null;
        return new Failed(
                new MaintenanceMachine.Step(
                        keepReason ? state : state.toBuilder().lastError(error).build(),
                        Optional.of(DoorActs.END_RETRY),
                        Optional.of(error)),
                error,
                level,
                unexpected && !repeated);
    }
}
