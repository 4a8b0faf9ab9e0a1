package dev.tenure.rollout.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;

/** A rollout's progress, for a person at a glance (phase, counts, batch, reason, ETA) and for its own restarts. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class RolloutStatus {
    private RolloutPhase phase;

    @JsonPropertyDescription("Why it is where it is, one word: Progressing, WaitingForSlot, WaitingForGate, Blocked,"
            + " Paused, FailureBudget, GateTimeout, Complete, InvalidSpec.")
    private String reason;

    @JsonPropertyDescription("The reason in a sentence: which limit or gate holds the next node, which field is wrong.")
    private String message;

    private Integer total;
    private Integer done;
    private Integer inProgress;
    private Integer waiting;
    private Integer failed;

    @JsonPropertyDescription("The nodes in progress or soaking now.")
    private List<String> currentBatch = new ArrayList<>();

    @JsonPropertyDescription("When the rollout should complete at the pace of the nodes done so far (RFC 3339);"
            + " absent until a node is done.")
    private String eta;

    @JsonPropertyDescription("Each node started or skipped, in start order; a selected node not listed waits.")
    private List<NodeRecord> nodes = new ArrayList<>();

    private Long observedGeneration;

    @JsonPropertyDescription("The health gates closed now: each holds a done node's slot (or every start), since when,"
            + " and what it waits on.")
    private List<GateStatus> gates;

    public List<GateStatus> getGates() {
        return gates;
    }

    public void setGates(List<GateStatus> gates) {
        this.gates = gates;
    }

    public RolloutPhase getPhase() {
        return phase;
    }

    public void setPhase(RolloutPhase phase) {
        this.phase = phase;
    }

    public String getReason() {
        return reason;
    }

    public void setReason(String reason) {
        this.reason = reason;
    }

    public String getMessage() {
        return message;
    }

    public void setMessage(String message) {
        this.message = message;
    }

    public Integer getTotal() {
        return total;
    }

    public void setTotal(Integer total) {
        this.total = total;
    }

    public Integer getDone() {
        return done;
    }

    public void setDone(Integer done) {
        this.done = done;
    }

    public Integer getInProgress() {
        return inProgress;
    }

    public void setInProgress(Integer inProgress) {
        this.inProgress = inProgress;
    }

    public Integer getWaiting() {
        return waiting;
    }

    public void setWaiting(Integer waiting) {
        this.waiting = waiting;
    }

    public Integer getFailed() {
        return failed;
    }

    public void setFailed(Integer failed) {
        this.failed = failed;
    }

    public List<String> getCurrentBatch() {
        return currentBatch;
    }

    public void setCurrentBatch(List<String> currentBatch) {
        this.currentBatch = currentBatch;
    }

    public String getEta() {
        return eta;
    }

    public void setEta(String eta) {
        this.eta = eta;
    }

    public List<NodeRecord> getNodes() {
        return nodes;
    }

    public void setNodes(List<NodeRecord> nodes) {
        this.nodes = nodes;
    }

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }
}
