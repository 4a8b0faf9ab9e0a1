package dev.tenure.bench;

import dev.tenure.testsupport.EmulatedCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Row 6: the packaged operator ({@code target/quarkus-app/quarkus-run.jar}) started as a child JVM with
 * default flags against an emulated cluster with the generated CRDs installed: time from process start to
 * {@code /q/health/ready} answering 200, and resident set size (VmRSS) at ready and after a settle period.
 */
final class FootprintBench {
    static final Path JAR = Path.of("target/quarkus-app/quarkus-run.jar");
    /** Quarkus' AppCDS archive, written by package with quarkus.package.jar.appcds.enabled (make bench asks). */
    static final Path APP_CDS = Path.of("target/quarkus-app/app-cds.jsa");
    /** The JDK 25 AOT cache the image runs with, written here by {@link AotTraining} (row 6 trains it first). */
    static final Path AOT_CACHE = Path.of("target/quarkus-app/app.aot");
    /** Where the image keeps the jar and the cache (src/main/docker/Dockerfile.jvm). */
    static final String IMAGE_DIR = "/deployments";

    /** The Deployment's 512Mi memory limit; -XX:MaxRAM stands in for the container's cgroup limit. */
    static final String CONTAINER_LIMIT = "-XX:MaxRAM=512m";

    /** The image's JVM flags besides the cache (src/main/docker/Dockerfile.jvm, JAVA_OPTS). */
    static final List<String> SIZING_FLAGS =
            List.of("-XX:+UseSerialGC", "-XX:MaxRAMPercentage=50", "-XX:TieredStopAtLevel=1");

    /** The flags the image runs with, reading its AOT cache from {@code cache}. */
    static List<String> imageFlags(String cache) {
        List<String> flags = new ArrayList<>(List.of("-XX:AOTCache=" + cache));
        flags.addAll(SIZING_FLAGS);
        return flags;
    }

    /** The image's flags for the training run: the same, writing the cache to {@code cache} at exit. */
    static List<String> trainingFlags(String cache) {
        List<String> flags = new ArrayList<>(List.of("-XX:AOTCacheOutput=" + cache));
        flags.addAll(SIZING_FLAGS);
        return flags;
    }

    /** The previous image's flags (JDK 17 with Quarkus' AppCDS archive), kept in row 6 for comparison. */
    static List<String> appCdsFlags() {
        List<String> flags = new ArrayList<>(List.of("-XX:SharedArchiveFile=" + APP_CDS, "-Xshare:auto"));
        flags.addAll(SIZING_FLAGS);
        return flags;
    }

    /**
     * How the packaged operator is started: the java command (this JVM's, another local JDK's, or java inside a
     * container) and the path under which that java sees {@code target/quarkus-app}.
     */
    record Launcher(List<String> java, String appDir) {
        static Launcher thisJdk() {
            return jdk(Path.of(System.getProperty("java.home")));
        }

        static Launcher jdk(Path home) {
            return new Launcher(
                    List.of(home.resolve("bin/java").toString()),
                    JAR.getParent().toString());
        }

        /** java in {@code image}, with target/quarkus-app mounted where the image keeps it and host networking. */
        static Launcher container(String engine, String image) {
            return new Launcher(
                    List.of(
                            engine,
                            "run",
                            "--rm",
                            "--network=host",
                            "--user=" + new com.sun.security.auth.module.UnixSystem().getUid(),
                            "--volume=" + JAR.getParent().toAbsolutePath() + ":" + IMAGE_DIR + ":z",
                            "--entrypoint=java",
                            image),
                    IMAGE_DIR);
        }

        String jar() {
            return appDir + "/" + JAR.getFileName();
        }

        String path(Path inApp) {
            return appDir + "/" + JAR.getParent().relativize(inApp);
        }
    }

    /**
     * The image's JDK on this machine for row 6: {@code $TENURE_IMAGE_JDK}, else Temurin 25 where Debian installs it;
     * empty when neither is there (the row then says so).
     */
    static java.util.Optional<Path> imageJdk() {
        String env = System.getenv("TENURE_IMAGE_JDK");
        Path home = env != null && !env.isBlank() ? Path.of(env) : Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");
        return Files.isExecutable(home.resolve("bin/java")) ? java.util.Optional.of(home) : java.util.Optional.empty();
    }

    record Result(double secondsToReady, double rssAtReadyMiB, double rssSettledMiB, double hwmMiB) {}

    static boolean jarPresent() {
        return Files.isRegularFile(JAR);
    }

    /** {@code jvmFlags} go before {@code -jar}, as the image's entrypoint puts JAVA_OPTS. */
    static Result run(Duration settle, Launcher launcher, List<String> jvmFlags) throws Exception {
        try (EmulatedCluster cluster = EmulatedCluster.start()) {
            cluster.seed().demo();
            installCrds(cluster);
            try (Running operator = start(cluster, launcher, jvmFlags)) {
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
    record Running(Process process, double secondsToReady, Path log, int managementPort) implements AutoCloseable {
        long pid() {
            return process.pid();
        }

        /** The management interface (health, /q/metrics) of this process. */
        URI management(String path) {
            return URI.create("http://127.0.0.1:" + managementPort + path);
        }

        @Override
        public void close() throws Exception {
            stop(Duration.ofSeconds(20));
        }

        /** SIGTERM (as Kubernetes stops a pod), then waits up to {@code grace}; true when it exited by itself. */
        boolean stop(Duration grace) throws Exception {
            process.destroy();
            boolean exited = process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
            if (!exited) {
                process.destroyForcibly();
            }
            Files.deleteIfExists(log);
            return exited;
        }
    }

    /** Starts the packaged jar with this JVM's java (default flags), as {@link #start(EmulatedCluster, Launcher, List)}. */
    static Running start(EmulatedCluster cluster) throws Exception {
        return start(cluster, Launcher.thisJdk(), List.of());
    }

    /**
     * Starts the packaged jar against {@code cluster} and waits for /q/health/ready (90 s at most). The operator binds
     * ports it picks itself (port 0, as {@code PreviousRelease} starts one), and the bench probes only the management
     * port the operator's log says it listens on ({@link #announcedManagementPort}). It used to pick two free ports,
     * close them and pass them on: until the child JVM bound them (seconds, under load) any process could take them,
     * and the bench's probes, every 20 ms, then reached whatever listened there. Issue 48: a {@code make chaos} beside a
     * bench recorded a {@code GET /q/health/ready} from {@code Java-http-client} on one of its emulated API servers,
     * and the RBAC check charged it to the operator ({@code FootprintBenchIT} repeats it on the old code).
     *
     * @throws IllegalStateException when the operator exits, or is not ready within 90 s, with the tail of its log (the
     *     whole log kept as {@code target/bench-operator-failed-<pid>.log})
     */
    static Running start(EmulatedCluster cluster, Launcher launcher, List<String> jvmFlags) throws Exception {
        Path log = Files.createTempFile("bench-operator", ".log");
        List<String> command = new ArrayList<>(launcher.java());
        command.addAll(jvmFlags);
        command.addAll(List.of(
                "-Dquarkus.kubernetes-client.api-server-url=" + cluster.url(),
                "-Dquarkus.kubernetes-client.trust-certs=true",
                "-Dquarkus.kubernetes-client.namespace=tenure-system",
                "-Dquarkus.operator-sdk.enable-ssa=false",
                "-Dquarkus.http.port=0",
                "-Dquarkus.management.port=0", // health and metrics: the management interface of the packaged jar
                "-jar",
                launcher.jar()));
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("KUBECONFIG", cluster.kubeconfig().toString());
        long t0 = System.nanoTime();
        Process p = pb.start();
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
        OptionalInt managementPort = OptionalInt.empty();
        long deadline = t0 + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline && p.isAlive()) {
            if (managementPort.isEmpty()) {
                managementPort = announcedManagementPort(new String(Files.readAllBytes(log), StandardCharsets.UTF_8));
            }
            if (managementPort.isPresent()) {
                URI ready = URI.create("http://127.0.0.1:" + managementPort.getAsInt() + "/q/health/ready");
                try {
                    HttpResponse<String> r = http.send(
                            HttpRequest.newBuilder(ready)
                                    .timeout(Duration.ofSeconds(2))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200) {
                        return new Running(p, (System.nanoTime() - t0) / 1e9, log, managementPort.getAsInt());
                    }
                } catch (IOException notYet) {
                    // listening, not answering yet
                }
            }
            Thread.sleep(20);
        }
        String tail = tail(log);
        boolean alive = p.isAlive();
        String exit = alive ? "none" : String.valueOf(p.exitValue());
        p.destroyForcibly();
        // the whole log is kept: its tail shows how the operator ended, rarely why (an exit on lost leadership is
        // preceded by minutes of the election's and the API client's own lines)
        Path kept = Files.createDirectories(Path.of("target")).resolve("bench-operator-failed-" + p.pid() + ".log");
        Files.move(log, kept, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        throw new IllegalStateException("operator not ready within 90 s (alive=" + alive + ", exit " + exit
                + ", management port "
                + (managementPort.isPresent() ? managementPort.getAsInt() + "" : "never announced") + "; whole log "
                + kept.toAbsolutePath() + "); log:\n" + tail);
    }

    /**
     * The management interface's part of Quarkus's "started" line, with the port it bound ("Listening on:
     * http://0.0.0.0:36567. Management interface listening on http://0.0.0.0:45575.", VertxHttpRecorder 3.27).
     */
    private static final Pattern MANAGEMENT_LISTENING =
            Pattern.compile("Management interface listening on https?://\\S+:(\\d+)");

    /** The port of the operator's management interface, once its log says it listens; empty before. */
    static OptionalInt announcedManagementPort(String log) {
        Matcher m = MANAGEMENT_LISTENING.matcher(log);
        return m.find() ? OptionalInt.of(Integer.parseInt(m.group(1))) : OptionalInt.empty();
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

    static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }
}
