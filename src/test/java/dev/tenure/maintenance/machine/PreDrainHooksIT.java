package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.HooksSpec;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.TimeoutOutcome;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.MutableClock;
import dev.tenure.testsupport.SecondLane;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lifecycle hooks in the maintenance machine on the emulated cluster, step by step on a clock the test moves: the
 * pre-drain hooks hold the drain (cordoned, nothing evicted), their removal lets it go on, and a timeout ends the
 * maintenance cleanly (node restored, lease released, nothing evicted); the pre-uncordon hooks hold the node in
 * maintenance at every end the machine reaches by itself (window over, pre-drain hooks timed out). The hooks are
 * annotations on a NodeMaintenance on the API server, read at every step as the door reads them; the state goes
 * through the NodeMaintenance status at every step, as the reconciler keeps it.
 */
@EndToEnd
@SecondLane
class PreDrainHooksIT {

    static final Duration HOOK_TIMEOUT = Duration.ofMinutes(10);
    static final MaintenanceHooks.Point PRE_DRAIN = MaintenanceHooks.Point.PreDrain;
    static final MaintenanceHooks.Point PRE_UNCORDON = MaintenanceHooks.Point.PreUncordon;

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

    /** The NodeMaintenance whose annotations carry the hooks; its spec says the hooks' timeout (and a window). */
    void createMaintenance(String window) {
        createMaintenance(window, null);
    }

    void createMaintenance(String window, TimeoutOutcome onTimeout) {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("w1", "kernel upgrade");
        HooksSpec hooks = new HooksSpec(GoDuration.format(HOOK_TIMEOUT));
        hooks.setOnTimeout(onTimeout);
        spec.setHooks(hooks);
        spec.setWindow(window);
        client.resource(new NodeMaintenance("m", spec)).create();
    }

    /** Another controller adds its hook: an annotation on the NodeMaintenance. */
    void addHook(MaintenanceHooks.Point point, String owner) {
        client.resources(NodeMaintenance.class).withName("m").edit(nm -> {
            Map<String, String> annotations = new HashMap<>();
            if (nm.getMetadata().getAnnotations() != null) {
                annotations.putAll(nm.getMetadata().getAnnotations());
            }
            annotations.put(point.prefix() + owner, "");
            nm.getMetadata().setAnnotations(annotations);
            return nm;
        });
    }

    /** ... and removes it when its work is done. */
    void removeHook(MaintenanceHooks.Point point, String owner) {
        client.resources(NodeMaintenance.class).withName("m").edit(nm -> {
            nm.getMetadata().getAnnotations().remove(point.prefix() + owner);
            return nm;
        });
    }

    /** The request as the door builds it: the spec, and the hooks from the annotations on the API server now. */
    MaintenanceRequest request() {
        NodeMaintenance nm =
                client.resources(NodeMaintenance.class).withName("m").get();
        MaintenanceRequest request = MaintenanceRequest.from(nm.getSpec(), "w1");
        return request.withHooks(
                request.hooks().withAnnotations(nm.getMetadata().getAnnotations()));
    }

    /** One reconcile: the state round-trips through the status, as the NodeMaintenance door keeps it. */
    MaintenanceState step(MaintenanceRequest request, MaintenanceState state) {
        MaintenanceState next = machine.advance(request, state, false, sink).state();
        return NodeMaintenanceStatuses.toState(NodeMaintenanceStatuses.toStatus(next, null, 1, clock.instant()));
    }

    MaintenanceState step(MaintenanceState state) {
        return step(request(), state);
    }

    MaintenanceState drive(MaintenanceState from, Predicate<MaintenanceState> until) {
        AtomicReference<MaintenanceState> state = new AtomicReference<>(from);
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    clock.advance(Duration.ofMillis(100));
                    state.set(step(state.get()));
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

    boolean cordoned() {
        return Boolean.TRUE.equals(client.nodes().withName("w1").get().getSpec().getUnschedulable());
    }

    String leaseHolder() {
        return client.leases()
                .inNamespace("tenure-system")
                .withName("node-w1")
                .get()
                .getSpec()
                .getHolderIdentity();
    }

    @Test
    void preDrainHooksHoldTheCordonedNodeUndrainedUntilTheLastIsRemoved() {
        createMaintenance(null);
        addHook(PRE_DRAIN, "rook-ceph");
        addHook(PRE_DRAIN, "app");
        MaintenanceState held = drive(MaintenanceState.initial(), s -> s.hookWait() != null);
        for (int i = 0; i < 5; i++) { // more reconciles while held: still nothing evicted
            clock.advance(Duration.ofSeconds(30));
            held = step(held);
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

        removeHook(PRE_DRAIN, "app");
        held = step(held); // one removed: still held, by the other one
        assertThat(held.hookWait().owners()).containsExactly("rook-ceph");
        assertThat(evictions()).isZero();

        removeHook(PRE_DRAIN, "rook-ceph");
        MaintenanceState done = drive(held, s -> s.phase() == Phase.Succeeded);

        assertThat(done.hookWait()).isNull();
        assertThat(evictions()).isEqualTo(2);
        assertThat(events).anyMatch(e -> e.startsWith(MaintenanceEvents.HOOKS_RELEASED));
    }

    @Test
    void aHookLeftInPlacePastTheTimeoutEndsTheMaintenanceCleanly() {
        createMaintenance(null);
        addHook(PRE_DRAIN, "rook-ceph");
        MaintenanceState held = drive(MaintenanceState.initial(), s -> s.hookWait() != null);

        clock.advance(HOOK_TIMEOUT.minusSeconds(1));
        held = step(held);
        assertThat(held.phase()).isEqualTo(Phase.Running);
        clock.advance(Duration.ofSeconds(1));
        MaintenanceState ended = step(held);

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

        assertThat(step(ended)).isEqualTo(ended); // Ended is final
    }

    /** Issue 37: the end of spec.window used to restore the node at once, whatever pre-uncordon hook was on it. */
    @Test
    void theEndOfTheWindowWaitsForThePreUncordonHooks() {
        createMaintenance("1m");
        addHook(PRE_UNCORDON, "upgrade-check");
        MaintenanceState drained = drive(MaintenanceState.initial(), s -> s.phase() == Phase.Succeeded);

        clock.advance(Duration.ofMinutes(1)); // the window is over
        MaintenanceState held = step(drained);
        for (int i = 0; i < 3; i++) { // past the window's lease padding: the lease is kept while the hook holds
            clock.advance(Duration.ofSeconds(20));
            held = step(held);
        }

        assertThat(held.phase()).isEqualTo(Phase.Succeeded);
        assertThat(held.hookWait().point()).isEqualTo(PRE_UNCORDON);
        assertThat(held.hookWait().owners()).containsExactly("upgrade-check");
        assertThat(held.lastError()).isEqualTo("maintenance window of 1m is over");
        assertThat(cordoned()).isTrue();
        assertThat(leaseHolder()).isEqualTo("tenure");
        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.HOOKS_WAITING))
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .contains("maintenance window of 1m is over; waiting for PreUncordon hook(s)"
                                + " pre-uncordon.hooks.tenure.dev/upgrade-check"));

        removeHook(PRE_UNCORDON, "upgrade-check");
        MaintenanceState ended = step(held);

        assertThat(ended.phase()).isEqualTo(Phase.Ended);
        assertThat(ended.hookWait()).isNull();
        assertThat(cordoned()).isFalse();
        assertThat(leaseHolder()).isNull();
        assertThat(events).anyMatch(e -> e.startsWith(MaintenanceEvents.HOOKS_RELEASED + ": pre-uncordon hooks"));
    }

    /** A pre-uncordon hook outliving the timeout at the window's end: restored anyway, its owner named. */
    @Test
    void aPreUncordonHookPastItsTimeoutAtTheWindowsEndIsNamedAndTheNodeRestored() {
        createMaintenance("1m");
        addHook(PRE_UNCORDON, "upgrade-check");
        MaintenanceState drained = drive(MaintenanceState.initial(), s -> s.phase() == Phase.Succeeded);
        clock.advance(Duration.ofMinutes(1));
        MaintenanceState held = step(drained);
        assertThat(cordoned()).isTrue();

        clock.advance(HOOK_TIMEOUT);
        MaintenanceState ended = step(held);

        assertThat(ended.phase()).isEqualTo(Phase.Ended);
        assertThat(cordoned()).isFalse();
        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.HOOK_TIMED_OUT))
                .singleElement()
                .satisfies(
                        e -> assertThat(e)
                                .isEqualTo(
                                        MaintenanceEvents.HOOK_TIMED_OUT + ": PreUncordon hook(s)"
                                                + " pre-uncordon.hooks.tenure.dev/upgrade-check still present after 10m"
                                                + " (spec.hooks.timeout); restoring node w1 anyway (maintenance window of 1m is over)"));
    }

    /** The end after a pre-drain timeout restores the node too: the pre-uncordon hooks hold it as well. */
    @Test
    void theEndAfterAPreDrainTimeoutWaitsForThePreUncordonHooks() {
        createMaintenance(null);
        addHook(PRE_DRAIN, "rook-ceph");
        addHook(PRE_UNCORDON, "upgrade-check");
        MaintenanceState waiting = drive(MaintenanceState.initial(), s -> s.hookWait() != null);

        clock.advance(HOOK_TIMEOUT);
        MaintenanceState held = step(waiting);
        for (int i = 0; i < 3; i++) {
            clock.advance(Duration.ofSeconds(20));
            held = step(held);
        }

        assertThat(held.phase()).isEqualTo(Phase.Running);
        assertThat(held.hookWait().point()).isEqualTo(PRE_UNCORDON);
        assertThat(cordoned()).isTrue();
        assertThat(leaseHolder()).isEqualTo("tenure");
        assertThat(evictions()).isZero();

        removeHook(PRE_UNCORDON, "upgrade-check");
        MaintenanceState ended = step(held);

        assertThat(ended.phase()).isEqualTo(Phase.Ended);
        assertThat(ended.lastError())
                .isEqualTo("PreDrain hook(s) pre-drain.hooks.tenure.dev/rook-ceph still present after 10m"
                        + " (spec.hooks.timeout) (spec.hooks.onTimeout Restore); maintenance of node w1 ended: node"
                        + " restored, lease released");
        assertThat(cordoned()).isFalse();
        assertThat(leaseHolder()).isNull();
        assertThat(evictions()).isZero();
    }

    /** Issue 37: spec.hooks.onTimeout Fail keeps the node cordoned and undrained, phase Failed, and stays so. */
    @Test
    void aHookLeftInPlacePastTheTimeoutWithFailFailsTheMaintenanceCordoned() {
        createMaintenance(null, TimeoutOutcome.Fail);
        addHook(PRE_DRAIN, "rook-ceph");
        MaintenanceState held = drive(MaintenanceState.initial(), s -> s.hookWait() != null);

        clock.advance(HOOK_TIMEOUT);
        MaintenanceState failed = step(held);
        for (int i = 0; i < 3; i++) { // held as Failed: renewed, nothing evicted
            clock.advance(Duration.ofSeconds(1));
            failed = step(failed);
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

    /**
     * A held failure re-applies its marks at every step; when one of those writes fails (429 here) the failure's
     * reason stays in lastError, the write's trouble goes to the Cordoned condition, and the write going through
     * later does not clear the reason (it did: chaos seed 10309381364904 ended Failed naming a 429, not the hook).
     */
    @Test
    void aHeldFailureKeepsItsReasonThroughAFailedNodeWrite() {
        createMaintenance(null, TimeoutOutcome.Fail);
        addHook(PRE_DRAIN, "rook-ceph");
        MaintenanceState held = drive(MaintenanceState.initial(), s -> s.hookWait() != null);
        clock.advance(HOOK_TIMEOUT);
        MaintenanceState failed = step(held);
        assertThat(failed.phase()).isEqualTo(Phase.Failed);
        String reason = failed.lastError();
        assertThat(reason).contains("rook-ceph");

        // another client drops our condition: the next step writes it again, and that write is refused
        client.nodes().withName("w1").editStatus(n -> {
            n.getStatus().getConditions().removeIf(c -> NodeMarks.CONDITION_TYPE.equals(c.getType()));
            return n;
        });
        cluster.faults().failNext(1, r -> r.is("patch", "nodes", "status"), 429);
        clock.advance(Duration.ofSeconds(1));
        MaintenanceState refused = step(failed);
        assertThat(refused.phase()).isEqualTo(Phase.Failed);
        assertThat(refused.lastError()).isEqualTo(reason);
        assertThat(refused.cordonFailure())
                .contains("PATCH nodes/w1/status to write its condition")
                .contains("HTTP 429");

        clock.advance(Duration.ofSeconds(1));
        MaintenanceState rewritten = step(refused);
        assertThat(rewritten.phase()).isEqualTo(Phase.Failed);
        assertThat(rewritten.lastError()).isEqualTo(reason);
        assertThat(rewritten.cordonFailure()).isNull();
        assertThat(client.nodes().withName("w1").get().getStatus().getConditions())
                .anyMatch(c -> NodeMarks.CONDITION_TYPE.equals(c.getType()));
    }

    /**
     * A failed read before a patch is named as the read (GET), not as the patch: the chaos run's message said "PATCH
     * nodes/d3/status failed" for a fault injected on "get nodes d3".
     */
    @Test
    void aFailedReadBeforeAMarkPatchIsNamedAsTheRead() {
        NodeCordon cordon = new NodeCordon(cluster.operatorClient());
        // mark() reads w1, patches the cordon and taints, reads w1 again for the condition: that read is refused
        AtomicBoolean patched = new AtomicBoolean();
        cluster.faults()
                .failNext(
                        1,
                        r -> {
                            if (r.is("patch", "nodes")) {
                                patched.set(true);
                            }
                            return patched.get() && r.is("get", "nodes");
                        },
                        429);

        assertThatThrownBy(() -> cordon.mark("w1", "NodeMaintenance", "test", clock.instant()))
                .isInstanceOfSatisfying(NodeCordon.NodeWriteFailed.class, e -> {
                    assertThat(e.cordoned()).isTrue();
                    assertThat(e.code()).isEqualTo(429);
                    assertThat(e.getMessage())
                            .contains("but GET nodes/w1 to write its condition")
                            .doesNotContain("PATCH");
                });
        assertThat(cordoned()).isTrue();
    }

    /** Issue 37: spec.hooks.onTimeout Proceed drains anyway and names the hook owners still holding. */
    @Test
    void aHookLeftInPlacePastTheTimeoutWithProceedDrainsAnyway() {
        createMaintenance(null, TimeoutOutcome.Proceed);
        addHook(PRE_DRAIN, "rook-ceph");
        MaintenanceState held = drive(MaintenanceState.initial(), s -> s.hookWait() != null);
        clock.advance(HOOK_TIMEOUT);

        MaintenanceState done = drive(held, s -> s.phase() == Phase.Succeeded);

        assertThat(evictions()).isEqualTo(2);
        assertThat(podsOnW1()).isEmpty();
        assertThat(client.nodes().withName("w1").get().getSpec().getUnschedulable())
                .isTrue();
        assertThat(done.hookWait()).isNull();
        assertThat(done.timeoutsPassed()).containsExactly("PreDrainHooks: hook owner(s) still holding: rook-ceph");
        assertThat(events).anyMatch(e -> e.startsWith(MaintenanceEvents.TIMEOUT_PASSED) && e.contains("rook-ceph"));
    }
}
