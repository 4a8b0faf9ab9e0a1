package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * tenure_maintenance_* metrics. Labels are bounded: phase, result, outcome, stage, and the node name for the
 * per-maintenance pending-pods gauge (never pod names; at most {@link BoundedNames#LABEL_MAX} characters),
 * whose series exists only while the node is in maintenance; the names of what holds a drain (a
 * PodDisruptionBudget, a hook's owner) are bounded in count too ({@link BoundedNames.FirstSeen}).
 */
public final class MaintenanceMetrics {

    public enum EvictionResult {
        ok,
        blocked_by_pdb,
        error
    }

    public enum LeaseOutcome {
        acquired,
        takeover,
        wait
    }

    public enum HandoverOutcome {
        completed,
        timed_out
    }

    /**
     * The stages of one maintenance, in the order they run, as {@code tenure_maintenance_stage_duration_seconds}
     * labels them. A wave is one label for all waves: a wave's order is any integer a user writes in a rule.
     */
    public enum StageLabel {
        /** Held by the operator-wide limits (the fair queue), from the first hold to admission. */
        queue,
        /** Scheduled: waiting for its recurring window to open. */
        window_wait,
        pre_drain_hooks,
        /** One wave of an ordered drain (the default plan has one wave for ordinary pods). */
        wave,
        /** The WaitCompleted pods, from the drain's start (as spec.drain.waitCompletedTimeout counts) to their end. */
        wait_completed,
        /** The whole drain, all waves. */
        drain,
        volume_detach,
        pre_uncordon_hooks
    }

    /** How a stage ended: done, past its timeout by onTimeout Proceed/Fail/Restore, or its maintenance deleted. */
    public enum StageOutcome {
        completed,
        proceed,
        fail,
        restore,
        deleted
    }

    /** What holds a maintenance: a PodDisruptionBudget refusing evictions, or a lifecycle hook not removed. */
    public enum BlockerKind {
        pdb,
        hook
    }

    static final String PENDING_PODS = "tenure.maintenance.pending.pods";
    static final String STAGE_DURATION = "tenure.maintenance.stage.duration";
    static final String BLOCKED_SECONDS = "tenure.maintenance.blocked.seconds";
    /** Distinct names per blocker kind that get a series of their own; later ones count as "other". */
    static final int BLOCKER_NAMES_MAX = 20;

    private final MeterRegistry registry;
    private final Map<String, Phase> phases = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> pending = new ConcurrentHashMap<>();
    private final Timer drainDuration;
    private final Map<BlockerKind, BoundedNames.FirstSeen> blockerNames = new EnumMap<>(BlockerKind.class);
    /** node + kind → what held it at its last machine call, and when. */
    private final Map<String, Held> held = new ConcurrentHashMap<>();
    /** maintenance → the wait before its machine starts (queue or window) and since when. */
    private final Map<String, Waiting> waiting = new ConcurrentHashMap<>();

    private record Held(Instant at, Set<String> names) {}

    private record Waiting(StageLabel stage, Instant since) {}

    /**
     * One ladder of histogram bounds, human durations from a second to a week; the drain and stage timers each take a
     * stretch of it, so their buckets line up where they overlap.
     */
    private static final List<Duration> BUCKET_LADDER = List.of(
            Duration.ofSeconds(1),
            Duration.ofSeconds(5),
            Duration.ofSeconds(15),
            Duration.ofSeconds(30),
            Duration.ofMinutes(1),
            Duration.ofMinutes(2),
            Duration.ofMinutes(5),
            Duration.ofMinutes(10),
            Duration.ofMinutes(20),
            Duration.ofMinutes(30),
            Duration.ofHours(1),
            Duration.ofHours(2),
            Duration.ofHours(4),
            Duration.ofHours(8),
            Duration.ofHours(24),
            Duration.ofDays(2),
            Duration.ofDays(7));
    /** Histogram buckets for drains, seconds to a day (Micrometer's default range tops out at 30 s). */
    private static final Duration[] DRAIN_BUCKETS = bucketsBetween(Duration.ofSeconds(5), Duration.ofHours(24));
    /** Histogram buckets for stages: a second to a week (a weekly window's wait). */
    private static final Duration[] STAGE_BUCKETS = bucketsBetween(Duration.ofSeconds(1), Duration.ofDays(7));

    private static Duration[] bucketsBetween(Duration from, Duration to) {
        return BUCKET_LADDER.stream()
                .filter(d -> d.compareTo(from) >= 0 && d.compareTo(to) <= 0)
                .toArray(Duration[]::new);
    }

    /** Histogram buckets for handovers, sub-second to the longest spec.handover.timeout people set. */
    private static final Duration[] HANDOVER_BUCKETS = {
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofSeconds(2),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        Duration.ofSeconds(30),
        Duration.ofMinutes(1),
        Duration.ofMinutes(2),
        Duration.ofMinutes(5),
        Duration.ofMinutes(10),
        Duration.ofMinutes(30)
    };

    public MaintenanceMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (Phase p : Phase.values()) {
            Gauge.builder(
                            "tenure.maintenance.maintenances",
                            phases,
                            m -> m.values().stream().filter(p::equals).count())
                    .tag("phase", p.name())
                    .description("NodeMaintenances by phase")
                    .register(registry);
        }
        this.drainDuration = Timer.builder("tenure.maintenance.drain.duration")
                .description("Time from the start of a drain to the node being empty")
                .serviceLevelObjectives(DRAIN_BUCKETS)
                .register(registry);
        for (BlockerKind kind : BlockerKind.values()) {
            blockerNames.put(kind, new BoundedNames.FirstSeen(BLOCKER_NAMES_MAX));
        }
    }

    /** {@code stage} ended at {@code now} as {@code outcome}, having begun at {@code from}. */
    public void stage(StageLabel stage, StageOutcome outcome, Instant from, Instant now) {
        Duration took = Duration.between(from, now);
        Timer.builder(STAGE_DURATION)
                .tag("stage", stage.name())
                .tag("outcome", outcome.name())
                .description("Time a maintenance spent in each stage (queue, window wait, hooks, waves, drain, volume"
                        + " detach), observed when the stage ends")
                .serviceLevelObjectives(STAGE_BUCKETS)
                .register(registry)
                .record(took.isNegative() ? Duration.ZERO : took);
    }

    /**
     * At a machine call on {@code node} at {@code now}, the {@code kind} that hold it now ({@code names}; empty: none):
     * the time since its last call goes on each name that held it then, in {@code
     * tenure_maintenance_blocked_seconds_total{kind, name}}.
     */
    public void blocking(String node, BlockerKind kind, Collection<String> names, Instant now) {
        String key = node + "\u0000" + kind;
        Held was = names.isEmpty() ? held.remove(key) : held.put(key, new Held(now, Set.copyOf(names)));
        if (was == null) {
            return;
        }
        double seconds = Duration.between(was.at(), now).toNanos() / 1e9;
        if (seconds <= 0) {
            return;
        }
        BoundedNames.FirstSeen bound = blockerNames.get(kind);
        for (String name : was.names()) {
            Counter.builder(BLOCKED_SECONDS)
                    .tag("kind", kind.name())
                    .tag("name", bound.label(name))
                    .description("Seconds maintenances were held by a PodDisruptionBudget (namespace/name) refusing"
                            + " evictions or by a lifecycle hook's owner; the first " + BLOCKER_NAMES_MAX
                            + " names of each kind, then \"other\"")
                    .register(registry)
                    .increment(seconds);
        }
    }

    /**
     * The door holds {@code maintenance} before its machine runs, in {@code stage} (queue or window_wait) at {@code
     * now}: a wait of another kind before it ends (completed).
     */
    public void waitingIn(String maintenance, StageLabel stage, Instant now) {
        Waiting was = waiting.get(maintenance);
        if (was != null && was.stage() == stage) {
            return;
        }
        waitEnded(maintenance, StageOutcome.completed, now);
        waiting.put(maintenance, new Waiting(stage, now));
    }

    /** The door's wait for {@code maintenance} (if any) is over at {@code now}, as {@code outcome}. */
    public void waitEnded(String maintenance, StageOutcome outcome, Instant now) {
        Waiting was = waiting.remove(maintenance);
        if (was != null) {
            stage(was.stage(), outcome, was.since(), now);
        }
    }

    /** The phases a maintenance has before its drain starts, with "None" for a status without a phase. */
    static final List<String> BEFORE_DRAIN = List.of("None", "Pending", "Scheduled", "Waiting");

    /**
     * {@code tenure_maintenance_blocked_before_drain{phase}}: NodeMaintenances that have not started draining
     * (no phase yet, Pending, Scheduled, Waiting) and carry a status.lastError, or have no phase at all; read from
     * {@code maintenances} at each scrape (NaN while it answers {@code null}: not known, not zero). A refused
     * spec, a crash before the first status, a lease held elsewhere or a failing write all show here, where no
     * pending-pods gauge exists yet.
     */
    public void watchBlockedBeforeDrain(Supplier<List<NodeMaintenance>> maintenances) {
        for (String phase : BEFORE_DRAIN) {
            Gauge.builder("tenure.maintenance.blocked.before.drain", maintenances, m -> {
                        List<NodeMaintenance> all = m.get();
                        return all == null ? Double.NaN : blockedBeforeDrain(all, phase);
                    })
                    .tag("phase", phase)
                    .description("NodeMaintenances not yet draining that carry a status.lastError or have no phase")
                    .strongReference(true)
                    .register(registry);
        }
    }

    /** How many of {@code all} are blocked before their drain in {@code phase} (see {@link #watchBlockedBeforeDrain}). */
    static long blockedBeforeDrain(List<NodeMaintenance> all, String phase) {
        return all.stream()
                .filter(nm -> {
                    NodeMaintenanceStatus status = nm.getStatus();
                    Phase p = status == null ? null : status.getPhase();
                    String label = p == null ? "None" : p.name();
                    return label.equals(phase)
                            && (p == null
                                    || (status.getLastError() != null
                                            && !status.getLastError().isBlank()));
                })
                .count();
    }

    public void phase(String maintenance, Phase phase) {
        phases.put(maintenance, phase);
    }

    /** The NodeMaintenance is gone: its phase and its node's series. */
    public void forget(String maintenance, String nodeName) {
        phases.remove(maintenance);
        waiting.remove(maintenance);
        for (BlockerKind kind : BlockerKind.values()) {
            held.remove(nodeName + "\u0000" + kind);
        }
        nodeLeft(nodeName);
    }

    /**
     * The node left maintenance (restored, deleted, window over): its series goes, so a gauge frozen at its
     * last value cannot keep an alert firing until the operator restarts.
     */
    public void nodeLeft(String nodeName) {
        String label = BoundedNames.shorten(nodeName, BoundedNames.LABEL_MAX);
        if (pending.remove(label) != null) {
            registry.find(PENDING_PODS).tag("node", label).meters().forEach(registry::remove);
        }
    }

    public void drained(Duration took) {
        drainDuration.record(took);
    }

    /** What became of a surge (issue 51): a bounded label. */
    public enum SurgeOutcome {
        /** Its workload's replicas were raised. */
        started,
        /** Its pods left the node and the replicas were given back. */
        completed,
        /** The drain ended first (its timeout, the maintenance's end): the replicas were given back. */
        given_back,
        /** Stopped without giving back ({@link SurgeLeft} says why). */
        left
    }

    /** Why a surge was left: a bounded label ({@code none} for the other outcomes). */
    public enum SurgeLeft {
        none,
        /** The replicas were changed by someone else (an HPA, a person, a controller). */
        changed,
        /** The replicas were put back to the owner's while the surge waited (a GitOps revert). */
        reverted,
        /** The workload was deleted. */
        gone
    }

    /** A surge moved to {@code outcome} ({@code reason}: why it was left, else {@code none}). */
    public void surge(SurgeOutcome outcome, SurgeLeft reason) {
        Counter.builder("tenure.maintenance.surges")
                .tag("outcome", outcome.name())
                .tag("reason", reason.name())
                .description("Surges (spec.drain.evacuation Surge) started, completed, given back and left (with why)")
                .register(registry)
                .increment();
    }

    public void eviction(EvictionResult result) {
        Counter.builder("tenure.maintenance.evictions")
                .tag("result", result.name())
                .description("Eviction (or delete) requests by result")
                .register(registry)
                .increment();
    }

    /** Pods still to evict or terminate on a node being drained; {@code node} is bounded ({@link BoundedNames}). */
    public void pendingPods(String nodeName, int count) {
        pending.computeIfAbsent(BoundedNames.shorten(nodeName, BoundedNames.LABEL_MAX), label -> {
                    AtomicInteger value = new AtomicInteger();
                    Gauge.builder(PENDING_PODS, value, AtomicInteger::get)
                            .tag("node", label)
                            .description("Pods still to evict or terminate on a node in maintenance (series removed"
                                    + " when the node leaves maintenance)")
                            .register(registry);
                    return value;
                })
                .set(count);
    }

    /** The leadership handover step, from its start to done (or giving up at spec.handover.timeout). */
    public void handover(HandoverOutcome outcome, Duration took) {
        Timer.builder("tenure.maintenance.handover.duration")
                .tag("outcome", outcome.name())
                .description("Time from cordon to leadership handed off the node (or to the handover timeout)")
                .serviceLevelObjectives(HANDOVER_BUCKETS)
                .register(registry)
                .record(took);
    }

    public void lease(LeaseOutcome outcome) {
        Counter.builder("tenure.maintenance.lease")
                .tag("outcome", outcome.name())
                .description("Node lease acquisitions, takeovers of expired foreign leases, and waits")
                .register(registry)
                .increment();
    }
}
