package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.DrainPlanStatus;
import dev.tenure.maintenance.api.LeaseStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.PlacementStatus;
import dev.tenure.maintenance.drain.DrainWaves;
import dev.tenure.maintenance.drain.DrainedWorkloads;
import io.fabric8.kubernetes.api.model.ObjectReference;
import java.time.Instant;
import java.util.List;

/**
 * Where one node's maintenance stands: the small record the {@link MaintenanceMachine} reads and
 * returns. It is kept by the front door (NodeMaintenance status, or the node annotation protocol), so
 * the machine remembers nothing the cluster does not hold; timestamps mark when each step was reached.
 */
public record MaintenanceState(
        Phase phase,
        Instant leaseAcquiredAt,
        Instant cordonedAt,
        Instant handoverStartedAt,
        Instant handedOverAt,
        String handoverMessage,
        Instant drainStartedAt,
        Instant drainedAt,
        Integer totalPods,
        Integer evictionPods,
        int drainProgress,
        List<String> pendingPods,
        List<ObjectReference> pendingPodsRefs,
        String lastError,
        int errorOnLeaseCount,
        LeaseStatus lease,
        String waitingFor,
        boolean nodeGone,
        DrainWaves waves,
        List<String> attachedVolumes,
        List<DrainPlanStatus.PlannedPod> preview,
        MaintenanceHooks.Wait hookWait,
        String cordonFailure,
        List<String> timeoutsPassed,
        PlacementStatus placement,
        List<dev.tenure.maintenance.api.SurgeStatus> surges,
        DrainedWorkloads drainedWorkloads) {

    public MaintenanceState {
        phase = phase == null ? Phase.Pending : phase;
        pendingPods = pendingPods == null ? List.of() : List.copyOf(pendingPods);
        pendingPodsRefs = pendingPodsRefs == null ? List.of() : List.copyOf(pendingPodsRefs);
        attachedVolumes = attachedVolumes == null ? List.of() : List.copyOf(attachedVolumes);
        preview = preview == null ? List.of() : List.copyOf(preview);
        timeoutsPassed = timeoutsPassed == null ? List.of() : List.copyOf(timeoutsPassed);
        surges = surges == null ? List.of() : List.copyOf(surges);
        drainedWorkloads = drainedWorkloads == null ? DrainedWorkloads.NONE : drainedWorkloads;
    }

    /** Whether {@code stage}'s timeout was passed (onTimeout Proceed): a line of {@link #timeoutsPassed} names it. */
    public boolean passed(MaintenanceStages.TimedStage stage) {
        return timeoutsPassed.stream().anyMatch(l -> l.startsWith(stage.shown() + ": "));
    }

    public static MaintenanceState initial() {
        return new Builder().build();
    }

    /** The lease is ours and the node is (being) put into maintenance. */
    public boolean holdsNode() {
        return leaseAcquiredAt != null;
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Copy-and-change for the machine's steps. */
    public static final class Builder {
        Phase phase = Phase.Pending;
        Instant leaseAcquiredAt;
        Instant cordonedAt;
        Instant handoverStartedAt;
        Instant handedOverAt;
        String handoverMessage;
        Instant drainStartedAt;
        Instant drainedAt;
        Integer totalPods;
        Integer evictionPods;
        int drainProgress;
        List<String> pendingPods = List.of();
        List<ObjectReference> pendingPodsRefs = List.of();
        String lastError;
        int errorOnLeaseCount;
        LeaseStatus lease;
        String waitingFor;
        boolean nodeGone;
        DrainWaves waves;
        List<String> attachedVolumes = List.of();
        List<DrainPlanStatus.PlannedPod> preview = List.of();
        PlacementStatus placement;
        MaintenanceHooks.Wait hookWait;
        List<String> timeoutsPassed = List.of();
        String cordonFailure;
        List<dev.tenure.maintenance.api.SurgeStatus> surges = List.of();
        DrainedWorkloads drainedWorkloads = DrainedWorkloads.NONE;

        public Builder() {}

        Builder(MaintenanceState s) {
            phase = s.phase;
            leaseAcquiredAt = s.leaseAcquiredAt;
            cordonedAt = s.cordonedAt;
            handoverStartedAt = s.handoverStartedAt;
            handedOverAt = s.handedOverAt;
            handoverMessage = s.handoverMessage;
            drainStartedAt = s.drainStartedAt;
            drainedAt = s.drainedAt;
            totalPods = s.totalPods;
            evictionPods = s.evictionPods;
            drainProgress = s.drainProgress;
            pendingPods = s.pendingPods;
            pendingPodsRefs = s.pendingPodsRefs;
            lastError = s.lastError;
            errorOnLeaseCount = s.errorOnLeaseCount;
            lease = s.lease;
            waitingFor = s.waitingFor;
            nodeGone = s.nodeGone;
            waves = s.waves;
            attachedVolumes = s.attachedVolumes;
            preview = s.preview;
            placement = s.placement;
            hookWait = s.hookWait;
            timeoutsPassed = s.timeoutsPassed;
            cordonFailure = s.cordonFailure;
            surges = s.surges;
            drainedWorkloads = s.drainedWorkloads;
        }

        /** The surges of this maintenance in flight or left ({@link SurgeStep}). */
        public Builder surges(List<dev.tenure.maintenance.api.SurgeStatus> v) {
            surges = v == null ? List.of() : List.copyOf(v);
            return this;
        }

        public Builder phase(Phase v) {
            phase = v;
            return this;
        }

        public Builder leaseAcquiredAt(Instant v) {
            leaseAcquiredAt = v;
            return this;
        }

        public Builder cordonedAt(Instant v) {
            cordonedAt = v;
            return this;
        }

        public Builder handoverStartedAt(Instant v) {
            handoverStartedAt = v;
            return this;
        }

        public Builder handedOverAt(Instant v) {
            handedOverAt = v;
            return this;
        }

        public Builder handoverMessage(String v) {
            handoverMessage = v;
            return this;
        }

        public Builder drainStartedAt(Instant v) {
            drainStartedAt = v;
            return this;
        }

        public Builder drainedAt(Instant v) {
            drainedAt = v;
            return this;
        }

        public Builder totalPods(Integer v) {
            totalPods = v;
            return this;
        }

        public Builder evictionPods(Integer v) {
            evictionPods = v;
            return this;
        }

        public Builder drainProgress(int v) {
            drainProgress = v;
            return this;
        }

        public Builder pendingPods(List<String> v) {
            pendingPods = v;
            return this;
        }

        public Builder pendingPodsRefs(List<ObjectReference> v) {
            pendingPodsRefs = v;
            return this;
        }

        public Builder lastError(String v) {
            lastError = v;
            return this;
        }

        public Builder errorOnLeaseCount(int v) {
            errorOnLeaseCount = v;
            return this;
        }

        public Builder lease(LeaseStatus v) {
            lease = v;
            return this;
        }

        public Builder waitingFor(String v) {
            waitingFor = v;
            return this;
        }

        /** The node was deleted while this maintenance held it: nothing is cordoned or held any more. */
        public Builder nodeGone(boolean v) {
            nodeGone = v;
            return this;
        }

        /** Where an ordered drain stands (null: no drain step yet, or none since the drain ended). */
        public Builder waves(DrainWaves v) {
            waves = v;
            return this;
        }

        /** The VolumeAttachments naming the node that the maintenance waits on after the drain (shown). */
        public Builder attachedVolumes(List<String> v) {
            attachedVolumes = v;
            return this;
        }

        /** spec.preview: the plan for each pod on the node (nothing done); empty otherwise. */
        public Builder preview(List<DrainPlanStatus.PlannedPod> v) {
            preview = v;
            return this;
        }

        /** The lifecycle hooks this maintenance waits on (null: none). */
        /** The placement forecast made before the cordon or by a preview ({@code status.placement}); null: none. */
        public Builder placement(PlacementStatus v) {
            placement = v;
            return this;
        }

        public Builder hookWait(MaintenanceHooks.Wait v) {
            hookWait = v;
            return this;
        }

        /**
         * The last write of the cordon step failed (null: it did not): which write, what the node carries now and the
         * API's answer; status shows it on the Cordoned condition.
         */
        public Builder cordonFailure(String v) {
            cordonFailure = v;
            return this;
        }

        /** The controllers of the pods this drain removed ({@code status.drainedWorkloads}). */
        public Builder drainedWorkloads(DrainedWorkloads v) {
            drainedWorkloads = v;
            return this;
        }

        public Builder timeoutsPassed(List<String> v) {
            timeoutsPassed = v;
            return this;
        }

        /** Notes that {@code stage}'s timeout was passed, and what was left: once per stage. */
        public Builder passedTimeout(MaintenanceStages.TimedStage stage, String left) {
            String prefix = stage.shown() + ": ";
            if (timeoutsPassed.stream().noneMatch(l -> l.startsWith(prefix))) {
                timeoutsPassed = java.util.stream.Stream.concat(
                                timeoutsPassed.stream(), java.util.stream.Stream.of(prefix + left))
                        .toList();
            }
            return this;
        }

        /** Forget the drain's progress, e.g. to retry a failed drain after the spec changed. */
        public Builder resetDrain() {
            waves = null;
            attachedVolumes = List.of();
            timeoutsPassed = List.of();
            drainStartedAt = null;
            drainedAt = null;
            totalPods = null;
            evictionPods = null;
            drainProgress = 0;
            pendingPods = List.of();
            pendingPodsRefs = List.of();
            drainedWorkloads = DrainedWorkloads.NONE;
            lastError = null;
            return this;
        }

        public MaintenanceState build() {
            return new MaintenanceState(
                    phase,
                    leaseAcquiredAt,
                    cordonedAt,
                    handoverStartedAt,
                    handedOverAt,
                    handoverMessage,
                    drainStartedAt,
                    drainedAt,
                    totalPods,
                    evictionPods,
                    drainProgress,
                    pendingPods,
                    pendingPodsRefs,
                    lastError,
                    errorOnLeaseCount,
                    lease,
                    waitingFor,
                    nodeGone,
                    waves,
                    attachedVolumes,
                    preview,
                    hookWait,
                    cordonFailure,
                    timeoutsPassed,
                    placement,
                    surges,
                    drainedWorkloads);
        }
    }
}
