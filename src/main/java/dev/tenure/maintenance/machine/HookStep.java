package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.TimeoutOutcome;
import dev.tenure.maintenance.machine.MaintenanceMachine.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The hooks in the machine. Step 3b, the pre-drain hooks (Cluster API's pre-drain hook): other controllers hold the
 * drain until they remove their annotation. At their timeout, spec.hooks.onTimeout decides: Restore (the default) ends
 * the maintenance at the next call ({@link NodeRestore#endAfterTimeout}), Fail ends it Failed with the node
 * cordoned, Proceed drains anyway. And the pre-uncordon hooks (Cluster API's pre-terminate hook) at the ends the machine
 * reaches by itself (window over, a timeout that restores): the node stays in maintenance until they are removed or
 * time out. The end by deletion waits for them in the door ({@code DoorDecisions#cleanup}).
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

    /**
     * Waits on the pre-uncordon hooks before an end the machine reaches by itself ({@code ending} says which): a step
     * to return while they hold — the node stays cordoned, and the node lease is kept by {@code keepLease} (called with
     * the time it must last to; false when another holder has it now, and then the end goes ahead, as {@link
     * NodeRestore#end} leaves such a node alone) — empty when the node may be restored. A timeout restores it anyway,
     * with a Warning naming the hooks' owners that were not waited for.
     */
    Optional<Step> beforeUncordon(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            String ending,
            Instant now,
            Predicate<Instant> keepLease,
            MaintenanceEvents events) {
        MaintenanceHooks.Verdict verdict =
                MaintenanceHooks.decide(MaintenanceHooks.Point.PreUncordon, request.hooks(), prior.hookWait(), now);
        boolean waited = MaintenanceStages.endHeldByHooks(prior);
        if (verdict instanceof MaintenanceHooks.Verdict.Hold hold
                && keepLease.test(now.plus(settings.leaseDuration()))) {
            if (!hold.waiting().equals(prior.hookWait())) {
                events.emit(false, MaintenanceEvents.HOOKS_WAITING, ending + "; " + hold.message());
            }
            s.hookWait(hold.waiting()).lastError(ending);
            Duration look = MaintenancePlanner.min(hold.recheck(), settings.renewEvery());
            return Optional.of(new Step(s.build(), Optional.of(MaintenancePlanner.max(Duration.ofMillis(100), look))));
        }
        if (verdict instanceof MaintenanceHooks.Verdict.TimedOut timedOut) {
            events.emit(
                    true,
                    MaintenanceEvents.HOOK_TIMED_OUT,
                    timedOut.message() + "; restoring node " + request.nodeName() + " anyway (" + ending + ")");
        } else if (waited) {
            events.emit(
                    false,
                    MaintenanceEvents.HOOKS_RELEASED,
                    "pre-uncordon hooks removed; restoring node " + request.nodeName() + " (" + ending + ")");
        }
        s.hookWait(null);
        return Optional.empty();
    }
}
