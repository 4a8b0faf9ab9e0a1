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
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

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
 *   <li>At {@code failureBudget} failed nodes, when paused, or while the alert gate is closed, no node starts; nodes
 *       in flight go on to their end.
 * </ul>
 */
public final class RolloutPlanner {

    private RolloutPlanner() {}

    /**
     * What was observed: the selected nodes, the rollout's children by node, its records from status, and the alert
     * gate (closed: no waiting node starts).
     */
    public record Observed(
            List<PoolNode> pool, Map<String, ChildView> children, List<NodeProgress> records, AlertGate alertGate) {
        public Observed {
            pool = List.copyOf(pool);
            children = Map.copyOf(children);
            records = List.copyOf(records);
            Objects.requireNonNull(alertGate, "alertGate");
        }

        /** Observed with the alert gate open (a rollout without one, or before it is asked). */
        public Observed(List<PoolNode> pool, Map<String, ChildView> children, List<NodeProgress> records) {
            this(pool, children, records, AlertGate.OPEN);
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
            Duration lookAgain) {}

    /** Orders waiting nodes: by the order label's value (nodes without it last), then by name. */
    static final Comparator<PoolNode> ORDER = Comparator.comparing(
                    PoolNode::orderKey, Comparator.nullsLast(Comparator.<String>naturalOrder()))
            .thenComparing(PoolNode::name);

    public static RolloutPlan plan(Observed observed, RolloutRules rules, Instant now) {
        Map<String, PoolNode> pool = new LinkedHashMap<>();
        observed.pool().forEach(n -> pool.put(n.name(), n));
        Map<String, NodeProgress> records = new LinkedHashMap<>();
        observed.records().forEach(r -> records.putIfAbsent(r.name(), r));
        List<String> create = new ArrayList<>();
        Set<String> end = new TreeSet<>();
        List<Transition> transitions = new ArrayList<>();
        List<Instant> wakeAt = new ArrayList<>();

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
                    before, pool.get(before.name()), observed.children().get(before.name()), rules, now, wakeAt);
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
        int gateHeld = 0;
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
            if (rules.paused() || budgetSpent) {
                continue;
            }
            if (!observed.alertGate().open()) {
                gateHeld++;
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
        } else if (gateHeld > 0) {
            phase = RolloutPhase.Progressing;
            reason = observed.alertGate().reason();
            message = observed.alertGate().message() + "; no new node starts, " + inFlight + " in flight go on";
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
                lookAgain);
    }

    /** One record's next state from its node, its child and the clock. */
    private static NodeProgress advance(
            NodeProgress r, PoolNode node, ChildView child, RolloutRules rules, Instant now, List<Instant> wakeAt) {
        switch (r.state()) {
            case InProgress -> {
                if (node == null) {
                    return r.failed(now, "the node is gone or no longer selected");
                }
                NodeProgress seen = r;
                if (child != null && "Succeeded".equals(child.phase()) && r.drainedAt() == null) {
                    seen = r.drained(now);
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
                        return r.doneAndSoaked(now);
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
