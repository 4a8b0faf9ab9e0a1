package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceHooks;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMachineIT;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.MutableClock;
import dev.tenure.testsupport.SecondLane;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 (Timeouts) on the emulated cluster: the drain's and the WaitCompleted pods' timeouts, each with the three
 * outcomes, seen at the API server — which pods were evicted, whether the node is still cordoned and tainted, whether
 * the node lease is still held. The spec is read from JSON, as the API server hands it to the operator, so the same
 * test runs against a build that does not know {@code onTimeout} (it then ignores the field: today's Fail).
 */
@EndToEnd
@SecondLane
class StageTimeoutsIT {

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
    }

    @AfterEach
    void stop() {
        machine.close();
        heartbeats.close();
        pool.shutdownNow();
        cluster.close();
    }

    /** The request the operator makes of a NodeMaintenance spec written as {@code drainJson} (spec.drain). */
    MaintenanceRequest request(String drainJson) {
        NodeMaintenanceSpec spec = client.getKubernetesSerialization()
                .unmarshal(
                        "{\"nodeName\":\"w1\",\"reason\":\"timeouts\",\"drain\":" + drainJson + "}",
                        NodeMaintenanceSpec.class);
        return MaintenanceRequest.from(spec);
    }

    /** Reconciles (state through the status each time, as the reconciler keeps it) until {@code until} holds. */
    MaintenanceState drive(MaintenanceRequest request, MaintenanceState from, Predicate<MaintenanceState> until) {
        AtomicReference<MaintenanceState> state = new AtomicReference<>(from);
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    clock.advance(Duration.ofMillis(100));
                    MaintenanceState next =
                            machine.advance(request, state.get(), false, sink).state();
                    state.set(NodeMaintenanceStatuses.toState(
                            NodeMaintenanceStatuses.toStatus(next, null, 1, clock.instant())));
                    return until.test(state.get());
                });
        return state.get();
    }

    /** A few more reconciles after an end: what they send to the API server must not change the outcome. */
    MaintenanceState settle(MaintenanceRequest request, MaintenanceState from) {
        MaintenanceState state = from;
        for (int i = 0; i < 5; i++) {
            clock.advance(Duration.ofMillis(200));
            state = NodeMaintenanceStatuses.toState(NodeMaintenanceStatuses.toStatus(
                    machine.advance(request, state, false, sink).state(), null, 1, clock.instant()));
        }
        return state;
    }

    long evictionsOf(String workload) {
        return cluster.requests()
                .count(ApiRequest.resource("pods", "eviction").and(r -> r.name().startsWith(workload + "-")));
    }

    List<String> podsOnW1(String workload) {
        return client.pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> "w1".equals(p.getSpec().getNodeName()))
                .map(Pod::getMetadata)
                .map(m -> m.getName())
                .filter(n -> n.startsWith(workload + "-"))
                .toList();
    }

    boolean cordoned() {
        Node node = client.nodes().withName("w1").get();
        boolean tainted = node.getSpec().getTaints() != null
                && node.getSpec().getTaints().stream().anyMatch(t -> "tenure.dev/drain".equals(t.getKey()));
        boolean unschedulable = Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        assertThat(tainted).as("the taint goes with the cordon").isEqualTo(unschedulable);
        return unschedulable;
    }

    boolean leaseHeld() {
        Lease lease =
                client.leases().inNamespace("tenure-system").withName("node-w1").get();
        return lease != null && lease.getSpec().getHolderIdentity() != null;
    }

    boolean emitted(String reason) {
        return events.stream().anyMatch(e -> e.startsWith(reason + ": "));
    }

    // ------------------------------------------------------------------ spec.drain.timeout

    /**
     * Two "free" pods evicted at once and two "web" pods a PodDisruptionBudget never lets go: the drain is running
     * with the web pods refused when its 1m timeout passes.
     */
    MaintenanceState drainBlockedAtItsTimeout(MaintenanceRequest request) {
        cluster.seed()
                .deployment("free")
                .namespace("app")
                .replicas(2)
                .onNode("w1")
                .create();
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(2)
                .onNode("w1")
                .create();
        cluster.seed()
                .pdb("web")
                .namespace("app")
                .selector("app", "web")
                .minAvailable(2)
                .create();
        MaintenanceState blocked = drive(
                request,
                MaintenanceState.initial(),
                s -> s.phase() == Phase.Running && podsOnW1("free").isEmpty() && evictionsOf("web") >= 2);
        assertThat(cordoned()).isTrue();
        assertThat(podsOnW1("web")).hasSize(2);
        clock.advance(Duration.ofMinutes(1));
        return blocked;
    }

    static final String DRAIN = "{\"timeout\":\"1m\",\"evictionRetryDelay\":\"100ms\"";

    @Test
    void drainTimeoutFailKeepsTheNodeCordonedAndFails() {
        MaintenanceRequest request = request(DRAIN + ",\"onTimeout\":\"Fail\"}");
        MaintenanceState failed =
                settle(request, drive(request, drainBlockedAtItsTimeout(request), s -> s.phase() == Phase.Failed));

        assertThat(failed.phase()).isEqualTo(Phase.Failed);
        assertThat(failed.lastError())
                .startsWith("DrainTimedOut: drain of node w1 did not finish within 1m")
                .endsWith("(spec.drain.onTimeout Fail)");
        assertThat(cordoned()).as("Fail: the node stays cordoned").isTrue();
        assertThat(leaseHeld()).isTrue();
        assertThat(podsOnW1("web")).hasSize(2);
        assertThat(emitted(MaintenanceEvents.FAILED)).isTrue();
    }

    @Test
    void drainTimeoutProceedGoesOnAsDrainedAndNamesThePodsLeft() {
        MaintenanceRequest request = request(DRAIN + ",\"onTimeout\":\"Proceed\"}");
        MaintenanceState done = drive(request, drainBlockedAtItsTimeout(request), s -> s.phase() != Phase.Running);
        long webEvictions = evictionsOf("web");
        done = settle(request, done);

        assertThat(done.phase()).as("Proceed: on as if drained").isEqualTo(Phase.Succeeded);
        assertThat(done.lastError()).isNull();
        assertThat(cordoned())
                .as("a passed drain keeps the node in maintenance")
                .isTrue();
        assertThat(leaseHeld()).isTrue();
        assertThat(podsOnW1("web")).as("the refused pods stay, not evicted").hasSize(2);
        assertThat(evictionsOf("web"))
                .as("no eviction once the drain was passed")
                .isEqualTo(webEvictions);
        assertThat(done.timeoutsPassed()).singleElement().asString().startsWith("Drain: pods not evicted: app/web-");
        assertThat(events)
                .anyMatch(e -> e.startsWith(MaintenanceEvents.TIMEOUT_PASSED + ": DrainTimedOut: drain of node w1")
                        && e.contains("app/web-"));
        assertThat(emitted(MaintenanceEvents.FAILED)).isFalse();
    }

    @Test
    void drainTimeoutRestoreUncordonsReleasesAndEnds() {
        MaintenanceRequest request = request(DRAIN + ",\"onTimeout\":\"Restore\"}");
        MaintenanceState ended =
                settle(request, drive(request, drainBlockedAtItsTimeout(request), s -> s.phase() != Phase.Running));

        assertThat(ended.phase()).as("Restore: the maintenance ends").isEqualTo(Phase.Ended);
        assertThat(ended.lastError())
                .startsWith("DrainTimedOut: drain of node w1 did not finish within 1m")
                .contains("(spec.drain.onTimeout Restore)", "node restored, lease released");
        assertThat(cordoned()).as("Restore: uncordoned, taint removed").isFalse();
        assertThat(leaseHeld()).as("Restore: node lease released").isFalse();
        assertThat(podsOnW1("web")).hasSize(2);
        assertThat(emitted(MaintenanceEvents.TIMEOUT_RESTORED)).isTrue();
        assertThat(emitted(MaintenanceEvents.UNCORDONED)).isTrue();
    }

    /** {@code request} as the door would make it with a pre-uncordon hook of {@code owner} on the NodeMaintenance. */
    static MaintenanceRequest withPreUncordonHook(MaintenanceRequest request, String owner) {
        return request.withHooks(
                request.hooks().withAnnotations(Map.of(MaintenanceHooks.Point.PreUncordon.prefix() + owner, "")));
    }

    /**
     * Issue 37: Restore at a timeout uncordons like every other end, so the pre-uncordon hooks hold it too: the node
     * stays cordoned under the lease, and nothing more is evicted, until the hook is removed.
     */
    void restoreWaitsForThePreUncordonHook(
            MaintenanceRequest hooked, MaintenanceState atTimeout, String timedOutField, long evictedBefore) {
        MaintenanceState held = drive(
                hooked,
                atTimeout,
                s -> s.hookWait() != null && s.hookWait().point() == MaintenanceHooks.Point.PreUncordon);
        for (int i = 0; i < 3; i++) {
            clock.advance(Duration.ofSeconds(20));
            held = drive(hooked, held, s -> true);
        }
        assertThat(held.phase()).as("held by the hook: not ended").isEqualTo(Phase.Running);
        assertThat(held.lastError()).contains("(" + timedOutField + " Restore)");
        assertThat(cordoned()).as("held by the hook: still cordoned").isTrue();
        assertThat(leaseHeld()).as("held by the hook: the node lease kept").isTrue();
        assertThat(cluster.requests().count(ApiRequest.resource("pods", "eviction")))
                .as("held by the hook: nothing more evicted")
                .isEqualTo(evictedBefore);
        assertThat(emitted(MaintenanceEvents.HOOKS_WAITING)).isTrue();
        assertThat(emitted(MaintenanceEvents.TIMEOUT_RESTORED)).isFalse();

        MaintenanceRequest released = hooked.withHooks(hooked.hooks().withAnnotations(Map.of()));
        MaintenanceState ended = settle(released, drive(released, held, s -> s.phase() != Phase.Running));

        assertThat(ended.phase()).isEqualTo(Phase.Ended);
        assertThat(ended.lastError()).contains("(" + timedOutField + " Restore)", "node restored, lease released");
        assertThat(cordoned()).isFalse();
        assertThat(leaseHeld()).isFalse();
        assertThat(emitted(MaintenanceEvents.HOOKS_RELEASED)).isTrue();
        assertThat(emitted(MaintenanceEvents.TIMEOUT_RESTORED)).isTrue();
    }

    @Test
    void drainTimeoutRestoreWaitsForThePreUncordonHooks() {
        MaintenanceRequest hooked =
                withPreUncordonHook(request(DRAIN + ",\"onTimeout\":\"Restore\"}"), "upgrade-check");
        MaintenanceState atTimeout = drainBlockedAtItsTimeout(hooked);
        // the refused web evictions are retried until the timeout is seen; count once the hold begins
        MaintenanceState held = drive(
                hooked,
                atTimeout,
                s -> s.hookWait() != null && s.hookWait().point() == MaintenanceHooks.Point.PreUncordon);
        restoreWaitsForThePreUncordonHook(
                hooked,
                held,
                "spec.drain.onTimeout",
                cluster.requests().count(ApiRequest.resource("pods", "eviction")));
        assertThat(podsOnW1("web")).hasSize(2);
    }

    // ------------------------------------------------------------------ spec.drain.waitCompletedTimeout

    /**
     * A WaitCompleted "job" that never completes holds wave 0, and with it a "late" workload of wave 5: neither is
     * evicted when the 5m WaitCompleted timeout passes.
     */
    MaintenanceState waitCompletedAtItsTimeout(MaintenanceRequest request) {
        cluster.seed()
                .deployment("job")
                .namespace("shop")
                .replicas(1)
                .onNode("w1")
                .create();
        cluster.seed()
                .deployment("late")
                .namespace("shop")
                .replicas(2)
                .onNode("w1")
                .create();
        MaintenanceState waiting =
                drive(request, MaintenanceState.initial(), s -> s.waves() != null && s.phase() == Phase.Running);
        assertThat(evictionsOf("job") + evictionsOf("late")).isZero();
        clock.advance(Duration.ofMinutes(5));
        return waiting;
    }

    static final String WAIT_COMPLETED = "{\"waitCompletedTimeout\":\"5m\",\"rules\":["
            + "{\"podSelector\":{\"matchLabels\":{\"app\":\"job\"}},\"behavior\":\"WaitCompleted\"},"
            + "{\"podSelector\":{\"matchLabels\":{\"app\":\"late\"}},\"behavior\":\"Drain\",\"order\":5}]";

    @Test
    void waitCompletedTimeoutFailKeepsTheNodeCordonedAndEvictsNothing() {
        MaintenanceRequest request = request(WAIT_COMPLETED + ",\"waitCompletedOnTimeout\":\"Fail\"}");
        MaintenanceState failed =
                settle(request, drive(request, waitCompletedAtItsTimeout(request), s -> s.phase() == Phase.Failed));

        assertThat(failed.lastError())
                .startsWith("WaitCompletedTimedOut: pods did not complete within 5m")
                .endsWith("(spec.drain.waitCompletedOnTimeout Fail)");
        assertThat(cordoned()).isTrue();
        assertThat(leaseHeld()).isTrue();
        assertThat(evictionsOf("job")).isZero();
        assertThat(evictionsOf("late")).as("the later wave is never reached").isZero();
        assertThat(emitted(MaintenanceEvents.WAIT_COMPLETED_TIMED_OUT)).isTrue();
    }

    @Test
    void waitCompletedTimeoutProceedDrainsTheLaterWavesAndLeavesTheJobRunning() {
        MaintenanceRequest request = request(WAIT_COMPLETED + ",\"waitCompletedOnTimeout\":\"Proceed\"}");
        MaintenanceState done =
                settle(request, drive(request, waitCompletedAtItsTimeout(request), s -> s.phase() != Phase.Running));

        assertThat(done.phase()).isEqualTo(Phase.Succeeded);
        assertThat(cordoned()).isTrue();
        assertThat(leaseHeld()).isTrue();
        assertThat(evictionsOf("job"))
                .as("a WaitCompleted pod is never evicted")
                .isZero();
        assertThat(podsOnW1("job")).as("left running").hasSize(1);
        assertThat(evictionsOf("late"))
                .as("the later wave goes once the wait is passed")
                .isEqualTo(2);
        assertThat(podsOnW1("late")).isEmpty();
        assertThat(done.timeoutsPassed())
                .singleElement()
                .asString()
                .startsWith("WaitCompleted: pods not evicted, left running: shop/job-");
        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.TIMEOUT_PASSED + ": "))
                .as("said once")
                .singleElement()
                .asString()
                .contains("shop/job-");
    }

    @Test
    void waitCompletedTimeoutRestoreUncordonsReleasesAndEnds() {
        MaintenanceRequest request = request(WAIT_COMPLETED + ",\"waitCompletedOnTimeout\":\"Restore\"}");
        MaintenanceState ended =
                settle(request, drive(request, waitCompletedAtItsTimeout(request), s -> s.phase() != Phase.Running));

        assertThat(ended.phase()).isEqualTo(Phase.Ended);
        assertThat(ended.lastError())
                .startsWith("WaitCompletedTimedOut: pods did not complete within 5m")
                .contains("(spec.drain.waitCompletedOnTimeout Restore)");
        assertThat(cordoned()).isFalse();
        assertThat(leaseHeld()).isFalse();
        assertThat(evictionsOf("job") + evictionsOf("late")).isZero();
        assertThat(emitted(MaintenanceEvents.TIMEOUT_RESTORED)).isTrue();
    }

    // ------------------------------------------------------------------ spec.drain.volumeDetach.timeout

    /** A drained node whose one VolumeAttachment never goes: the 2m detach timeout passes. */
    MaintenanceState attachedAtTheTimeout(MaintenanceRequest request) {
        cluster.seed()
                .deployment("db")
                .namespace("shop")
                .replicas(1)
                .onNode("w1")
                .create();
        client.storage()
                .v1()
                .volumeAttachments()
                .resource(new io.fabric8.kubernetes.api.model.storage.VolumeAttachmentBuilder()
                        .withNewMetadata()
                        .withName("csi-data")
                        .endMetadata()
                        .withNewSpec()
                        .withAttacher("ebs.csi.aws.com")
                        .withNodeName("w1")
                        .withNewSource()
                        .withPersistentVolumeName("pv-csi-data")
                        .endSource()
                        .endSpec()
                        .withNewStatus()
                        .withAttached(true)
                        .endStatus()
                        .build())
                .create();
        MaintenanceState waiting = drive(
                request,
                MaintenanceState.initial(),
                s -> s.drainedAt() != null && !s.attachedVolumes().isEmpty());
        assertThat(podsOnW1("db")).isEmpty();
        clock.advance(Duration.ofMinutes(2));
        return waiting;
    }

    @Test
    void volumeDetachTimeoutProceedSucceedsNamingTheVolumesLeft() {
        MaintenanceRequest request = request("{\"volumeDetach\":{\"timeout\":\"2m\",\"onTimeout\":\"Proceed\"}}");
        MaintenanceState done =
                settle(request, drive(request, attachedAtTheTimeout(request), s -> s.phase() != Phase.Running));

        assertThat(done.phase())
                .as("Proceed, as Cluster API's nodeVolumeDetachTimeout")
                .isEqualTo(Phase.Succeeded);
        assertThat(cordoned()).isTrue();
        assertThat(done.timeoutsPassed())
                .containsExactly("VolumeDetach: volumes still attached: csi-data (pv-csi-data) by ebs.csi.aws.com");
        assertThat(emitted(MaintenanceEvents.TIMEOUT_PASSED)).isTrue();
        assertThat(emitted(MaintenanceEvents.VOLUME_DETACH_TIMED_OUT)).isFalse();
    }

    @Test
    void volumeDetachTimeoutRestoreWaitsForThePreUncordonHooks() {
        MaintenanceRequest hooked = withPreUncordonHook(
                request("{\"volumeDetach\":{\"timeout\":\"2m\",\"onTimeout\":\"Restore\"}}"), "csi-check");
        MaintenanceState atTimeout = attachedAtTheTimeout(hooked);
        restoreWaitsForThePreUncordonHook(
                hooked,
                atTimeout,
                "spec.drain.volumeDetach.onTimeout",
                cluster.requests().count(ApiRequest.resource("pods", "eviction")));
    }

    @Test
    void volumeDetachTimeoutRestoreUncordonsReleasesAndEnds() {
        MaintenanceRequest request = request("{\"volumeDetach\":{\"timeout\":\"2m\",\"onTimeout\":\"Restore\"}}");
        MaintenanceState ended =
                settle(request, drive(request, attachedAtTheTimeout(request), s -> s.phase() != Phase.Running));

        assertThat(ended.phase()).isEqualTo(Phase.Ended);
        assertThat(ended.lastError())
                .startsWith("VolumeDetachTimedOut: ")
                .contains("(spec.drain.volumeDetach.onTimeout Restore)");
        assertThat(cordoned()).isFalse();
        assertThat(leaseHeld()).isFalse();
        assertThat(emitted(MaintenanceEvents.TIMEOUT_RESTORED)).isTrue();
    }
}
