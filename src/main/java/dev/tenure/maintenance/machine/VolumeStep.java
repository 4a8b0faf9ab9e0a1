package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.TimeoutOutcome;
import dev.tenure.maintenance.drain.PodDrain;
import dev.tenure.maintenance.drain.VolumeDetach;
import dev.tenure.maintenance.machine.MaintenanceMachine.Step;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Step 5 of the machine, after the drain: the wait for the node's VolumeAttachments to go (Cluster API's wait for
 * volume detach), decided by {@link VolumeDetach}; at its timeout, {@code spec.drain.volumeDetach.onTimeout} decides.
 */
public final class VolumeStep {

    private final PodDrain drain;
    private final MaintenanceSettings settings;
    private final DrainStep.TimeoutRestore restore;

    VolumeStep(PodDrain drain, MaintenanceSettings settings, DrainStep.TimeoutRestore restore) {
        this.drain = drain;
        this.settings = settings;
        this.restore = restore;
    }

    /**
     * After the drain (phase Running, Drained): waits until no VolumeAttachment names the node (Cluster API's wait
     * for volume detach), then Succeeded; past spec.drain.volumeDetach.timeout, as its onTimeout says.
     */
    Step volumes(
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
                    drain.volumesOn(nodeName),
                    request.drain().volumeDetach(),
                    drainedAt,
                    settings.drainPollInterval(),
                    now);
        } catch (KubernetesClientException e) {
            return new Step(
                    s.lastError("reading the volumes of node " + nodeName + ": " + e.getMessage())
                            .build(),
                    Optional.of(settings.drainPollInterval()));
        }
        if (verdict instanceof VolumeDetach.Verdict.Waiting waiting) {
            return new Step(
                    s.attachedVolumes(waiting.waitingFor()).lastError(null).build(),
                    Optional.of(waiting.requeueAfter()));
        }
        Duration renewIn = MaintenancePlanner.renewIn(request, prior, settings, now);
        if (verdict instanceof VolumeDetach.Verdict.TimedOut timedOut) {
            MaintenanceStages.AtTimeout at = MaintenanceStages.atTimeout(
                    MaintenanceStages.TimedStage.VOLUME_DETACH,
                    request.drain().volumeDetach().onTimeout(),
                    false);
            if (at.restoresNode()) {
                return restore.restore(
                        request, s, timedOut.message() + " (spec.drain.volumeDetach.onTimeout Restore)", events);
            } else if (at.outcome() == TimeoutOutcome.Proceed) {
                String left = "volumes still attached: " + String.join(", ", timedOut.left());
                s.passedTimeout(MaintenanceStages.TimedStage.VOLUME_DETACH, left);
                events.emit(
                        true,
                        at.event(),
                        timedOut.message() + " (spec.drain.volumeDetach.onTimeout Proceed): node " + nodeName
                                + " counts as done");
                return new Step(
                        s.phase(at.phase())
                                .attachedVolumes(List.of())
                                .lastError(null)
                                .build(),
                        Optional.of(renewIn));
            }
            String failed = timedOut.message() + " (" + MaintenanceStages.TimedStage.VOLUME_DETACH.field() + " Fail)";
            events.emit(true, at.event(), failed);
            return new Step(s.phase(at.phase()).lastError(failed).build(), Optional.of(renewIn));
        }
        String detached = ((VolumeDetach.Verdict.Detached) verdict).message();
        events.emit(false, MaintenanceEvents.SUCCEEDED, "node " + nodeName + " drained; " + detached);
        return new Step(
                s.phase(Phase.Succeeded)
                        .attachedVolumes(List.of())
                        .lastError(null)
                        .build(),
                Optional.of(renewIn));
    }
}
