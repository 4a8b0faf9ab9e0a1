package dev.tenure.operator;

import dev.tenure.election.ElectorHealth;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness: "leading (reconcilers started) or standing by" — standby replicas are ready so
 * rollouts proceed; a replica stepping down (work still stopping) is not, and says so in its role. Liveness: the elector's probe — a leader whose election loop has not renewed
 * for leaseDuration + grace is wedged and gets restarted, and so is a leader that has not started its reconcilers within
 * {@code tenure.leader-election.start-limit} (it holds the lease and does nothing).
 */
@ApplicationScoped
public class LeadershipHealthChecks {
    static final String READINESS = "tenure-leadership";
    static final String LIVENESS = "tenure-leader-election";

    private final OperatorLeadership leadership;
    private final Duration startLimit;

    @jakarta.inject.Inject
    public LeadershipHealthChecks(OperatorLeadership leadership, TenureConfig config) {
        this(leadership, config.leaderElection().startLimit());
    }

    LeadershipHealthChecks(OperatorLeadership leadership, Duration startLimit) {
        this.leadership = leadership;
        this.startLimit = startLimit;
    }

    @Produces
    @Readiness
    @ApplicationScoped
    HealthCheck readiness() {
        return () -> {
            HealthCheckResponseBuilder b = HealthCheckResponse.named(READINESS)
                    .status(leadership.ready())
                    .withData(
                            "role",
                            switch (leadership.role()) {
                                case LEADING -> "leader";
                                case STANDING_BY -> "standby";
                                case STEPPING_DOWN -> "stepping-down";
                            })
                    .withData("reconcilersStarted", leadership.reconcilersStarted());
            leadership.elector().ifPresent(e -> {
                b.withData("identity", e.identity());
                b.withData("lease", e.lease().toString());
                e.leader().ifPresent(l -> b.withData("leader", l));
            });
            return b.build();
        };
    }

    @Produces
    @Liveness
    @ApplicationScoped
    HealthCheck liveness() {
        return () -> {
            HealthCheckResponseBuilder b = HealthCheckResponse.named(LIVENESS);
            if (leadership.health().isEmpty()) {
                return b.up().withData("detail", "leader election disabled").build();
            }
            ElectorHealth h = leadership.health().get();
            Optional<Duration> startPending = leadership.leadingWithoutReconcilers();
            boolean startHung = startPending.isPresent() && startPending.get().compareTo(startLimit) > 0;
            b.status(h.healthy() && !startHung)
                    .withData("leading", h.leading())
                    .withData("role", h.role().name())
                    .withData(
                            "detail",
                            startHung
                                    ? "leading for " + startPending.get().toSeconds()
                                            + "s without the reconcilers started (limit "
                                            + startLimit.toSeconds() + "s): a hung start holds the lease for nothing"
                                    : h.detail());
            if (h.lastRenew() != null) {
                b.withData("lastRenew", h.lastRenew().toString());
            }
            return b.build();
        };
    }
}
