package dev.tenure.operator;

import dev.tenure.election.ElectorHealth;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness: "leading (reconcilers started) or standing by" — standby replicas are ready so
 * rollouts proceed; a replica stepping down (work still stopping) is not, and says so in its role. Liveness: the elector's probe — a leader whose election loop has not renewed
 * for leaseDuration + grace is wedged and gets restarted.
 */
@ApplicationScoped
public class LeadershipHealthChecks {
    static final String READINESS = "tenure-leadership";
    static final String LIVENESS = "tenure-leader-election";

    private final OperatorLeadership leadership;

    public LeadershipHealthChecks(OperatorLeadership leadership) {
        this.leadership = leadership;
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
            b.status(h.healthy())
                    .withData("leading", h.leading())
                    .withData("role", h.role().name())
                    .withData("detail", h.detail());
            if (h.lastRenew() != null) {
                b.withData("lastRenew", h.lastRenew().toString());
            }
            return b.build();
        };
    }
}
