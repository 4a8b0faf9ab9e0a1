package dev.tenure.maintenance.door;

import dev.tenure.kube.WholeStatus;
import dev.tenure.maintenance.admission.NodesMaintainedElsewhere;
import dev.tenure.maintenance.api.DrainPlanStatus;
import dev.tenure.maintenance.api.Evacuation;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.PlacementStatus;
import dev.tenure.maintenance.api.SurgeStatus;
import dev.tenure.maintenance.drain.DrainReport;
import dev.tenure.maintenance.machine.EventRecorder;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceHooks;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.PlacementGate;
import dev.tenure.maintenance.machine.PlacementView;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * The NodeMaintenance door's act step: carries out a {@link DoorDecision} — the machine step it asks for, its events,
 * the status write (only when the status differs), the phase metric — and says when to look again.
 */
final class DoorActs {

    private static final Logger LOG = Logger.getLogger(NodeMaintenanceReconciler.class);
    /** A step or an undo that failed on API trouble the machine did not expect is tried again this soon. */
    static final Duration END_RETRY = Duration.ofSeconds(5);
    /** Reasons worth seeing on the Node itself too (kubectl describe node). */
    private static final Set<String> NODE_REASONS = Set.of(
            MaintenanceEvents.CORDONED,
            MaintenanceEvents.NODE_LEFT_TO_HOLDER,
            MaintenanceEvents.UNCORDONED,
            MaintenanceEvents.KEPT_CORDONED,
            MaintenanceEvents.BEGIN,
            MaintenanceEvents.SUCCEEDED);

    private final MaintenanceMachine machine;
    private final KubernetesClient client;
    private final EventRecorder recorder;
    private final MaintenanceMetrics metrics;
    private final OwnStatusWrites ownWrites;
    private final Clock clock;
    /** What the placement forecast of a maintenance reads besides its pods (the caches); empty: no forecast. */
    private final Function<NodeMaintenance, Optional<PlacementView>> placementViews;
    /** The other door's active requests, node by node: a maintenance that ends by itself hands its node over. */
    private final NodesMaintainedElsewhere elsewhere;

    DoorActs(
            MaintenanceMachine machine,
            KubernetesClient client,
            EventRecorder recorder,
            MaintenanceMetrics metrics,
            OwnStatusWrites ownWrites,
            Clock clock) {
        this(machine, client, recorder, metrics, ownWrites, clock, nm -> Optional.empty(), Map::of);
    }

    DoorActs(
            MaintenanceMachine machine,
            KubernetesClient client,
            EventRecorder recorder,
            MaintenanceMetrics metrics,
            OwnStatusWrites ownWrites,
            Clock clock,
            Function<NodeMaintenance, Optional<PlacementView>> placementViews,
            NodesMaintainedElsewhere elsewhere) {
        this.placementViews = placementViews;
        this.elsewhere = elsewhere;
        this.machine = machine;
        this.client = client;
        this.recorder = recorder;
        this.metrics = metrics;
        this.ownWrites = ownWrites;
        this.clock = clock;
    }

    /**
     * Carries out what one reconcile decided about {@code nm}, observed at {@code began}; {@code statusOurs}: its
     * status is this reconciler's own write (else a record only, re-derived before the machine moves on).
     */
    UpdateControl<NodeMaintenance> reconcile(
            NodeMaintenance nm, boolean statusOurs, DoorDecision decision, Instant began) {
        if (decision instanceof DoorDecision.Unchanged) {
            return UpdateControl.noUpdate();
        }
        if (decision instanceof DoorDecision.Preview preview) {
            return preview(nm, preview);
        }
        if (decision instanceof DoorDecision.Advance advance) {
            return advance(nm, statusOurs, advance, began);
        }
        DoorDecision.Settled settled = (DoorDecision.Settled) decision;
        waitMetrics(nm.getMetadata().getName(), settled, began);
        emit(nm, settled.nodeName(), settled.events());
        if (settled instanceof DoorDecision.LeaveShare) {
            writeStatus(nm, settled.status()); // a fresh status: written even when it equals the last one
        } else if (settled instanceof DoorDecision.Join) {
            metrics.phase(nm.getMetadata().getName(), settled.status().getPhase());
            writeChanged(nm, settled.status());
        } else {
            finish(nm, settled.nodeName(), settled.status());
        }
        return lookAgain(settled.look());
    }

    /** The queue and window waits before the machine runs: one begins, or the wait ends as the decision says. */
    private void waitMetrics(String maintenance, DoorDecision.Settled settled, Instant now) {
        if (settled instanceof DoorDecision.Hold) {
            metrics.waitingIn(maintenance, MaintenanceMetrics.StageLabel.queue, now);
        } else if (settled instanceof DoorDecision.Scheduled) {
            metrics.waitingIn(maintenance, MaintenanceMetrics.StageLabel.window_wait, now);
        } else if (settled instanceof DoorDecision.Refuse) {
            metrics.waitEnded(maintenance, MaintenanceMetrics.StageOutcome.fail, now);
        } else if (settled instanceof DoorDecision.Join) {
            metrics.waitEnded(maintenance, MaintenanceMetrics.StageOutcome.completed, now);
        }
    }

    /** Carries out what one cleanup decided. */
    DeleteControl cleanup(NodeMaintenance nm, DoorDecision.Cleanup decision, Optional<String> handTo) {
        if (decision instanceof DoorDecision.KeepNode keep) {
            if (keep.status().getNodeName() != null) {
                machine.heldAtDeletion(keep.status().getNodeName(), keep.state());
            }
            emit(nm, keep.status().getNodeName(), keep.events());
            writeChanged(nm, keep.status());
            return DeleteControl.noFinalizerRemoval().rescheduleAfter(keep.look());
        }
        if (decision instanceof DoorDecision.Forget forget) {
            return forget(nm, forget.nodeName(), forget.forget());
        }
        DoorDecision.End end = (DoorDecision.End) decision;
        MaintenanceEvents events = eventsFor(nm, end.nodeName());
        end.before().forEach(e -> emit(events, e));
        if (!surgesGivenBack(nm, end.nodeName(), events)) {
            return DeleteControl.noFinalizerRemoval().rescheduleAfter(END_RETRY);
        }
        Optional<String> left;
        try {
            left = machine.end(end.nodeName(), events, handTo);
        } catch (RuntimeException e) {
            LOG.warnf(
                    "NodeMaintenance %s: ending maintenance of node %s failed, retrying: %s",
                    nm.getMetadata().getName(), end.nodeName(), e.getMessage());
            return DeleteControl.noFinalizerRemoval().rescheduleAfter(END_RETRY);
        }
        // the object outlives our finalizer (another controller's holds it): its status says what is true now
        end.ended().ifPresent(ended -> {
            left.ifPresent(ended::setLastError);
            writeChanged(nm, ended);
        });
        // never "out of maintenance" for a restore that did not happen
        events.emit(
                left.isPresent(),
                MaintenanceEvents.REMOVED,
                left.map(l -> "NodeMaintenance " + nm.getMetadata().getName() + " removed; " + l)
                        .orElse(handTo.map(to ->
                                        "NodeMaintenance " + nm.getMetadata().getName() + " removed; node "
                                                + end.nodeName() + " stays in maintenance for " + to)
                                .orElse(end.removed())));
        return forget(nm, end.nodeName(), end.forget());
    }

    private DeleteControl forget(NodeMaintenance nm, String nodeName, DoorDecision.Forgetting forget) {
        metrics.waitEnded(nm.getMetadata().getName(), MaintenanceMetrics.StageOutcome.deleted, clock.instant());
        if (!forget.node().isEmpty()) {
            forget.last().ifPresent(last -> machine.deleted(forget.node(), last, forget.hooksTimeout()));
        }
        machine.forget(nm.getMetadata().getName(), forget.node());
        LOG.infof("NodeMaintenance %s (node %s) removed", nm.getMetadata().getName(), nodeName);
        return DeleteControl.defaultDelete();
    }

    private UpdateControl<NodeMaintenance> advance(
            NodeMaintenance nm, boolean statusOurs, DoorDecision.Advance advance, Instant began) {
        metrics.waitEnded(nm.getMetadata().getName(), MaintenanceMetrics.StageOutcome.completed, began);
        MaintenanceEvents events = eventsFor(nm, advance.nodeName());
        MaintenanceMachine.Step step;
        try {
            MaintenanceRequest request = advance.admit()
                    .request()
                    .withHooks(advance.admit().request().hooks().withAnnotations(hookAnnotations(nm)))
                    .withOwner(nm.getMetadata().getUid(), nm.getMetadata().getName());
            // a status this operator did not write is a record only: what it says was done is checked first
            MaintenanceState from = statusOurs ? advance.state() : machine.rederive(request, advance.state(), events);
            // a window's end (or a timeout that restores) while the other door's request for the node is active
            // hands the node over to it, as a deletion does (asked only then: it looks at every cached Node)
            step = machine.advance(
                    request,
                    from,
                    advance.admit().retryFailed(),
                    advance.node(),
                    placementViews.apply(nm),
                    () -> Optional.ofNullable(elsewhere.requested().get(advance.nodeName())),
                    events);
        } catch (RuntimeException e) {
            // API trouble the machine did not expect (e.g. reading the Node), or a bug: reported in status, logged
            // once per change, and counted as a failed reconcile (StepFailed below), retried with backoff
            StepErrors.Failed failed = StepErrors.of(advance.state(), e);
            LOG.logf(
                    failed.level(),
                    failed.withStack() ? e : null,
                    "NodeMaintenance %s: step failed: %s",
                    nm.getMetadata().getName(),
                    failed.error());
            step = failed.step();
        }
        advance.moveEvent().ifPresent(e -> emit(events, e));
        step = StepStatuses.withMoveNote(step, advance.admit().moved());
        List<DoorDecision.Event> overrun = new ArrayList<>();
        StepStatuses.Mapped mapped = StepStatuses.advanced(nm, advance, step, began, clock.instant(), overrun::add);
        overrun.forEach(e -> emit(events, e));
        boolean unchanged = mapped.status().equals(nm.getStatus());
        finish(nm, advance.nodeName(), mapped.status());
        if (unchanged && nm.getStatus() != null) {
            ownWrites.stoodBy(nm.getMetadata().getName(), nm.getStatus()); // checked by this step: ours from now on
        }
        if (step.failed().isPresent()) {
            // Reported in status above; the reconcile ends as what it is, an error: counted in the reconcile
            // metrics and retried with the controller's backoff (NodeMaintenanceReconciler#updateErrorStatus).
            throw new StepFailed(nm.getMetadata().getName(), step.failed().get());
        }
        return lookAgain(mapped.look());
    }

    /** A machine step whose write to the cluster failed; its status already says so. */
    static final class StepFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StepFailed(String maintenance, String failed) {
            super("NodeMaintenance " + maintenance + ": " + failed);
        }
    }

    private UpdateControl<NodeMaintenance> preview(NodeMaintenance nm, DoorDecision.Preview preview) {
        MaintenanceMachine.Step step;
        try {
            step = machine.preview(
                    MaintenanceRequest.from(nm.getSpec(), preview.nodeName()),
                    preview.state(),
                    placementViews.apply(nm));
        } catch (IllegalArgumentException e) {
            step = new MaintenanceMachine.Step(
                    preview.state().toBuilder()
                            .phase(Phase.Pending)
                            .lastError(e.getMessage())
                            .build(),
                    Optional.of(DoorDecisions.REFUSED_RETRY));
        }
        StepStatuses.Mapped mapped = StepStatuses.previewed(nm, preview, step, clock.instant());
        if (!mapped.status().equals(nm.getStatus())) {
            emitPreviewed(nm, preview.nodeName(), mapped.status());
        }
        PlacementStatus placement = mapped.status().getPlacement();
        if (placement != null
                && placement.stranded() > 0
                && !placement.equals(
                        nm.getStatus() == null ? null : nm.getStatus().getPlacement())) {
            // the forecast the maintenance would make before its cordon, said once per change as it would say it
            eventsFor(nm, preview.nodeName())
                    .emit(
                            true,
                            PlacementGate.WILL_NOT_FIT,
                            "preview: " + PlacementGate.conditionMessage(placement) + " (forecast for a cordon of node "
                                    + preview.nodeName() + "; spec.drain.placement " + placement.getPolicy() + ")");
        }
        writeChanged(nm, mapped.status());
        return lookAgain(mapped.look());
    }

    /**
     * A preview's new plan as an event on the NodeMaintenance, like every other outcome (the plan itself is in
     * status.drainPlan): a Warning when lastError names a pod the drain would refuse, or why there is no plan. Said
     * when the status changes, so a preview refreshed unchanged adds none.
     */
    private void emitPreviewed(NodeMaintenance nm, String nodeName, NodeMaintenanceStatus next) {
        DrainPlanStatus plan = next.getDrainPlan();
        int pods = plan == null || plan.getPods() == null
                ? 0
                : plan.getPods().size() + (plan.getPodsNotListed() == null ? 0 : plan.getPodsNotListed());
        String error = next.getLastError() == null || next.getLastError().isBlank() ? null : next.getLastError();
        eventsFor(nm, nodeName)
                .emit(
                        error != null,
                        MaintenanceEvents.PREVIEWED,
                        "dry run, nothing touched: the drain of node " + nodeName + " plans " + pods
                                + " pod(s), listed in status.drainPlan"
                                + (error == null ? "; set spec.preview to false to start it" : "; " + error));
    }

    /** The phase metric, a log line when the phase or the drain moved, and the status write when it differs. */
    private void finish(NodeMaintenance nm, String nodeName, NodeMaintenanceStatus next) {
        NodeMaintenanceStatus prior = nm.getStatus();
        metrics.phase(nm.getMetadata().getName(), next.getPhase());
        if (prior == null
                || prior.getPhase() != next.getPhase()
                || !Objects.equals(prior.getDrainProgress(), next.getDrainProgress())) {
            LOG.infof(
                    "NodeMaintenance %s (node %s): %s, drain %d%% (%d pod(s) to go)%s",
                    nm.getMetadata().getName(),
                    nodeName == null ? null : DrainReport.shown(nodeName),
                    next.getPhase(),
                    next.getDrainProgress(),
                    next.getPendingPods() == null ? 0 : next.getPendingPods().size(),
                    next.getLastError() == null ? "" : " - " + next.getLastError());
        }
        writeChanged(nm, next);
    }

    private void emit(NodeMaintenance nm, String nodeName, List<DoorDecision.Event> decided) {
        if (!decided.isEmpty()) {
            MaintenanceEvents events = eventsFor(nm, nodeName);
            decided.forEach(e -> emit(events, e));
        }
    }

    private static void emit(MaintenanceEvents events, DoorDecision.Event e) {
        events.emit(e.warning(), e.reason(), e.message());
    }

    private static UpdateControl<NodeMaintenance> lookAgain(Optional<Duration> look) {
        UpdateControl<NodeMaintenance> control = UpdateControl.noUpdate();
        return look.map(control::rescheduleAfter).orElse(control);
    }

    /**
     * Gives back, before the node is restored, what the surges of a drain cut short still hold (issue 51), and removes
     * a record no status names (its step's status never written). A give-back that failed for now is tried again, as a
     * failed restore is, from the status as kept here: a surge whose replicas were given back and only its record's
     * removal put off is not decided again.
     *
     * @return whether nothing is left to give back, so the end may go on
     */
    private boolean surgesGivenBack(NodeMaintenance nm, String nodeName, MaintenanceEvents events) {
        if (nm.getStatus() == null || (nm.getStatus().getSurges() == null && !(surging(nm) && nodeName != null))) {
            return true;
        }
        List<SurgeStatus> left;
        try {
            left = machine.giveBackSurges(
                    nodeName,
                    nm.getMetadata().getUid(),
                    nm.getMetadata().getName(),
                    nm.getStatus().getSurges(),
                    events);
        } catch (RuntimeException e) {
            LOG.warnf(
                    "NodeMaintenance %s: giving back its surges failed, retrying: %s",
                    nm.getMetadata().getName(), e.getMessage());
            return false;
        }
        if (left.isEmpty()) {
            return true;
        }
        keepSurges(nm, left);
        return false;
    }

    /** Whether the maintenance drains with {@code evacuation: Surge}, so a surge record of it may be on a workload. */
    private static boolean surging(NodeMaintenance nm) {
        return nm.getSpec() != null
                && nm.getSpec().getDrain() != null
                && nm.getSpec().getDrain().getEvacuation() == Evacuation.Surge;
    }

    /** The surges a deletion has still to give back, kept in status for the next try (a failed write: logged). */
    private void keepSurges(NodeMaintenance nm, List<SurgeStatus> again) {
        NodeMaintenanceStatus next = client.getKubernetesSerialization().clone(nm.getStatus());
        next.setSurges(again);
        try {
            writeChanged(nm, next);
        } catch (RuntimeException e) {
            LOG.warnf(
                    "NodeMaintenance %s: keeping its surges still to give back in status failed: %s",
                    nm.getMetadata().getName(), e.getMessage());
        }
    }

    private void writeChanged(NodeMaintenance nm, NodeMaintenanceStatus next) {
        if (!next.equals(nm.getStatus())) {
            writeStatus(nm, next);
        }
    }

    /**
     * Replaces the whole status in one JSON patch on the status subresource, on condition that the NodeMaintenance is
     * still at the resourceVersion the decision was made from: works whether or not a status exists yet, and clears
     * fields that became empty (a merge patch would keep them). The patch sets {@code metadata.resourceVersion} to that
     * version, which kube-apiserver takes as a precondition of the update (a patched object whose resourceVersion is
     * not the stored one is a 409 Conflict, as for an update: apiserver {@code registry/generic/registry/store.go}
     * Update); a write someone made in between is then never replaced unseen.
     *
     * @throws WholeStatus.Conflict the NodeMaintenance was written since it was read (409): nothing was written, and the
     *     caller reads it again and decides again
     */
    void writeStatus(NodeMaintenance nm, NodeMaintenanceStatus status) {
        status.setWaitingFor(WaitReasons.of(status)); // derived from the rest, for kubectl get's WAITING column
        String version = nm.getMetadata().getResourceVersion();
        ownWrites.sending(nm.getMetadata().getName(), status);
        NodeMaintenance answer;
        try {
            answer = WholeStatus.write(
                    client, NodeMaintenance.class, nm.getMetadata().getName(), version, status);
        } catch (RuntimeException e) {
            ownWrites.notSent(nm.getMetadata().getName());
            throw e;
        }
        ownWrites.wrote(nm, answer);
        nm.setStatus(status);
    }

    /**
     * The object's annotations as the API server has them now, when the cached copy carries hooks. The hook-change
     * informer that woke this reconcile is not the one that feeds the primary cache: the cache may not show the
     * removal yet (seen under load), and its own copy of that update is dropped by the generation filter, so a hold
     * read from it would last until the next renewal. One GET, only while hooks are on the object.
     */
    Map<String, String> hookAnnotations(NodeMaintenance nm) {
        Map<String, String> cached = nm.getMetadata().getAnnotations();
        if (!MaintenanceHooks.changed(null, cached)) {
            return cached; // no hooks in the cache: an added one is seen by the next reconcile its event causes
        }
        NodeMaintenance fresh = client.resources(NodeMaintenance.class)
                .withName(nm.getMetadata().getName())
                .get();
        return fresh == null ? cached : fresh.getMetadata().getAnnotations();
    }

    private MaintenanceEvents eventsFor(NodeMaintenance nm, String nodeName) {
        ObjectReference self = new ObjectReferenceBuilder()
                .withApiVersion(nm.getApiVersion())
                .withKind(nm.getKind())
                .withName(nm.getMetadata().getName())
                .withUid(nm.getMetadata().getUid())
                .build();
        return (warning, reason, message) -> {
            String type = warning ? "Warning" : "Normal";
            recorder.record(self, type, reason, message);
            if (nodeName != null && NODE_REASONS.contains(reason)) {
                recorder.record(
                        new ObjectReferenceBuilder()
                                .withApiVersion("v1")
                                .withKind("Node")
                                .withName(nodeName)
                                .withUid(nodeName)
                                .build(),
                        type,
                        reason,
                        message);
            }
        };
    }
}
