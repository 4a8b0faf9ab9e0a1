package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Issue 38 item 7: a maintenance stuck before its drain (refused, crashed before its first status, waiting on a
 * lease) has no pending-pods series; tenure_maintenance_blocked_before_drain counts it by phase.
 */
class BlockedBeforeDrainTest {

    private static NodeMaintenance nm(String name, Phase phase, String lastError, boolean status) {
        NodeMaintenance nm = new NodeMaintenance(name, new NodeMaintenanceSpec("w1", "test"));
        if (status) {
            NodeMaintenanceStatus s = new NodeMaintenanceStatus();
            s.setPhase(phase);
            s.setLastError(lastError);
            nm.setStatus(s);
        }
        return nm;
    }

    @Test
    void countsMaintenancesBeforeTheirDrainWithAnErrorOrNoPhase() {
        List<NodeMaintenance> all = new ArrayList<>(List.of(
                nm("no-status", null, null, false),
                nm("blank-phase", null, null, true),
                nm("refused", Phase.Pending, "spec.window: \"1.5ns\" is not a whole number of nanoseconds", true),
                nm("queued-quietly", Phase.Pending, null, true),
                nm("lease-elsewhere", Phase.Waiting, "lease x is held by y", true),
                nm("draining", Phase.Running, "eviction of a blocked", true),
                nm("failed", Phase.Failed, "drain timed out", true)));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AtomicReference<List<NodeMaintenance>> cache = new AtomicReference<>(null);
        new MaintenanceMetrics(registry).watchBlockedBeforeDrain(cache::get);

        assertThat(gauge(registry, "None")).as("cache not synced: unknown").isNaN();
        cache.set(all);
        assertThat(gauge(registry, "None")).isEqualTo(2.0);
        assertThat(gauge(registry, "Pending")).isEqualTo(1.0);
        assertThat(gauge(registry, "Waiting")).isEqualTo(1.0);
        assertThat(gauge(registry, "Scheduled")).isZero();
        assertThat(registry.find("tenure.maintenance.blocked.before.drain").gauges())
                .hasSize(4);
    }

    private static double gauge(SimpleMeterRegistry registry, String phase) {
        return registry.get("tenure.maintenance.blocked.before.drain")
                .tag("phase", phase)
                .gauge()
                .value();
    }
}
