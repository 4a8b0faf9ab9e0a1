package dev.tenure.bench;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.testsupport.EmulatedCluster;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * Row 12 (issue 25): the scrape stays flat in the number of NodeMaintenances ever created. The packaged operator
 * drives rounds of NodeMaintenances (one per node, on nodes without pods) to Succeeded and deletes them, {@code cycles}
 * in all; /q/metrics' series (sample lines) are counted after a first warming round, which registers everything a
 * maintenance ever registers, and after the last round.
 */
final class MetricSeriesBench {
    static final Duration ROUND_LIMIT = Duration.ofMinutes(3);

    /**
     * A lease this row's operator keeps on a loaded machine. With the defaults (15 s, renew deadline 10 s) a quick
     * run beside three other builds (load average 17) lost its lease, and the operator exited to be restarted, as
     * it should in a pod; a restart would reset the very series this row counts. Leadership is not what it measures.
     */
    static final List<String> ELECTION = List.of(
            "-Dtenure.leader-election.lease-duration=60s",
            "-Dtenure.leader-election.renew-deadline=45s",
            "-Dtenure.leader-election.retry-period=5s");

    record Result(
            int cycles,
            int perRound,
            int seriesAtReady,
            int seriesBefore,
            int seriesAfter,
            long seriesNamingDeleted,
            double seconds) {}

    static Result run(int cycles, int perRound) throws Exception {
        try (EmulatedCluster cluster = EmulatedCluster.start(
                EmulatedCluster.Options.forTests().nodeLeaseRenewInterval(Duration.ofSeconds(10)))) {
            for (int i = 0; i < perRound; i++) {
                cluster.seed().node("n" + i).role("worker").create();
            }
            FootprintBench.installCrds(cluster);
            try (FootprintBench.Running operator =
                    FootprintBench.start(cluster, FootprintBench.Launcher.thisJdk(), ELECTION)) {
                HttpClient http = HttpClient.newHttpClient();
                int atReady = series(scrape(http, operator)).size();
                round(cluster, operator, "warm", perRound);
                int before = series(scrape(http, operator)).size();
                long t0 = System.nanoTime();
                int done = 0;
                for (int r = 0; done < cycles; r++) {
                    int n = Math.min(perRound, cycles - done);
                    round(cluster, operator, "cycle" + r, n);
                    done += n;
                }
                double seconds = (System.nanoTime() - t0) / 1e9;
                List<String> after = series(scrape(http, operator));
                long naming = after.stream().filter(l -> l.contains("\"cycle")).count();
                return new Result(cycles, perRound, atReady, before, after.size(), naming, seconds);
            }
        }
    }

    /** {@code n} NodeMaintenances {@code prefix-i} on nodes n0..n(n-1): all to Succeeded, then all deleted and gone. */
    private static void round(EmulatedCluster cluster, FootprintBench.Running operator, String prefix, int n)
            throws Exception {
        for (int i = 0; i < n; i++) {
            cluster.client()
                    .resource(new NodeMaintenance(prefix + "-" + i, new NodeMaintenanceSpec("n" + i, "series")))
                    .create();
        }
        waitFor(operator, () -> count(cluster, prefix, true) == n, prefix + ": " + n + " Succeeded");
        for (int i = 0; i < n; i++) {
            cluster.client()
                    .resources(NodeMaintenance.class)
                    .withName(prefix + "-" + i)
                    .delete();
        }
        waitFor(operator, () -> count(cluster, prefix, false) == 0, prefix + ": all deleted");
    }

    private static long count(EmulatedCluster cluster, String prefix, boolean succeeded) {
        return cluster.client().resources(NodeMaintenance.class).list().getItems().stream()
                .filter(nm -> nm.getMetadata().getName().startsWith(prefix + "-"))
                .filter(nm ->
                        !succeeded || (nm.getStatus() != null && nm.getStatus().getPhase() == Phase.Succeeded))
                .count();
    }

    /** Polls {@code done}; fails at once when the operator has exited (its series would start again from zero). */
    private static void waitFor(FootprintBench.Running operator, java.util.function.BooleanSupplier done, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + ROUND_LIMIT.toNanos();
        while (!done.getAsBoolean()) {
            if (!operator.process().isAlive()) {
                throw new IllegalStateException(
                        "the operator exited (" + operator.process().exitValue() + ") while waiting for " + what
                                + "; a restart would reset its metrics");
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not within " + ROUND_LIMIT + ": " + what);
            }
            Thread.sleep(100);
        }
    }

    static String scrape(HttpClient http, FootprintBench.Running operator) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(operator.management("/q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("/q/metrics answered " + r.statusCode());
        }
        return r.body();
    }

    /** Sample lines of a Prometheus text scrape: one per series. */
    static List<String> series(String scrape) {
        return scrape.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
    }
}
