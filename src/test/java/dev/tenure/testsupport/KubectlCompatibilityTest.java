package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real kubectl (v1.32) against the emulated cluster: discovery, field selectors, cordon, drain, and what a user of
 * {@code make run} types first: apply (validated against the served OpenAPI), get with printer columns (server-side
 * Tables), explain, get -w (HTTP-streaming watch), create namespace (a protobuf body), delete (which waits on a watch).
 */
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
        try (var in = Files.newInputStream(Path.of("deploy", "tenure-operator.yaml"))) {
            cluster.client().load(in).items().stream()
                    .filter(o -> o.getKind().equals("CustomResourceDefinition"))
                    .forEach(crd -> cluster.client().resource(crd).create());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Path manifest(String name, String yaml) throws IOException {
        Path file = kubeconfig.resolveSibling(name);
        Files.writeString(file, yaml);
        return file;
    }

    private static String maintenance(String name, String node, String reason) {
        return "apiVersion: tenure.dev/v1alpha1\nkind: NodeMaintenance\nmetadata:\n  name: " + name
                + "\nspec:\n  nodeName: " + node + "\n  reason: " + reason + "\n";
    }

    @Test
    void applyCreatesThenUpdatesANodeMaintenanceValidatedByTheServer() throws Exception {
        Path file = manifest("apply.yaml", maintenance("apply-me", "w1", "first"));
        Result created = kubectl("apply", "-f", file.toString());
        assertThat(created.exit()).as(created.out()).isZero();
        assertThat(created.out()).contains("nodemaintenance.tenure.dev/apply-me created");

        Files.writeString(file, maintenance("apply-me", "w1", "second"));
        Result updated = kubectl("apply", "-f", file.toString());
        assertThat(updated.exit()).as(updated.out()).isZero();
        assertThat(updated.out()).contains("nodemaintenance.tenure.dev/apply-me configured");
        assertThat(cluster.client()
                        .genericKubernetesResources("tenure.dev/v1alpha1", "NodeMaintenance")
                        .withName("apply-me")
                        .get()
                        .get("spec", "reason")
                        .toString())
                .isEqualTo("second");
    }

    @Test
    void getShowsTheCrdsPrinterColumnsAndTheBuiltInKindsUsualOnes() throws Exception {
        // set-up only (--validate=false): apply itself is the first test
        kubectl(
                "apply",
                "--validate=false",
                "-f",
                manifest("columns.yaml", maintenance("columns", "w2", "firmware"))
                        .toString());

        Result maintenances = kubectl("get", "tnm", "columns");
        assertThat(maintenances.exit()).as(maintenances.out()).isZero();
        assertThat(maintenances.out().lines().findFirst().orElseThrow().split("\\s+"))
                .containsExactly("NAME", "NODE", "PHASE", "PROGRESS", "WAITING", "REASON", "AGE");
        assertThat(maintenances.out()).containsPattern("columns\\s+w2\\s+firmware\\s+\\d+s");

        Result nodes = kubectl("get", "nodes");
        assertThat(nodes.out().lines().findFirst().orElseThrow().split("\\s+"))
                .containsExactly("NAME", "STATUS", "ROLES", "AGE", "VERSION");
        assertThat(nodes.out()).containsPattern("cp1\\s+Ready\\s+control-plane");
        Result pods = kubectl("get", "pods", "-n", "shop", "-o", "wide");
        assertThat(pods.out().lines().findFirst().orElseThrow())
                .containsPattern("NAME\\s+READY\\s+STATUS\\s+RESTARTS\\s+AGE\\s+IP\\s+NODE");
    }

    @Test
    void explainDescribesTheNodeMaintenanceSpecFromTheCrdSchema() throws Exception {
        Result r = kubectl("explain", "tnm.spec");
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out())
                .contains("KIND:       NodeMaintenance")
                .contains("nodeName")
                .contains("drain");
    }

    @Test
    void getPdbShowsTheAllowedDisruptionsTheDisruptionControllerKeeps() throws Exception {
        cluster.seed()
                .deployment("web")
                .namespace("budgets")
                .replicas(6)
                .onNodes("cp1") // the other tests count the pods of w1 and w2
                .create();
        cluster.seed()
                .pdb("web")
                .namespace("budgets")
                .selector("app", "web")
                .minAvailable("50%")
                .create();
        try (var living = cluster.living("budgets", Duration.ofHours(1))) {
            // 6 healthy of an expected 6, 50% rounded up = 3 desired: 3 disruptions allowed
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                Result pdb = kubectl("get", "pdb", "-n", "budgets");
                assertThat(pdb.exit()).as(pdb.out()).isZero();
                assertThat(pdb.out().lines().findFirst().orElseThrow().split("\\s+"))
                        .containsExactly(
                                "NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED", "DISRUPTIONS", "AGE");
                assertThat(pdb.out()).containsPattern("web\\s+50%\\s+N/A\\s+3\\s+");
            });
        }
    }

    @Test
    void getPersistentVolumesAndClaimsWorksThroughDiscovery() throws Exception {
        cluster.seed()
                .object(new io.fabric8.kubernetes.api.model.PersistentVolumeBuilder()
                        .withNewMetadata()
                        .withName("local-w1")
                        .endMetadata()
                        .withNewSpec()
                        .addToCapacity("storage", new io.fabric8.kubernetes.api.model.Quantity("1Gi"))
                        .withAccessModes("ReadWriteOnce")
                        .endSpec()
                        .build());
        cluster.seed()
                .object(new io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder()
                        .withNewMetadata()
                        .withName("data")
                        .withNamespace("shop")
                        .endMetadata()
                        .withNewSpec()
                        .withVolumeName("local-w1")
                        .withAccessModes("ReadWriteOnce")
                        .endSpec()
                        .build());
        Result pv = kubectl("get", "pv");
        assertThat(pv.exit()).as(pv.out()).isZero();
        assertThat(pv.out()).contains("local-w1");
        Result pvc = kubectl("get", "pvc", "-n", "shop");
        assertThat(pvc.exit()).as(pvc.out()).isZero();
        assertThat(pvc.out()).contains("data");
    }

    @Test
    void getWatchOfOneObjectStreamsAChangeMadeOnceItsWatchIsOpen() throws Exception {
        // set-up only (--validate=false): apply itself is the first test
        kubectl(
                "apply",
                "--validate=false",
                "-f",
                manifest("watched.yaml", maintenance("watched", "w1", "before")).toString());
        long watchesBefore = cluster.openWatches("nodemaintenances");
        Process watch = kubectlWatch("get", "tnm", "watched", "-w");
        try {
            var lines = lines(watch);
            assertThat(lines.readLine()).startsWith("NAME");
            assertThat(lines.readLine()).contains("before");
            // For one named object kubectl watches from resourceVersion 0 and drops the watch's first event, the object
            // as it is when the watch starts (kubectl get.go: "drop the initial watch event in the single resource
            // case"): against kube-apiserver too, a change made between its GET and its watch is never printed. So the
            // change comes once the watch is open.
            await("kubectl's watch open on the emulated cluster")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> cluster.openWatches("nodemaintenances") > watchesBefore);
            setReason("watched", "after");
            assertThat(nextLine(lines)).contains("watched").contains("after");
            assertThat(watch.isAlive()).as("the watch stays open").isTrue();
        } finally {
            watch.destroyForcibly();
        }
    }

    @Test
    void getWatchOfAListReplaysAChangeMadeBeforeItsWatchOpens() throws Exception {
        kubectl(
                "apply",
                "--validate=false",
                "-f",
                manifest("listed.yaml", maintenance("listed", "w2", "before").replace("  name: listed\n", """
                          name: listed
                          labels:
                            watch: listed
                        """))
                        .toString());
        Process watch = kubectlWatch("get", "tnm", "-l", "watch=listed", "-w");
        try {
            var lines = lines(watch);
            assertThat(lines.readLine()).startsWith("NAME");
            assertThat(lines.readLine()).contains("listed").contains("before");
            // A list is watched from the list's resourceVersion: a change made before the watch opens (at once here;
            // kubectl is often still starting its watch) is replayed from the watch cache, as kube-apiserver does, and
            // one made after it is sent as it happens. Either way it is printed.
            setReason("listed", "after");
            assertThat(nextLine(lines)).contains("listed").contains("after");
        } finally {
            watch.destroyForcibly();
        }
    }

    private static Process kubectlWatch(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(KUBECTL.toString(), "--kubeconfig", kubeconfig.toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static java.io.BufferedReader lines(Process process) {
        return new java.io.BufferedReader(
                new java.io.InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    private static String nextLine(java.io.BufferedReader lines) throws Exception {
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return lines.readLine();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                })
                .get(30, TimeUnit.SECONDS);
    }

    @SuppressWarnings("unchecked")
    private static void setReason(String name, String reason) {
        cluster.client()
                .genericKubernetesResources("tenure.dev/v1alpha1", "NodeMaintenance")
                .withName(name)
                .edit(o -> {
                    ((java.util.Map<String, Object>) o.getAdditionalProperties().get("spec")).put("reason", reason);
                    return o;
                });
    }

    /**
     * Issue 50 item 8: the namespaces seeded objects live in are Namespace objects, as on a real cluster (where
     * kube-apiserver refuses a namespaced object in a namespace that does not exist), so {@code kubectl get ns} lists
     * them.
     */
    @Test
    void getNsListsTheNamespacesOfSeededObjects() throws Exception {
        Result one = kubectl("get", "ns", "shop", "-o", "name");
        assertThat(one.exit()).as(one.out()).isZero();
        assertThat(one.out().strip()).isEqualTo("namespace/shop");
        Result all = kubectl("get", "ns");
        assertThat(all.exit()).as(all.out()).isZero();
        assertThat(all.out()).containsPattern("(?m)^shop\\s+Active\\s");
    }

    @Test
    void createNamespaceThenDeleteItWithoutWatchErrors() throws Exception {
        Result created = kubectl("create", "namespace", "team-a");
        assertThat(created.exit()).as(created.out()).isZero();
        assertThat(created.out().strip()).isEqualTo("namespace/team-a created");
        assertThat(kubectl("get", "ns", "team-a", "-o", "name").out().strip()).isEqualTo("namespace/team-a");

        Result deleted = kubectl("delete", "namespace", "team-a");
        assertThat(deleted.exit()).as(deleted.out()).isZero();
        assertThat(deleted.out().strip()).isEqualTo("namespace \"team-a\" deleted");
    }

    @Test
    void deleteOfANodeMaintenanceWaitsForItsFinalizerOnAWatchAndPrintsOnlyTheResult() throws Exception {
        // set-up only (--validate=false): apply itself is the first test. The finalizer stands for the operator's:
        // the object stays until it is removed, and kubectl delete waits for that on a watch.
        kubectl(
                "apply",
                "--validate=false",
                "-f",
                manifest(
                                "deleted.yaml",
                                maintenance("deleted", "w2", "gone")
                                        .replace(
                                                "  name: deleted\n",
                                                "  name: deleted\n  finalizers: [tenure.dev/test]\n"))
                        .toString());
        var resource = cluster.client()
                .genericKubernetesResources("tenure.dev/v1alpha1", "NodeMaintenance")
                .withName("deleted");
        java.util.function.Predicate<ApiRequest> watchOfMaintenances =
                q -> q.verb().equals("watch") && q.resource().equals("nodemaintenances");
        long watchesBefore = cluster.requests().count(watchOfMaintenances);
        java.util.concurrent.CompletableFuture<Result> deleting =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return kubectl("delete", "tnm", "deleted");
                    } catch (IOException | InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(20))
                .until(() ->
                        resource.get() == null || resource.get().getMetadata().getDeletionTimestamp() != null);
        // kubectl lists the object, then waits on a watch from the list's resourceVersion: once that watch is asked
        // for, the finalizer's removal reaches kubectl through it (the watch cache replays every change after it)
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(20))
                .until(() -> cluster.requests().count(watchOfMaintenances) > watchesBefore);
        resource.edit(o -> {
            o.getMetadata().setFinalizers(List.of());
            return o;
        });

        Result r = deleting.get(30, TimeUnit.SECONDS);
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out().strip()).isEqualTo("nodemaintenance.tenure.dev \"deleted\" deleted");
        assertThat(resource.get()).isNull();
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
    void taintTwiceThenRemoveAndAnnotateThenRemoveBehaveAsOnARealCluster() throws Exception {
        cluster.seed().node("tainted").role("worker").create();
        assertThat(kubectl("taint", "node", "tainted", "t1=v:NoSchedule").exit())
                .isZero();
        assertThat(kubectl("taint", "node", "tainted", "t2=v:NoSchedule").exit())
                .isZero();
        Result again = kubectl("taint", "node", "tainted", "t1=v:NoSchedule");
        assertThat(again.exit()).as(again.out()).isNotZero();
        assertThat(again.out()).contains("already has t1 taint(s) with same effect(s) and --overwrite is false");
        assertThat(taintKeys("tainted")).containsExactlyInAnyOrder("t1", "t2");

        Result removed = kubectl("taint", "node", "tainted", "t1-");
        assertThat(removed.exit()).as(removed.out()).isZero();
        assertThat(taintKeys("tainted")).containsExactly("t2");

        assertThat(kubectl("annotate", "node", "tainted", "k=v").exit()).isZero();
        Result unannotated = kubectl("annotate", "node", "tainted", "k-");
        assertThat(unannotated.exit()).as(unannotated.out()).isZero();
        assertThat(cluster.client()
                        .nodes()
                        .withName("tainted")
                        .get()
                        .getMetadata()
                        .getAnnotations())
                .doesNotContainKey("k");
        cluster.client().nodes().withName("tainted").delete(); // getNodesListsEveryNode counts the seeded ones
    }

    private static List<String> taintKeys(String node) {
        return cluster.client().nodes().withName(node).get().getSpec().getTaints().stream()
                .map(io.fabric8.kubernetes.api.model.Taint::getKey)
                .toList();
    }

    @Test
    void applyOfAnInvalidNodeMaintenanceIsRefusedNamingTheField() throws Exception {
        Path file = manifest(
                "invalid.yaml",
                maintenance("refused", "w1", "bad window").replace("  reason:", "  window: -5m\n  reason:"));
        Result refused = kubectl("apply", "-f", file.toString());
        assertThat(refused.exit()).as(refused.out()).isNotZero();
        assertThat(refused.out())
                .contains("The NodeMaintenance \"refused\" is invalid")
                .contains("spec.window: Invalid value: \"-5m\"");

        Files.writeString(file, maintenance("renamed", "w1", "first"));
        assertThat(kubectl("apply", "-f", file.toString()).exit()).isZero();
        Files.writeString(file, maintenance("renamed", "w2", "moved"));
        Result moved = kubectl("apply", "-f", file.toString());
        assertThat(moved.exit()).as(moved.out()).isNotZero();
        assertThat(moved.out()).contains("spec.nodeName: Invalid value: \"string\": spec.nodeName is immutable");
        kubectl("delete", "tnm", "renamed", "--wait=false");
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
