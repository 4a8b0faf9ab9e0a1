package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Observed state; medik8s' field names (including {@code totalpods}) plus conditions and the lease. */
@JsonInclude(JsonInclude.Include.NON_NULL)
// A newer CRD (or a cluster that does not prune) may carry fields this version does not know: ignored, so
// one such object never stops the informer that reads every NodeMaintenance (issue 16).
@JsonIgnoreProperties(ignoreUnknown = true)
public class NodeMaintenanceStatus {

    @JsonPropertyDescription("Pending, Scheduled, Waiting, Running, Succeeded, Failed or Ended.")
    private Phase phase;

    @JsonPropertyDescription("LeaseHeld, Cordoned, LeadersHandedOver, Drained.")
    private List<Condition> conditions = new ArrayList<>();

    @io.fabric8.generator.annotation.Min(0)
    @io.fabric8.generator.annotation.Max(100)
    @JsonPropertyDescription("Percentage of the pods to evict that are gone (0-100).")
    private Integer drainProgress;

    @com.fasterxml.jackson.annotation.JsonProperty("totalpods")
    @JsonPropertyDescription("Pods on the node when the drain started.")
    private Integer totalpods;

    @JsonPropertyDescription("Pods to evict when the drain started.")
    private Integer evictionPods;

    @JsonPropertyDescription("Pods still to go, as namespace/name.")
    private List<String> pendingPods;

    @JsonPropertyDescription("Pods still to go, as references.")
    private List<ObjectReference> pendingPodsRefs;

    private String lastError;

    @JsonPropertyDescription("RFC 3339 time of the last status change.")
    private String lastUpdate;

    @JsonPropertyDescription("Consecutive failed attempts to take the node's lease.")
    private Integer errorOnLeaseCount;

    private LeaseStatus lease;

    @JsonPropertyDescription("Generation of the spec this status describes.")
    private Long observedGeneration;

    @JsonPropertyDescription("Node this maintenance was admitted for; it stays there when spec.nodeName is edited.")
    private String nodeName;

    // ---- issue 29 (drain half) ---------------------------------------------------------------------------

    @JsonPropertyDescription("The ordered drain: current wave and what blocks it, skipped pods, pods waited for,"
            + " volumes still attached; with spec.preview, the plan for every pod.")
    private DrainPlanStatus drainPlan;

    public DrainPlanStatus getDrainPlan() {
        return drainPlan;
    }

    public void setDrainPlan(DrainPlanStatus drainPlan) {
        this.drainPlan = drainPlan;
    }

    // ---- Issue 49, the placement forecast before the cordon

    @JsonPropertyDescription("The placement forecast made before the cordon (spec.drain.placement Warn or Wait) or by a"
            + " preview: counts per verdict and the pods that fit no node that stays schedulable, with the scheduler's"
            + " message.")
    private PlacementStatus placement;

    public PlacementStatus getPlacement() {
        return placement;
    }

    public void setPlacement(PlacementStatus placement) {
        this.placement = placement;
    }

    // ---- Issue 29, lifecycle (hooks, scheduled start)

    @JsonPropertyDescription("The lifecycle hooks the maintenance waits on now, if any.")
    private HookStatus hooks;

    @JsonPropertyDescription("The schedule: when it may start, when its window closes, whether the drain overran it.")
    private ScheduleStatus schedule;

    public HookStatus getHooks() {
        return hooks;
    }

    public void setHooks(HookStatus hooks) {
        this.hooks = hooks;
    }

    public ScheduleStatus getSchedule() {
        return schedule;
    }

    public void setSchedule(ScheduleStatus schedule) {
        this.schedule = schedule;
    }

    // ---- end of the issue 29 lifecycle block

    // ---- Issue 52, the workloads a rollout's gate waits for

    @JsonPropertyDescription("The controllers (apiVersion, kind, namespace, name, uid from each pod's controller"
            + " ownerReference) of the pods this drain evicted or deleted, each once, at most "
            + DRAINED_WORKLOADS_LISTED
            + ": what a NodeMaintenanceRollout waits to see whole again before the node's slot goes to the next node."
            + " Pods without a controller are not listed.")
    private List<ObjectReference> drainedWorkloads;

    @JsonPropertyDescription("Controllers of drained pods beyond those listed in drainedWorkloads.")
    private Integer drainedWorkloadsNotListed;

    /** At most this many {@code drainedWorkloads} are listed; the rest are counted. */
    public static final int DRAINED_WORKLOADS_LISTED = 50;

    public List<ObjectReference> getDrainedWorkloads() {
        return drainedWorkloads;
    }

    public void setDrainedWorkloads(List<ObjectReference> drainedWorkloads) {
        this.drainedWorkloads = drainedWorkloads;
    }

    public Integer getDrainedWorkloadsNotListed() {
        return drainedWorkloadsNotListed;
    }

    public void setDrainedWorkloadsNotListed(Integer drainedWorkloadsNotListed) {
        this.drainedWorkloadsNotListed = drainedWorkloadsNotListed;
    }

    // ---- Issue 37, timeouts passed (onTimeout: Proceed)

    @JsonPropertyDescription("Stages whose timeout was passed (onTimeout Proceed), one line each: the stage"
            + " (PreDrainHooks, WaitCompleted, Drain, VolumeDetach), then what was left (hook owners still holding, pods"
            + " not evicted, volumes still attached).")
    private List<String> timeoutsPassed;

    public List<String> getTimeoutsPassed() {
        return timeoutsPassed;
    }

    public void setTimeoutsPassed(List<String> timeoutsPassed) {
        this.timeoutsPassed = timeoutsPassed;
    }

    // ---- Issue 51, surges

    @JsonPropertyDescription("spec.drain.evacuation Surge: the workloads this maintenance scaled up (or is about to),"
            + " recorded before the scale so a restart or a new leader finishes or undoes it; a surge leaves the list"
            + " once its replicas are given back.")
    private List<SurgeStatus> surges;

    public List<SurgeStatus> getSurges() {
        return surges;
    }

    public void setSurges(List<SurgeStatus> surges) {
        this.surges = surges;
    }

    // ---- Issue 29, the fair queue

    @io.fabric8.generator.annotation.Min(1)
    @JsonPropertyDescription("While the operator-wide limits hold it Pending: its place in the queue for a free slot"
            + " (1 = next); lastError names the limit.")
    private Integer queuePosition;

    public Integer getQueuePosition() {
        return queuePosition;
    }

    public void setQueuePosition(Integer queuePosition) {
        this.queuePosition = queuePosition;
    }

    // ---- end of the fair queue block

    @JsonPropertyDescription("What the maintenance waits for now, in a few words (the queue, its schedule, the node"
            + " lease, a hook, the leadership handover, a PodDisruptionBudget, volume detach); absent when nothing"
            + " holds it. Derived from the rest of the status when it is written; the printer column WAITING.")
    private String waitingFor;

    public String getWaitingFor() {
        return waitingFor;
    }

    public void setWaitingFor(String waitingFor) {
        this.waitingFor = waitingFor;
    }

    // ---- Issue 29, shared requests

    @JsonPropertyDescription("A joined maintenance (spec.join): the NodeMaintenance whose maintenance of the node it"
            + " shares, which holds the node lease and does the undo.")
    private String joinedTo;

    @JsonPropertyDescription("The other NodeMaintenances sharing this node's maintenance; the node is restored when"
            + " the last of them ends.")
    private List<String> sharedWith;

    public String getJoinedTo() {
        return joinedTo;
    }

    public void setJoinedTo(String joinedTo) {
        this.joinedTo = joinedTo;
    }

    public List<String> getSharedWith() {
        return sharedWith;
    }

    public void setSharedWith(List<String> sharedWith) {
        this.sharedWith = sharedWith;
    }

    // ---- end of the shared requests block

    public Phase getPhase() {
        return phase;
    }

    public void setPhase(Phase phase) {
        this.phase = phase;
    }

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions;
    }

    public Integer getDrainProgress() {
        return drainProgress;
    }

    public void setDrainProgress(Integer drainProgress) {
        this.drainProgress = drainProgress;
    }

    @com.fasterxml.jackson.annotation.JsonProperty("totalpods")
    public Integer getTotalpods() {
        return totalpods;
    }

    @com.fasterxml.jackson.annotation.JsonProperty("totalpods")
    public void setTotalpods(Integer totalpods) {
        this.totalpods = totalpods;
    }

    public Integer getEvictionPods() {
        return evictionPods;
    }

    public void setEvictionPods(Integer evictionPods) {
        this.evictionPods = evictionPods;
    }

    public List<String> getPendingPods() {
        return pendingPods;
    }

    public void setPendingPods(List<String> pendingPods) {
        this.pendingPods = pendingPods;
    }

    public List<ObjectReference> getPendingPodsRefs() {
        return pendingPodsRefs;
    }

    public void setPendingPodsRefs(List<ObjectReference> pendingPodsRefs) {
        this.pendingPodsRefs = pendingPodsRefs;
    }

    public String getLastError() {
        return lastError;
    }

    public void setLastError(String lastError) {
        this.lastError = lastError;
    }

    public String getLastUpdate() {
        return lastUpdate;
    }

    public void setLastUpdate(String lastUpdate) {
        this.lastUpdate = lastUpdate;
    }

    public Integer getErrorOnLeaseCount() {
        return errorOnLeaseCount;
    }

    public void setErrorOnLeaseCount(Integer errorOnLeaseCount) {
        this.errorOnLeaseCount = errorOnLeaseCount;
    }

    public LeaseStatus getLease() {
        return lease;
    }

    public void setLease(LeaseStatus lease) {
        this.lease = lease;
    }

    public String getNodeName() {
        return nodeName;
    }

    public void setNodeName(String nodeName) {
        this.nodeName = nodeName;
    }

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof NodeMaintenanceStatus s)) return false;
        return phase == s.phase
                && Objects.equals(conditions, s.conditions)
                && Objects.equals(drainProgress, s.drainProgress)
                && Objects.equals(totalpods, s.totalpods)
                && Objects.equals(evictionPods, s.evictionPods)
                && Objects.equals(pendingPods, s.pendingPods)
                && Objects.equals(pendingPodsRefs, s.pendingPodsRefs)
                && Objects.equals(lastError, s.lastError)
                && Objects.equals(lastUpdate, s.lastUpdate)
                && Objects.equals(errorOnLeaseCount, s.errorOnLeaseCount)
                && Objects.equals(lease, s.lease)
                && Objects.equals(observedGeneration, s.observedGeneration)
                && Objects.equals(nodeName, s.nodeName)
                && Objects.equals(drainPlan, s.drainPlan)
                && Objects.equals(hooks, s.hooks)
                && Objects.equals(schedule, s.schedule)
                && Objects.equals(queuePosition, s.queuePosition)
                && Objects.equals(joinedTo, s.joinedTo)
                && Objects.equals(sharedWith, s.sharedWith)
                && Objects.equals(timeoutsPassed, s.timeoutsPassed)
                && Objects.equals(drainedWorkloads, s.drainedWorkloads)
                && Objects.equals(drainedWorkloadsNotListed, s.drainedWorkloadsNotListed)
                && Objects.equals(placement, s.placement)
                && Objects.equals(surges, s.surges);
        // waitingFor is left out: it is derived from the fields above when the status is written
    }

    @Override
    public int hashCode() {
        return Objects.hash(phase, conditions, drainProgress, pendingPods, lastError, lease);
    }
}
