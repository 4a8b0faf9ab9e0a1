package dev.tenure.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * {@code make run} without a reachable cluster: an emulated cluster seeded with a demo, up until Ctrl-C.
 * Usage: {@code EmulatedClusterMain <kubeconfig-path> [port]}. Prints {@code API <url>} and
 * {@code KUBECONFIG <path>} once ready (bin/run waits for the kubeconfig file).
 */
public final class EmulatedClusterMain {

    /**
     * Demo steps run after the seed, in order, once the API server is up. Later features add theirs here
     * (e.g. applying a NodeMaintenance once the operator is running).
     */
    static final List<Consumer<EmulatedCluster>> DEMO_STEPS = new ArrayList<>(
            List.of(cluster -> cluster.seed().demo(), dev.tenure.maintenance.MaintenanceDemo::applyAfterStartup));

    private EmulatedClusterMain() {}

    public static void main(String[] args) throws Exception {
        Path kubeconfig = Path.of(args.length > 0 ? args[0] : "target/emulated-cluster.kubeconfig")
                .toAbsolutePath();
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        EmulatedCluster cluster = EmulatedCluster.start(EmulatedCluster.Options.forDemo()
                .port(port)
                .living(Duration.ofSeconds(5))
                .controllerInterval(Duration.ofSeconds(1)));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            cluster.close();
                            stopped.countDown();
                        },
                        "emulated-cluster-shutdown"));
        DEMO_STEPS.forEach(step -> step.accept(cluster));
        Path tmp = kubeconfig.resolveSibling(kubeconfig.getFileName() + ".tmp");
        Files.createDirectories(kubeconfig.getParent());
        cluster.writeKubeconfig(tmp);
        Files.move(
                tmp,
                kubeconfig,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        System.out.println("Emulated cluster API " + cluster.url());
        System.out.println("KUBECONFIG " + kubeconfig + "   (try: KUBECONFIG=" + kubeconfig + " kubectl get pods -A)");
        stopped.await();
    }
}
