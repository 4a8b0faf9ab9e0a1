package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.NodeMaintenanceAdmission;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.RecurringWindowSpec;
import dev.tenure.maintenance.api.ScheduleSpec;
import dev.tenure.maintenance.api.ScheduleStatus;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import dev.tenure.maintenance.machine.WindowOracle;
import dev.tenure.testsupport.SuiteCounts;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * A model of spec.schedule's recurring window over generated zones, windows and instants around clock changes, run
 * through the real door ({@link DoorDecisions#decide} with the instant as its clock, then {@link ScheduleStatuses}):
 * whenever the door admits the maintenance its local time is inside the window on one of its days; whenever the
 * local time is inside it (and startAt has passed) the door admits it; the {@code status.schedule.nextStart} of a
 * Scheduled one is the first instant at which the window is open, and the {@code windowCloses} of an admitted one the
 * first at which it is not (docs/node-maintenance.md, "Scheduled start").
 *
 * <p>The oracle ({@link WindowOracle}) states the window from its definition alone and finds openings and closings
 * among the instants where the local time jumps or reaches a bound ({@link WindowOracle#first}); every whole UTC minute of the first six
 * hours is checked too ({@link #noChangeBetween}): in the generated zones and years every offset and
 * transition is a whole number of minutes, as are a window's bounds, so whether it is open can change only there.
 *
 * <p>Tries: {@code -Dtenure.windows.tries} ({@link SuiteCounts#WINDOW_TRIES} in {@code make test}; {@code make chaos}
 * passes {@code WINDOW_TRIES}). A failure prints jqwik's seed and the shrunk case.
 */
class MaintenanceWindowPropertyTest {

    /** The tries from {@value SuiteCounts#WINDOW_TRIES_PROPERTY}: its own count, not the drain model's. */
    public static final class Tries implements AroundPropertyHook {
        @Override
        public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
            context.attributes().setTries(SuiteCounts.of(SuiteCounts.WINDOW_TRIES_PROPERTY, SuiteCounts.WINDOW_TRIES));
            return property.execute();
        }

        /** Outermost: the tries are read when the property starts. */
        @Override
        public int aroundPropertyProximity() {
            return -100;
        }
    }

    /** How many whole minutes after now {@link #noChangeBetween} checks (most cases are a few hours from a change). */
    static final int CHECKED_MINUTES = 6 * 60;

    static final DoorDecisions.Rules RULES =
            new DoorDecisions.Rules(MaintenanceLimits.none(), Duration.ofSeconds(30), Duration.ofSeconds(10), "node-");
    static final Node W1 =
            new NodeBuilder().withNewMetadata().withName("w1").endMetadata().build();

    record Case(ZoneId zone, Set<DayOfWeek> days, LocalTime start, LocalTime end, Instant now, Instant startAt) {
        WindowOracle oracle() {
            return new WindowOracle(zone, days, start, end, startAt);
        }

        @Override
        public String toString() {
            return "window " + (days == null ? "every day" : days) + " " + start + "-" + end + " " + zone + ", now "
                    + now + " (" + LocalDateTime.ofInstant(now, zone) + " local)"
                    + (startAt == null ? "" : ", startAt " + startAt);
        }
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<LocalTime> time = WindowOracle.windowTimes();
        Arbitrary<Set<DayOfWeek>> days = WindowOracle.windowDays();
        return Arbitraries.of(WindowOracle.ZONES)
                .map(ZoneId::of)
                .flatMap(zone -> Combinators.combine(
                                days,
                                time,
                                time,
                                WindowOracle.near(zone),
                                Arbitraries.longs()
                                        .between(-2 * 24 * 60, 2 * 24 * 60)
                                        .injectNull(0.6))
                        .filter((d, s, e, now, after) -> !s.equals(e))
                        .as((d, s, e, now, after) ->
                                new Case(zone, d, s, e, now, after == null ? null : now.plusSeconds(after * 60))));
    }

    @Property
    @AddLifecycleHook(Tries.class)
    void theDoorAdmitsExactlyWhileTheLocalTimeIsInsideTheWindowAndSaysWhenItNextChanges(@ForAll("cases") Case c) {
        NodeMaintenance nm = maintenance(c);
        DoorDecision.Observed o = observed(nm, c.now());

        DoorDecision d = DoorDecisions.decide(o, RULES);

        boolean mayStart = mayStart(c, c.now());
        if (mayStart) {
            assertThat(d)
                    .as("inside the window at %s: admitted", LocalDateTime.ofInstant(c.now(), c.zone()))
                    .isInstanceOf(DoorDecision.Advance.class);
            DoorDecision.Advance advance = (DoorDecision.Advance) d;
            ScheduleStatus status =
                    ScheduleStatuses.of(nm, null, advance.admit().schedule(), o.state(), c.now(), e -> {});
            Instant closes = first(c, c.now(), false);
            noChangeBetween(c, c.now(), closes, true);
            assertThat(status.getWindowCloses())
                    .as("windowCloses: the first instant the local time leaves the window (%s local)", local(c, closes))
                    .isEqualTo(NodeMaintenanceStatuses.text(closes));
        } else {
            assertThat(d)
                    .as("outside the window (or before startAt) at %s: Scheduled", local(c, c.now()))
                    .isInstanceOf(DoorDecision.Scheduled.class);
            ScheduleStatus status = ((DoorDecision.Scheduled) d).status().getSchedule();
            Instant opens = first(c, c.now(), true);
            noChangeBetween(c, c.now(), opens, false);
            assertThat(status.getNextStart())
                    .as("nextStart: the first instant inside the window (%s local)", local(c, opens))
                    .isEqualTo(NodeMaintenanceStatuses.text(opens));
        }
    }

    // ---- the oracle: the window from its definition ({@link WindowOracle}) ----

    static boolean mayStart(Case c, Instant t) {
        return c.oracle().mayStart(t);
    }

    static Instant first(Case c, Instant now, boolean open) {
        return c.oracle().first(now, open);
    }

    /**
     * The candidates of {@link #first} are all the instants where the window can change: between two of them, at
     * every whole UTC minute (where the generated zones' clocks and windows change), it is as it was just after the
     * first. Checked on a stretch of each case, so that the oracle does not merely trust its own reasoning.
     */
    static void noChangeBetween(Case c, Instant now, Instant next, boolean was) {
        Instant m = now.truncatedTo(ChronoUnit.MINUTES).plusSeconds(60);
        for (int i = 0; i < CHECKED_MINUTES && m.isBefore(next); i++, m = m.plusSeconds(60)) {
            assertThat(mayStart(c, m))
                    .as("the oracle missed a change at %s (%s local)", m, local(c, m))
                    .isEqualTo(was);
        }
    }

    static LocalDateTime local(Case c, Instant t) {
        return LocalDateTime.ofInstant(t, c.zone());
    }

    // ---- the door's input ----

    static NodeMaintenance maintenance(Case c) {
        NodeMaintenance nm = new NodeMaintenance();
        nm.setMetadata(new ObjectMetaBuilder()
                .withName("m")
                .withGeneration(1L)
                .withCreationTimestamp("2010-01-01T00:00:00Z")
                .withAnnotations(new HashMap<>())
                .build());
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec();
        spec.setNodeName("w1");
        List<String> days = c.days() == null
                ? null
                : EnumSet.copyOf(c.days()).stream()
                        .map(d -> d.name().toLowerCase(Locale.ROOT).substring(0, 3))
                        .toList();
        spec.setSchedule(new ScheduleSpec(
                c.startAt() == null ? null : c.startAt().toString(),
                new RecurringWindowSpec(
                        days, c.start().toString(), c.end().toString(), c.zone().getId())));
        nm.setSpec(spec);
        return nm;
    }

    static DoorDecision.Observed observed(NodeMaintenance nm, Instant now) {
        MaintenanceState state = NodeMaintenanceStatuses.toState(nm.getStatus());
        NodeMaintenanceAdmission.Standing standing = NodeMaintenanceAdmission.standing(nm, state, "node-");
        Optional<NodeMaintenanceAdmission.ClusterReads> view = standing.needsClusterView()
                ? Optional.of(
                        new NodeMaintenanceAdmission.ClusterReads(Optional.of(W1), List.of(), List.of(nm), Map.of()))
                : Optional.empty();
        return new DoorDecision.Observed(
                nm,
                state,
                standing,
                view,
                List.of(nm),
                List.of(nm),
                nm.getMetadata().getAnnotations(),
                now,
                true);
    }
}
