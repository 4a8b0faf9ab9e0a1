package dev.tenure.coordination;

import dev.tenure.election.LeaseKey;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Coordinated election metrics. Labels are bounded: strategy collapses to a known set, outcome and reason are
 * enums, and the per-Lease gauge exists only while the Lease has candidates.
 * <ul>
 *   <li>{@code tenure_coordination_elections_total{strategy,outcome}}: holders written (created, takeover)
 *       and hand-overs requested (preferred_holder)</li>
 *   <li>{@code tenure_coordination_election_duration_seconds{strategy}}: from the moment a Lease lost its valid
 *       holder (or was first wanted) until a holder was written</li>
 *   <li>{@code tenure_coordination_election_failures_total{reason}}</li>
 *   <li>{@code tenure_coordination_leaderless_seconds{lease_namespace,lease}}: how long the Lease has been without a
 *       valid holder, 0 while it has one</li>
 *   <li>{@code tenure_coordination_live_candidates{lease_namespace,lease}}: candidates that have not let a ping go
 *       unanswered (0 once every candidate of the workload is gone), on the same Leases as the gauge above</li>
 * </ul>
 */
public final class CoordinationMetrics {

    /** Failure reasons that are not election outcomes: writes that did not go through. */
    public static final String WRITE_CONFLICT = "write_conflict";

    public static final String API_ERROR = "api_error";

    /** Histogram buckets for leaderless gaps, sub-second (a write after a crash) to minutes (a handover). */
    private static final Duration[] ELECTION_BUCKETS = {
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofSeconds(2),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        Duration.ofSeconds(30),
        Duration.ofMinutes(1),
        Duration.ofMinutes(5),
        Duration.ofMinutes(15)
    };

    private final MeterRegistry registry;
    private final Clock clock;
    private final Map<LeaseKey, AtomicReference<Instant>> leaderlessSince = new ConcurrentHashMap<>();
    private final Map<LeaseKey, Gauge> leaderlessGauges = new ConcurrentHashMap<>();
    private final Map<LeaseKey, AtomicInteger> liveCandidates = new ConcurrentHashMap<>();
    private final Map<LeaseKey, Gauge> liveCandidateGauges = new ConcurrentHashMap<>();

    public CoordinationMetrics(MeterRegistry registry, Clock clock) {
        this.registry = registry;
        this.clock = clock;
    }

    /** Records the outcome of one election step for {@code key}. */
    void stepDecided(LeaseKey key, ElectionStep decision, String strategy, Optional<Instant> leaderless, Instant now) {
        if (decision.outcome() == ElectionStep.Outcome.NOT_MANAGED) {
            forget(key);
            return;
        }
        track(key).set(leaderless.orElse(null));
        if (decision.failure() != null) {
            failure(decision.failure().label());
        }
    }

    /** After a decision's write went through. */
    void written(LeaseKey key, ElectionStep decision, String strategy, Optional<Instant> leaderless, Instant now) {
        String outcome = switch (decision.outcome()) {
            case CREATE_LEASE -> decision.electedHolder().isPresent() ? "created" : null;
            case SET_HOLDER -> "takeover";
            case SET_PREFERRED_HOLDER -> "preferred_holder";
            default -> null;
        };
        if (outcome == null) {
            return;
        }
        String label = LeaseStrategy.of(strategy).metricLabel();
        Counter.builder("tenure.coordination.elections")
                .description("Lease holders written and hand-overs requested by the coordination controller")
                .tag("strategy", label)
                .tag("outcome", outcome)
                .register(registry)
                .increment();
        if (decision.electedHolder().isPresent()) {
            Duration took =
                    leaderless.map(since -> Duration.between(since, now)).orElse(Duration.ZERO);
            Timer.builder("tenure.coordination.election.duration")
                    .description("Time from a Lease losing its valid holder to a new holder being written")
                    .tag("strategy", label)
                    .serviceLevelObjectives(ELECTION_BUCKETS)
                    .register(registry)
                    .record(took.isNegative() ? Duration.ZERO : took);
            track(key).set(null);
        }
    }

    void failure(String reason) {
        Counter.builder("tenure.coordination.election.failures")
                .description("Election steps that could not elect or could not write")
                .tag("reason", reason)
                .register(registry)
                .increment();
    }

    private AtomicReference<Instant> track(LeaseKey key) {
        AtomicReference<Instant> ref = leaderlessSince.computeIfAbsent(key, k -> new AtomicReference<>());
        leaderlessGauges.computeIfAbsent(
                key,
                k -> Gauge.builder(
                                "tenure.coordination.leaderless",
                                ref,
                                r -> r.get() == null
                                        ? 0.0
                                        : Math.max(
                                                        0,
                                                        Duration.between(r.get(), clock.instant())
                                                                .toMillis())
                                                / 1000.0)
                        .description("How long the Lease has been without a valid holder")
                        .baseUnit("seconds")
                        .strongReference(true)
                        .tag("lease_namespace", k.namespace())
                        .tag("lease", k.name())
                        .register(registry));
        return ref;
    }

    /**
     * Candidates of {@code key} that may still answer (see {@link ElectionPlanner#liveCandidates}); the series
     * lives and goes with the leaderless one, so its labels are as bounded.
     */
    void liveCandidates(LeaseKey key, ElectionStep decision, int live) {
        if (decision.outcome() == ElectionStep.Outcome.NOT_MANAGED) {
            return; // forgotten by stepDecided
        }
        liveCandidates
                .computeIfAbsent(key, k -> {
                    AtomicInteger value = new AtomicInteger();
                    liveCandidateGauges.put(
                            k,
                            Gauge.builder("tenure.coordination.live.candidates", value, AtomicInteger::get)
                                    .description("Candidates of the Lease that have not let a ping go unanswered")
                                    .strongReference(true)
                                    .tag("lease_namespace", k.namespace())
                                    .tag("lease", k.name())
                                    .register(registry));
                    return value;
                })
                .set(live);
    }

    void forget(LeaseKey key) {
        leaderlessSince.remove(key);
        Gauge g = leaderlessGauges.remove(key);
        if (g != null) {
            registry.remove(g);
        }
        liveCandidates.remove(key);
        Gauge live = liveCandidateGauges.remove(key);
        if (live != null) {
            registry.remove(live);
        }
    }
}
