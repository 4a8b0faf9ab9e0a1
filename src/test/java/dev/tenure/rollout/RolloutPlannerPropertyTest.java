package dev.tenure.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.rollout.RolloutPlanner.Observed;
import dev.tenure.rollout.RolloutPlanner.RolloutPlan;
import dev.tenure.rollout.api.NodeState;
import dev.tenure.rollout.api.RolloutPhase;
import dev.tenure.testsupport.SuiteCounts;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * The rollout planner over generated pools, driven step by step against a simulated cluster: zones, limits (counts
 * and percentages, per domain), done signals (reboot, duration, label), children that fail, nodes cordoned or
 * NotReady by others, held nodes, pauses toggled by hand, and operator restarts at the two points that matter (before
 * the status write, and between the status write and the child's create), health gates (a done node's workloads whole
 * again some steps later, a gate of the whole rollout toggled, a short {@code gateTimeout}). Checked at every step: no
 * limit is ever exceeded by a start, the nodes in flight never exceed the limits, no node is started (or its child
 * created) twice, a spent failure budget or a pause starts nothing, a gate closed past its timeout always pauses, a
 * closed gate of the rollout starts nothing, a node whose gate is closed is never Done, a gate's wait keeps the time
 * the status recorded; and a run without failures, disruptions or pauses completes with every node maintained
 * exactly once (gates open by themselves, so they only slow it).
 *
 * <p>Tries: the pom's {@code jqwik.tries.default} ({@code make test}, 1,000), {@code FAST_TRIES} in
 * {@code make test-fast}, {@value SuiteCounts#ROLLOUT_PLANNER_TRIES_PROPERTY} when set ({@code make chaos}:
 * {@code ROLLOUT_PLANNER_TRIES}, not the drain model's 200,000 that its {@code jqwik.tries.default} carries). Each case is one {@code seed}: a failure prints jqwik's
 * seed and the case's {@code seed} (the simulation's random source), so {@code @Property(seed = "<jqwik seed>")} or the
 * printed case replays it exactly.
 */
class RolloutPlannerPropertyTest {

    /** The chaos run's count ({@value SuiteCounts#ROLLOUT_PLANNER_TRIES_PROPERTY}), else jqwik's default. */
    public static final class Tries implements AroundPropertyHook {
        @Override
        public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
            Integer tries = Integer.getInteger(SuiteCounts.ROLLOUT_PLANNER_TRIES_PROPERTY);
            if (tries != null) {
                context.attributes().setTries(tries);
            }
            return property.execute();
        }
    }

    static final Instant T0 = Instant.parse("2026-03-01T00:00:00Z");
    static final int MAX_STEPS = 400;
    /** Disruptions and pauses happen before this step only; from it the run may complete. */
    static final int QUIET_FROM = 150;
    /** Gates close (a node's workloads late, the rollout's gate) before this step only. */
    static final int GATES_UNTIL = 60;
    /** spec.health.gateTimeout in the simulation: shorter than the longest gate wait, so some time out. */
    static final Duration GATE_TIMEOUT = Duration.ofSeconds(6);

    /** One simulated node. */
    static final class SimNode {
        final String name;
        final String zone;
        int boot;
        boolean ready = true;
        int readySince = -1000;
        boolean cordonedByChild;
        boolean cordonedByOthers;
        boolean notReadyByOthers;
        int rebootsAt = -1;
        int readyAt = -1;
        boolean labelled;
        int heldUntil;

        SimNode(String name, String zone) {
            this.name = name;
            this.zone = zone;
        }
    }

    /** One simulated child NodeMaintenance. */
    static final class SimChild {
        String phase = "Pending";
        int nextAt;
        final boolean fails;

        SimChild(int now, boolean fails) {
            this.nextAt = now + 1;
            this.fails = fails;
        }
    }

    @Property
    @AddLifecycleHook(Tries.class)
    void limitsHoldNoNodeTwiceAndTheBudgetPauses(
            @ForAll @IntRange(min = 1, max = 24) int nodes,
            @ForAll @IntRange(min = 1, max = 4) int zones,
            @ForAll @IntRange(min = 1, max = 5) int maxCount,
            @ForAll @IntRange(min = 0, max = 100) int maxPercent,
            @ForAll @IntRange(min = 0, max = 3) int perDomain,
            @ForAll @IntRange(min = 1, max = 3) int budget,
            @ForAll @IntRange(min = 0, max = 2) int signalKind,
            @ForAll @IntRange(min = 0, max = 30) int failPercent,
            @ForAll boolean disruptions,
            @ForAll boolean pauses,
            @ForAll boolean crashes,
            @ForAll boolean gates,
            @ForAll long seed) {
        String caseText = "nodes=" + nodes + " zones=" + zones + " max=" + maxCount + " pct=" + maxPercent
                + " perDomain=" + perDomain + " budget=" + budget + " signal=" + signalKind + " fail%=" + failPercent
                + " disruptions=" + disruptions + " pauses=" + pauses + " crashes=" + crashes + " gates=" + gates
                + " seed=" + seed;
        Random random = new Random(seed);
        Map<String, SimNode> cluster = new LinkedHashMap<>();
        for (int i = 0; i < nodes; i++) {
            SimNode n = new SimNode(String.format("n%02d", i), "z" + random.nextInt(zones));
            n.labelled = signalKind == 2 && random.nextInt(5) == 0; // some already done
            n.heldUntil = random.nextInt(4) == 0 ? random.nextInt(40) : 0;
            cluster.put(n.name, n);
        }
        int max = maxPercent > 0 ? RolloutRules.scaled(0, maxPercent, nodes) : maxCount;
        int maxPerDomain = perDomain == 0 ? Integer.MAX_VALUE : perDomain;
        DoneSignal signal = switch (signalKind) {
            case 0 -> new DoneSignal.Rebooted();
            case 1 -> new DoneSignal.AfterDrained(Duration.ofSeconds(3));
            default -> new DoneSignal.Label("upgraded", "true");
        };
        Map<String, SimChild> children = new HashMap<>();
        List<NodeProgress> status = List.of();
        Map<String, Integer> creations = new HashMap<>();
        Set<String> startedEver = new HashSet<>();
        boolean paused = false;
        int pausesUntil = pauses ? QUIET_FROM : 0;
        RolloutPlan last = null;
        List<GateState> statusGates = List.of();
        Map<String, Integer> wholeAt = new HashMap<>();
        boolean rolloutGateClosed = false;

        for (int step = 0; step < MAX_STEPS; step++) {
            Instant now = T0.plusSeconds(step);
            if (pauses && step < pausesUntil && random.nextInt(20) == 0) {
                paused = !paused;
            }
            if (pauses && step >= pausesUntil) {
                paused = false;
            }
            if (disruptions && step < QUIET_FROM && random.nextInt(15) == 0) {
                SimNode n = pick(cluster, random);
                if (random.nextBoolean()) {
                    n.cordonedByOthers = !n.cordonedByOthers;
                } else {
                    n.notReadyByOthers = !n.notReadyByOthers;
                    if (!n.notReadyByOthers) {
                        n.readySince = step;
                    }
                }
            }
            if (disruptions && step == QUIET_FROM) { // others give their nodes back
                for (SimNode n : cluster.values()) {
                    n.cordonedByOthers = false;
                    if (n.notReadyByOthers) {
                        n.notReadyByOthers = false;
                        n.readySince = step;
                    }
                }
            }
            simulate(cluster, children, signalKind, step, random);

            List<PoolNode> pool = new ArrayList<>();
            for (SimNode n : cluster.values()) {
                boolean ready = n.ready && !n.notReadyByOthers;
                pool.add(new PoolNode(
                        n.name,
                        n.zone,
                        n.zone,
                        ready,
                        ready ? T0.plusSeconds(n.readySince) : null,
                        n.cordonedByChild || n.cordonedByOthers,
                        "boot-" + n.boot,
                        "v1",
                        "os",
                        n.labelled ? Map.of("upgraded", "true") : Map.of(),
                        Map.of(),
                        step < n.heldUntil ? "blocking pod" : null));
            }
            Map<String, ChildView> views = new HashMap<>();
            children.forEach((name, c) -> views.put(name, new ChildView(name, c.phase, null, false, false)));
            // the gates as the reconciler reads them: one per node soaking in status, and the rollout's own
            List<GateState> observedGates = new ArrayList<>();
            if (gates) {
                if (step < GATES_UNTIL && random.nextInt(25) == 0) {
                    rolloutGateClosed = !rolloutGateClosed;
                }
                if (step >= GATES_UNTIL) {
                    rolloutGateClosed = false;
                }
                int seen = step;
                for (NodeProgress r : status) {
                    if (r.state() == NodeState.Soaking) {
                        int at = wholeAt.computeIfAbsent(
                                r.name(), n -> seen < GATES_UNTIL ? seen + random.nextInt(13) : seen);
                        observedGates.add(
                                step >= at
                                        ? GateState.open(WorkloadsWhole.GATE, r.name())
                                        : GateState.closed(WorkloadsWhole.GATE, r.name(), "2 of 3 available"));
                    }
                }
            }
            RolloutRules rules = new RolloutRules(
                    max,
                    maxPerDomain,
                    budget,
                    paused,
                    signal,
                    Duration.ofSeconds(2),
                    Duration.ofMinutes(5),
                    null,
                    GATE_TIMEOUT);
            // the rollout's own gate (the alert gate) as the reconciler asks it: only when a node would start
            List<GateState> asked = new ArrayList<>();
            boolean alertsClosed = rolloutGateClosed;
            RolloutPlan plan = gates
                    ? RolloutPlanner.planAskingBeforeStart(
                            new Observed(pool, views, status, observedGates, statusGates), rules, now, () -> {
                                GateState g = alertsClosed
                                        ? GateState.closed("Alerts", null, "AlertsFiring: an alert fires")
                                        : GateState.open("Alerts", null);
                                asked.add(g);
                                return g;
                            })
                    : RolloutPlanner.plan(new Observed(pool, views, status, observedGates, statusGates), rules, now);
            if (asked.size() > 1 || (asked.isEmpty() && !plan.started().isEmpty() && gates)) {
                fail("the alert gate asked " + asked.size() + " time(s), started " + plan.started(), caseText, step);
            }
            observedGates.addAll(asked);
            last = plan;

            // --- the invariants, on the decision
            Set<String> inFlightAfter = new HashSet<>();
            plan.records().stream().filter(NodeProgress::inFlight).forEach(r -> inFlightAfter.add(r.name()));
            Set<String> unavailableAfter = new HashSet<>();
            Map<String, Integer> perZone = new HashMap<>();
            for (PoolNode n : pool) {
                // in flight after this decision (it includes the starts): a node that soaked in it gave its slot back
                if (n.unavailable() || inFlightAfter.contains(n.name())) {
                    unavailableAfter.add(n.name());
                    perZone.merge(n.domain(), 1, Integer::sum);
                }
            }
            // plain checks, their messages built only on failure: this loop runs ~100,000 times per property
            if (!plan.started().isEmpty() && unavailableAfter.size() > max) {
                fail("unavailable after a start: " + unavailableAfter + " > " + max, caseText, step);
            }
            for (String s : plan.started()) {
                if (perZone.get(cluster.get(s).zone) > maxPerDomain) {
                    fail("its domain after starting " + s + ": " + perZone, caseText, step);
                }
            }
            Map<String, Integer> inFlightPerZone = new HashMap<>();
            for (String s : inFlightAfter) {
                inFlightPerZone.merge(cluster.get(s).zone, 1, Integer::sum);
            }
            if (inFlightAfter.size() > max) {
                fail("in flight: " + inFlightAfter + " > " + max, caseText, step);
            }
            if (inFlightPerZone.values().stream().anyMatch(v -> v > maxPerDomain)) {
                fail("in flight per domain: " + inFlightPerZone, caseText, step);
            }
            Set<String> recorded = new HashSet<>();
            status.forEach(r -> recorded.add(r.name()));
            for (String s : plan.started()) {
                if (recorded.contains(s)) {
                    fail("started again: " + s, caseText, step);
                }
            }
            if (plan.failed() >= budget
                    && (!plan.started().isEmpty()
                            || (plan.phase() != RolloutPhase.Paused && plan.phase() != RolloutPhase.Complete))) {
                fail("budget spent, yet " + plan.started() + " started, phase " + plan.phase(), caseText, step);
            }
            if (paused && !plan.started().isEmpty()) {
                fail("paused, yet " + plan.started() + " started", caseText, step);
            }
            checkGates(plan, observedGates, statusGates, status, now, caseText, step);

            // --- apply it, or crash
            int crash = crashes ? random.nextInt(20) : 99;
            if (crash == 0) {
                continue; // died before the status write: nothing happened
            }
            status = plan.records();
            statusGates = plan.gates();
            for (String s : plan.started()) {
                if (!startedEver.add(s)) {
                    fail("started twice: " + s, caseText, step);
                }
            }
            if (crash == 1) {
                continue; // died after the status write, before any child was created or ended
            }
            for (String name : plan.create()) {
                if (children.containsKey(name) || creations.merge(name, 1, Integer::sum) > 1) {
                    fail("a second child for " + name, caseText, step);
                }
                children.put(name, new SimChild(step, random.nextInt(100) < failPercent));
            }
            for (String name : plan.end()) {
                children.remove(name);
                cluster.get(name).cordonedByChild = false; // the undo
            }
            if (step > QUIET_FROM && plan.phase() == RolloutPhase.Complete) {
                break;
            }
        }

        if (!disruptions && !pauses && failPercent == 0) {
            assertThat(last.phase()).as("completes, " + caseText).isEqualTo(RolloutPhase.Complete);
            for (SimNode n : cluster.values()) {
                NodeState state = last.records().stream()
                        .filter(r -> r.name().equals(n.name))
                        .findFirst()
                        .orElseThrow()
                        .state();
                if (n.labelled) {
                    assertThat(state).as(n.name + ", " + caseText).isIn(NodeState.Skipped, NodeState.Done);
                } else {
                    assertThat(state).as(n.name + ", " + caseText).isEqualTo(NodeState.Done);
                    assertThat(creations.get(n.name))
                            .as("maintained once: " + n.name + ", " + caseText)
                            .isEqualTo(1);
                }
            }
        }
    }

    /** The gates' invariants on one decision. */
    private static void checkGates(
            RolloutPlan plan,
            List<GateState> observed,
            List<GateState> before,
            List<NodeProgress> records,
            Instant now,
            String caseText,
            int step) {
        boolean rolloutClosed = observed.stream().anyMatch(g -> g.node() == null && !g.open());
        if (rolloutClosed && !plan.started().isEmpty()) {
            fail("the rollout's gate is closed, yet " + plan.started() + " started", caseText, step);
        }
        for (GateState g : plan.gates()) {
            if (g.open() || g.closedSince() == null || g.closedSince().isAfter(now)) {
                fail("a gate in the answer not closed, or since the future: " + g, caseText, step);
            }
            before.stream()
                    .filter(b -> b.name().equals(g.name()) && java.util.Objects.equals(b.node(), g.node()))
                    .findFirst()
                    .filter(b -> !b.closedSince().equals(g.closedSince()))
                    .ifPresent(b -> fail("the wait started again: " + b + " -> " + g, caseText, step));
            if (!now.isBefore(g.closedSince().plus(GATE_TIMEOUT))) {
                if ((plan.phase() != RolloutPhase.Paused && plan.phase() != RolloutPhase.Complete)
                        || !plan.started().isEmpty()) {
                    fail(
                            "timed-out " + g + ", yet phase " + plan.phase() + ", started " + plan.started(),
                            caseText,
                            step);
                }
            }
        }
        for (GateState g : observed) {
            if (g.node() != null && !g.open()) {
                boolean wasSoaking =
                        records.stream().anyMatch(r -> r.name().equals(g.node()) && r.state() == NodeState.Soaking);
                boolean nowDone =
                        plan.records().stream().anyMatch(r -> r.name().equals(g.node()) && r.state() == NodeState.Done);
                if (wasSoaking && nowDone) {
                    fail("node " + g.node() + " Done while its gate is closed", caseText, step);
                }
                if (plan.gates().stream().noneMatch(p -> g.node().equals(p.node()))
                        && plan.records().stream()
                                .anyMatch(r -> r.name().equals(g.node()) && r.state() == NodeState.Soaking)) {
                    fail("node " + g.node() + " soaks behind a closed gate not in the answer", caseText, step);
                }
            }
        }
    }

    private static void fail(String what, String caseText, int step) {
        throw new AssertionError(what + " at step " + step + "; case " + caseText);
    }

    private static SimNode pick(Map<String, SimNode> cluster, Random random) {
        List<SimNode> all = new ArrayList<>(cluster.values());
        return all.get(random.nextInt(all.size()));
    }

    /** Children move Pending → Running (node cordoned) → Succeeded or Failed; agents reboot or label the node. */
    private static void simulate(
            Map<String, SimNode> cluster, Map<String, SimChild> children, int signalKind, int step, Random random) {
        for (Map.Entry<String, SimChild> e : children.entrySet()) {
            SimChild c = e.getValue();
            SimNode n = cluster.get(e.getKey());
            if (step < c.nextAt) {
                continue;
            }
            switch (c.phase) {
                case "Pending" -> {
                    c.phase = "Running";
                    n.cordonedByChild = true;
                    c.nextAt = step + 1 + random.nextInt(3);
                }
                case "Running" -> {
                    c.phase = c.fails ? "Failed" : "Succeeded";
                    if (!c.fails && signalKind == 0) {
                        n.rebootsAt = step + random.nextInt(3);
                    } else if (!c.fails && signalKind == 2) {
                        n.labelled = true;
                    }
                }
                default -> {}
            }
        }
        for (SimNode n : cluster.values()) {
            if (n.rebootsAt >= 0 && step >= n.rebootsAt) {
                n.rebootsAt = -1;
                n.ready = false;
                n.boot++;
                n.readyAt = step + 1 + random.nextInt(3);
            }
            if (n.readyAt >= 0 && step >= n.readyAt) {
                n.readyAt = -1;
                n.ready = true;
                n.readySince = step;
            }
        }
    }
}
