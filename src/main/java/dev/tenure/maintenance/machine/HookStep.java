package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.TimeoutOutcome;
import dev.tenure.maintenance.machine.MaintenanceMachine.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Step 3b of the machine, the pre-drain hooks (Cluster API's pre-drain hook): other controllers hold the drain until
 * they remove their annotation. At their timeout, spec.hooks.onTimeout decides: Restore (the default) ends the
 * maintenance at the next call ({@link NodeRestore#endAfterHooksTimedOut}), Fail ends it Failed with the node cordoned,
 * Proceed drains anyway.
 */
public final class HookStep {

    private final MaintenanceSettings settings;

    HookStep(MaintenanceSettings settings) {
        this.settings = settings;
    }

    /** Waits on the pre-drain hooks: a step to return while they hold, empty when the drain may start. */
    Optional<Step> preDrain(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            Instant now,
            MaintenanceEvents events) {
        MaintenanceHooks.Verdict verdict =
                MaintenanceHooks.decide(MaintenanceHooks.Point.PreDrain, request.hooks(), prior.hookWait(), now);
        Optional<MaintenanceHooks.Wait> wait = MaintenanceHooks.waitOf(verdict);
        if (wait.isEmpty()) {
            if (prior.hookWait() != null) {
                events.emit(
                        false,
                        MaintenanceEvents.HOOKS_RELEASED,
                        "pre-drain hooks removed; draining node " + request.nodeName());
            }
            s.hookWait(null);
            return Optional.empty();
        }
        Duration renewIn = MaintenancePlanner.renewIn(request, prior, settings, now);
        if (verdict instanceof MaintenanceHooks.Verdict.TimedOut timedOut) {
            MaintenanceStages.AtTimeout at = MaintenanceStages.atTimeout(
                    MaintenanceStages.TimedStage.PRE_DRAIN_HOOKS,
                    request.hooks().onTimeout(),
                    false);
            if (at.outcome() == TimeoutOutcome.Fail) {
                String message = timedOut.message() + " (spec.hooks.onTimeout Fail); node " + request.nodeName()
                        + " stays cordoned";
                events.emit(true, at.event(), message);
                return Optional.of(new Step(
                        s.hookWait(wait.get())
                                .phase(at.phase())
                                .lastError(message)
                                .build(),
                        Optional.of(renewIn)));
            } else if (at.outcome() == TimeoutOutcome.Proceed) {
                String left = "hook owner(s) still holding: "
                        + String.join(", ", timedOut.waiting().owners());
                events.emit(
                        true,
                        at.event(),
                        timedOut.message() + " (spec.hooks.onTimeout Proceed); draining node " + request.nodeName()
                                + " anyway, " + left);
                s.hookWait(null).passedTimeout(MaintenanceStages.TimedStage.PRE_DRAIN_HOOKS, left);
                return Optional.empty();
            }
        }
        s.hookWait(wait.get());
        Duration recheck = Duration.ofMillis(100); // timed out, Restore: the next call ends the maintenance (advance)
        if (verdict instanceof MaintenanceHooks.Verdict.Hold hold) {
            recheck = hold.recheck();
            if (!wait.get().equals(prior.hookWait())) {
                events.emit(false, MaintenanceEvents.HOOKS_WAITING, hold.message());
            }
        }
        return Optional.of(new Step(s.build(), Optional.of(MaintenancePlanner.min(recheck, renewIn))));
    }
}
