package dev.tenure.rollout;

import dev.tenure.rollout.api.NodeState;
import dev.tenure.rollout.api.RolloutPhase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Which selected nodes a rollout starts now, which children it ends, and what its status says: a pure function of
 * the pool, the children, the records in status, the rules and {@code now} (the Deployment controller's rolling
 * update and system-upgrade-controller's Plan: "which may change now" decided from what is selected, done and
 * unavailable). The reconciler only applies the answer.
 *
 * <p>The rules it keeps:
 *
 * <ul>
 *   <li>A node is unavailable when it is in flight (in progress or soaking) or, whoever did it, cordoned or NotReady;
 *       unavailable nodes count against {@code maxUnavailable} and their domain's limit.
 *   <li>Nodes are admitted one at a time in order, each counted with those admitted before it, so the limits hold
 *       after every start; a node whose domain is full, or which is held (a blocking pod, another maintenance), is
 *       passed over and takes no slot.
 *   <li>A node is started once: its record (with the boot ID seen before) goes into status before its child is
 *       created, and a recorded node is never started again.
 *   <li>At {@code failureBudget} failed nodes, or when paused, no node starts; nodes in flight go on to their end.
 *   <li>Health gates ({@link GateState}): a done node keeps its slot while a gate of its own is closed (the workloads
 *       its drain removed not whole again); a closed gate of the whole rollout starts nothing; a gate closed for
 *       {@code gateTimeout} pauses the rollout (reason {@code GateTimeout}) until it opens. A gate's wait is measured
 *       from when it was first seen closed, kept in status, so a restart does not start it again.
 * </ul>
 */
public final class RolloutPlanner {

    private RolloutPlanner() {}

    /**
     * What was observed: the selected nodes, the rollout's children by node, its records from status, the health gates
     * as seen now ({@link GateState}, {@code closedSince} null unless the observer knows it) and the closed gates the
     * status recorded (with the time each was first seen closed).
     */
    public record Observed(
            List<PoolNode> pool,
            Map<String, ChildView> children,
            List<NodeProgress> records,
            List<GateState> gates,
            List<GateState> gatesBefore) {
        public Observed {
            pool = List.copyOf(pool);
            children = Map.copyOf(children);
            records = List.copyOf(records);
            gates = List.copyOf(gates);
            gatesBefore = List.copyOf(gatesBefore);
        }

        /** Without gates. */
        public Observed(List<PoolNode> pool, Map<String, ChildView> children, List<NodeProgress> records) {
            this(pool, children, records, List.of(), List.of());
        }
    }

    /** One node moving from one state to another, for events ({@code from} null: it was waiting). */
    public record Transition(String node, NodeState from, NodeState to, String message) {}

    /**
     * The decision.
     *
     * @param records the status records to write, in start order, before any child is created
     * @param create nodes whose child must exist: those started now and those in progress whose child is missing
     * @param end nodes whose child is deleted (done, failed): its undo restores the node
     * @param lookAgain when a time-based gate opens (soak, duration, timeouts); null when only events move it
     * @param gates the gates closed now, each with when it was first seen closed (status.gates)
     */
    public record RolloutPlan(
            List<NodeProgress> records,
            List<String> started,
            List<String> create,
            List<String> end,
            List<Transition> transitions,
            RolloutPhase phase,
            String reason,
            String message,
            int total,
            int done,
            int inProgress,
            int waiting,
            int failed,
            List<String> batch,
            Instant eta,
            Duration lookAgain,
            List<GateState> gates) {}

    /** Orders waiting nodes: by the order label's value (nodes without it last), then by name. */
    static final Comparator<PoolNode> ORDER = Comparator.comparing(
                    PoolNode::orderKey, Comparator.nullsLast(Comparator.<String>naturalOrder()))
            .thenComparing(PoolNode::name);

    /**
     * Plans with one more gate of the whole rollout that is asked only when a node would start (the alert gate: Kured
     * asks its Prometheus right before each reboot, {@code pkg/blockers/prometheus.go}): first without it; when that
     * plan starts a node, {@code ask} gives the gate's state now, and when it is closed the plan is made again with it
     * as one more entry of {@link Observed#gates()} (nothing starts; its wait toward {@code gateTimeout} is measured as
     * any gate's). {@code ask} is not called when nothing would start: a gate that holds nothing is not asked, and
     * leaves {@code status.gates}.
     *
     * @param ask the gate of the whole rollout ({@link GateState#node()} null), asked at most once
     */
    public static RolloutPlan planAskingBeforeStart(
            Observed observed, RolloutRules rules, Instant now, Supplier<GateState> ask) {
        RolloutPlan plan = plan(observed, rules, now);
        if (plan.started().isEmpty()) {
            return plan;
        }
        GateState gate = ask.get();
        if (gate.node() != null) {
            throw new IllegalArgumentException("a gate asked before a start holds the whole rollout: " + gate);
        }
        if (gate.open()) {
            return plan;
        }
        List<GateState> gates = new ArrayList<>(observed.gates());
        gates.add(gate);
        return plan(
                new Observed(observed.pool(), observed.children(), observed.records(), gates, observed.gatesBefore()),
                rules,
                now);
    }

    public static RolloutPlan plan(Observed observed, RolloutRules rules, Instant now) {
        Map<String, PoolNode> pool = new LinkedHashMap<>();
        observed.pool().forEach(n -> pool.put(n.name(), n));
        Map<String, NodeProgress> records = new LinkedHashMap<>();
        observed.records().forEach(r -> records.putIfAbsent(r.name(), r));
        List<String> create = new ArrayList<>();
        Set<String> end = new TreeSet<>();
        List<Transition> transitions = new ArrayList<>();
        List<Instant> wakeAt = new ArrayList<>();
        List<GateState> closed = closedGates(observed, now);
        Map<String, GateState> nodeGates = new HashMap<>();
        closed.stream().filter(g -> g.node() != null).forEach(g -> nodeGates.putIfAbsent(g.node(), g));

        // A child without a record: the status that named it was lost. Adopted as in progress, never started twice.
        for (ChildView child : observed.children().values()) {
            if (!records.containsKey(child.nodeName())) {
                PoolNode node = pool.get(child.nodeName());
                records.put(
                        child.nodeName(),
                        new NodeProgress(
                                child.nodeName(),
                                NodeState.InProgress,
                                node == null ? null : node.bootID(),
                                now,
                                null,
                                null,
                                null,
                                "adopted: a child without a record in status"));
            }
        }

        for (Map.Entry<String, NodeProgress> entry : records.entrySet()) {
            NodeProgress before = entry.getValue();
            NodeProgress after = advance(
                    before,
                    pool.get(before.name()),
                    observed.children().get(before.name()),
                    nodeGates.get(before.name()),
                    rules,
                    now,
                    wakeAt);
            entry.setValue(after);
            if (after.state() != before.state()) {
                transitions.add(new Transition(after.name(), before.state(), after.state(), after.message()));
            }
            ChildView child = observed.children().get(after.name());
            if (after.state() == NodeState.InProgress) {
                if (child == null) {
                    create.add(after.name());
                }
            } else if (child != null && !child.ending()) {
                end.add(after.name());
            }
        }

        int failed = (int) records.values().stream()
                .filter(r -> r.state() == NodeState.Failed)
                .count();
        boolean budgetSpent = failed >= rules.failureBudget();

        // A node's gate counts while the node soaks; a gate of the whole rollout always.
        List<GateState> gates = closed.stream()
                .filter(g -> g.node() == null
                        || (records.containsKey(g.node())
                                && records.get(g.node()).state() == NodeState.Soaking))
                .toList();
        GateState timedOut = null;
        for (GateState g : gates) {
            Instant deadline = g.closedSince().plus(rules.gateTimeout());
            if (!now.isBefore(deadline)) {
                timedOut = timedOut == null ? g : timedOut;
            } else {
                wakeAt.add(deadline);
            }
        }
        GateState holdsAll =
                gates.stream().filter(g -> g.node() == null).findFirst().orElse(null);
        GateState holdsSlot =
                gates.stream().filter(g -> g.node() != null).findFirst().orElse(null);

        // Unavailable now: in flight, or cordoned / NotReady whoever did it.
        Set<String> unavailable = new HashSet<>();
        Map<String, Integer> perDomain = new HashMap<>();
        for (PoolNode node : pool.values()) {
            NodeProgress r = records.get(node.name());
            if (node.unavailable() || (r != null && r.inFlight())) {
                unavailable.add(node.name());
                perDomain.merge(node.domain(), 1, Integer::sum);
            }
        }
        for (NodeProgress r : records.values()) { // in flight on a node no longer selected (or gone) still counts
            if (r.inFlight() && !pool.containsKey(r.name())) {
                unavailable.add(r.name());
            }
        }

        List<PoolNode> waiting = pool.values().stream()
                .filter(n -> !records.containsKey(n.name()))
                .sorted(ORDER)
                .toList();
        List<String> started = new ArrayList<>();
        int held = 0;
        int noSlot = 0;
        String firstHold = null;
        for (PoolNode node : waiting) {
            if (rules.doneSignal().doneBeforeStart(node)) {
                records.put(
                        node.name(),
                        new NodeProgress(
                                node.name(),
                                NodeState.Skipped,
                                node.bootID(),
                                null,
                                null,
                                null,
                                now,
                                "done before it started"));
                transitions.add(new Transition(node.name(), null, NodeState.Skipped, "done before it started"));
                continue;
            }
            if (rules.paused() || budgetSpent || timedOut != null || holdsAll != null) {
                continue;
            }
            if (node.blockedBy() != null) {
                held++;
                firstHold = firstHold == null ? node.name() + ": " + node.blockedBy() : firstHold;
                continue;
            }
            boolean counted = unavailable.contains(node.name());
            int total = unavailable.size() + (counted ? 0 : 1);
            int inDomain = perDomain.getOrDefault(node.domain(), 0) + (counted ? 0 : 1);
            if (total > rules.maxUnavailable() || inDomain > rules.maxPerDomain()) {
                noSlot++;
                continue;
            }
            unavailable.add(node.name());
            perDomain.put(node.domain(), inDomain);
            records.put(node.name(), NodeProgress.started(node, now));
            started.add(node.name());
            create.add(node.name());
            transitions.add(new Transition(node.name(), null, NodeState.InProgress, null));
        }

        List<NodeProgress> written = List.copyOf(records.values());
        int done = count(written, NodeState.Done) + count(written, NodeState.Skipped);
        int inFlight = count(written, NodeState.InProgress) + count(written, NodeState.Soaking);
        int stillWaiting = (int)
                pool.keySet().stream().filter(n -> !records.containsKey(n)).count();
        List<String> batch = written.stream()
                .filter(NodeProgress::inFlight)
                .map(NodeProgress::name)
                .sorted()
                .toList();

        RolloutPhase phase;
        String reason;
        String message;
        if (stillWaiting == 0 && inFlight == 0) {
            phase = RolloutPhase.Complete;
            reason = "Complete";
            message = done + " node(s) done, " + failed + " failed";
        } else if (budgetSpent) {
            phase = RolloutPhase.Paused;
            reason = "FailureBudget";
            message = failed + " node(s) failed, the failure budget is " + rules.failureBudget()
                    + ": no new node starts; raise spec.failureBudget to go on";
        } else if (rules.paused()) {
            phase = RolloutPhase.Paused;
            reason = "Paused";
            message = "spec.paused is true: no new node starts; " + inFlight + " in flight finish";
        } else if (timedOut != null) {
            phase = RolloutPhase.Paused;
            reason = "GateTimeout";
            message = timedOut.shown() + " closed since " + timedOut.closedSince() + ", past spec.health.gateTimeout "
                    + shown(rules.gateTimeout()) + ": " + timedOut.message() + "; no new node starts until it opens; "
                    + inFlight + " in flight";
        } else if (holdsAll != null && stillWaiting > 0) {
            phase = RolloutPhase.Progressing;
            reason = "WaitingForGate";
            message = holdsAll.shown() + " is closed: " + holdsAll.message() + "; no new node starts until it opens";
        } else if (holdsSlot != null && stillWaiting > 0 && started.isEmpty() && noSlot > 0) {
            phase = RolloutPhase.Progressing;
            reason = "WaitingForGate";
            message = "node " + holdsSlot.node() + " keeps its slot until " + holdsSlot.shown() + " opens: "
                    + holdsSlot.message() + "; " + unavailable.size() + " selected node(s) unavailable, maxUnavailable "
                    + rules.maxUnavailable();
        } else if (stillWaiting > 0 && started.isEmpty() && noSlot == 0 && held > 0) {
            phase = RolloutPhase.Progressing;
            reason = "Blocked";
            message = held + " waiting node(s) held before they start, e.g. " + firstHold;
        } else if (stillWaiting > 0 && started.isEmpty() && noSlot > 0) {
            phase = RolloutPhase.Progressing;
            reason = "WaitingForSlot";
            message = unavailable.size() + " selected node(s) unavailable, maxUnavailable " + rules.maxUnavailable()
                    + (rules.maxPerDomain() == Integer.MAX_VALUE ? "" : ", per domain " + rules.maxPerDomain())
                    + (held > 0 ? "; " + held + " held: " + firstHold : "");
        } else {
            phase = RolloutPhase.Progressing;
            reason = "Progressing";
            message = inFlight + " in flight, " + stillWaiting + " waiting";
        }

        Duration lookAgain = wakeAt.stream()
                .min(Comparator.naturalOrder())
                .map(at -> at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO)
                .orElse(null);
        return new RolloutPlan(
                written,
                List.copyOf(started),
                List.copyOf(create),
                List.copyOf(end),
                List.copyOf(transitions),
                phase,
                reason,
                message,
                pool.size()
                        + (int) records.keySet().stream()
                                .filter(n -> !pool.containsKey(n))
                                .count(),
                done,
                inFlight,
                stillWaiting,
                failed,
                batch,
                eta(written, stillWaiting + inFlight, rules.maxUnavailable(), now),
                lookAgain,
                gates);
    }

    /**
     * The gates closed now, each with when it was first seen closed: the time the status recorded for the same gate
     * (name and node) while it stayed closed, else the observer's, else {@code now}. An open gate is forgotten, so
     * its next closing waits anew.
     */
    static List<GateState> closedGates(Observed observed, Instant now) {
        List<GateState> out = new ArrayList<>();
        for (GateState g : observed.gates()) {
            if (g.open() || out.stream().anyMatch(g::sameGate)) {
                continue;
            }
            Instant since = observed.gatesBefore().stream()
                    .filter(b -> !b.open() && b.sameGate(g) && b.closedSince() != null)
                    .map(GateState::closedSince)
                    .findFirst()
                    .orElse(g.closedSince() == null ? now : g.closedSince());
            if (since.isAfter(now)) {
                since = now; // a time in the future (a clock ahead, a hand edit) never stretches the wait
            }
            out.add(new GateState(g.name(), g.node(), false, since, g.message()));
        }
        return List.copyOf(out);
    }

    /** One record's next state from its node, its child and the clock. */
    private static NodeProgress advance(
            NodeProgress r,
            PoolNode node,
            ChildView child,
            GateState gate,
            RolloutRules rules,
            Instant now,
            List<Instant> wakeAt) {
        switch (r.state()) {
            case InProgress -> {
                if (node == null) {
                    return r.failed(now, "the node is gone or no longer selected");
                }
                NodeProgress seen = child == null ? r : r.withWorkloads(child.workloads());
                if (child != null && "Succeeded".equals(child.phase()) && r.drainedAt() == null) {
                    seen = seen.drained(now);
                }
                if (rules.doneSignal().done(node, seen, child, now)) {
                    return seen.soaking(now);
                }
                if (child != null && "Failed".equals(child.phase())) {
                    return seen.failed(
                            now, "its NodeMaintenance failed" + (child.error() == null ? "" : ": " + child.error()));
                }
                if (child != null && "Ended".equals(child.phase())) {
                    return seen.failed(
                            now,
                            "its NodeMaintenance ended before the node was done"
                                    + (child.error() == null ? "" : ": " + child.error()));
                }
                if (rules.doneTimeout() != null && seen.startedAt() != null) {
                    Instant deadline = seen.startedAt().plus(rules.doneTimeout());
                    if (!now.isBefore(deadline)) {
                        return seen.failed(now, "DoneTimeout: not done within spec.doneWhen.timeout");
                    }
                    wakeAt.add(deadline);
                }
                Instant due = rules.doneSignal().dueAt(seen);
                if (due != null) {
                    wakeAt.add(due);
                }
                return seen;
            }
            case Soaking -> {
                if (node == null) {
                    return r.failed(now, "the node is gone or no longer selected");
                }
                Instant doneAt = r.doneAt() == null ? now : r.doneAt();
                if (node.ready() && node.readySince() != null) {
                    Instant from = node.readySince().isAfter(doneAt) ? node.readySince() : doneAt;
                    Instant soaked = from.plus(rules.soak());
                    if (!now.isBefore(soaked)) {
                        // soaked: the slot frees once its own gate is open (a gate is the cluster's, not the node's:
                        // it never fails the node; past gateTimeout it pauses the rollout)
                        return gate == null
                                ? r.doneAndSoaked(now)
                                : r.waiting("waits for " + gate.shown() + ": " + gate.message());
                    }
                    wakeAt.add(soaked);
                }
                Instant deadline = doneAt.plus(rules.soakTimeout());
                if (!now.isBefore(deadline)) {
                    return r.failed(
                            now,
                            "SoakTimeout: not Ready for " + rules.soak() + " within " + rules.soakTimeout()
                                    + " of being done");
                }
                wakeAt.add(deadline);
                return r;
            }
            default -> {
                return r;
            }
        }
    }

    /** A duration as the spec writes it (Go's form, whole seconds): 30m, 1h30m, 6s. */
    static String shown(Duration d) {
        long s = d.toSeconds();
        StringBuilder b = new StringBuilder();
        if (s >= 3600) {
            b.append(s / 3600).append('h');
        }
        if (s % 3600 >= 60) {
            b.append(s % 3600 / 60).append('m');
        }
        if (s % 60 > 0 || b.length() == 0) {
            b.append(s % 60).append('s');
        }
        return b.toString();
    }

    private static int count(List<NodeProgress> records, NodeState state) {
        return (int) records.stream().filter(r -> r.state() == state).count();
    }

    /** Now plus the rounds left at the mean time a node took from start to soaked. */
    static Instant eta(List<NodeProgress> records, int left, int perRound, Instant now) {
        List<Duration> took = records.stream()
                .filter(r -> r.state() == NodeState.Done && r.startedAt() != null && r.endedAt() != null)
                .map(r -> Duration.between(r.startedAt(), r.endedAt()))
                .toList();
        if (took.isEmpty()) {
            return null;
        }
        long meanMillis = took.stream().mapToLong(Duration::toMillis).sum() / took.size();
        long rounds = ((long) left + perRound - 1) / perRound;
        return now.plusMillis(meanMillis * rounds);
    }
}
