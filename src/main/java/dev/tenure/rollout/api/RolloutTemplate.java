package dev.tenure.rollout.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.HandoverSpec;
import dev.tenure.maintenance.api.HooksSpec;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;

/**
 * The child NodeMaintenance's spec minus {@code nodeName}. Fields of NodeMaintenance that would fight the rollout's
 * pacing are left out: {@code window} (the rollout ends a child when its node is done), {@code schedule} (the
 * rollout decides when a node starts), {@code preview} and {@code join}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class RolloutTemplate {

    @JsonPropertyDescription("The children's spec.reason.")
    private String reason;

    @JsonPropertyDescription("The children's spec.drain.")
    private DrainSpec drain;

    @JsonPropertyDescription("The children's spec.handover.")
    private HandoverSpec handover;

    @JsonPropertyDescription("The children's spec.hooks.")
    private HooksSpec hooks;

    @JsonPropertyDescription("The children's spec.priority.")
    private Integer priority;

    /** The spec of the child that maintains {@code nodeName}. */
    public NodeMaintenanceSpec childSpec(String nodeName) {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec(nodeName, reason);
        spec.setDrain(drain);
        spec.setHandover(handover);
        spec.setHooks(hooks);
        spec.setPriority(priority);
        return spec;
    }

    public String getReason() {
        return reason;
    }

    public void setReason(String reason) {
        this.reason = reason;
    }

    public DrainSpec getDrain() {
        return drain;
    }

    public void setDrain(DrainSpec drain) {
        this.drain = drain;
    }

    public HandoverSpec getHandover() {
        return handover;
    }

    public void setHandover(HandoverSpec handover) {
        this.handover = handover;
    }

    public HooksSpec getHooks() {
        return hooks;
    }

    public void setHooks(HooksSpec hooks) {
        this.hooks = hooks;
    }

    public Integer getPriority() {
        return priority;
    }

    public void setPriority(Integer priority) {
        this.priority = priority;
    }
}
