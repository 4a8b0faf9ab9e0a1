package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The commands README's "Running it" gives a user for {@code make run}, typed as written (in {@code sh}, with the
 * README's KUBECONFIG pointing at an emulated cluster seeded and living as {@code make run}'s): each succeeds, and
 * after its drain, and a second one, Deployment {@code web} is back to its 6 Ready pods on the nodes left.
 */
@EndToEnd
class ReadmeRunCommandsTest {
    private static final Path KUBECTL = Path.of("/usr/bin/kubectl");

    @Test
    void theReadmesRunCommandsWorkAsWritten() throws Exception {
        assumeThat(Files.isExecutable(KUBECTL)).as("kubectl at " + KUBECTL).isTrue();
        List<String> commands = runCommands();
        assertThat(commands).as("the README's make-run commands").anyMatch(c -> c.startsWith("kubectl drain"));
        Path dir = Files.createTempDirectory("readme-run");
        try (EmulatedCluster cluster =
                EmulatedCluster.start(EmulatedCluster.Options.forTests().living(Duration.ofMillis(500)))) {
            cluster.seed().demo();
            Path kubeconfig = dir.resolve("target/emulated-cluster.kubeconfig");
            Files.createDirectories(kubeconfig.getParent());
            cluster.writeKubeconfig(kubeconfig);

            for (String command : commands) {
                Result r = sh(dir, String.join("\n", commands.subList(0, 1)) + "\n" + command);
                assertThat(r.exit()).as(command + "\n" + r.output()).isZero();
            }
            assertThat(sh(dir, commands.get(0) + "\nkubectl get nodes").output())
                    .contains("w1", "w2", "w3");
            awaitWebOn(cluster, List.of("w2", "w3"));

            Result second = sh(dir, commands.get(0) + "\nkubectl drain w2 --ignore-daemonsets --delete-emptydir-data");
            assertThat(second.exit()).as(second.output()).isZero();
            awaitWebOn(cluster, List.of("w3"));
        }
    }

    /** web: 6 active pods, all Ready, all on {@code nodes}. */
    private static void awaitWebOn(EmulatedCluster cluster, List<String> nodes) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            List<Pod> web =
                    cluster.client().pods().inNamespace("shop").withLabel("app", "web").list().getItems().stream()
                            .filter(LivingCluster::active)
                            .toList();
            assertThat(web).hasSize(6).allSatisfy(p -> {
                assertThat(p.getSpec().getNodeName()).isIn(nodes);
                assertThat(DisruptionBudgets.isReady(p)).isTrue();
            });
        });
    }

    /** The lines of the first {@code sh} block of README's "run" section. */
    static List<String> runCommands() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        int section = readme.indexOf("<!-- section: run -->");
        assertThat(section).as("README section run").isNotNegative();
        int start = readme.indexOf("```sh\n", section) + "```sh\n".length();
        int end = readme.indexOf("```", start);
        List<String> lines = new ArrayList<>();
        for (String line : readme.substring(start, end).split("\n")) {
            if (!line.isBlank()) {
                lines.add(line.strip());
            }
        }
        assertThat(lines.get(0))
                .as("the block starts by pointing kubectl at make run's cluster")
                .startsWith("export KUBECONFIG=");
        return lines;
    }

    record Result(int exit, String output) {}

    /** Runs a script in {@code sh} from {@code dir} (the repository root stand-in), as a user's shell would. */
    private static Result sh(Path dir, String script) throws Exception {
        Process p = new ProcessBuilder("sh", "-ec", script)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        boolean done = p.waitFor(180, TimeUnit.SECONDS);
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!done) {
            p.destroyForcibly();
            return new Result(-1, output + "\n(timed out)");
        }
        return new Result(p.exitValue(), output);
    }
}
