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
