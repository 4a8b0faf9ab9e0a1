package dev.tenure.operator;

import dev.tenure.election.ElectionMetrics;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseStoreException;
import dev.tenure.election.ProcessEnd;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Election metrics for Prometheus: {@code tenure_leader_is_leader}, {@code tenure_leader_transitions_total},
 * {@code tenure_leader_renew_seconds}, {@code tenure_leader_renew_failures_total}, {@code tenure_leader_evidence_takeovers_total}, tagged with the lease.
 */
public final class MicrometerElectionMetrics implements ElectionMetrics {
    private final AtomicInteger isLeader = new AtomicInteger();
    private final Counter transitions;
    private final Timer renew;
    private final Counter renewFailures;
    private final MeterRegistry registry;
    private final Tags tags;

    public MicrometerElectionMetrics(MeterRegistry registry, LeaseKey lease) {
        // the same lease labels as every tenure_ metric: lease_namespace and lease (a plain `namespace` label would
        // clash with the scrape target's own namespace label, which says which install the series comes from)
        this.registry = registry;
        this.tags = Tags.of("lease_namespace", lease.namespace(), "lease", lease.name());
        Gauge.builder("tenure.leader.is_leader", isLeader, AtomicInteger::get)
                .tags(tags)
                .description("1 while this replica leads the lease, else 0")
                .register(registry);
        transitions = Counter.builder("tenure.leader.transitions")
                .tags(tags)
                .description("Times this replica became leader")
                .register(registry);
        renew = Timer.builder("tenure.leader.renew")
                .tags(tags)
                .description("Latency of successful lease renewals")
                .register(registry);
        renewFailures = Counter.builder("tenure.leader.renew.failures")
                .tags(tags)
                .description("Failed lease renew attempts while leading")
                .register(registry);
    }

    @Override
    public void leadershipChanged(LeaseKey lease, boolean leading) {
        isLeader.set(leading ? 1 : 0);
        if (leading) {
            transitions.increment();
        }
    }

    @Override
    public void renewSucceeded(LeaseKey lease, Duration latency) {
        renew.record(latency);
    }

    @Override
    public void renewFailed(LeaseKey lease, LeaseStoreException cause) {
        renewFailures.increment();
    }

    /** {@code tenure_leader_evidence_takeovers_total{reason}}: reason is one of three (ProcessEnd.Reason). */
    @Override
    public void tookOverOnEvidence(LeaseKey lease, ProcessEnd.Reason reason) {
        Counter.builder("tenure.leader.evidence_takeovers")
                .tags(tags.and("reason", reason.label()))
                .description("Times this replica took the lease over before it expired, on the kubelet's report that"
                        + " the holder's container ended")
                .register(registry)
                .increment();
    }
}
