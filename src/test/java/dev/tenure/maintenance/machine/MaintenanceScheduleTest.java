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
            over midnight, end exclusive: at 04:00 shut  | -                    | -          | 22:00 | 04:00 | -             | 2026-11-27T04:00:00Z | closed | 2026-11-27T22:00:00Z
            over midnight, a second before its end       | -                    | -          | 22:00 | 04:00 | -             | 2026-11-27T03:59:59Z | open   | 2026-11-27T04:00:00Z
            over midnight, Friday's morning is Thursday's | -                   | fri        | 22:00 | 04:00 | -             | 2026-11-27T03:00:00Z | closed | 2026-11-27T22:00:00Z
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

    /**
     * Clock changes. Europe/Berlin goes forward on 2026-03-29 at 01:00Z (02:00 CET becomes 03:00 CEST: 02:00-02:59
     * does not exist) and back on 2026-10-25 at 01:00Z (03:00 CEST becomes 02:00 CET: 02:00-02:59 happens twice,
     * 00:00Z-01:00Z and 01:00Z-02:00Z). Australia/Lord_Howe goes forward by 30 minutes on 2026-10-04 (02:00 +10:30
     * becomes 02:30 +11, at 2026-10-03T15:30Z). Pacific/Apia skipped Friday 2011-12-30 (Thursday 23:59:59 -10 was
     * followed by Saturday 00:00 +14, at 2011-12-30T10:00Z). The window is open exactly while the local time is
     * inside it: both passes of a repeated hour, never a skipped one, never a local time outside it.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(nullValues = "-", delimiter = '|', textBlock = """
            fall back: first pass of 02:30 opens          | -   | 02:30 | 03:00 | Europe/Berlin      | 2026-10-25T00:30:00Z | open   | 2026-10-25T01:00:00Z
            fall back: 02:00 CET, second pass, outside    | -   | 02:30 | 03:00 | Europe/Berlin      | 2026-10-25T01:00:00Z | closed | 2026-10-25T01:30:00Z
            fall back: 02:15 CET, second pass, outside    | -   | 02:30 | 03:00 | Europe/Berlin      | 2026-10-25T01:15:00Z | closed | 2026-10-25T01:30:00Z
            fall back: second pass of 02:30 opens again   | -   | 02:30 | 03:00 | Europe/Berlin      | 2026-10-25T01:30:00Z | open   | 2026-10-25T02:00:00Z
            fall back: 03:00 CET, shut till Sunday next   | sun | 02:30 | 03:00 | Europe/Berlin      | 2026-10-25T02:00:00Z | closed | 2026-11-01T01:30:00Z
            fall back: a window round the hour stays open | -   | 01:00 | 04:00 | Europe/Berlin      | 2026-10-25T01:00:00Z | open   | 2026-10-25T03:00:00Z
            fall back: 01:30-02:30, back into it at 01:00Z | -  | 01:30 | 02:30 | Europe/Berlin      | 2026-10-25T00:45:00Z | closed | 2026-10-25T01:00:00Z
            fall back over midnight, Saturday's window    | sat | 22:00 | 04:00 | Europe/Berlin      | 2026-10-25T01:30:00Z | open   | 2026-10-25T03:00:00Z
            spring gap: whole window skipped, next Sunday | sun | 02:30 | 03:00 | Europe/Berlin      | 2026-03-29T00:00:00Z | closed | 2026-04-05T00:30:00Z
            spring gap: whole window skipped, tomorrow    | -   | 02:30 | 03:00 | Europe/Berlin      | 2026-03-29T00:00:00Z | closed | 2026-03-30T00:30:00Z
            spring gap: 03:30 CEST is outside 02:30-03:00 | -   | 02:30 | 03:00 | Europe/Berlin      | 2026-03-29T01:30:00Z | closed | 2026-03-30T00:30:00Z
            spring gap: end in the gap closes at the gap  | -   | 01:30 | 02:30 | Europe/Berlin      | 2026-03-29T00:45:00Z | open   | 2026-03-29T01:00:00Z
            spring gap: 03:15 CEST is after 01:30-02:30   | -   | 01:30 | 02:30 | Europe/Berlin      | 2026-03-29T01:15:00Z | closed | 2026-03-29T23:30:00Z
            spring gap: start in the gap opens at 03:00   | -   | 02:30 | 04:00 | Europe/Berlin      | 2026-03-29T00:59:00Z | closed | 2026-03-29T01:00:00Z
            spring gap: 03:10 CEST is inside 02:30-04:00  | -   | 02:30 | 04:00 | Europe/Berlin      | 2026-03-29T01:10:00Z | open   | 2026-03-29T02:00:00Z
            Lord Howe: 30-minute gap swallows 02:00-02:30 | sun | 02:00 | 02:30 | Australia/Lord_Howe | 2026-10-03T14:00:00Z | closed | 2026-10-10T15:00:00Z
            Lord Howe: 02:00-03:00 opens at 02:30 +11     | sun | 02:00 | 03:00 | Australia/Lord_Howe | 2026-10-03T14:00:00Z | closed | 2026-10-03T15:30:00Z
            Apia: no Friday 2011-12-30, next Friday       | fri | 10:00 | 11:00 | Pacific/Apia       | 2011-12-29T22:00:00Z | closed | 2012-01-05T20:00:00Z
            Apia: Saturday 10:30 is not a Friday          | fri | 10:00 | 11:00 | Pacific/Apia       | 2011-12-30T20:30:00Z | closed | 2012-01-05T20:00:00Z
            Apia: Thursday's window over the lost day     | thu | 22:00 | 04:00 | Pacific/Apia       | 2011-12-30T09:00:00Z | open   | 2011-12-30T10:00:00Z
            """)
    void isOpenExactlyWhileTheLocalTimeIsInsideIt(
            String name, String days, String start, String end, String zone, String now, String expected, String when) {
        mayStartOnlyInsideItsWindowAndNotBeforeStartAt(name, null, days, start, end, zone, now, expected, when);
    }

    @Test
    void aSkippedOpeningIsSaidWithTheNextOne() {
        Verdict v = schedule(null, "sun", "02:30", "03:00", "Europe/Berlin").at(Instant.parse("2026-03-29T00:00:00Z"));

        assertThat(v)
                .isInstanceOfSatisfying(
                        Verdict.Closed.class,
                        c -> assertThat(c.why())
                                .isEqualTo("outside its window (sun 02:30-03:00 Europe/Berlin); the next one opens at "
                                        + "2026-04-05T00:30:00Z; it does not open on 2026-03-29: the clocks of "
                                        + "Europe/Berlin skip the whole window that day"));
    }

    @Test
    void anOpeningMovedByTheClocksSaysItsLocalTime() {
        Verdict gap = schedule(null, null, "02:30", "04:00", "Europe/Berlin").at(Instant.parse("2026-03-29T00:59:00Z"));
        Verdict back =
                schedule(null, null, "01:30", "02:30", "Europe/Berlin").at(Instant.parse("2026-10-25T00:45:00Z"));

        assertThat(gap)
                .isInstanceOfSatisfying(
                        Verdict.Closed.class,
                        c -> assertThat(c.why())
                                .endsWith("the next one opens at 2026-03-29T01:00:00Z (02:30 does not exist on "
                                        + "2026-03-29 in Europe/Berlin (the clocks skip from 02:00 to 03:00): it opens"
                                        + " at 03:00 local time)"));
        assertThat(back)
                .isInstanceOfSatisfying(
                        Verdict.Closed.class,
                        c -> assertThat(c.why())
                                .endsWith("the next one opens at 2026-10-25T01:00:00Z (it opens at 02:00 local time,"
                                        + " when the clocks of Europe/Berlin go back into the window)"));
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
