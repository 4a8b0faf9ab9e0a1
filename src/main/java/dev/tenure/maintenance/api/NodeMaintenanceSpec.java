package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.tenure.kube.UserText;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** What maintenance to do; durations are Go-style strings ("90s", "5m", "1h30m"). */
@JsonInclude(JsonInclude.Include.NON_NULL)
// A newer CRD (or a cluster that does not prune) may carry fields this version does not know: ignored, so
// one such object never stops the informer that reads every NodeMaintenance (issue 16).
@JsonIgnoreProperties(ignoreUnknown = true)
public class NodeMaintenanceSpec {

    /** A Node name is a DNS subdomain (RFC 1123), as the API server requires. */
    public static final String NODE_NAME_PATTERN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

    public static final int MAX_NODE_NAME = 253;
    /** The reason goes into events and the Node condition's message: kept to what those show well. */
    public static final int MAX_REASON = 1024;

    @Required
    @Size(min = 1, max = MAX_NODE_NAME)
    @Pattern(NODE_NAME_PATTERN)
    @ValidationRule(value = "self == oldSelf", message = "spec.nodeName is immutable")
    @JsonPropertyDescription("Node to put into maintenance (immutable).")
    private String nodeName;

    @Size(max = MAX_REASON)
    @ValidationRule(
            value = UserText.NO_CONTROL_CHARACTERS_RULE,
            message = "spec.reason must not contain control characters")
    @JsonPropertyDescription("Why the node is in maintenance; shown in events and the Node condition. One line of"
            + " text: no control characters.")
    private String reason;

    @Pattern(GoDuration.PATTERN)
    @JsonPropertyDescription("Optional: maintenance ends by itself after this long (phase Ended); a Go duration of"
            + " at most " + GoDuration.MAX_TEXT + ", the same limit as the node annotation door's.")
    private String window;

    @JsonPropertyDescription("How to drain the node (kubectl drain options).")
    private DrainSpec drain;

    @JsonPropertyDescription("Hand leadership of leases held on the node to other candidates before draining.")
    private HandoverSpec handover;

    // ---- issue 29 (drain half): preview --------------------------------------------------------------------

    @JsonPropertyDescription("Dry run: fill status.drainPlan with what the drain would do (each pod, its behaviour,"
            + " wave and blocking PodDisruptionBudget) without touching the node: no lease, cordon, taint or"
            + " eviction. Set it to false to start the maintenance.")
    private Boolean preview;

    public Boolean getPreview() {
        return preview;
    }

    public void setPreview(Boolean preview) {
        this.preview = preview;
    }

    // ---- Issue 29, lifecycle (hooks, scheduled start): fields of their own, apart from the drain rules' block.

    @JsonPropertyDescription(
            "When the maintenance may start: startAt and/or a recurring window; phase Scheduled" + " until then.")
    private ScheduleSpec schedule;

    @JsonPropertyDescription("Lifecycle hooks (annotations pre-drain.hooks.tenure.dev/<owner> and"
            + " pre-uncordon.hooks.tenure.dev/<owner> on this object): how long they may hold it.")
    private HooksSpec hooks;

    public ScheduleSpec getSchedule() {
        return schedule;
    }

    public void setSchedule(ScheduleSpec schedule) {
        this.schedule = schedule;
    }

    public HooksSpec getHooks() {
        return hooks;
    }

    public void setHooks(HooksSpec hooks) {
        this.hooks = hooks;
    }

    // ---- end of the issue 29 lifecycle block

    // ---- Issue 29, the fair queue

    @JsonPropertyDescription("Place in the queue when tenure.maintenance.max-nodes-in-maintenance or"
            + " tenure.maintenance.max-nodes-in-maintenance-per-topology (per value of tenure.maintenance.topology-key)"
            + " holds this maintenance Pending: higher first (default 0, may be negative), then the earlier created,"
            + " then the name. Nodes in maintenance, promised to requests ahead, or unavailable for another reason"
            + " (cordoned, NotReady) count against each cap. A free slot goes to the first in the queue it admits; a"
            + " request held by a limit of its own (its topology domain's cap, the control-plane budget) is passed"
            + " over until that limit allows it, then takes its place by priority again.")
    private Integer priority;

    public Integer getPriority() {
        return priority;
    }

    public void setPriority(Integer priority) {
        this.priority = priority;
    }

    // ---- end of the fair queue block

    // ---- Issue 29, shared requests

    @JsonPropertyDescription("Join the maintenance already on the node instead of being refused as a duplicate: the"
            + " node is restored only when the last of the maintenances sharing it ends. The first one keeps the node"
            + " lease and the undo; a joiner touches nothing on the node. Default false.")
    private Boolean join;

    public Boolean getJoin() {
        return join;
    }

    public void setJoin(Boolean join) {
        this.join = join;
    }

    // ---- end of the shared requests block

    public NodeMaintenanceSpec() {}

    public NodeMaintenanceSpec(String nodeName, String reason) {
        this.nodeName = nodeName;
        this.reason = reason;
    }

    public String getNodeName() {
        return nodeName;
    }

    public void setNodeName(String nodeName) {
        this.nodeName = nodeName;
    }

    public String getReason() {
        return reason;
    }

    public void setReason(String reason) {
        this.reason = reason;
    }

    public String getWindow() {
        return window;
    }

    public void setWindow(String window) {
        this.window = window;
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
}
