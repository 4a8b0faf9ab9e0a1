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
            "Give up (phase Failed, blocking pods named) when the drain takes longer. Empty or 0: no limit.")
    private String timeout;

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
    @JsonPropertyDescription("Wait before retrying an eviction refused by a PodDisruptionBudget (429). Default 5s.")
    private String evictionRetryDelay;

    @Pattern(GoDuration.PATTERN)
    @JsonPropertyDescription(
            "Pods terminating for longer than this count as gone. Empty: wait (except on a node whose kubelet is stale).")
    private String skipWaitForDeleteTimeout;

    @JsonPropertyDescription("Delete pods instead of evicting them (bypasses PodDisruptionBudgets).")
    private Boolean disableEviction;

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
