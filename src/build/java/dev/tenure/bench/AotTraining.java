package dev.tenure.bench;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.time.Duration;

/**
 * The training run that writes the image's JDK AOT cache (JEP 483/514/515, JDK 25): the packaged operator started
 * with the image's flags and {@code -XX:AOTCacheOutput} against an emulated cluster (the make-run demo and the
 * generated CRDs), left to become ready, lead and carry one NodeMaintenance through cordon, drain and undo, then
 * stopped with SIGTERM as Kubernetes stops a pod; the JVM writes the cache as it exits. The cache is valid only for
 * the JDK build that wrote it, so {@code make image} runs this with java inside the image's base
 * ({@code main: <engine> <image>}) and row 6 of {@code make bench} with the local JDK 25 it measures.
 */
final class AotTraining {

    private AotTraining() {}

    /** Trains with {@code launcher}; returns the seconds the run took. Fails when no cache was written. */
    // a training JVM that does not exit is left running: that failure is the one to report, even over the run's own
    @SuppressWarnings("Finally")
    static double train(FootprintBench.Launcher launcher) throws Exception {
        long t0 = System.nanoTime();
        Files.deleteIfExists(FootprintBench.AOT_CACHE);
        try (EmulatedCluster cluster = EmulatedCluster.start()) {
            cluster.seed().demo();
            FootprintBench.installCrds(cluster);
            FootprintBench.Running operator = FootprintBench.start(
                    cluster, launcher, FootprintBench.trainingFlags(launcher.path(FootprintBench.AOT_CACHE)));
            try {
                oneMaintenance(cluster.client());
            } finally {
                // the cache is assembled by a second JVM the exiting one starts: give it time
                if (!operator.stop(Duration.ofMinutes(3))) {
                    throw new IllegalStateException("training run did not exit within 3 minutes of SIGTERM");
                }
            }
        }
        if (!Files.isRegularFile(FootprintBench.AOT_CACHE) || Files.size(FootprintBench.AOT_CACHE) == 0) {
            throw new IllegalStateException("the training run wrote no AOT cache at " + FootprintBench.AOT_CACHE);
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /** One NodeMaintenance on a demo worker, until Succeeded, then deleted and gone (the undo path). */
    private static void oneMaintenance(KubernetesClient client) throws InterruptedException {
        var nm = client.resource(new NodeMaintenance("aot-training", new NodeMaintenanceSpec("w1", "AOT training")));
        nm.create();
        waitFor(() -> {
            NodeMaintenance m = nm.get();
            return m != null && m.getStatus() != null && m.getStatus().getPhase() == Phase.Succeeded;
        });
        nm.delete();
        waitFor(() -> nm.get() == null);
    }

    private static void waitFor(java.util.function.BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("training workload did not finish within 90 s");
            }
            Thread.sleep(100);
        }
    }

    /**
     * {@code make image}: {@code AotTraining <engine> <image>} writes target/quarkus-app/app.aot with java inside
     * {@code image} (the Dockerfile's base), the app directory mounted where the image keeps it.
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: AotTraining <docker|podman> <image with java 25+>");
            System.exit(2);
        }
        double seconds = train(FootprintBench.Launcher.container(args[0], args[1]));
        System.out.printf(
                "AOT cache %s written in %.0f s (%d MiB)%n",
                FootprintBench.AOT_CACHE, seconds, Files.size(FootprintBench.AOT_CACHE) >> 20);
    }
}
