package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import java.util.List;

/** The wait for the node's volumes to detach after the drain (Cluster API's nodeVolumeDetachTimeout). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class VolumeDetachSpec {

    @Pattern(GoDuration.PATTERN)
    @JsonPropertyDescription("Longest wait after the drain; at it, onTimeout decides (default Fail: phase"
            + " Failed, reason VolumeDetachTimedOut, attachments named). Empty or 0: no limit.")
    private String timeout;

    @JsonPropertyDescription("What the timeout does: Fail (default: phase Failed, node stays cordoned), Proceed"
            + " (Succeeded, the attachments left named in status.timeoutsPassed; Cluster API's nodeVolumeDetachTimeout)"
            + " or Restore (node restored, lease released, phase Ended).")
    private TimeoutOutcome onTimeout;

    @JsonPropertyDescription("CSI drivers (VolumeAttachment spec.attacher) whose attachments do not hold the node.")
    private List<String> ignoreAttachers;

    public String getTimeout() {
        return timeout;
    }

    public void setTimeout(String timeout) {
        this.timeout = timeout;
    }

    public TimeoutOutcome getOnTimeout() {
        return onTimeout;
    }

    public void setOnTimeout(TimeoutOutcome onTimeout) {
        this.onTimeout = onTimeout;
    }

    public List<String> getIgnoreAttachers() {
        return ignoreAttachers;
    }

    public void setIgnoreAttachers(List<String> ignoreAttachers) {
        this.ignoreAttachers = ignoreAttachers;
    }
}
