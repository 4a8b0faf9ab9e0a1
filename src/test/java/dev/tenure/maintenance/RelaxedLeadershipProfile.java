package dev.tenure.maintenance;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * The operator's own leader election with production timings: the maintenance tests load the shared
 * CI machine (50 concurrent drains), and the 3 s test lease would make the operator step down mid-test.
 * Leadership is not what these tests are about.
 */
public class RelaxedLeadershipProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "tenure.leader-election.lease-duration",
                "30s",
                "tenure.leader-election.renew-deadline",
                "20s",
                "tenure.leader-election.retry-period",
                "2s");
    }
}
