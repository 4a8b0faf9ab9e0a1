package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceStages.Stage;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How a NodeMaintenance holds its node lease in one call, decided in pure code (issue 52 item 7): long while nothing is
 * to be done on the node, short whenever something may be.
 *
 * <ul>
 *   <li>{@link Kind#WINDOW}: {@code spec.window} is set: the lease lasts until the window's end plus padding and is
 *       not renewed (unchanged).
 *   <li>{@link Kind#IDLE}: the maintenance has nothing to do on the node: it is {@code Succeeded} (drained, waiting
 *       for the node to be done and the maintenance to be deleted) or {@code Failed} and held (waiting for a spec change
 *       or a deletion), the lease is already ours (not a first claim), the cordon, taints and Node condition are on
 *       the node as the call read it, and no earlier write of them failed. The lease is written
 *       {@code tenure.maintenance.lease.idle-duration} long (30 min) and renewed every half of it: at most 4 writes
 *       an hour. No write to the node or its pods is sent under it later than {@code leaseDuration} (less the skew
 *       allowance) after its last renewal, exactly as under the short lease ({@link NodeLease#sendUntil(
 *       dev.tenure.election.LeaseRecord, Duration)}).
 *   <li>{@link Kind#ACTING}: every other call (the first claim, cordon, handover, hooks, drain, volume detach, a mark
 *       to put back, the undo): the lease is written {@code tenure.maintenance.lease.duration} long (60 s) — shortened
 *       first, and the write awaited, when it was held long — and renewed every quarter by its heartbeat, as before.
 * </ul>
 *
 * @param renewAfter how old the lease may get before a reconcile's claim writes it again: a third for the short lease
 *     (as before), three quarters for the long one, whose heartbeat renews it at half (the reconcile is the backstop
 *     should the heartbeat fail)
 * @param heartbeatEvery how often the heartbeat renews it between reconciles (empty: a window's lease, no heartbeat)
 */
public record LeaseHold(Kind kind, Duration duration, Duration renewAfter, Optional<Duration> heartbeatEvery) {

    /** Which of the three holds. */
    public enum Kind {
        WINDOW,
        ACTING,
        IDLE
    }

    /** The short, rolling lease of a maintenance that acts (or may act) on its node. */
    static LeaseHold acting(MaintenanceSettings settings) {
        Duration d = settings.leaseDuration();
        return new LeaseHold(Kind.ACTING, d, d.dividedBy(3), Optional.of(d.dividedBy(4)));
    }

    /** The long, rolling lease of a maintenance with nothing to do on its node. */
    static LeaseHold idle(MaintenanceSettings settings) {
        Duration d = settings.idleLeaseDuration();
        return new LeaseHold(Kind.IDLE, d, d.multipliedBy(3).dividedBy(4), Optional.of(d.dividedBy(2)));
    }

    /**
     * The hold for one call of the machine that has read the Node.
     *
     * @param heldFailure a Failed maintenance that keeps its node ({@link MaintenanceStages#heldFailure})
     * @param marksInPlace the node, as read in this call, carries the cordon, both taints and the Node condition with
     *     this request's message ({@link NodeMarks#markPatch} and {@link NodeMarks#conditionPatch} both empty)
     */
    static LeaseHold of(
            MaintenanceRequest request,
            MaintenanceState prior,
            boolean heldFailure,
            boolean marksInPlace,
            MaintenanceSettings settings) {
        if (request.window().isPresent()) {
            return new LeaseHold(Kind.WINDOW, Duration.ZERO, Duration.ZERO, Optional.empty());
        }
        return idle(request, prior, heldFailure, marksInPlace, settings) ? idle(settings) : acting(settings);
    }

    private static boolean idle(
            MaintenanceRequest request,
            MaintenanceState prior,
            boolean heldFailure,
            boolean marksInPlace,
            MaintenanceSettings settings) {
        if (settings.idleLeaseDuration().isZero()
                || !marksInPlace
                || !prior.holdsNode()
                || prior.cordonedAt() == null
                || prior.cordonFailure() != null
                || MaintenanceStages.startsRunning(prior, heldFailure)) {
            return false;
        }
        boolean succeeded = prior.phase() == Phase.Succeeded;
        if (!succeeded && !heldFailure) {
            return false;
        }
        // exactly the calls that only re-check the marks and come back: nothing else may follow under this lease
        return MaintenanceStages.afterLease(request, prior, heldFailure).equals(List.of(Stage.CORDON, Stage.HOLD));
    }

    /** Whether this hold renews the lease at a rolling expiry (not a window's fixed one). */
    boolean rolling() {
        return kind != Kind.WINDOW;
    }
}
