package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.maintenance.machine.MaintenanceSchedule.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** When a scheduled maintenance may start: startAt, a recurring window in a time zone, and both together. */
class MaintenanceScheduleTest {

    private static MaintenanceSchedule schedule(String startAt, String days, String start, String end, String zone) {
        return MaintenanceSchedule.parse(
                startAt, days == null ? null : Arrays.asList(days.split(" ")), start, end, zone);
    }

    /**
     * now → open (and when the window closes), or closed (and when it opens). 2026-11-26 is a Thursday; in
     * Europe/Berlin it is UTC+1 in November, UTC+2 in summer (from 2026-03-29 01:00 UTC).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(nullValues = "-", delimiter = '|', textBlock = """
            no schedule: any time                        | -                    | -          | -     | -     | -             | 2026-11-26T12:00:00Z | open   | -
            before startAt: opens at startAt             | 2026-11-27T02:00:00Z | -          | -     | -     | -             | 2026-11-26T12:00:00Z | closed | 2026-11-27T02:00:00Z
            at startAt: open                             | 2026-11-27T02:00:00Z | -          | -     | -     | -             | 2026-11-27T02:00:00Z | open   | -
            inside a daily UTC window                    | -                    | -          | 02:00 | 05:00 | -             | 2026-11-26T03:00:00Z | open   | 2026-11-26T05:00:00Z
            at the window's start: open                  | -                    | -          | 02:00 | 05:00 | -             | 2026-11-26T02:00:00Z | open   | 2026-11-26T05:00:00Z
            at the window's end: closed till tomorrow    | -                    | -          | 02:00 | 05:00 | -             | 2026-11-26T05:00:00Z | closed | 2026-11-27T02:00:00Z
            before today's window                        | -                    | -          | 02:00 | 05:00 | -             | 2026-11-26T01:59:59Z | closed | 2026-11-26T02:00:00Z
            window in Berlin (UTC+1 in November)         | -                    | -          | 02:00 | 05:00 | Europe/Berlin | 2026-11-26T02:30:00Z | open   | 2026-11-26T04:00:00Z
            Berlin window, before it (01:00 UTC = 02:00) | -                    | -          | 02:00 | 05:00 | Europe/Berlin | 2026-11-26T00:30:00Z | closed | 2026-11-26T01:00:00Z
            Berlin window in summer (UTC+2)              | -                    | -          | 02:00 | 05:00 | Europe/Berlin | 2026-07-01T00:30:00Z | open   | 2026-07-01T03:00:00Z
            weekend only, on a Thursday: Saturday        | -                    | sat sun    | 02:00 | 05:00 | -             | 2026-11-26T03:00:00Z | closed | 2026-11-28T02:00:00Z
            weekend only, Sunday inside                  | -                    | Sat Sunday | 02:00 | 05:00 | -             | 2026-11-29T04:00:00Z | open   | 2026-11-29T05:00:00Z
            over midnight, after its start               | -                    | -          | 22:00 | 04:00 | -             | 2026-11-26T23:00:00Z | open   | 2026-11-27T04:00:00Z
            over midnight, next morning still open       | -                    | -          | 22:00 | 04:00 | -             | 2026-11-27T03:00:00Z | open   | 2026-11-27T04:00:00Z
            over midnight opened by yesterday, a Friday  | -                    | fri        | 22:00 | 04:00 | -             | 2026-11-28T03:00:00Z | open   | 2026-11-28T04:00:00Z
            over midnight, Saturday's morning not a day  | -                    | sat        | 22:00 | 04:00 | -             | 2026-11-28T03:00:00Z | closed | 2026-11-28T22:00:00Z
            startAt inside a window: opens at startAt    | 2026-11-26T03:00:00Z | -          | 02:00 | 05:00 | -             | 2026-11-26T02:30:00Z | closed | 2026-11-26T03:00:00Z
            startAt after today's window: tomorrow's     | 2026-11-26T06:00:00Z | -          | 02:00 | 05:00 | -             | 2026-11-26T02:30:00Z | closed | 2026-11-27T02:00:00Z
            startAt passed, inside the window            | 2026-11-20T00:00:00Z | -          | 02:00 | 05:00 | -             | 2026-11-26T02:30:00Z | open   | 2026-11-26T05:00:00Z
            daylight-saving gap: 02:30 does not exist    | -                    | sun        | 02:30 | 05:00 | Europe/Berlin | 2026-03-29T00:00:00Z | closed | 2026-03-29T01:30:00Z
            """)
    void mayStartOnlyInsideItsWindowAndNotBeforeStartAt(
            String name,
            String startAt,
            String days,
            String start,
            String end,
            String zone,
            String now,
            String expected,
            String when) {
        Verdict v = schedule(startAt, days, start, end, zone).at(Instant.parse(now));

        if (expected.equals("open")) {
            assertThat(v).isEqualTo(new Verdict.Open(Optional.ofNullable(when).map(Instant::parse)));
        } else {
            assertThat(v)
                    .isInstanceOfSatisfying(
                            Verdict.Closed.class, c -> assertThat(c.opens()).isEqualTo(Instant.parse(when)));
        }
    }

    @Test
    void aClosedWindowSaysWhichWindowAndWhenItOpens() {
        Verdict v =
                schedule(null, "sat sun", "02:00", "05:00", "Europe/Berlin").at(Instant.parse("2026-11-26T12:00:00Z"));

        assertThat(v)
                .isInstanceOfSatisfying(
                        Verdict.Closed.class,
                        c -> assertThat(c.why())
                                .isEqualTo(
                                        "outside its window (sat,sun 02:00-05:00 Europe/Berlin); the next one opens at "
                                                + "2026-11-28T01:00:00Z"));
    }

    @ParameterizedTest(name = "{5}")
    @CsvSource(nullValues = "-", delimiter = '|', textBlock = """
            yesterday | -     | -     | -           | -       | spec.schedule.startAt: must be an RFC 3339 time such as 2026-12-01T02:00:00Z, was "yesterday"
            -         | 02:00 | -     | -           | -       | spec.schedule.window: start and end are both required (HH:MM), was start=02:00, end=null
            -         | 2:00  | 05:00 | -           | -       | spec.schedule.window.start: must be a time of day as HH:MM (00:00 to 23:59), was "2:00"
            -         | 02:00 | 24:00 | -           | -       | spec.schedule.window.end: must be a time of day as HH:MM (00:00 to 23:59), was "24:00"
            -         | 02:00 | 02:00 | -           | -       | spec.schedule.window: start and end must differ, both were 02:00 (a window over midnight ends earlier than it starts, e.g. 22:00-04:00)
            -         | 02:00 | 05:00 | Mars/Olympus | -      | spec.schedule.window.timeZone: not a time zone: "Mars/Olympus" (an IANA name such as Europe/Berlin, or UTC)
            -         | 02:00 | 05:00 | -           | mon xyz | spec.schedule.window.days[1]: not a day of the week: "xyz" (use mon, tue, ... or full names)
            """)
    void badInputIsRefusedNamingTheField(String startAt, String start, String end, String zone, String days, String m) {
        assertThatThrownBy(() -> schedule(startAt, days, start, end, zone))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(m);
    }

    @Test
    void aDrainTimeoutLongerThanTheWindowLeftIsSaidAtTheStart() {
        Instant now = Instant.parse("2026-11-26T04:00:00Z");
        Instant closes = Instant.parse("2026-11-26T05:00:00Z");

        assertThat(MaintenanceSchedule.mayOverrun(now, closes, Optional.of(Duration.ofHours(2))))
                .contains("spec.drain.timeout 2h is longer than the 1h left in the window (it closes at "
                        + "2026-11-26T05:00:00Z): the drain may not finish inside it");
        assertThat(MaintenanceSchedule.mayOverrun(now, closes, Optional.of(Duration.ofMinutes(30))))
                .isEmpty();
        assertThat(MaintenanceSchedule.mayOverrun(now, closes, Optional.empty()))
                .isEmpty();
    }

    @Test
    void aDrainStillRunningWhenTheWindowClosesSaysSo() {
        Optional<Instant> closes = Optional.of(Instant.parse("2026-11-26T05:00:00Z"));

        assertThat(MaintenanceSchedule.overran(Instant.parse("2026-11-26T04:59:59Z"), closes))
                .isEmpty();
        assertThat(MaintenanceSchedule.overran(Instant.parse("2026-11-26T05:00:00Z"), closes))
                .hasValueSatisfying(
                        m -> assertThat(m).startsWith("the maintenance window closed at 2026-11-26T05:00:00Z"));
        assertThat(MaintenanceSchedule.overran(Instant.parse("2026-11-26T05:00:00Z"), Optional.empty()))
                .isEmpty();
    }

    @Test
    void noWindowFieldsMeansNoWindow() {
        assertThat(MaintenanceSchedule.parse(null, List.of(), null, null, null))
                .isEqualTo(MaintenanceSchedule.ANY_TIME);
    }
}
