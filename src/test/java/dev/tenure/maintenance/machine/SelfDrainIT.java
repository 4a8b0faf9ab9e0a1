package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.LeaderElector;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.MutableClock;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 18.4: a node-maintenance operator must survive draining its own node. Two replicas, each an elector
 * on the tenure-operator Lease (real threads, real time) and a maintenance machine, run as pods on w1 and
 * w2 with the PodDisruptionBudget the manifests ship (maxUnavailable 1). The leader, on w1, is asked to
 * put w1 into maintenance: its drain evicts its own pod, the replica stops as a terminated pod does
 * (releasing the Lease), the standby on w2 leads within the lease bound and carries the maintenance on
 * from the persisted status to Succeeded, with no step lost and never two leaders.
 */
@EndToEnd
class SelfDrainIT {

    static final LeaseKey OPERATOR_LEASE = LeaseKey.of("tenure-system", "tenure-operator");
    static final Duration LEASE_DURATION = Duration.ofSeconds(4);
    static final String OPERATOR_LABEL = "app.kubernetes.io/name";

    MutableClock clock;
    EmulatedCluster cluster;
    KubernetesClient client;
    ExecutorService pool;
    ExecutorScheduler heartbeats;
    final List<Replica> replicas = new ArrayList<>();
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    final List<Interval> leading = Collections.synchronizedList(new ArrayList<>());
    final MaintenanceEvents sink = (warning, reason, message) -> events.add(reason + ": " + message);

    record Interval(String replica, Instant start, Instant end) {}

    /** One operator replica: its pod, its elector, its machine. */
    final class Replica {
        final String pod;
        final LeaderElector elector;
        final MaintenanceMachine machine;
        final ExecutorScheduler scheduler;
        volatile Instant stoppedAt;
        volatile Instant startedLeadingAt;

        Replica(String pod) {
            this.pod = pod;
            KubernetesClient operator = cluster.operatorClient();
            scheduler = new ExecutorScheduler("elector-" + pod);
            AtomicReference<Instant> open = new AtomicReference<>();
            elector = LeaderElector.builder()
                    .lease(OPERATOR_LEASE)
                    .identity(pod)
                    .leaseDuration(LEASE_DURATION)
                    .renewDeadline(Duration.ofSeconds(2))
                    .retryPeriod(Duration.ofMillis(400))
                    .store(new KubeLeaseStore(operator))
                    .scheduler(scheduler)
                    .clock(Clock.systemUTC())
                    .monotonic(dev.tenure.election.MonotonicClock.system())
                    .random(new Random(pod.hashCode()))
                    .onStartedLeading(() -> {
                        open.set(Instant.now());
                        startedLeadingAt = open.get();
                    })
                    .onStoppedLeading(() -> {
                        Instant s = open.getAndSet(null);
                        if (s != null) {
                            leading.add(new Interval(pod, s, Instant.now()));
                        }
                    })
                    .build();
            machine = new MaintenanceMachine(
                    operator,
                    new KubeLeaseStore(operator),
                    (node, started, now) -> LeadershipHandover.Outcome.complete("nothing held"),
                    new MaintenanceMetrics(new SimpleMeterRegistry()),
                    MaintenanceMachineIT.SETTINGS,
                    pool,
                    heartbeats,
                    clock);
        }

        boolean running() {
            return stoppedAt == null;
        }

        /** What the kubelet's SIGTERM does to the operator: stop reconciling, release the Lease. */
        void terminate() {
            elector.stop();
            machine.close();
            stoppedAt = Instant.now();
        }
    }

    @BeforeEach
    void start() {
        clock = MutableClock.atSystemTime();
        cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests().clock(clock));
        client = cluster.client();
        pool = Executors.newFixedThreadPool(4);
        heartbeats = new ExecutorScheduler("test-heartbeats");
        cluster.seed().node("w1").role("worker").create();
        cluster.seed().node("w2").role("worker").create();
    }

    @AfterEach
    void stop() {
        replicas.stream().filter(Replica::running).forEach(Replica::terminate);
        replicas.forEach(r -> r.scheduler.close());
        heartbeats.close();
        pool.shutdownNow();
        cluster.close();
    }

    @Test
    void theLeaderDrainsItsOwnNodeAndTheStandbyFinishesTheMaintenance() {
        cluster.seed()
                .deployment("tenure-operator")
                .namespace("tenure-system")
                .replicas(2)
                .onNodes("w1", "w2")
                .label(OPERATOR_LABEL, "tenure-operator")
                .create();
        cluster.seed()
                .pdb("tenure-operator")
                .namespace("tenure-system")
                .selector(OPERATOR_LABEL, "tenure-operator")
                .maxUnavailable(1)
                .create();
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(4)
                .onNodes("w1", "w2")
                .create();
        String podOnW1 = operatorPodOn("w1");
        String podOnW2 = operatorPodOn("w2");
        List<String> webOnW1 = podsOn("w1").stream()
                .map(p -> p.getMetadata().getName())
                .filter(n -> n.startsWith("web"))
                .toList();
        assertThat(webOnW1).hasSize(2);

        // The replica on w1 leads; the one on w2 stands by.
        Replica a = new Replica(podOnW1);
        replicas.add(a);
        a.elector.start();
        await().atMost(Duration.ofSeconds(10)).until(a.elector::isLeader);
        Replica b = new Replica(podOnW2);
        replicas.add(b);
        b.elector.start();

        MaintenanceRequest request = new MaintenanceRequest(
                "w1",
                "kernel upgrade",
                Optional.empty(),
                DrainOptions.from(new DrainSpec()),
                HandoverOptions.defaults());
        // The NodeMaintenance status: what each reconcile starts from, whoever runs it.
        AtomicReference<MaintenanceState> status = new AtomicReference<>(MaintenanceState.initial());
        List<String> stepsBy = Collections.synchronizedList(new ArrayList<>());
        await().atMost(Duration.ofSeconds(40))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    clock.advance(Duration.ofMillis(100));
                    for (Replica r : replicas) {
                        if (r.running() && podGoneOrTerminating(r.pod)) {
                            r.terminate();
                        }
                    }
                    Replica leader = replicas.stream()
                            .filter(r -> r.running() && r.elector.isLeader())
                            .findFirst()
                            .orElse(null);
                    if (leader == null) {
                        return false; // between leaders: nobody reconciles
                    }
                    MaintenanceState next = leader.machine
                            .advance(request, status.get(), false, sink)
                            .state();
                    status.set(NodeMaintenanceStatuses.toState(
                            NodeMaintenanceStatuses.toStatus(next, null, 1, clock.instant())));
                    stepsBy.add(leader.pod + ":" + next.phase());
                    return next.phase() == Phase.Succeeded;
                });

        // The drain listed w1's pods and evicted the leader's own pod through the Eviction API (the PDB allowed one).
        assertThat(cluster.requests()
                        .count(r -> r.is("list", "pods")
                                && "spec.nodeName=w1".equals(r.query().get("fieldSelector"))))
                .isPositive();
        assertThat(cluster.requests()
                        .count(ApiRequest.resource("pods", "eviction").and(ApiRequest.named(podOnW1))))
                .as("eviction of the leader's own pod")
                .isPositive();
        assertThat(a.stoppedAt).as("the evicted replica stopped").isNotNull();
        // The standby led within the lease bound of the old leader stopping, and finished the maintenance.
        assertThat(b.startedLeadingAt).isNotNull();
        assertThat(Duration.between(a.stoppedAt, b.startedLeadingAt))
                .as("handover gap")
                .isLessThanOrEqualTo(LEASE_DURATION);
        assertThat(stepsBy).anyMatch(s -> s.startsWith(podOnW1 + ":")).anyMatch(s -> s.startsWith(podOnW2 + ":"));
        assertThat(stepsBy.get(stepsBy.size() - 1)).isEqualTo(podOnW2 + ":Succeeded");
        // No step lost: every pod that was on w1 was evicted and is gone; the node stays cordoned.
        MaintenanceState done = status.get();
        assertThat(done.evictionPods()).isEqualTo(3);
        assertThat(done.drainProgress()).isEqualTo(100);
        assertThat(done.pendingPods()).isEmpty();
        webOnW1.forEach(p -> assertThat(cluster.requests()
                        .count(ApiRequest.resource("pods", "eviction").and(ApiRequest.named(p))))
                .as("eviction of " + p)
                .isPositive());
        assertThat(podsOn("w1")).isEmpty();
        assertThat(podsOn("w2")).extracting(p -> p.getMetadata().getName()).contains(podOnW2);
        assertThat(client.nodes().withName("w1").get().getSpec().getUnschedulable())
                .isTrue();
        assertThat(client.leases()
                        .inNamespace("tenure-system")
                        .withName("node-w1")
                        .get()
                        .getSpec()
                        .getHolderIdentity())
                .isEqualTo("tenure");
        assertThat(events).anyMatch(e -> e.startsWith("SucceedMaintenance"));
        // Never two leaders at once (intervals of leading, on real time).
        for (Interval x : leading) {
            for (Interval y : leading) {
                if (x != y) {
                    assertThat(x.start().isBefore(y.end()) && y.start().isBefore(x.end()))
                            .as(x + " overlaps " + y)
                            .isFalse();
                }
            }
        }
    }

    String operatorPodOn(String node) {
        return podsOn(node).stream()
                .filter(p ->
                        "tenure-operator".equals(p.getMetadata().getLabels().get(OPERATOR_LABEL)))
                .map(p -> p.getMetadata().getName())
                .findFirst()
                .orElseThrow();
    }

    boolean podGoneOrTerminating(String name) {
        Pod pod = client.pods().inNamespace("tenure-system").withName(name).get();
        return pod == null || pod.getMetadata().getDeletionTimestamp() != null;
    }

    List<Pod> podsOn(String node) {
        return client.pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName()))
                .toList();
    }
}
