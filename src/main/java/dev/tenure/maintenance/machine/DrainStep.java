package dev.tenure.maintenance.machine;

import dev.tenure.election.AuthorityStatus;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseRules;
import dev.tenure.election.LeaseStore;
import dev.tenure.election.LeaseStoreException;
import dev.tenure.maintenance.api.DrainPlanStatus;
import dev.tenure.maintenance.api.Evacuation;
import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.TimeoutOutcome;
import dev.tenure.maintenance.drain.BlockedPods;
import dev.tenure.maintenance.drain.BudgetRelease;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.maintenance.drain.DrainPacing;
import dev.tenure.maintenance.drain.DrainPlan;
import dev.tenure.maintenance.drain.DrainPlan.Action;
import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import dev.tenure.maintenance.drain.DrainPreview;
import dev.tenure.maintenance.drain.DrainReport;
import dev.tenure.maintenance.drain.DrainWaves;
import dev.tenure.maintenance.drain.PodDrain;
import dev.tenure.maintenance.drain.PodFilters;
import dev.tenure.maintenance.machine.MaintenanceMachine.Step;
import dev.tenure.maintenance.machine.MaintenanceMetrics.EvictionResult;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Step 4 of the machine, the drain (kubectl drain parity): one bounded step per call — observe the pods, plan
 * ({@link DrainPlan}, waves), decide ({@link MaintenancePlanner#drain}), send one batch — then on to the wait for
 * volumes to detach ({@link VolumeStep}), and the read-only preview. The only memory it keeps paces the drain: when a PodDisruptionBudget last
 * refused a pod (kubectl keeps the same in its retry loop) and when the node's last batch went out.
 *
 * <p>At a stage's timeout ({@code spec.drain.timeout}, {@code waitCompletedTimeout}) its {@code onTimeout} decides ({@link MaintenanceStages#atTimeout}): Fail, Proceed, or Restore through the machine's undo
 * ({@link TimeoutRestore}).
 *
 * <p>One file at ~500 lines, on purpose: the drain and the preview read one observation of the node through the same
 * pacing memory, and the drain's two timeouts end in one of the same three outcomes; the planning itself is in the
 * drain room.
 */
public final class DrainStep {

    static final String KUBELET_LEASE_NAMESPACE = "kube-node-lease";
    static final Duration NODE_MISSING_RETRY = Duration.ofSeconds(30);
    /** A preview is recomputed this often: pods come and go on the node meanwhile. */
    static final Duration PREVIEW_REFRESH = Duration.ofSeconds(30);

    private final KubernetesClient client;
    private final LeaseStore leases;
    private final PodDrain drain;
    private final MaintenanceMetrics metrics;
    private final MaintenanceSettings settings;
    /** Node → pod uid → its last eviction a budget refused, and when it may be tried again ({@link BudgetRelease}). */
    private final Map<String, Map<String, BudgetRelease.Refusal>> refusedUntil = new ConcurrentHashMap<>();
    /**
     * Budget ("namespace/name") → when it last freed evictions ({@link #budgetFreed}), for a refusal recorded after the
     * change that freed it (the change came while its eviction was on the way): bounded, the most recent kept.
     */
    private final Map<String, Instant> lastFreed =
            java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>() {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Instant> eldest) {
                    return size() > REMEMBERED_FREED;
                }
            });

    static final int REMEMBERED_FREED = 1024;
    private final Map<String, Instant> lastBatchAt = new ConcurrentHashMap<>();
    /** Node → pod uid → the pod's failed evictions in a row and when it may be evicted again (its back-off). */
    private final Map<String, Map<String, DrainPacing.Backoff>> failedUntil = new ConcurrentHashMap<>();

    /** The machine's undo at a timeout whose outcome is Restore ({@link NodeRestore#endAfterTimeout}). */
    @FunctionalInterface
    interface TimeoutRestore {
        Step restore(MaintenanceRequest request, MaintenanceState.Builder s, String timedOut, MaintenanceEvents events);
    }

    private final TimeoutRestore restore;
    private final VolumeStep volumeStep;
    private final SurgeReads surges;
    private final SurgeAccess surgeAccess;
    private final SurgeStep surgeStep;

    /**
     * The pods on the node, the plan made of them, and why each pod the drain waits on is still there ("ns/name" →
     * its {@link BlockedPods.Blocked}; only pods something holds).
     */
    private record Observation(List<Pod> pods, DrainPlan plan, Map<String, BlockedPods.Blocked> blocked) {

        Map<String, String> why() {
            return blocked.entrySet().stream()
                    .collect(Collectors.toMap(
                            Map.Entry::getKey, e -> e.getValue().why()));
        }
    }

    DrainStep(
            KubernetesClient client,
            LeaseStore leases,
            PodDrain drain,
            MaintenanceMetrics metrics,
            MaintenanceSettings settings,
            TimeoutRestore restore) {
        this.restore = restore;
        this.volumeStep = new VolumeStep(drain, settings, restore);
        this.surgeAccess = new SurgeAccess(client);
        this.surges = new SurgeReads(client, surgeAccess);
        this.surgeStep = new SurgeStep(client, drain, surges, metrics);
        this.client = client;
        this.leases = leases;
        this.drain = drain;
        this.metrics = metrics;
        this.settings = settings;
    }

    /**
     * One bounded drain step: observe, record the progress, decide, act; {@code forecast}: the placement forecast a
     * surge consults before it is recorded ({@link SurgeStep.Forecast#NONE}: none).
     */
    Step step(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            Instant now,
            MaintenanceEvents events,
            SurgeStep.Forecast forecast) {
        String nodeName = request.nodeName();
        DrainOptions options = request.drain();
        if (s.drainStartedAt == null && options.evacuation() == Evacuation.Surge) {
            // without the opt-in role the drain goes on as Evict: said once, never a failure mid-drain
            Optional<String> missing = request.owner().isEmpty()
                    ? Optional.of("only a NodeMaintenance surges (not the node annotation)")
                    : surgeAccess.missing(now);
            missing.ifPresent(why -> events.emit(
                    true,
                    MaintenanceEvents.DRAIN_WARNING,
                    "spec.drain.evacuation Surge unavailable (" + why + "; bind the ClusterRole tenure-operator-surge"
                            + " to the operator's account): the drain of node " + nodeName + " evicts as Evict"));
        }
        Instant started = Optional.ofNullable(s.drainStartedAt).orElse(now);
        s.drainStartedAt(started);
        Observation seen;
        try {
            seen = observe(nodeName, options, now);
        } catch (KubernetesClientException | LeaseStoreException e) {
            return new Step(
                    s.lastError("listing pods on node " + nodeName + ": " + e.getMessage())
                            .build(),
                    Optional.of(settings.drainPollInterval()));
        }
        seen = passWaitCompleted(request, prior, s, seen, started, now, events);
        int evictionPods = recordProgress(nodeName, prior, s, seen, now, events);
        MaintenancePlanner.DrainVerdict verdict = MaintenancePlanner.drain(
                nodeName, seen.plan(), options, evictionPods, started, settings.evictionParallelism(), now, seen.why());
        if (options.evacuation() == Evacuation.Surge || !prior.surges().isEmpty()) {
            boolean ending = verdict instanceof MaintenancePlanner.DrainVerdict.TimedOut
                    || verdict instanceof MaintenancePlanner.DrainVerdict.WaitCompletedTimedOut
                    || verdict instanceof MaintenancePlanner.DrainVerdict.Refused;
            SurgeStep.Surging surging = surgeStep.advance(
                    request, prior, s, seen.pods(), seen.plan(), seen.blocked(), ending, forecast, now, events);
            if (surging.inFlight() && (ending || verdict instanceof MaintenancePlanner.DrainVerdict.Complete)) {
                // a surge's replicas are given back before the drain ends, whichever way it ends: looked at again soon
                return new Step(s.phase(Phase.Running).build(), Optional.of(settings.drainPollInterval()));
            }
            if (!surging.held().isEmpty() && verdict instanceof MaintenancePlanner.DrainVerdict.Send send) {
                // the eviction waits for the surge's new pods available (minReadySeconds), not only Ready
                List<PodVerdict> batch = send.batch().stream()
                        .filter(v -> !surging.held().contains(v.key()))
                        .toList();
                if (batch.isEmpty()) {
                    return new Step(s.phase(Phase.Running).build(), Optional.of(settings.drainPollInterval()));
                }
                verdict = new MaintenancePlanner.DrainVerdict.Send(batch, send.left());
            }
        }
        return act(request, prior, s, seen, verdict, started, now, events);
    }

    /**
     * Past {@code spec.drain.waitCompletedTimeout} with outcome Proceed: the WaitCompleted pods still running stop
     * holding the drain (left on the node, never evicted), said once by a Warning and in status.timeoutsPassed.
     */
    private Observation passWaitCompleted(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            Observation seen,
            Instant started,
            Instant now,
            MaintenanceEvents events) {
        DrainOptions options = request.drain();
        List<PodVerdict> running = seen.plan().with(Action.WAIT_COMPLETED);
        MaintenanceStages.AtTimeout at = MaintenanceStages.atTimeout(
                MaintenanceStages.TimedStage.WAIT_COMPLETED, options.waitCompletedOnTimeout(), false);
        if (running.isEmpty()
                || at.outcome() != TimeoutOutcome.Proceed
                || !MaintenancePlanner.waitCompletedTimedOut(options, started, now)) {
            return seen;
        }
        if (!prior.passed(MaintenanceStages.TimedStage.WAIT_COMPLETED)) {
            String left = "pods not evicted, left running: "
                    + String.join(
                            ", ",
                            DrainReport.listed(
                                    running.stream().map(PodVerdict::key).toList()));
            s.passedTimeout(MaintenanceStages.TimedStage.WAIT_COMPLETED, left);
            events.emit(
                    true,
                    at.event(),
                    "WaitCompleted pods on node " + request.nodeName() + " did not complete within "
                            + GoDuration.format(options.waitCompletedTimeout().orElseThrow())
                            + " (spec.drain.waitCompletedOnTimeout Proceed): the drain goes on without them; " + left);
        }
        return new Observation(seen.pods(), seen.plan().passingWaitCompleted(), seen.blocked());
    }

    /**
     * The pods a drain of the node would still wait on now, as {@code namespace/name} (empty: drained), or the
     * plan's refusal; read from the cluster, for checking a status that says the drain is done. WaitCompleted pods
     * whose timeout was passed ({@code prior}) are not waited on.
     */
    List<String> podsLeft(MaintenanceRequest request, MaintenanceState prior, Instant now) {
        DrainPlan plan = observe(request.nodeName(), request.drain(), now).plan();
        if (prior.passed(MaintenanceStages.TimedStage.WAIT_COMPLETED)) {
            plan = plan.passingWaitCompleted();
        }
        return plan.refused()
                ? plan.with(Action.REFUSE).stream().map(PodVerdict::key).toList()
                : plan.pending().stream().map(PodVerdict::key).toList();
    }

    private Observation observe(String nodeName, DrainOptions options, Instant now) {
        List<Pod> pods = drain.podsOn(nodeName);
        Map<String, BudgetRelease.Refusal> refused =
                refusedUntil.computeIfAbsent(nodeName, n -> new ConcurrentHashMap<>());
        Map<String, Instant> retryNotBefore = new java.util.HashMap<>();
        refused.forEach((uid, r) -> retryNotBefore.put(uid, r.retryAt()));
        DrainPlan.Observed observed = new DrainPlan.Observed(
                drain.existingDaemonSets(pods),
                kubeletStale(nodeName, now),
                settings.staleNodeSkipWait(),
                retryNotBefore,
                drain.refusals(),
                options.rules().readsNamespaces() ? drain.namespaceLabels(pods) : Map.of(),
                failedNotBefore(nodeName));
        DrainPlan plan = DrainPlan.of(pods, options, observed, now);
        return new Observation(pods, plan, blocked(plan, pods, observed));
    }

    /**
     * Why each pending pod something holds is still on the node ({@link BlockedPods}): its last refused eviction, the
     * budgets of its namespace (one LIST per namespace, only when a pod is held), a stale kubelet, a same-named pod
     * evicted before.
     */
    private Map<String, BlockedPods.Blocked> blocked(DrainPlan plan, List<Pod> pods, DrainPlan.Observed observed) {
        Map<String, String> evicted = drain.evicted();
        List<PodVerdict> held = plan.pending().stream()
                .filter(v -> v.refusal() != null
                        || observed.kubeletStale()
                        || (evicted.containsKey(v.key())
                                && !evicted.get(v.key()).equals(v.uid())))
                .toList();
        if (held.isEmpty()) {
            return Map.of();
        }
        Map<String, Pod> byKey = pods.stream()
                .collect(Collectors.toMap(
                        p -> p.getMetadata().getNamespace() + "/"
                                + p.getMetadata().getName(),
                        p -> p,
                        (a, b) -> a));
        Map<String, List<io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget>> budgets =
                drain.budgetsOf(held.stream()
                        .map(v -> byKey.get(v.key()))
                        .filter(java.util.Objects::nonNull)
                        .toList());
        Map<String, BlockedPods.Blocked> out = new java.util.LinkedHashMap<>();
        for (PodVerdict v : held) {
            Pod pod = byKey.get(v.key());
            if (pod == null) {
                continue;
            }
            BlockedPods.explain(
                            v,
                            pod,
                            v.refusal(),
                            budgets.getOrDefault(v.namespace(), List.of()),
                            observed.kubeletStale(),
                            evicted.get(v.key()))
                    .ifPresent(b -> out.put(v.key(), b));
        }
        return out;
    }

    private Map<String, Instant> failedNotBefore(String nodeName) {
        Map<String, DrainPacing.Backoff> failed = failedUntil.getOrDefault(nodeName, Map.of());
        Map<String, Instant> notBefore = new java.util.HashMap<>();
        failed.forEach((uid, b) -> notBefore.put(uid, b.notBefore()));
        return notBefore;
    }

    /**
     * The PodDisruptionBudgets ("namespace/name") whose last refusal of a pending pod's eviction holds it; a refusal
     * that names none (not kube-apiserver's wording) counts as {@value #UNNAMED_BUDGET} in its namespace.
     */
    static java.util.Set<String> blockingBudgets(List<PodVerdict> pending) {
        return blockingBudgets(pending, Map.of());
    }

    /** As above; a pod two budgets hold ({@link BlockedPods.Cause#TWO_BUDGETS}) counts both, as {@code blocked} names them. */
    static java.util.Set<String> blockingBudgets(List<PodVerdict> pending, Map<String, BlockedPods.Blocked> blocked) {
        java.util.Set<String> budgets = new java.util.TreeSet<>();
        for (PodVerdict v : pending) {
            if (v.refusal() == null) {
                continue;
            }
            BlockedPods.Blocked b = blocked.get(v.key());
            List<String> named = b != null && b.cause() == BlockedPods.Cause.TWO_BUDGETS
                    ? b.budgets().stream().map(BlockedPods.Budget::name).toList()
                    : v.blockingBudgets();
            if (named.isEmpty()) {
                budgets.add(v.namespace() + "/" + UNNAMED_BUDGET);
            } else {
                budgets.addAll(named);
            }
        }
        return budgets;
    }

    static final String UNNAMED_BUDGET = "(unnamed)";

    /** Counts, pending pods, progress and waves into the state, with their events and gauges; the eviction count. */
    private int recordProgress(
            String nodeName,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            Observation seen,
            Instant now,
            MaintenanceEvents events) {
        DrainPlan plan = seen.plan();
        int evictionPods = s.evictionPods == null ? plan.toDrainCount() : s.evictionPods;
        s.totalPods(s.totalPods == null ? seen.pods().size() : s.totalPods).evictionPods(evictionPods);
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
        DrainWaves waves = DrainWaves.of(plan, seen.why());
        s.waves(waves);
        Integer priorWave = prior.waves() == null ? null : prior.waves().current();
        if (waves.current() != null && !waves.current().equals(priorWave)) {
            events.emit(
                    false,
                    MaintenanceEvents.DRAIN_WAVE,
                    "draining wave " + DrainReport.wave(waves.current()) + " of node " + nodeName + " ("
                            + plan.currentWavePods().size() + " pod(s))"
                            + (waves.later().isEmpty()
                                    ? ""
                                    : "; then wave(s) "
                                            + waves.later().stream()
                                                    .map(DrainReport::wave)
                                                    .collect(Collectors.joining(", "))));
        }
        metrics.pendingPods(nodeName, pending.size());
        metrics.blocking(nodeName, MaintenanceMetrics.BlockerKind.pdb, blockingBudgets(pending, seen.blocked()), now);
        Map<String, String> uids = new java.util.HashMap<>();
        pending.forEach(v -> uids.put(v.key(), v.uid() == null ? v.key() : v.uid()));
        List<BlockedPods.Blocked> newlyBlocked =
                drain.firstBlocked(uids, List.copyOf(seen.blocked().values()));
        if (!newlyBlocked.isEmpty()) {
            events.emit(
                    true,
                    MaintenanceEvents.DRAIN_BLOCKED,
                    "drain of node " + nodeName + " waits on: "
                            + String.join(
                                    "; ",
                                    DrainReport.listed(newlyBlocked.stream()
                                            .map(BlockedPods.Blocked::shown)
                                            .toList())));
        }
        List<String> labelWarnings = drain.firstWarnings(plan.warnings());
        if (!labelWarnings.isEmpty()) {
            events.emit(true, MaintenanceEvents.DRAIN_WARNING, String.join("; ", labelWarnings));
        }
        MaintenancePlanner.stuckTerminating(nodeName, drain.firstReports(plan.stuckTerminating()))
                .ifPresent(m -> events.emit(true, MaintenanceEvents.STUCK_TERMINATING, m));
        return evictionPods;
    }

    /** What the verdict asks for: an end (failed, drained, or on to the volumes), or one batch sent. */
    private Step act(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            Observation seen,
            MaintenancePlanner.DrainVerdict verdict,
            Instant started,
            Instant now,
            MaintenanceEvents events) {
        String nodeName = request.nodeName();
        Duration renewIn = MaintenancePlanner.renewIn(request, prior, settings, now);
        if (verdict instanceof MaintenancePlanner.DrainVerdict.Refused refused) {
            events.emit(true, MaintenanceEvents.FAILED, refused.message());
            return new Step(s.phase(Phase.Failed).lastError(refused.message()).build(), Optional.of(renewIn));
        } else if (verdict instanceof MaintenancePlanner.DrainVerdict.Complete complete) {
            return drained(request, prior, s, started, now, events, complete.message(), false);
        } else if (verdict instanceof MaintenancePlanner.DrainVerdict.WaitCompletedTimedOut timedOut) {
            // Proceed never gets here: the pods were passed before planning (passWaitCompleted)
            MaintenanceStages.AtTimeout at = MaintenanceStages.atTimeout(
                    MaintenanceStages.TimedStage.WAIT_COMPLETED, request.drain().waitCompletedOnTimeout(), false);
            if (at.restoresNode()) {
                forget(nodeName);
                return restore.restore(
                        request, s, timedOut.message() + " (spec.drain.waitCompletedOnTimeout Restore)", events);
            }
            String failed = timedOut.message() + " (" + MaintenanceStages.TimedStage.WAIT_COMPLETED.field() + " Fail)";
            events.emit(true, at.event(), failed);
            return new Step(s.phase(at.phase()).lastError(failed).build(), Optional.of(renewIn));
        } else if (verdict instanceof MaintenancePlanner.DrainVerdict.TimedOut timedOut) {
            MaintenanceStages.AtTimeout at = MaintenanceStages.atTimeout(
                    MaintenanceStages.TimedStage.DRAIN,
                    request.drain().onTimeout(),
                    request.drain().volumeDetach().enabled());
            if (at.restoresNode()) {
                forget(nodeName);
                return restore.restore(request, s, timedOut.message() + " (spec.drain.onTimeout Restore)", events);
            } else if (at.outcome() == TimeoutOutcome.Proceed) {
                String left = "pods not evicted: "
                        + String.join(
                                ", ",
                                DrainReport.listed(seen.plan().pending().stream()
                                        .map(v -> v.key() + " (" + DrainReport.describe(v, seen.why()) + ")")
                                        .toList()));
                s.passedTimeout(MaintenanceStages.TimedStage.DRAIN, left);
                events.emit(
                        true,
                        at.event(),
                        timedOut.message() + " (spec.drain.onTimeout Proceed): going on as drained; " + left);
                return drained(request, prior, s, started, now, events, timedOut.message(), true);
            }
            String failed = timedOut.message() + " (" + MaintenanceStages.TimedStage.DRAIN.field() + " Fail)";
            events.emit(true, at.event(), failed);
            return new Step(s.phase(at.phase()).lastError(failed).build(), Optional.of(renewIn));
        }
        MaintenancePlanner.DrainVerdict.Send send = (MaintenancePlanner.DrainVerdict.Send) verdict;
        return send(request, prior, s, seen, send, started, now, events);
    }

    /** The drain is over (complete, or its timeout passed: {@code passed}): on to the volumes, or Succeeded. */
    private Step drained(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            Instant started,
            Instant now,
            MaintenanceEvents events,
            String message,
            boolean passed) {
        metrics.drained(Duration.between(started, now));
        forget(request.nodeName());
        if (request.drain().volumeDetach().enabled()) {
            s.phase(Phase.Running).drainedAt(now).drainProgress(100).lastError(null);
            return volumeStep.volumes(request, prior, s, now, now, events);
        }
        if (!passed) {
            events.emit(false, MaintenanceEvents.SUCCEEDED, message);
        }
        return new Step(
                s.phase(Phase.Succeeded)
                        .drainedAt(now)
                        .drainProgress(passed ? s.drainProgress : 100)
                        .lastError(null)
                        .build(),
                Optional.of(MaintenancePlanner.renewIn(request, prior, settings, now)));
    }

    /** Sends one batch of evictions (or deletions) and records what came back. */
    private Step send(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            Observation seen,
            MaintenancePlanner.DrainVerdict.Send send,
            Instant started,
            Instant now,
            MaintenanceEvents events) {
        String nodeName = request.nodeName();
        DrainOptions options = request.drain();
        List<String> removedKeys = new ArrayList<>();
        String error = null;
        String blocked = null;
        boolean removed = false;
        Map<String, BudgetRelease.Refusal> refused =
                refusedUntil.computeIfAbsent(nodeName, n -> new ConcurrentHashMap<>());
        Map<String, DrainPacing.Backoff> failed = failedUntil.computeIfAbsent(nodeName, n -> new ConcurrentHashMap<>());
        List<String> notSent = new ArrayList<>();
        String notSentWhy = null;
        for (PodDrain.Outcome outcome : drain.remove(send.batch(), options)) {
            String uid = outcome.pod().uid();
            Optional<DrainPacing.Backoff> backoff = Optional.empty();
            if (uid != null) {
                // an error starts or lengthens the pod's back-off, an answer ends it, a refusal by the fence leaves it
                backoff = DrainPacing.after(
                        Optional.ofNullable(failed.get(uid)),
                        outcome.attempt(),
                        outcome.retryAfter(),
                        settings.drainPollInterval(),
                        now);
                backoff.ifPresentOrElse(b -> failed.put(uid, b), () -> failed.remove(uid));
            }
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
                        refused.put(outcome.pod().uid(), refusal(outcome, options, now));
                    }
                    blocked = "eviction of pod " + outcome.pod().key() + " refused: " + outcome.message()
                            + "; retrying every " + GoDuration.format(options.evictionRetryDelay());
                    events.emit(true, MaintenanceEvents.EVICTION_BLOCKED, blocked);
                }
                case NOT_SENT -> {
                    // the step outlived the lease it sends under: not the API failing, so no back-off; still to send
                    notSent.add(outcome.pod().key());
                    notSentWhy = outcome.message();
                }
                case FAILED -> {
                    metrics.eviction(EvictionResult.error);
                    error = "removing pod " + outcome.pod().key() + ": " + outcome.message();
                    if (backoff.isPresent()) {
                        error += "; retrying in "
                                + GoDuration.format(
                                        Duration.between(now, backoff.get().notBefore()));
                    }
                }
            }
        }
        if (removed) {
            lastBatchAt.put(nodeName, now);
        }
        warnAboutRemovals(seen.pods(), removedKeys, events);
        s.drainedWorkloads(s.drainedWorkloads.with(seen.pods().stream()
                .filter(p -> removedKeys.contains(
                        p.getMetadata().getNamespace() + "/" + p.getMetadata().getName()))
                .toList()));
        DrainPacing.Progress progress = new DrainPacing.Progress(
                send.left() + notSent.size(),
                error != null,
                removed || !seen.plan().with(Action.WAIT_TERMINATING).isEmpty(),
                Optional.ofNullable(lastBatchAt.get(nodeName)),
                java.util.stream.Stream.concat(
                                refused.values().stream().map(BudgetRelease.Refusal::retryAt),
                                failed.values().stream().map(DrainPacing.Backoff::notBefore))
                        .filter(now::isBefore)
                        .min(Instant::compareTo),
                options.timeout().map(started::plus),
                !notSent.isEmpty());
        Duration next = DrainPacing.next(progress, settings.drainPollInterval(), now);
        String lastError = MaintenancePlanner.lastErrorAfterBatch(error, blocked, removed, prior.lastError());
        if (lastError == null && notSentWhy != null) {
            lastError = notSentWhy + ": the eviction of " + notSent.get(0)
                    + (notSent.size() > 1 ? " and " + (notSent.size() - 1) + " more" : "")
                    + " is left to the next step, in " + GoDuration.format(next)
                    + " (no back-off: the API server did not fail it)";
        }
        s.phase(Phase.Running).lastError(lastError);
        return new Step(s.build(), Optional.of(next));
    }

    /**
     * A budget's refusal of {@code outcome}'s eviction, sent in the step of {@code now}: tried again after {@code
     * spec.drain.evictionRetryDelay}, or sooner when one of the budgets its 429 names frees an eviction ({@link
     * #budgetFreed}); at the next look when one did so while the eviction was on the way.
     */
    private BudgetRelease.Refusal refusal(PodDrain.Outcome outcome, DrainOptions options, Instant now) {
        List<String> budgets = DrainPlan.budgetsNamed(outcome.pod().namespace(), outcome.message());
        BudgetRelease.Refusal refusal = new BudgetRelease.Refusal(now, now.plus(options.evictionRetryDelay()), budgets);
        boolean freedMeanwhile = budgets.stream().map(lastFreed::get).anyMatch(at -> at != null && !at.isBefore(now));
        return freedMeanwhile ? refusal.retryFrom(now.plus(DrainPacing.FIRST_LOOK)) : refusal;
    }

    /**
     * A PodDisruptionBudget ("namespace/name") that refused evictions now admits {@code admits} of them ({@link
     * BudgetRelease#frees}): the pods it refused are free to be tried again at once, oldest refusal first, as many as
     * it admits ({@link BudgetRelease#released}); the retry timer stays the fallback. Memory only: the caller wakes the
     * maintenances of the nodes returned, whose next step (under the operator's fence, as every drain step) sends them.
     *
     * @return the nodes with a pod freed to go now
     */
    java.util.Set<String> budgetFreed(String budget, int admits, Instant now) {
        if (admits <= 0) {
            return java.util.Set.of();
        }
        lastFreed.put(budget, now);
        java.util.Set<String> nodes = new java.util.TreeSet<>();
        refusedUntil.forEach((node, refused) -> {
            for (String uid : BudgetRelease.released(refused, budget, admits, now)) {
                refused.computeIfPresent(uid, (k, r) -> r.retryFrom(now));
                nodes.add(node);
            }
        });
        return nodes;
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
                .filter(p -> PodFilters.controllerOf(p) == null)
                .map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())
                .toList();
        List<String> localData = removed.stream()
                .filter(PodFilters::hasEmptyDir)
                .map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())
                .toList();
        List<String> parts = new ArrayList<>();
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
     * {@code spec.preview}: the plan the drain would follow on the node now, each pod with its behaviour, wave and the
     * PodDisruptionBudgets that would refuse its eviction. Reads only: no lease, no cordon, no eviction.
     */
    Step preview(MaintenanceRequest request, MaintenanceState prior, Instant now) {
        return preview(request, prior, now, Map.of());
    }

    /**
     * As {@link #preview(MaintenanceRequest, MaintenanceState, Instant)}; with {@code spec.drain.evacuation: Surge},
     * each pod waiting on its budget also says whether it can surge ({@link SurgeReads}).
     *
     * @param fits the placement forecast's verdicts by "namespace/name" (empty: none made)
     */
    Step preview(
            MaintenanceRequest request,
            MaintenanceState prior,
            Instant now,
            Map<String, dev.tenure.placement.PlacementForecast.Verdict> fits) {
        String nodeName = request.nodeName();
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
            var budgets = drain.budgetsOf(pods);
            List<DrainPlanStatus.PlannedPod> planned = DrainPreview.of(plan, pods, budgets, options, now);
            if (options.evacuation() == Evacuation.Surge) {
                planned = DrainPreview.withSurges(planned, surges.decide(plan, pods, planned, budgets, fits, now));
            }
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

    /**
     * The pods the drain of the node would remove now ({@code podsOnNode}: the node's pods, as listed), in the order it
     * removes them: the same {@link DrainPlan} the drain runs, its drained pods by wave ascending, then by name. For the
     * placement forecast made before the cordon ({@link PlacementStep}).
     */
    List<Pod> evictions(MaintenanceRequest request, List<Pod> podsOnNode, Instant now) {
        DrainOptions options = request.drain();
        DrainPlan plan = DrainPlan.of(
                podsOnNode,
                options,
                new DrainPlan.Observed(
                        drain.existingDaemonSets(podsOnNode),
                        kubeletStale(request.nodeName(), now),
                        settings.staleNodeSkipWait(),
                        Map.of(),
                        Map.of(),
                        options.rules().readsNamespaces() ? drain.namespaceLabels(podsOnNode) : Map.of()),
                now);
        Map<String, Pod> byKey = new java.util.HashMap<>();
        podsOnNode.forEach(p ->
                byKey.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p));
        return plan.verdicts().stream()
                .filter(PodVerdict::drained)
                .sorted(java.util.Comparator.comparingInt(PodVerdict::wave).thenComparing(PodVerdict::key))
                .map(v -> byKey.get(v.key()))
                .filter(java.util.Objects::nonNull)
                .toList();
    }

    /** The surge's act, for the end of a maintenance deleted mid-surge. */
    SurgeStep surgeStep() {
        return surgeStep;
    }

    /** The wait for volumes to detach, after this drain. */
    VolumeStep volumeStep() {
        return volumeStep;
    }

    /** Drops the drain's pacing memory of a node (PDB refusals, last batch). */
    void forget(String nodeName) {
        refusedUntil.remove(nodeName);
        failedUntil.remove(nodeName);
        lastBatchAt.remove(nodeName);
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
}
