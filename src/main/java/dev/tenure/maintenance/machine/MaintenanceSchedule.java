package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.RecurringWindowSpec;
import dev.tenure.maintenance.drain.DrainReport;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * When a maintenance may start: not before {@code startAt}, and only inside a recurring window (days of the week, a
 * start and an end time of day, a time zone: Kured's reboot window). Pure: {@link #at(Instant)} says whether the
 * maintenance may start now, and if not, when it may. The window is open exactly while the local wall time is inside
 * it ({@link RecurringWindow}: over midnight it belongs to the day it opens, its end is exclusive, both passes of a
 * repeated hour count, a skipped hour never does).
 *
 * @param startAt the maintenance starts no earlier than this; empty = no earliest time
 * @param window the recurring window it starts in; empty = any time
 */
public record MaintenanceSchedule(Optional<Instant> startAt, Optional<RecurringWindow> window) {

    /** Day names as Kured writes them (su, mon, Tuesday...), case-insensitive. */
    private static final Map<String, DayOfWeek> DAY_NAMES = dayNames();

    public static final MaintenanceSchedule ANY_TIME = new MaintenanceSchedule(Optional.empty(), Optional.empty());

    public MaintenanceSchedule {
        startAt = startAt == null ? Optional.empty() : startAt;
        window = window == null ? Optional.empty() : window;
    }

    /** Whether the maintenance may start at a given time. */
    public sealed interface Verdict {
        /** It may start now; {@code closes} is when the window it starts in closes (empty: no window). */
        record Open(Optional<Instant> closes) implements Verdict {}

        /** Not yet: it may start at {@code opens}; {@code why} says what holds it, for status and events. */
        record Closed(Instant opens, String why) implements Verdict {}
    }

    /** Whether the maintenance may start at {@code now}, and when it may if not. */
    public Verdict at(Instant now) {
        boolean early = startAt.isPresent() && now.isBefore(startAt.get());
        Instant t = early ? startAt.get() : now;
        if (window.isEmpty()) {
            return early ? new Verdict.Closed(t, "spec.schedule.startAt is " + t) : new Verdict.Open(Optional.empty());
        }
        RecurringWindow w = window.get();
        if (w.isOpen(t)) {
            return early
                    // startAt falls inside a window: it opens for this maintenance at startAt
                    ? new Verdict.Closed(t, "spec.schedule.startAt is " + t)
                    : new Verdict.Open(Optional.of(w.nextClosed(t).orElseThrow(() -> never(w, t, "closing"))));
        }
        Instant next = w.nextOpen(t).orElseThrow(() -> never(w, t, "opening"));
        StringBuilder why =
                new StringBuilder("outside its window (" + describe(w) + "); the next one opens at " + next);
        w.shiftedOpening(next).ifPresent(note -> why.append(" (").append(note).append(')'));
        List<LocalDate> skipped = w.skippedBetween(t, next);
        if (!skipped.isEmpty()) {
            why.append("; it does not open on ")
                    .append(skipped.stream().map(Object::toString).collect(Collectors.joining(", ")))
                    .append(": the clocks of ")
                    .append(w.zone())
                    .append(" skip the whole window that day");
        }
        if (early) {
            why.append(" (after spec.schedule.startAt ").append(t).append(')');
        }
        return new Verdict.Closed(next, why.toString());
    }

    private static IllegalStateException never(RecurringWindow w, Instant t, String what) {
        return new IllegalStateException(
                "no " + what + " of " + describe(w) + " within " + RecurringWindow.HORIZON + " of " + t);
    }

    /**
     * The warning for a maintenance starting now in a window that closes at {@code closes}, when its drain may not
     * finish inside it: its {@code spec.drain.timeout} is longer than the time left. Empty when it fits (or no
     * timeout bounds the drain: then only the window's close can say, see {@link #overran}).
     */
    public static Optional<String> mayOverrun(Instant now, Instant closes, Optional<Duration> drainTimeout) {
        Duration left = Duration.between(now, closes);
        if (drainTimeout.isPresent() && drainTimeout.get().compareTo(left) > 0) {
            return Optional.of("spec.drain.timeout " + GoDuration.format(drainTimeout.get()) + " is longer than the "
                    + GoDuration.format(left) + " left in the window (it closes at " + closes
                    + "): the drain may not finish inside it");
        }
        return Optional.empty();
    }

    /**
     * The message for a maintenance whose drain is still running at {@code now}, past the close of the window it
     * started in; empty while the window is open (or there is none).
     */
    public static Optional<String> overran(Instant now, Optional<Instant> closes) {
        if (closes.isEmpty() || now.isBefore(closes.get())) {
            return Optional.empty();
        }
        return Optional.of("the maintenance window closed at " + closes.get()
                + " before the drain finished; the drain goes on (the node stays cordoned) until it succeeds, fails"
                + " or the NodeMaintenance is deleted");
    }

    /**
     * Reads the spec's schedule; throws {@link IllegalArgumentException} naming the bad field.
     *
     * @param startAt RFC 3339 time, or null
     * @param days day names (mon, Tue, sunday...), or null/empty for every day
     * @param start window start as HH:mm, or null for no window (then end and timeZone must be null too)
     * @param end window end as HH:mm
     * @param timeZone IANA zone (Europe/Berlin); null = UTC
     */
    public static MaintenanceSchedule parse(
            String startAt, List<String> days, String start, String end, String timeZone) {
        Optional<Instant> at = Optional.ofNullable(startAt).map(MaintenanceSchedule::instant);
        boolean anyWindowField = start != null || end != null || timeZone != null || (days != null && !days.isEmpty());
        if (!anyWindowField) {
            return new MaintenanceSchedule(at, Optional.empty());
        }
        if (start == null || end == null) {
            throw new IllegalArgumentException("spec.schedule.window: start and end are both required (HH:MM), "
                    + "was start=" + start + ", end=" + end);
        }
        Set<DayOfWeek> dayset = EnumSet.noneOf(DayOfWeek.class);
        if (days == null || days.isEmpty()) {
            dayset = EnumSet.allOf(DayOfWeek.class);
        } else {
            for (int i = 0; i < days.size(); i++) {
                String d = days.get(i);
                DayOfWeek day = d == null ? null : DAY_NAMES.get(d.toLowerCase(Locale.ROOT));
                if (day == null) {
                    throw new IllegalArgumentException("spec.schedule.window.days[" + i + "]: not a day of the week: "
                            + (d == null ? "null" : DrainReport.shown(d))
                            + " (use mon, tue, ... or full names)");
                }
                dayset.add(day);
            }
        }
        ZoneId zone;
        try {
            zone = timeZone == null ? ZoneId.of("UTC") : ZoneId.of(timeZone);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("spec.schedule.window.timeZone: not a time zone: "
                    + DrainReport.shown(timeZone) + " (an IANA name such as Europe/Berlin, or UTC)");
        }
        return new MaintenanceSchedule(
                at,
                Optional.of(new RecurringWindow(
                        dayset,
                        time("spec.schedule.window.start", start),
                        time("spec.schedule.window.end", end),
                        zone)));
    }

    private static LocalTime time(String field, String value) {
        if (!value.matches(RecurringWindowSpec.TIME_PATTERN)) {
            throw new IllegalArgumentException(
                    field + ": must be a time of day as HH:MM (00:00 to 23:59), was " + DrainReport.shown(value));
        }
        return LocalTime.parse(value);
    }

    private static Instant instant(String value) {
        try {
            return OffsetDateTime.parse(value).toInstant();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("spec.schedule.startAt: must be an RFC 3339 time such as "
                    + "2026-12-01T02:00:00Z, was " + DrainReport.shown(value));
        }
    }

    private static String describe(RecurringWindow w) {
        List<String> days = new ArrayList<>();
        for (DayOfWeek d : DayOfWeek.values()) {
            if (w.days().contains(d)) {
                days.add(d.name().substring(0, 3).toLowerCase(Locale.ROOT));
            }
        }
        return (days.size() == 7 ? "every day" : String.join(",", days)) + " " + w.start() + "-" + w.end() + " "
                + w.zone();
    }

    private static Map<String, DayOfWeek> dayNames() {
        Map<String, DayOfWeek> names = new java.util.HashMap<>();
        for (DayOfWeek d : DayOfWeek.values()) {
            String full = d.name().toLowerCase(Locale.ROOT);
            names.put(full, d);
            names.put(full.substring(0, 3), d);
            names.put(full.substring(0, 2), d);
        }
        return Map.copyOf(names);
    }
}
