package dev.tenure.bench;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.rollout.NodeMaintenanceRolloutReconciler;
import dev.tenure.rollout.api.DoneWhen;
import dev.tenure.rollout.api.NodeMaintenanceRollout;
import dev.tenure.rollout.api.RolloutPhase;
import dev.tenure.rollout.api.RolloutSpec;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Row 15 (issue 52): a pool rolled by one {@code NodeMaintenanceRollout} against the serial model of a script over
 * NodeMaintenances. The packaged operator with its defaults on {@code nodes} emulated nodes, each running
 * {@code podsPerNode} pods of its own Deployment (stopping 1 s after eviction); done when rebooted. The bench is the
 * maintenance agent in both: a node whose NodeMaintenance has drained it is rebooted (the emulator changes its boot ID
 * at once and reports it Ready {@link #REBOOT} later).
 *
 * <ul>
 *   <li><b>Rollout</b>: one rollout over the pool, {@code maxUnavailable} as given: time from its creation to
 *       {@code Complete}, and the operator's API requests per node over that time.
 *   <li><b>Serial script</b>: for one node after another, create a NodeMaintenance, wait for Succeeded, reboot the
 *       node, wait for Ready, delete the NodeMaintenance and wait until it is gone (the node uncordoned): what a
 *       script over NodeMaintenances does. Run on {@code serialSample} other nodes of the same cluster and scaled to
 *       the pool (per-node time × nodes): a script's nodes do not overlap, so its time is linear in the nodes.
 * </ul>
 */
final class RolloutBench {

    static final Duration REBOOT = Duration.ofSeconds(1);
    static final Duration POD_STOP = Duration.ofSeconds(1);
    static final String POOL = "tenure.bench/pool";

    record Result(
            int nodes,
            int podsPerNode,
            String maxUnavailable,
            double rolloutSeconds,
            int done,
            int failed,
            long operatorRequests,
            long evictions,
            int serialNodes,
            double serialSecondsPerNode,
            long serialRequests) {

        double serialSecondsScaled() {
            return serialSecondsPerNode * nodes;
        }

        double requestsPerNode() {
            return operatorRequests / (double) nodes;
        }

        double serialRequestsPerNode() {
            return serialRequests / (double) serialNodes;
        }
    }

    private RolloutBench() {}

    static Result run(int nodes, int podsPerNode, String maxUnavailable, int serialSample) throws Exception {
        try (EmulatedCluster cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests()
                .nodeLeaseRenewInterval(Duration.ofSeconds(10))
                .terminationDelay(p -> POD_STOP))) {
            KubernetesClient client = cluster.client();
            for (int n = 0; n < nodes + serialSample; n++) {
                String pool = n < nodes ? "rolled" : "scripted";
                cluster.seed().node("p" + n).role("worker").label(POOL, pool).create();
            }
            for (int n = 0; n < nodes + serialSample; n++) {
                cluster.seed()
                        .deployment("app" + n)
                        .namespace("pool")
                        .replicas(podsPerNode)
                        .onNodes("p" + n)
                        .create();
            }
            FootprintBench.installCrds(cluster);
            try (FootprintBench.Running operator = FootprintBench.start(cluster)) {
                // the serial script first, on its own nodes, so the rollout's figures do not include its requests
                long serialBefore = operatorRequests(cluster);
                long s0 = System.nanoTime();
                for (int n = nodes; n < nodes + serialSample; n++) {
                    scriptOneNode(cluster, "p" + n);
                }
                double serialPerNode = (System.nanoTime() - s0) / 1e9 / serialSample;
                long serialRequests = operatorRequests(cluster) - serialBefore;

                long before = operatorRequests(cluster);
                long evictionsBefore = cluster.requests().count(r -> r.is("create", "pods", "eviction"));
                long t0 = System.nanoTime();
                client.resource(new NodeMaintenanceRollout("pool", spec(maxUnavailable)))
                        .create();
                Set<String> rebooted = new HashSet<>();
                long deadline = t0 + Duration.ofMinutes(30).toNanos();
                NodeMaintenanceRollout r;
                while (true) {
                    rebootDrained(cluster, rebooted);
                    r = client.resources(NodeMaintenanceRollout.class)
                            .withName("pool")
                            .get();
                    if (r.getStatus() != null && r.getStatus().getPhase() == RolloutPhase.Complete) {
                        break;
                    }
                    if (r.getStatus() != null && r.getStatus().getPhase() == RolloutPhase.Paused) {
                        throw new IllegalStateException(
                                "the rollout paused: " + r.getStatus().getReason() + " "
                                        + r.getStatus().getMessage());
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the rollout not Complete within 30 min: " + r.getStatus());
                    }
                    Thread.sleep(100);
                }
                double seconds = (System.nanoTime() - t0) / 1e9;
                long requests = operatorRequests(cluster) - before;
                long evictions = cluster.requests().count(x -> x.is("create", "pods", "eviction")) - evictionsBefore;
                int done = r.getStatus().getDone() == null ? 0 : r.getStatus().getDone();
                int failed =
                        r.getStatus().getFailed() == null ? 0 : r.getStatus().getFailed();
                if (done != nodes || rebooted.size() != nodes) {
                    throw new IllegalStateException("the rollout Complete with " + done + " of " + nodes
                            + " nodes done, " + failed + " failed, " + rebooted.size() + " rebooted");
                }
                if (evictions < (long) nodes * podsPerNode) {
                    throw new IllegalStateException("only " + evictions + " evictions for " + nodes * podsPerNode
                            + " pods: the pool's pods were not drained");
                }
                client.resources(NodeMaintenanceRollout.class).withName("pool").delete();
                return new Result(
                        nodes,
                        podsPerNode,
                        maxUnavailable,
                        seconds,
                        done,
                        failed,
                        requests,
                        evictions,
                        serialSample,
                        serialPerNode,
                        serialRequests);
            }
        }
    }

    static RolloutSpec spec(String maxUnavailable) {
        RolloutSpec spec = new RolloutSpec();
        spec.setNodeSelector(
                new LabelSelectorBuilder().addToMatchLabels(POOL, "rolled").build());
        spec.setMaxUnavailable(
                maxUnavailable.endsWith("%")
                        ? new IntOrString(maxUnavailable)
                        : new IntOrString(Integer.parseInt(maxUnavailable)));
        DoneWhen done = new DoneWhen();
        done.setRebooted(true);
        spec.setDoneWhen(done);
        return spec;
    }

    /** The agent: reboots each node whose child has drained it (Succeeded), once. */
    private static void rebootDrained(EmulatedCluster cluster, Set<String> rebooted) {
        for (NodeMaintenance nm : cluster.client()
                .resources(NodeMaintenance.class)
                .withLabel(NodeMaintenanceRolloutReconciler.ROLLOUT_LABEL, "pool")
                .list()
                .getItems()) {
            if (nm.getStatus() != null
                    && nm.getStatus().getPhase() == Phase.Succeeded
                    && rebooted.add(nm.getSpec().getNodeName())) {
                cluster.reboot(nm.getSpec().getNodeName(), REBOOT);
            }
        }
    }

    /** A script's turn on one node: maintain, reboot, wait Ready, end the maintenance, wait until it is undone. */
    private static void scriptOneNode(EmulatedCluster cluster, String node) throws InterruptedException {
        KubernetesClient client = cluster.client();
        String name = "script-" + node;
        client.resource(new NodeMaintenance(name, new NodeMaintenanceSpec(node, "bench script")))
                .create();
        await("NodeMaintenance " + name + " Succeeded", () -> {
            NodeMaintenance nm =
                    client.resources(NodeMaintenance.class).withName(name).get();
            return nm.getStatus() != null && nm.getStatus().getPhase() == Phase.Succeeded;
        });
        cluster.reboot(node, REBOOT);
        await(
                node + " Ready after its reboot",
                () -> ready(client.nodes().withName(node).get()));
        client.resources(NodeMaintenance.class).withName(name).delete();
        await(
                name + " gone and " + node + " uncordoned",
                () -> client.resources(NodeMaintenance.class).withName(name).get() == null
                        && !Boolean.TRUE.equals(
                                client.nodes().withName(node).get().getSpec().getUnschedulable()));
    }

    private static boolean ready(Node node) {
        return node.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not within 2 min: " + what);
            }
            Thread.sleep(50);
        }
    }

    /**
     * Requests of the operator process: everything the API server logged but the bench's own (the harness client)
     * and the emulated kubelets' node-lease renewals.
     */
    private static long operatorRequests(EmulatedCluster cluster) {
        Predicate<ApiRequest> operator = r ->
                !EmulatedCluster.HARNESS_USER_AGENT.equals(r.userAgent()) && !"kube-node-lease".equals(r.namespace());
        return cluster.requests().count(operator);
    }
}
