package dev.tenure.rollout.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.List;

/** Which nodes, how many at once, what each child maintenance does, when a node is done, when to stop. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class RolloutSpec {

    @JsonPropertyDescription("Nodes whose labels match this selector are in the pool (with spec.nodes). The pool is"
            + " read live: a node that matches later joins it; status.nodes records each node it took.")
    private LabelSelector nodeSelector;

    @JsonPropertyDescription("Nodes named here are in the pool too (with spec.nodeSelector); at least one of the two.")
    private List<String> nodes;

    @JsonPropertyDescription("How many selected nodes may be unavailable at once: a count, or a percentage of the"
            + " selected nodes rounded down (50% of 11 is 5), then 1 if that is 0: the Deployment controller's and"
            + " Cluster API's ResolveFenceposts with maxSurge 0 (a rollout has no surge). Nodes in maintenance, soaking, cordoned or NotReady for any"
            + " reason count. Nodes are admitted one at a time against it. Default 1.")
    private IntOrString maxUnavailable;

    @JsonPropertyDescription("At most this many selected nodes unavailable in one topology domain (the value of"
            + " spec.topologyKey) at once. Default: no limit per domain.")
    private Integer maxUnavailablePerDomain;

    @JsonPropertyDescription("The node label whose value is a topology domain; default topology.kubernetes.io/zone.")
    private String topologyKey;

    @JsonPropertyDescription("The order nodes are started in: by the value of this node label (nodes without it last),"
            + " then by name. Default: spec.topologyKey, that is zone by zone. A node whose domain is full is passed"
            + " over for the next one in order.")
    private String orderByLabel;

    @JsonPropertyDescription("The spec of each child NodeMaintenance, without nodeName (the rollout sets it).")
    private RolloutTemplate template;

    @JsonPropertyDescription("When a node's maintenance is done (exactly one signal); then its NodeMaintenance is"
            + " deleted, which undoes it as today.")
    private DoneWhen doneWhen;

    @JsonPropertyDescription("What must hold before a done node's slot is given to the next node.")
    private HealthGate health;

    @JsonPropertyDescription("After this many nodes failed (a count, or a percentage of the selected nodes rounded"
            + " down, then 1 if that is 0: the budget pauses at its value, so 0 would pause before the first node),"
            + " the rollout pauses (reason FailureBudget) instead of starting more. Raise it"
            + " to go on. Default 1.")
    private IntOrString failureBudget;

    @JsonPropertyDescription("true: start no new node; nodes in progress finish. false again resumes where it stopped.")
    private Boolean paused;

    public LabelSelector getNodeSelector() {
        return nodeSelector;
    }

    public void setNodeSelector(LabelSelector nodeSelector) {
        this.nodeSelector = nodeSelector;
    }

    public List<String> getNodes() {
        return nodes;
    }

    public void setNodes(List<String> nodes) {
        this.nodes = nodes;
    }

    public IntOrString getMaxUnavailable() {
        return maxUnavailable;
    }

    public void setMaxUnavailable(IntOrString maxUnavailable) {
        this.maxUnavailable = maxUnavailable;
    }

    public Integer getMaxUnavailablePerDomain() {
        return maxUnavailablePerDomain;
    }

    public void setMaxUnavailablePerDomain(Integer maxUnavailablePerDomain) {
        this.maxUnavailablePerDomain = maxUnavailablePerDomain;
    }

    public String getTopologyKey() {
        return topologyKey;
    }

    public void setTopologyKey(String topologyKey) {
        this.topologyKey = topologyKey;
    }

    public String getOrderByLabel() {
        return orderByLabel;
    }

    public void setOrderByLabel(String orderByLabel) {
        this.orderByLabel = orderByLabel;
    }

    public RolloutTemplate getTemplate() {
        return template;
    }

    public void setTemplate(RolloutTemplate template) {
        this.template = template;
    }

    public DoneWhen getDoneWhen() {
        return doneWhen;
    }

    public void setDoneWhen(DoneWhen doneWhen) {
        this.doneWhen = doneWhen;
    }

    public HealthGate getHealth() {
        return health;
    }

    public void setHealth(HealthGate health) {
        this.health = health;
    }

    public IntOrString getFailureBudget() {
        return failureBudget;
    }

    public void setFailureBudget(IntOrString failureBudget) {
        this.failureBudget = failureBudget;
    }

    public Boolean getPaused() {
        return paused;
    }

    public void setPaused(Boolean paused) {
        this.paused = paused;
    }
}
