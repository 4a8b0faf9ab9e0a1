package dev.tenure.bench;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Row 4: drain of one node with 110 pods (11 Deployments × 10 pods), Tenure's MaintenanceMachine against
 * {@code kubectl drain} on identical emulated clusters: pods stopping in 1 s without PodDisruptionBudgets and with
 * one PDB per Deployment allowing 1 disruption, and pods taking a typical 30 s grace period to stop. Each run
 * reports when the last eviction was sent (the drainer's own pace) and when the node was drained (what a user
 * waits for).
 */
final class DrainBench {
    static final String NODE = "w1";
    static final int DEPLOYMENTS = 11;
    static final int PODS_PER_DEPLOYMENT = 10;
    static final int PODS = DEPLOYMENTS * PODS_PER_DEPLOYMENT;
    static final Duration TERMINATION = Duration.ofSeconds(1);
    static final Duration REALISTIC_TERMINATION = Duration.ofSeconds(30);
    static final Duration LIMIT = Duration.ofMinutes(4);
    static final String KUBECTL = "/usr/bin/kubectl";
    static final String TENURE_DEFAULTS = "Tenure (defaults: parallelism 10, poll 2s)";
    static final String KUBECTL_DRAIN = "kubectl drain";

    /** One way to drain: a label for the table and the body that drains NODE on the given cluster. */
    record Variant(String label, DrainAction action) {}

    interface DrainAction {
        void drain(EmulatedCluster cluster) throws Exception;
    }

    /** The node's pods: with or without a PDB per Deployment, and how long each takes to stop once evicted. */
    record Case(boolean pdb, Duration termination) {}

    /** Seconds from the first API call to the last eviction request, and to all pods gone. */
    record Timing(double lastEvictionSeconds, double drainedSeconds) {}

    static boolean kubectlPresent() {
        return new File(KUBECTL).canExecute();
    }

    static List<Variant> variants() {
        List<Variant> out = new ArrayList<>();
        out.add(new Variant(TENURE_DEFAULTS, c -> tenure(c, 10, Duration.ofSeconds(2))));
        out.add(new Variant("Tenure serial (parallelism 1, poll 2s)", c -> tenure(c, 1, Duration.ofSeconds(2))));
        if (kubectlPresent()) {
            out.add(new Variant(KUBECTL_DRAIN, DrainBench::kubectl));
        }
        return out;
    }

    static EmulatedCluster cluster(boolean pdb, Duration termination) {
        EmulatedCluster cluster =
                EmulatedCluster.start(EmulatedCluster.Options.forTests().terminationDelay(p -> termination));
        cluster.seed().node(NODE).role("worker").create();
        cluster.seed().node("w2").role("worker").create();
        seedDeployments(cluster, DEPLOYMENTS, PODS_PER_DEPLOYMENT, pdb);
        return cluster;
    }

    /**
     * The drain rows' workload on {@link #NODE}: Deployments app0..app(n-1) in namespace shop, each with, if asked,
     * a PodDisruptionBudget allowing one disruption.
     */
    static void seedDeployments(EmulatedCluster cluster, int deployments, int podsPerDeployment, boolean pdb) {
        for (int d = 0; d < deployments; d++) {
            cluster.seed()
                    .deployment("app" + d)
                    .namespace("shop")
                    .replicas(podsPerDeployment)
                    .onNodes(NODE)
                    .create();
            if (pdb) {
                cluster.seed()
                        .pdb("app" + d)
                        .namespace("shop")
                        .selector("app", "app" + d)
                        .maxUnavailable(1)
                        .create();
            }
        }
    }

    /** How long one variant takes to drain NODE on a fresh cluster; fails if pods are left. */
    static Timing time(Variant v, Case c) throws Exception {
        try (EmulatedCluster cluster = cluster(c.pdb(), c.termination())) {
            AtomicLong lastEviction = new AtomicLong();
            Consumer<ApiRequest> evictions = r -> {
                if (r.is("create", "pods", "eviction")) {
                    lastEviction.set(System.nanoTime());
                }
            };
            cluster.requests().observe(evictions);
            long t0 = System.nanoTime();
            v.action().drain(cluster);
            double seconds = (System.nanoTime() - t0) / 1e9;
            cluster.requests().stopObserving(evictions);
            List<Pod> left = cluster.client()
                    .pods()
                    .inAnyNamespace()
                    .withField("spec.nodeName", NODE)
                    .list()
                    .getItems();
            if (!left.isEmpty()) {
                throw new IllegalStateException(v.label() + " left " + left.size() + " pods on " + NODE);
            }
            if (lastEviction.get() == 0) {
                throw new IllegalStateException(v.label() + " sent no eviction");
            }
            return new Timing((lastEviction.get() - t0) / 1e9, seconds);
        }
    }

    /** Runs the variants at once, each on its own cluster (for the cases where every variant mostly waits). */
    static List<Timing> timeConcurrently(List<Variant> variants, Case c) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(variants.size());
        try {
            List<Future<Timing>> futures = new ArrayList<>();
            for (Variant v : variants) {
                futures.add(pool.submit((Callable<Timing>) () -> time(v, c)));
            }
            List<Timing> out = new ArrayList<>();
            for (Future<Timing> f : futures) {
                out.add(f.get(LIMIT.toSeconds() + 30, TimeUnit.SECONDS));
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    private static void tenure(EmulatedCluster cluster, int parallelism, Duration poll) throws Exception {
        try (MachineRig rig = new MachineRig(cluster.client(), MachineRig.settings(parallelism, poll))) {
            MaintenanceState end = rig.driveToEnd(MachineRig.request(NODE), LIMIT);
            if (end.phase() != Phase.Succeeded) {
                throw new IllegalStateException("Tenure drain ended " + end.phase() + ": " + end.lastError());
            }
        }
    }

    static void kubectl(EmulatedCluster cluster) throws Exception {
        kubectlDrain(cluster, LIMIT, true).requireExitZero();
    }

    /** How a kubectl drain ended: its exit code and what it printed (stdout and stderr). */
    record KubectlDrain(int exitCode, String output) {
        /** kubectl drain gave up at its {@code --timeout} ("global timeout reached", exit 1). */
        boolean timedOut() {
            return exitCode != 0 && output.contains("global timeout reached");
        }

        /** Fails the row, with what kubectl printed, unless the drain ended with exit code 0. */
        void requireExitZero() {
            if (exitCode != 0) {
                throw new IllegalStateException("kubectl drain exited " + exitCode + ": " + output);
            }
        }
    }

    /**
     * {@code kubectl drain NODE --ignore-daemonsets --delete-emptydir-data} with {@code --timeout} (whole seconds), and
     * {@code --force} (pods without a controller deleted too) when {@code force}; waits 10 s past the timeout at most.
     */
    static KubectlDrain kubectlDrain(EmulatedCluster cluster, Duration timeout, boolean force) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                KUBECTL,
                "--kubeconfig",
                cluster.kubeconfig().toString(),
                "drain",
                NODE,
                "--ignore-daemonsets",
                "--delete-emptydir-data"));
        if (force) {
            command.add("--force");
        }
        command.add("--timeout=" + timeout.toSeconds() + "s");
        Path log = Files.createTempFile("bench-kubectl-drain", ".log");
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            if (!p.waitFor(timeout.toSeconds() + 10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("kubectl drain did not finish within " + timeout);
            }
            return new KubectlDrain(p.exitValue(), Files.readString(log));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** The emulator's floor: PODS sequential evictions with gracePeriodSeconds 0 (evicted and deleted at once). */
    static double floorSeconds() {
        try (EmulatedCluster cluster = cluster(false, TERMINATION)) {
            List<Pod> pods = cluster.client()
                    .pods()
                    .inAnyNamespace()
                    .withField("spec.nodeName", NODE)
                    .list()
                    .getItems();
            long t0 = System.nanoTime();
            for (Pod pod : pods) {
                cluster.client()
                        .pods()
                        .inNamespace(pod.getMetadata().getNamespace())
                        .withName(pod.getMetadata().getName())
                        .evict(new EvictionBuilder()
                                .withNewMetadata()
                                .withName(pod.getMetadata().getName())
                                .withNamespace(pod.getMetadata().getNamespace())
                                .endMetadata()
                                .withDeleteOptions(new io.fabric8.kubernetes.api.model.DeleteOptionsBuilder()
                                        .withGracePeriodSeconds(0L)
                                        .build())
                                .build());
            }
            return (System.nanoTime() - t0) / 1e9;
        }
    }
}
