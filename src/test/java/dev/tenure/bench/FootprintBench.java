package dev.tenure.bench;

import dev.tenure.testsupport.EmulatedCluster;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Row 6: the packaged operator ({@code target/quarkus-app/quarkus-run.jar}) started as a child JVM with
 * default flags against an emulated cluster with the generated CRDs installed: time from process start to
 * {@code /q/health/ready} answering 200, and resident set size (VmRSS) at ready and after a settle period.
 */
final class FootprintBench {
    static final Path JAR = Path.of("target/quarkus-app/quarkus-run.jar");
    /** Quarkus' AppCDS archive, written by package with quarkus.package.jar.appcds.enabled (make bench asks). */
    static final Path APP_CDS = Path.of("target/quarkus-app/app-cds.jsa");

    /**
     * The flags the image runs with (src/main/docker/Dockerfile.jvm, JAVA_OPTS_APPEND), the archive path made local,
     * under the Deployment's 512Mi memory limit (-XX:MaxRAM stands in for the container's cgroup limit).
     */
    static List<String> imageFlags() {
        return List.of(
                "-XX:MaxRAM=512m",
                "-XX:SharedArchiveFile=" + APP_CDS,
                "-Xshare:auto",
                "-XX:+UseSerialGC",
                "-XX:MaxRAMPercentage=50",
                "-XX:TieredStopAtLevel=1");
    }

    record Result(double secondsToReady, double rssAtReadyMiB, double rssSettledMiB, double hwmMiB) {}

    static boolean jarPresent() {
        return Files.isRegularFile(JAR);
    }

    static Result run(Duration settle) throws Exception {
        return run(settle, List.of());
    }

    /** {@code jvmFlags} go before {@code -jar}, as the image's run-java.sh puts JAVA_OPTS_APPEND. */
    static Result run(Duration settle, List<String> jvmFlags) throws Exception {
        try (EmulatedCluster cluster = EmulatedCluster.start()) {
            cluster.seed().demo();
            installCrds(cluster);
            try (Running operator = start(cluster, jvmFlags)) {
                double atReady = rssMiB(operator.pid(), "VmRSS");
                Thread.sleep(settle.toMillis());
                return new Result(
                        operator.secondsToReady(),
                        atReady,
                        rssMiB(operator.pid(), "VmRSS"),
                        rssMiB(operator.pid(), "VmHWM"));
            }
        }
    }

    /** The packaged operator, started and ready; closing stops it. */
    record Running(Process process, double secondsToReady, Path log) implements AutoCloseable {
        long pid() {
            return process.pid();
        }

        @Override
        public void close() throws Exception {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            Files.deleteIfExists(log);
        }
    }

    /** Starts the packaged jar against {@code cluster} and waits for /q/health/ready (90 s at most). */
    static Running start(EmulatedCluster cluster, List<String> jvmFlags) throws Exception {
        int port = freePort();
        int managementPort = freePort(); // health and metrics: the management interface of the packaged jar
        Path log = Files.createTempFile("bench-operator", ".log");
        List<String> command = new java.util.ArrayList<>(List.of(javaBin()));
        command.addAll(jvmFlags);
        command.addAll(List.of(
                "-Dquarkus.kubernetes-client.api-server-url=" + cluster.url(),
                "-Dquarkus.kubernetes-client.trust-certs=true",
                "-Dquarkus.kubernetes-client.namespace=tenure-system",
                "-Dquarkus.operator-sdk.enable-ssa=false",
                "-Dquarkus.http.port=" + port,
                "-Dquarkus.management.port=" + managementPort,
                "-jar",
                JAR.toString()));
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("KUBECONFIG", cluster.kubeconfig().toString());
        long t0 = System.nanoTime();
        Process p = pb.start();
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
        URI ready = URI.create("http://127.0.0.1:" + managementPort + "/q/health/ready");
        long deadline = t0 + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline && p.isAlive()) {
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(ready)
                                .timeout(Duration.ofSeconds(2))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return new Running(p, (System.nanoTime() - t0) / 1e9, log);
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(20);
        }
        String tail = tail(log);
        p.destroyForcibly();
        Files.deleteIfExists(log);
        throw new IllegalStateException("operator not ready within 90 s (alive=" + p.isAlive() + "); log:\n" + tail);
    }

    /** As an admin would (the packaged operator does not apply CRDs): the CRDs the build generated. */
    static void installCrds(EmulatedCluster cluster) throws IOException {
        try (var files = Files.list(Path.of("target/kubernetes"))) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith("-v1.yml"))
                    .toList()) {
                cluster.seed()
                        .object(cluster.client()
                                .getKubernetesSerialization()
                                .unmarshal(
                                        Files.readString(f),
                                        io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition
                                                .class));
            }
        }
    }

    static double rssMiB(long pid, String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0; // kB
            }
        }
        throw new IllegalStateException(field + " not in /proc/" + pid + "/status");
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    private static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
