package dev.tenure.maintenance.drain;

import static dev.tenure.maintenance.drain.DrainModel.STEP;
import static dev.tenure.maintenance.drain.DrainModel.judge;
import static dev.tenure.maintenance.drain.DrainModel.refuses;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.ScheduleStatus;
import dev.tenure.maintenance.door.DoorOnSchedule;
import dev.tenure.maintenance.drain.DrainModel.Fate;
import dev.tenure.maintenance.drain.DrainModel.Judged;
import dev.tenure.maintenance.drain.DrainModel.Kind;
import dev.tenure.maintenance.drain.DrainModel.OptionSpec;
import dev.tenure.maintenance.drain.DrainModel.PodSpec;
import dev.tenure.maintenance.drain.DrainModel.RuleSpec;
import dev.tenure.maintenance.machine.MachineEnds;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceHooks;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import dev.tenure.maintenance.machine.WindowOracle;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * A model over generated drain plans ({@link DrainModel}'s generators and oracle): nodes with pods of every kind,
 * rules, labels and options, drained step by step
 * by the real planner ({@link DrainPlan}, {@link PodFilters}, {@link DrainRules}, {@link DrainWaves}) against a
 * simulated node (evictions succeed or are refused by a budget model, evicted pods go after a few steps, pods
 * complete at their own times), each step checked against an oracle that states the drain semantics independently
 * (docs/node-maintenance.md, "Rules, labels and order").
 *
 * <p>Windows and time zones: half the cases carry a spec.schedule window (days, start and end over midnight or not,
 * in Europe/Berlin, America/New_York, Australia/Lord_Howe, Pacific/Apia, America/St_Johns or UTC) and are created near
 * one of the zone's clock changes (spring gap, fall-back overlap, Lord Howe's 30 minutes, Apia's lost day) or one of
 * the window's bounds. The real door ({@code DoorOnSchedule}) decides when the machine starts, and the drain runs on
 * the real instants from there: it starts only at a local time inside the window ({@link WindowOracle}, the window
 * from its definition), and a drain still running at the window's close goes on and says so once (WindowOverrun).
 * Some cases carry a spec.window and a pre-uncordon hook: the machine's own decisions ({@code MachineEnds}) must stop
 * the drain exactly at the window's end and restore the node only once the hook is removed or timed out.
 *
 * <p>Tries: {@code jqwik.tries.default} (1,000, a system property the pom gives the test JVM; {@code make chaos}
 * passes {@code DRAIN_MODEL_TRIES}, 200,000). A failure prints jqwik's seed and the shrunk case; running the class again replays the failing
 * sample first (jqwik's database, target/jqwik-database), and {@code @Property(seed = "<seed>")} pins the run.
 */
class DrainModelPropertyTest {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    /** Every pod in the model completes or goes within this many steps; a plan without timeouts must end by then. */
    static final int MAX_STEPS = 400;

    /**
     * spec.schedule's recurring window ({@code window}, startAt unset) and when the NodeMaintenance is created
     * ({@code created}: near a clock change of its zone or one of the window's bounds).
     */
    record ScheduleSpec(WindowOracle window, Instant created) {
        @Override
        public String toString() {
            return "window " + (window.days() == null ? "every day" : window.days()) + " " + window.start() + "-"
                    + window.end() + " " + window.zone() + ", created " + created + " ("
                    + window.local(created) + " local)";
        }
    }

    /**
     * spec.window ({@code windowSteps} steps after the lease is taken, the maintenance ends by itself), with or without
     * a pre-uncordon hook, removed {@code hookRemovedSteps} after the window's end (-1: never), waited on for at most
     * {@code hookTimeoutSteps} (spec.hooks.timeout).
     */
    record EndSpec(int windowSteps, boolean hook, int hookRemovedSteps, int hookTimeoutSteps) {}

    /** {@code schedule}, {@code end}: null when the spec has none. */
    record Case(
            List<PodSpec> pods,
            List<RuleSpec> rules,
            OptionSpec options,
            List<Integer> budgetLimits,
            ScheduleSpec schedule,
            EndSpec end) {}

    @Provide
    Arbitrary<Case> cases() {
        return Combinators.combine(
                        DrainModel.pods().list().ofMinSize(1).ofMaxSize(8),
                        DrainModel.rules(),
                        DrainModel.options(),
                        DrainModel.budgetLimits(),
                        schedules().injectNull(0.5),
                        ends().injectNull(0.6))
                .as(Case::new);
    }

    /**
     * Windows over midnight or not, bounds around the hours clocks change at, in zones with every kind of change;
     * created near one of the zone's clock changes or one of the window's bounds ({@link Placement}). Built from plain
     * values in one combine: a flatMap per value would make jqwik build (and compute edge cases of) new arbitraries at
     * every try, several times the cost of the drain itself.
     */
    static Arbitrary<ScheduleSpec> schedules() {
        Arbitrary<LocalTime> time = WindowOracle.windowTimes();
        Arbitrary<Set<DayOfWeek>> days = WindowOracle.windowDays();
        Arbitrary<Placement> placement = Combinators.combine(
                        Arbitraries.of(true, false),
                        Arbitraries.frequencyOf(
                                Tuple.of(3, Arbitraries.longs().between(-3 * 3600, 3 * 3600)),
                                Tuple.of(1, Arbitraries.longs().between(-3 * 86400, 3 * 86400)),
                                Tuple.of(
                                        2,
                                        Arbitraries.longs().between(-180, 180).map(m -> m * 60))),
                        Arbitraries.integers().between(-1, 1),
                        Arbitraries.of(true, false),
                        Arbitraries.of(true, false),
                        Arbitraries.of(-3600L, -120L, -60L, -5L, -1L, 0L, 0L, 1L, 5L, 60L))
                .as(Placement::new);
        return Combinators.combine(
                        Arbitraries.of(WindowOracle.ZONES),
                        days,
                        time,
                        time,
                        Arbitraries.longs()
                                .between(0, Duration.ofDays(365L * 20).toSeconds()),
                        Arbitraries.integers().between(0, WindowOracle.ANCHOR_KINDS - 1),
                        placement)
                .filter((zone, d, start, end, seconds, kind, p) -> !start.equals(end))
                .as((zone, d, start, end, seconds, kind, p) -> {
                    ZoneId z = ZoneId.of(zone);
                    WindowOracle w = new WindowOracle(z, d, start, end, null);
                    return new ScheduleSpec(w, p.place(w, WindowOracle.anchor(z, seconds, kind)));
                })
                // the edge cases of a seven-way combine run into the thousands and crowd out random ones
                .withoutEdgeCases();
    }

    /**
     * Where a maintenance is created, from an anchor (one of the zone's clock changes, Apia's lost day, or any
     * instant): {@code shift} seconds from it; or, {@code atABound}, at (or {@code boundShift} seconds around) the
     * window's start or {@code end} on a day near it ({@code day}: -1, 0, +1), read at the {@code later} offset of a
     * repeated time, where being open can flip and a drain started just before the close runs past it.
     */
    record Placement(boolean atABound, long shift, int day, boolean end, boolean later, long boundShift) {
        Instant place(WindowOracle w, Instant anchor) {
            if (!atABound) {
                return anchor.plusSeconds(shift);
            }
            LocalDateTime local = LocalDateTime.ofInstant(anchor, w.zone())
                    .toLocalDate()
                    .plusDays(day)
                    .atTime(end ? w.end() : w.start());
            List<ZoneOffset> offsets = w.zone().getRules().getValidOffsets(local);
            Instant at = offsets.isEmpty()
                    ? anchor // in a gap: no such local time
                    : local.toInstant(later ? offsets.get(offsets.size() - 1) : offsets.get(0));
            return at.plusSeconds(boundShift);
        }
    }

    static Arbitrary<EndSpec> ends() {
        return Combinators.combine(
                        Arbitraries.of(1, 3, 12, 40, 120),
                        Arbitraries.of(true, false),
                        Arbitraries.of(-1, 0, 1, 5),
                        Arbitraries.of(1, 4, 30))
                .as(EndSpec::new);
    }

    // ---- the simulated node ----

    static final class SimPod {
        final PodSpec spec;
        final Judged judged;
        final String name;
        /** When the drain began: step 0. */
        final Instant origin;

        boolean completed;
        Integer terminatingSince; // step
        int goneAt = Integer.MAX_VALUE;
        private Pod built;
        private String builtFor;

        SimPod(PodSpec spec, Judged judged, String name, Instant origin) {
            this.spec = spec;
            this.judged = judged;
            this.name = name;
            this.origin = origin;
            this.completed = spec.kind() == Kind.COMPLETED;
        }

        boolean neverEnds() {
            return spec.kind().neverEnds();
        }

        String key() {
            return "ns/" + name;
        }

        Pod toPod() {
            String state = completed + "/" + terminatingSince;
            if (!state.equals(builtFor)) {
                built = build();
                builtFor = state;
            }
            return built;
        }

        private Pod build() {
            return DrainModel.pod(
                    spec,
                    "ns",
                    name,
                    "uid-" + name,
                    "n1",
                    completed,
                    terminatingSince == null ? null : origin.plus(STEP.multipliedBy(terminatingSince)));
        }
    }

    enum Outcome {
        COMPLETE,
        REFUSED,
        TIMED_OUT,
        WAIT_COMPLETED_TIMED_OUT,
        WINDOW_OVER, // spec.window ended it before the drain did
        NEVER_ENDED
    }

    static DrainOptions options(Case c) {
        OptionSpec o = c.options();
        List<DrainRules.Rule> rules = c.rules().stream()
                .map(r ->
                        new DrainRules.Rule(null, r.app() == null ? null : selector(r.app()), r.behavior(), r.order()))
                .toList();
        return new DrainOptions(
                o.drainTimeoutSteps() == 0 ? Optional.empty() : Optional.of(STEP.multipliedBy(o.drainTimeoutSteps())),
                -1,
                o.ignoreDaemonSets(),
                o.deleteEmptyDirData(),
                o.force(),
                null,
                STEP,
                o.skipWait() ? Optional.of(STEP.multipliedBy(2)) : Optional.empty(),
                o.disableEviction(),
                new DrainRules(rules),
                o.waitCompletedTimeoutSteps() == 0
                        ? Optional.empty()
                        : Optional.of(STEP.multipliedBy(o.waitCompletedTimeoutSteps())),
                VolumeDetach.Options.off(),
                null,
                null);
    }

    static LabelSelector selector(String app) {
        return new LabelSelectorBuilder().addToMatchLabels("app", app).build();
    }

    @Property
    void everyPlanKeepsTheDrainSemanticsAndEnds(@ForAll("cases") Case c) {
        DrainOptions options = options(c);
        OptionSpec o = c.options();
        // spec.schedule: the door holds the request Scheduled until the window opens; the machine starts (takes the
        // lease, cordons, drains) at the instant it admits it, and only then
        Admission admission = c.schedule() == null ? new Admission(T0, null, null) : admitted(c.schedule());
        Instant origin = admission.at();
        List<SimPod> node = new ArrayList<>();
        for (int i = 0; i < c.pods().size(); i++) {
            PodSpec p = c.pods().get(i);
            SimPod s =
                    new SimPod(p, judge(p, c.rules(), o), p.kind().name().toLowerCase(Locale.ROOT) + "-" + i, origin);
            if (p.kind() == Kind.TERMINATING) {
                s.terminatingSince = 0;
                s.goneAt = p.terminationSteps() + 1;
            }
            node.add(s);
        }
        boolean oracleRefuses = node.stream().anyMatch(s -> refuses(s.spec, s.judged, o));
        Map<String, Instant> retryNotBefore = new HashMap<>();
        Outcome outcome = Outcome.NEVER_ENDED;
        EndModel end = c.end() == null ? null : new EndModel(c.end(), options, origin);
        ScheduleStatus schedule = admission.schedule();
        boolean overrunSaid = false;
        boolean restored = false;
        int steps = MAX_STEPS + (end == null ? 0 : end.lastStep());
        for (int step = 0; step < steps; step++) {
            int k = step;
            Instant now = origin.plus(STEP.multipliedBy(step));
            if (end != null) {
                MachineEnds.Call call = end.call(now);
                if (call instanceof MachineEnds.Call.Restores) {
                    restored = true;
                    if (outcome == Outcome.NEVER_ENDED) {
                        outcome = Outcome.WINDOW_OVER;
                    }
                    break;
                }
                if (call instanceof MachineEnds.Call.HeldByHooks) {
                    continue; // the node stays cordoned, nothing is evicted
                }
            }
            if (outcome != Outcome.NEVER_ENDED) {
                if (end == null) {
                    break;
                }
                continue; // drained (or stopped): the node stays in maintenance until its window ends
            }
            node.removeIf(s -> s.goneAt <= k);
            for (SimPod s : node) {
                if (!s.neverEnds() && !s.completed && s.terminatingSince == null && s.spec.completesAt() <= k) {
                    s.completed = true;
                }
            }
            DrainPlan plan = DrainPlan.of(
                    node.stream().map(SimPod::toPod).toList(),
                    options,
                    new DrainPlan.Observed(Set.of("ns/ds"), false, Duration.ZERO, retryNotBefore),
                    now);
            DrainWaves waves = DrainWaves.of(plan); // status is computed every step
            assertThat(waves.current()).isEqualTo(plan.currentWave().orElse(null));
            for (SimPod s : node) {
                String label = s.spec.drainLabel();
                boolean unknown = label != null
                        && !label.equalsIgnoreCase(DrainRules.SKIP_VALUE)
                        && !label.equalsIgnoreCase(DrainRules.WAIT_VALUE)
                        && !label.equalsIgnoreCase("WaitCompleted");
                if (unknown && s.judged.fate() == Fate.DRAIN && !goneBySkipWait(s, o, k)) {
                    assertThat(plan.warnings())
                            .as("an unknown %s value on %s is named", DrainRules.SKIP_LABEL, s.key())
                            .anyMatch(w -> w.contains(s.key()));
                }
            }
            if (plan.refused()) {
                assertThat(oracleRefuses)
                        .as("refused though no pod refuses the drain: %s", plan.verdicts())
                        .isTrue();
                assertThat(step)
                        .as("a drain is refused before anything is evicted")
                        .isZero();
                outcome = Outcome.REFUSED;
                continue;
            }
            assertThat(oracleRefuses)
                    .as("a pod refuses the drain, the plan does not: %s", plan.verdicts())
                    .isFalse();
            if (plan.complete()) {
                for (SimPod s : node) {
                    assertThat(s.judged.fate() == Fate.DRAIN && !goneBySkipWait(s, o, k))
                            .as("complete with a pod to drain still on the node: %s", s.key())
                            .isFalse();
                    assertThat(s.judged.fate() == Fate.WAIT_COMPLETED && !s.completed && !goneBySkipWait(s, o, k))
                            .as("complete with a WaitCompleted pod still running: %s", s.key())
                            .isFalse();
                }
                outcome = Outcome.COMPLETE;
                continue;
            }
            if (admission.closes() != null && (step == 0 || (!now.isBefore(admission.closes()) && !overrunSaid))) {
                // still draining: the door runs the machine whatever the window; past its close it says so, once
                schedule = draining(c.schedule(), admission, schedule, now);
                overrunSaid = !now.isBefore(admission.closes());
            }
            if (o.drainTimeoutSteps() > 0 && step >= o.drainTimeoutSteps()) {
                outcome = Outcome.TIMED_OUT;
                continue;
            }
            if (o.waitCompletedTimeoutSteps() > 0
                    && step >= o.waitCompletedTimeoutSteps()
                    && !plan.with(DrainPlan.Action.WAIT_COMPLETED).isEmpty()) {
                outcome = Outcome.WAIT_COMPLETED_TIMED_OUT;
                continue;
            }
            Map<String, SimPod> byKey =
                    node.stream().collect(Collectors.toMap(SimPod::key, s -> s, (a, b) -> a, LinkedHashMap::new));
            // what the oracle says is sent now: the Drain pods of the lowest wave that holds a pod, ready to go
            List<SimPod> holding = node.stream()
                    .filter(s -> !goneBySkipWait(s, o, k))
                    .filter(s ->
                            s.judged.fate() == Fate.DRAIN || (s.judged.fate() == Fate.WAIT_COMPLETED && !s.completed))
                    .toList();
            Optional<Integer> wave = holding.stream().map(s -> s.judged.wave()).min(Integer::compare);
            Set<String> expected = holding.stream()
                    .filter(s -> s.judged.fate() == Fate.DRAIN && s.judged.wave() == wave.orElseThrow())
                    .filter(s -> s.terminatingSince == null)
                    .filter(s -> o.disableEviction()
                            || !retryNotBefore.containsKey("uid-" + s.name)
                            || !now.isBefore(retryNotBefore.get("uid-" + s.name)))
                    .map(SimPod::key)
                    .collect(Collectors.toSet());
            for (DrainPlan.PodVerdict v : plan.toSend()) {
                SimPod s = byKey.get(v.key());
                assertThat(s.judged.fate())
                        .as(
                                "%s sent, but it is %s (a Skip or WaitCompleted pod is never evicted; DaemonSet and"
                                        + " mirror pods are never touched)",
                                v.key(), s.judged.fate())
                        .isEqualTo(Fate.DRAIN);
                List<String> earlier = holding.stream()
                        .filter(h -> h.judged.wave() < s.judged.wave())
                        .map(h -> h.key() + " (" + h.judged.fate() + ", wave " + h.judged.wave() + ")")
                        .toList();
                assertThat(earlier)
                        .as("%s of wave %d sent while an earlier wave still runs", v.key(), s.judged.wave())
                        .isEmpty();
            }
            assertThat(plan.toSend().stream().map(DrainPlan.PodVerdict::key).collect(Collectors.toSet()))
                    .as("sent now: every ready pod of the current wave %s, no other", wave.orElse(null))
                    .isEqualTo(expected);
            // the preview of this step (issue 37), when no refusal is remembered in the current wave (a preview
            // knows none): the budgets it says the wave's pods wait for are those the drain now meets refused
            boolean fresh = plan.currentWavePods().stream().noneMatch(v -> v.action() == DrainPlan.Action.RETRY_LATER);
            List<String> previewWaits = fresh ? previewWaits(plan, node, c.budgetLimits(), options, now) : List.of();
            List<String> met = new ArrayList<>();
            for (DrainPlan.PodVerdict v : plan.toSend()) {
                SimPod s = byKey.get(v.key());
                if (v.action() == DrainPlan.Action.DELETE || s.completed || budgetAllows(s, node, c.budgetLimits())) {
                    s.terminatingSince = k;
                    s.goneAt = k + s.spec.terminationSteps();
                } else {
                    retryNotBefore.put(v.uid(), now.plus(options.evictionRetryDelay()));
                    met.add("ns/b" + s.spec.budget());
                }
            }
            if (fresh) {
                assertThat(met.stream().sorted().toList())
                        .as("the budgets the preview says the current wave waits for are those the drain meets")
                        .isEqualTo(previewWaits);
            }
        }
        if (end != null) {
            assertThat(restored)
                    .as("spec.window: the maintenance ends by itself at the window's end, once its pre-uncordon hooks"
                            + " are removed or time out")
                    .isTrue();
        }
        if (outcome == Outcome.WINDOW_OVER) {
            return; // ended by spec.window before the drain did: its stated end
        }
        if (o.drainTimeoutSteps() == 0 && o.waitCompletedTimeoutSteps() == 0) {
            assertThat(outcome)
                    .as("without timeouts, a plan whose pods all complete or are evictable completes")
                    .isIn(Outcome.COMPLETE, Outcome.REFUSED);
        } else {
            assertThat(outcome).as("a plan with a timeout ends").isNotEqualTo(Outcome.NEVER_ENDED);
        }
    }

    // ---- windows: spec.schedule (when the machine may start) and spec.window (when it ends by itself) ----

    /**
     * The instant the door admits the request (the machine's first step: lease, cordon), status.schedule then, and
     * the close of the window it started in ({@code closes}; null without a schedule).
     */
    record Admission(Instant at, ScheduleStatus schedule, Instant closes) {}

    /**
     * The real door's looks at the request from its creation on: Scheduled while the oracle says the local time is
     * outside the window, with the first instant it is inside as nextStart; admitted (the machine runs) only at an
     * instant whose local time is inside, with windowCloses the first instant it is not (docs/node-maintenance.md,
     * "What inside the window means").
     */
    static Admission admitted(ScheduleSpec spec) {
        WindowOracle w = spec.window();
        NodeMaintenance nm = DoorOnSchedule.maintenance(w);
        Instant t = spec.created();
        for (int looks = 0; looks < 3; looks++) {
            DoorOnSchedule.Look look = DoorOnSchedule.firstLook(nm, t);
            boolean inside = w.mayStart(t);
            if (look instanceof DoorOnSchedule.Look.Admitted admitted) {
                assertThat(inside)
                        .as(
                                "admitted at %s (%s local, %s): the machine cordons and drains at a local time"
                                        + " outside the window",
                                t, w.local(t), w.local(t).getDayOfWeek())
                        .isTrue();
                Instant closes = w.first(t, false);
                assertThat(admitted.windowCloses())
                        .as(
                                "windowCloses: the first instant the local time leaves the window (%s local)",
                                w.local(closes))
                        .contains(closes);
                return new Admission(
                        t,
                        new ScheduleStatus(
                                null,
                                NodeMaintenanceStatuses.text(closes),
                                admitted.message().orElse(null)),
                        closes);
            }
            assertThat(inside)
                    .as(
                            "Scheduled at %s (%s local, %s), inside the window",
                            t, w.local(t), w.local(t).getDayOfWeek())
                    .isFalse();
            Instant opens = ((DoorOnSchedule.Look.Held) look).nextStart();
            assertThat(opens)
                    .as("nextStart: the first instant inside the window (%s local)", w.local(w.first(t, true)))
                    .isEqualTo(w.first(t, true));
            t = opens; // the reconciler looks again then: nothing is touched before
        }
        throw new AssertionError("not admitted at its nextStart: " + spec);
    }

    /**
     * A reconcile of the maintenance still draining at {@code now}: the door runs the machine (a started maintenance
     * is never stopped by its window); past the window's close it says so once, as a WindowOverrun Warning and
     * status.schedule.message, and the drain goes on (docs/node-maintenance.md, "Scheduled start").
     */
    static ScheduleStatus draining(ScheduleSpec spec, Admission admission, ScheduleStatus prior, Instant now) {
        DoorOnSchedule.Draining d =
                DoorOnSchedule.draining(DoorOnSchedule.maintenance(spec.window()), admission.at(), prior, now);
        assertThat(d.advances())
                .as("a started maintenance goes on at %s whatever its window", now)
                .isTrue();
        assertThat(d.schedule().getWindowCloses())
                .as("status.schedule.windowCloses stays the close of the window it started in")
                .isEqualTo(NodeMaintenanceStatuses.text(admission.closes()));
        List<String> overruns = d.events().stream()
                .filter(e -> e.reason().equals(MaintenanceEvents.WINDOW_OVERRUN)
                        && e.message().startsWith("the maintenance window closed at"))
                .map(e -> (e.warning() ? "Warning " : "Normal ") + e.message())
                .toList();
        if (now.isBefore(admission.closes())) {
            assertThat(overruns).as("no overrun said before the window closes").isEmpty();
        } else {
            assertThat(overruns)
                    .as("a drain still running when its window closes says so once, as a Warning")
                    .containsExactly("Warning the maintenance window closed at " + admission.closes()
                            + " before the drain finished; the drain goes on (the node stays cordoned) until it"
                            + " succeeds, fails or the NodeMaintenance is deleted");
        }
        return d.schedule();
    }

    /**
     * spec.window on the real machine's decisions ({@link MachineEnds}: {@code MaintenanceStages.opening}, then the
     * pre-uncordon hooks): before the window's end every call goes on (the drain may evict); from its end none does,
     * the node stays cordoned while a pre-uncordon hook is on and younger than spec.hooks.timeout, and the first
     * call after that restores the node. The oracle states it from the spec alone.
     */
    static final class EndModel {
        final EndSpec spec;
        final MaintenanceRequest request;
        final Instant windowEnd;
        final Instant hookRemoved;
        final Duration hookTimeout;
        MaintenanceState state;
        Instant heldSince;

        EndModel(EndSpec spec, DrainOptions options, Instant origin) {
            this.spec = spec;
            this.request = new MaintenanceRequest(
                    "w1", "", Optional.of(STEP.multipliedBy(spec.windowSteps())), options, null, null, null);
            this.windowEnd = origin.plus(STEP.multipliedBy(spec.windowSteps()));
            this.hookRemoved = !spec.hook()
                    ? Instant.MIN
                    : spec.hookRemovedSteps() < 0
                            ? Instant.MAX
                            : windowEnd.plus(STEP.multipliedBy(spec.hookRemovedSteps()));
            this.hookTimeout = STEP.multipliedBy(spec.hookTimeoutSteps());
            this.state = MaintenanceState.initial().toBuilder()
                    .phase(Phase.Running)
                    .leaseAcquiredAt(origin)
                    .cordonedAt(origin)
                    .build();
        }

        /** Steps enough for the window, the hook's removal and its timeout. */
        int lastStep() {
            return spec.windowSteps() + Math.max(spec.hookRemovedSteps(), 0) + spec.hookTimeoutSteps() + 2;
        }

        MachineEnds.Call call(Instant now) {
            boolean hookOn = now.isBefore(hookRemoved);
            MaintenanceHooks.Hooks hooks =
                    new MaintenanceHooks.Hooks(List.of(), hookOn ? List.of("upgrade-check") : List.of(), hookTimeout);
            MachineEnds.Call call = MachineEnds.at(request.withHooks(hooks), state, now);
            boolean over = !now.isBefore(windowEnd);
            if (over && hookOn && heldSince == null) {
                heldSince = now;
            }
            boolean holds = over && hookOn && now.isBefore(heldSince.plus(hookTimeout));
            if (!over) {
                assertThat(call)
                        .as("before spec.window's end (%s) the machine goes on at %s", windowEnd, now)
                        .isInstanceOf(MachineEnds.Call.GoesOn.class);
            } else if (holds) {
                assertThat(call)
                        .as(
                                "spec.window over at %s, a pre-uncordon hook on since %s (timeout %s): the node stays"
                                        + " cordoned at %s",
                                windowEnd, heldSince, hookTimeout, now)
                        .isInstanceOf(MachineEnds.Call.HeldByHooks.class);
                state = ((MachineEnds.Call.HeldByHooks) call).state();
            } else {
                assertThat(call)
                        .as(
                                "spec.window over at %s, no pre-uncordon hook holding (removed at %s, timeout %s"
                                        + " from %s): the node is restored at %s",
                                windowEnd, hookRemoved, hookTimeout, heldSince, now)
                        .isInstanceOf(MachineEnds.Call.Restores.class);
            }
            return call;
        }
    }

    /** A terminating pod older than skipWaitForDeleteTimeout counts as gone (kubectl's skipDeletedFilter). */
    static boolean goneBySkipWait(SimPod s, OptionSpec o, int step) {
        return o.skipWait() && s.terminatingSince != null && step - s.terminatingSince > 2;
    }

    /**
     * The budget model: at most {@code limits} pods of a budget's group disrupted (evicted while running, still
     * terminating) at once. A finished pod's eviction asks no budget and spends none (kube-apiserver's canIgnorePDB).
     */
    static boolean budgetAllows(SimPod s, List<SimPod> node, List<Integer> limits) {
        if (s.spec.budget() == 0) {
            return true;
        }
        return disrupted(s.spec.budget(), node) < limits.get(s.spec.budget() - 1);
    }

    static long disrupted(int budget, List<SimPod> node) {
        return node.stream()
                .filter(o -> o.spec.budget() == budget && o.terminatingSince != null && !o.completed)
                .count();
    }

    /**
     * The preview's answer for the current wave: one "ns/b&lt;n&gt;" per pod it says waits for budget n, sorted. The
     * budgets' status is what the disruption controller would write for the model: {@code disruptionsAllowed} the
     * limit less the group's disrupted pods, every running pod not terminating Ready.
     */
    static List<String> previewWaits(
            DrainPlan plan, List<SimPod> node, List<Integer> limits, DrainOptions options, Instant now) {
        List<io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget> pdbs = new ArrayList<>();
        for (int b = 1; b <= limits.size(); b++) {
            int allowed = (int) Math.max(0, limits.get(b - 1) - disrupted(b, node));
            int bb = b;
            int healthy = (int) node.stream()
                    .filter(o -> o.spec.budget() == bb && !o.completed && o.terminatingSince == null)
                    .count();
            pdbs.add(new io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder()
                    .withNewMetadata()
                    .withNamespace("ns")
                    .withName("b" + b)
                    .endMetadata()
                    .withNewSpec()
                    .withNewSelector()
                    .addToMatchLabels("budget", "b" + b)
                    .endSelector()
                    .endSpec()
                    .withNewStatus()
                    .withDisruptionsAllowed(allowed)
                    .withCurrentHealthy(healthy)
                    .withDesiredHealthy(Math.max(0, healthy - allowed))
                    .endStatus()
                    .build());
        }
        Integer current = plan.currentWave().orElse(null);
        Map<String, BudgetSimulation.PodOutlook> outlooks =
                BudgetSimulation.of(plan, node.stream().map(SimPod::toPod).toList(), Map.of("ns", pdbs), options, now);
        return plan.verdicts().stream()
                .filter(v -> current != null && v.wave() == current)
                .map(v -> outlooks.get(v.key()))
                .filter(o -> o.outlook() == dev.tenure.maintenance.api.DrainOutlook.WaitsForBudget)
                .flatMap(o -> o.budgets().stream())
                .sorted()
                .toList();
    }
}
