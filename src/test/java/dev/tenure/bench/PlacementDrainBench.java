package dev.tenure.bench;

import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.PlacementPolicy;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.PlacementView;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Row 14 (issue 49): a drain whose pods do not fit on the living emulated cluster. Node {@value #NODE} holds {@value
 * #FREE} pods that fit elsewhere and {@value #STUCK} pods of a Deployment whose {@code nodeSelector} only {@value
 * #NODE} satisfies. On identical clusters: Tenure with {@code spec.drain.placement: Wait} makes one reconcile (one
 * {@code advance} of the machine) and must answer Pending, nothing cordoned or evicted, with {@code status.placement}
 * naming why; Tenure's default ({@code Warn}) and {@code kubectl drain} drain the node, and the living cluster's
 * scheduler then leaves the stuck pods' replacements Pending ({@code PodScheduled=False}, {@code Unschedulable}),
 * counted on the cluster, not taken from the forecast.
 */
final class PlacementDrainBench {
    static final String NODE = "w1";
    static final String NS = "shop";
    static final String POOL = "tenure.bench/pool";
    static final int FREE = 10;
    static final int STUCK = 10;
    static final Duration LIMIT = Duration.ofMinutes(3);
    static final Duration SETTLE = Duration.ofMinutes(1);

    /** Tenure with Wait: one reconcile's answer and what it cost (the first in this JVM, and one made again). */
    record WaitResult(
            double firstReconcileMillis,
            double reconcileMillis,
            Phase phase,
            int stranded,
            String waitingFor,
            boolean cordoned,
            long evictions,
            long requests) {}

    /** A drain that went through: how long it took, and the pods the living cluster left Pending after it. */
    record DrainResult(double seconds, long pending, long running) {}

    static EmulatedCluster cluster() {
        EmulatedCluster cluster = EmulatedCluster.start(
                EmulatedCluster.Options.forTests().living(Duration.ZERO).terminationDelay(p -> Duration.ofMillis(200)));
        cluster.seed().node(NODE).role("worker").label(POOL, "only-w1").create();
        cluster.seed().node("w2").role("worker").create();
        cluster.seed().node("w3").role("worker").create();
        cluster.seed()
                .deployment("free")
                .namespace(NS)
                .replicas(FREE)
                .onNodes(NODE)
                .create();
        cluster.seed()
                .deployment("stuck")
                .namespace(NS)
                .replicas(STUCK)
                .onNodes(NODE)
                .nodeSelector(POOL, "only-w1")
                .create();
        return cluster;
    }

    static MaintenanceRequest request(PlacementPolicy policy) {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec(NODE, "bench row 14");
        DrainSpec drain = new DrainSpec();
        drain.setPlacement(policy);
        spec.setDrain(drain);
        return MaintenanceRequest.from(spec);
    }

    static PlacementView view(EmulatedCluster cluster) {
        return new PlacementView(() -> cluster.client().nodes().list().getItems(), List::of);
    }

    /**
     * Tenure, Wait: one reconcile from a fresh maintenance, timed twice: the first call in this JVM (class loading and
     * JIT included) and the same reconcile made again (Pending touches nothing, so it starts from the same cluster).
     */
    static WaitResult tenureWait() throws Exception {
        try (EmulatedCluster cluster = cluster();
                MachineRig rig = new MachineRig(cluster.client(), MachineRig.settings(10, Duration.ofSeconds(2)))) {
            long first0 = System.nanoTime();
            waitOnce(rig, cluster);
            double firstMillis = (System.nanoTime() - first0) / 1e6;
            long before = cluster.requests().count(r -> true);
            long t0 = System.nanoTime();
            MaintenanceMachine.Step step = waitOnce(rig, cluster);
            double millis = (System.nanoTime() - t0) / 1e6;
            long requests = cluster.requests().count(r -> true) - before;
            MaintenanceState s = step.state();
            Node node = cluster.client().nodes().withName(NODE).get();
            return new WaitResult(
                    firstMillis,
                    millis,
                    s.phase(),
                    s.placement() == null ? 0 : s.placement().stranded(),
                    s.placement() == null
                            ? null
                            : s.placement().getPods().get(0).getMessage(),
                    Boolean.TRUE.equals(node.getSpec().getUnschedulable()),
                    cluster.requests().count(r -> r.is("create", "pods", "eviction")),
                    requests);
        }
    }

    private static MaintenanceMachine.Step waitOnce(MachineRig rig, EmulatedCluster cluster) {
        return rig.machine.advance(
                request(PlacementPolicy.Wait),
                MaintenanceState.initial(),
                false,
                Optional.empty(),
                Optional.of(view(cluster)),
                Optional::empty,
                MaintenanceEvents.NONE);
    }

    /** Tenure's default (Warn): drains to the end, then the living cluster settles. */
    static DrainResult tenureWarn() throws Exception {
        try (EmulatedCluster cluster = cluster();
                MachineRig rig = new MachineRig(cluster.client(), MachineRig.settings(10, Duration.ofSeconds(2)))) {
            long t0 = System.nanoTime();
            MaintenanceRequest request = request(PlacementPolicy.Warn);
            MaintenanceState state = MaintenanceState.initial();
            long deadline = t0 + LIMIT.toNanos();
            while (true) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Tenure drain not settled within " + LIMIT + ": " + state.phase());
                }
                MaintenanceMachine.Step step = rig.machine.advance(
                        request,
                        state,
                        false,
                        Optional.empty(),
                        Optional.of(view(cluster)),
                        Optional::empty,
                        MaintenanceEvents.NONE);
                state = step.state();
                if (MachineRig.isSettled(state.phase())) {
                    break;
                }
                Thread.sleep(step.requeueAfter().orElse(Duration.ofSeconds(1)).toMillis());
            }
            if (state.phase() != Phase.Succeeded) {
                throw new IllegalStateException("Tenure drain ended " + state.phase() + ": " + state.lastError());
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            return settled(cluster, seconds);
        }
    }

    /**
     * kubectl drain, as DrainBench runs it but without {@code --force} (every pod here has a controller), then the
     * living cluster settles.
     */
    static DrainResult kubectl() throws Exception {
        try (EmulatedCluster cluster = cluster()) {
            long t0 = System.nanoTime();
            DrainBench.kubectlDrain(cluster, LIMIT, false).requireExitZero();
            double seconds = (System.nanoTime() - t0) / 1e9;
            return settled(cluster, seconds);
        }
    }

    /**
     * Waits until every replacement is either Running on a node or Pending as Unschedulable (the living cluster has
     * placed what it can), then counts both on the cluster.
     */
    private static DrainResult settled(EmulatedCluster cluster, double seconds) throws InterruptedException {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (true) {
            List<Pod> pods = cluster.client().pods().inNamespace(NS).list().getItems().stream()
                    .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
                    .toList();
            long onNode = pods.stream()
                    .filter(pod -> NODE.equals(pod.getSpec().getNodeName()))
                    .count();
            long pending =
                    pods.stream().filter(PlacementDrainBench::unschedulable).count();
            long running = pods.stream()
                    .filter(pod -> pod.getSpec().getNodeName() != null
                            && "Running".equals(pod.getStatus().getPhase()))
                    .count();
            if (onNode == 0 && pending + running == FREE + STUCK) {
                return new DrainResult(seconds, pending, running);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("living cluster not settled within " + SETTLE + ": " + onNode
                        + " pod(s) on " + NODE + ", " + pending + " Pending, " + running + " Running");
            }
            Thread.sleep(200);
        }
    }

    static boolean unschedulable(Pod pod) {
        return pod.getSpec().getNodeName() == null
                && pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "PodScheduled".equals(c.getType())
                                && "False".equals(c.getStatus())
                                && "Unschedulable".equals(c.getReason()));
    }
}
