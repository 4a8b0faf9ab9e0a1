package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMachineIT;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.MutableClock;
import dev.tenure.testsupport.SecondLane;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 49 item 3 on the emulated cluster: a drain that waits names every pod it waits on with the cause class and the
 * PodDisruptionBudgets that select it, their numbers as the disruption controller keeps them, in status
 * ({@code drainPlan.waveBlockedBy}), in a Warning event and in the timeout message. The machine is driven step by step
 * as the reconciler drives it, its state going through the NodeMaintenance status each time; the pods are listed by
 * node and their evictions reach the API server (and are refused there).
 */
@EndToEnd
@SecondLane
class BlockedDrainIT {

    MutableClock clock;
    EmulatedCluster cluster;
    KubernetesClient client;
    ExecutorService pool;
    ExecutorScheduler heartbeats;
    MaintenanceMachine machine;
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    final MaintenanceEvents sink = (warning, reason, message) -> events.add(reason + ": " + message);

    @BeforeEach
    void start() {
        clock = MutableClock.atSystemTime();
        cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests().clock(clock));
        client = cluster.client();
        pool = Executors.newFixedThreadPool(4);
        heartbeats = new ExecutorScheduler("test-heartbeats");
        KubernetesClient operator = cluster.operatorClient();
        machine = new MaintenanceMachine(
                operator,
                new KubeLeaseStore(operator),
                (node, started, now) -> LeadershipHandover.Outcome.complete("nothing held"),
                new MaintenanceMetrics(new SimpleMeterRegistry()),
                MaintenanceMachineIT.SETTINGS,
                pool,
                heartbeats,
                clock);
        cluster.seed().node("w1").role("worker").create();
        cluster.seed().node("w2").role("worker").create();
    }

    @AfterEach
    void stop() {
        machine.close();
        heartbeats.close();
        pool.shutdownNow();
        cluster.close();
    }

    /** {@code {nodeName: w2, drain: {timeout: 15s}}}, evictions retried every 500ms. */
    static MaintenanceRequest request() {
        DrainSpec drain = new DrainSpec();
        drain.setTimeout("15s");
        drain.setEvictionRetryDelay("500ms");
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("w2", "blocked drain");
        spec.setDrain(drain);
        return MaintenanceRequest.from(spec);
    }

    /** Reconciles, the clock 250 ms further each time, until the status {@code until} holds; returns that status. */
    NodeMaintenanceStatus drive(Predicate<NodeMaintenanceStatus> until) {
        MaintenanceRequest request = request();
        AtomicReference<MaintenanceState> state = new AtomicReference<>(MaintenanceState.initial());
        AtomicReference<NodeMaintenanceStatus> status = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    clock.advance(Duration.ofMillis(250));
                    MaintenanceState next =
                            machine.advance(request, state.get(), false, sink).state();
                    NodeMaintenanceStatus written = NodeMaintenanceStatuses.toStatus(next, null, 1, clock.instant());
                    status.set(written);
                    state.set(NodeMaintenanceStatuses.toState(written));
                    return until.test(written);
                });
        return status.get();
    }

    /**
     * Until the living cluster's disruption controller has written the budget's status (its rounds run beside the test):
     * the numbers the drain names are the ones it wrote.
     */
    void awaitBudgetStatus(String namespace, String name, int expectedPods) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            var pdb = client.policy()
                    .v1()
                    .podDisruptionBudget()
                    .inNamespace(namespace)
                    .withName(name)
                    .get();
            return pdb != null
                    && pdb.getStatus() != null
                    && pdb.getStatus().getExpectedPods() != null
                    && pdb.getStatus().getExpectedPods() == expectedPods;
        });
    }

    static boolean waiting(NodeMaintenanceStatus s, String text) {
        return s.getDrainPlan() != null
                && s.getDrainPlan().getWaveBlockedBy() != null
                && s.getDrainPlan().getWaveBlockedBy().stream().anyMatch(b -> b.contains(text));
    }

    long evictionsOf(String namespace) {
        return cluster.requests().count(r -> r.is("create", "pods", "eviction") && namespace.equals(r.namespace()));
    }

    boolean listedPodsByNode() {
        return cluster.requests()
                        .count(r -> r.is("list", "pods")
                                && "spec.nodeName=w2".equals(r.query().get("fieldSelector")))
                > 0;
    }

    List<String> eventsOf(String reason) {
        synchronized (events) {
            return events.stream().filter(e -> e.startsWith(reason + ": ")).toList();
        }
    }

    @Test
    void aPodTwoBudgetsSelectIsNamedWithBothBudgetsInStatusEventAndTimeout() {
        // the smallest input: two PDBs selecting app=yy, one Ready pod with that label on w2
        cluster.seed().pod("yy").namespace("yy").label("app", "yy").onNode("w2").create();
        cluster.seed()
                .pdb("first")
                .namespace("yy")
                .selector("app", "yy")
                .minAvailable(0)
                .create();
        cluster.seed()
                .pdb("second")
                .namespace("yy")
                .selector("app", "yy")
                .maxUnavailable(1)
                .create();

        NodeMaintenanceStatus blocked = drive(s -> waiting(s, "yy/yy (two budgets (500)"));
        assertThat(blocked.getDrainPlan().getWaveBlockedBy())
                .singleElement()
                .asString()
                .contains("PodDisruptionBudget yy/first (")
                .contains("yy/second (")
                .contains("unhealthyPodEvictionPolicy IfHealthyBudget")
                .doesNotContain("not yet evicted");
        assertThat(eventsOf(MaintenanceEvents.DRAIN_BLOCKED))
                .as("one Warning naming the pod, its cause and both budgets")
                .singleElement()
                .asString()
                .contains("yy/yy (two budgets (500); PodDisruptionBudget yy/first (", "yy/second (");

        NodeMaintenanceStatus failed = drive(s -> s.getPhase() == Phase.Failed);
        assertThat(failed.getLastError())
                .contains("did not finish within 15s")
                .contains("yy/yy (two budgets (500); PodDisruptionBudget yy/first (")
                .contains("yy/second (");
        assertThat(listedPodsByNode())
                .as("pods listed with fieldSelector spec.nodeName=w2")
                .isTrue();
        assertThat(evictionsOf("yy")).as("the eviction was sent, and refused").isGreaterThanOrEqualTo(2);
        assertThat(client.pods().inNamespace("yy").withName("yy").get()).isNotNull();
        assertThat(eventsOf(MaintenanceEvents.DRAIN_BLOCKED))
                .as("once per pod and cause")
                .hasSize(1);
    }

    @Test
    void aBudgetWithoutASpareReplicaIsNamedWithItsNumbers() {
        try (EmulatedCluster.Living living = cluster.living("web", Duration.ofHours(1))) {
            cluster.seed()
                    .deployment("web")
                    .namespace("web")
                    .replicas(2)
                    .onNodes("w1", "w2")
                    .create();
            cluster.seed()
                    .pdb("web")
                    .namespace("web")
                    .selector("app", "web")
                    .minAvailable(2)
                    .create();
            awaitBudgetStatus("web", "web", 2);

            NodeMaintenanceStatus blocked = drive(s -> waiting(s, "(no spare replica; PodDisruptionBudget web/web ("));
            assertThat(blocked.getDrainPlan().getWaveBlockedBy())
                    .singleElement()
                    .asString()
                    .contains("currentHealthy 2, desiredHealthy 2, expectedPods 2, disruptionsAllowed 0");
            assertThat(evictionsOf("web")).isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void aBudgetWaitingForUnreadyReplicasSaysSo() {
        try (EmulatedCluster.Living living = cluster.living("web", Duration.ofHours(1))) {
            cluster.seed()
                    .deployment("web")
                    .namespace("web")
                    .replicas(2)
                    .onNodes("w1", "w2")
                    .create();
            // a third selected pod, elsewhere and not Ready: the budget has 2 healthy of 3 expected
            cluster.seed()
                    .pod("stray")
                    .namespace("web")
                    .label("app", "web")
                    .onNode("w1")
                    .notReady()
                    .create();
            cluster.seed()
                    .pdb("web")
                    .namespace("web")
                    .selector("app", "web")
                    .minAvailable(2)
                    .create();
            awaitBudgetStatus("web", "web", 3);

            NodeMaintenanceStatus blocked =
                    drive(s -> waiting(s, "(replicas not Ready; PodDisruptionBudget web/web ("));
            assertThat(blocked.getDrainPlan().getWaveBlockedBy())
                    .singleElement()
                    .asString()
                    .contains("currentHealthy 2, desiredHealthy 2, expectedPods 3, disruptionsAllowed 0");
        }
    }

    @Test
    void aPodInATerminatingNamespaceIsNamedWithThe403() {
        // a namespace being deleted (status.phase Terminating, as the namespace controller leaves it meanwhile)
        cluster.seed()
                .object(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                        .withNewMetadata()
                        .withName("leaving")
                        .endMetadata()
                        .withNewStatus()
                        .withPhase("Terminating")
                        .endStatus()
                        .build());
        cluster.seed().pod("gone").namespace("leaving").onNode("w2").create();

        NodeMaintenanceStatus blocked = drive(s -> waiting(s, "leaving/gone (namespace terminating (403)"));
        assertThat(evictionsOf("leaving")).isGreaterThanOrEqualTo(1);
        assertThat(eventsOf(MaintenanceEvents.DRAIN_BLOCKED))
                .singleElement()
                .asString()
                .contains("leaving/gone (namespace terminating (403))");
        assertThat(blocked.getPhase()).isEqualTo(Phase.Running);
    }
}
