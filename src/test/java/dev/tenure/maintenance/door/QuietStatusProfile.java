package dev.tenure.maintenance.door;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * The tests' application with the shortest node lease the settings allow (3 s, renewed every second; 4 s renewed every
 * 2 s while the maintenance is idle), so that
 * "several renew periods" of an idle maintenance pass in seconds. Not the default: every other maintenance test's
 * leases would be renewed every second too, 50 of them at once in NodeMaintenanceReconcilerIT, on a loaded machine.
 */
public class QuietStatusProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        // the idle lease too (issue 52 item 7): 4 s, renewed every 2 s, so an idle maintenance's renewals still pass
        return Map.of("tenure.maintenance.lease.duration", "3s", "tenure.maintenance.lease.idle-duration", "4s");
    }
}
