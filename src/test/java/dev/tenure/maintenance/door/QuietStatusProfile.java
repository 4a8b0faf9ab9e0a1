package dev.tenure.maintenance.door;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * The tests' application with the shortest node lease the settings allow (3 s, renewed every second), so that
 * "several renew periods" of an idle maintenance pass in seconds. Not the default: every other maintenance test's
 * leases would be renewed every second too, 50 of them at once in NodeMaintenanceReconcilerIT, on a loaded machine.
 */
public class QuietStatusProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("tenure.maintenance.lease.duration", "3s");
    }
}
