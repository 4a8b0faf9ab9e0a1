package dev.tenure.operator;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * The tests' application with the shipped leader-election timings (15 s lease, 10 s renewDeadline, 2 s retryPeriod:
 * {@link LeaderElectionConfig}'s defaults), not the tests' generous 30/20/2, so that a test of the operator's own
 * election judges the renewals a packaged operator makes (each election request bounded at 2.5 s, half the margin).
 */
public class ShippedElectionTimingsProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "tenure.leader-election.lease-duration", "15s",
                "tenure.leader-election.renew-deadline", "10s",
                "tenure.leader-election.retry-period", "2s");
    }
}
