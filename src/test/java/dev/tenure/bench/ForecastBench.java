package dev.tenure.bench;

import dev.tenure.kube.TrimmedNodeStore;
import dev.tenure.placement.PlacementCluster;
import dev.tenure.placement.PlacementForecast;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Row 13: what one placement forecast costs at scale, in this JVM: {@link PlacementForecast} for one node's drain on
 * a cluster of {@code nodes} nodes with {@code podsPerNode} pods each (5,000 x 30 = 150,000 by default). Measured:
 * the time to build the forecast's view ({@link PlacementCluster#of}) from the objects a cache holds, the time of the
 * forecast itself (every pod of the node through the nine filters over every node), wall-clock and CPU time of the
 * thread (on a shared machine the CPU time is the steadier figure), and the heap after a full GC of the objects the
 * view is built from and of the view on top of them.
 *
 * <p>The cluster: nodes in 3 zones with the labels and allocatable a kubelet reports (no image list: nothing in the
 * forecast reads it); pods of Deployments of 10 replicas (labels, a ReplicaSet owner, one container with cpu and memory
 * requests, the default not-ready/unreachable tolerations), one Deployment in 10 with a zone spread constraint
 * (DoNotSchedule) and one in 10 with a required hostname anti-affinity. Room is left on every node, so each
 * replacement fits: the forecast's worst case, every filter runs on every node.
 */
final class ForecastBench {

    record Result(
            int nodes,
            int pods,
            int evicted,
            double buildMillis,
            double forecastMillis,
            double buildCpuMillis,
            double forecastCpuMillis,
            double objectsHeapMiB,
            double viewHeapMiB,
            OperatorPath operatorPath,
            Map<PlacementForecast.Verdict, Long> verdicts) {}

    /**
     * The heap the operator's own path holds while one forecast is made, after full GCs: the Node cache as it keeps
     * Nodes ({@link TrimmedNodeStore}, resident whether or not a forecast is made), and on top of it what {@code
     * PlacementStep.forecast} holds at its peak: the Nodes the cache hands out (restored from its reduced state, one
     * copy per read), every pod as the view keeps it (read page by page, each reduced at once by {@link
     * PlacementCluster.Builder#pod}, the full page dropped), the drained node's pods whole, and the forecast.
     *
     * @param nodeCacheMiB the trimmed Node cache alone
     * @param forecastMiB what one forecast adds while it is made (Nodes read, the view with every pod, forecast)
     */
    record OperatorPath(double nodeCacheMiB, double forecastMiB) {
        /** The two together: the forecast's share of the operator's heap at its peak. */
        double peakMiB() {
            return nodeCacheMiB + forecastMiB;
        }
    }

    /**
     * Issue 49 item 5: the forecast's view (with the Node cache) at 5,000 nodes / 150,000 pods, heap after GC, at most
     * this (MiB); the row fails above it.
     */
    static final int BOUND_MIB = 128;

    /** Pods per LIST page, as {@code PlacementStep} reads them. */
    private static final int PAGE = 500;

    private ForecastBench() {}

    static Result run(int nodeCount, int podsPerNode, int repeats) {
        OperatorPath operatorPath = operatorPath(nodeCount, podsPerNode);
        long baseline = usedAfterGc();
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            nodes.add(node("node-" + i, "zone-" + (i % 3)));
        }
        List<Pod> pods = new ArrayList<>();
        int podCount = nodeCount * podsPerNode;
        for (int i = 0; i < podCount; i++) {
            // pod i runs on node i % nodeCount: replicas of one Deployment on 10 different nodes
            pods.add(pod(i, "node-" + (i % nodeCount)));
        }
        long withObjects = usedAfterGc();
        PlacementCluster kept = PlacementCluster.of(nodes, pods);
        long withView = usedAfterGc();
        List<Pod> evictions = pods.stream()
                .filter(p -> "node-0".equals(p.getSpec().getNodeName()))
                .toList();

        double[] build = new double[repeats];
        double[] forecast = new double[repeats];
        double[] buildCpu = new double[repeats];
        double[] forecastCpu = new double[repeats];
        var threads = ManagementFactory.getThreadMXBean();
        PlacementForecast last = null;
        for (int r = 0; r < repeats; r++) {
            long c0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            PlacementCluster cluster = PlacementCluster.of(nodes, pods);
            long c1 = threads.getCurrentThreadCpuTime();
            long t1 = System.nanoTime();
            last = PlacementForecast.of(cluster, List.of(new PlacementForecast.Drain("node-0", evictions)), List.of());
            long c2 = threads.getCurrentThreadCpuTime();
            long t2 = System.nanoTime();
            build[r] = (t1 - t0) / 1e6;
            forecast[r] = (t2 - t1) / 1e6;
            buildCpu[r] = (c1 - c0) / 1e6;
            forecastCpu[r] = (c2 - c1) / 1e6;
        }
        Map<PlacementForecast.Verdict, Long> verdicts = new TreeMap<>();
        last.pods().forEach(p -> verdicts.merge(p.verdict(), 1L, Long::sum));
        if (kept.hashCode() == 0) { // keeps the view reachable up to here
            throw new IllegalStateException();
        }
        return new Result(
                nodeCount,
                podCount,
                evictions.size(),
                median(build),
                median(forecast),
                median(buildCpu),
                median(forecastCpu),
                (withObjects - baseline) / 1048576.0,
                (withView - withObjects) / 1048576.0,
                operatorPath,
                verdicts);
    }

    /**
     * {@link OperatorPath} on the same cluster: Nodes put one by one into a {@link TrimmedNodeStore} (as the informer
     * does), pods made one page of {@value #PAGE} at a time and put into the view at once (as {@code PlacementStep}
     * reads them),
     * the drained node's pods kept whole (the drain plan reads them so), then the view and one forecast.
     */
    private static OperatorPath operatorPath(int nodeCount, int podsPerNode) {
        long baseline = usedAfterGc();
        TrimmedNodeStore cache = new TrimmedNodeStore();
        for (int i = 0; i < nodeCount; i++) {
            Node node = node("node-" + i, "zone-" + (i % 3));
            cache.put(cache.getKey(node), node);
        }
        long withCache = usedAfterGc();
        List<Node> nodes = cache.values().toList();
        PlacementCluster.Builder view = PlacementCluster.builder(nodes);
        List<Pod> onNode = new ArrayList<>();
        int podCount = nodeCount * podsPerNode;
        for (int first = 0; first < podCount; first += PAGE) {
            List<Pod> page = new ArrayList<>(PAGE);
            for (int i = first; i < Math.min(podCount, first + PAGE); i++) {
                page.add(pod(i, "node-" + (i % nodeCount)));
            }
            for (Pod p : page) {
                if ("node-0".equals(p.getSpec().getNodeName())) {
                    onNode.add(p);
                }
                view.pod(p);
            }
        }
        PlacementCluster cluster = view.build(List.of(), List.of(), Map.of());
        PlacementForecast forecast =
                PlacementForecast.of(cluster, List.of(new PlacementForecast.Drain("node-0", onNode)), List.of());
        long atPeak = usedAfterGc();
        if (forecast.pods().size() != onNode.size() || cache.size() != nodeCount) { // keeps all reachable up to here
            throw new IllegalStateException("forecast of " + forecast.pods().size() + " pods, " + onNode.size()
                    + " on the node; " + cache.size() + " Nodes cached");
        }
        return new OperatorPath((withCache - baseline) / 1048576.0, (atPeak - withCache) / 1048576.0);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** Used heap after full collections (System.gc() until it settles: G1 may need more than one). */
    private static long usedAfterGc() {
        var memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            long now = memory.getHeapMemoryUsage().getUsed();
            if (Math.abs(now - used) < 1 << 20) {
                return now;
            }
            used = now;
        }
        return used;
    }

    private static Node node(String name, String zone) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withUid("uid-" + name)
                .withLabels(Map.of(
                        "kubernetes.io/hostname", name,
                        "topology.kubernetes.io/zone", zone,
                        "topology.kubernetes.io/region", "region-1",
                        "node.kubernetes.io/instance-type", "m5.2xlarge",
                        "kubernetes.io/os", "linux",
                        "kubernetes.io/arch", "amd64",
                        "node-role.kubernetes.io/worker", ""))
                .endMetadata()
                .withNewSpec()
                .withProviderID("aws:///" + zone + "/i-" + Integer.toHexString(name.hashCode()))
                .endSpec()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .withCapacity(
                        Map.of("cpu", new Quantity("8"), "memory", new Quantity("32Gi"), "pods", new Quantity("110")))
                .withAllocatable(Map.of(
                        "cpu", new Quantity("7910m"),
                        "memory", new Quantity("31Gi"),
                        "pods", new Quantity("110"),
                        "ephemeral-storage", new Quantity("95Gi")))
                .endStatus()
                .build();
    }

    private static Pod pod(int i, String node) {
        int deployment = i / 10;
        String app = "service-" + deployment;
        PodBuilder b = new PodBuilder()
                .withNewMetadata()
                .withName(app + "-7d9f8c6b5-" + Integer.toString(i, 36))
                .withNamespace("team-" + (deployment % 50))
                .withUid("uid-pod-" + i)
                .withLabels(Map.of("app", app, "pod-template-hash", "7d9f8c6b5"))
                .addNewOwnerReference()
                .withApiVersion("apps/v1")
                .withKind("ReplicaSet")
                .withName(app + "-7d9f8c6b5")
                .withUid("uid-rs-" + deployment)
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/team/" + app + ":1.0.0")
                .withNewResources()
                .addToRequests("cpu", new Quantity("100m"))
                .addToRequests("memory", new Quantity("128Mi"))
                .endResources()
                .endContainer()
                .withTolerations(
                        new Toleration("NoExecute", "node.kubernetes.io/not-ready", "Exists", 300L, null),
                        new Toleration("NoExecute", "node.kubernetes.io/unreachable", "Exists", 300L, null))
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .endStatus();
        var selector =
                new LabelSelectorBuilder().withMatchLabels(Map.of("app", app)).build();
        if (deployment % 10 == 1) {
            b.editSpec()
                    .withTopologySpreadConstraints(new TopologySpreadConstraintBuilder()
                            .withMaxSkew(4)
                            .withTopologyKey("topology.kubernetes.io/zone")
                            .withWhenUnsatisfiable("DoNotSchedule")
                            .withLabelSelector(selector)
                            .build())
                    .endSpec();
        } else if (deployment % 10 == 2) {
            b.editSpec()
                    .withNewAffinity()
                    .withNewPodAntiAffinity()
                    .withRequiredDuringSchedulingIgnoredDuringExecution(new PodAffinityTermBuilder()
                            .withTopologyKey("kubernetes.io/hostname")
                            .withLabelSelector(selector)
                            .build())
                    .endPodAntiAffinity()
                    .endAffinity()
                    .endSpec();
        }
        return b.build();
    }
}
