package dev.tenure.maintenance.machine;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A recurring window of wall-clock time: on each of {@code days}, from {@code start} (inclusive) to {@code end}
 * (exclusive) in {@code zone}; an {@code end} not after {@code start} is on the next day (22:00-04:00 runs over
 * midnight and belongs to the day it opens). Pure.
 *
 * <p><b>Open exactly while the local wall time is inside it.</b> An instant is in the window when its local date-time
 * in {@code zone} lies in {@code [D start, D' end)} for a named day {@code D} ({@code D' = D}, or the next day over
 * midnight). Nothing else counts, so the window is never open at a local time outside it, whatever the clocks do:
 *
 * <ul>
 *   <li>clocks going back (a repeated hour): the window is open in <em>both</em> passes of a wall time inside it,
 *       and in neither pass of one outside it (a 02:30-03:00 window on the night Berlin goes from 03:00 back to
 *       02:00 is open 00:30Z-01:00Z and again 01:30Z-02:00Z, never at 01:00Z-01:30Z, which reads 02:00-02:30);
 *   <li>clocks going forward (a skipped hour): local times that do not exist are never open. A window that starts in
 *       the gap opens when the clocks reach the first time inside it (02:30-04:00 opens at 03:00); one that ends in
 *       the gap closes at the gap (01:30-02:30 closes at 02:00, which the clocks turn into 03:00); one wholly in
 *       the gap does not open that day, and the next opening is the next occurrence that has a real local time.
 * </ul>
 *
 * <p>Openings and closings are found by walking the zone's offset transitions, not by resolving a wall time with
 * {@link java.time.ZonedDateTime#of} (which moves a time in a gap forward and picks one pass of a repeated time).
 */
public record RecurringWindow(Set<DayOfWeek> days, LocalTime start, LocalTime end, ZoneId zone) {

    /**
     * How far ahead an opening or closing is searched: two weeks cover every day a window names even when a day is
     * skipped (Pacific/Apia skipped 2011-12-30) or an occurrence falls in a gap; a month to spare.
     */
    static final Duration HORIZON = Duration.ofDays(45);

    public RecurringWindow {
        if (days.isEmpty()) {
            throw new IllegalArgumentException("spec.schedule.window.days: must name at least one day");
        }
        if (start.equals(end)) {
            throw new IllegalArgumentException("spec.schedule.window: start and end must differ, both were " + start
                    + " (a window over midnight ends earlier than it starts, e.g. 22:00-04:00)");
        }
        days = Set.copyOf(EnumSet.copyOf(days));
    }

    /** Whether the window runs over midnight (its end is on the day after it opens). */
    public boolean overMidnight() {
        return !end.isAfter(start);
    }

    /** Whether the wall time {@code local} is inside the window on one of its days. */
    public boolean contains(LocalDateTime local) {
        return containing(local).isPresent();
    }

    /** Whether the window is open at {@code t}: its local time in the window's zone is inside it. */
    public boolean isOpen(Instant t) {
        return contains(LocalDateTime.ofInstant(t, zone));
    }

    /** The first instant at or after {@code from} at which the window is open; empty when none within the horizon. */
    public Optional<Instant> nextOpen(Instant from) {
        return first(from, true);
    }

    /** The first instant at or after {@code from} at which the window is closed (it is open at {@code from}). */
    public Optional<Instant> nextClosed(Instant from) {
        return first(from, false);
    }

    /**
     * The occurrences that open (by their wall time) after the local time of {@code from} and not after that of
     * {@code until}, but never open because their whole span falls in a gap the clocks skip: their days.
     */
    public List<LocalDate> skippedBetween(Instant from, Instant until) {
        LocalDateTime a = LocalDateTime.ofInstant(from, zone);
        LocalDateTime b = LocalDateTime.ofInstant(until, zone);
        List<LocalDate> skipped = new ArrayList<>();
        for (LocalDate d = a.toLocalDate(); !d.isAfter(b.toLocalDate()); d = d.plusDays(1)) {
            LocalDateTime s = d.atTime(start);
            if (days.contains(d.getDayOfWeek()) && s.isAfter(a) && !s.isAfter(b) && inGap(s, closingOf(d))) {
                skipped.add(d);
            }
        }
        return List.copyOf(skipped);
    }

    /**
     * Why an opening at {@code opens} is at another wall time than {@code start}, if it is: the clocks skipped the
     * start, or went back into the window.
     */
    public Optional<String> shiftedOpening(Instant opens) {
        LocalDateTime local = LocalDateTime.ofInstant(opens, zone);
        Optional<LocalDate> day = containing(local);
        if (day.isEmpty() || local.equals(day.get().atTime(start))) {
            return Optional.empty();
        }
        ZoneOffsetTransition t = zone.getRules().getTransition(day.get().atTime(start));
        if (t != null && t.isGap()) {
            return Optional.of(start + " does not exist on " + day.get() + " in " + zone + " (the clocks skip from "
                    + t.getDateTimeBefore().toLocalTime() + " to "
                    + t.getDateTimeAfter().toLocalTime()
                    + "): it opens at " + local.toLocalTime() + " local time");
        }
        return Optional.of("it opens at " + local.toLocalTime() + " local time, when the clocks of " + zone
                + " go back into the window");
    }

    /** The day whose occurrence contains {@code local}. */
    private Optional<LocalDate> containing(LocalDateTime local) {
        LocalDate today = local.toLocalDate();
        for (LocalDate d : List.of(today.minusDays(1), today)) {
            if (days.contains(d.getDayOfWeek()) && !local.isBefore(d.atTime(start)) && local.isBefore(closingOf(d))) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }

    /** The wall time the occurrence that opens on {@code day} closes at. */
    private LocalDateTime closingOf(LocalDate day) {
        return (overMidnight() ? day.plusDays(1) : day).atTime(end);
    }

    /** The first wall time after {@code local} at which an occurrence opens. */
    private LocalDateTime nextStartAfter(LocalDateTime local) {
        for (LocalDate d = local.toLocalDate(); ; d = d.plusDays(1)) {
            if (days.contains(d.getDayOfWeek()) && d.atTime(start).isAfter(local)) {
                return d.atTime(start);
            }
        }
    }

    /**
     * The first instant at or after {@code from} at which {@link #isOpen} is {@code open}. Between two offset
     * transitions the local time runs with the instant, so the answer in that stretch is the next wall time where
     * an occurrence opens (or the one that holds {@code from} closes), if it comes before the next transition;
     * otherwise the search goes on from the transition, where the local time jumps.
     */
    private Optional<Instant> first(Instant from, boolean open) {
        ZoneRules rules = zone.getRules();
        Instant limit = from.plus(HORIZON);
        for (Instant a = from; !a.isAfter(limit); ) {
            ZoneOffset offset = rules.getOffset(a);
            LocalDateTime local = LocalDateTime.ofInstant(a, offset);
            Optional<LocalDate> day = containing(local);
            if (day.isPresent() == open) {
                return Optional.of(a);
            }
            LocalDateTime boundary = open ? nextStartAfter(local) : closingOf(day.orElseThrow());
            Instant b = boundary.toInstant(offset);
            ZoneOffsetTransition next = rules.nextTransition(a);
            if (next == null || b.isBefore(next.getInstant())) {
                return Optional.of(b);
            }
            a = next.getInstant();
        }
        return Optional.empty();
    }

    /** Whether no instant has a local time in {@code [from, to)}: the span lies in one gap the clocks skip. */
    private boolean inGap(LocalDateTime from, LocalDateTime to) {
        ZoneOffsetTransition t = zone.getRules().getTransition(from);
        return t != null && t.isGap() && !t.getDateTimeAfter().isBefore(to);
    }
}
