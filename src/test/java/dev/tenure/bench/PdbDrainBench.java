package dev.tenure.bench;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;

/**
 * Row 11 (issue 28): a drain paced by PodDisruptionBudgets on the emulator's living cluster, where an evicted pod is
 * replaced by its ReplicaSet, the replacement is scheduled on another (uncordoned) node and becomes Ready after a
 * delay, so each budget allows its next disruption. The same pods are drained with a budget of maxUnavailable 1 per
 * Deployment and without budgets, on fresh identical clusters, by Tenure's machine with its defaults (and its
 * budget wake-up, issue 51), and with the budgets by kubectl drain (its 5 s retry of a refused eviction).
 */
final class PdbDrainBench {
    static final String NODE = DrainBench.NODE;
    static final Duration LIMIT = Duration.ofMinutes(6);

    /** {@code budgetWakeUps}: budget changes that woke the drain early (Tenure; 0 for kubectl). */
    record Result(double drainedSeconds, long evictionRequests, int replacementsReady, long budgetWakeUps) {}

    private final int deployments;
    private final int podsPerDeployment;
    private final Duration termination;
    private final Duration readiness;

    PdbDrainBench(int deployments, int podsPerDeployment, Duration termination, Duration readiness) {
        this.deployments = deployments;
        this.podsPerDeployment = podsPerDeployment;
        this.termination = termination;
        this.readiness = readiness;
    }

    int pods() {
        return deployments * podsPerDeployment;
    }

    /**
     * What the pods' own timings allow (issue 51): one eviction per Deployment per replacement-ready time, the
     * Deployments side by side; the last pod then stops. ({@code podsPerDeployment} − 1) × readiness + termination;
     * the controllers' reaction times (ReplicaSet, scheduler, disruption controller) are left out, so no drain reaches
     * it.
     */
    double floorSeconds() {
        return (podsPerDeployment - 1) * readiness.toMillis() / 1000.0 + termination.toMillis() / 1000.0;
    }

    Result run(boolean pdb) throws Exception {
        return run(pdb, false);
    }

    /** The drain of NODE on a fresh cluster, by Tenure's machine or ({@code kubectl}) by kubectl drain. */
    Result run(boolean pdb, boolean kubectl) throws Exception {
        try (EmulatedCluster cluster = EmulatedCluster.start(
                EmulatedCluster.Options.forTests().living(readiness).terminationDelay(p -> termination))) {
            for (String node : List.of(NODE, "w2", "w3")) {
                cluster.seed().node(node).role("worker").create();
            }
            DrainBench.seedDeployments(cluster, deployments, podsPerDeployment, pdb);
            try (MachineRig rig =
                    kubectl ? null : new MachineRig(cluster.client(), MachineRig.settings(10, Duration.ofSeconds(2)))) {
                long t0 = System.nanoTime();
                if (kubectl) {
                    DrainBench.kubectl(cluster);
                } else {
                    MaintenanceState end = rig.driveToEnd(MachineRig.request(NODE), LIMIT);
                    if (end.phase() != Phase.Succeeded) {
                        throw new IllegalStateException("drain ended " + end.phase() + ": " + end.lastError());
                    }
                }
                double seconds = (System.nanoTime() - t0) / 1e9;
                List<Pod> all =
                        cluster.client().pods().inNamespace("shop").list().getItems();
                long left = all.stream()
                        .filter(p -> NODE.equals(p.getSpec().getNodeName()))
                        .count();
                if (left > 0) {
                    throw new IllegalStateException(left + " pods left on " + NODE);
                }
                int ready = (int) all.stream().filter(PdbDrainBench::ready).count();
                return new Result(
                        seconds,
                        cluster.requests().count(r -> r.is("create", "pods", "eviction")),
                        ready,
                        rig == null ? 0 : rig.budgetWakeUps.get());
            }
        }
    }

    static boolean ready(Pod p) {
        return p.getMetadata().getDeletionTimestamp() == null
                && p.getStatus() != null
                && p.getStatus().getConditions() != null
                && p.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
