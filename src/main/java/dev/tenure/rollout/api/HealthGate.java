package dev.tenure.rollout.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.tenure.maintenance.api.GoDuration;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.kubernetes.api.model.LabelSelector;

/** What must hold before a done node's slot goes to the next node, and what holds a node back before it starts. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class HealthGate {

    @Pattern(GoDuration.PATTERN)
    @JsonPropertyDescription(
            "A done node keeps its slot until it has been Ready this long (the AKS/GKE soak time);" + " default 0s.")
    private String soak;

    @Pattern(GoDuration.PATTERN)
    @JsonPropertyDescription("A done node that has not soaked this long after it was done has failed (reason"
            + " SoakTimeout; counts against spec.failureBudget). Default 30m.")
    private String soakTimeout;

    @JsonPropertyDescription("Kured's --blocking-pod-selector: a node with a matching pod bound to it (any namespace,"
            + " phase not Succeeded, Failed or Unknown) is not started (it waits without holding a slot) until no such"
            + " pod is on it. Per node, as Kured.")
    private LabelSelector blockingPodSelector;

    @JsonPropertyDescription("Kured's Prometheus alert gate, the rollout's gate Alerts: while an alert that counts is"
            + " active, or Prometheus cannot be asked, no new node starts (nodes in flight go on); closed for"
            + " gateTimeout, it pauses the rollout. Unset: no alert gate.")
    private PrometheusAlerts alerts;

    @JsonPropertyDescription("Before a done node's slot goes to the next node, wait until every workload its drain"
            + " evicted pods of is whole again: a ReplicaSet (a Deployment's) with status.availableReplicas and"
            + " status.replicas equal to spec.replicas, a StatefulSet with status.replicas, readyReplicas and"
            + " availableReplicas equal to spec.replicas, each status of the current generation. Default true.")
    private Boolean workloadsWhole;

    @Pattern(GoDuration.PATTERN)
    @JsonPropertyDescription("A health gate closed this long (a done node whose workloads are not whole again, alerts"
            + " firing or Prometheus unreachable) pauses"
            + " the rollout: phase Paused, reason GateTimeout, no new node starts; it goes on by itself when the gate"
            + " opens. The node is not failed (unlike soakTimeout, which judges the node itself). Default 30m.")
    private String gateTimeout;

    public Boolean getWorkloadsWhole() {
        return workloadsWhole;
    }

    public void setWorkloadsWhole(Boolean workloadsWhole) {
        this.workloadsWhole = workloadsWhole;
    }

    public String getGateTimeout() {
        return gateTimeout;
    }

    public void setGateTimeout(String gateTimeout) {
        this.gateTimeout = gateTimeout;
    }

    public String getSoak() {
        return soak;
    }

    public void setSoak(String soak) {
        this.soak = soak;
    }

    public String getSoakTimeout() {
        return soakTimeout;
    }

    public void setSoakTimeout(String soakTimeout) {
        this.soakTimeout = soakTimeout;
    }

    public LabelSelector getBlockingPodSelector() {
        return blockingPodSelector;
    }

    public void setBlockingPodSelector(LabelSelector blockingPodSelector) {
        this.blockingPodSelector = blockingPodSelector;
    }

    public PrometheusAlerts getAlerts() {
        return alerts;
    }

    public void setAlerts(PrometheusAlerts alerts) {
        this.alerts = alerts;
    }
}
