package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.machine.MaintenanceMachine.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Step 3b of the machine, the pre-drain hooks (Cluster API's pre-drain hook): other controllers hold the drain until
 * they remove their annotation. Their timeout ends the maintenance ({@link NodeRestore#endAfterHooksTimedOut}).
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
        s.hookWait(wait.get());
        Duration recheck = Duration.ofMillis(100); // timed out: the next step ends the maintenance (advance)
        if (verdict instanceof MaintenanceHooks.Verdict.Hold hold) {
            recheck = hold.recheck();
            if (!wait.get().equals(prior.hookWait())) {
                events.emit(false, MaintenanceEvents.HOOKS_WAITING, hold.message());
            }
        }
        Duration renewIn = MaintenancePlanner.renewIn(request, prior, settings, now);
        return Optional.of(new Step(s.build(), Optional.of(MaintenancePlanner.min(recheck, renewIn))));
    }
}
