package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.annotation.AnnotationSettings;
import dev.tenure.maintenance.annotation.MaintenanceAnnotation;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import dev.tenure.maintenance.machine.NodeMarks;
import dev.tenure.operator.OperatorChaosIT.Instance;
import dev.tenure.operator.OperatorChaosIT.Trial;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.PreviousRelease;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 39's upgrade suite: the previous release's operator, built for real from its commit ({@link PreviousRelease},
 * a child JVM as its pod would run it, with its shipped defaults), and this build's operator (the real reconciler,
 * annotation door, coordination and leadership of {@link OperatorChaosIT}'s instances) on one living emulated
 * cluster.
 *
 * <p>Under the old release: a maintenance that has Succeeded, one that has Failed (its drain timed out on a pod no
 * budget lets go), one Running mid-drain (pods evicted one at a time under a PodDisruptionBudget, replacements coming
 * up elsewhere), an annotation-door maintenance (the metal3 request on a node) and a NodeMaintenance Waiting for that
 * node. Then the upgrade, rolling (the new operator starts as a standby, the old leader is stopped with SIGTERM and
 * releases, the new one takes over) or stop-the-world (the old one stopped first, the new CRD applied, the new operator
 * started); in both the new CRD is applied before the new operator starts, as OLM does. Then the new operator alone
 * carries everything to its end: the drain finishes, the finished ones stay as they are, the door's maintenance ends
 * when its request is removed and the waiting one runs, and deleting every NodeMaintenance restores every node.
 *
 * <p>Checked at the API server, never on the operators' word: no pod evicted twice ({@link DrainWitness}: an eviction
 * of a pod already terminating or gone), every workload at its replicas and Ready at the end (nothing lost), every node
 * uncordoned with no Tenure taint, no {@code tenure.dev/prior-state} and no door record left, and 0 overlapping work:
 * every work write of the old operator (anything but its own operator Lease) arrived before the first work write of
 * the new one.
 */
@EndToEnd
class UpgradeIT {
    static final PreviousRelease OLD = PreviousRelease.V0_1_0;
    static final String NEW_CRD = "olm-bundle/manifests/nodemaintenances.tenure.dev-v1.crd.yml";
    static final String WORK = "work";
    static final String OLD_POD = "tenure-operator-old";
    /**
     * Where 0.1.0 keeps node leases (its default); the new operator is configured to keep them there too, as an
     * installation that shares them with the medik8s family must be (docs/upgrading.md): the default moved to the
     * operator's namespace after 0.1.0.
     */
    static final String NODE_LEASES = "medik8s-leases";

    static final MaintenanceSettings SETTINGS = new MaintenanceSettings(
            NODE_LEASES,
            "node-",
            "tenure",
            Duration.ofSeconds(60),
            Duration.ofSeconds(30),
            Duration.ofSeconds(1),
            10,
            Duration.ofMillis(200),
            Duration.ofSeconds(1));
    static final AnnotationSettings ANNOTATIONS = new AnnotationSettings(
            "tenure-annotation", Duration.ofSeconds(30), Duration.ofHours(720), NODE_LEASES, "node-");
    /** A medik8s operator's hold on a node (node-maintenance-operator's holder), which Tenure waits for. */
    static final String FOREIGN_HOLDER = "node-maintenance";

    static final List<String> MAINTENANCES = List.of("m-done", "m-failed", "m-drain", "m-waiting");

    enum Upgrade {
        /** Old leader, new standby, SIGTERM to the old one: it releases, the new one takes over. */
        ROLLING,
        /** The old operator stopped, then the new one started. */
        STOP_THE_WORLD
    }

    @BeforeAll
    static void buildThePreviousRelease() {
        long t0 = System.nanoTime();
        OLD.build();
        System.out.printf(
                "UpgradeIT: release %s ready in %d ms (%s)%n",
                OLD.version, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), OLD.home());
    }

    @ParameterizedTest
    @EnumSource(Upgrade.class)
    void maintenancesInFlightContinueAcrossAnUpgradeFromThePreviousRelease(Upgrade upgrade) throws Exception {
        try (Trial trial = new Trial(
                        upgrade == Upgrade.ROLLING ? 1 : 2,
                        SETTINGS,
                        EmulatedCluster.Options.forTests()
                                .living(Duration.ofMillis(500))
                                .controllerInterval(Duration.ofMillis(200)));
                OldOperator old = new OldOperator(trial)) {
            trial.annotations = ANNOTATIONS;
            EmulatedCluster cluster = trial.cluster;
            applyCrd(cluster, OLD.crd());
            DrainWitness witness = seed(cluster);
            seedCandidates(cluster);
            trial.apps = new OperatorChaosIT.AppProcesses(cluster.workloadClient(), Duration.ofMillis(300), "upgrade");

            // ---- the previous release at work
            old.start();
            createMaintenance(cluster, "m-done", "n1", null);
            createMaintenance(cluster, "m-failed", "n3", "2s");
            annotate(cluster, "n4", MaintenanceAnnotation.REQUEST, "3600");
            reach(
                    trial,
                    "the door's maintenance active on n4 under " + OLD.version,
                    Duration.ofSeconds(60),
                    () -> MaintenanceAnnotation.ACTIVE.equals(annotation(cluster, "n4", MaintenanceAnnotation.STATUS)));
            holdForeign(cluster, "n5");
            createMaintenance(cluster, "m-waiting", "n5", null);
            reach(
                    trial,
                    "m-done Succeeded, m-failed Failed, m-waiting Waiting",
                    Duration.ofSeconds(60),
                    () -> "Succeeded".equals(phase(cluster, "m-done"))
                            && "Failed".equals(phase(cluster, "m-failed"))
                            && "Waiting".equals(phase(cluster, "m-waiting")));
            createMaintenance(cluster, "m-drain", "n2", null);
            reach(trial, "m-drain Running mid-drain (web: 1 to 3 of 6 evicted)", Duration.ofSeconds(60), () -> {
                long left = podsOn(cluster, "n2", "web");
                return "Running".equals(phase(cluster, "m-drain")) && left <= 5 && left >= 3;
            });
            reach(
                    trial,
                    "the coordinated Lease apps/app handed away from n2 by " + OLD.version,
                    Duration.ofSeconds(30),
                    () -> "app-n6".equals(appHolder(cluster)));
            trial.note("upgrade (" + upgrade + "): " + podsOn(cluster, "n2", "web") + " of web's 6 pods left on n2");

            // ---- the upgrade
            Instance next;
            if (upgrade == Upgrade.ROLLING) {
                applyCrd(cluster, Path.of(NEW_CRD));
                next = trial.start("n", Duration.ZERO);
                reach(
                        trial,
                        "the new operator a standby",
                        Duration.ofSeconds(30),
                        () -> trial.leader().isEmpty() && electionReads(trial) > 0);
                old.stop();
            } else {
                old.stop();
                applyCrd(cluster, Path.of(NEW_CRD));
                next = trial.start("n", Duration.ZERO);
            }
            trial.awaitLeader(i -> i == next, Duration.ofSeconds(60));
            trial.note(next.id + " leads");

            // ---- the new operator carries every maintenance to its end
            reach(
                    trial,
                    "m-drain Succeeded",
                    Duration.ofSeconds(90),
                    () -> "Succeeded".equals(phase(cluster, "m-drain")));
            assertThat(phase(cluster, "m-done")).as("m-done after the upgrade").isEqualTo("Succeeded");
            assertThat(appHolder(cluster))
                    .as("apps/app's holder while n2 is in maintenance, after the upgrade")
                    .isEqualTo("app-n6");
            assertThat(phase(cluster, "m-failed"))
                    .as("m-failed after the upgrade")
                    .isEqualTo("Failed");
            assertThat(phase(cluster, "m-waiting"))
                    .as("m-waiting while " + FOREIGN_HOLDER + " holds n5")
                    .isEqualTo("Waiting");
            assertThat(annotation(cluster, "n4", MaintenanceAnnotation.STATUS))
                    .as("the door's maintenance on n4 after the upgrade")
                    .isEqualTo(MaintenanceAnnotation.ACTIVE);
            annotate(cluster, "n4", MaintenanceAnnotation.REQUEST, null);
            reach(
                    trial,
                    "the door's maintenance on n4 ended",
                    Duration.ofSeconds(60),
                    () -> annotation(cluster, "n4", MaintenanceAnnotation.STATE) == null
                            && restored(cluster, "n4").isEmpty());
            cluster.client()
                    .leases()
                    .inNamespace(NODE_LEASES)
                    .withName("node-n5")
                    .delete();
            reach(
                    trial,
                    "m-waiting Succeeded once " + FOREIGN_HOLDER + " let n5 go",
                    Duration.ofSeconds(90),
                    () -> "Succeeded".equals(phase(cluster, "m-waiting")));
            for (String m : MAINTENANCES) {
                cluster.client().resources(NodeMaintenance.class).withName(m).delete();
            }
            reach(
                    trial,
                    "every NodeMaintenance gone",
                    Duration.ofSeconds(60),
                    () -> cluster.client()
                            .resources(NodeMaintenance.class)
                            .list()
                            .getItems()
                            .isEmpty());
            reach(
                    trial,
                    "every node restored",
                    Duration.ofSeconds(30),
                    () -> List.of("n1", "n2", "n3", "n4").stream()
                            .allMatch(n -> restored(cluster, n).isEmpty()));
            reach(trial, "every workload at its replicas, Ready", Duration.ofSeconds(60), () -> allReady(cluster));

            // ---- judged at the API server
            assertThat(witness.violations())
                    .as("evictions judged as they arrived")
                    .isEmpty();
            assertThat(witness.evictedPods())
                    .as("pods evicted (web's 6 on n2, done's on n1, batch's 2 on n4 twice: door and m-waiting)")
                    .isGreaterThanOrEqualTo(9);
            List<Long> oldWork = old.workWrites();
            List<Long> newWork =
                    trial.writes.stream().map(OperatorChaosIT.Write::at).toList();
            assertThat(oldWork).as("the old operator's work writes").isNotEmpty();
            assertThat(newWork).as("the new operator's work writes").isNotEmpty();
            long lastOld = oldWork.stream().mapToLong(Long::longValue).max().orElseThrow();
            long firstNew = newWork.stream().mapToLong(Long::longValue).min().orElseThrow();
            trial.note("old's last work write " + trial.ms(lastOld) + ", new's first " + trial.ms(firstNew));
            System.out.printf(
                    "UpgradeIT %s: %d pods evicted (once each), %d work writes of %s, then %d of this build%n",
                    upgrade, witness.evictedPods(), oldWork.size(), OLD.version, newWork.size());
            assertThat(firstNew)
                    .as("the new operator's first work write comes after the old one's last (0 overlapping work)")
                    .isGreaterThan(lastOld);
        }
    }

    // ---- the previous release's process

    /** The previous release's operator: a child JVM; its work writes as the API server received them. */
    static final class OldOperator implements AutoCloseable {
        final Trial trial;
        final ConcurrentLinkedQueue<Long> writes = new ConcurrentLinkedQueue<>();
        final Path log;
        Process process;

        OldOperator(Trial trial) throws IOException {
            this.trial = trial;
            this.log = Files.createTempFile("upgrade-old-operator-", ".log");
            String agent = PreviousRelease.USER_AGENT_PREFIX + OLD_POD;
            trial.cluster.requests().observe(r -> {
                if (r.isWrite() && r.userAgent().equals(agent) && !operatorLease(r)) {
                    writes.add(System.nanoTime());
                }
            });
        }

        static boolean operatorLease(ApiRequest r) {
            return "leases".equals(r.resource())
                    && "tenure-system".equals(r.namespace())
                    && "tenure-operator".equals(r.name());
        }

        void start() {
            // the release's Deployment as shipped (its defaults), with the test's short leader-election timings
            process = OLD.start(
                    trial.cluster,
                    OLD_POD,
                    Map.of(
                            "tenure.leader-election.lease-duration", OperatorChaosIT.LD.toSeconds() + "s",
                            "tenure.leader-election.renew-deadline", OperatorChaosIT.RD.toSeconds() + "s",
                            "tenure.leader-election.retry-period", OperatorChaosIT.RETRY.toMillis() + "ms"),
                    log);
            trial.note(OLD.version + " starts (pid " + process.pid() + ", log " + log + ")");
        }

        /** SIGTERM, as the kubelet stops the old pod; waits for the exit. */
        void stop() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError("the old operator did not exit within 60 s of SIGTERM; log " + log);
            }
            trial.note(OLD.version + " exited " + process.exitValue());
        }

        List<Long> workWrites() {
            return List.copyOf(writes);
        }

        @Override
        public void close() throws IOException {
            if (process != null && process.isAlive()) {
                process.destroyForcibly();
            }
        }
    }

    // ---- the cluster

    static DrainWitness seed(EmulatedCluster cluster) {
        cluster.seed().namespace("tenure-system");
        cluster.seed().namespace(WORK);
        cluster.seed().namespace(NODE_LEASES);
        for (String n : List.of("n1", "n2", "n3", "n4", "n5", "n6", "n7")) {
            cluster.seed().node(n).create();
        }
        cluster.seed()
                .deployment("done")
                .namespace(WORK)
                .replicas(1)
                .onNodes("n1")
                .terminationDelay(Duration.ofMillis(200))
                .create();
        cluster.seed()
                .deployment("web")
                .namespace(WORK)
                .replicas(6)
                .onNodes("n2")
                .terminationDelay(Duration.ofMillis(1500))
                .create();
        cluster.seed()
                .pdb("web")
                .namespace(WORK)
                .selector("app", "web")
                .maxUnavailable(1)
                .create();
        cluster.seed()
                .deployment("stuck")
                .namespace(WORK)
                .replicas(1)
                .onNodes("n3")
                .terminationDelay(Duration.ofMillis(200))
                .create();
        cluster.seed()
                .pdb("stuck")
                .namespace(WORK)
                .selector("app", "stuck")
                .maxUnavailable(0)
                .create();
        cluster.seed()
                .deployment("batch")
                .namespace(WORK)
                .replicas(2)
                .onNodes("n4")
                .terminationDelay(Duration.ofMillis(200))
                .create();
        cluster.seed()
                .deployment("later")
                .namespace(WORK)
                .replicas(1)
                .onNodes("n5")
                .terminationDelay(Duration.ofMillis(200))
                .create();
        return DrainWitness.watch(cluster, WORK, Map.of(), Set.of(), t -> Long.toString(t));
    }

    /** LeaseCandidates of a coordinated election {@code apps/app} on n2 and n6 (MaintenanceAware). */
    static void seedCandidates(EmulatedCluster cluster) {
        cluster.seed().namespace(OperatorChaosIT.APPS_NS);
        for (String node : List.of("n2", "n6")) {
            cluster.workloadClient()
                    .resources(io.fabric8.kubernetes.api.model.coordination.v1beta1.LeaseCandidate.class)
                    .inNamespace(OperatorChaosIT.APPS_NS)
                    .resource(new io.fabric8.kubernetes.api.model.coordination.v1beta1.LeaseCandidateBuilder()
                            .withNewMetadata()
                            .withName("app-" + node)
                            .withNamespace(OperatorChaosIT.APPS_NS)
                            .withLabels(Map.of("tenure.dev/node", node))
                            .endMetadata()
                            .withNewSpec()
                            .withLeaseName("app")
                            .withEmulationVersion("1.31.0")
                            .withBinaryVersion("1.31.0")
                            .withStrategy(dev.tenure.coordination.MaintenanceAware.NAME)
                            .withRenewTime(new io.fabric8.kubernetes.api.model.MicroTime(
                                    OperatorChaosIT.MICRO.format(java.time.Instant.now())))
                            .endSpec()
                            .build())
                    .create();
        }
    }

    static String appHolder(EmulatedCluster cluster) {
        var lease = cluster.client()
                .leases()
                .inNamespace(OperatorChaosIT.APPS_NS)
                .withName("app")
                .get();
        return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    }

    /** The node's lease held by {@link #FOREIGN_HOLDER} for an hour, as node-maintenance-operator writes it. */
    static void holdForeign(EmulatedCluster cluster, String node) {
        cluster.client()
                .leases()
                .inNamespace(NODE_LEASES)
                .resource(new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder()
                        .withNewMetadata()
                        .withName("node-" + node)
                        .withNamespace(NODE_LEASES)
                        .endMetadata()
                        .withNewSpec()
                        .withHolderIdentity(FOREIGN_HOLDER)
                        .withLeaseDurationSeconds(3600)
                        .withAcquireTime(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC))
                        .withRenewTime(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC))
                        .endSpec()
                        .build())
                .create();
    }

    static void applyCrd(EmulatedCluster cluster, Path file) throws IOException {
        CustomResourceDefinition crd = Serialization.unmarshal(Files.readString(file), CustomResourceDefinition.class);
        crd.getMetadata().setResourceVersion(null);
        cluster.client().resource(crd).createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
    }

    /** A NodeMaintenance as a user of the old release writes it: only fields its API has. */
    static void createMaintenance(EmulatedCluster cluster, String name, String node, String drainTimeout) {
        String yaml = """
                apiVersion: tenure.dev/v1alpha1
                kind: NodeMaintenance
                metadata:
                  name: %s
                spec:
                  nodeName: %s
                  reason: upgrade suite
                  drain:
                    evictionRetryDelay: 250ms
                %s""".formatted(name, node, drainTimeout == null ? "" : "    timeout: " + drainTimeout + "\n");
        cluster.client()
                .genericKubernetesResources("tenure.dev/v1alpha1", "NodeMaintenance")
                .resource(Serialization.unmarshal(yaml, GenericKubernetesResource.class))
                .create();
    }

    static String phase(EmulatedCluster cluster, String name) {
        GenericKubernetesResource nm = cluster.client()
                .genericKubernetesResources("tenure.dev/v1alpha1", "NodeMaintenance")
                .withName(name)
                .get();
        if (nm == null || !(nm.getAdditionalProperties().get("status") instanceof Map<?, ?> status)) {
            return null;
        }
        Object phase = status.get("phase");
        return phase == null ? null : phase.toString();
    }

    static void annotate(EmulatedCluster cluster, String node, String key, String value) {
        String v = value == null ? "null" : "\"" + value + "\"";
        cluster.client()
                .nodes()
                .withName(node)
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"metadata\":{\"annotations\":{\"" + key + "\":" + v + "}}}");
    }

    static String annotation(EmulatedCluster cluster, String node, String key) {
        Node n = cluster.client().nodes().withName(node).get();
        Map<String, String> a = n.getMetadata().getAnnotations();
        return a == null ? null : a.get(key);
    }

    static long podsOn(EmulatedCluster cluster, String node, String app) {
        return cluster.client().pods().inNamespace(WORK).withLabel("app", app).list().getItems().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName())
                        && p.getMetadata().getDeletionTimestamp() == null)
                .count();
    }

    /** What is left of a maintenance on {@code node}: empty when it is back in service. */
    static List<String> restored(EmulatedCluster cluster, String node) {
        Node n = cluster.client().nodes().withName(node).get();
        List<String> left = new ArrayList<>();
        if (Boolean.TRUE.equals(n.getSpec().getUnschedulable())) {
            left.add("cordoned");
        }
        Optional.ofNullable(n.getSpec().getTaints()).orElse(List.of()).stream()
                .filter(t -> t.getKey().equals(NodeMarks.DRAIN_TAINT.getKey())
                        || t.getKey().equals(NodeMarks.UNSCHEDULABLE_TAINT.getKey()))
                .forEach(t -> left.add("taint " + t.getKey()));
        Map<String, String> a =
                Optional.ofNullable(n.getMetadata().getAnnotations()).orElse(Map.of());
        // the keys as 0.1.0 writes them (a contract with the old release, not this build's constants), and this build's
        for (String key : java.util.stream.Stream.of(
                        "tenure.dev/prior-state",
                        "tenure.dev/maintenance-annotation-state",
                        NodeMarks.PRIOR_STATE,
                        MaintenanceAnnotation.STATE)
                .distinct()
                .toList()) {
            if (a.containsKey(key)) {
                left.add("annotation " + key);
            }
        }
        return left;
    }

    /** Every ReplicaSet's replicas exist, bound and Ready, none terminating. */
    static boolean allReady(EmulatedCluster cluster) {
        for (ReplicaSet rs :
                cluster.client().apps().replicaSets().inNamespace(WORK).list().getItems()) {
            String app = rs.getSpec().getSelector().getMatchLabels().get("app");
            long ready = cluster.client().pods().inNamespace(WORK).withLabel("app", app).list().getItems().stream()
                    .filter(p -> p.getMetadata().getDeletionTimestamp() == null && ready(p))
                    .count();
            if (ready < rs.getSpec().getReplicas()) {
                return false;
            }
        }
        return true;
    }

    static boolean ready(Pod p) {
        return p.getStatus() != null
                && p.getStatus().getConditions() != null
                && p.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    static long electionReads(Trial trial) {
        return trial.cluster.requests().all().stream()
                .filter(r -> r.userAgent().endsWith(OperatorChaosIT.ELECTION_SUFFIX) && OldOperator.operatorLease(r))
                .count();
    }

    static void reach(Trial trial, String step, Duration within, java.util.concurrent.Callable<Boolean> what) {
        List<String> stuck = new ArrayList<>();
        if (!trial.reach(step, within, what, stuck)) {
            StringBuilder phases = new StringBuilder();
            for (String m : MAINTENANCES) {
                phases.append(m).append('=').append(phase(trial.cluster, m)).append(' ');
            }
            for (String n : List.of("n1", "n2", "n3", "n4", "n5")) {
                phases.append(n).append(restored(trial.cluster, n)).append(' ');
            }
            throw new AssertionError(stuck + " (" + phases + ")\n"
                    + trial.trace.stream()
                            .filter(line -> !line.contains(OperatorChaosIT.ELECTION_SUFFIX))
                            .collect(java.util.stream.Collectors.joining("\n")));
        }
    }
}
