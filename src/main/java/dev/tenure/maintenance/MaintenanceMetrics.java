package dev.tenure.maintenance;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * tenure_maintenance_* metrics. Labels are bounded: phase, result, outcome, and the node name for the
 * per-maintenance pending-pods gauge (never pod names).
 */
public final class MaintenanceMetrics {

    public enum EvictionResult { ok, blocked_by_pdb, error }

    public enum LeaseOutcome { acquired, takeover, wait }

    public enum HandoverOutcome { completed, timed_out }

    private final MeterRegistry registry;
    private final Map<String, Phase> phases = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> pending = new ConcurrentHashMap<>();
    private final Timer drainDuration;

    public MaintenanceMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (Phase p : Phase.values()) {
            Gauge.builder("tenure.maintenance.maintenances", phases, m -> m.values().stream().filter(p::equals).count())
                    .tag("phase", p.name()).description("NodeMaintenances by phase").register(registry);
        }
        // buckets from seconds to hours: Micrometer's default histogram tops out at 30 s, where every real drain
        // (grace periods, PDB-paced evictions) would land past the last bucket and p50/p95 read as +Inf
        this.drainDuration = Timer.builder("tenure.maintenance.drain.duration")
                .description("Time from the start of a drain to the node being empty")
                .serviceLevelObjectives(DRAIN_BUCKETS).minimumExpectedValue(DRAIN_BUCKETS[0])
                .maximumExpectedValue(DRAIN_BUCKETS[DRAIN_BUCKETS.length - 1]).register(registry);
    }

    public void phase(String maintenance, Phase phase) {
        phases.put(maintenance, phase);
    }

    public void forget(String maintenance, String nodeName) {
        phases.remove(maintenance);
        AtomicInteger g = pending.remove(nodeName);
        if (g != null) {
            registry.find("tenure.maintenance.pending.pods").tag("node", nodeName).meters().forEach(registry::remove);
        }
    }

    public void drained(Duration took) {
        drainDuration.record(took);
    }

    public void eviction(EvictionResult result) {
        Counter.builder("tenure.maintenance.evictions").tag("result", result.name())
                .description("Eviction (or delete) requests by result").register(registry).increment();
    }

    public void pendingPods(String nodeName, int count) {
        pending.computeIfAbsent(nodeName, n -> registry.gauge("tenure.maintenance.pending.pods",
                io.micrometer.core.instrument.Tags.of("node", n), new AtomicInteger())).set(count);
    }

    /** The leadership handover step, from its start to done (or giving up at spec.handover.timeout). */
    public void handover(HandoverOutcome outcome, Duration took) {
        Timer.builder("tenure.maintenance.handover.duration").tag("outcome", outcome.name())
                .description("Time from cordon to leadership handed off the node (or to the handover timeout)")
                .serviceLevelObjectives(HANDOVER_BUCKETS).minimumExpectedValue(HANDOVER_BUCKETS[0])
                .maximumExpectedValue(HANDOVER_BUCKETS[HANDOVER_BUCKETS.length - 1]).register(registry).record(took);
    }

    /** Drain duration buckets: 5 s to 12 h. */
    static final Duration[] DRAIN_BUCKETS = Stream.of("5s", "15s", "30s", "1m", "2m", "5m", "10m", "20m", "30m", "1h",
            "2h", "4h", "8h", "12h").map(MaintenanceMetrics::duration).toArray(Duration[]::new);
    /** Handover buckets: 10 ms (a watch event and a write) to 10 min (handover timeouts are 30 s by default). */
    static final Duration[] HANDOVER_BUCKETS = Stream.of("10ms", "50ms", "100ms", "250ms", "500ms", "1s", "2s", "5s",
            "10s", "30s", "1m", "2m", "5m", "10m").map(MaintenanceMetrics::duration).toArray(Duration[]::new);

    private static Duration duration(String s) {
        return GoDuration.parse("bucket", s);
    }

    public void lease(LeaseOutcome outcome) {
        Counter.builder("tenure.maintenance.lease").tag("outcome", outcome.name())
                .description("Node lease acquisitions, takeovers of expired foreign leases, and waits")
                .register(registry).increment();
    }
}
