package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;

/**
 * How long the lifecycle hooks (annotations {@code pre-drain.hooks.tenure.dev/<owner>} and
 * {@code pre-uncordon.hooks.tenure.dev/<owner>} on the NodeMaintenance) may hold it at one point.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class HooksSpec {

    @Pattern(GoDuration.PATTERN)
    @JsonPropertyDescription("Longest wait at one hook point (default 1h): at it, a pre-drain wait does what"
            + " onTimeout says; a pre-uncordon wait restores the node.")
    private String timeout;

    @JsonPropertyDescription("What a pre-drain wait does at the timeout: Restore (default: ends without draining, node"
            + " restored, lease released, phase Ended), Fail (phase Failed, node stays cordoned) or Proceed (drain"
            + " anyway, the hook owners still holding named in status.timeoutsPassed).")
    private TimeoutOutcome onTimeout;

    public HooksSpec() {}

    public HooksSpec(String timeout) {
        this.timeout = timeout;
    }

    public TimeoutOutcome getOnTimeout() {
        return onTimeout;
    }

    public void setOnTimeout(TimeoutOutcome onTimeout) {
        this.onTimeout = onTimeout;
    }

    public String getTimeout() {
        return timeout;
    }

    public void setTimeout(String timeout) {
        this.timeout = timeout;
    }
}
