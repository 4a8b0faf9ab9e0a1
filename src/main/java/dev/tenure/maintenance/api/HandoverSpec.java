package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;

/** Leadership handover between cordon and drain. */
@JsonInclude(JsonInclude.Include.NON_NULL)
// A newer CRD (or a cluster that does not prune) may carry fields this version does not know: ignored, so
// one such object never stops the informer that reads every NodeMaintenance (issue 16).
@JsonIgnoreProperties(ignoreUnknown = true)
public class HandoverSpec {

    @Default("true")
    @JsonPropertyDescription("Move leadership of leases held on the node before draining (default true).")
    private Boolean enabled;

    @Pattern(GoDuration.PATTERN)
    @Default("30s")
    @JsonPropertyDescription("Drain anyway when the handover has not finished after this long (default 30s).")
    private String timeout;

    public Boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
    }

    public String getTimeout() {
        return timeout;
    }

    public void setTimeout(String timeout) {
        this.timeout = timeout;
    }
}
