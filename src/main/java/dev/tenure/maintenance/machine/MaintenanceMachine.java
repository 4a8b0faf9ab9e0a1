package dev.tenure.maintenance.machine;

import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseStore;
import dev.tenure.election.LeaseStoreException;
import dev.tenure.election.Scheduler;
import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.LeaseStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.PlacementPolicy;
import dev.tenure.maintenance.drain.DrainPacing;
import dev.tenure.maintenance.drain.PodDrain;
import dev.tenure.maintenance.machine.MaintenanceStages.Opening;
import dev.tenure.maintenance.machine.MaintenanceStages.Stage;
import dev.tenure.placement.PlacementForecast;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

/**
 * One node's maintenance: lease → cordon and taints → leadership handover → drain → done, and the undo.
 * Knows nothing of where the request came from: a NodeMaintenance and the node annotation protocol both
 * drive it with a {@link MaintenanceRequest} and the {@link MaintenanceState} they keep.
 *
 * <p>Each call reads the cluster, does at most one bounded step (one batch of evictions), and returns the
 * new state and when to call again ({@link DrainPacing}); it never waits for pods to go. Which step comes next is
 * decided in pure code ({@link MaintenanceStages}); each step's I/O lives in its own class: {@link LeaseGuard} (the
 * node lease, and the bound it puts on every write after it), {@link LeaseStep}, {@link CordonStep}, {@link
 * HandoverStep}, {@link HookStep}, {@link DrainStep} (waves, evictions, the preview), {@link VolumeStep} and {@link
 * NodeRestore} (the undo, also at a timeout whose onTimeout is Restore). The only memory kept paces the drain ({@link
 * DrainStep}); losing it on a restart only means one early retry or one look a poll interval later.
 */
public final class MaintenanceMachine {

    private final KubernetesClient client;
    private final NodeLease nodeLease;
    private final LeaseGuard leaseGuard;
    private final LeaseStep leaseStep;
    private final CordonStep cordonStep;
    private final HandoverStep handoverStep;
    private final HookStep hookStep;
    private final DrainStep drainStep;
    private final PlacementStep placementStep;
    private final NodeRestore restore;
    private final StageTimes stageTimes;
    private final MaintenanceSettings settings;
    private final Clock clock;

    /**
     * What to keep and when to come back ({@code empty} = only when something changes); {@code failed}: a write to
     * the cluster failed in this step (one line, as status says it): the caller reports the step as an error and
     * retries it with backoff rather than at {@code requeueAfter}.
     */
    public record Step(MaintenanceState state, Optional<Duration> requeueAfter, Optional<String> failed) {
        public Step(MaintenanceState state, Optional<Duration> requeueAfter) {
            this(state, requeueAfter, Optional.empty());
        }
    }

    public MaintenanceMachine(
            KubernetesClient client,
            LeaseStore leases,
            LeadershipHandover handover,
            MaintenanceMetrics metrics,
            MaintenanceSettings settings,
            ExecutorService evictionPool,
            Scheduler heartbeatScheduler,
            Clock clock) {
        this.client = client;
        this.nodeLease = new NodeLease(leases, clock, settings);
        NodeCordon cordon = new NodeCordon(client);
        this.leaseStep = new LeaseStep(leases, metrics, settings, heartbeatScheduler, clock);
        this.leaseGuard = new LeaseGuard(nodeLease, new SharedNodeLeases(leases, settings), leaseStep, settings);
        this.cordonStep = new CordonStep(cordon, settings);
        this.handoverStep = new HandoverStep(handover, metrics, settings);
        this.hookStep = new HookStep(settings);
        this.drainStep = new DrainStep(
                client, leases, new PodDrain(client, evictionPool), metrics, settings, this::endAfterTimeout);
        this.placementStep = new PlacementStep(client, drainStep, settings.placementRecheck());
        this.restore = new NodeRestore(leases, nodeLease, leaseStep, cordon, drainStep, metrics, settings, clock);
        this.stageTimes = new StageTimes(metrics);
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * The undo at a stage's timeout whose outcome is Restore (the drain step's {@link DrainStep.TimeoutRestore}), once
     * the pre-uncordon hooks let it, as at every end that uncordons. While they hold, the node stays cordoned and
     * nothing more is evicted: the calls after see the held end ({@link MaintenanceStages#endHeldByHooks}) before the
     * lease. Here the node lease is held (the drain runs under it) and its heartbeat renews it; the calls after keep
     * it as a window's held end does.
     */
    private Step endAfterTimeout(
            MaintenanceRequest request, MaintenanceState.Builder s, String timedOut, MaintenanceEvents events) {
        Optional<Step> held =
                hookStep.beforeUncordon(request, s.build(), s, timedOut, clock.instant(), until -> true, events);
        return held.orElseGet(() -> restore.endAfterTimeout(request, s, timedOut, events, Optional.empty()));
    }

    public MaintenanceSettings settings() {
        return settings;
    }

    /**
     * Advances the maintenance by one step.
     *
     * @param retryFailed the request changed since a drain failed: try the drain again
     */
    public Step advance(
            MaintenanceRequest request, MaintenanceState prior, boolean retryFailed, MaintenanceEvents events) {
        return advance(request, prior, retryFailed, Optional.empty(), events);
    }

    /**
     * {@link #advance(MaintenanceRequest, MaintenanceState, boolean, MaintenanceEvents)} with the Node as the
     * caller read it a moment ago in the same step ({@code observed}), so it is not read twice; empty: read it.
     */
    public Step advance(
            MaintenanceRequest request,
            MaintenanceState prior,
            boolean retryFailed,
            Optional<Node> observed,
            MaintenanceEvents events) {
        return advance(request, prior, retryFailed, observed, Optional.empty(), Optional::empty, events);
    }

    /**
     * {@link #advance(MaintenanceRequest, MaintenanceState, boolean, Optional, MaintenanceEvents)} with the placement
     * forecast before the lease and the cordon ({@code spec.drain.placement}, read through {@code placement}; empty:
     * no forecast, for a caller that cannot supply the view), for a front door beside another: {@code nextRequest}
     * names the other door's active request for the node (empty: none), asked only when the maintenance ends by
     * itself (its window over, a timeout that restores). Then the node is handed over to that request as at a
     * deletion ({@link #end(String, MaintenanceEvents, Optional)}): not restored, no instant between the two requests
     * where it is schedulable.
     */
    public Step advance(
            MaintenanceRequest request,
            MaintenanceState prior,
            boolean retryFailed,
            Optional<Node> observed,
            Optional<PlacementView> placement,
            Supplier<Optional<String>> nextRequest,
            MaintenanceEvents events) {
        Instant now = clock.instant();
        Step step = advance(request, prior, retryFailed, observed, placement, nextRequest, events, now);
        stageTimes.observe(request, prior, step.state(), now);
        return step;
    }

    private Step advance(
            MaintenanceRequest request,
            MaintenanceState prior,
            boolean retryFailed,
            Optional<Node> observed,
            Optional<PlacementView> placement,
            Supplier<Optional<String>> nextRequest,
            MaintenanceEvents events,
            Instant now) {
        String nodeName = request.nodeName();
        MaintenanceState.Builder s = prior.toBuilder();
        if (prior.phase() == Phase.Ended) {
            return new Step(prior, Optional.empty());
        }
        boolean heldFailure = MaintenanceStages.heldFailure(prior, retryFailed);
        if (prior.phase() == Phase.Failed && retryFailed) {
            s.resetDrain().phase(Phase.Running);
        }
        Node node = observed.orElseGet(() -> client.nodes().withName(nodeName).get());
        Opening opening = MaintenanceStages.opening(request, prior, node != null, now);
        if (opening instanceof Opening.NodeMissing) {
            return restore.nodeMissing(nodeName, prior, s, events);
        } else if (opening instanceof Opening.WindowOver || opening instanceof Opening.RestoreAfterTimeout) {
            String ending = opening instanceof Opening.RestoreAfterTimeout timedOut
                    ? timedOut.message()
                    : "maintenance window of "
                            + GoDuration.format(request.window().orElseThrow()) + " is over";
            Optional<Step> held;
            try {
                held = hookStep.beforeUncordon(
                        request, prior, s, ending, now, until -> leaseGuard.keep(nodeName, node, until), events);
            } catch (LeaseStoreException | KubernetesClientException e) {
                return new Step(
                        s.lastError(ending + "; keeping lease " + nodeLease.keyOf(nodeName) + " for the pre-uncordon"
                                        + " hooks: " + e.getMessage())
                                .build(),
                        Optional.of(settings.drainPollInterval()));
            }
            if (held.isPresent()) {
                return held.get();
            }
            Optional<String> handTo = nextRequest.get();
            if (!prior.surges().isEmpty()) {
                // a window's end (or a timeout) cuts the drain short: its surges give back first (issue 51); one whose
                // give-back failed for now stays in status and is tried again at the next step, before the node's end
                java.util.List<dev.tenure.maintenance.api.SurgeStatus> again =
                        drainStep.surgeStep().giveBackAtEnd(request, prior.surges(), events);
                s.surges(again);
                if (!again.isEmpty()) {
                    return new Step(
                            s.lastError(
                                            ending + "; giving back " + again.size()
                                                    + " surge(s) (replicas, or the record left on the workload) failed for now, tried again before the node's end")
                                    .build(),
                            Optional.of(settings.drainPollInterval()));
                }
            }
            return opening instanceof Opening.RestoreAfterTimeout timedOut
                    ? restore.endAfterTimeout(request, s, timedOut.message(), events, handTo)
                    : restore.endOfWindow(request, s, events, handTo);
        }
        if (placement.isPresent() && forecastsBeforeLease(request, prior)) {
            Optional<Step> held = placementStep.gate(request, prior, s, placement.get(), now, events);
            if (held.isPresent()) {
                return held.get();
            }
        }
        return leaseGuard.claimThen(
                request,
                prior,
                s,
                node,
                heldFailure,
                now,
                events,
                () -> afterLease(request, prior, s, heldFailure, placement, now, events));
    }

    /**
     * The placement forecast a surge consults before it is recorded (issue 51): made only when the act is about to
     * surge a workload (a LIST of every pod, as the forecast before the cordon), with the node and the other nodes in
     * maintenance cordoned; none without a view (a caller that cannot supply one) or under spec.drain.placement
     * Ignore, as the preview.
     */
    private SurgeStep.Forecast surgeForecast(
            MaintenanceRequest request, Optional<PlacementView> placement, Instant now) {
        if (placement.isEmpty() || request.drain().placement() == PlacementPolicy.Ignore) {
            return SurgeStep.Forecast.NONE;
        }
        return () -> {
            Map<String, PlacementForecast.PodForecast> pods = new java.util.HashMap<>();
            placementStep
                    .forecast(request, placement.get(), now)
                    .pods()
                    .forEach(p -> pods.put(p.namespace() + "/" + p.name(), p));
            return pods;
        };
    }

    /**
     * The placement forecast runs before the lease is taken, unless spec.drain.placement is Ignore; a maintenance
     * waiting for a lease held elsewhere under Warn keeps the forecast it made (it is advice, and a LIST of every pod
     * at each lease retry is not worth it), under Wait it makes it again.
     */
    static boolean forecastsBeforeLease(MaintenanceRequest request, MaintenanceState prior) {
        PlacementPolicy policy = request.drain().placement();
        if (prior.holdsNode() || policy == PlacementPolicy.Ignore) {
            return false;
        }
        return policy == PlacementPolicy.Wait || prior.phase() != Phase.Waiting || prior.placement() == null;
    }

    /**
     * A maintenance whose lease the caller keeps forecasts at its first step (nothing done to the node yet), and
     * under Wait at every step until its pods fit, unless spec.drain.placement is Ignore.
     */
    static boolean forecastsBeforeCordon(MaintenanceRequest request, MaintenanceState prior) {
        PlacementPolicy policy = request.drain().placement();
        if (policy == PlacementPolicy.Ignore) {
            return false;
        }
        boolean first = prior.leaseAcquiredAt() == null;
        boolean held = policy == PlacementPolicy.Wait && prior.phase() == Phase.Pending;
        return first || held;
    }

    /**
     * Advances a maintenance whose node lease the caller keeps itself, by a protocol of its own (the node
     * annotation protocol writes the lease fields that protocol prescribes): the lease step is skipped and
     * {@code lease} reported as held; cordon, handover and drain are exactly those of {@link #advance}.
     * {@code request.window()} is ignored: the caller decides when the maintenance ends.
     */
    public Step advanceHeld(
            MaintenanceRequest request, MaintenanceState prior, LeaseStatus lease, MaintenanceEvents events) {
        return advanceHeld(request, prior, lease, Optional.empty(), events);
    }

    /**
     * {@link #advanceHeld(MaintenanceRequest, MaintenanceState, LeaseStatus, MaintenanceEvents)} with the placement
     * forecast ({@code request.drain().placement()}, read through {@code placement}; empty: none) made once per
     * maintenance, at its first step, before the cordon: under Warn it is written to the state and a pod that fits
     * nowhere is said in a Warning; under Wait the maintenance stays Pending, nothing cordoned, until the pods fit.
     */
    public Step advanceHeld(
            MaintenanceRequest request,
            MaintenanceState prior,
            LeaseStatus lease,
            Optional<PlacementView> placement,
            MaintenanceEvents events) {
        Instant now = clock.instant();
        Step step = advanceHeld(request, prior, lease, placement, events, now);
        stageTimes.observe(request, prior, step.state(), now);
        return step;
    }

    private Step advanceHeld(
            MaintenanceRequest request,
            MaintenanceState prior,
            LeaseStatus lease,
            Optional<PlacementView> placement,
            MaintenanceEvents events,
            Instant now) {
        MaintenanceState.Builder s = prior.toBuilder();
        if (prior.phase() == Phase.Ended) {
            return new Step(prior, Optional.empty());
        }
        Node node = client.nodes().withName(request.nodeName()).get();
        if (node == null) {
            return restore.nodeMissing(request.nodeName(), prior, s, events);
        }
        boolean heldFailure = prior.phase() == Phase.Failed && prior.holdsNode();
        s.errorOnLeaseCount(0).waitingFor(null).lease(lease);
        if (prior.leaseAcquiredAt() == null) {
            s.leaseAcquiredAt(now);
            events.emit(
                    false,
                    MaintenanceEvents.BEGIN,
                    "lease " + lease.getNamespace() + "/" + lease.getName()
                            + " held by " + lease.getHolderIdentity() + "; starting maintenance of node "
                            + request.nodeName()
                            + (request.reason().isEmpty() ? "" : ": " + request.reason()));
        }
        if (!heldFailure && prior.phase() != Phase.Running && prior.phase() != Phase.Succeeded) {
            s.phase(Phase.Running).lastError(null);
        }
        if (placement.isPresent() && forecastsBeforeCordon(request, prior)) {
            Optional<Step> held = placementStep.gate(request, prior, s, placement.get(), now, events);
            if (held.isPresent()) {
                return held.get();
            }
        }
        if (lease.getExpireTime() == null) {
            return afterLease(request, prior, s, heldFailure, placement, now, events);
        }
        // the caller's lease bounds the side effects as the node lease does in advance()
        Instant expire = Instant.parse(lease.getExpireTime());
        Instant sendUntil = expire.minus(NodeLease.skewAllowance(Duration.between(now, expire)));
        return leaseGuard.bounded(
                LeaseKey.of(lease.getNamespace(), lease.getName()),
                sendUntil,
                s,
                () -> afterLease(request, prior, s, heldFailure, placement, now, events));
    }

    /** Steps 2-4 (cordon, handover, hooks, drain or volumes), once the lease is held, as {@link MaintenanceStages} orders them. */
    private Step afterLease(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            boolean heldFailure,
            Optional<PlacementView> placement,
            Instant now,
            MaintenanceEvents events) {
        for (Stage stage : MaintenanceStages.afterLease(request, prior, heldFailure)) {
            Optional<Step> ended = switch (stage) {
                case CORDON -> cordonStep.mark(request, prior, s, now, events);
                case HOLD ->
                    Optional.of(new Step(
                            s.build(), Optional.of(MaintenancePlanner.renewIn(request, prior, settings, now))));
                case HANDOVER -> handoverStep.handOver(request, prior, s, now, events);
                case VOLUMES ->
                    Optional.of(drainStep.volumeStep().volumes(request, prior, s, prior.drainedAt(), now, events));
                case HOOKS -> hookStep.preDrain(request, prior, s, now, events);
                case DRAIN ->
                    Optional.of(drainStep.step(request, prior, s, now, events, surgeForecast(request, placement, now)));
            };
            if (ended.isPresent()) {
                return ended.get();
            }
        }
        throw new IllegalStateException("the stages after the lease end with one that ends the call");
    }

    /**
     * A recorded state whose status this operator did not write (another client patched it, a backup restored it, a
     * predecessor wrote it) is a record only: what it says was done is checked against the world before the machine
     * moves on from it. The lease (claimed at every step), the cordon and taints (re-applied at every step) and the
     * pre-drain hooks (read at every step until the drain starts) are checked by the steps themselves; what is left
     * is a drain said to be done: the node's pods are read, and when the drain would still wait on any, the drain's
     * progress is forgotten and it starts again from the pre-drain hooks (Warning {@value MaintenanceEvents#STATUS_REDERIVED}).
     */
    public MaintenanceState rederive(MaintenanceRequest request, MaintenanceState recorded, MaintenanceEvents events) {
        // A Failed one stays held as it is (the spec must change for it to go on); Ended holds nothing.
        boolean saysDrained = recorded.phase() == Phase.Succeeded
                || (recorded.phase() == Phase.Running && recorded.drainedAt() != null);
        // A drain whose timeout was passed (onTimeout Proceed) left pods on purpose, and says which.
        if (!recorded.holdsNode() || !saysDrained || recorded.passed(MaintenanceStages.TimedStage.DRAIN)) {
            return recorded;
        }
        List<String> left;
        try {
            left = drainStep.podsLeft(request, recorded, clock.instant());
        } catch (KubernetesClientException e) {
            return recorded; // not checked now: the drain step's own reads report the trouble
        }
        if (left.isEmpty()) {
            return recorded;
        }
        events.emit(
                true,
                MaintenanceEvents.STATUS_REDERIVED,
                "status says phase " + recorded.phase()
                        + " (drained), but it was not written by this operator and node "
                        + request.nodeName() + " still has " + left.size() + " pod(s) to drain ("
                        + String.join(", ", left.stream().limit(5).toList()) + (left.size() > 5 ? ", ..." : "")
                        + "): status is a record, re-derived from the node, its pods and lease; the maintenance goes on"
                        + " from its pre-drain hooks and drain");
        return recorded.toBuilder()
                .resetDrain()
                .hookWait(null)
                .phase(Phase.Running)
                .build();
    }

    /**
     * {@code spec.preview}: the plan the drain would follow on the node now, each pod with its behaviour, wave and the
     * PodDisruptionBudgets that would refuse its eviction. Reads only: no lease, no cordon, no eviction.
     */
    public Step preview(MaintenanceRequest request, MaintenanceState prior) {
        return preview(request, prior, Optional.empty());
    }

    /**
     * {@link #preview(MaintenanceRequest, MaintenanceState)} with the placement forecast ({@code status.placement})
     * the maintenance would make before its cordon, unless spec.drain.placement is Ignore. Reads only.
     */
    public Step preview(MaintenanceRequest request, MaintenanceState prior, Optional<PlacementView> placement) {
        Instant now = clock.instant();
        PlacementPolicy policy = request.drain().placement();
        Optional<PlacementForecast> forecast = Optional.empty();
        if (placement.isPresent() && policy != PlacementPolicy.Ignore) {
            try {
                forecast = Optional.of(placementStep.forecast(request, placement.get(), now));
            } catch (KubernetesClientException e) {
                // the drain plan is shown; the forecast is tried again at the preview's next refresh
            }
        }
        // the surge outlook reads the forecast: a pod whose replacement fits nowhere cannot surge either
        Map<String, PlacementForecast.Verdict> fits = new java.util.HashMap<>();
        forecast.ifPresent(f -> f.pods().forEach(p -> fits.put(p.namespace() + "/" + p.name(), p.verdict())));
        Step step = drainStep.preview(request, prior, now, fits);
        if (forecast.isEmpty()
                || (step.state().lastError() != null && step.state().lastError().startsWith("spec.nodeName"))) {
            return step;
        }
        return new Step(
                step.state().toBuilder()
                        .placement(PlacementGate.status(policy, forecast.get()))
                        .build(),
                step.requeueAfter(),
                step.failed());
    }

    /**
     * Takes the node out of maintenance: restores its prior state (cordon, taints), removes our
     * condition, releases the lease. Idempotent, and a no-op for the node when it is gone.
     * Throws on API errors so the caller retries.
     *
     * @return empty when the node was restored (or carried nothing of ours); else what was left and why, one line (the
     *     node's lease is held by another holder: the node is not touched, an event says what stays on it)
     */
    public Optional<String> end(String nodeName, MaintenanceEvents events) {
        return restore.end(nodeName, events);
    }

    /**
     * {@link #end(String, MaintenanceEvents)}, or, when another request for the node is active ({@code handTo} names
     * it: the other front door's), the hand-over: the node is not restored (no instant between the two requests where
     * it is schedulable), the lease is released for the next request to take, and an event says so.
     */
    public Optional<String> end(String nodeName, MaintenanceEvents events, Optional<String> handTo) {
        return restore.end(nodeName, events, handTo);
    }

    /**
     * The hand-over without the lease (for a front door that keeps the lease itself), instead of {@link #restoreNode}:
     * another request for the node ({@code to}) is active, so the node stays as it is for it; the drain's memory and
     * the node's metrics go, an event says so.
     */
    public void handOver(String nodeName, String to, MaintenanceEvents events) {
        restore.handOver(nodeName, to, events);
    }

    /**
     * The undo without the lease (for a front door that keeps the lease itself): restores the node's prior
     * state, removes our condition and forgets the drain's PDB refusals. Idempotent; a no-op when the node
     * is gone; throws on API errors so the caller retries.
     */
    public void restoreNode(String nodeName, MaintenanceEvents events) {
        restore.restoreNode(nodeName, events);
    }

    /**
     * A NodeMaintenance ({@code uid}, {@code name}) deleted while its drain had surges in flight ({@code surges}, as
     * its status kept them): their replicas still the surges' own are given back and their records removed before the
     * node is restored; what cannot be for good is said in a Warning event (issue 51). First, a record of this
     * maintenance that {@code surges} does not name (written by a step whose status was never written: the leader
     * killed between the two) is removed from the workload of a pod still on the node, its replicas untouched
     * ({@code SurgeStep#unrecordUnlisted}); called with no surges too, for any maintenance with {@code evacuation:
     * Surge}.
     *
     * @return the surges not done with yet (empty: every one given back, or left and said), copies carrying what was
     *     done (a record whose removal was put off, {@code recordPending}): a give-back failed for now (a conflict,
     *     429, a 5xx, no answer); the caller keeps them in status and tries again later from them
     */
    public java.util.List<dev.tenure.maintenance.api.SurgeStatus> giveBackSurges(
            String nodeName,
            String uid,
            String name,
            java.util.List<dev.tenure.maintenance.api.SurgeStatus> surges,
            MaintenanceEvents events) {
        MaintenanceRequest request =
                new MaintenanceRequest(nodeName, null, Optional.empty(), null, null).withOwner(uid, name);
        // first the records no status names (a step killed between its record and its status write), so a failure
        // here tries the whole end again before any listed surge is acted on
        drainStep.surgeStep().unrecordUnlisted(request, surges == null ? java.util.List.of() : surges, events);
        if (surges == null || surges.isEmpty()) {
            return java.util.List.of();
        }
        return drainStep
                .surgeStep()
                .giveBackAtEnd(
                        request,
                        surges.stream()
                                .map(dev.tenure.maintenance.api.SurgeStatus::copy)
                                .toList(),
                        events);
    }

    /**
     * The maintenance of {@code nodeName} was deleted in {@code last} (its state as status kept it): the stages it was
     * in end now, outcome deleted, but for the pre-uncordon hooks that held its end (completed, or proceed past
     * {@code hooksTimeout}). Call before {@link #forget}.
     */
    public void deleted(String nodeName, MaintenanceState last, Duration hooksTimeout) {
        stageTimes.deleted(nodeName, last, hooksTimeout, clock.instant());
    }

    /**
     * The deleted maintenance of {@code nodeName} is held by its pre-uncordon hooks ({@code state}, as the door keeps
     * it): the hooks' owners are counted as holding it.
     */
    public void heldAtDeletion(String nodeName, MaintenanceState state) {
        stageTimes.heldAtDeletion(nodeName, state, clock.instant());
    }

    /**
     * A PodDisruptionBudget ("namespace/name") that refused evictions of draining pods now admits {@code admits} of
     * them ({@link dev.tenure.maintenance.drain.BudgetRelease#frees}; {@link
     * dev.tenure.maintenance.drain.BudgetRelease#ALL} when it was deleted): those pods may be tried again at once
     * rather than after {@code spec.drain.evictionRetryDelay}. Changes the drain's memory only; the caller wakes the
     * maintenances of the nodes returned, whose next drain step sends the evictions.
     *
     * @return the nodes with a pod now free to be evicted again (empty: nobody waits on the budget)
     */
    public java.util.Set<String> budgetFreed(String budget, int admits) {
        return drainStep.budgetFreed(budget, admits, clock.instant());
    }

    /** Called when the maintenance is forgotten (deleted): drops per-node metrics. */
    public void forget(String maintenance, String nodeName) {
        restore.forget(maintenance, nodeName);
        stageTimes.forget(nodeName);
    }

    /** Stops all heartbeats without releasing (shutdown: the leases expire by themselves). */
    public void close() {
        leaseStep.close();
    }
}
