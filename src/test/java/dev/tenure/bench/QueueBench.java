package dev.tenure.bench;

import dev.tenure.maintenance.MaintenanceOperatorRig;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.RequestOrigin;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Row 16 (issue 49 item 5): the API requests the operator makes per queued NodeMaintenance per queue look, and per
 * draining NodeMaintenance, with the NodeMaintenance door as the operator runs it ({@link MaintenanceOperatorRig}: the
 * real reconciler in JOSDK, the shared Node cache, the machine) on an emulated cluster of {@code nodes} worker nodes.
 *
 * <ol>
 *   <li>Draining: {@code draining} NodeMaintenances (the cap {@code max-nodes-in-maintenance}, so none waits), each
 *       node with {@code podsPerNode} pods of one Deployment; every request the operator sends from their creation
 *       until all are Succeeded, divided by {@code draining}.
 *   <li>Queued: then {@code queued} more, which the cap holds (Pending, a queue position each); once every one is
 *       queued, a window of {@code window} in which each is looked at every {@code queueLook} (the door's backstop
 *       look, shortened so the window holds many looks). Looks are counted by JOSDK ({@link
 *       Metrics#reconciliationExecutionStarted}, for the queued requests only), requests by the emulator's request
 *       log (operator origin), apart by verb and resource: a request that names a queued NodeMaintenance or its node,
 *       or names no object (a LIST, a WATCH), is the queue's; one that names a maintenance holding the cap, its node
 *       or its Lease is that maintenance's, reported apart.
 * </ol>
 *
 * The old behaviours' models: before {@code c8d4c07}, the same look plus one GET of the request's own Node and one
 * full LIST of Nodes from the API server ({@code NodeMaintenanceReconciler.view}, whenever a cap is set, the node is a
 * control-plane node, or requests wait ahead); before {@code 278c0fe}, the same look plus that GET (the Nodes were read
 * from the shared cache, the request's own Node still from the API server). That GET and that LIST are measured here at
 * the same node count: their time (median of 5) and size (as JSON).
 *
 * <p>Where the row's time goes is reported with it ({@link Result#setupSeconds} and the phases after): at 1,000 nodes
 * most of it is the setup (the emulated cluster seeded with one Node and one kubelet Lease per node, the operator's
 * start and its caches' first LIST), not the looks.
 */
final class QueueBench {

    /**
     * One run.
     *
     * @param nodeGets the GETs of a queued request's own Node among the looks' requests (0 since {@code 278c0fe})
     * @param setupSeconds the emulated cluster seeded with {@code nodes} nodes and the operator started
     * @param drainSeconds the draining maintenances created until all are Succeeded
     * @param queueSeconds the queued ones created until every one is Pending with a queue position
     * @param windowSeconds the window of looks, from one quiet moment to the next
     */
    record Result(
            int nodes,
            int draining,
            int queued,
            int podsPerNode,
            long drainRequests,
            long evictions,
            long looks,
            long lookRequests,
            long heldRequests,
            long nodeLists,
            long nodeGets,
            Map<String, Long> lookRequestsByKind,
            double setupSeconds,
            double drainSeconds,
            double queueSeconds,
            double windowSeconds,
            double nodeListMillis,
            long nodeListBytes,
            double nodeGetMillis,
            long nodeGetBytes) {

        double requestsPerLook() {
            return looks == 0 ? Double.NaN : lookRequests / (double) looks;
        }

        double requestsPerDrain() {
            return drainRequests / (double) draining;
        }
    }

    /** Counts the reconciles JOSDK starts, per NodeMaintenance name, and those running now. */
    static final class Looks implements Metrics {
        final Map<String, AtomicLong> started = new ConcurrentHashMap<>();
        final AtomicLong running = new AtomicLong();

        @Override
        public void reconciliationExecutionStarted(HasMetadata resource, Map<String, Object> metadata) {
            running.incrementAndGet();
            started.computeIfAbsent(resource.getMetadata().getName(), n -> new AtomicLong())
                    .incrementAndGet();
        }

        @Override
        public void reconciliationExecutionFinished(HasMetadata resource, Map<String, Object> metadata) {
            running.decrementAndGet();
        }

        /**
         * The looks started so far and the request log's length, read at a moment no reconcile runs, so that every
         * request between two such readings belongs to a look counted between them (the looks of the queued requests
         * come in bursts, all at once every queueLook: a reading taken inside a burst would split its looks from
         * their requests).
         */
        long[] quiet(Set<String> names, dev.tenure.testsupport.RequestLog log) throws InterruptedException {
            while (true) {
                if (running.get() == 0) {
                    long count = of(names);
                    long index = log.all().size();
                    if (running.get() == 0 && of(names) == count) {
                        return new long[] {count, index};
                    }
                }
                Thread.sleep(5);
            }
        }

        long of(Set<String> names) {
            return names.stream()
                    .mapToLong(n -> started.getOrDefault(n, new AtomicLong()).get())
                    .sum();
        }
    }

    static Result run(int nodes, int draining, int queued, int podsPerNode, Duration queueLook, Duration window)
            throws Exception {
        String[] names = new String[nodes];
        for (int i = 0; i < nodes; i++) {
            names[i] = "n" + i;
        }
        Looks looks = new Looks();
        long s0 = System.nanoTime();
        EmulatedCluster.Options options = EmulatedCluster.Options.forTests()
                // the kubelets' own lease renewals are not the operator's; slowed so 1,000 of them do not load the
                // emulator (and long, so no node looks stale meanwhile)
                .nodeLeaseRenewInterval(Duration.ofSeconds(60))
                .nodeLeaseDurationSeconds(600)
                .terminationDelay(p -> Duration.ofMillis(200));
        try (MaintenanceOperatorRig rig = MaintenanceOperatorRig.start(
                options,
                MachineRig.settings(10, Duration.ofSeconds(1)),
                Clock.systemUTC(),
                new MaintenanceLimits(OptionalInt.of(draining), OptionalInt.empty()),
                queueLook,
                looks,
                names)) {
            KubernetesClient client = rig.client;
            double setupSeconds = (System.nanoTime() - s0) / 1e9;
            for (int i = 0; i < draining; i++) {
                rig.cluster
                        .seed()
                        .deployment("app" + i)
                        .namespace("fleet")
                        .replicas(podsPerNode)
                        .onNodes("n" + i)
                        .create();
            }

            // 1. draining: every request from the first creation until all are Succeeded
            int before = rig.cluster.requests().all().size();
            long t0 = System.nanoTime();
            for (int i = 0; i < draining; i++) {
                client.resource(new NodeMaintenance("drain-" + i, new NodeMaintenanceSpec("n" + i, "bench")))
                        .create();
            }
            awaitAll(rig, "drain-", draining, s -> s.getPhase() == Phase.Succeeded, Duration.ofMinutes(10));
            double drainSeconds = (System.nanoTime() - t0) / 1e9;
            List<ApiRequest> drain = operator(rig.cluster.requests().all(), before);
            long evictions = drain.stream()
                    .filter(r -> r.is("create", "pods", "eviction"))
                    .count();

            // 2. queued: the cap is full; each queued request is looked at every queueLook
            long q0 = System.nanoTime();
            for (int i = 0; i < queued; i++) {
                String node = "n" + (draining + i);
                client.resource(new NodeMaintenance("queued-" + i, new NodeMaintenanceSpec(node, "bench")))
                        .create();
            }
            awaitAll(
                    rig,
                    "queued-",
                    queued,
                    s -> s.getPhase() == Phase.Pending && s.getQueuePosition() != null,
                    Duration.ofMinutes(5));
            double queueSeconds = (System.nanoTime() - q0) / 1e9;
            Set<String> queuedNames = new java.util.HashSet<>();
            for (int i = 0; i < queued; i++) {
                queuedNames.add("queued-" + i);
            }
            long[] start = looks.quiet(queuedNames, rig.cluster.requests());
            long w0 = System.nanoTime();
            Thread.sleep(window.toMillis()); // a measuring window: the looks come on their own clock
            long[] end = looks.quiet(queuedNames, rig.cluster.requests());
            long lookCount = end[0] - start[0];
            double windowSeconds = (System.nanoTime() - w0) / 1e9;
            List<ApiRequest> inWindow = operator(rig.cluster.requests().all().subList(0, (int) end[1]), (int) start[1]);
            Set<String> queuedNodes = new java.util.HashSet<>();
            for (int i = 0; i < queued; i++) {
                queuedNodes.add("n" + (draining + i));
            }
            Map<String, Long> byKind = new TreeMap<>();
            long held = 0;
            long lookRequests = 0;
            for (ApiRequest r : inWindow) {
                String name = r.name() == null ? "" : r.name();
                if (!(name.isEmpty() || queuedNames.contains(name) || queuedNodes.contains(name))) {
                    held++; // names a maintenance that holds the cap: its node, NodeMaintenance or Lease
                    continue;
                }
                lookRequests++;
                byKind.merge(r.verb() + " " + r.resourceWithSubresource(), 1L, Long::sum);
            }
            long nodeLists =
                    inWindow.stream().filter(r -> r.is("list", "nodes")).count();
            long nodeGets = inWindow.stream()
                    .filter(r -> r.is("get", "nodes") && queuedNodes.contains(r.name()))
                    .count();
            for (int i = 0; i < queued; i++) {
                if (rig.phase("queued-" + i) != Phase.Pending) {
                    throw new IllegalStateException("queued-" + i + " left the queue during the window");
                }
            }

            // the old behaviours' extra requests per look: a GET of the request's Node and a LIST of every Node,
            // measured at this node count
            Samples list = new Samples();
            Samples get = new Samples();
            long listBytes = 0;
            long getBytes = 0;
            try (KubernetesClient op = rig.cluster.operatorClient()) {
                for (int i = 0; i < 5; i++) {
                    long s = System.nanoTime();
                    NodeList all = op.nodes().list();
                    list.add(Duration.ofNanos(System.nanoTime() - s));
                    listBytes = op.getKubernetesSerialization().asJson(all).getBytes(StandardCharsets.UTF_8).length;
                    s = System.nanoTime();
                    Node one = op.nodes().withName("n" + draining).get();
                    get.add(Duration.ofNanos(System.nanoTime() - s));
                    getBytes = op.getKubernetesSerialization().asJson(one).getBytes(StandardCharsets.UTF_8).length;
                }
            }
            return new Result(
                    nodes,
                    draining,
                    queued,
                    podsPerNode,
                    drain.size(),
                    evictions,
                    lookCount,
                    lookRequests,
                    held,
                    nodeLists,
                    nodeGets,
                    byKind,
                    setupSeconds,
                    drainSeconds,
                    queueSeconds,
                    windowSeconds,
                    list.medianMillis(),
                    listBytes,
                    get.medianMillis(),
                    getBytes);
        }
    }

    /** The operator's requests among {@code all} from index {@code from} on (not the harness's, nor the kubelets'). */
    private static List<ApiRequest> operator(List<ApiRequest> all, int from) {
        List<ApiRequest> out = new ArrayList<>();
        for (ApiRequest r : all.subList(from, all.size())) {
            if (RequestOrigin.of(r) == RequestOrigin.OPERATOR) {
                out.add(r);
            }
        }
        return out;
    }

    private static void awaitAll(
            MaintenanceOperatorRig rig,
            String prefix,
            int count,
            java.util.function.Predicate<NodeMaintenanceStatus> done,
            Duration limit)
            throws InterruptedException {
        Instant deadline = Instant.now().plus(limit);
        while (true) {
            int ok = 0;
            for (int i = 0; i < count; i++) {
                NodeMaintenanceStatus s = rig.status(prefix + i);
                if (s != null && done.test(s)) {
                    ok++;
                }
            }
            if (ok == count) {
                return;
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException(ok + " of " + count + " " + prefix + "* done within " + limit);
            }
            Thread.sleep(200);
        }
    }
}
