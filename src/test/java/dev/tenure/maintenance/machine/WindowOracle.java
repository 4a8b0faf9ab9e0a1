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
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * spec.schedule's recurring window stated from its definition alone (docs/node-maintenance.md, "What inside the
 * window means"), apart from {@link RecurringWindow}: the oracle of the models that check the door and the machine
 * against it ({@code MaintenanceWindowPropertyTest}, {@code DrainModelPropertyTest}), and the generators of the
 * instants around clock changes they are checked at.
 *
 * @param days null: every day
 * @param startAt null: none
 */
public record WindowOracle(ZoneId zone, Set<DayOfWeek> days, LocalTime start, LocalTime end, Instant startAt) {

    /** Zones with every kind of clock change: an hour each way, a 30-minute shift, a whole skipped day, none. */
    public static final List<String> ZONES = List.of(
            "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Pacific/Apia", "UTC", "America/St_Johns");

    /** Pacific/Apia's lost Friday, 2011-12-30: Thursday 23:59:59 -10 was followed by Saturday 00:00 +14. */
    public static final Instant APIA_SKIP = Instant.parse("2011-12-30T10:00:00Z");

    static final Instant FROM = Instant.parse("2010-01-01T00:00:00Z");
    static final long YEARS_20_SECONDS = Duration.ofDays(365L * 20).toSeconds();

    /** The oracle's search never goes further than this: two weeks and a day cover a skipped day of a weekly window. */
    public static final Duration SEARCH = Duration.ofDays(16);

    /** The local time {@code l} is inside the window: on a named day D, D start <= l < end (on D, or D+1). */
    public boolean inside(LocalDateTime l) {
        for (LocalDate d : List.of(l.toLocalDate(), l.toLocalDate().minusDays(1))) {
            if (days != null && !days.contains(d.getDayOfWeek())) {
                continue;
            }
            LocalDateTime opens = d.atTime(start);
            LocalDateTime closes = (end.isAfter(start) ? d : d.plusDays(1)).atTime(end);
            if (!l.isBefore(opens) && l.isBefore(closes)) {
                return true;
            }
        }
        return false;
    }

    /** It may start at {@code t}: startAt has passed and the local time is inside the window. */
    public boolean mayStart(Instant t) {
        return (startAt == null || !t.isBefore(startAt)) && inside(local(t));
    }

    public LocalDateTime local(Instant t) {
        return LocalDateTime.ofInstant(t, zone);
    }

    /**
     * The first instant after {@code now} at which the maintenance may start ({@code open}), or at which the window
     * is closed. Whether it is open can change only where the local time jumps (an offset transition) or runs onto
     * a start or an end (that wall time read at one of its valid offsets; a wall time in a gap has none), or at
     * startAt: the first of those candidates where it is as asked.
     */
    public Instant first(Instant now, boolean open) {
        ZoneRules rules = zone.getRules();
        Instant limit = now.plus(SEARCH);
        TreeSet<Instant> candidates = new TreeSet<>();
        if (startAt != null) {
            candidates.add(startAt);
        }
        for (ZoneOffsetTransition t = rules.nextTransition(now);
                t != null && t.getInstant().isBefore(limit);
                t = rules.nextTransition(t.getInstant())) {
            candidates.add(t.getInstant());
        }
        LocalDate last = LocalDateTime.ofInstant(limit, zone).toLocalDate();
        for (LocalDate d = local(now).toLocalDate().minusDays(1); !d.isAfter(last); d = d.plusDays(1)) {
            for (LocalTime bound : List.of(start, end)) {
                for (ZoneOffset offset : rules.getValidOffsets(d.atTime(bound))) {
                    candidates.add(d.atTime(bound).toInstant(offset));
                }
            }
        }
        for (Instant t : candidates.tailSet(now, false)) {
            if (mayStart(t) == open) {
                return t;
            }
        }
        throw new AssertionError("the oracle found no " + (open ? "opening" : "closing") + " within " + SEARCH);
    }

    /** A window's start or end: mostly around the hours clocks change at, in quarter hours; any minute otherwise. */
    public static Arbitrary<LocalTime> windowTimes() {
        return Arbitraries.frequencyOf(
                Tuple.of(
                        3,
                        Combinators.combine(Arbitraries.integers().between(0, 4), Arbitraries.of(0, 15, 30, 45))
                                .as(LocalTime::of)),
                Tuple.of(1, Arbitraries.integers().between(0, 24 * 60 - 1).map(m -> LocalTime.of(m / 60, m % 60))));
    }

    /** A window's days: null (every day) or one to seven weekdays. */
    public static Arbitrary<Set<DayOfWeek>> windowDays() {
        return Arbitraries.frequencyOf(
                Tuple.of(1, Arbitraries.just(null)),
                Tuple.of(3, Arbitraries.of(DayOfWeek.class).set().ofMinSize(1).ofMaxSize(7)));
    }

    /** An instant near one of the zone's clock changes (Apia's lost day among them), or anywhere in 2010-2030. */
    public static Arbitrary<Instant> near(ZoneId zone) {
        Arbitrary<Long> shift = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(-3 * 3600, 3 * 3600)),
                Tuple.of(1, Arbitraries.longs().between(-3 * 86400, 3 * 86400)),
                Tuple.of(2, Arbitraries.longs().between(-180, 180).map(m -> m * 60)));
        return Combinators.combine(anchor(zone), shift).as(Instant::plusSeconds);
    }

    /** One of the zone's clock changes in 2010-2030 (Apia's lost day among them), or any instant then. */
    public static Arbitrary<Instant> anchor(ZoneId zone) {
        return Combinators.combine(
                        Arbitraries.longs().between(0, YEARS_20_SECONDS),
                        Arbitraries.integers().between(0, ANCHOR_KINDS - 1))
                .as((seconds, kind) -> anchor(zone, seconds, kind));
    }

    /** How many {@code kind}s {@link #anchor(ZoneId, long, int)} tells apart. */
    public static final int ANCHOR_KINDS = 10;

    /**
     * {@link #anchor(ZoneId)} from plain values, for generators that avoid a flatMap per value: {@code seconds} into
     * 2010-2030; {@code kind} 0-5, the zone's next clock change from there, 6-7 that instant itself, 8-9 Apia's lost
     * day (in Pacific/Apia; elsewhere the next change).
     */
    public static Instant anchor(ZoneId zone, long seconds, int kind) {
        Instant anywhere = FROM.plusSeconds(seconds);
        if (kind >= 8 && zone.getId().equals("Pacific/Apia")) {
            return APIA_SKIP;
        }
        if (kind == 6 || kind == 7) {
            return anywhere;
        }
        ZoneOffsetTransition next = zone.getRules().nextTransition(anywhere);
        return next == null ? anywhere : next.getInstant();
    }
}
