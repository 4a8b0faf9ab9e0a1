package dev.tenure.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tenure.maintenance.MaintenanceOperatorRig;
import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.drain.SurgePlanner;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import dev.tenure.testsupport.EmulatedCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * {@code make bench}: side-by-side figures, Tenure against its peers, each row measured in one run on the
 * in-process emulated cluster (loopback only). Prints a table and writes {@code bench/results.json}.
 * {@code -Dtenure.bench.quick=true}: fewer trials and shorter windows, for a smoke run.
 * {@code -Dtenure.bench.rows=1,3}: only those rows.
 */
public final class Bench {

    /** A row's body; may throw, and then the row is reported as failed with the cause. */
    interface Row {
        List<RowResult> run() throws Exception;
    }

    private final boolean quick;
    private final long seed;

    Bench(boolean quick, long seed) {
        this.quick = quick;
        this.seed = seed;
    }

    public static void main(String[] args) throws Exception {
        // The electors log every transition at INFO; a bench with hundreds of them only wants warnings.
        Logger.getLogger("").setLevel(Level.WARNING);
        Logger.getLogger("dev.tenure").setLevel(Level.WARNING);
        boolean quick = Boolean.getBoolean("tenure.bench.quick");
        long seed = Long.getLong("tenure.bench.seed", 20261122L);
        String only = System.getProperty("tenure.bench.rows", "");
        Path out = Path.of(System.getProperty("tenure.bench.out", "bench/results.json"));
        Bench bench = new Bench(quick, seed);
        Instant started = Instant.now();
        List<RowResult> rows = new ArrayList<>();
        for (Map.Entry<String, Row> e : bench.rows().entrySet()) {
            if (!only.isEmpty() && !List.of(only.split(",")).contains(e.getKey())) {
                continue;
            }
            System.out.println("bench: row " + e.getKey() + " ...");
            long t0 = System.nanoTime();
            try {
                rows.addAll(e.getValue().run());
            } catch (Exception | AssertionError ex) {
                ex.printStackTrace();
                rows.add(RowResult.of(e.getKey(), "row " + e.getKey())
                        .failed(String.valueOf(ex), (System.nanoTime() - t0) / 1e9));
            }
        }
        String table = BenchTable.render(rows);
        System.out.println();
        System.out.println(table);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("started", started.toString());
        json.put("seconds", Duration.between(started, Instant.now()).toSeconds());
        json.put("quick", quick);
        json.put("seed", seed);
        json.put(
                "machine",
                Map.of(
                        "cpus",
                        Runtime.getRuntime().availableProcessors(),
                        "java",
                        System.getProperty("java.version"),
                        "os",
                        System.getProperty("os.name") + " " + System.getProperty("os.arch")));
        json.put("rows", rows);
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), json);
        System.out.println("bench: wrote " + out.toAbsolutePath());
        System.exit(rows.stream().anyMatch(r -> r.status().equals("failed")) ? 1 : 0);
    }

    Map<String, Row> rows() {
        Map<String, Row> rows = new LinkedHashMap<>();
        rows.put("1", this::failover);
        rows.put("2", this::plannedHandover);
        rows.put("3", this::steadyLeaderCost);
        rows.put("4", this::drain);
        rows.put("5", this::fleet);
        rows.put("6", this::footprint);
        rows.put("7", this::scale);
        rows.put("8", this::idleWrites);
        rows.put("9", this::admission);
        rows.put("10", this::orderedDrain);
        rows.put("11", this::pdbDrain);
        rows.put("12", this::metricSeries);
        rows.put("13", this::placementForecast);
        rows.put("14", this::placementDrain);
        rows.put("15", this::rollout);
        rows.put("16", this::queueRequests);
        rows.put("17", this::surgeDrain);
        return rows;
    }

    private int electionTrials() {
        return quick ? 5 : 20;
    }

    private List<ElectionProfile> electionProfiles() {
        return quick ? List.of(ElectionProfile.SCALED) : List.of(ElectionProfile.DEFAULT, ElectionProfile.SCALED);
    }

    /** Crash gaps per profile, measured once: row 1 reports them, row 2 uses Tenure's as client-go's default. */
    private final Map<ElectionProfile, Map<BenchElector.Kind, Samples>> crashGaps = new LinkedHashMap<>();

    private final Map<ElectionProfile, Double> crashSeconds = new LinkedHashMap<>();

    private Map<BenchElector.Kind, Samples> crashGaps(FailoverBench bench, ElectionProfile p) throws Exception {
        if (!crashGaps.containsKey(p)) {
            long t0 = System.nanoTime();
            crashGaps.put(p, bench.run(p, FailoverBench.Exit.CRASH, electionTrials()));
            crashSeconds.put(p, (System.nanoTime() - t0) / 1e9);
        }
        return crashGaps.get(p);
    }

    private List<RowResult> failover() throws Exception {
        List<RowResult> out = new ArrayList<>();
        try (EmulatedCluster cluster = EmulatedCluster.start()) {
            cluster.seed().namespace(FailoverBench.NAMESPACE);
            FailoverBench bench = new FailoverBench(cluster, seed);
            for (ElectionProfile p : electionProfiles()) {
                var crash = crashGaps(bench, p);
                out.add(gapRow(
                        "1",
                        "Leader failover after a crash (" + p.name() + ")",
                        crash,
                        electionTrials(),
                        crashSeconds.get(p),
                        "crash = elector stopped without release (fabric8: releaseOnCancel=false, future cancelled)"));
            }
            if (quick) {
                out.add(RowResult.of("1", "Leader failover after a crash (15s/10s/2s)")
                        .skipped("quick mode runs the scaled profile only"));
            }
            // evidence of death (issue 40): on the client-go defaults even in quick mode, the lease being the point
            ElectionProfile p = ElectionProfile.DEFAULT;
            String pods = "each elector in its own emulated pod, its container started (startContainer) 2 s before its "
                    + "first lease write; Tenure built with KubeProcessEvidence and the pod announced on the Lease, "
                    + "fabric8 as shipped (it reads no pod)";
            long t0 = System.nanoTime();
            var killed = bench.run(p, FailoverBench.Exit.PROCESS_KILLED, electionTrials());
            out.add(gapRow(
                    "1",
                    "Leader failover, process killed, kubelet alive (" + p.name() + ")",
                    killed,
                    electionTrials(),
                    (System.nanoTime() - t0) / 1e9,
                    "kill = elector stopped without release, then endContainer(137 Error) with the kubelet's "
                            + "report 0.2-1 s later (uniform); gap from the stop call",
                    pods));
            t0 = System.nanoTime();
            var lost = bench.run(p, FailoverBench.Exit.NODE_LOST, electionTrials());
            out.add(gapRow(
                    "1",
                    "Leader failover, node lost (" + p.name() + ")",
                    lost,
                    electionTrials(),
                    (System.nanoTime() - t0) / 1e9,
                    "node lost = markKubeletDown on the leader's node, elector stopped without release, "
                            + "endContainer: the report is held back, so both wait out the lease",
                    pods));
        }
        return out;
    }

    static final String MAINTENANCE_AWARE =
            "Tenure maintenance-aware handover (preferredHolder via coordination controller)";
    static final String RELEASE_ON_STOP = "release on stop";

    /**
     * Row 2: release on stop (Tenure, fabric8 releaseOnCancel) and client-go's default (no release: Tenure's crash gap
     * of row 1, measured here when row 1 did not run), plus the maintenance-aware handover through the coordination
     * controller.
     */
    private List<RowResult> plannedHandover() throws Exception {
        int trials = electionTrials();
        List<RowResult> out = new ArrayList<>();
        // 2 nodes per maintenance-aware trial: their kubelets renew node leases every 10 s, not every 200 ms, so that
        // 40 nodes' heartbeats do not load the emulator during the measurement
        try (EmulatedCluster cluster = EmulatedCluster.start(
                EmulatedCluster.Options.forTests().nodeLeaseRenewInterval(Duration.ofSeconds(10)))) {
            cluster.seed().namespace(FailoverBench.NAMESPACE);
            FailoverBench bench = new FailoverBench(cluster.client(), seed);
            try (CoordinatedHandoverBench coordinated = new CoordinatedHandoverBench(cluster, seed)) {
                for (ElectionProfile p : electionProfiles()) {
                    long t0 = System.nanoTime();
                    var planned = bench.run(p, FailoverBench.Exit.PLANNED_STOP, trials);
                    CoordinatedHandoverBench.Result handover = coordinated.run(p, trials);
                    Samples tenureExpiry = crashGaps(bench, p).get(BenchElector.Kind.TENURE);
                    double seconds = (System.nanoTime() - t0) / 1e9;
                    RowResult.Builder row = RowResult.of("2", "Planned handover gap (" + p.name() + ")");
                    Samples ma = handover.gaps();
                    row.measure(MAINTENANCE_AWARE, "median gap", ma.medianMillis(), "ms")
                            .measure(MAINTENANCE_AWARE, "p95 gap", ma.p95Millis(), "ms")
                            .measure(
                                    MAINTENANCE_AWARE,
                                    "median request to new leader",
                                    handover.requestToLeader().medianMillis(),
                                    "ms")
                            .measure(
                                    MAINTENANCE_AWARE,
                                    "p95 request to new leader",
                                    handover.requestToLeader().p95Millis(),
                                    "ms")
                            .measure(MAINTENANCE_AWARE, "trials", ma.count(), "");
                    if (ma.failures() > 0) {
                        row.measure(MAINTENANCE_AWARE, "failed trials", ma.failures(), "")
                                .note(MAINTENANCE_AWARE + ": " + ma.failures()
                                        + " trial(s) produced no new leader within their bound");
                    }
                    for (var e : planned.entrySet()) {
                        Samples s = e.getValue();
                        String subject = e.getKey().label + " " + RELEASE_ON_STOP;
                        row.measure(subject, "median gap", s.medianMillis(), "ms")
                                .measure(subject, "p95 gap", s.p95Millis(), "ms")
                                .measure(subject, "trials", s.count(), "");
                        if (s.failures() > 0) {
                            row.measure(subject, "failed trials", s.failures(), "")
                                    .note(subject + ": " + s.failures()
                                            + " trial(s) produced no new leader within their bound");
                        }
                    }
                    row.measure("client-go default (no release)", "median gap", tenureExpiry.medianMillis(), "ms")
                            .measure("client-go default (no release)", "p95 gap", tenureExpiry.p95Millis(), "ms");
                    Samples t = planned.get(BenchElector.Kind.TENURE);
                    Samples f = planned.get(BenchElector.Kind.FABRIC8);
                    row.ratio(f.medianMillis() / t.medianMillis(), "fabric8 median / Tenure median (release on stop)")
                            .note("fabric8 release-on-stop median / Tenure maintenance-aware median: "
                                    + fmt(f.medianMillis() / ma.medianMillis()))
                            .note("maintenance-aware: " + trials + " trials started "
                                    + CoordinatedHandoverBench.STAGGER.toMillis()
                                    + " ms apart, each on a fresh Lease with two election-core Candidates (coordinated electors, "
                                    + "strategy tenure.dev/MaintenanceAware) labelled tenure.dev/node on their own two emulated nodes, "
                                    + "elected by CoordinationController (upstream timing, built without Quarkus); once the candidates' "
                                    + "renewTime is older than the 5 s ping window (so the controller pings and waits for acks, as in a "
                                    + "cluster where candidates renew every 5 min), at a random phase of the holder's renew cycle, the "
                                    + "trial cordons and taints the holder's node and calls the NodeMaintenance handover step "
                                    + "(CoordinatedLeadershipHandover.handOver); gap = old leader's onStoppedLeading to new leader's "
                                    + "onStartedLeading; request to new leader = from the handOver call")
                            .note("release on stop: " + trials
                                    + " trials per implementation, run concurrently on distinct leases; "
                                    + "gap = stop() call to the contender's onStartedLeading; Tenure: LeaderElector.stop() releases and "
                                    + "the contender takes the lease on the release's watch event; fabric8: releaseOnCancel=true and "
                                    + "the future cancelled (the contender notices at its next retry)")
                            .note(
                                    "client-go default = holder stops renewing and the lease expires (ReleaseOnCancel=false): the "
                                            + "Tenure crash figures of row 1 on this profile (Tenure's elector is client-go parity)");
                    if (p == ElectionProfile.DEFAULT) {
                        row.note("goal: maintenance-aware handover median < 1 s on the 15 s profile");
                    }
                    out.add(row.ok(seconds));
                }
            }
        }
        if (quick) {
            out.add(RowResult.of("2", "Planned handover gap (15s/10s/2s)")
                    .skipped("quick mode runs the scaled profile only"));
        }
        return out;
    }

    private static RowResult gapRow(
            String id, String title, Map<BenchElector.Kind, Samples> gaps, int trials, double seconds, String... how) {
        RowResult.Builder row = RowResult.of(id, title);
        addGaps(row, gaps);
        Samples t = gaps.get(BenchElector.Kind.TENURE);
        Samples f = gaps.get(BenchElector.Kind.FABRIC8);
        row.ratio(f.medianMillis() / t.medianMillis(), "fabric8 median / Tenure median")
                .note(trials + " trials per implementation, run concurrently on distinct leases; leader stopped at a "
                        + "random phase of its renew cycle after the contender had seen it");
        for (String note : how) {
            row.note(note);
        }
        return row.ok(seconds);
    }

    private static void addGaps(RowResult.Builder row, Map<BenchElector.Kind, Samples> gaps) {
        for (var e : gaps.entrySet()) {
            Samples s = e.getValue();
            row.measure(e.getKey().label, "median gap", s.medianMillis(), "ms")
                    .measure(e.getKey().label, "p95 gap", s.p95Millis(), "ms")
                    .measure(e.getKey().label, "trials", s.count(), "");
            if (s.failures() > 0) {
                row.measure(e.getKey().label, "failed trials", s.failures(), "")
                        .note(e.getKey().label + ": " + s.failures()
                                + " trial(s) produced no new leader within their bound");
            }
        }
    }

    private List<RowResult> steadyLeaderCost() throws Exception {
        try (EmulatedCluster cluster = EmulatedCluster.start()) {
            cluster.seed().namespace(FailoverBench.NAMESPACE);
            return List.of(new SteadyLeaderCostBench(cluster).run(Duration.ofSeconds(quick ? 10 : 30)));
        }
    }

    private List<RowResult> drain() throws Exception {
        List<RowResult> out = new ArrayList<>();
        List<DrainBench.Variant> variants = DrainBench.variants();
        DrainBench.Case fast = new DrainBench.Case(false, DrainBench.TERMINATION);
        DrainBench.Case budgets = new DrainBench.Case(true, DrainBench.TERMINATION);
        DrainBench.Case realistic = new DrainBench.Case(false, DrainBench.REALISTIC_TERMINATION);
        // The operator is a long-running JVM; kubectl a native binary. One untimed drain warms the JIT first, or the
        // first Tenure variant pays for class loading and compilation (about 2 s of its 4 s on these machines).
        DrainBench.time(variants.get(0), fast);
        for (DrainBench.Case c : quick ? List.of(fast) : List.of(fast, budgets, realistic)) {
            long t0 = System.nanoTime();
            RowResult.Builder row = RowResult.of(
                    "4",
                    "Drain of one node, " + DrainBench.PODS + " pods, "
                            + (c.pdb() ? "PDB maxUnavailable 1 per Deployment" : "no PDB") + ", pods stop in "
                            + c.termination().toSeconds() + " s");
            // With pods stopping in 1 s and no PDB each variant runs alone (they are CPU-bound on 2 cores); otherwise
            // every variant mostly waits (the 5 s eviction retry delay, the grace period), so they run at once.
            List<DrainBench.Timing> timings;
            boolean concurrent = c != fast || quick;
            if (concurrent) {
                timings = DrainBench.timeConcurrently(variants, c);
            } else {
                timings = new ArrayList<>();
                for (DrainBench.Variant v : variants) {
                    timings.add(DrainBench.time(v, c));
                }
            }
            for (int i = 0; i < variants.size(); i++) {
                row.measure(
                                variants.get(i).label(),
                                "time to drained",
                                timings.get(i).drainedSeconds(),
                                "s")
                        .measure(
                                variants.get(i).label(),
                                "time to last eviction sent",
                                timings.get(i).lastEvictionSeconds(),
                                "s");
            }
            if (c == fast) {
                row.measure(
                        "emulator floor",
                        DrainBench.PODS + " sequential evictions (grace 0)",
                        DrainBench.floorSeconds(),
                        "s");
            }
            if (DrainBench.kubectlPresent()) {
                DrainBench.Timing kubectl = timings.get(labels(variants).indexOf(DrainBench.KUBECTL_DRAIN));
                DrainBench.Timing tenure = timings.get(labels(variants).indexOf(DrainBench.TENURE_DEFAULTS));
                row.ratio(
                                kubectl.drainedSeconds() / tenure.drainedSeconds(),
                                "kubectl drain time / Tenure (defaults) time")
                        .note(String.format(
                                Locale.ROOT,
                                "last eviction sent: kubectl %.1f s, Tenure %.1f s (%.0fx); the time to "
                                        + "drained adds the pods' own stopping time, the same for both",
                                kubectl.lastEvictionSeconds(),
                                tenure.lastEvictionSeconds(),
                                kubectl.lastEvictionSeconds() / tenure.lastEvictionSeconds()));
            } else {
                row.note("kubectl drain: skipped, " + DrainBench.KUBECTL + " is absent");
            }
            row.note(DrainBench.DEPLOYMENTS + " Deployments x " + DrainBench.PODS_PER_DEPLOYMENT
                            + " pods on one node, each pod "
                            + "terminating " + c.termination().toSeconds()
                            + " s after its eviction; time = first API call to all "
                            + "pods gone (both include the cordon; Tenure also takes its node lease); last eviction sent = first API "
                            + "call to the last eviction request the API server received")
                    .note(
                            "Tenure = MaintenanceMachine driven directly (no Quarkus), honouring each step's requeueAfter as the "
                                    + "reconciler does: one batch of eviction-parallelism evictions per step, the next batch at once, then "
                                    + "looks at the terminating pods after 250 ms, 500 ms, 1 s, then every drain-poll-interval (2 s)")
                    .note("one untimed Tenure drain ran first to warm the JIT (the operator is a long-running process)")
                    .note(
                            "kubectl drain --ignore-daemonsets --delete-emptydir-data --force via the emulator's kubeconfig; "
                                    + "kubectl is paced by client-go's client-side rate limit (5 requests/s)"
                                    + (c.pdb()
                                            ? "; both retry a PDB-refused eviction after 5 s (kubectl's fixed delay, Tenure's default "
                                                    + "evictionRetryDelay)"
                                            : "")
                                    + (concurrent ? "; variants ran concurrently on separate clusters" : ""));
            if (quick) {
                row.note("quick mode: the PDB and 30 s cases are skipped");
            }
            out.add(row.ok((System.nanoTime() - t0) / 1e9));
        }
        return out;
    }

    private List<RowResult> fleet() throws Exception {
        int nodes = quick ? 40 : 200;
        int pods = 30;
        int maintenances = quick ? 10 : 50;
        Duration termination = Duration.ofSeconds(2);
        long t0 = System.nanoTime();
        FleetBench bench = new FleetBench(nodes, pods, maintenances, termination);
        RowResult.Builder row = RowResult.of(
                "5", "Fleet: " + nodes + " nodes x " + pods + " pods, " + maintenances + " NodeMaintenances at once");
        String serialLabel = "serial, one node at a time (medik8s NMO model)";
        String tenureLabel = "Tenure (" + maintenances + " reconcile threads, all at once)";
        FleetBench.Result serial = bench.serial(Duration.ofMinutes(15));
        FleetBench.Result parallel = bench.concurrent(maintenances, Duration.ofMinutes(3));
        Map<String, FleetBench.Result> results = new LinkedHashMap<>();
        results.put(serialLabel, serial);
        results.put(tenureLabel, parallel);
        for (var e : results.entrySet()) {
            FleetBench.Result r = e.getValue();
            row.measure(e.getKey(), "time to all settled", r.seconds(), "s")
                    .measure(e.getKey(), "API requests", (double) r.requests(), "")
                    .measure(
                            e.getKey(),
                            "API requests per evicted pod",
                            r.requests() / (double) (maintenances * pods),
                            "")
                    .measure(e.getKey(), "peak heap growth", r.peakHeapMiB(), "MiB")
                    .measure(e.getKey(), "Succeeded", r.succeeded(), "")
                    .measure(e.getKey(), "Failed", r.failed(), "");
        }
        row.measure(
                "emulator",
                "one spec.nodeName pod list (" + pods + " of " + nodes * pods + " pods), before the run",
                serial.listMillis(),
                "ms");
        return List.of(row.ratio(serial.seconds() / parallel.seconds(), "serial time / Tenure time")
                .note(nodes * pods + " pods, " + pods
                        + " on every node (one Deployment per node); the maintenances drain "
                        + maintenances + " of the nodes (" + maintenances * pods + " evictions); pods terminate in "
                        + termination.toSeconds() + " s after their eviction (a grace period of seconds)")
                .note(
                        "serial = medik8s NMO's model: its one reconcile thread runs kubectl's drain helper for one node to "
                                + "the end, then takes the next; here the same MaintenanceMachine is driven to Succeeded node after node "
                                + "on one thread (the same per-node drain as Tenure's, only serialised: never slower per node than NMO)")
                .note(
                        "Tenure = MaintenanceMachine instances driven by a scheduled pool standing in for JOSDK's reconcile "
                                + "threads (one per maintenance; quarkus-operator-sdk's default pool is 50), not the full Quarkus app; one shared "
                                + "eviction pool of 10; defaults otherwise (eviction-parallelism 10, drain-poll-interval 2 s)")
                .note(
                        "peak heap growth = peak used heap of the bench JVM during the run minus the used heap after a GC "
                                + "before it; the emulated API server is in the same JVM, so this bounds the machine's own cost from above")
                .note("API requests = every request the emulated API server received during the run (the simulated "
                        + "kubelets write its store directly, so these are the maintenances' own)")
                .note(
                        "emulated cluster: CRUD store indexed by resource, name and spec.nodeName; simulated kubelets renew "
                                + "node leases every 10 s (the kubelet's interval)")
                .ok((System.nanoTime() - t0) / 1e9));
    }

    private static String startTimes(Map<String, List<FootprintBench.Result>> results) {
        return results.entrySet().stream()
                .map(e -> e.getKey() + " "
                        + e.getValue().stream()
                                .map(r -> String.format(Locale.ROOT, "%.2f", r.secondsToReady()))
                                .collect(Collectors.joining(", "))
                        + " s")
                .collect(Collectors.joining("; "));
    }

    private static List<String> labels(List<DrainBench.Variant> variants) {
        return variants.stream().map(DrainBench.Variant::label).toList();
    }

    private List<RowResult> footprint() throws Exception {
        RowResult.Builder row = RowResult.of("6", "Operator footprint (packaged jar, JVM mode)");
        if (!FootprintBench.jarPresent()) {
            return List.of(
                    row.skipped(FootprintBench.JAR + " is absent: run ./mvnw package -DskipTests (make bench does)"));
        }
        long t0 = System.nanoTime();
        Duration settle = Duration.ofSeconds(quick ? 3 : 10);
        // five starts each: one start's time to ready varies by +-0.3 s on two cores (JIT, GC and the emulator share
        // them)
        int trials = quick ? 1 : 5;
        FootprintBench.Launcher here = FootprintBench.Launcher.thisJdk();
        Optional<Path> jdk25 = FootprintBench.imageJdk();
        String limit = FootprintBench.CONTAINER_LIMIT;
        // subject -> (launcher, flags); the image's own run needs its JDK and a cache trained by that JDK
        Map<String, Map.Entry<FootprintBench.Launcher, List<String>>> subjects = new LinkedHashMap<>();
        subjects.put(DEFAULT_FLAGS, Map.entry(here, List.of()));
        subjects.put(APPCDS_FLAGS, Map.entry(here, with(limit, FootprintBench.appCdsFlags())));
        double training = 0;
        if (jdk25.isPresent()) {
            FootprintBench.Launcher image = FootprintBench.Launcher.jdk(jdk25.get());
            training = AotTraining.train(image);
            subjects.put(
                    IMAGE_FLAGS,
                    Map.entry(image, with(limit, FootprintBench.imageFlags(image.path(FootprintBench.AOT_CACHE)))));
        }
        // alternated, so every flag set sees the same machine load; the median of each
        Map<String, List<FootprintBench.Result>> results = new LinkedHashMap<>();
        for (int i = 0; i < trials; i++) {
            for (var subject : subjects.entrySet()) {
                results.computeIfAbsent(subject.getKey(), k -> new ArrayList<>())
                        .add(FootprintBench.run(
                                settle,
                                subject.getValue().getKey(),
                                subject.getValue().getValue()));
            }
        }
        String settled = "RSS after " + settle.toSeconds() + " s";
        results.forEach((subject, rs) -> row.measure(
                        subject, "time to ready", median(rs, FootprintBench.Result::secondsToReady), "s")
                .measure(subject, "RSS at ready", median(rs, FootprintBench.Result::rssAtReadyMiB), "MiB")
                .measure(subject, settled, median(rs, FootprintBench.Result::rssSettledMiB), "MiB")
                .measure(subject, "peak RSS (VmHWM)", median(rs, FootprintBench.Result::hwmMiB), "MiB"));
        String best = results.containsKey(IMAGE_FLAGS) ? IMAGE_FLAGS : APPCDS_FLAGS;
        row.ratio(
                        median(results.get(DEFAULT_FLAGS), FootprintBench.Result::secondsToReady)
                                / median(results.get(best), FootprintBench.Result::secondsToReady),
                        "time to ready with default flags / with the image's (" + best + ")")
                .note(
                        "java -jar target/quarkus-app/quarkus-run.jar pointed at an emulated cluster seeded with the make-run "
                                + "demo and the generated CRDs; time = process start to /q/health/ready 200; RSS from "
                                + "/proc/<pid>/status; median of " + trials + " alternated starts per subject")
                .note("each start's time to ready, in order: " + startTimes(results))
                .note("default JVM flags: none, on this JDK (" + Runtime.version() + "; heap sized from this 24 GiB "
                        + "machine). JDK 17 + AppCDS: the previous image's flags "
                        + String.join(" ", FootprintBench.appCdsFlags()) + " (archive from package). "
                        + "Both image subjects run under " + limit + ", standing in for the Deployment's memory limit");
        if (jdk25.isPresent()) {
            row.note("image: src/main/docker/Dockerfile.jvm's JAVA_OPTS "
                    + String.join(" ", FootprintBench.imageFlags("app.aot")) + " on " + jdk25.get()
                    + " (the image's JDK 25), with the AOT cache from a training run of " + Math.round(training)
                    + " s (boot, lead, one NodeMaintenance through drain and undo, SIGTERM) by that JDK");
        } else {
            row.note("image subject not measured: no JDK 25 here (set TENURE_IMAGE_JDK to one)");
        }
        return List.of(row.note("no peer figure: medik8s' operator is Go and not runnable here")
                .ok((System.nanoTime() - t0) / 1e9));
    }

    static final String DEFAULT_FLAGS = "Tenure, default JVM flags";
    static final String APPCDS_FLAGS = "Tenure, JDK 17 + AppCDS + image sizing flags (previous image)";
    static final String IMAGE_FLAGS = "Tenure, image: JDK 25 + AOT cache + image flags";

    private static List<String> with(String first, List<String> rest) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(rest);
        return all;
    }

    /** Row 7: the cost curve as the cluster grows; as far as the emulator holds, and where it stops, said. */
    /** Row 8 (issue 25): API writes of idle Succeeded maintenances, per maintenance per hour. */
    private List<RowResult> idleWrites() throws Exception {
        RowResult.Builder row = RowResult.of("8", "Idle maintenances: API writes per NodeMaintenance per hour");
        if (!FootprintBench.jarPresent()) {
            return List.of(
                    row.skipped(FootprintBench.JAR + " is absent: run ./mvnw package -DskipTests (make bench does)"));
        }
        long t0 = System.nanoTime();
        int n = Integer.getInteger("tenure.bench.idle.maintenances", quick ? 50 : 200);
        Duration idle = Duration.ofSeconds(quick ? 60 : 180);
        // past the first look after Succeeded (renewEvery, 20 s), which writes the long idle lease: steady state only
        Duration settle = Duration.ofSeconds(30);
        String idleFlag = "-Dtenure.maintenance.lease.idle-duration=";
        // the defaults renew every 15 min, past any window here: the same mechanism with the idle lease scaled down
        // to 2 min (renewed every minute) is measured, and its rate scaled by 2 min / 30 min to the default's
        Duration scaledIdle = Duration.ofMinutes(2);
        IdleWritesBench.Result scaled =
                IdleWritesBench.run(n, settle, idle, List.of(idleFlag + scaledIdle.toSeconds() + "s"));
        IdleWritesBench.Result r = IdleWritesBench.run(n, settle, idle);
        // before issue 52 item 7: the same operator with the idle lease off (60 s lease, heartbeat every 15 s)
        IdleWritesBench.Result before = IdleWritesBench.run(n, settle, idle, List.of(idleFlag + "0"));
        double toDefault = scaledIdle.toSeconds() / (double) MaintenanceSettings.IDLE_LEASE.toSeconds();
        String s = "Tenure, " + n + " idle maintenances";
        String sBefore = "idle lease off (before issue 52), " + n + " idle maintenances";
        String sScaled = "idle lease 2 min (scaled), " + n + " idle maintenances";
        row.measure(s, "NodeMaintenance writes (status included)", r.perMaintenancePerHour(r.maintenanceWrites()), "/h")
                .measure(s, "node Lease writes (renewals)", r.perMaintenancePerHour(r.nodeLeaseWrites()), "/h")
                .measure(
                        s,
                        "node Lease writes, from the scaled run × 2/30",
                        scaled.perMaintenancePerHour(scaled.nodeLeaseWrites()) * toDefault,
                        "/h")
                .measure(s, "NodeMaintenance writes in the window", (double) r.maintenanceWrites(), "")
                .measure(s, "node Lease writes in the window", (double) r.nodeLeaseWrites(), "")
                .measure(
                        s,
                        "operator Lease writes (one per install)",
                        r.operatorLeaseWrites() / r.idleSeconds() * 3600,
                        "/h")
                .measure(s, "time to all Succeeded", r.secondsToSucceeded(), "s")
                .measure(
                        sScaled,
                        "node Lease writes (renewals)",
                        scaled.perMaintenancePerHour(scaled.nodeLeaseWrites()),
                        "/h")
                .measure(sScaled, "node Lease writes in the window", (double) scaled.nodeLeaseWrites(), "")
                .measure(
                        sBefore,
                        "node Lease writes (renewals)",
                        before.perMaintenancePerHour(before.nodeLeaseWrites()),
                        "/h")
                .measure(sBefore, "node Lease writes in the window", (double) before.nodeLeaseWrites(), "")
                .note("the packaged operator with its defaults (node lease 60 s while acting, renewed by its heartbeat"
                        + " every 15 s; 30 min while idle, renewed every 15 min; operator lease "
                        + "renewed every 2 s); " + n
                        + " nodes without pods, one NodeMaintenance each, all Succeeded, "
                        + "then " + settle.toSeconds() + " s of settling (the first idle look writes the long"
                        + " lease) and an idle window of " + Math.round(r.idleSeconds()) + " s")
                .note("the default renews every 15 min, so a short window sees no renewal: the scaled run (idle lease"
                        + " 2 min, renewed every min) measures the same mechanism, and its rate × 2/30 is the default's;"
                        + " before = tenure.maintenance.lease.idle-duration=0, the behaviour before issue 52 item 7")
                .note("writes = POST/PUT/PATCH/DELETE in the emulated API server's request log; node Lease writes "
                        + "exclude the kubelets' own in kube-node-lease; the goal is 0 NodeMaintenance writes and at"
                        + " most 4 node Lease writes an hour")
                .note("no peer figure: before issue 25 every idle maintenance rewrote its status at each renewal "
                        + "(QuietStatusIT counts it on the old code)");
        return List.of(row.ok((System.nanoTime() - t0) / 1e9));
    }

    /**
     * Row 16 (issue 49 item 5): API requests per queued NodeMaintenance per queue look, and per draining one. The quick
     * run is small (50 nodes, 1 draining of 2 pods, 5 queued, a 3 s window): the look's requests do not depend on the
     * node count (it reads caches), only the old models' GET and LIST are measured at it; most of a quick run's time
     * is the setup's fixed cost (the emulated API server's start, the CRD generated from the API types, the operator's
     * start), then the drain.
     */
    private List<RowResult> queueRequests() throws Exception {
        long t0 = System.nanoTime();
        int nodes = Integer.getInteger("tenure.bench.queue.nodes", quick ? 50 : 1000);
        int queued = Integer.getInteger("tenure.bench.queue.queued", quick ? 5 : 100);
        int draining = quick ? 1 : 10;
        int pods = quick ? 2 : 10;
        Duration look = Duration.ofSeconds(quick ? 1 : 2);
        Duration window = Duration.ofSeconds(quick ? 3 : 20);
        QueueBench.Result r = QueueBench.run(nodes, draining, queued, pods, look, window);
        if (r.nodeLists() > 0 || r.nodeGets() > 0) {
            throw new IllegalStateException(r.nodeLists() + " Node LISTs and " + r.nodeGets()
                    + " GETs of a queued request's Node while " + queued + " requests were queued");
        }
        if (r.looks() == 0) {
            throw new IllegalStateException("no look at a queued request in the window: nothing was measured");
        }
        RowResult.Builder row = RowResult.of(
                "16",
                "API requests per queued NodeMaintenance per look and per draining one (" + nodes + " nodes, " + queued
                        + " queued)");
        String q = "Tenure, queued (shared Node cache)";
        String before = "before 278c0fe: a GET of its Node per look";
        String old = "before c8d4c07: a GET of its Node and a LIST of every Node per look";
        String d = "Tenure, draining";
        double perLook = r.requestsPerLook();
        row.measure(q, "API requests per queued NodeMaintenance per look", perLook, "")
                .measure(q, "Node GETs during the looks", (double) r.nodeGets(), "")
                .measure(q, "Node LISTs during the looks", (double) r.nodeLists(), "")
                .measure(q, "looks measured", (double) r.looks(), "")
                .measure(before, "API requests per look", perLook + 1, "")
                .measure(before, "response bytes of the Node GET added per look", (double) r.nodeGetBytes(), "B")
                .measure(before, "time of that GET (median of 5)", r.nodeGetMillis(), "ms")
                .measure(old, "API requests per look", perLook + 2, "")
                .measure(old, "response bytes of the Node LIST added per look", (double) r.nodeListBytes(), "B")
                .measure(old, "time of that LIST (median of 5)", r.nodeListMillis(), "ms")
                .measure(
                        d,
                        "API requests per draining NodeMaintenance (creation to Succeeded)",
                        r.requestsPerDrain(),
                        "")
                .measure(d, "evictions per draining NodeMaintenance", r.evictions() / (double) r.draining(), "")
                .measure(d, "time to all Succeeded", r.drainSeconds(), "s");
        // Tenure's figure is 0 per look since 278c0fe: a ratio to it is undefined (the row shows none then, and says
        // so)
        return List.of(row.ratio((perLook + 2) / perLook, "requests per look before c8d4c07 / Tenure's")
                .note(String.format(
                        Locale.ROOT,
                        "API requests per look: Tenure %.2f, before 278c0fe %.2f (its Node GET), before c8d4c07 %.2f"
                                + " (that GET and a LIST of every Node)%s",
                        perLook,
                        perLook + 1,
                        perLook + 2,
                        perLook == 0 ? "; no ratio: Tenure's figure is 0" : ""))
                .note(
                        "the NodeMaintenance door as the operator runs it (MaintenanceOperatorRig: the reconciler in JOSDK,"
                                + " the shared Node cache, the machine), max-nodes-in-maintenance " + draining + "; "
                                + draining + " draining NodeMaintenance(s), " + pods + " pods each, then " + queued
                                + " queued, each looked at every " + look.toSeconds()
                                + " s (the backstop look, shortened)")
                .note("looks counted by JOSDK's reconcile executions of the queued requests over "
                        + String.format(Locale.ROOT, "%.1f", r.windowSeconds())
                        + " s; requests by the emulator's request log"
                        + " (operator only), those naming a queued request or its node, or no object, by kind: "
                        + r.lookRequestsByKind() + "; " + r.heldRequests() + " more named the maintenances holding"
                        + " the cap (their nodes, Leases), not the queue")
                .note(
                        "old models: NodeMaintenanceReconciler.view before c8d4c07 GOT the request's Node and LISTed every"
                                + " Node from the API server at each look of a queued request (a cap set, a control-plane node,"
                                + " or requests ahead); before 278c0fe it still GOT the Node; that GET and LIST are measured"
                                + " here at " + nodes + " nodes, the rest of the look taken as Tenure's")
                .note(String.format(
                        Locale.ROOT,
                        "time: setup %.1f s (%d nodes seeded, the operator started), drain %.1f s, queueing %.1f s,"
                                + " window %.1f s",
                        r.setupSeconds(),
                        nodes,
                        r.drainSeconds(),
                        r.queueSeconds(),
                        r.windowSeconds()))
                .note(String.format(
                        Locale.ROOT,
                        "the NodeMaintenance CRD stored: %s, %.2f s of the setup",
                        MaintenanceOperatorRig.crd().source().description,
                        MaintenanceOperatorRig.crd().seconds()))
                .ok((System.nanoTime() - t0) / 1e9));
    }

    /** Row 15 (issue 52): a pool rolled by one NodeMaintenanceRollout against a script over NodeMaintenances. */
    private List<RowResult> rollout() throws Exception {
        RowResult.Builder row = RowResult.of("15", "Pool rollout: one NodeMaintenanceRollout vs a serial script");
        if (!FootprintBench.jarPresent()) {
            return List.of(
                    row.skipped(FootprintBench.JAR + " is absent: run ./mvnw package -DskipTests (make bench does)"));
        }
        long t0 = System.nanoTime();
        int nodes = Integer.getInteger("tenure.bench.rollout.nodes", quick ? 40 : 200);
        int pods = Integer.getInteger("tenure.bench.rollout.pods", quick ? 10 : 30);
        int sample = quick ? 4 : 10;
        RolloutBench.Result r = RolloutBench.run(nodes, pods, "10%", sample);
        String rolled = "Tenure NodeMaintenanceRollout, maxUnavailable 10%";
        String script = "serial script over NodeMaintenances";
        row.measure(rolled, "time to Complete", r.rolloutSeconds(), "s")
                .measure(rolled, "operator API requests per node", r.requestsPerNode(), "")
                .measure(rolled, "nodes done", r.done(), "")
                .measure(rolled, "evictions", (double) r.evictions(), "")
                .measure(script, "time per node (measured)", r.serialSecondsPerNode(), "s")
                .measure(script, "time for the pool (per node x " + nodes + ")", r.serialSecondsScaled(), "s")
                .measure(script, "operator API requests per node", r.serialRequestsPerNode(), "")
                .ratio(r.serialSecondsScaled() / r.rolloutSeconds(), "serial script time / rollout time");
        return List.of(row.note(nodes + " nodes x " + pods + " pods (a Deployment per node, pods stop "
                        + RolloutBench.POD_STOP.toSeconds() + " s after eviction), the packaged operator with its "
                        + "defaults; done when rebooted: the bench reboots a node once its NodeMaintenance has "
                        + "drained it, Ready again " + RolloutBench.REBOOT.toSeconds() + " s later")
                .note("the script: create a NodeMaintenance, wait Succeeded, reboot, wait Ready, delete it, wait "
                        + "until it is gone and the node uncordoned; measured on " + sample + " other nodes of the "
                        + "same cluster before the rollout, scaled linearly (a script's nodes never overlap)")
                .note("10% of " + nodes + " is " + Math.max(1, nodes / 10) + " at once; the ideal ratio is about "
                        + Math.max(1, nodes / 10) + " less the rollout's batch overhead")
                .note("requests = every request the emulated API server logged but the bench's own and the "
                        + "kubelets' lease renewals, over the rollout's time (informer resyncs and the operator "
                        + "Lease included)")
                .ok((System.nanoTime() - t0) / 1e9));
    }

    /** Row 9 (issue 25): the webhook's CREATE review at 5,000 nodes, API reads against the caches. */
    private List<RowResult> admission() throws Exception {
        long t0 = System.nanoTime();
        int nodes = Integer.getInteger("tenure.bench.admission.nodes", 5000);
        int trials = quick ? 10 : 50;
        AdmissionBench.Result r = AdmissionBench.run(nodes, 50, trials);
        RowResult.Builder row = RowResult.of("9", "Admission: NodeMaintenance CREATE review at " + nodes + " nodes");
        for (var e :
                List.of(Map.entry("API reads (before issue 25)", r.api()), Map.entry("Tenure caches", r.cached()))) {
            row.measure(e.getKey(), "p50 review", e.getValue().medianMillis(), "ms")
                    .measure(e.getKey(), "p99 review", e.getValue().p99Millis(), "ms")
                    .measure(e.getKey(), "reviews", e.getValue().count(), "")
                    .measure(
                            e.getKey(),
                            "reviews past the 10 s timeout (refused: fail-closed)",
                            e.getValue().failures(),
                            "");
        }
        if (r.api().count() > 0) {
            row.ratio(r.api().medianMillis() / r.cached().medianMillis(), "API reads p50 / cache p50");
        }
        row.note(nodes + " realistic Nodes (40 images with digests each, as row 7) and " + r.maintenances()
                        + " NodeMaintenances; " + trials + " reviews per path after a warm-up, alternated; the "
                        + "operator client's 10 s request timeout is the webhook's timeout")
                .note("timed: the review's reads and rules (NodeMaintenanceWebhook.reviewOfCreate) for a worker "
                        + "node; the HTTP round trip and the SubjectAccessReviews are the same on both paths and "
                        + "not included")
                .note("API reads = the same code before its caches sync: GET the Node, LIST all Nodes (the "
                        + "annotation door's holds), LIST all NodeMaintenances, as every review did before issue 25");
        return List.of(row.ok((System.nanoTime() - t0) / 1e9));
    }

    private List<RowResult> scale() throws Exception {
        RowResult.Builder row = RowResult.of("7", "Scale: idle operator cost as nodes grow (packaged jar)");
        if (!FootprintBench.jarPresent()) {
            return List.of(
                    row.skipped(FootprintBench.JAR + " is absent: run ./mvnw package -DskipTests (make bench does)"));
        }
        long t0 = System.nanoTime();
        // -Dtenure.bench.scale.sizes=5000 measures one size alone (a targeted comparison, not the curve)
        String only = System.getProperty("tenure.bench.scale.sizes");
        List<Integer> sizes = only != null
                ? Arrays.stream(only.split(","))
                        .map(String::trim)
                        .map(Integer::valueOf)
                        .toList()
                : quick ? List.of(200) : List.of(500, 2000, 5000);
        int podsPerNode = Integer.getInteger("tenure.bench.scale.pods", 30);
        Duration idle = Duration.ofSeconds(quick ? 15 : 60);
        List<ScaleBench.Point> points = new ArrayList<>();
        String stoppedAt = null;
        for (int n : sizes) {
            try {
                ScaleBench.Point p = ScaleBench.run(n, podsPerNode, idle);
                points.add(p);
                String s = n + " nodes";
                row.measure(s, "operator heap after GC", p.heapAfterGcMiB(), "MiB")
                        .measure(s, "operator RSS", p.rssMiB(), "MiB")
                        .measure(s, "operator CPU while idle", p.cpuSecondsPerMinute(), "s/min")
                        .measure(s, "watch events to the operator while idle", p.watchEventsPerSecond(), "1/s")
                        .measure(
                                s,
                                "kubelet lease writes in the cluster (filtered out)",
                                p.kubeletLeaseWritesPerSecond(),
                                "1/s")
                        .measure(s, "operator time to ready", p.secondsToReady(), "s")
                        .measure(s, "seeding " + p.pods() + " pods and the nodes", p.seedSeconds(), "s");
            } catch (Exception | OutOfMemoryError e) {
                stoppedAt = n + " nodes: " + e;
                break;
            }
        }
        if (points.size() >= 2) {
            ScaleBench.Point first = points.get(0);
            ScaleBench.Point last = points.get(points.size() - 1);
            row.ratio(
                    last.heapAfterGcMiB() / first.heapAfterGcMiB(),
                    "heap after GC at " + last.nodes() + " nodes / at " + first.nodes() + " ("
                            + (last.nodes() / first.nodes()) + "x the nodes)");
        }
        row.note(
                        "realistic Nodes (40 images with digests, 4 conditions, addresses, capacity, node info), "
                                + podsPerNode
                                + " pods on every node, 5 leader-elected workloads with 3 LeaseCandidates each "
                                + "(MaintenanceAware); simulated kubelets renew every node's Lease in kube-node-lease every 10 s")
                .note("the packaged operator with default JVM flags, idle " + idle.toSeconds() + " s after it is ready "
                        + "and 10 s of settling; heap = used after jcmd GC.run (GC.heap_info); CPU from /proc/<pid>/stat; "
                        + "watch events = WebSocket messages the emulated API server sent while idle")
                .note("no peer figure: medik8s' operator is Go and not runnable here");
        if (stoppedAt != null) {
            row.note("stopped at " + stoppedAt);
        }
        return List.of(row.ok((System.nanoTime() - t0) / 1e9));
    }

    /**
     * Row 10 (issue 29): the same pods drained unordered and in waves, alternated on fresh identical clusters; what
     * the machine adds per wave beyond the pods' own stopping time, against one drain-poll-interval.
     */
    private List<RowResult> orderedDrain() throws Exception {
        long t0 = System.nanoTime();
        Duration termination = DrainBench.TERMINATION;
        Duration poll = Duration.ofSeconds(2);
        OrderedDrainBench bench =
                new OrderedDrainBench(DrainBench.DEPLOYMENTS, DrainBench.PODS_PER_DEPLOYMENT, termination, poll);
        List<Integer> waveCounts = List.of(3, DrainBench.DEPLOYMENTS);
        int trials = quick ? 1 : 3;
        bench.unordered(); // untimed: warms the JIT, as row 4 does
        List<Double> unordered = new ArrayList<>();
        Map<Integer, List<Double>> ordered = new LinkedHashMap<>();
        for (int t = 0; t < trials; t++) {
            unordered.add(bench.unordered());
            for (int w : waveCounts) {
                ordered.computeIfAbsent(w, k -> new ArrayList<>()).add(bench.ordered(w));
            }
        }
        double base = medianOf(unordered);
        RowResult.Builder row = RowResult.of(
                "10",
                "Ordered drain vs unordered, the same " + bench.pods() + " pods, pods stop in "
                        + termination.toSeconds() + " s");
        row.measure("Tenure, unordered (no rules)", "time to drained", base, "s");
        double worst = 0;
        for (var e : ordered.entrySet()) {
            int waves = e.getKey();
            double time = medianOf(e.getValue());
            double perWave = (time - base) / (waves - 1);
            double overhead = perWave - termination.toMillis() / 1000.0;
            worst = Math.max(worst, overhead / (poll.toMillis() / 1000.0));
            String s = "Tenure, " + waves + " waves (one rule per wave)";
            row.measure(s, "time to drained", time, "s")
                    .measure(s, "extra time per added wave", perWave, "s")
                    .measure(s, "of it beyond the pods' own stopping time", overhead, "s")
                    .measure(s, "that, in drain-poll-intervals", overhead / (poll.toMillis() / 1000.0), "");
        }
        // worst is in polls; a wave costing nothing beyond its pods' stopping time would divide by zero (0.005 polls
        // = 10 ms, below what is measured)
        return List.of(row.ratio(
                        1 / Math.max(worst, 0.005),
                        "drain-poll-interval (" + poll.toSeconds() + " s) / worst per-wave cost beyond the pods' "
                                + "stopping time; above 1 = within one extra poll per wave")
                .note(DrainBench.DEPLOYMENTS + " Deployments x " + DrainBench.PODS_PER_DEPLOYMENT
                        + " pods on one node, each pod stopping " + termination.toSeconds()
                        + " s after its eviction; waves by spec.drain.rules (Deployment d in wave d*W/"
                        + DrainBench.DEPLOYMENTS + "); the same machine and defaults otherwise (eviction-parallelism "
                        + "10, drain-poll-interval " + poll.toSeconds() + " s)")
                .note("extra time per added wave = (ordered - unordered) / (waves - 1); an ordered drain must wait "
                        + "for each wave's pods to stop (" + termination.toSeconds() + " s here) before the next, so "
                        + "what the machine itself adds per wave is the extra time minus that")
                .note("median of " + trials + " alternated run(s) per subject, each on a fresh emulated cluster; "
                        + "one untimed unordered drain first warms the JIT; unordered runs: " + fmtList(unordered)
                        + " s; ordered: "
                        + ordered.entrySet().stream()
                                .map(e -> e.getKey() + " waves " + fmtList(e.getValue()) + " s")
                                .collect(Collectors.joining("; ")))
                .ok((System.nanoTime() - t0) / 1e9));
    }

    /** Row 11 (issue 28): a drain paced by PDBs on the living cluster, against the same pods without PDBs. */
    private List<RowResult> pdbDrain() throws Exception {
        long t0 = System.nanoTime();
        int deployments = quick ? 4 : DrainBench.DEPLOYMENTS;
        int perDeployment = quick ? 5 : DrainBench.PODS_PER_DEPLOYMENT;
        Duration readiness = Duration.ofSeconds(1);
        PdbDrainBench bench = new PdbDrainBench(deployments, perDeployment, DrainBench.TERMINATION, readiness);
        PdbDrainBench.Result without = bench.run(false);
        PdbDrainBench.Result with = bench.run(true);
        Optional<PdbDrainBench.Result> kubectl =
                DrainBench.kubectlPresent() ? Optional.of(bench.run(true, true)) : Optional.empty();
        double floor = bench.floorSeconds();
        RowResult.Builder row = RowResult.of(
                "11",
                "Drain of " + bench.pods() + " pods on a living cluster, PDB maxUnavailable 1 per Deployment vs none");
        Map<String, PdbDrainBench.Result> subjects = new LinkedHashMap<>();
        subjects.put("Tenure, no PDB", without);
        subjects.put("Tenure, PDB maxUnavailable 1", with);
        kubectl.ifPresent(k -> subjects.put("kubectl drain, PDB maxUnavailable 1", k));
        row.measure("floor (the pods' timings)", "time to drained", floor, "s");
        for (var e : subjects.entrySet()) {
            row.measure(e.getKey(), "time to drained", e.getValue().drainedSeconds(), "s")
                    .measure(
                            e.getKey(),
                            "eviction requests (refused ones included)",
                            (double) e.getValue().evictionRequests(),
                            "")
                    .measure(
                            e.getKey(),
                            "replacement pods Ready at the end",
                            e.getValue().replacementsReady(),
                            "");
            if (!e.getKey().contains("no PDB")) {
                row.measure(e.getKey(), "time / floor", e.getValue().drainedSeconds() / floor, "x");
            }
            if (e.getKey().startsWith("Tenure, PDB")) {
                row.measure(
                        e.getKey(),
                        "drain steps woken by a budget's change",
                        (double) e.getValue().budgetWakeUps(),
                        "");
            }
        }
        return List.of(row.ratio(
                        with.drainedSeconds() / floor,
                        "Tenure's time with the PDBs / the floor the pods' timings allow (goal <= 1.5)")
                .note(deployments + " Deployments x " + perDeployment + " pods on node w1 of a living emulated "
                        + "cluster (ReplicaSets replace evicted pods, the scheduler binds them to w2/w3, a bound pod "
                        + "is Ready " + readiness.toSeconds() + " s later); pods stop "
                        + DrainBench.TERMINATION.toSeconds() + " s after their eviction")
                .note("floor = (" + perDeployment + " - 1) x " + readiness.toSeconds() + " s readiness + "
                        + DrainBench.TERMINATION.toSeconds() + " s termination = " + floor + " s: one eviction per "
                        + "Deployment per replacement-ready time, the Deployments side by side, the last pod then "
                        + "stopping; the controllers' reaction times (ReplicaSet, scheduler, disruption controller, "
                        + "200 ms ticks each) are not in it")
                .note("Tenure = MaintenanceMachine driven directly with its defaults and, as the operator, woken "
                        + "by its PodDisruptionBudget watch when a budget that refused an eviction admits one again "
                        + "(issue 51); evictionRetryDelay 5 s is only the fallback. kubectl drain retries a refused "
                        + "eviction every 5 s"
                        + (kubectl.isPresent() ? "" : " (not measured: " + DrainBench.KUBECTL + " not found)"))
                .ok((System.nanoTime() - t0) / 1e9));
    }

    /** Row 12 (issue 25): /q/metrics series before and after 1,000 NodeMaintenance create/delete cycles. */
    /**
     * Row 13: one node's placement forecast at 5,000 nodes / 150,000 pods ({@link ForecastBench}), in this JVM; quick
     * mode measures the same size with fewer repeats ({@code -Dtenure.bench.forecast.nodes} and {@code .pods} change
     * it).
     */
    private List<RowResult> placementForecast() {
        long t0 = System.nanoTime();
        int nodes = Integer.getInteger("tenure.bench.forecast.nodes", 5000);
        int podsPerNode = Integer.getInteger("tenure.bench.forecast.pods", 30);
        int repeats = quick ? 3 : 9;
        ForecastBench.Result r = ForecastBench.run(nodes, podsPerNode, repeats);
        if (nodes >= 5000 && podsPerNode >= 30 && r.operatorPath().peakMiB() > ForecastBench.BOUND_MIB) {
            // issue 49 item 5: the forecast's view stays within row 7's budget at 5,000 nodes / 150,000 pods
            throw new IllegalStateException("the forecast's view took " + r.operatorPath()
                    + " MiB after GC at the forecast's peak, above the bound of " + ForecastBench.BOUND_MIB + " MiB");
        }
        String s = "Tenure, " + r.nodes() + " nodes / " + r.pods() + " pods";
        return List.of(RowResult.of("13", "Placement forecast of one node's drain (" + r.evicted() + " pods)")
                .measure(s, "forecast (9 filters, every node)", r.forecastMillis(), "ms")
                .measure(s, "forecast, CPU time of its thread", r.forecastCpuMillis(), "ms")
                .measure(s, "building its view from the cached objects", r.buildMillis(), "ms")
                .measure(s, "building its view, CPU time", r.buildCpuMillis(), "ms")
                .measure(
                        s,
                        "operator's path, heap after GC: the trimmed Node cache",
                        r.operatorPath().nodeCacheMiB(),
                        "MiB")
                .measure(
                        s,
                        "operator's path, heap after GC: one forecast (Nodes read, its view of every pod)",
                        r.operatorPath().forecastMiB(),
                        "MiB")
                .measure(
                        s,
                        "operator's path, heap after GC: the two at the forecast's peak (goal <= 128)",
                        r.operatorPath().peakMiB(),
                        "MiB")
                .measure(
                        s,
                        "full objects, heap after GC: the Nodes and Pods as fabric8 decodes them",
                        r.objectsHeapMiB(),
                        "MiB")
                .measure(s, "full objects, heap after GC: a view on top of them", r.viewHeapMiB(), "MiB")
                .note("median of " + repeats + " runs each (the forecast changes its view: built again per run); "
                        + "verdicts " + r.verdicts() + "; in the bench JVM, not the operator")
                .note("objects as fabric8 holds them in full (a cache that trims them holds less); nodes without "
                        + "their image list; pods of 10-replica Deployments, 1 in 10 with a zone spread constraint, "
                        + "1 in 10 with a hostname anti-affinity, room on every node (every filter runs everywhere)")
                .ok((System.nanoTime() - t0) / 1e9));
    }

    /**
     * Row 14 (issue 49): a drain whose pods do not fit ({@link PlacementDrainBench}): Tenure with {@code
     * spec.drain.placement: Wait} answers in one reconcile and cordons nothing; Tenure's default and kubectl drain the
     * node and the living cluster leaves the pods that fit nowhere Pending.
     */
    private List<RowResult> placementDrain() throws Exception {
        long t0 = System.nanoTime();
        RowResult.Builder row = RowResult.of(
                "14",
                "Drain whose " + PlacementDrainBench.STUCK + " of "
                        + (PlacementDrainBench.FREE + PlacementDrainBench.STUCK)
                        + " pods fit no other node (living cluster)");
        PlacementDrainBench.WaitResult wait = PlacementDrainBench.tenureWait();
        if (wait.phase() != dev.tenure.maintenance.api.Phase.Pending
                || wait.cordoned()
                || wait.evictions() > 0
                || wait.stranded() != PlacementDrainBench.STUCK) {
            throw new IllegalStateException("Tenure Wait did not hold before the cordon: " + wait);
        }
        String w = "Tenure, placement Wait";
        row.measure(w, "one reconcile: Pending, why in status.placement", wait.reconcileMillis(), "ms")
                .measure(w, "the same, first in the JVM (class loading, JIT)", wait.firstReconcileMillis(), "ms")
                .measure(w, "API requests of that reconcile", (double) wait.requests(), "")
                .measure(w, "pods named stranded in status.placement", wait.stranded(), "")
                .measure(w, "node cordoned / evictions", (double) (wait.evictions() + (wait.cordoned() ? 1 : 0)), "");
        PlacementDrainBench.DrainResult warn = PlacementDrainBench.tenureWarn();
        row.measure("Tenure, default (Warn)", "time to drained", warn.seconds(), "s")
                .measure("Tenure, default (Warn)", "pods left Pending (Unschedulable)", (double) warn.pending(), "");
        if (DrainBench.kubectlPresent()) {
            PlacementDrainBench.DrainResult k = PlacementDrainBench.kubectl();
            row.measure(DrainBench.KUBECTL_DRAIN, "time to drained", k.seconds(), "s")
                    .measure(DrainBench.KUBECTL_DRAIN, "pods left Pending (Unschedulable)", (double) k.pending(), "");
        } else {
            row.note(DrainBench.KUBECTL + " absent: the kubectl drain variant was not run");
        }
        return List.of(row.note("Wait's first forecast message: " + wait.waitingFor())
                .note("node w1 holds " + PlacementDrainBench.FREE + " pods that fit on w2/w3 and "
                        + PlacementDrainBench.STUCK + " whose nodeSelector only w1 satisfies; Pending counted on the "
                        + "living cluster (ReplicaSets recreate evicted pods, the emulated scheduler binds or marks "
                        + "them PodScheduled=False Unschedulable), not taken from the forecast")
                .ok((System.nanoTime() - t0) / 1e9));
    }

    /**
     * Row 17 (issue 51): single-replica Deployments whose budgets allow no eviction ({@link SurgeDrainBench}): kubectl
     * drain and Tenure's Evict time out, Tenure's Surge drains with no second during which a workload had no Ready pod
     * and gives every replica back; a control without budgets shows the measure sees a single replica's eviction.
     */
    private List<RowResult> surgeDrain() throws Exception {
        long t0 = System.nanoTime();
        SurgeDrainBench bench = new SurgeDrainBench(
                Integer.getInteger("tenure.bench.surge.deployments", quick ? 10 : 30),
                quick ? Duration.ofSeconds(60) : Duration.ofMinutes(3),
                Duration.ofSeconds(1));
        Map<SurgeDrainBench.Arm, SurgeDrainBench.Result> results = new LinkedHashMap<>();
        for (SurgeDrainBench.Arm arm : SurgeDrainBench.Arm.values()) {
            if (arm == SurgeDrainBench.Arm.KUBECTL && !DrainBench.kubectlPresent()) {
                continue;
            }
            results.put(arm, bench.run(arm));
        }
        RowResult.Builder row = RowResult.of(
                "17",
                "Drain of " + bench.deployments() + " single-replica Deployments whose budgets allow no eviction "
                        + "(living cluster)");
        for (var e : results.entrySet()) {
            String s = e.getKey().label;
            SurgeDrainBench.Result r = e.getValue();
            row.measure(s, "drained (1) or timed out (0)", r.drained() ? 1 : 0, "")
                    .measure(s, r.drained() ? "time to drained" : "time to the timeout", r.seconds(), "s")
                    .measure(s, "seconds a Deployment had no Ready pod (sum)", r.unreadySeconds(), "s")
                    .measure(s, "Deployments ever without a Ready pod", r.workloadsWithoutReadyPod(), "")
                    .measure(s, "longest time one Deployment had no Ready pod", r.longestSeconds(), "s")
                    .measure(s, "evictions accepted", (double) r.evictionsAccepted(), "")
                    .measure(s, "evictions refused by a budget (429)", (double) r.evictionsRefused(), "")
                    .measure(s, "pod LISTs by spec.nodeName", (double) r.podListsByNode(), "")
                    .measure(s, "Deployment scale writes that took effect (Tenure)", (double) r.scaleWrites(), "")
                    .measure(s, "writes sent to a Deployment or ReplicaSet (Tenure)", (double) r.workloadWrites(), "")
                    .measure(s, "Deployments whose replicas differ from the original after", r.replicasChanged(), "");
        }
        List<String> wrong = SurgeDrainBench.verdict(results, bench.deployments());
        if (!wrong.isEmpty()) {
            throw new IllegalStateException("row 17: " + String.join("; ", wrong));
        }
        if (!results.containsKey(SurgeDrainBench.Arm.KUBECTL)) {
            row.note(DrainBench.KUBECTL + " absent: the kubectl drain arm was not run");
        }
        return List.of(row.note(bench.deployments()
                        + " Deployments of 1 replica on node w1 of a living emulated cluster "
                        + "(ReplicaSets replace evicted pods, the scheduler binds them to w2/w3, Ready 1 s after binding; "
                        + "pods stop " + SurgeDrainBench.TERMINATION.toSeconds()
                        + " s after their eviction), each under "
                        + "a PodDisruptionBudget of minAvailable 1 (it allows no disruption); one drain timeout for every "
                        + "arm: " + GoDuration.format(bench.timeout()) + " (spec.drain.timeout, kubectl --timeout)")
                .note("maxUnavailable 0 arm: " + bench.deployments(SurgeDrainBench.Arm.SURGE_MAX_UNAVAILABLE_0)
                        + " such Deployments drained with Surge: the disruption controller counts a maxUnavailable "
                        + "budget's expected pods from the workload's scale, so a surge raises the expected count with "
                        + "the healthy one and the budget still allows 0 (Kubernetes: maxUnavailable 0 requires zero "
                        + "voluntary evictions); the planner refuses such a budget before anything is written (cannot "
                        + "surge: " + SurgePlanner.Reason.BUDGET_FORBIDS.shown() + "), so the arm must time out like "
                        + "Evict with no write to a workload (scale or record)")
                .note(
                        "no Ready pod = no pod of the Deployment with condition Ready True and no deletionTimestamp (what "
                                + "a budget counts healthy), from a watch of the pods at the API server, summed per Deployment "
                                + "from the drain's start until every Deployment has its replicas again, all Ready")
                .note(
                        "Tenure = MaintenanceMachine with its defaults (evictionRetryDelay 5 s, parallelism 10, poll 2 s), "
                                + "through the operator's client with the shipped tenure-operator-surge role bound, its state "
                                + "kept through the NodeMaintenance status as the reconciler keeps it; the control drains the "
                                + "same Deployments without budgets (Tenure, Evict): its seconds without a Ready pod are what a "
                                + "drain of single replicas costs, and the row fails if the measure shows none there")
                .ok((System.nanoTime() - t0) / 1e9));
    }

    private List<RowResult> metricSeries() throws Exception {
        RowResult.Builder row = RowResult.of("12", "Metric series after NodeMaintenances come and go (packaged jar)");
        if (!FootprintBench.jarPresent()) {
            return List.of(
                    row.skipped(FootprintBench.JAR + " is absent: run ./mvnw package -DskipTests (make bench does)"));
        }
        long t0 = System.nanoTime();
        int cycles = Integer.getInteger("tenure.bench.metrics.cycles", 1000);
        int perRound = 50;
        MetricSeriesBench.Result r = MetricSeriesBench.run(cycles, perRound);
        String s = "Tenure, " + r.cycles() + " create/delete cycles";
        return List.of(row.measure(s, "series at ready", r.seriesAtReady(), "")
                .measure(s, "series after the warming round (before)", r.seriesBefore(), "")
                .measure(s, "series after the cycles (after)", r.seriesAfter(), "")
                .measure(s, "growth (after - before)", r.seriesAfter() - r.seriesBefore(), "")
                .measure(s, "series naming a deleted NodeMaintenance", (double) r.seriesNamingDeleted(), "")
                .measure(s, "time for the cycles", r.seconds(), "s")
                .ratio(
                        r.seriesBefore() / (double) r.seriesAfter(),
                        "series before / after (1 = flat in the NodeMaintenances ever created)")
                .note("the packaged operator with its defaults but a longer operator lease ("
                        + String.join(" ", MetricSeriesBench.ELECTION) + ": a lost lease exits the process and a "
                        + "restart would reset the series); " + perRound + " nodes without pods; rounds of "
                        + perRound
                        + " NodeMaintenances created, all driven to Succeeded, all deleted and gone; a first "
                        + "warming round registers everything a maintenance ever registers, then " + r.cycles()
                        + " more cycles; series = sample lines of GET /q/metrics on the management port")
                .note("MetricSeriesIT checks the same at 30 cycles in make test")
                .ok((System.nanoTime() - t0) / 1e9));
    }

    private static double medianOf(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static String fmtList(List<Double> values) {
        return values.stream().map(Bench::fmt).collect(Collectors.joining(", "));
    }

    private static double median(
            List<FootprintBench.Result> rs, java.util.function.ToDoubleFunction<FootprintBench.Result> f) {
        double[] v = rs.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    static String fmt(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        return Math.abs(v) >= 100 || v == Math.rint(v)
                ? String.format(Locale.ROOT, "%.0f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    }
}
