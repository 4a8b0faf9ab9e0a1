package dev.tenure.bench;

import dev.tenure.kube.NodeCache;
import dev.tenure.maintenance.admission.AdmissionCaches;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.NodeMaintenanceWebhook;
import dev.tenure.maintenance.annotation.AnnotatedNodes;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;

/**
 * Row 9 (issue 25): the NodeMaintenance webhook's CREATE review at 5,000 realistic Nodes (40 images each, as row 7)
 * with NodeMaintenances on some of them, old path and cache path alternated in one run on one emulated cluster:
 * <ul>
 *   <li>API reads: {@link AdmissionCaches} not started, which is what every review did before issue 25 (and what a
 *       replica does until its caches sync): GET the Node, LIST every Node (full objects, for the annotation door's
 *       holds) and LIST every NodeMaintenance;
 *   <li>caches: the same code with the caches started (trimmed Node cache, NodeMaintenance informer).
 * </ul>
 * Timed: {@link NodeMaintenanceWebhook#reviewOfCreate}, the review's reads and rules; the HTTP round trip and the
 * SubjectAccessReviews, the same on both paths, are not.
 */
final class AdmissionBench {

    record Result(int nodes, int maintenances, Samples api, Samples cached, double seedSeconds) {}

    static Result run(int nodes, int maintenances, int trials) throws Exception {
        EmulatedCluster.Options options =
                EmulatedCluster.Options.forDemo().nodeLeaseRenewInterval(Duration.ofSeconds(10));
        try (EmulatedCluster cluster = EmulatedCluster.start(options)) {
            long t0 = System.nanoTime();
            for (int i = 0; i < nodes; i++) {
                cluster.seed().object(ScaleBench.node("n" + i));
            }
            FootprintBench.installCrds(cluster);
            for (int i = 0; i < maintenances; i++) {
                cluster.client()
                        .resource(new NodeMaintenance("held-" + i, new NodeMaintenanceSpec("n" + (i * 97 % nodes), "")))
                        .create();
            }
            double seedSeconds = (System.nanoTime() - t0) / 1e9;
            KubernetesClient client = cluster.operatorClient();
            AdmissionCaches apiReads = new AdmissionCaches(client, new NodeCache(client));
            try (AdmissionCaches caches = new AdmissionCaches(client, new NodeCache(client))) {
                startWithRetries(caches);
                MaintenanceLimits limits = MaintenanceLimits.none();
                AnnotatedNodes apiHolds = new AnnotatedNodes(apiReads);
                AnnotatedNodes cachedHolds = new AnnotatedNodes(caches);
                Samples api = new Samples();
                Samples cached = new Samples();
                review(apiReads, apiHolds, limits, nodes, 0); // warm-up
                review(caches, cachedHolds, limits, nodes, 0);
                for (int t = 0; t < trials; t++) {
                    // alternated, the order flipped every trial: both paths see the same machine load
                    boolean apiFirst = t % 2 == 0;
                    for (int k = 0; k < 2; k++) {
                        boolean old = (k == 0) == apiFirst;
                        Samples into = old ? api : cached;
                        Duration took = old
                                ? review(apiReads, apiHolds, limits, nodes, t)
                                : review(caches, cachedHolds, limits, nodes, t);
                        if (took == null) {
                            into.failed();
                        } else {
                            into.add(took);
                        }
                    }
                }
                return new Result(nodes, maintenances, api, cached, seedSeconds);
            }
        }
    }

    /** As SharedCaches does: a start the loaded emulator times out is tried again. */
    private static void startWithRetries(AdmissionCaches caches) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                caches.start();
                return;
            } catch (RuntimeException e) {
                if (attempt == 5) {
                    throw e;
                }
                Thread.sleep(1000L * attempt);
            }
        }
    }

    /**
     * One CREATE of a NodeMaintenance for a worker node without one; must be admitted. Null when a read ran into the
     * client's 10 s request timeout, the webhook's own timeout (fail-closed: the CREATE would be refused).
     */
    private static Duration review(
            AdmissionCaches caches, AnnotatedNodes holds, MaintenanceLimits limits, int nodes, int t) {
        String node = "n" + ((t * 97 + 1) % nodes);
        NodeMaintenance candidate = new NodeMaintenance("candidate-" + t, new NodeMaintenanceSpec(node, "bench"));
        long s = System.nanoTime();
        List<String> errors;
        try {
            errors = NodeMaintenanceWebhook.reviewOfCreate(candidate, caches, holds, limits)
                    .reasons();
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            if (String.valueOf(e.getMessage()).contains("timeout")) {
                return null;
            }
            throw e;
        }
        Duration took = Duration.ofNanos(System.nanoTime() - s);
        if (!errors.isEmpty() && errors.stream().noneMatch(e -> e.contains("already has an active"))) {
            throw new IllegalStateException("review of " + node + " refused: " + errors);
        }
        return took;
    }
}
