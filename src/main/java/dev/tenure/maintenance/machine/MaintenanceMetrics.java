package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * tenure_maintenance_* metrics. Labels are bounded: phase, result, outcome, and the node name for the
 * per-maintenance pending-pods gauge (never pod names; at most {@link BoundedNames#LABEL_MAX} characters),
 * whose series exists only while the node is in maintenance.
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

    static final String PENDING_PODS = "tenure.maintenance.pending.pods";

    private final MeterRegistry registry;
    private final Map<String, Phase> phases = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> pending = new ConcurrentHashMap<>();
    private final Timer drainDuration;

    /** Histogram buckets for drains, seconds to a day (Micrometer's default range tops out at 30 s). */
    private static final Duration[] DRAIN_BUCKETS = {
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
        Duration.ofHours(24)
    };
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
