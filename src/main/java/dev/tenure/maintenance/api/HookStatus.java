package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Objects;

/** The lifecycle hooks a maintenance waits on now. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class HookStatus {

    @JsonPropertyDescription("PreDrain or PreUncordon.")
    private String point;

    @JsonPropertyDescription("Owners of the hook annotations still present (<point>.hooks.tenure.dev/<owner>).")
    private List<String> waitingFor;

    @JsonPropertyDescription("RFC 3339 time the wait at this point began (spec.hooks.timeout counts from it).")
    private String since;

    public HookStatus() {}

    public HookStatus(String point, List<String> waitingFor, String since) {
        this.point = point;
        this.waitingFor = waitingFor;
        this.since = since;
    }

    public String getPoint() {
        return point;
    }

    public void setPoint(String point) {
        this.point = point;
    }

    public List<String> getWaitingFor() {
        return waitingFor;
    }

    public void setWaitingFor(List<String> waitingFor) {
        this.waitingFor = waitingFor;
    }

    public String getSince() {
        return since;
    }

    public void setSince(String since) {
        this.since = since;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HookStatus h
                && Objects.equals(point, h.point)
                && Objects.equals(waitingFor, h.waitingFor)
                && Objects.equals(since, h.since);
    }

    @Override
    public int hashCode() {
        return Objects.hash(point, waitingFor, since);
    }
}
