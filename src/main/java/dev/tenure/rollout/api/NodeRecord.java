package dev.tenure.rollout.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.ObjectReference;
import java.util.List;

/**
 * One node the rollout started (or skipped), in status: written before the node's child is created, so an operator
 * restart neither repeats a node nor loses one in flight, and the boot ID seen before the maintenance survives it.
 * Times are RFC 3339.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class NodeRecord {
    private String name;
    private NodeState state;

    @JsonPropertyDescription("status.nodeInfo.bootID when the node's maintenance started.")
    private String bootIDBefore;

    private String startedAt;

    @JsonPropertyDescription("When its child NodeMaintenance was first seen Succeeded (drained).")
    private String drainedAt;

    @JsonPropertyDescription("When its done signal was seen.")
    private String doneAt;

    @JsonPropertyDescription("When it finished soaking (state Done), or failed (state Failed).")
    private String endedAt;

    private String message;

    @JsonPropertyDescription("While the node is in flight: the controllers its NodeMaintenance's drain removed pods of"
            + " (its status.drainedWorkloads), which must be whole again before the node's slot goes to the next"
            + " node (spec.health.workloadsWhole).")
    private List<ObjectReference> workloads;

    public NodeRecord() {}

    public NodeRecord(String name, NodeState state) {
        this.name = name;
        this.state = state;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public NodeState getState() {
        return state;
    }

    public void setState(NodeState state) {
        this.state = state;
    }

    public String getBootIDBefore() {
        return bootIDBefore;
    }

    public void setBootIDBefore(String bootIDBefore) {
        this.bootIDBefore = bootIDBefore;
    }

    public String getStartedAt() {
        return startedAt;
    }

    public void setStartedAt(String startedAt) {
        this.startedAt = startedAt;
    }

    public String getDrainedAt() {
        return drainedAt;
    }

    public void setDrainedAt(String drainedAt) {
        this.drainedAt = drainedAt;
    }

    public String getDoneAt() {
        return doneAt;
    }

    public void setDoneAt(String doneAt) {
        this.doneAt = doneAt;
    }

    public String getEndedAt() {
        return endedAt;
    }

    public void setEndedAt(String endedAt) {
        this.endedAt = endedAt;
    }

    public String getMessage() {
        return message;
    }

    public void setMessage(String message) {
        this.message = message;
    }

    public List<ObjectReference> getWorkloads() {
        return workloads;
    }

    public void setWorkloads(List<ObjectReference> workloads) {
        this.workloads = workloads;
    }
}
