package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real kubectl (v1.32) against the emulated cluster: discovery, field selectors, cordon, drain. */
@EndToEnd
class KubectlCompatibilityTest {
    private static final Path KUBECTL = Path.of("/usr/bin/kubectl");
    private static EmulatedCluster cluster;
    private static Path kubeconfig;

    record Result(int exit, String out) {}

    @BeforeAll
    static void start(@TempDir Path dir) {
        assumeThat(Files.isExecutable(KUBECTL))
                .as("kubectl not installed at " + KUBECTL + "; skipping")
                .isTrue();
        cluster = EmulatedCluster.start();
        kubeconfig = cluster.writeKubeconfig(dir.resolve("kubeconfig"));
        cluster.seed().node("cp1").role("control-plane").create();
        cluster.seed().node("w1").role("worker").create();
        cluster.seed().node("w2").role("worker").create();
        cluster.seed()
                .deployment("web")
                .namespace("shop")
                .replicas(4)
                .onNodes("w1", "w2")
                .create();
        cluster.seed().pod("solo").namespace("shop").onNode("w2").create();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Result kubectl(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(
                List.of(KUBECTL.toString(), "--kubeconfig", kubeconfig.toString(), "--request-timeout=20s"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        boolean done = p.waitFor(90, TimeUnit.SECONDS);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!done) {
            p.destroyForcibly();
            return new Result(-1, out);
        }
        return new Result(p.exitValue(), out);
    }

    @Test
    void getNodesListsEveryNode() throws Exception {
        Result r = kubectl("get", "nodes", "-o", "name");
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out().lines()).containsExactlyInAnyOrder("node/cp1", "node/w1", "node/w2");
    }

    @Test
    void getPodsByNodeFieldSelectorListsOnlyThatNodesPods() throws Exception {
        Result r = kubectl(
                "get",
                "pods",
                "-A",
                "--field-selector",
                "spec.nodeName=w1",
                "-o",
                "jsonpath={range .items[*]}{.spec.nodeName}{\"\\n\"}{end}");
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out().lines().toList()).hasSize(2).containsOnly("w1");
    }

    @Test
    void drainCordonsAndEvictsThroughTheEvictionApi() throws Exception {
        cluster.requests().clear();
        Result r = kubectl("drain", "w2", "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--timeout=60s");

        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(cluster.client().nodes().withName("w2").get().getSpec().getUnschedulable())
                .isTrue();
        assertThat(cluster.client()
                        .pods()
                        .inAnyNamespace()
                        .withField("spec.nodeName", "w2")
                        .list()
                        .getItems())
                .isEmpty();
        assertThat(cluster.requests()
                        .count(ApiRequest.resource("pods", "eviction").and(ApiRequest.verb("create"))))
                .isEqualTo(3);
    }
}
