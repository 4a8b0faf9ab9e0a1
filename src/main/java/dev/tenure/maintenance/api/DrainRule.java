package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.LabelSelector;

/**
 * One entry of {@code spec.drain.rules}: the pods it selects (both selectors must match; an absent one matches
 * every pod) get its behaviour and, when set, its order (Cluster API's MachineDrainRule, per maintenance).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
@ValidationRule(
        value = "!has(self.order) || !has(self.behavior) || self.behavior == 'Drain'",
        message = "not allowed with behavior Skip or WaitCompleted (only a Drain rule has an order)",
        fieldPath = ".order")
public class DrainRule {

    @JsonPropertyDescription("Namespaces whose pods the rule selects, by the namespace's labels"
            + " (kubernetes.io/metadata.name holds its name). Absent: every namespace.")
    private LabelSelector namespaceSelector;

    @JsonPropertyDescription("Pods the rule selects, by their labels. Absent: every pod.")
    private LabelSelector podSelector;

    @JsonPropertyDescription("Drain (default): evicted in its wave; Skip: never evicted, not waited for;"
            + " WaitCompleted: never evicted, in wave 0, which (with every later wave) waits until it finishes"
            + " (spec.drain.waitCompletedTimeout). DaemonSet and mirror pods are filtered out before any rule.")
    private DrainBehavior behavior;

    @JsonPropertyDescription("Wave of the selected pods, only with behavior Drain: lower orders are drained first,"
            + " the next wave only when the previous wave's pods are gone. Absent: the default, one wave for every"
            + " ordinary pod, then system-cluster-critical pods, then system-node-critical and DaemonSet pods.")
    private Integer order;

    public DrainRule() {}

    public DrainRule(
            LabelSelector namespaceSelector, LabelSelector podSelector, DrainBehavior behavior, Integer order) {
        this.namespaceSelector = namespaceSelector;
        this.podSelector = podSelector;
        this.behavior = behavior;
        this.order = order;
    }

    public LabelSelector getNamespaceSelector() {
        return namespaceSelector;
    }

    public void setNamespaceSelector(LabelSelector namespaceSelector) {
        this.namespaceSelector = namespaceSelector;
    }

    public LabelSelector getPodSelector() {
        return podSelector;
    }

    public void setPodSelector(LabelSelector podSelector) {
        this.podSelector = podSelector;
    }

    public DrainBehavior getBehavior() {
        return behavior;
    }

    public void setBehavior(DrainBehavior behavior) {
        this.behavior = behavior;
    }

    public Integer getOrder() {
        return order;
    }

    public void setOrder(Integer order) {
        this.order = order;
    }
}
