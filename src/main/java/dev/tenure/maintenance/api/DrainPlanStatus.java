package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Objects;

/**
 * Where the ordered drain stands (issue 29): the wave being drained and what it waits for, the pods skipped or
 * waited for, the VolumeAttachments the maintenance waits on; in a preview, the plan for every pod. Lists are cut at
 * 20 entries ("... and N more"; the preview's pods by {@code podsNotListed}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class DrainPlanStatus {

    @JsonPropertyDescription(
            "Order of the wave being drained (2147483647: the last, DaemonSet and" + " system-node-critical pods).")
    private Integer currentWave;

    @JsonPropertyDescription("Orders of the waves still to come, ascending.")
    private List<Integer> laterWaves;

    @JsonPropertyDescription("The current wave's pods still on the node, each with why (namespace/name (why)).")
    private List<String> waveBlockedBy;

    @JsonPropertyDescription("Pods never evicted (behaviour Skip), namespace/name.")
    private List<String> skippedPods;

    @JsonPropertyDescription("Pods the drain waits for until they complete (behaviour WaitCompleted).")
    private List<String> waitingForCompletion;

    @JsonPropertyDescription("VolumeAttachments naming the node that the maintenance waits on after the drain.")
    private List<String> volumeAttachments;

    @JsonPropertyDescription("spec.preview: what the drain would do with each pod on the node, in drain order; the"
            + " first 20 (podsNotListed counts the rest).")
    private List<PlannedPod> pods;

    @JsonPropertyDescription("spec.preview: how many pods of the plan are left out of pods (a node can hold hundreds).")
    private Integer podsNotListed;

    public Integer getCurrentWave() {
        return currentWave;
    }

    public void setCurrentWave(Integer currentWave) {
        this.currentWave = currentWave;
    }

    public List<Integer> getLaterWaves() {
        return laterWaves;
    }

    public void setLaterWaves(List<Integer> laterWaves) {
        this.laterWaves = laterWaves;
    }

    public List<String> getWaveBlockedBy() {
        return waveBlockedBy;
    }

    public void setWaveBlockedBy(List<String> waveBlockedBy) {
        this.waveBlockedBy = waveBlockedBy;
    }

    public List<String> getSkippedPods() {
        return skippedPods;
    }

    public void setSkippedPods(List<String> skippedPods) {
        this.skippedPods = skippedPods;
    }

    public List<String> getWaitingForCompletion() {
        return waitingForCompletion;
    }

    public void setWaitingForCompletion(List<String> waitingForCompletion) {
        this.waitingForCompletion = waitingForCompletion;
    }

    public List<String> getVolumeAttachments() {
        return volumeAttachments;
    }

    public void setVolumeAttachments(List<String> volumeAttachments) {
        this.volumeAttachments = volumeAttachments;
    }

    public List<PlannedPod> getPods() {
        return pods;
    }

    public void setPods(List<PlannedPod> pods) {
        this.pods = pods;
    }

    public Integer getPodsNotListed() {
        return podsNotListed;
    }

    public void setPodsNotListed(Integer podsNotListed) {
        this.podsNotListed = podsNotListed;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DrainPlanStatus s
                && Objects.equals(currentWave, s.currentWave)
                && Objects.equals(laterWaves, s.laterWaves)
                && Objects.equals(waveBlockedBy, s.waveBlockedBy)
                && Objects.equals(skippedPods, s.skippedPods)
                && Objects.equals(waitingForCompletion, s.waitingForCompletion)
                && Objects.equals(volumeAttachments, s.volumeAttachments)
                && Objects.equals(pods, s.pods)
                && Objects.equals(podsNotListed, s.podsNotListed);
    }

    @Override
    public int hashCode() {
        return Objects.hash(currentWave, waveBlockedBy, volumeAttachments);
    }

    /** One pod of a preview. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class PlannedPod {

        @JsonPropertyDescription("namespace/name")
        private String pod;

        @JsonPropertyDescription("Drain, Skip or WaitCompleted.")
        private DrainBehavior behavior;

        @JsonPropertyDescription("Order of its wave (Drain pods only).")
        private Integer wave;

        @JsonPropertyDescription("What the drain would do: Evict, Delete, Leave, Skip, WaitCompleted, Refuse,"
                + " WaitTerminating, Gone; and why.")
        private String action;

        @JsonPropertyDescription("PodDisruptionBudgets (namespace/name) it waits for (spent now, or by the pods of the"
                + " plan ahead of it), or that refuse it (more than one selects it).")
        private List<String> blockingBudgets;

        @JsonPropertyDescription("What the drain would meet with it, the waves walked in order against the budgets:"
                + " EvictsNow, EvictsInItsWave, WaitsForBudget, Refused, Terminating, WaitsCompleted, Skipped,"
                + " LeftAlone.")
        private DrainOutlook outlook;

        @JsonPropertyDescription("Why that outlook, in a few words (the budget and the pod ahead of it, the"
                + " unhealthyPodEvictionPolicy that lets an unready pod go).")
        private String outlookReason;

        @JsonPropertyDescription("When its eviction can be expected, in seconds after the drain starts: every pod"
                + " ahead of it (in its budget, in the earlier waves) taking its whole terminationGracePeriodSeconds,"
                + " replacements Ready at once. Absent when no time can be stated.")
        private Long estimatedSeconds;

        @JsonPropertyDescription("With spec.drain.evacuation Surge, for a pod whose budget allows no eviction (its"
                + " workload has no spare replica): Surges or CannotSurge.")
        private SurgeOutlook surge;

        // every SurgePlanner.Reason's shown name, in the planner's order (GeneratedArtifactsTest checks the CRD)
        @JsonPropertyDescription("Why that surge outlook: \"surge <kind> <namespace>/<name> by <n> (replicas <from> ->"
                + " <to>)\", or \"cannot surge: <reason> (<detail>)\" with the first reason that matches, in this order:"
                + " bare pod, StatefulSet, not a ReplicaSet's pod, no surge role, owner not found, opted out, Recreate"
                + " strategy, mid-rollout, maxSurge too small, budget forbids it, HPA at maxReplicas, HPA-managed, would"
                + " not fit (forecast).")
        private String surgeReason;

        public PlannedPod() {}

        public PlannedPod(String pod, DrainBehavior behavior, Integer wave, String action, List<String> budgets) {
            this.pod = pod;
            this.behavior = behavior;
            this.wave = wave;
            this.action = action;
            this.blockingBudgets = budgets;
        }

        public String getPod() {
            return pod;
        }

        public void setPod(String pod) {
            this.pod = pod;
        }

        public DrainBehavior getBehavior() {
            return behavior;
        }

        public void setBehavior(DrainBehavior behavior) {
            this.behavior = behavior;
        }

        public Integer getWave() {
            return wave;
        }

        public void setWave(Integer wave) {
            this.wave = wave;
        }

        public String getAction() {
            return action;
        }

        public void setAction(String action) {
            this.action = action;
        }

        public List<String> getBlockingBudgets() {
            return blockingBudgets;
        }

        public void setBlockingBudgets(List<String> blockingBudgets) {
            this.blockingBudgets = blockingBudgets;
        }

        public DrainOutlook getOutlook() {
            return outlook;
        }

        public void setOutlook(DrainOutlook outlook) {
            this.outlook = outlook;
        }

        public String getOutlookReason() {
            return outlookReason;
        }

        public void setOutlookReason(String outlookReason) {
            this.outlookReason = outlookReason;
        }

        public SurgeOutlook getSurge() {
            return surge;
        }

        public void setSurge(SurgeOutlook surge) {
            this.surge = surge;
        }

        public String getSurgeReason() {
            return surgeReason;
        }

        public void setSurgeReason(String surgeReason) {
            this.surgeReason = surgeReason;
        }

        public Long getEstimatedSeconds() {
            return estimatedSeconds;
        }

        public void setEstimatedSeconds(Long estimatedSeconds) {
            this.estimatedSeconds = estimatedSeconds;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PlannedPod p
                    && Objects.equals(pod, p.pod)
                    && behavior == p.behavior
                    && Objects.equals(wave, p.wave)
                    && Objects.equals(action, p.action)
                    && Objects.equals(blockingBudgets, p.blockingBudgets)
                    && outlook == p.outlook
                    && Objects.equals(outlookReason, p.outlookReason)
                    && Objects.equals(estimatedSeconds, p.estimatedSeconds)
                    && surge == p.surge
                    && Objects.equals(surgeReason, p.surgeReason);
        }

        @Override
        public int hashCode() {
            return Objects.hash(pod, wave, action);
        }
    }
}
