package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** When a maintenance may start (issue 29: scheduled start). Validated by the operator (MaintenanceSchedule). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class ScheduleSpec {

    @JsonPropertyDescription("Start no earlier than this RFC 3339 time (e.g. 2026-12-01T02:00:00Z).")
    private String startAt;

    @JsonPropertyDescription(
            "Start only inside this recurring window (Kured's reboot window); phase Scheduled until" + " it opens.")
    private RecurringWindowSpec window;

    public ScheduleSpec() {}

    public ScheduleSpec(String startAt, RecurringWindowSpec window) {
        this.startAt = startAt;
        this.window = window;
    }

    public String getStartAt() {
        return startAt;
    }

    public void setStartAt(String startAt) {
        this.startAt = startAt;
    }

    public RecurringWindowSpec getWindow() {
        return window;
    }

    public void setWindow(RecurringWindowSpec window) {
        this.window = window;
    }
}
