package dev.tenure.maintenance.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import java.util.List;

/** A recurring window: days of the week, a start and end time of day, a time zone. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public class RecurringWindowSpec {

    /** A time of day, HH:MM (24 h). */
    public static final String TIME_PATTERN = "^([01][0-9]|2[0-3]):[0-5][0-9]$";

    @Size(max = 7)
    @JsonPropertyDescription("Days the window opens (mon, tue, ... or full names); default every day.")
    private List<String> days;

    @Pattern(TIME_PATTERN)
    @JsonPropertyDescription("Opens at this time of day (inclusive), HH:MM in timeZone.")
    private String start;

    @Pattern(TIME_PATTERN)
    @JsonPropertyDescription(
            "Closes at this time of day (exclusive), HH:MM in timeZone; not after start = the next day (the"
                    + " window belongs to the day it opens). Open exactly while the local time is inside it.")
    private String end;

    @Size(max = 64)
    @JsonPropertyDescription("IANA time zone of start and end (e.g. Europe/Berlin); default UTC.")
    private String timeZone;

    public RecurringWindowSpec() {}

    public RecurringWindowSpec(List<String> days, String start, String end, String timeZone) {
        this.days = days;
        this.start = start;
        this.end = end;
        this.timeZone = timeZone;
    }

    public List<String> getDays() {
        return days;
    }

    public void setDays(List<String> days) {
        this.days = days;
    }

    public String getStart() {
        return start;
    }

    public void setStart(String start) {
        this.start = start;
    }

    public String getEnd() {
        return end;
    }

    public void setEnd(String end) {
        this.end = end;
    }

    public String getTimeZone() {
        return timeZone;
    }

    public void setTimeZone(String timeZone) {
        this.timeZone = timeZone;
    }
}
