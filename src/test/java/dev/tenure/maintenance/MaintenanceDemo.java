package dev.tenure.maintenance;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code make run} demo step: once the operator has applied the NodeMaintenance CRD (i.e. it is up),
 * put worker w1 into maintenance and print its progress until it is Succeeded.
 */
public final class MaintenanceDemo {

    static final String NAME = "demo-w1";
    static final String CRD = "nodemaintenances.tenure.dev";

    private MaintenanceDemo() {}

    /**
     * One progress line: the phase, the drain's percentage and pods to go once a drain has started, and the last
     * error. A status without a phase or a drain yet (written by the door before the machine ran, or a refusal)
     * printed "null null%".
     */
    static String progressLine(NodeMaintenanceStatus s) {
        if (s == null) {
            return "Pending";
        }
        StringBuilder line = new StringBuilder(
                s.getPhase() == null ? "Pending" : s.getPhase().name());
        if (s.getDrainProgress() != null) {
            int pods = s.getPendingPods() == null ? 0 : s.getPendingPods().size();
            line.append(' ')
                    .append(s.getDrainProgress())
                    .append("% (")
                    .append(pods)
                    .append(" pod(s) to go)");
        }
        if (s.getLastError() != null && !s.getLastError().isBlank()) {
            line.append(" - ").append(s.getLastError());
        }
        return line.toString();
    }

    public static void applyAfterStartup(EmulatedCluster cluster) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "maintenance-demo");
            t.setDaemon(true);
            return t;
        });
        AtomicReference<String> last = new AtomicReference<>("");
        timer.scheduleWithFixedDelay(
                () -> {
                    try {
                        var client = cluster.client();
                        NodeMaintenance nm = client.resources(NodeMaintenance.class)
                                .withName(NAME)
                                .get();
                        if (nm == null) {
                            if (client.resources(CustomResourceDefinition.class)
                                            .withName(CRD)
                                            .get()
                                    == null) {
                                // java -jar runs in prod mode, where QOSDK does not apply CRDs: apply the shipped
                                // one (deploy/, with its printer columns and validation rules), as a user would.
                                try (var in = Files.newInputStream(Path.of("deploy", "tenure-operator.yaml"))) {
                                    client.load(in).items().stream()
                                            .filter(o -> o instanceof CustomResourceDefinition)
                                            .forEach(crd -> client.resource(crd).create());
                                }
                            }
                            var lease = client.leases()
                                    .inNamespace("tenure-system")
                                    .withName("tenure-operator")
                                    .get();
                            if (lease == null || lease.getSpec().getHolderIdentity() == null) {
                                return; // operator not leading yet
                            }
                            NodeMaintenanceSpec spec = new NodeMaintenanceSpec("w1", "demo: kernel upgrade");
                            client.resource(new NodeMaintenance(NAME, spec)).create();
                            System.out.println("demo: applied NodeMaintenance " + NAME + " (node w1); watch it with "
                                    + "kubectl get tnm -w");
                            return;
                        }
                        NodeMaintenanceStatus s = nm.getStatus();
                        String line = progressLine(s);
                        if (!line.equals(last.getAndSet(line))) {
                            System.out.println("demo: NodeMaintenance " + NAME + ": " + line);
                        }
                        if (s != null && s.getPhase() == Phase.Succeeded) {
                            System.out.println("demo: node w1 is drained and stays cordoned until `kubectl delete tnm "
                                    + NAME + "`");
                            timer.shutdown();
                        }
                    } catch (java.io.IOException | RuntimeException e) {
                        System.out.println("demo: " + e.getMessage());
                    }
                },
                2,
                1,
                TimeUnit.SECONDS);
    }
}
