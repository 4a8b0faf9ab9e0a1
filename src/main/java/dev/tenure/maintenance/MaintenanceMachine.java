package dev.tenure.maintenance;

import dev.tenure.election.AuthorityStatus;
import dev.tenure.election.ClaimResult;
import dev.tenure.election.Heartbeat;
import dev.tenure.election.Heartbeats;
import dev.tenure.election.LeaseHeldElsewhere;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseOwner;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseRules;
import dev.tenure.election.LeaseStore;
import dev.tenure.election.LeaseStoreException;
import dev.tenure.election.Scheduler;
import dev.tenure.election.WorkFence;
import dev.tenure.maintenance.DrainPlan.Action;
import dev.tenure.maintenance.DrainPlan.PodVerdict;
import dev.tenure.maintenance.MaintenanceMetrics.EvictionResult;
import dev.tenure.maintenance.MaintenanceMetrics.LeaseOutcome;
import dev.tenure.maintenance.api.DrainPlanStatus;
import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.LeaseStatus;
import dev.tenure.maintenance.api.Phase;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * One node's maintenance: lease → cordon and taints → leadership handover → drain → done, and the undo.
 * Knows nothing of where the request came from: a NodeMaintenance and the node annotation protocol both
 * drive it with a {@link MaintenanceRequest} and the {@link MaintenanceState} they keep.
 *
 * <p>Each call reads the cluster, does at most one bounded step (one batch of evictions), and returns the
 * new state and when to call again ({@link DrainPacing}); it never waits for pods to go. The only memory it
 * keeps paces the drain: when a PodDisruptionBudget last refused a pod (kubectl keeps the same in its retry
 * loop) and when the node's last batch went out. Losing either on a restart only means one early retry or
 * one look a poll interval later.
 */
public final class MaintenanceMachine {

    private static final Logger LOG = Logger.getLogger(MaintenanceMachine.class);
    static final String KUBELET_LEASE_NAMESPACE = "kube-node-lease";
    private static final Duration NODE_MISSING_RETRY = Duration.ofSeconds(30);
    /** A preview is recomputed this often: pods come and go on the node meanwhile. */
    static final Duration PREVIEW_REFRESH = Duration.ofSeconds(30);

    private final KubernetesClient client;
    private final LeaseStore leases;
    private final NodeLease nodeLease;
    private final NodeCordon cordon;
    private final PodDrain drain;
    private final LeadershipHandover handover;
    private final MaintenanceMetrics metrics;
    private final MaintenanceSettings settings;
    private final Clock clock;
    private final Map<String, Map<String, Instant>> refusedUntil = new ConcurrentHashMap<>();
    private final Map<String, Instant> lastBatchAt = new ConcurrentHashMap<>();
    private final Heartbeats heartbeats = new Heartbeats();
    private final Scheduler heartbeatScheduler;

    /** What to keep and when to come back ({@code empty} = only when something changes). */
    public record Step(MaintenanceState state, Optional<Duration> requeueAfter) {}

    public MaintenanceMachine(
            KubernetesClient client,
            LeaseStore leases,
            LeadershipHandover handover,
            MaintenanceMetrics metrics,
            MaintenanceSettings settings,
            ExecutorService evictionPool,
            Scheduler heartbeatScheduler,
            Clock clock) {
        this.heartbeatScheduler = heartbeatScheduler;
        this.client = client;
        this.leases = leases;
        this.nodeLease = new NodeLease(leases, clock, settings);
        this.cordon = new NodeCordon(client);
        this.drain = new PodDrain(client, evictionPool);
        this.handover = handover;
        this.metrics = metrics;
        this.settings = settings;
        this.clock = clock;
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
    Step advance(
            MaintenanceRequest request,
            MaintenanceState prior,
            boolean retryFailed,
            Optional<Node> observed,
            MaintenanceEvents events) {
        Instant now = clock.instant();
        String nodeName = request.nodeName();
        MaintenanceState.Builder s = prior.toBuilder();
        if (prior.phase() == Phase.Ended) {
            return new Step(prior, Optional.empty());
        }
        boolean heldFailure = prior.phase() == Phase.Failed && prior.holdsNode() && !retryFailed;
        if (prior.phase() == Phase.Failed && retryFailed) {
            s.resetDrain().phase(Phase.Running);
        }

        Node node = observed.orElseGet(() -> client.nodes().withName(nodeName).get());
        if (node == null) {
            return nodeMissing(nodeName, prior, s, now, events);
        }

        Optional<Instant> windowEnd = MaintenancePlanner.windowEnd(request, prior);
        if (windowEnd.isPresent() && !now.isBefore(windowEnd.get())) {
            return endOfWindow(request, s, events);
        }
        Optional<String> hooksTimedOut = preDrainHooksTimedOut(request, prior, now);
        if (hooksTimedOut.isPresent()) {
            return endAfterHookTimeout(request, s, hooksTimedOut.get(), events);
        }

        // 1. Lease.
        Instant leaseUntil = MaintenancePlanner.leaseUntil(request, prior, settings, now);
        LeaseKey leaseKey = nodeLease.keyOf(nodeName);
        ClaimResult claim;
        try {
            claim = nodeLease.claim(
                    nodeName,
                    node.getMetadata().getUid(),
                    leaseUntil,
                    request.window().isPresent());
        } catch (LeaseStoreException | KubernetesClientException e) {
            int errors = prior.errorOnLeaseCount() + 1;
            Duration backoff = MaintenancePlanner.leaseErrorBackoff(errors);
            return new Step(
                    s.errorOnLeaseCount(errors)
                            .lastError("taking lease " + nodeLease.keyOf(nodeName) + ": " + e.getMessage())
                            .build(),
                    Optional.of(backoff));
        }
        if (claim instanceof LeaseHeldElsewhere elsewhere) {
            return waitForLease(request, prior, s, elsewhere, now, events);
        }
        held(request, prior, s, leaseKey, claim, node.getMetadata().getUid(), now, events);
        if (prior.phase() == Phase.Pending
                || prior.phase() == Phase.Waiting
                || (prior.phase() == Phase.Failed && !heldFailure)) {
            s.phase(Phase.Running).lastError(null);
        }
        // Every side effect from here on (cordon, evictions, handover) is sent only while the node lease holds too.
        Instant sendUntil = nodeLease.sendUntil(claim.held().orElseThrow());
        return underLease(leaseKey, sendUntil, s, () -> afterLease(request, prior, s, heldFailure, now, events));
    }

    /**
     * {@code step} with its writes bounded by the lease {@code key} until {@code sendUntil}; a write refused past it
     * (or past the term) ends the step with the refusal in lastError, to be tried again after the lease is renewed.
     */
    private Step underLease(LeaseKey key, Instant sendUntil, MaintenanceState.Builder s, Supplier<Step> step) {
        try {
            return WorkFence.bounded(nodeLeaseBound(key, sendUntil), step);
        } catch (RuntimeException e) {
            WorkFence.OutsideTerm refused = WorkFence.refusal(e).orElseThrow(() -> e);
            return new Step(
                    s.lastError("not sent: " + refused.getMessage()).build(),
                    Optional.of(settings.drainPollInterval()));
        }
    }

    /** The node lease as a bound on the writes of this thread: they go out only until {@code sendUntil}. */
    private WorkFence.Bound nodeLeaseBound(LeaseKey key, Instant sendUntil) {
        return new WorkFence.Bound(
                "node lease " + key, () -> Optional.of(Duration.between(clock.instant(), sendUntil)));
    }

    /** Window over: the maintenance ends by itself (phase Ended). */
    private Step endOfWindow(MaintenanceRequest request, MaintenanceState.Builder s, MaintenanceEvents events) {
        String nodeName = request.nodeName();
        try {
            end(nodeName, events);
        } catch (LeaseStoreException | KubernetesClientException e) {
            return new Step(
                    s.lastError("ending maintenance of node " + nodeName + " after its window: " + e.getMessage())
                            .build(),
                    Optional.of(settings.drainPollInterval()));
        }
        events.emit(
                false,
                MaintenanceEvents.REMOVED,
                "maintenance window of " + GoDuration.format(request.window().get()) + " is over; node " + nodeName
                        + " is back in service");
        return new Step(
                s.phase(Phase.Ended)
                        .leaseAcquiredAt(null)
                        .waitingFor(null)
                        .pendingPods(List.of())
                        .pendingPodsRefs(List.of())
                        .lastError(null)
                        .lease(null)
                        .build(),
                Optional.empty());
    }

    /** The pre-drain hooks held this maintenance for their whole timeout (it had not started to drain). */
    private static Optional<String> preDrainHooksTimedOut(
            MaintenanceRequest request, MaintenanceState prior, Instant now) {
        if (prior.drainStartedAt() != null
                || prior.hookWait() == null
                || prior.hookWait().point() != MaintenanceHooks.Point.PreDrain) {
            return Optional.empty();
        }
        return MaintenanceHooks.decide(MaintenanceHooks.Point.PreDrain, request.hooks(), prior.hookWait(), now)
                        instanceof MaintenanceHooks.Verdict.TimedOut t
                ? Optional.of(t.message())
                : Optional.empty();
    }

    /**
     * Pre-drain hooks outlived their timeout: the maintenance ends cleanly (node restored, lease released, phase
     * Ended) rather than draining under a hook nobody removed, or waiting forever.
     */
    private Step endAfterHookTimeout(
            MaintenanceRequest request, MaintenanceState.Builder s, String timedOut, MaintenanceEvents events) {
        String nodeName = request.nodeName();
        String message = timedOut + "; maintenance of node " + nodeName + " ended without draining (node restored,"
                + " lease released)";
        try {
            end(nodeName, events);
        } catch (LeaseStoreException | KubernetesClientException e) {
            return new Step(
                    s.lastError("ending maintenance of node " + nodeName + " after its hooks timed out: "
                                    + e.getMessage())
                            .build(),
                    Optional.of(settings.drainPollInterval()));
        }
        events.emit(true, MaintenanceEvents.HOOK_TIMED_OUT, message);
        return new Step(
                s.phase(Phase.Ended)
                        .leaseAcquiredAt(null)
                        .waitingFor(null)
                        .lastError(message)
                        .lease(null)
                        .build(),
                Optional.empty());
    }

    /** The node lease is ours: metrics, status, its heartbeat (no window), and the start of the maintenance. */
    private void held(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            LeaseKey leaseKey,
            ClaimResult claim,
            String nodeUid,
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
        if (request.window().isEmpty()) {
            keepRenewed(leaseKey, nodeName, nodeUid);
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

    /**
     * Advances a maintenance whose node lease the caller keeps itself, by a protocol of its own (the node
     * annotation protocol writes the lease fields that protocol prescribes): the lease step is skipped and
     * {@code lease} reported as held; cordon, handover and drain are exactly those of {@link #advance}.
     * {@code request.window()} is ignored: the caller decides when the maintenance ends.
     */
    public Step advanceHeld(
            MaintenanceRequest request, MaintenanceState prior, LeaseStatus lease, MaintenanceEvents events) {
        Instant now = clock.instant();
        MaintenanceState.Builder s = prior.toBuilder();
        if (prior.phase() == Phase.Ended) {
            return new Step(prior, Optional.empty());
        }
        Node node = client.nodes().withName(request.nodeName()).get();
        if (node == null) {
            return nodeMissing(request.nodeName(), prior, s, now, events);
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
        if (lease.getExpireTime() == null) {
            return afterLease(request, prior, s, heldFailure, now, events);
        }
        // the caller's lease bounds the side effects as the node lease does in advance()
        Instant expire = Instant.parse(lease.getExpireTime());
        Instant sendUntil = expire.minus(NodeLease.skewAllowance(Duration.between(now, expire)));
        return underLease(
                LeaseKey.of(lease.getNamespace(), lease.getName()),
                sendUntil,
                s,
                () -> afterLease(request, prior, s, heldFailure, now, events));
    }

    /** Steps 2-4 (cordon, handover, drain), once the lease is held. */
    private Step afterLease(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            boolean heldFailure,
            Instant now,
            MaintenanceEvents events) {
        String nodeName = request.nodeName();
        // 2. Cordon, taints, Node condition (re-applied if someone removed them: it is the desired state).
        try {
            String message = request.reason().isEmpty() ? "node is in maintenance" : request.reason();
            boolean changed = cordon.mark(nodeName, "NodeMaintenance", message, now);
            if (prior.cordonedAt() == null) {
                s.cordonedAt(now);
            }
            if (changed && prior.cordonedAt() == null) {
                events.emit(
                        false,
                        MaintenanceEvents.CORDONED,
                        "node " + nodeName + " cordoned and tainted " + NodeMarks.DRAIN_TAINT.getKey() + ":NoSchedule");
            }
        } catch (KubernetesClientException e) {
            return new Step(
                    s.lastError("cordoning node " + nodeName + ": HTTP " + e.getCode() + " " + e.getMessage())
                            .build(),
                    Optional.of(settings.drainPollInterval()));
        }
        if (heldFailure) {
            return new Step(s.build(), Optional.of(renewIn(request, prior, now)));
        }

        // 3. Leadership handover.
        if (prior.handedOverAt() == null) {
            if (!request.handover().enabled()) {
                s.handedOverAt(now).handoverMessage("handover disabled in spec.handover.enabled");
            } else {
                Instant started = Optional.ofNullable(prior.handoverStartedAt()).orElse(now);
                s.handoverStartedAt(started);
                MaintenancePlanner.HandoverVerdict verdict = MaintenancePlanner.handover(
                        request.handover(),
                        started,
                        handover.handOver(nodeName, started, now),
                        settings.drainPollInterval(),
                        now);
                if (verdict instanceof MaintenancePlanner.HandoverVerdict.Pending pending) {
                    return new Step(s.handoverMessage(pending.message()).build(), Optional.of(pending.requeueAfter()));
                }
                MaintenancePlanner.HandoverVerdict.Done done = (MaintenancePlanner.HandoverVerdict.Done) verdict;
                s.handedOverAt(now).handoverMessage(done.message());
                metrics.handover(
                        done.timedOut()
                                ? MaintenanceMetrics.HandoverOutcome.timed_out
                                : MaintenanceMetrics.HandoverOutcome.completed,
                        Duration.between(started, now));
                if (done.timedOut()) {
                    events.emit(true, MaintenanceEvents.HANDOVER_TIMED_OUT, done.message());
                }
            }
        }

        if (prior.phase() == Phase.Succeeded) {
            return new Step(s.build(), Optional.of(renewIn(request, prior, now)));
        }
        if (prior.drainedAt() != null
                && prior.phase() == Phase.Running
                && request.drain().volumeDetach().enabled()) {
            return volumeStep(request, prior, s, prior.drainedAt(), now, events);
        }

        // 3b. Pre-drain hooks (Cluster API's pre-drain hook): other controllers hold the drain until they remove
        // their annotation. Looked at only before the first eviction: a hook added mid-drain does not stop it.
        if (prior.drainStartedAt() == null) {
            Optional<Step> held = preDrainHooks(request, prior, s, now, events);
            if (held.isPresent()) {
                return held.get();
            }
        }

        // 4. Drain: one bounded step.
        return drainStep(request, prior, s, now, events);
    }

    /** Waits on the pre-drain hooks: a step to return while they hold, empty when the drain may start. */
    private Optional<Step> preDrainHooks(
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
        return Optional.of(
                new Step(s.build(), Optional.of(MaintenancePlanner.min(recheck, renewIn(request, prior, now)))));
    }

    private Step drainStep(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            Instant now,
            MaintenanceEvents events) {
        String nodeName = request.nodeName();
        DrainOptions options = request.drain();
        Instant started = Optional.ofNullable(s.drainStartedAt).orElse(now);
        s.drainStartedAt(started);
        List<Pod> pods;
        DrainPlan plan;
        try {
            pods = drain.podsOn(nodeName);
            Map<String, Instant> refused = refusedUntil.computeIfAbsent(nodeName, n -> new ConcurrentHashMap<>());
            DrainPlan.Observed observed = new DrainPlan.Observed(
                    drain.existingDaemonSets(pods),
                    kubeletStale(nodeName, now),
                    settings.staleNodeSkipWait(),
                    refused,
                    drain.refusals(),
                    options.rules().readsNamespaces() ? drain.namespaceLabels(pods) : Map.of());
            plan = DrainPlan.of(pods, options, observed, now);
        } catch (KubernetesClientException | LeaseStoreException e) {
            return new Step(
                    s.lastError("listing pods on node " + nodeName + ": " + e.getMessage())
                            .build(),
                    Optional.of(settings.drainPollInterval()));
        }
        int evictionPods = s.evictionPods == null ? plan.toDrainCount() : s.evictionPods;
        s.totalPods(s.totalPods == null ? pods.size() : s.totalPods).evictionPods(evictionPods);
        List<PodVerdict> pending = plan.pending();
        s.pendingPods(pending.stream().map(PodVerdict::key).toList())
                .pendingPodsRefs(pending.stream()
                        .map(v -> new ObjectReferenceBuilder()
                                .withKind("Pod")
                                .withApiVersion("v1")
                                .withNamespace(v.namespace())
                                .withName(v.name())
                                .withUid(v.uid())
                                .build())
                        .toList())
                .drainProgress(plan.progress(evictionPods));
        DrainWaves waves = DrainWaves.of(plan);
        s.waves(waves);
        Integer priorWave = prior.waves() == null ? null : prior.waves().current();
        if (waves.current() != null && !waves.current().equals(priorWave)) {
            events.emit(
                    false,
                    MaintenanceEvents.DRAIN_WAVE,
                    "draining wave " + MaintenancePlanner.wave(waves.current()) + " of node " + nodeName + " ("
                            + plan.currentWavePods().size() + " pod(s))"
                            + (waves.later().isEmpty()
                                    ? ""
                                    : "; then wave(s) "
                                            + waves.later().stream()
                                                    .map(MaintenancePlanner::wave)
                                                    .collect(java.util.stream.Collectors.joining(", "))));
        }
        metrics.pendingPods(nodeName, pending.size());
        MaintenancePlanner.stuckTerminating(nodeName, drain.firstReports(plan.stuckTerminating()))
                .ifPresent(m -> events.emit(true, MaintenanceEvents.STUCK_TERMINATING, m));

        MaintenancePlanner.DrainVerdict verdict = MaintenancePlanner.drain(
                nodeName, plan, options, evictionPods, started, settings.evictionParallelism(), now);
        if (verdict instanceof MaintenancePlanner.DrainVerdict.Refused refused) {
            events.emit(true, MaintenanceEvents.FAILED, refused.message());
            return new Step(
                    s.phase(Phase.Failed).lastError(refused.message()).build(),
                    Optional.of(renewIn(request, prior, now)));
        } else if (verdict instanceof MaintenancePlanner.DrainVerdict.Complete complete) {
            metrics.drained(Duration.between(started, now));
            forgetDrain(nodeName);
            if (options.volumeDetach().enabled()) {
                s.phase(Phase.Running).drainedAt(now).drainProgress(100).lastError(null);
                return volumeStep(request, prior, s, now, now, events);
            }
            events.emit(false, MaintenanceEvents.SUCCEEDED, complete.message());
            return new Step(
                    s.phase(Phase.Succeeded)
                            .drainedAt(now)
                            .drainProgress(100)
                            .lastError(null)
                            .build(),
                    Optional.of(renewIn(request, prior, now)));
        } else if (verdict instanceof MaintenancePlanner.DrainVerdict.WaitCompletedTimedOut timedOut) {
            events.emit(true, MaintenanceEvents.WAIT_COMPLETED_TIMED_OUT, timedOut.message());
            return new Step(
                    s.phase(Phase.Failed).lastError(timedOut.message()).build(),
                    Optional.of(renewIn(request, prior, now)));
        } else if (verdict instanceof MaintenancePlanner.DrainVerdict.TimedOut timedOut) {
            events.emit(true, MaintenanceEvents.FAILED, timedOut.message());
            return new Step(
                    s.phase(Phase.Failed).lastError(timedOut.message()).build(),
                    Optional.of(renewIn(request, prior, now)));
        }
        MaintenancePlanner.DrainVerdict.Send send = (MaintenancePlanner.DrainVerdict.Send) verdict;
        return send(request, prior, s, plan, send, pods, started, now, events);
    }

    /**
     * After the drain (phase Running, Drained): waits until no VolumeAttachment names the node (Cluster API's wait
     * for volume detach), then Succeeded; past spec.drain.volumeDetach.timeout, Failed with the attachments named.
     */
    private Step volumeStep(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            Instant drainedAt,
            Instant now,
            MaintenanceEvents events) {
        String nodeName = request.nodeName();
        VolumeDetach.Verdict verdict;
        try {
            verdict = VolumeDetach.decide(
                    nodeName,
                    drain.volumeAttachmentsOn(nodeName),
                    request.drain().volumeDetach(),
                    drainedAt,
                    settings.drainPollInterval(),
                    now);
        } catch (KubernetesClientException e) {
            return new Step(
                    s.lastError("listing VolumeAttachments of node " + nodeName + ": " + e.getMessage())
                            .build(),
                    Optional.of(settings.drainPollInterval()));
        }
        if (verdict instanceof VolumeDetach.Verdict.Waiting waiting) {
            return new Step(
                    s.attachedVolumes(waiting.waitingFor()).lastError(null).build(),
                    Optional.of(waiting.requeueAfter()));
        }
        if (verdict instanceof VolumeDetach.Verdict.TimedOut timedOut) {
            events.emit(true, MaintenanceEvents.VOLUME_DETACH_TIMED_OUT, timedOut.message());
            return new Step(
                    s.phase(Phase.Failed).lastError(timedOut.message()).build(),
                    Optional.of(renewIn(request, prior, now)));
        }
        String detached = ((VolumeDetach.Verdict.Detached) verdict).message();
        events.emit(false, MaintenanceEvents.SUCCEEDED, "node " + nodeName + " drained; " + detached);
        return new Step(
                s.phase(Phase.Succeeded)
                        .attachedVolumes(List.of())
                        .lastError(null)
                        .build(),
                Optional.of(renewIn(request, prior, now)));
    }

    /**
     * {@code spec.preview}: the plan the drain would follow on the node now, each pod with its behaviour, wave and the
     * PodDisruptionBudgets that would refuse its eviction. Reads only: no lease, no cordon, no eviction.
     */
    public Step preview(MaintenanceRequest request, MaintenanceState prior) {
        String nodeName = request.nodeName();
        Instant now = clock.instant();
        MaintenanceState.Builder s = prior.toBuilder().phase(Phase.Pending);
        try {
            if (client.nodes().withName(nodeName).get() == null) {
                return new Step(
                        s.preview(List.of())
                                .lastError("spec.nodeName: node " + nodeName + " not found")
                                .build(),
                        Optional.of(NODE_MISSING_RETRY));
            }
            List<Pod> pods = drain.podsOn(nodeName);
            DrainOptions options = request.drain();
            DrainPlan plan = DrainPlan.of(
                    pods,
                    options,
                    new DrainPlan.Observed(
                            drain.existingDaemonSets(pods),
                            kubeletStale(nodeName, now),
                            settings.staleNodeSkipWait(),
                            Map.of(),
                            Map.of(),
                            options.rules().readsNamespaces() ? drain.namespaceLabels(pods) : Map.of()),
                    now);
            List<DrainPlanStatus.PlannedPod> planned = DrainPreview.of(plan, pods, drain.budgetsOf(pods));
            // a pod the drain would refuse (kubectl's filters) is worth saying before anything starts
            String refusal = MaintenancePlanner.drain(nodeName, plan, options, 0, now, 0, now)
                            instanceof MaintenancePlanner.DrainVerdict.Refused r
                    ? "preview: " + r.message()
                    : null;
            return new Step(s.preview(planned).lastError(refusal).build(), Optional.of(PREVIEW_REFRESH));
        } catch (KubernetesClientException | LeaseStoreException e) {
            return new Step(
                    s.lastError("preview of node " + nodeName + ": " + e.getMessage())
                            .build(),
                    Optional.of(settings.drainPollInterval()));
        }
    }

    /** Sends one batch of evictions (or deletions) and records what came back. */
    private Step send(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            DrainPlan plan,
            MaintenancePlanner.DrainVerdict.Send send,
            List<Pod> pods,
            Instant started,
            Instant now,
            MaintenanceEvents events) {
        String nodeName = request.nodeName();
        DrainOptions options = request.drain();
        List<String> removedKeys = new java.util.ArrayList<>();
        String error = null;
        String blocked = null;
        boolean removed = false;
        Map<String, Instant> refused = refusedUntil.computeIfAbsent(nodeName, n -> new ConcurrentHashMap<>());
        for (PodDrain.Outcome outcome : drain.remove(send.batch(), options)) {
            switch (outcome.result()) {
                case EVICTED, DELETED, GONE -> {
                    removed = true;
                    if (outcome.result() != PodDrain.Result.GONE) {
                        removedKeys.add(outcome.pod().key());
                    }
                    metrics.eviction(EvictionResult.ok);
                    if (outcome.pod().uid() != null) {
                        refused.remove(outcome.pod().uid());
                    }
                }
                case BLOCKED -> {
                    metrics.eviction(EvictionResult.blocked_by_pdb);
                    if (outcome.pod().uid() != null) {
                        refused.put(outcome.pod().uid(), now.plus(options.evictionRetryDelay()));
                    }
                    blocked = "eviction of pod " + outcome.pod().key() + " refused: " + outcome.message()
                            + "; retrying every " + GoDuration.format(options.evictionRetryDelay());
                    events.emit(true, MaintenanceEvents.EVICTION_BLOCKED, blocked);
                }
                case FAILED -> {
                    metrics.eviction(EvictionResult.error);
                    error = "removing pod " + outcome.pod().key() + ": " + outcome.message();
                }
            }
        }
        if (removed) {
            lastBatchAt.put(nodeName, now);
        }
        warnAboutRemovals(pods, removedKeys, events);
        s.phase(Phase.Running)
                .lastError(MaintenancePlanner.lastErrorAfterBatch(error, blocked, removed, prior.lastError()));
        DrainPacing.Progress progress = new DrainPacing.Progress(
                send.left(),
                error != null,
                removed || !plan.with(Action.WAIT_TERMINATING).isEmpty(),
                Optional.ofNullable(lastBatchAt.get(nodeName)),
                refused.values().stream().filter(now::isBefore).min(Instant::compareTo),
                options.timeout().map(started::plus));
        return new Step(s.build(), Optional.of(DrainPacing.next(progress, settings.drainPollInterval(), now)));
    }

    /**
     * kubectl drain's warnings, as a Warning event naming the pods: the defaults (force, deleteEmptyDirData) remove
     * pods that nothing recreates and pods whose emptyDir data goes with them, which must not pass silently.
     */
    private static void warnAboutRemovals(List<Pod> pods, List<String> removedKeys, MaintenanceEvents events) {
        if (removedKeys.isEmpty()) {
            return;
        }
        List<Pod> removed = pods.stream()
                .filter(p -> removedKeys.contains(
                        p.getMetadata().getNamespace() + "/" + p.getMetadata().getName()))
                .toList();
        List<String> unmanaged = removed.stream()
                .filter(p -> DrainPlan.controllerOf(p) == null)
                .map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())
                .toList();
        List<String> localData = removed.stream()
                .filter(DrainPlan::hasEmptyDir)
                .map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())
                .toList();
        List<String> parts = new java.util.ArrayList<>();
        if (!unmanaged.isEmpty()) {
            parts.add("removed pods that declare no controller (nothing recreates them): "
                    + String.join(", ", unmanaged));
        }
        if (!localData.isEmpty()) {
            parts.add("removed pods with local storage (their emptyDir data is lost): " + String.join(", ", localData));
        }
        if (!parts.isEmpty()) {
            events.emit(true, MaintenanceEvents.DRAIN_WARNING, String.join("; ", parts));
        }
    }

    /**
     * Takes the node out of maintenance: restores its prior state (cordon, taints), removes our
     * condition, releases the lease. Idempotent, and a no-op for the node when it is gone.
     * Throws on API errors so the caller retries.
     */
    public void end(String nodeName, MaintenanceEvents events) {
        LeaseKey key = nodeLease.keyOf(nodeName);
        heartbeats.stop(key);
        Optional<LeaseRecord> lease = leases.find(key).filter(LeaseRecord::hasHolder);
        if (lease.isEmpty()) {
            restoreNode(nodeName, events); // nobody holds the node: ours to undo
            return;
        }
        // The undo is a side effect like the others: only under the node lease (claimed again: a predecessor's is
        // taken over, ours renewed), never under another controller's maintenance of the node.
        ClaimResult claim = nodeLease.claim(nodeName, null, clock.instant().plus(settings.leaseDuration()), false);
        if (claim instanceof LeaseHeldElsewhere elsewhere) {
            forgetDrain(nodeName);
            metrics.nodeLeft(nodeName);
            events.emit(
                    true,
                    MaintenanceEvents.NODE_LEFT_TO_HOLDER,
                    "lease " + key + " is held by " + elsewhere.holder() + "; node " + nodeName
                            + " is left as that maintenance needs it (not uncordoned)");
            return;
        }
        WorkFence.bounded(nodeLeaseBound(key, nodeLease.sendUntil(claim.held().orElseThrow())), () -> {
            restoreNode(nodeName, events);
            return null;
        });
        nodeLease.release(nodeName);
    }

    /**
     * The undo without the lease (for a front door that keeps the lease itself): restores the node's prior
     * state, removes our condition and forgets the drain's PDB refusals. Idempotent; a no-op when the node
     * is gone; throws on API errors so the caller retries.
     */
    public void restoreNode(String nodeName, MaintenanceEvents events) {
        boolean restored = cordon.unmark(nodeName);
        if (restored) {
            events.emit(
                    false,
                    MaintenanceEvents.UNCORDONED,
                    "node " + nodeName + " restored to its state before maintenance (taints and condition removed)");
        }
        forgetDrain(nodeName);
        metrics.nodeLeft(nodeName);
    }

    /** Drops the drain's pacing memory of a node (PDB refusals, last batch). */
    private void forgetDrain(String nodeName) {
        refusedUntil.remove(nodeName);
        lastBatchAt.remove(nodeName);
    }

    /** Called when the maintenance is forgotten (deleted): drops per-node metrics. */
    public void forget(String maintenance, String nodeName) {
        metrics.forget(maintenance, nodeName);
        forgetDrain(nodeName);
    }

    private Step nodeMissing(
            String nodeName,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            Instant now,
            MaintenanceEvents events) {
        if (prior.holdsNode()) {
            // Deleted mid-maintenance: nothing left to drain or restore; give the lease back.
            heartbeats.stop(nodeLease.keyOf(nodeName));
            try {
                nodeLease.release(nodeName);
            } catch (LeaseStoreException | KubernetesClientException e) {
                LOG.debugf(e, "releasing lease of deleted node %s", nodeName);
            }
            forgetDrain(nodeName);
            metrics.nodeLeft(nodeName);
            s.leaseAcquiredAt(null)
                    .cordonedAt(null)
                    .nodeGone(true)
                    .lease(null)
                    .pendingPods(List.of())
                    .pendingPodsRefs(List.of());
            if (prior.phase() == Phase.Succeeded) {
                // Drain, then delete the node: the usual decommission, and a clean end.
                events.emit(
                        false,
                        MaintenanceEvents.NODE_DELETED,
                        "node " + nodeName
                                + " was deleted after its drain succeeded; maintenance ended, lease released");
                return new Step(s.phase(Phase.Ended).lastError(null).build(), Optional.empty());
            }
            String message = "node " + nodeName + " was deleted during maintenance";
            events.emit(true, MaintenanceEvents.FAILED, message);
            return new Step(s.phase(Phase.Failed).lastError(message).build(), Optional.empty());
        }
        if (prior.nodeGone()) {
            return new Step(prior, Optional.empty()); // already reported: the node was deleted during maintenance
        }
        return new Step(
                s.phase(Phase.Failed)
                        .lastError("spec.nodeName: node " + nodeName + " not found")
                        .build(),
                Optional.of(NODE_MISSING_RETRY));
    }

    private Step waitForLease(
            MaintenanceRequest request,
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

    /**
     * Keeps a lease without a window renewed between reconciles (kubelet node-lease parity, election
     * core {@link Heartbeat}); idempotent, and restarted by the next reconcile after an operator restart.
     * A windowed lease is not renewed: its expiry is the end of the window (plus padding) by design.
     */
    private void keepRenewed(LeaseKey key, String nodeName, String nodeUid) {
        heartbeats.ensureStarted(Heartbeat.builder()
                .lease(key)
                .holder(settings.holder())
                .leaseDuration(settings.leaseDuration())
                .owner(() -> Optional.of(LeaseOwner.node(nodeName, nodeUid)))
                .store(leases)
                .scheduler(heartbeatScheduler)
                .clock(clock)
                .random(new java.util.Random())
                .futureTolerance(NodeLease.FUTURE_TOLERANCE)
                .onHeldElsewhere(h ->
                        LOG.warnf("lease %s of node %s in maintenance is now held by %s", key, nodeName, h.holder()))
                .onRepeatedFailure(
                        e -> LOG.warnf("renewing lease %s of node %s keeps failing: %s", key, nodeName, e.getMessage()))
                .build());
    }

    /** Stops all heartbeats without releasing (shutdown: the leases expire by themselves). */
    public void close() {
        heartbeats.close();
    }

    /** Authority view of the kubelet's node lease: a stale one means terminating pods there never finish. */
    private boolean kubeletStale(String nodeName, Instant now) {
        Optional<LeaseRecord> kubelet = leases.find(LeaseKey.of(KUBELET_LEASE_NAMESPACE, nodeName));
        if (kubelet.isEmpty()) {
            return false; // unknown (e.g. no node leases in this cluster): wait, as kubectl does
        }
        AuthorityStatus status = LeaseRules.authorityStatus(kubelet.get(), now, NodeLease.FUTURE_TOLERANCE);
        return status instanceof AuthorityStatus.Expired;
    }

    private Duration renewIn(MaintenanceRequest request, MaintenanceState prior, Instant now) {
        return MaintenancePlanner.renewIn(request, prior, settings, now);
    }

    private static LeaseStatus leaseStatus(LeaseKey key, LeaseRecord r) {
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
