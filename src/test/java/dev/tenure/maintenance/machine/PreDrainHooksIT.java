package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.TimeoutOutcome;
import dev.tenure.maintenance.machine.MaintenanceHooks.Hooks;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.MutableClock;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
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
 * Pre-drain hooks in the maintenance machine on the emulated cluster, step by step on a clock the test moves: the
 * hooks hold the drain (cordoned, nothing evicted), their removal lets it go on, and a timeout ends the maintenance
 * cleanly (node restored, lease released, nothing evicted). The state goes through the NodeMaintenance status at
 * every step, as the reconciler keeps it.
 */
@EndToEnd
class PreDrainHooksIT {

    static final Duration HOOK_TIMEOUT = Duration.ofMinutes(10);

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
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(2)
                .onNodes("w1")
                .create();
    }

    @AfterEach
    void stop() {
        machine.close();
        heartbeats.close();
        pool.shutdownNow();
        cluster.close();
    }

    static MaintenanceRequest request(String... preDrainHooks) {
        return MaintenanceMachineIT.request("w1").withHooks(new Hooks(List.of(preDrainHooks), List.of(), HOOK_TIMEOUT));
    }

    /** One reconcile: the state round-trips through the status, as the NodeMaintenance door keeps it. */
    MaintenanceState step(MaintenanceRequest request, MaintenanceState state) {
        MaintenanceState next = machine.advance(request, state, false, sink).state();
        return NodeMaintenanceStatuses.toState(NodeMaintenanceStatuses.toStatus(next, null, 1, clock.instant()));
    }

    MaintenanceState drive(MaintenanceRequest request, MaintenanceState from, Predicate<MaintenanceState> until) {
        AtomicReference<MaintenanceState> state = new AtomicReference<>(from);
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    clock.advance(Duration.ofMillis(100));
                    state.set(step(request, state.get()));
                    return until.test(state.get());
                });
        return state.get();
    }

    long evictions() {
        return cluster.requests().count(ApiRequest.resource("pods", "eviction"));
    }

    List<Pod> podsOnW1() {
        return client.pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> "w1".equals(p.getSpec().getNodeName()))
                .toList();
    }

    @Test
    void preDrainHooksHoldTheCordonedNodeUndrainedUntilTheLastIsRemoved() {
        MaintenanceState held =
                drive(request("rook-ceph", "app"), MaintenanceState.initial(), s -> s.hookWait() != null);
        for (int i = 0; i < 5; i++) { // more reconciles while held: still nothing evicted
            clock.advance(Duration.ofSeconds(30));
            held = step(request("rook-ceph", "app"), held);
        }

        assertThat(held.phase()).isEqualTo(Phase.Running);
        assertThat(held.hookWait().point()).isEqualTo(MaintenanceHooks.Point.PreDrain);
        assertThat(held.hookWait().owners()).containsExactly("app", "rook-ceph");
        assertThat(held.drainStartedAt()).isNull();
        assertThat(client.nodes().withName("w1").get().getSpec().getUnschedulable())
                .isTrue();
        assertThat(evictions()).isZero();
        assertThat(podsOnW1()).hasSize(2);
        assertThat(events.stream().filter(e -> e.startsWith(MaintenanceEvents.HOOKS_WAITING)))
                .singleElement()
                .satisfies(e ->
                        assertThat(e).contains("pre-drain.hooks.tenure.dev/app, pre-drain.hooks.tenure.dev/rook-ceph"));

        held = step(request("rook-ceph"), held); // one removed: still held, by the other one
        assertThat(held.hookWait().owners()).containsExactly("rook-ceph");
        assertThat(evictions()).isZero();

        MaintenanceState done = drive(request(), held, s -> s.phase() == Phase.Succeeded);

        assertThat(done.hookWait()).isNull();
        assertThat(evictions()).isEqualTo(2);
        assertThat(events).anyMatch(e -> e.startsWith(MaintenanceEvents.HOOKS_RELEASED));
    }

    @Test
    void aHookLeftInPlacePastTheTimeoutEndsTheMaintenanceCleanly() {
        MaintenanceState held = drive(request("rook-ceph"), MaintenanceState.initial(), s -> s.hookWait() != null);

        clock.advance(HOOK_TIMEOUT.minusSeconds(1));
        held = step(request("rook-ceph"), held);
        assertThat(held.phase()).isEqualTo(Phase.Running);
        clock.advance(Duration.ofSeconds(1));
        MaintenanceState ended = step(request("rook-ceph"), held);

        assertThat(ended.phase()).isEqualTo(Phase.Ended);
        assertThat(ended.lastError())
                .isEqualTo("PreDrain hook(s) pre-drain.hooks.tenure.dev/rook-ceph still present after 10m"
                        + " (spec.hooks.timeout) (spec.hooks.onTimeout Restore); maintenance of node w1 ended: node"
                        + " restored, lease released");
        Node node = client.nodes().withName("w1").get();
        assertThat(node.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
        assertThat(node.getSpec().getTaints()).isEmpty();
        assertThat(client.leases()
                        .inNamespace("tenure-system")
                        .withName("node-w1")
                        .get()
                        .getSpec()
                        .getHolderIdentity())
                .isNull();
        assertThat(evictions()).isZero();
        assertThat(podsOnW1()).hasSize(2);
        assertThat(events).anyMatch(e -> e.startsWith(MaintenanceEvents.TIMEOUT_RESTORED));

        assertThat(step(request("rook-ceph"), ended)).isEqualTo(ended); // Ended is final
    }

    static MaintenanceRequest request(TimeoutOutcome onTimeout, String... preDrainHooks) {
        return MaintenanceMachineIT.request("w1")
                .withHooks(new Hooks(List.of(preDrainHooks), List.of(), HOOK_TIMEOUT, onTimeout));
    }

    /** Issue 37: spec.hooks.onTimeout Fail keeps the node cordoned and undrained, phase Failed, and stays so. */
    @Test
    void aHookLeftInPlacePastTheTimeoutWithFailFailsTheMaintenanceCordoned() {
        MaintenanceRequest request = request(TimeoutOutcome.Fail, "rook-ceph");
        MaintenanceState held = drive(request, MaintenanceState.initial(), s -> s.hookWait() != null);

        clock.advance(HOOK_TIMEOUT);
        MaintenanceState failed = step(request, held);
        for (int i = 0; i < 3; i++) { // held as Failed: renewed, nothing evicted
            clock.advance(Duration.ofSeconds(1));
            failed = step(request, failed);
        }

        assertThat(failed.phase()).isEqualTo(Phase.Failed);
        assertThat(failed.lastError())
                .isEqualTo("PreDrain hook(s) pre-drain.hooks.tenure.dev/rook-ceph still present after 10m"
                        + " (spec.hooks.timeout) (spec.hooks.onTimeout Fail); node w1 stays cordoned");
        assertThat(client.nodes().withName("w1").get().getSpec().getUnschedulable())
                .isTrue();
        assertThat(client.leases()
                        .inNamespace("tenure-system")
                        .withName("node-w1")
                        .get()
                        .getSpec()
                        .getHolderIdentity())
                .isNotNull();
        assertThat(evictions()).isZero();
        assertThat(podsOnW1()).hasSize(2);
        assertThat(events).anyMatch(e -> e.startsWith(MaintenanceEvents.HOOK_TIMED_OUT));
    }

    /** Issue 37: spec.hooks.onTimeout Proceed drains anyway and names the hook owners still holding. */
    @Test
    void aHookLeftInPlacePastTheTimeoutWithProceedDrainsAnyway() {
        MaintenanceRequest request = request(TimeoutOutcome.Proceed, "rook-ceph");
        MaintenanceState held = drive(request, MaintenanceState.initial(), s -> s.hookWait() != null);
        clock.advance(HOOK_TIMEOUT);

        MaintenanceState done = drive(request, held, s -> s.phase() == Phase.Succeeded);

        assertThat(evictions()).isEqualTo(2);
        assertThat(podsOnW1()).isEmpty();
        assertThat(client.nodes().withName("w1").get().getSpec().getUnschedulable())
                .isTrue();
        assertThat(done.hookWait()).isNull();
        assertThat(done.timeoutsPassed()).containsExactly("PreDrainHooks: hook owner(s) still holding: rook-ceph");
        assertThat(events).anyMatch(e -> e.startsWith(MaintenanceEvents.TIMEOUT_PASSED) && e.contains("rook-ceph"));
    }
}
