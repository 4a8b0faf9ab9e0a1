package dev.tenure.maintenance.machine;

import dev.tenure.election.AuthorityStatus;
import dev.tenure.election.ClaimResult;
import dev.tenure.election.Heartbeat;
import dev.tenure.election.Heartbeats;
import dev.tenure.election.LeaseHeldElsewhere;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseOwner;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseStore;
import dev.tenure.election.Scheduler;
import dev.tenure.election.WorkFence;
import dev.tenure.maintenance.api.LeaseStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceMachine.Step;
import dev.tenure.maintenance.machine.MaintenanceMetrics.LeaseOutcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Random;
import org.jboss.logging.Logger;

/**
 * Step 1 of the machine, the node lease: what holding it means for the state (status, events, metrics), its
 * heartbeat between reconciles, waiting on another holder, and the lease as a bound on the writes sent under it.
 */
public final class LeaseStep {

    private static final Logger LOG = Logger.getLogger(LeaseStep.class);

    private final LeaseStore leases;
    private final MaintenanceMetrics metrics;
    private final MaintenanceSettings settings;
    private final Scheduler heartbeatScheduler;
    private final Clock clock;
    private final Heartbeats heartbeats = new Heartbeats();

    LeaseStep(
            LeaseStore leases,
            MaintenanceMetrics metrics,
            MaintenanceSettings settings,
            Scheduler heartbeatScheduler,
            Clock clock) {
        this.leases = leases;
        this.metrics = metrics;
        this.settings = settings;
        this.heartbeatScheduler = heartbeatScheduler;
        this.clock = clock;
    }

    /** The node lease is ours: metrics, status, its heartbeat (no window), and the start of the maintenance. */
    void held(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            LeaseKey leaseKey,
            ClaimResult claim,
            String nodeUid,
            LeaseHold hold,
            Instant now,
            MaintenanceEvents events) {
        String nodeName = request.nodeName();
        boolean takenOver = claim instanceof ClaimResult.TookOver;
        if (takenOver || claim instanceof ClaimResult.Created) {
            metrics.lease(takenOver ? LeaseOutcome.takeover : LeaseOutcome.acquired);
        }
        s.errorOnLeaseCount(0)
                .waitingFor(null)
                .lease(leaseStatus(leaseKey, claim.held().orElseThrow()));
        if (hold.heartbeatEvery().isPresent()) {
            keepRenewed(leaseKey, nodeName, nodeUid, hold);
        }
        String predecessor = claim instanceof ClaimResult.TookOver t
                        && t.previous() instanceof AuthorityStatus.Valid valid
                        && settings.isPredecessor(valid.holder())
                ? valid.holder()
                : null;
        if (prior.leaseAcquiredAt() == null) {
            s.leaseAcquiredAt(now);
            events.emit(
                    false,
                    MaintenanceEvents.BEGIN,
                    "lease " + leaseKey + " held by " + settings.holder()
                            + (predecessor != null
                                    ? " (taken over from " + predecessor + ")"
                                    : takenOver ? " (taken over from an expired holder)" : "")
                            + "; starting maintenance of node " + nodeName
                            + (request.reason().isEmpty() ? "" : ": " + request.reason()));
        } else if (predecessor != null) {
            events.emit(
                    false,
                    MaintenanceEvents.LEASE_TAKEN_OVER,
                    "lease " + leaseKey + " taken over from " + predecessor + " by " + settings.holder()
                            + " (transition " + claim.held().orElseThrow().leaseTransitions()
                            + "); maintenance of node " + nodeName + " continues");
        }
    }

    /** A valid lease held by someone else: phase Waiting until it expires (not an error storm). */
    Step waitForLease(
            MaintenanceState prior,
            MaintenanceState.Builder s,
            LeaseHeldElsewhere elsewhere,
            Instant now,
            MaintenanceEvents events) {
        metrics.lease(LeaseOutcome.wait);
        if (prior.phase() != Phase.Waiting || !elsewhere.holder().equals(prior.waitingFor())) {
            events.emit(
                    false,
                    MaintenanceEvents.LEASE_WAITING,
                    "lease " + elsewhere.key() + " is held by " + elsewhere.holder() + " until " + elsewhere.expiresAt()
                            + "; waiting");
        }
        Duration untilExpiry = Duration.between(now, elsewhere.expiresAt()).plusSeconds(1);
        s.phase(Phase.Waiting)
                .waitingFor(elsewhere.holder())
                .errorOnLeaseCount(prior.errorOnLeaseCount() + 1)
                .lastError("lease " + elsewhere.key() + " is held by " + elsewhere.holder())
                .lease(leaseStatus(elsewhere.key(), elsewhere.lease()));
        return new Step(s.build(), Optional.of(MaintenancePlanner.min(untilExpiry, settings.leaseWaitRetry())));
    }

    /** The node lease as a bound on the writes of this thread: they go out only until {@code sendUntil}. */
    WorkFence.Bound bound(LeaseKey key, Instant sendUntil) {
        return bound("node lease " + key, sendUntil);
    }

    /** A bound named {@code what} (in a refusal: "{@code what} has ended") on the writes of this thread. */
    WorkFence.Bound bound(String what, Instant sendUntil) {
        return new WorkFence.Bound(what, () -> Optional.of(Duration.between(clock.instant(), sendUntil)));
    }

    /**
     * Before a claim by {@code hold}: stops a heartbeat of {@code key} that renews another duration, and returns only
     * when it cannot write any more ({@link Heartbeat#stop} waits for a renewal in progress), so it never lengthens
     * the lease the claim shortens. The claim's {@link #held} starts the heartbeat of {@code hold}.
     */
    void settle(LeaseKey key, LeaseHold hold) {
        heartbeats
                .get(key)
                .filter(h ->
                        hold.heartbeatEvery().isEmpty() || !h.leaseDuration().equals(hold.duration()))
                .ifPresent(h -> heartbeats.stop(key));
    }

    /** Stops the heartbeat of one node's lease (its maintenance ends or its node is gone). */
    void stopRenewing(LeaseKey key) {
        heartbeats.stop(key);
    }

    /** Stops all heartbeats without releasing (shutdown: the leases expire by themselves). */
    void close() {
        heartbeats.close();
    }

    /**
     * Keeps a lease without a window renewed between reconciles (kubelet node-lease parity, election core {@link
     * Heartbeat}) as {@code hold} says: the short lease every quarter of its duration (the core's default), the long
     * idle lease every half ({@link LeaseHold#idle}); idempotent, and restarted by the next reconcile after an
     * operator restart. A windowed lease is not renewed: its expiry is the end of the window (plus padding) by design.
     */
    private void keepRenewed(LeaseKey key, String nodeName, String nodeUid, LeaseHold hold) {
        Heartbeat.Builder b = Heartbeat.builder()
                .lease(key)
                .holder(settings.holder())
                .leaseDuration(hold.duration())
                .owner(() -> Optional.of(LeaseOwner.node(nodeName, nodeUid)))
                .store(leases)
                .scheduler(heartbeatScheduler)
                .clock(clock)
                .random(new Random())
                .futureTolerance(NodeLease.FUTURE_TOLERANCE)
                .onHeldElsewhere(h ->
                        LOG.warnf("lease %s of node %s in maintenance is now held by %s", key, nodeName, h.holder()))
                .onRepeatedFailure(e ->
                        LOG.warnf("renewing lease %s of node %s keeps failing: %s", key, nodeName, e.getMessage()));
        if (hold.kind() == LeaseHold.Kind.IDLE) {
            b.renewInterval(hold.heartbeatEvery().orElseThrow());
        }
        heartbeats.ensureStarted(b.build());
    }

    static LeaseStatus leaseStatus(LeaseKey key, LeaseRecord r) {
        if (r == null) {
            return new LeaseStatus(key.name(), key.namespace(), null, null, null, null);
        }
        Instant expire = r.renewTime() == null
                ? null
                : r.leaseDuration().map(d -> r.renewTime().plus(d)).orElse(null);
        return new LeaseStatus(
                key.name(),
                key.namespace(),
                r.holderIdentity().isEmpty() ? null : r.holderIdentity(),
                NodeMaintenanceStatuses.text(r.acquireTime()),
                NodeMaintenanceStatuses.text(r.renewTime()),
                NodeMaintenanceStatuses.text(expire));
    }
}
