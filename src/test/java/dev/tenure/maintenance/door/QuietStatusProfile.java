package dev.tenure.maintenance.door;

import dev.tenure.maintenance.RelaxedLeadershipProfile;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.HashMap;
import java.util.Map;

/**
 * {@link RelaxedLeadershipProfile} with the shortest node lease the settings allow (3 s, renewed every
 * second), so that "several renew periods" of an idle maintenance pass in seconds.
 */
public class QuietStatusProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> config = new HashMap<>(new RelaxedLeadershipProfile().getConfigOverrides());
        config.put("tenure.maintenance.lease.duration", "3s");
        return config;
    }
}
