package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.GoDuration;
import java.time.Instant;
import java.util.Optional;

/**
 * The machine's own decisions at the start of a call, before the lease, for a model outside this package
 * ({@code DrainModelPropertyTest}): {@link MaintenanceStages#opening} and, at an end it reaches by itself,
 * {@link HookStep#beforeUncordon}, in the order {@link MaintenanceMachine}'s advance takes them. The I/O after
 * (the drain step, {@link NodeRestore}) is the model's.
 */
public final class MachineEnds {

    private static final HookStep HOOKS = new HookStep(MaintenanceSettings.defaults());

    private MachineEnds() {}

    /** What a call of the machine at an instant does with a node that exists. */
    public sealed interface Call {
        /** It takes the lease and goes on (cordon, hooks, drain): the drain may evict. */
        record GoesOn() implements Call {}

        /** An end the pre-uncordon hooks hold: the node stays cordoned, nothing is evicted; {@code state} is kept. */
        record HeldByHooks(MaintenanceState state) implements Call {}

        /** The end: the node is restored (uncordoned, untainted), the lease released. */
        record Restores(MaintenanceState state) implements Call {}
    }

    public static Call at(MaintenanceRequest request, MaintenanceState prior, Instant now) {
        MaintenanceStages.Opening opening = MaintenanceStages.opening(request, prior, true, now);
        if (opening instanceof MaintenanceStages.Opening.TakeLease) {
            return new Call.GoesOn();
        }
        String ending = opening instanceof MaintenanceStages.Opening.RestoreAfterTimeout timedOut
                ? timedOut.message()
                : "maintenance window of " + GoDuration.format(request.window().orElseThrow()) + " is over";
        MaintenanceState.Builder s = prior.toBuilder();
        Optional<MaintenanceMachine.Step> held =
                HOOKS.beforeUncordon(request, prior, s, ending, now, until -> true, (warning, reason, message) -> {});
        return held.<Call>map(step -> new Call.HeldByHooks(step.state())).orElseGet(() -> new Call.Restores(s.build()));
    }
}
