package dev.tenure.bench;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Row 8 (issue 25): what an idle maintenance costs the API server. N nodes, one NodeMaintenance each, driven to
 * {@code Succeeded} by the packaged operator with its defaults; then, idle, the writes it makes in a measured period
 * are counted from the emulated API server's request log: to NodeMaintenances (status included; the goal is 0), to
 * the node Leases (the renewals, which are the point of a lease), and to the operator's own Lease.
 */
final class IdleWritesBench {

    static final Set<String> WRITES = Set.of("create", "update", "patch", "delete", "deletecollection");

    record Result(
            int maintenances,
            double secondsToSucceeded,
            double idleSeconds,
            long maintenanceWrites,
            long nodeLeaseWrites,
            long operatorLeaseWrites) {

        /** Writes per NodeMaintenance per hour, from {@code writes} over the idle period. */
        double perMaintenancePerHour(long writes) {
            return writes / (double) maintenances / idleSeconds * 3600;
        }
    }

    static Result run(int maintenances, Duration settle, Duration idle) throws Exception {
        return run(maintenances, settle, idle, List.of());
    }

    /** {@link #run(int, Duration, Duration)} with the operator started with {@code operatorFlags} (JVM flags). */
    static Result run(int maintenances, Duration settle, Duration idle, List<String> operatorFlags) throws Exception {
        try (EmulatedCluster cluster = EmulatedCluster.start(
                EmulatedCluster.Options.forTests().nodeLeaseRenewInterval(Duration.ofSeconds(10)))) {
            for (int i = 0; i < maintenances; i++) {
                cluster.seed().node("n" + i).role("worker").create();
            }
            FootprintBench.installCrds(cluster);
            try (FootprintBench.Running operator =
                    FootprintBench.start(cluster, FootprintBench.Launcher.thisJdk(), operatorFlags)) {
                long t0 = System.nanoTime();
                for (int i = 0; i < maintenances; i++) {
                    cluster.client()
                            .resource(new NodeMaintenance("nm-" + i, new NodeMaintenanceSpec("n" + i, "bench")))
                            .create();
                }
                long deadline = t0 + Duration.ofMinutes(5).toNanos();
                while (succeeded(cluster) < maintenances) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("only " + succeeded(cluster) + " of " + maintenances
                                + " Succeeded within 5 min (operator flags " + operatorFlags + "); the operator's log"
                                + " ends: " + FootprintBench.tail(operator.log()));
                    }
                    Thread.sleep(500);
                }
                double toSucceeded = (System.nanoTime() - t0) / 1e9;
                Thread.sleep(settle.toMillis()); // the last writes of reaching Succeeded land before the window
                Predicate<ApiRequest> write = r -> WRITES.contains(r.verb());
                Predicate<ApiRequest> toMaintenances = write.and(ApiRequest.resource("nodemaintenances"));
                Predicate<ApiRequest> toNodeLeases = write.and(ApiRequest.resource("leases"))
                        .and(r -> r.name().startsWith("node-"))
                        .and(r -> !r.namespace().equals("kube-node-lease")); // kubelets' own, not the operator's
                Predicate<ApiRequest> toOperatorLease =
                        write.and(ApiRequest.resource("leases")).and(ApiRequest.named("tenure-operator"));
                long nm0 = cluster.requests().count(toMaintenances);
                long node0 = cluster.requests().count(toNodeLeases);
                long op0 = cluster.requests().count(toOperatorLease);
                long w0 = System.nanoTime();
                Thread.sleep(idle.toMillis());
                double seconds = (System.nanoTime() - w0) / 1e9;
                Result r = new Result(
                        maintenances,
                        toSucceeded,
                        seconds,
                        cluster.requests().count(toMaintenances) - nm0,
                        cluster.requests().count(toNodeLeases) - node0,
                        cluster.requests().count(toOperatorLease) - op0);
                if (succeeded(cluster) != maintenances) {
                    throw new IllegalStateException("a maintenance left Succeeded while idle");
                }
                return r;
            }
        }
    }

    private static long succeeded(EmulatedCluster cluster) {
        List<NodeMaintenance> all =
                cluster.client().resources(NodeMaintenance.class).list().getItems();
        return all.stream()
                .filter(nm -> nm.getStatus() != null && nm.getStatus().getPhase() == Phase.Succeeded)
                .count();
    }
}
