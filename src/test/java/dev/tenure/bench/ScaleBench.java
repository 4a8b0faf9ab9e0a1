package dev.tenure.bench;

import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * The operator's cost as the cluster grows (issue 14.3): N realistic Nodes (status with 40 images, conditions,
 * addresses, capacity), kubelet leases renewed every 10 s in kube-node-lease, pods on every node, and a few
 * leader-elected workloads with LeaseCandidates; the packaged operator idles against it. Measured on the operator's
 * process: used heap after a full GC (jcmd), RSS, CPU seconds per minute while idle, and the watch events the API
 * server sent it per second while idle.
 */
final class ScaleBench {

    record Point(
            int nodes,
            int pods,
            double seedSeconds,
            double secondsToReady,
            double heapAfterGcMiB,
            double rssMiB,
            double cpuSecondsPerMinute,
            double watchEventsPerSecond,
            double kubeletLeaseWritesPerSecond) {}

    private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");

    static Point run(int nodes, int podsPerNode, Duration idle) throws Exception {
        EmulatedCluster.Options options =
                EmulatedCluster.Options.forDemo().nodeLeaseRenewInterval(Duration.ofSeconds(10));
        try (EmulatedCluster cluster = EmulatedCluster.start(options)) {
            long t0 = System.nanoTime();
            for (int i = 0; i < nodes; i++) {
                cluster.seed().object(node("n" + i));
                for (int j = 0; j < podsPerNode; j++) {
                    cluster.seed().object(pod("p" + i + "-" + j, "n" + i));
                }
            }
            for (int w = 0; w < 5; w++) {
                for (int c = 0; c < 3; c++) {
                    cluster.client()
                            .genericKubernetesResources("coordination.k8s.io/v1beta1", "LeaseCandidate")
                            .inNamespace("workloads")
                            .resource(candidate("app-" + w, "app-" + w + "-" + c, "n" + (w * 3 + c) % nodes))
                            .create();
                }
            }
            FootprintBench.installCrds(cluster);
            double seedSeconds = (System.nanoTime() - t0) / 1e9;
            try (FootprintBench.Running operator = FootprintBench.start(cluster)) {
                Thread.sleep(10_000); // informers listed, elections settled: the operator is idle from here
                long events0 = cluster.watchEventsSent();
                long cpu0 = cpuTicks(operator.pid());
                Thread.sleep(idle.toMillis());
                double seconds = idle.toMillis() / 1000.0;
                double cpu = (cpuTicks(operator.pid()) - cpu0) / 100.0; // USER_HZ
                double events = (cluster.watchEventsSent() - events0) / seconds;
                double heap = heapAfterGcMiB(operator.pid());
                double rss = FootprintBench.rssMiB(operator.pid(), "VmRSS");
                return new Point(
                        nodes,
                        nodes * podsPerNode,
                        seedSeconds,
                        operator.secondsToReady(),
                        heap,
                        rss,
                        cpu / seconds * 60,
                        events,
                        nodes / 10.0);
            }
        }
    }

    static Node node(String name) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(Map.of("kubernetes.io/hostname", name, "node-role.kubernetes.io/worker", ""))
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .withReason("KubeletReady")
                .withMessage("kubelet is posting ready status")
                .withLastHeartbeatTime(Instant.now().toString())
                .withLastTransitionTime(Instant.now().toString())
                .endCondition()
                .addNewCondition()
                .withType("MemoryPressure")
                .withStatus("False")
                .withReason("KubeletHasSufficientMemory")
                .endCondition()
                .addNewCondition()
                .withType("DiskPressure")
                .withStatus("False")
                .withReason("KubeletHasNoDiskPressure")
                .endCondition()
                .addNewCondition()
                .withType("PIDPressure")
                .withStatus("False")
                .withReason("KubeletHasSufficientPID")
                .endCondition()
                .addNewAddress("10.0." + (name.hashCode() & 0xff) + "." + name.length(), "InternalIP")
                .addNewAddress(name, "Hostname")
                .withCapacity(
                        Map.of("cpu", new Quantity("16"), "memory", new Quantity("64Gi"), "pods", new Quantity("110")))
                .withAllocatable(Map.of(
                        "cpu", new Quantity("15800m"), "memory", new Quantity("62Gi"), "pods", new Quantity("110")))
                .withNewNodeInfo()
                .withKubeletVersion("v1.32.0")
                .withContainerRuntimeVersion("containerd://1.7.22")
                .withOsImage("Ubuntu 24.04 LTS")
                .withKernelVersion("6.8.0-45-generic")
                .withArchitecture("amd64")
                .withOperatingSystem("linux")
                .endNodeInfo()
                .withImages(IntStream.range(0, 40)
                        .mapToObj(i -> new ContainerImage(
                                List.of(
                                        "registry.example/team/service-" + i + "@sha256:"
                                                + Integer.toHexString(name.hashCode() ^ i)
                                                        .repeat(8),
                                        "registry.example/team/service-" + i + ":1." + i + ".0"),
                                50_000_000L + i))
                        .toList())
                .endStatus()
                .build();
    }

    static Pod pod(String name, String node) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("workloads")
                .withLabels(Map.of("app", name.substring(0, name.indexOf('-'))))
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/team/service:1.0.0")
                .endContainer()
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .endStatus()
                .build();
    }

    static GenericKubernetesResource candidate(String lease, String identity, String node) {
        GenericKubernetesResource c = new GenericKubernetesResource();
        c.setApiVersion("coordination.k8s.io/v1beta1");
        c.setKind("LeaseCandidate");
        c.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withName(identity)
                .withNamespace("workloads")
                .withLabels(Map.of("tenure.dev/node", node))
                .build());
        c.setAdditionalProperty(
                "spec",
                Map.of(
                        "leaseName", lease,
                        "binaryVersion", "1.32.0",
                        "emulationVersion", "1.32.0",
                        "strategy", "tenure.dev/MaintenanceAware",
                        "renewTime", java.time.format.DateTimeFormatter.ISO_INSTANT.format(Instant.now())));
        return c;
    }

    private static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
    }

    /** Used heap after a full GC, from jcmd (the JDK's, beside the java running the bench). */
    private static double heapAfterGcMiB(long pid) throws Exception {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        exec(jcmd.toString(), String.valueOf(pid), "GC.run");
        String info = exec(jcmd.toString(), String.valueOf(pid), "GC.heap_info");
        Matcher m = HEAP_USED.matcher(info);
        if (!m.find()) {
            throw new IllegalStateException("no heap figure in jcmd GC.heap_info:\n" + info);
        }
        return Long.parseLong(m.group(1)) / 1024.0;
    }

    private static String exec(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }
}
