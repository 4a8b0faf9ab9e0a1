package dev.tenure.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 38: the make run demo printed "null null%" for a status without a phase or a drain yet. */
class MaintenanceDemoTest {

    @Test
    void aStatusWithoutPhaseOrDrainPrintsNoNull() {
        NodeMaintenanceStatus s = new NodeMaintenanceStatus();
        assertThat(MaintenanceDemo.progressLine(s)).isEqualTo("Pending");
        s.setLastError("spec.window: \"1.5ns\" is not a whole number of nanoseconds");
        assertThat(MaintenanceDemo.progressLine(s))
                .isEqualTo("Pending - spec.window: \"1.5ns\" is not a whole number of nanoseconds");
        s.setPhase(Phase.Waiting);
        s.setLastError(null);
        assertThat(MaintenanceDemo.progressLine(s)).isEqualTo("Waiting");
        assertThat(MaintenanceDemo.progressLine(null)).isEqualTo("Pending");
    }

    @Test
    void aDrainPrintsItsProgressAndPodsToGo() {
        NodeMaintenanceStatus s = new NodeMaintenanceStatus();
        s.setPhase(Phase.Running);
        s.setDrainProgress(40);
        s.setPendingPods(List.of("default/a", "default/b"));
        assertThat(MaintenanceDemo.progressLine(s)).isEqualTo("Running 40% (2 pod(s) to go)");
    }
}
