package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.kubernetes.api.model.LabelSelector;

/** kubectl drain's options, with its defaults where Tenure keeps them. */
@JsonInclude(JsonInclude.Include.NON_NULL)
// A newer CRD (or a cluster that does not prune) may carry fields this version does not know: ignored, so
// one such object never stops the informer that reads every NodeMaintenance (issue 16).
@JsonIgnoreProperties(ignoreUnknown = true)
public class DrainSpec {

    @Pattern(GoDuration.PATTERN)
    @JsonPropertyDescription(
            "Longest drain; at it, onTimeout decides (default Fail: phase Failed, blocking pods named). Empty or 0: no"
                    + " limit.")
    private String timeout;

    @JsonPropertyDescription("What the drain's timeout does: Fail (default: phase Failed, node stays cordoned), Proceed"
            + " (go on as if drained, the pods left named in status.timeoutsPassed) or Restore (node restored, lease"
            + " released, phase Ended).")
    private TimeoutOutcome onTimeout;

    @Min(-1)
    @Default("-1")
    @JsonPropertyDescription("Grace period for evicted pods; -1 (default) uses each pod's own.")
    private Long gracePeriodSeconds;

    @Default("true")
    @JsonPropertyDescription("Leave DaemonSet-managed pods (default true); false fails the drain when there are any.")
    private Boolean ignoreDaemonSets;

    @Default("true")
    @JsonPropertyDescription("Evict pods with emptyDir volumes, losing the data (default true).")
    private Boolean deleteEmptyDirData;

    @Default("true")
    @JsonPropertyDescription("Evict pods without a controller (default true).")
    private Boolean force;

    @JsonPropertyDescription("Only drain pods matching this selector.")
    private LabelSelector podSelector;

    @Pattern(GoDuration.PATTERN)
    @Default("5s")
    @JsonPropertyDescription("Longest wait before retrying an eviction refused by a PodDisruptionBudget (429), as"
            + " kubectl drain's 5 s; retried sooner when that budget admits evictions again (its status, watched)."
            + " Default 5s.")
    private String evictionRetryDelay;

    @Pattern(GoDuration.PATTERN)
    @JsonPropertyDescription(
            "Pods terminating for longer than this count as gone. Empty: wait (except on a node whose kubelet is stale).")
    private String skipWaitForDeleteTimeout;

    @JsonPropertyDescription("Delete pods instead of evicting them (bypasses PodDisruptionBudgets).")
    private Boolean disableEviction;

    // ---- issue 29 (drain half): per-pod behaviour and order, storage detach --------------------------------

    @io.fabric8.generator.annotation.Size(max = 64)
    @JsonPropertyDescription("Per-pod behaviour and order: the first rule whose selectors match a pod decides"
            + " (after the pod label tenure.dev/drain=skip, which always skips). Pods no rule matches are drained.")
    private java.util.List<DrainRule> rules;

    @Pattern(GoDuration.PATTERN)
    @JsonPropertyDescription("Longest wait for WaitCompleted pods, from the drain's start; at it,"
            + " waitCompletedOnTimeout decides (default Fail: phase Failed, reason WaitCompletedTimedOut, pods named)."
            + " Empty or 0: no limit.")
    private String waitCompletedTimeout;

    @JsonPropertyDescription(
            "What waitCompletedTimeout does: Fail (default: phase Failed, node stays cordoned), Proceed"
                    + " (the WaitCompleted pods stop holding the drain and are left running, named in status.timeoutsPassed)"
                    + " or Restore (node restored, lease released, phase Ended).")
    private TimeoutOutcome waitCompletedOnTimeout;

    @JsonPropertyDescription("After the drain, wait until no VolumeAttachment names the node (phase Running until"
            + " then). Absent: no wait.")
    private VolumeDetachSpec volumeDetach;

    @JsonPropertyDescription("Before the cordon, forecast whether each pod to evict fits on a node that stays"
            + " schedulable (kube-scheduler's filters; \"fits somewhere\", not where the scheduler puts it): Warn"
            + " (default, kubectl's behaviour: status.placement, event PodsWillNotFit and condition PodsFit=False,"
            + " then the drain goes on), Wait (stay Pending, nothing cordoned or evicted, until every pod fits) or"
            + " Ignore (no forecast).")
    private PlacementPolicy placement;

    @JsonPropertyDescription("How a pod whose PodDisruptionBudget allows no eviction (its workload has no spare"
            + " replica) is moved: Evict (default, kubectl's behaviour: retried until the budget allows it or the"
            + " timeout) or Surge (scale its Deployment or ReplicaSet up first, wait for the new pods to be"
            + " available elsewhere, evict, give back the replicas still ours; recorded in status.surges and on the"
            + " workload first; spec.preview shows per pod whether it can surge and why not; needs the opt-in"
            + " ClusterRole tenure-operator-surge, without which the drain evicts as Evict and says so; a workload"
            + " opts out with the annotation tenure.dev/surge: \"false\").")
    private Evacuation evacuation;

    public Evacuation getEvacuation() {
        return evacuation;
    }

    public void setEvacuation(Evacuation evacuation) {
        this.evacuation = evacuation;
    }

    public PlacementPolicy getPlacement() {
        return placement;
    }

    public void setPlacement(PlacementPolicy placement) {
        this.placement = placement;
    }

    public java.util.List<DrainRule> getRules() {
        return rules;
    }

    public void setRules(java.util.List<DrainRule> rules) {
        this.rules = rules;
    }

    public String getWaitCompletedTimeout() {
        return waitCompletedTimeout;
    }

    public void setWaitCompletedTimeout(String waitCompletedTimeout) {
        this.waitCompletedTimeout = waitCompletedTimeout;
    }

    public TimeoutOutcome getWaitCompletedOnTimeout() {
        return waitCompletedOnTimeout;
    }

    public void setWaitCompletedOnTimeout(TimeoutOutcome waitCompletedOnTimeout) {
        this.waitCompletedOnTimeout = waitCompletedOnTimeout;
    }

    public TimeoutOutcome getOnTimeout() {
        return onTimeout;
    }

    public void setOnTimeout(TimeoutOutcome onTimeout) {
        this.onTimeout = onTimeout;
    }

    public VolumeDetachSpec getVolumeDetach() {
        return volumeDetach;
    }

    public void setVolumeDetach(VolumeDetachSpec volumeDetach) {
        this.volumeDetach = volumeDetach;
    }

    // ---- kubectl drain's options ---------------------------------------------------------------------------

    public String getTimeout() {
        return timeout;
    }

    public void setTimeout(String timeout) {
        this.timeout = timeout;
    }

    public Long getGracePeriodSeconds() {
        return gracePeriodSeconds;
    }

    public void setGracePeriodSeconds(Long gracePeriodSeconds) {
        this.gracePeriodSeconds = gracePeriodSeconds;
    }

    public Boolean getIgnoreDaemonSets() {
        return ignoreDaemonSets;
    }

    public void setIgnoreDaemonSets(Boolean ignoreDaemonSets) {
        this.ignoreDaemonSets = ignoreDaemonSets;
    }

    public Boolean getDeleteEmptyDirData() {
        return deleteEmptyDirData;
    }

    public void setDeleteEmptyDirData(Boolean deleteEmptyDirData) {
        this.deleteEmptyDirData = deleteEmptyDirData;
    }

    public Boolean getForce() {
        return force;
    }

    public void setForce(Boolean force) {
        this.force = force;
    }

    public LabelSelector getPodSelector() {
        return podSelector;
    }

    public void setPodSelector(LabelSelector podSelector) {
        this.podSelector = podSelector;
    }

    public String getEvictionRetryDelay() {
        return evictionRetryDelay;
    }

    public void setEvictionRetryDelay(String evictionRetryDelay) {
        this.evictionRetryDelay = evictionRetryDelay;
    }

    public String getSkipWaitForDeleteTimeout() {
        return skipWaitForDeleteTimeout;
    }

    public void setSkipWaitForDeleteTimeout(String skipWaitForDeleteTimeout) {
        this.skipWaitForDeleteTimeout = skipWaitForDeleteTimeout;
    }

    public Boolean getDisableEviction() {
        return disableEviction;
    }

    public void setDisableEviction(Boolean disableEviction) {
        this.disableEviction = disableEviction;
    }
}
