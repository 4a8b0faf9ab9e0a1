package dev.tenure.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A released operator, built for real from its commit in this repository (issue 39's upgrade suite): {@code git
 * archive} of the commit into a cache directory, its own {@code ./mvnw package -DskipTests} (offline first, the way
 * the build machines are), and its packaged application ({@code quarkus-app/}) and generated CRD kept there, so a
 * later run reuses them. {@link #start} runs it as a child JVM against an emulated cluster, as a pod of the old
 * Deployment would run it.
 *
 * <p>The cache is {@code -Dtenure.releases.cache} or {@code ~/.cache/tenure/releases}, one directory per commit
 * ({@code <commit>/quarkus-app}, {@code <commit>/crd.yml}, {@code <commit>/build.log}); a lock file makes parallel
 * JVMs build it once. A checkout without the commit (a shallow clone, or sources without .git) builds the release's
 * tree from its archive, committed in src/test/releases.
 */
public final class PreviousRelease {
    /** 0.1.0, the first release, cut at this commit (its src/main/olm/release.properties; it has no git tag). */
    public static final PreviousRelease V0_1_0 =
            new PreviousRelease("0.1.0", "663cd39afaeb810b1cc3c4cc414296b083373224");

    /** The User-Agent prefix of a previous release's requests: not the operator under test ({@link RequestOrigin}). */
    public static final String USER_AGENT_PREFIX = "tenure-previous-release/";

    public final String version;
    public final String commit;

    PreviousRelease(String version, String commit) {
        this.version = version;
        this.commit = commit;
    }

    /** Where the build of this release is kept. */
    public Path home() {
        String configured = System.getProperty("tenure.releases.cache");
        Path root = configured != null
                ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "tenure", "releases");
        return root.resolve(commit);
    }

    /** The release's packaged application, built when not cached; its path. */
    public Path build() {
        Path home = home();
        Path done = home.resolve("BUILT");
        if (Files.exists(done)) {
            return home;
        }
        try {
            Files.createDirectories(home);
            try (FileChannel ch = FileChannel.open(
                            home.resolveSibling(commit + ".lock"),
                            StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE);
                    FileLock lock = ch.lock()) {
                if (Files.exists(done)) {
                    return home; // another JVM built it while this one waited
                }
                buildInto(home);
                Files.writeString(done, version + " " + commit + "\n");
                return home;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The release's NodeMaintenance CRD, as its build generated it. */
    public Path crd() {
        return build().resolve("crd.yml");
    }

    private void buildInto(Path home) throws IOException {
        Path src = home.resolve("src");
        deleteTree(src);
        Files.createDirectories(src);
        Optional<Path> repo = repository();
        if (repo.isPresent() && hasCommit(repo.get())) {
            Path tar = home.resolve("src.tar");
            run(repo.get(), List.of("git", "archive", "--format=tar", "-o", tar.toString(), commit));
            run(src, List.of("tar", "-xf", tar.toString()));
            Files.delete(tar);
        } else {
            // a shallow clone (CI's default depth 1), or sources without .git: the release's tree as committed
            Path archive = archive().toAbsolutePath();
            if (!Files.isRegularFile(archive)) {
                throw new IllegalStateException("the upgrade suite builds release " + version + " from commit " + commit
                        + ", which this checkout does not have, nor its archive " + archive);
            }
            run(src, List.of("tar", "-xzf", archive.toString()));
        }
        Path log = home.resolve("build.log");
        List<String> mvn = new ArrayList<>(List.of("./mvnw", "-B", "-ntp", "-q", "package", "-DskipTests"));
        long t0 = System.nanoTime();
        // offline first (the build machines are), then online once when an artifact is missing locally
        if (tryRun(src, with(mvn, "-o"), log) != 0 && tryRun(src, mvn, log) != 0) {
            throw new IllegalStateException("the build of release " + version + " (" + commit + ") failed; see " + log);
        }
        System.out.printf(
                "PreviousRelease: built %s (%s) in %d s into %s%n",
                version, commit.substring(0, 7), TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0), home);
        deleteTree(home.resolve("quarkus-app"));
        Files.move(src.resolve("target/quarkus-app"), home.resolve("quarkus-app"));
        Files.copy(
                src.resolve("target/kubernetes/nodemaintenances.tenure.dev-v1.yml"),
                home.resolve("crd.yml"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        deleteTree(src);
    }

    /**
     * The release's source tree as {@code git archive} wrote it, committed beside the tests: what the suite builds when
     * the checkout lacks the commit ({@code PreviousReleaseTest} checks it is that commit's tree).
     */
    Path archive() {
        return Path.of("src/test/releases", "tenure-" + version + "-" + commit.substring(0, 7) + ".tar.gz");
    }

    /** This checkout's git repository, if it is one. */
    static Optional<Path> repository() {
        try {
            return Optional.of(Path.of(run(Path.of("."), List.of("git", "rev-parse", "--show-toplevel"))
                    .trim()));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    boolean hasCommit(Path repo) {
        return tryRun(repo, List.of("git", "cat-file", "-e", commit + "^{commit}")) == 0;
    }

    /**
     * Starts the release's operator as a child JVM against {@code cluster}: its pod name {@code podName} (the
     * identity it contends with is that plus a random suffix, as in a pod), its requests' User-Agent {@link
     * #USER_AGENT_PREFIX}{@code podName}, {@code properties} as system properties (the Deployment's environment),
     * its output into {@code log}.
     */
    public Process start(EmulatedCluster cluster, String podName, Map<String, String> properties, Path log) {
        Path app = build().resolve("quarkus-app/quarkus-run.jar");
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-Xshare:auto",
                "-Xmx256m",
                "-Dkubernetes.user.agent=" + USER_AGENT_PREFIX + podName,
                "-Dquarkus.kubernetes-client.api-server-url=" + cluster.url(),
                "-Dquarkus.kubernetes-client.trust-certs=true",
                "-Dquarkus.kubernetes-client.namespace=tenure-system",
                "-Dquarkus.http.port=0",
                "-Dquarkus.management.port=0"));
        properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add("-jar");
        cmd.add(app.toString());
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().put("POD_NAME", podName);
        pb.environment().put("POD_NAMESPACE", "tenure-system");
        pb.environment().put("KUBERNETES_NAMESPACE", "tenure-system");
        pb.environment().put("KUBECONFIG", cluster.kubeconfig().toString());
        try {
            return pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> with(List<String> cmd, String arg) {
        List<String> out = new ArrayList<>(cmd);
        out.add(arg);
        return out;
    }

    private static int tryRun(Path dir, List<String> cmd) {
        return tryRun(dir, cmd, null);
    }

    private static int tryRun(Path dir, List<String> cmd, Path log) {
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
            pb.redirectOutput(
                    log == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.appendTo(log.toFile()));
            return pb.start().waitFor();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String run(Path dir, List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd)
                    .directory(dir.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed in " + dir);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
