package dev.tenure.coordination;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness detail for coordinated leader election. Always UP: a cluster without the LeaseCandidate API is a
 * supported setup (the rest of the operator works), so it is reported, not failed.
 */
@Readiness
@ApplicationScoped
public class CoordinationHealthCheck implements HealthCheck {

    @Inject
    CoordinationController controller;

    @Override
    public HealthCheckResponse call() {
        LeaseCandidateApi api = controller.api();
        return HealthCheckResponse.named("tenure-coordination")
                .up()
                .withData("leaseCandidateApi", api.served() ? api.apiVersion() : "not served")
                .withData("running", controller.isRunning())
                .withData("detail", controller.status())
                .build();
    }
}
