package dev.tenure.bench;

import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Row 3: API requests a steady leader makes, read from the emulated cluster's request log. Each
 * implementation gets its own client (its own User-Agent) and its own Lease; both lead side by side for
 * the same window on the default profile, with no contender.
 */
final class SteadyLeaderCostBench {
    private static final Set<String> READS = Set.of("get", "list", "watch");

    private final EmulatedCluster cluster;

    SteadyLeaderCostBench(EmulatedCluster cluster) {
        this.cluster = cluster;
    }

    RowResult run(Duration window) throws Exception {
        long began = System.nanoTime();
        ElectionProfile profile = ElectionProfile.DEFAULT;
        RowResult.Builder row = RowResult.of("3", "API cost of a steady leader (" + profile.name() + ")");
        KubernetesClient tenureClient = client("bench-steady-tenure");
        KubernetesClient fabric8Client = client("bench-steady-fabric8");
        CompletableFuture<Long> tenureLeads = new CompletableFuture<>();
        CompletableFuture<Long> fabric8Leads = new CompletableFuture<>();
        BenchElector tenure = BenchElector.create(
                BenchElector.Kind.TENURE,
                tenureClient,
                FailoverBench.NAMESPACE,
                "bench-steady-tenure",
                "steady-tenure",
                profile,
                true,
                1,
                null,
                tenureLeads::complete);
        BenchElector fabric8 = BenchElector.create(
                BenchElector.Kind.FABRIC8,
                fabric8Client,
                FailoverBench.NAMESPACE,
                "bench-steady-fabric8",
                "steady-fabric8",
                profile,
                true,
                2,
                null,
                fabric8Leads::complete);
        try {
            tenure.start();
            fabric8.start();
            tenureLeads.get(30, TimeUnit.SECONDS);
            fabric8Leads.get(30, TimeUnit.SECONDS);
            // Count only the steady window: acquisition and the watch's initial list are behind us.
            int from = cluster.requests().all().size();
            var tenureRenewCount = new java.util.concurrent.atomic.AtomicInteger();
            var fabric8RenewCount = new java.util.concurrent.atomic.AtomicInteger();
            // The bench's own watches use a third client, so their requests are not counted for either side.
            try (var watcher = client("bench-steady-observer");
                    var w1 = renewWatch(watcher, "bench-steady-tenure", tenureRenewCount);
                    var w2 = renewWatch(watcher, "bench-steady-fabric8", fabric8RenewCount)) {
                Thread.sleep(window.toMillis());
            }
            List<ApiRequest> window_ = cluster.requests().all();
            List<ApiRequest> seen = window_.subList(from, window_.size());
            double minutes = window.toMillis() / 60_000.0;
            double[] tenureRw = count(seen, "bench-steady-tenure");
            double[] fabric8Rw = count(seen, "bench-steady-fabric8");
            // A renew is one successful write of the lease's renewTime, which both implementations do every
            // retryPeriod; counting renews from the lease's own history keeps the per-renew figures exact.
            double tenureRenews = tenureRenewCount.get();
            double fabric8Renews = fabric8RenewCount.get();
            row.measure("Tenure", "reads/min", tenureRw[0] / minutes, "req/min")
                    .measure("Tenure", "writes/min", tenureRw[1] / minutes, "req/min")
                    .measure("Tenure", "renews", tenureRenews, "")
                    .measure("Tenure", "reads/renew", tenureRw[0] / tenureRenews, "req")
                    .measure("Tenure", "writes/renew", tenureRw[1] / tenureRenews, "req")
                    .measure("fabric8", "reads/min", fabric8Rw[0] / minutes, "req/min")
                    .measure("fabric8", "writes/min", fabric8Rw[1] / minutes, "req/min")
                    .measure("fabric8", "renews", fabric8Renews, "")
                    .measure("fabric8", "reads/renew", fabric8Rw[0] / fabric8Renews, "req")
                    .measure("fabric8", "writes/renew", fabric8Rw[1] / fabric8Renews, "req");
            double tenureTotal = tenureRw[0] + tenureRw[1];
            double fabric8Total = fabric8Rw[0] + fabric8Rw[1];
            row.ratio(fabric8Total / tenureTotal, "fabric8 requests / Tenure requests over the same window")
                    .note("window " + window.toSeconds() + " s of steady leadership ("
                            + window.toMillis() / profile.retryPeriod().toMillis()
                            + " nominal renew periods of "
                            + profile.retryPeriod().toMillis() + " ms); reads = get/list/watch requests, "
                            + "writes = create/update/patch; Tenure's one long-lived watch on its Lease (opened at start) is "
                            + "not in the window")
                    .note("goal: Tenure 1 write and 0 reads per renew");
        } finally {
            tenure.stop();
            fabric8.stop();
            tenureClient.close();
            fabric8Client.close();
        }
        return row.ok((System.nanoTime() - began) / 1e9);
    }

    /** Counts changes of the lease's renewTime seen by a watch (opened before the window: the initial ADDED is skipped). */
    private static io.fabric8.kubernetes.client.Watch renewWatch(
            KubernetesClient client, String lease, java.util.concurrent.atomic.AtomicInteger renews) {
        return client.resources(io.fabric8.kubernetes.api.model.coordination.v1.Lease.class)
                .inNamespace(FailoverBench.NAMESPACE)
                .withName(lease)
                .watch(new io.fabric8.kubernetes.client.Watcher<>() {
                    @Override
                    public void eventReceived(Action action, io.fabric8.kubernetes.api.model.coordination.v1.Lease l) {
                        if (action == Action.MODIFIED) {
                            renews.incrementAndGet();
                        }
                    }

                    @Override
                    public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
                });
    }

    private KubernetesClient client(String userAgent) {
        return EmulatedCluster.clientBuilder()
                .withConfig(new ConfigBuilder(cluster.clientConfig())
                        .withUserAgent(userAgent)
                        .build())
                .build();
    }

    private static double[] count(List<ApiRequest> requests, String userAgent) {
        double reads = 0;
        double writes = 0;
        for (ApiRequest r : requests) {
            if (!r.userAgent().equals(userAgent) || !r.isResourceRequest()) {
                continue;
            }
            if (READS.contains(r.verb())) {
                reads++;
            } else {
                writes++;
            }
        }
        return new double[] {reads, writes};
    }
}
