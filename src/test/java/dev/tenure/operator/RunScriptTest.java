package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testsupport.EndToEnd;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19: `make run` used whatever kube context answered first. A kubectl that always answers stands in for a
 * reachable real cluster here; bin/run must still start the emulated cluster, and only KUBE=current may use it.
 */
@EndToEnd
class RunScriptTest {

    @TempDir
    Path bin;

    @Test
    void makeRunNeverUsesAReachableKubeContextUnlessAskedTo() throws Exception {
        Path kubectl = bin.resolve("kubectl");
        Files.writeString(
                kubectl,
                "#!/bin/sh\necho \"kubectl $*\" >> \"" + bin.resolve("calls") + "\"\necho real-cluster\nexit 0\n");
        kubectl.toFile().setExecutable(true);
        // a ./mvnw that fails at once: the script shows which way it went before building anything
        Path project = bin.resolve("project");
        Files.createDirectories(project.resolve("bin"));
        Files.copy(Path.of("bin/run"), project.resolve("bin/run"));
        project.resolve("bin/run").toFile().setExecutable(true);
        Files.writeString(project.resolve("mvnw"), "#!/bin/sh\necho \"mvnw $*\"\nexit 7\n");
        project.resolve("mvnw").toFile().setExecutable(true);

        String byDefault = run(project, null);
        assertThat(byDefault)
                .contains("starting the embedded emulated cluster")
                .doesNotContain("KUBE=current: the operator acts");
        assertThat(Files.exists(bin.resolve("calls")))
                .as("the default never even asks kubectl")
                .isFalse();

        String current = run(project, "current");
        assertThat(current).contains("KUBE=current: the operator acts on the cluster of context real-cluster");

        assertThat(run(project, "prod")).contains("KUBE must be 'emulated' (default) or 'current'");
    }

    /**
     * The emulated cluster's JVM logs through JBoss LogManager: without it set as the JUL manager on the command line,
     * the first line {@code make run} printed was an ERROR ("The LogManager accessed before ...").
     */
    @Test
    void makeRunStartsTheEmulatedClusterWithJBossLogManagerAsTheJulManager() throws Exception {
        Path calls = bin.resolve("calls");
        Path java = bin.resolve("java");
        Files.writeString(
                java,
                "#!/bin/sh\necho \"java $*\" >> \"" + calls + "\"\nprev=\n"
                        + "for a; do if [ \"$prev\" = dev.tenure.testsupport.EmulatedClusterMain ]; then"
                        + " printf 'clusters:\\n- cluster:\\n    server: http://127.0.0.1:1\\n' > \"$a\"; fi;"
                        + " prev=\"$a\"; done\nexit 0\n");
        java.toFile().setExecutable(true);
        Path project = bin.resolve("project");
        Files.createDirectories(project.resolve("bin"));
        Files.createDirectories(project.resolve("src"));
        Files.writeString(project.resolve("pom.xml"), "<project/>");
        Files.copy(Path.of("bin/run"), project.resolve("bin/run"));
        Files.writeString(project.resolve("mvnw"), "#!/bin/sh\nexit 0\n");
        project.resolve("mvnw").toFile().setExecutable(true);
        // built already: nothing is stale, so no Maven runs
        Files.createDirectories(project.resolve("target/quarkus-app"));
        Files.createDirectories(project.resolve("target/test-classes"));
        Files.writeString(project.resolve("target/test-classpath.txt"), "lib.jar");
        Files.writeString(project.resolve("target/quarkus-app/quarkus-run.jar"), "");
        long later = System.currentTimeMillis() + 10_000;
        for (String built :
                new String[] {"target/quarkus-app/quarkus-run.jar", "target/test-classes", "target/test-classpath.txt"
                }) {
            assertThat(project.resolve(built).toFile().setLastModified(later)).isTrue();
        }

        String output = run(project, null);
        assertThat(output).contains("run: operator against http://127.0.0.1:1");
        assertThat(Files.readAllLines(calls))
                .as(output)
                .filteredOn(c -> c.contains("dev.tenure.testsupport.EmulatedClusterMain"))
                .singleElement()
                .asString()
                .contains("-Djava.util.logging.manager=org.jboss.logmanager.LogManager");
    }

    private String run(Path project, String kube) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", "bin/run")
                .directory(project.toFile())
                .redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        if (kube == null) {
            pb.environment().remove("KUBE");
        } else {
            pb.environment().put("KUBE", kube);
        }
        Process p = pb.start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
