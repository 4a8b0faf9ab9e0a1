package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** Where a scheduled maintenance stands with its schedule. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class ScheduleStatus {

    @JsonPropertyDescription("RFC 3339 time it may start (phase Scheduled until then).")
    private String nextStart;

    @JsonPropertyDescription("RFC 3339 time the window it started in closes.")
    private String windowCloses;

    @JsonPropertyDescription("Why it waits, or that its drain may not (or did not) finish inside its window.")
    private String message;

    public ScheduleStatus() {}

    public ScheduleStatus(String nextStart, String windowCloses, String message) {
        this.nextStart = nextStart;
        this.windowCloses = windowCloses;
        this.message = message;
    }

    public String getNextStart() {
        return nextStart;
    }

    public void setNextStart(String nextStart) {
        this.nextStart = nextStart;
    }

    public String getWindowCloses() {
        return windowCloses;
    }

    public void setWindowCloses(String windowCloses) {
        this.windowCloses = windowCloses;
    }

    public String getMessage() {
        return message;
    }

    public void setMessage(String message) {
        this.message = message;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScheduleStatus s
                && Objects.equals(nextStart, s.nextStart)
                && Objects.equals(windowCloses, s.windowCloses)
                && Objects.equals(message, s.message);
    }

    @Override
    public int hashCode() {
        return Objects.hash(nextStart, windowCloses, message);
    }
}
