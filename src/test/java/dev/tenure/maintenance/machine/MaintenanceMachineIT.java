package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.maintenance.drain.DrainPacing;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.Conflicts;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.MutableClock;
import dev.tenure.testsupport.SecondLane;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The maintenance machine against the emulated API server, driven step by step as the reconciler
 * drives it (each step = one reconcile). The machine is CR-independent, so these tests also cover the
 * node annotation protocol's use of it.
 */
@EndToEnd
@SecondLane
public class MaintenanceMachineIT {

    public static final MaintenanceSettings SETTINGS = new MaintenanceSettings(
            "tenure-system",
            "node-",
            "tenure",
            Duration.ofSeconds(4),
            Duration.ofSeconds(30),
            Duration.ofSeconds(10),
            4,
            Duration.ofMillis(100),
            Duration.ofSeconds(1));

    MutableClock clock;
    EmulatedCluster cluster;
    KubernetesClient client;
    ExecutorService pool;
    ExecutorScheduler heartbeats;
    SimpleMeterRegistry registry;
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
        machine = newMachine();
        cluster.seed().node("w1").role("worker").create();
        cluster.seed().node("w2").role("worker").create();
    }

    MaintenanceMachine newMachine() {
        return newMachine(SETTINGS);
    }

    MaintenanceMachine newMachine(MaintenanceSettings settings) {
        registry = new SimpleMeterRegistry();
        KubernetesClient operator = cluster.operatorClient();
        return new MaintenanceMachine(
                operator,
                new KubeLeaseStore(operator),
                (node, started, now) -> LeadershipHandover.Outcome.complete("nothing held"),
                new MaintenanceMetrics(registry),
                settings,
                pool,
                heartbeats,
                clock);
    }

    @AfterEach
    void stop() {
        machine.close();
        heartbeats.close();
        pool.shutdownNow();
        cluster.close();
    }

    static MaintenanceRequest request(String node, UnaryOperator<DrainSpec> drain) {
        return new MaintenanceRequest(
                node,
                "kernel upgrade",
                Optional.empty(),
                DrainOptions.from(drain.apply(new DrainSpec())),
                HandoverOptions.defaults());
    }

    static MaintenanceRequest request(String node) {
        return request(node, d -> d);
    }

    /** Reconciles until {@code until} holds; state goes through the NodeMaintenance status each time. */
    MaintenanceState drive(MaintenanceRequest request, MaintenanceState from, Predicate<MaintenanceState> until) {
        AtomicReference<MaintenanceState> state = new AtomicReference<>(from);
        // A bound on liveness, not a speed claim: the emulated cluster's pods stop and come back in real time (PDB
        // pacing waits for each replacement), 6 s for the slowest drive here at load 3-6, and past 20 s at load 20.
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    clock.advance(Duration.ofMillis(100)); // simulated time between reconciles
                    MaintenanceState next =
                            machine.advance(request, state.get(), false, sink).state();
                    if (System.getenv("NM_DEBUG") != null)
                        System.err.println("STEP " + next.phase() + " err=" + next.lastError() + " pending="
                                + next.pendingPods() + " reg="
                                + registry.getMeters().stream()
                                        .map(m -> m.getId().toString())
                                        .toList());
                    state.set(NodeMaintenanceStatuses.toState(
                            NodeMaintenanceStatuses.toStatus(next, null, 1, clock.instant())));
                    return until.test(state.get());
                });
        return state.get();
    }

    static Predicate<MaintenanceState> phase(Phase p) {
        return s -> s.phase() == p;
    }

    List<Pod> podsOn(String node) {
        return client.pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName()))
                .toList();
    }

    List<String> names(List<Pod> pods) {
        return pods.stream().map(p -> p.getMetadata().getName()).sorted().toList();
    }

    long evictionsOf(String podName) {
        return cluster.requests().count(ApiRequest.resource("pods", "eviction").and(ApiRequest.named(podName)));
    }

    boolean listedPodsByNode(String node) {
        return cluster.requests()
                        .count(r -> r.is("list", "pods")
                                && ("spec.nodeName=" + node).equals(r.query().get("fieldSelector")))
                > 0;
    }

    /** The node's tenure_maintenance_pending_pods value, {@code null} when it has no series. */
    Double pendingPodsGauge(String node) {
        var g = registry.find("tenure.maintenance.pending.pods")
                .tag("node", node)
                .gauge();
        return g == null ? null : g.value();
    }

    double counter(String name, String tag, String value) {
        var c = registry.find(name).tag(tag, value).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void fullLifecycleDrainsOnlyTheNodeAndUndoesEverything() {
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(4)
                .onNodes("w1", "w2")
                .create();
        cluster.seed()
                .daemonSet("agent")
                .namespace("kube-system")
                .onNodes("w1", "w2")
                .create();
        cluster.seed()
                .mirrorPod("static-w1")
                .namespace("kube-system")
                .onNodes("w1")
                .create();
        List<String> onW2 = names(podsOn("w2"));
        List<Pod> webOnW1 = podsOn("w1").stream()
                .filter(p -> p.getMetadata().getName().startsWith("web"))
                .toList();
        assertThat(webOnW1).hasSize(2);

        MaintenanceState done = drive(request("w1"), MaintenanceState.initial(), phase(Phase.Succeeded));

        assertThat(listedPodsByNode("w1"))
                .as("pods listed with fieldSelector spec.nodeName=w1")
                .isTrue();
        webOnW1.forEach(p -> assertThat(evictionsOf(p.getMetadata().getName()))
                .as("eviction of " + p.getMetadata().getName())
                .isPositive());
        assertThat(names(podsOn("w1"))).allSatisfy(n -> assertThat(n).matches("agent.*|static-w1"));
        assertThat(names(podsOn("w2"))).isEqualTo(onW2);
        assertThat(cluster.requests()
                        .count(ApiRequest.resource("pods", "eviction").and(r -> onW2.contains(r.name()))))
                .isZero();
        assertThat(done.drainProgress()).isEqualTo(100);
        assertThat(done.totalPods()).isEqualTo(4);
        assertThat(done.evictionPods()).isEqualTo(2);
        assertThat(counter("tenure.maintenance.evictions", "result", "ok")).isEqualTo(2);

        Node node = client.nodes().withName("w1").get();
        assertThat(node.getSpec().getUnschedulable()).isTrue();
        assertThat(node.getSpec().getTaints())
                .extracting(NodeMarks::key)
                .contains("node.kubernetes.io/unschedulable:NoSchedule", "tenure.dev/drain:NoSchedule");
        assertThat(node.getStatus().getConditions())
                .extracting(NodeCondition::getType)
                .contains("Ready", NodeMarks.CONDITION_TYPE);
        var lease =
                client.leases().inNamespace("tenure-system").withName("node-w1").get();
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("tenure");
        assertThat(lease.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(
                        o -> assertThat(o.getUid()).isEqualTo(node.getMetadata().getUid()));
        assertThat(events)
                .anyMatch(e -> e.startsWith("BeginMaintenance"))
                .anyMatch(e -> e.startsWith("Cordoned"))
                .anyMatch(e -> e.startsWith("SucceedMaintenance"));

        assertThat(pendingPodsGauge("w1"))
                .as("pending pods of w1, Succeeded and still in maintenance")
                .isZero();

        machine.end("w1", sink);
        assertThat(pendingPodsGauge("w1"))
                .as("pending pods series of w1 after it left maintenance")
                .isNull();
        Node after = client.nodes().withName("w1").get();
        assertThat(after.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
        assertThat(after.getSpec().getTaints()).isEmpty();
        assertThat(after.getStatus().getConditions())
                .extracting(NodeCondition::getType)
                .containsExactly("Ready");
        assertThat(after.getMetadata().getAnnotations()).doesNotContainKey(NodeMarks.PRIOR_STATE);
        assertThat(client.leases()
                        .inNamespace("tenure-system")
                        .withName("node-w1")
                        .get()
                        .getSpec()
                        .getHolderIdentity())
                .isNull();
        assertThat(events).anyMatch(e -> e.startsWith("UncordonNode"));

        machine.end("w1", sink); // idempotent
        assertThat(client.nodes().withName("w1").get().getSpec().getTaints()).isEmpty();
    }

    @Test
    void pdbRefusalIsRetriedUntilTheBudgetAllows() {
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(2)
                .onNodes("w1")
                .create();
        cluster.seed()
                .pdb("web")
                .namespace("app")
                .selector("app", "web")
                .minAvailable(2)
                .create();
        MaintenanceRequest req = request("w1", d -> {
            d.setEvictionRetryDelay("100ms");
            return d;
        });

        MaintenanceState blocked = drive(
                req,
                MaintenanceState.initial(),
                s -> counter("tenure.maintenance.evictions", "result", "blocked_by_pdb") >= 4);
        assertThat(blocked.phase()).isEqualTo(Phase.Running);
        assertThat(blocked.pendingPods()).hasSize(2);
        assertThat(podsOn("w1")).hasSize(2);
        // The blocking PDB is named, in events and in lastError, as kubectl drain prints it (issue 16).
        assertThat(events)
                .anyMatch(e -> e.startsWith("EvictionBlocked") && e.contains("disruption budget web needs 2"));
        assertThat(blocked.lastError())
                .contains(
                        "Cannot evict pod as it would violate the pod's disruption budget",
                        "The disruption budget web needs 2 healthy pods and has 2 currently");

        client.policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace("app")
                .withName("web")
                .delete();
        MaintenanceState done = drive(req, blocked, phase(Phase.Succeeded));
        assertThat(podsOn("w1")).isEmpty();
        assertThat(done.pendingPods()).isEmpty();
    }

    /** The machine as the operator runs it (poll 2 s), with 4 evictions per batch. */
    MaintenanceMachine machineWithDefaultPoll() {
        machine.close();
        MaintenanceSettings settings = new MaintenanceSettings(
                "tenure-system",
                "node-",
                "tenure",
                Duration.ofSeconds(4),
                Duration.ofSeconds(30),
                Duration.ofSeconds(10),
                4,
                Duration.ofSeconds(2),
                Duration.ofSeconds(1));
        return new MaintenanceMachine(
                client,
                new KubeLeaseStore(client),
                (node, started, now) -> LeadershipHandover.Outcome.complete("nothing held"),
                new MaintenanceMetrics(registry),
                settings,
                pool,
                heartbeats,
                clock);
    }

    /** One reconcile; the state goes through the status as in {@link #drive}. */
    MaintenanceMachine.Step step(MaintenanceRequest request, MaintenanceState state) {
        MaintenanceMachine.Step step = machine.advance(request, state, false, sink);
        MaintenanceState stored = NodeMaintenanceStatuses.toState(
                NodeMaintenanceStatuses.toStatus(step.state(), null, 1, clock.instant()));
        return new MaintenanceMachine.Step(stored, step.requeueAfter());
    }

    @Test
    void batchesFollowEachOtherAtOnceAndTerminatingPodsAreLookedAtSoonThenAtThePollInterval() {
        machine = machineWithDefaultPoll();
        List<Pod> web = cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(10)
                .onNodes("w1")
                .create();
        cluster.markKubeletDown("w1"); // evicted pods stay terminating: every look below still has pods to wait for
        MaintenanceRequest req = request("w1");

        List<Optional<Duration>> requeues = new ArrayList<>();
        MaintenanceMachine.Step s = step(req, MaintenanceState.initial());
        requeues.add(s.requeueAfter());
        for (Duration gap : List.of(
                Duration.ZERO, Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(5))) {
            clock.advance(gap);
            s = step(req, s.state());
            requeues.add(s.requeueAfter());
        }

        assertThat(requeues)
                .as("4 + 4 + 2 evictions at once, then looks after 250 ms, 1 s, 2 s (poll), 2 s")
                .containsExactly(
                        Optional.of(Duration.ZERO),
                        Optional.of(Duration.ZERO),
                        Optional.of(DrainPacing.FIRST_LOOK),
                        Optional.of(Duration.ofSeconds(1)),
                        Optional.of(Duration.ofSeconds(2)),
                        Optional.of(Duration.ofSeconds(2)));
        assertThat(listedPodsByNode("w1"))
                .as("pods listed with fieldSelector spec.nodeName=w1")
                .isTrue();
        web.forEach(p -> assertThat(evictionsOf(p.getMetadata().getName()))
                .as("evictions of " + p.getMetadata().getName())
                .isEqualTo(1));
        assertThat(s.state().phase()).isEqualTo(Phase.Running);
        assertThat(s.state().pendingPods()).hasSize(10);
    }

    @Test
    void aBatchThatFailsIsRetriedAfterThePollIntervalNotAtOnce() {
        machine = machineWithDefaultPoll();
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(10)
                .onNodes("w1")
                .create();
        cluster.faults().failNext(1000, ApiRequest.resource("pods", "eviction"), 500);

        MaintenanceMachine.Step s = step(request("w1"), MaintenanceState.initial());

        assertThat(s.requeueAfter()).contains(Duration.ofSeconds(2));
        assertThat(s.state().lastError()).contains("HTTP 500");
        assertThat(cluster.requests().count(ApiRequest.resource("pods", "eviction")))
                .isEqualTo(4);
    }

    /**
     * Issue 50 item 7: an eviction that keeps failing with a 500 (not a budget's 429) is sent again after a back-off
     * that doubles from the poll interval, judged on the machine's clock (one reconcile a simulated second), not
     * every poll interval forever.
     */
    @Test
    void anEvictionThatKeepsFailingIsRetriedWithADoublingBackOffNotEveryPoll() {
        machine = machineWithDefaultPoll();
        Pod web = cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(1)
                .onNodes("w1")
                .create()
                .get(0);
        String name = web.getMetadata().getName();
        cluster.faults().failNext(1000, ApiRequest.resource("pods", "eviction"), 500);
        MaintenanceRequest req = request("w1");
        java.time.Instant start = clock.instant();

        List<Long> sentAt = new ArrayList<>();
        MaintenanceMachine.Step s = step(req, MaintenanceState.initial());
        long sent = evictionsOf(name);
        for (int second = 1; second <= 130; second++) {
            clock.advance(Duration.ofSeconds(1));
            s = step(req, s.state());
            long now = evictionsOf(name);
            if (now > sent) {
                sentAt.add(Duration.between(start, clock.instant()).toSeconds());
                sent = now;
            }
        }

        assertThat(listedPodsByNode("w1")).as("pods listed by node").isTrue();
        assertThat(sentAt)
                .as("seconds at which the failing eviction of " + name + " was sent again (the first at 0)")
                .containsExactly(2L, 6L, 14L, 30L, 62L, 126L);
        assertThat(s.state().lastError()).contains("HTTP 500").contains("retrying in");
        assertThat(s.state().phase()).isEqualTo(Phase.Running);
        assertThat(counter("tenure.maintenance.evictions", "result", "error")).isEqualTo(7);

        // the error over: the pod goes at its next try
        cluster.faults().clear();
        clock.advance(Duration.ofSeconds(130));
        step(req, s.state());
        assertThat(evictionsOf(name)).isEqualTo(8);
        assertThat(cluster.client().pods().inNamespace("app").withName(name).get())
                .satisfiesAnyOf(
                        p -> assertThat(p).isNull(),
                        p -> assertThat(p.getMetadata().getDeletionTimestamp()).isNotNull());
    }

    @Test
    void kubectlFiltersRefuseUnderStrictOptionsWithoutEvictingAnything() {
        cluster.seed().daemonSet("agent").namespace("kube-system").onNodes("w1").create();
        cluster.seed().pod("loner").namespace("app").onNodes("w1").create();
        cluster.seed()
                .deployment("cache")
                .namespace("app")
                .replicas(1)
                .onNodes("w1")
                .emptyDir()
                .create();

        record Case(UnaryOperator<DrainSpec> drain, String blamed) {}
        for (Case c : List.of(
                new Case(
                        d -> {
                            d.setIgnoreDaemonSets(false);
                            return d;
                        },
                        "set spec.drain.ignoreDaemonSets"),
                new Case(
                        d -> {
                            d.setForce(false);
                            return d;
                        },
                        "set spec.drain.force"),
                new Case(
                        d -> {
                            d.setDeleteEmptyDirData(false);
                            return d;
                        },
                        "set spec.drain.deleteEmptyDirData"))) {
            MaintenanceState failed = drive(request("w1", c.drain()), MaintenanceState.initial(), phase(Phase.Failed));
            assertThat(failed.lastError()).contains(c.blamed());
            assertThat(cluster.requests().count(ApiRequest.resource("pods", "eviction")))
                    .isZero();
            machine.end("w1", sink);
        }

        events.clear();
        drive(request("w1"), MaintenanceState.initial(), phase(Phase.Succeeded));
        assertThat(names(podsOn("w1"))).singleElement().asString().startsWith("agent");
        // Under the defaults both go, as with kubectl drain --force --delete-emptydir-data, and are named.
        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.DRAIN_WARNING))
                .as("kubectl drain's warnings as an event naming the pods")
                .anySatisfy(e -> assertThat(e).contains("declare no controller").contains("app/loner"))
                .anySatisfy(e -> assertThat(e).contains("local storage").contains("app/cache-"));
    }

    /**
     * A Failed maintenance that keeps its node claims the node lease at every step; a lease error then (a 429 on the
     * lease's GET) once replaced lastError, the reason it failed for, and the next claim that went through cleared
     * nothing: Failed for good with a lease error as its reason. Found by MaintenanceChaosTest's door run (seed
     * 6655915427958: "Failed without naming the hook that timed out: taking lease … (HTTP 429)"). The error is counted
     * in errorOnLeaseCount instead, as a cordon write's trouble is said in the Cordoned condition.
     */
    @Test
    void aLeaseErrorOfAFailedMaintenanceKeepsTheReasonItFailedFor() {
        cluster.seed().pod("loner").namespace("app").onNodes("w1").create();
        MaintenanceRequest req = request("w1", d -> {
            d.setForce(false);
            return d;
        });
        MaintenanceState failed = drive(req, MaintenanceState.initial(), phase(Phase.Failed));
        String reason = failed.lastError();
        assertThat(reason).as("the reason it failed for").contains("set spec.drain.force");
        assertThat(failed.holdsNode())
                .as("a Failed maintenance that keeps its node")
                .isTrue();

        cluster.faults().failNext(1, ApiRequest.resource("leases"), 429);
        clock.advance(Duration.ofSeconds(30)); // past the lease's renew interval: the step claims it again
        MaintenanceMachine.Step refused = step(req, failed);
        assertThat(cluster.faults().pending(ApiRequest.resource("leases")))
                .as("the lease read met the fault")
                .isFalse();
        assertThat(refused.state().phase()).isEqualTo(Phase.Failed);
        assertThat(refused.state().errorOnLeaseCount()).isEqualTo(failed.errorOnLeaseCount() + 1);
        assertThat(refused.state().lastError())
                .as("lastError after the lease error")
                .isEqualTo(reason);

        clock.advance(refused.requeueAfter().orElseThrow());
        MaintenanceMachine.Step next = step(req, refused.state());
        assertThat(next.state().phase()).isEqualTo(Phase.Failed);
        assertThat(next.state().lastError())
                .as("lastError once the lease is claimed again")
                .isEqualTo(reason);
        machine.end("w1", sink);
    }

    @Test
    void podSelectorAndDisableEvictionDeleteOnlySelectedPods() {
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(1)
                .onNodes("w1")
                .create();
        cluster.seed()
                .deployment("db")
                .namespace("app")
                .replicas(1)
                .onNodes("w1")
                .create();
        cluster.seed()
                .pdb("web")
                .namespace("app")
                .selector("app", "web")
                .minAvailable(1)
                .create();
        MaintenanceRequest req = request("w1", d -> {
            d.setDisableEviction(true);
            d.setPodSelector(new io.fabric8.kubernetes.api.model.LabelSelectorBuilder()
                    .addToMatchLabels("app", "web")
                    .build());
            return d;
        });
        drive(req, MaintenanceState.initial(), phase(Phase.Succeeded));
        assertThat(names(podsOn("w1"))).singleElement().asString().startsWith("db");
        assertThat(cluster.requests().count(ApiRequest.resource("pods", "eviction")))
                .isZero();
        assertThat(cluster.requests().count(r -> r.is("delete", "pods"))).isPositive();
    }

    @Test
    void podsOnANodeWithAStaleKubeletCountAsGone() {
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(2)
                .onNodes("w1")
                .create();
        cluster.markKubeletDown("w1");
        clock.advance(Duration.ofSeconds(cluster.options().nodeLeaseDurationSeconds() + 1));

        MaintenanceState evicted = drive(
                request("w1"),
                MaintenanceState.initial(),
                s -> s.phase() == Phase.Running
                        && podsOn("w1").stream().allMatch(p -> p.getMetadata().getDeletionTimestamp() != null));
        assertThat(evicted.pendingPods()).isNotEmpty();
        // deletionTimestamp = eviction time + grace (30 s); count as gone once stale-node-skip-wait past it
        clock.advance(Duration.ofSeconds(30).plus(SETTINGS.staleNodeSkipWait()).plusSeconds(1));
        MaintenanceState done = drive(request("w1"), evicted, phase(Phase.Succeeded));
        assertThat(podsOn("w1")).hasSize(2).allMatch(p -> p.getMetadata().getDeletionTimestamp() != null);
        assertThat(done.drainProgress()).isEqualTo(100);
    }

    @Test
    void nodeDeletedAfterItsDrainSucceededEndsTheMaintenanceCleanly() {
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(1)
                .onNodes("w1")
                .create();
        MaintenanceState succeeded = drive(request("w1"), MaintenanceState.initial(), phase(Phase.Succeeded));
        events.clear();
        client.nodes().withName("w1").delete();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> client.nodes().withName("w1").get() == null);

        MaintenanceState ended = drive(request("w1"), succeeded, s -> s.phase() != Phase.Succeeded);

        assertThat(ended.phase())
                .as("drain, then delete the node: the usual decommission")
                .isEqualTo(Phase.Ended);
        assertThat(ended.lastError()).isNull();
        assertThat(ended.holdsNode()).isFalse();
        assertThat(events).noneMatch(e -> e.startsWith(MaintenanceEvents.FAILED));
        assertThat(events).anyMatch(e -> e.startsWith(MaintenanceEvents.NODE_DELETED + ": node w1 was deleted after"));
        var lease =
                client.leases().inNamespace("tenure-system").withName("node-w1").get();
        assertThat(lease == null || lease.getSpec().getHolderIdentity() == null).isTrue();
        assertThat(pendingPodsGauge("w1")).isNull();
        NodeMaintenanceStatus status = NodeMaintenanceStatuses.toStatus(ended, null, 1, clock.instant());
        assertThat(status.getConditions())
                .filteredOn(c -> List.of("Cordoned", "LeaseHeld").contains(c.getType()))
                .as("conditions describe the present: nothing cordoned or held")
                .allSatisfy(c -> assertThat(c.getStatus()).isEqualTo("False"));
        assertThat(NodeMaintenanceStatuses.toState(status).phase()).isEqualTo(Phase.Ended);
        assertThat(machine.advance(request("w1"), NodeMaintenanceStatuses.toState(status), false, sink)
                        .state()
                        .phase())
                .as("Ended is terminal")
                .isEqualTo(Phase.Ended);
    }

    @Test
    void drainTimeoutFailsNamingTheBlockingPods() {
        List<Pod> pods = cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(1)
                .onNodes("w1")
                .create();
        cluster.seed()
                .pdb("web")
                .namespace("app")
                .selector("app", "web")
                .minAvailable(1)
                .create();
        MaintenanceRequest req = request("w1", d -> {
            d.setTimeout("30s");
            d.setEvictionRetryDelay("100ms");
            return d;
        });
        MaintenanceState blocked = drive(
                req,
                MaintenanceState.initial(),
                s -> counter("tenure.maintenance.evictions", "result", "blocked_by_pdb") >= 1);
        clock.advance(Duration.ofSeconds(31));
        MaintenanceState failed = drive(req, blocked, phase(Phase.Failed));
        assertThat(failed.lastError())
                .contains("did not finish within 30s")
                .contains("app/" + pods.get(0).getMetadata().getName()
                        + " (no spare replica; PodDisruptionBudget app/web (")
                .endsWith("the last evictions were refused by PodDisruptionBudget app/web (spec.drain.onTimeout Fail)");
        assertThat(events).anyMatch(e -> e.startsWith("FailedMaintenance"));
    }

    /**
     * Issue 25: a pod that outlives its grace period (here a finalizer holds it) keeps the drain waiting; a Warning
     * names it once, not at every poll.
     */
    @Test
    void aPodStuckTerminatingIsNamedOnceInAWarning() {
        Pod held = cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(1)
                .onNodes("w1")
                .create()
                .get(0);
        String name = held.getMetadata().getName();
        Conflicts.retry(() -> client.pods().inNamespace("app").withName(name).edit(p -> {
            p.getMetadata().getFinalizers().add("example.com/hold");
            return p;
        }));
        MaintenanceState evicted = drive(
                request("w1"),
                MaintenanceState.initial(),
                s -> s.phase() == Phase.Running
                        && podsOn("w1").stream().allMatch(p -> p.getMetadata().getDeletionTimestamp() != null));
        assertThat(events).noneMatch(e -> e.startsWith(MaintenanceEvents.STUCK_TERMINATING));

        clock.advance(Duration.ofSeconds(31)); // past the 30 s grace period
        MaintenanceState waiting = drive(
                request("w1"),
                evicted,
                s -> events.stream().anyMatch(e -> e.startsWith(MaintenanceEvents.STUCK_TERMINATING)));
        for (int i = 0; i < 5; i++) {
            clock.advance(Duration.ofSeconds(1));
            waiting = NodeMaintenanceStatuses.toState(NodeMaintenanceStatuses.toStatus(
                    machine.advance(request("w1"), waiting, false, sink).state(), null, 1, clock.instant()));
        }

        assertThat(waiting.phase()).isEqualTo(Phase.Running);
        assertThat(waiting.pendingPods()).containsExactly("app/" + name);
        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.STUCK_TERMINATING))
                .singleElement()
                .asString()
                .contains("app/" + name + " (grace period ended");
        // a merge patch, not a read-modify-write: the terminating pod is written meanwhile, and an edit on the
        // resourceVersion it read met a 409 under load
        client.pods()
                .inNamespace("app")
                .withName(name)
                .patch(
                        io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                        "{\"metadata\":{\"finalizers\":null}}");
    }

    @Test
    void waitsForAValidForeignLeaseAndTakesItOverWhenExpired() {
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(1)
                .onNodes("w1")
                .create();
        cluster.seed().namespace("tenure-system");
        client.leases()
                .inNamespace("tenure-system")
                .resource(new LeaseBuilder()
                        .withNewMetadata()
                        .withName("node-w1")
                        .withNamespace("tenure-system")
                        .endMetadata()
                        .withNewSpec()
                        .withHolderIdentity("node-maintenance-operator")
                        .withLeaseDurationSeconds(60)
                        .withAcquireTime(clock.instant().atZone(ZoneOffset.UTC))
                        .withRenewTime(clock.instant().atZone(ZoneOffset.UTC))
                        .withLeaseTransitions(3)
                        .endSpec()
                        .build())
                .create();

        MaintenanceState waiting = drive(request("w1"), MaintenanceState.initial(), phase(Phase.Waiting));
        assertThat(waiting.waitingFor()).isEqualTo("node-maintenance-operator");
        assertThat(waiting.lease().getHolderIdentity()).isEqualTo("node-maintenance-operator");
        MaintenanceState stillWaiting =
                machine.advance(request("w1"), waiting, false, sink).state();
        assertThat(stillWaiting.phase()).isEqualTo(Phase.Waiting);
        assertThat(events.stream().filter(e -> e.startsWith("LeaseWaiting"))).hasSize(1);
        assertThat(client.nodes().withName("w1").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);
        assertThat(cluster.requests().count(ApiRequest.resource("pods", "eviction")))
                .isZero();

        clock.advance(Duration.ofSeconds(61));
        drive(request("w1"), stillWaiting, phase(Phase.Succeeded));
        LeaseRecord lease = new KubeLeaseStore(client).get(LeaseKey.of("tenure-system", "node-w1"));
        assertThat(lease.holderIdentity()).isEqualTo("tenure");
        assertThat(lease.leaseTransitions()).isEqualTo(4);
        assertThat(counter("tenure.maintenance.lease", "outcome", "takeover")).isEqualTo(1);
    }

    /** The node's lease in medik8s-leases, held by {@code holder} from now for {@code seconds}. */
    void holdInMedik8sLeases(String node, String holder, int seconds) {
        cluster.seed().namespace(MaintenanceSettings.MEDIK8S_LEASES);
        client.leases()
                .inNamespace(MaintenanceSettings.MEDIK8S_LEASES)
                .resource(new LeaseBuilder()
                        .withNewMetadata()
                        .withName("node-" + node)
                        .withNamespace(MaintenanceSettings.MEDIK8S_LEASES)
                        .endMetadata()
                        .withNewSpec()
                        .withHolderIdentity(holder)
                        .withLeaseDurationSeconds(seconds)
                        .withAcquireTime(clock.instant().atZone(ZoneOffset.UTC))
                        .withRenewTime(clock.instant().atZone(ZoneOffset.UTC))
                        .endSpec()
                        .build())
                .create();
    }

    /** The operator's requests to Leases in medik8s-leases that are not reads. */
    long writesToMedik8sLeases() {
        return cluster.requests()
                .count(ApiRequest.resource("leases")
                        .and(ApiRequest.inNamespace(MaintenanceSettings.MEDIK8S_LEASES))
                        .and(r -> r.userAgent().equals(EmulatedCluster.OPERATOR_USER_AGENT))
                        .and(ApiRequest::isWrite));
    }

    @Test
    void waitsWhileAMedik8sHolderHoldsTheNodeInTheSharedNamespaceAndStartsOnceItLetsGo() {
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(1)
                .onNodes("w1")
                .create();
        holdInMedik8sLeases("w1", "node-maintenance", 3600);

        MaintenanceState waiting = drive(request("w1"), MaintenanceState.initial(), phase(Phase.Waiting));
        assertThat(waiting.waitingFor()).isEqualTo("node-maintenance");
        assertThat(waiting.lease().getNamespace()).isEqualTo(MaintenanceSettings.MEDIK8S_LEASES);
        assertThat(waiting.lastError()).isEqualTo("lease medik8s-leases/node-w1 is held by node-maintenance");
        MaintenanceState stillWaiting =
                machine.advance(request("w1"), waiting, false, sink).state();
        assertThat(stillWaiting.phase()).isEqualTo(Phase.Waiting);
        assertThat(events.stream().filter(e -> e.startsWith("LeaseWaiting"))).hasSize(1);
        assertThat(client.leases()
                        .inNamespace("tenure-system")
                        .withName("node-w1")
                        .get())
                .as("Tenure's own node lease, not taken while the medik8s holder holds the node")
                .isNull();
        assertThat(client.nodes().withName("w1").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);

        // node-maintenance-operator's end of maintenance: the holder cleared (its lease.Manager's invalidate)
        client.leases()
                .inNamespace(MaintenanceSettings.MEDIK8S_LEASES)
                .withName("node-w1")
                .edit(l -> {
                    l.getSpec().setHolderIdentity(null);
                    return l;
                });
        drive(request("w1"), stillWaiting, phase(Phase.Succeeded));
        assertThat(new KubeLeaseStore(client)
                        .get(LeaseKey.of("tenure-system", "node-w1"))
                        .holderIdentity())
                .isEqualTo("tenure");
        assertThat(writesToMedik8sLeases()).as("writes to medik8s-leases").isZero();
    }

    @Test
    void aLeaseTenure010LeftInTheSharedNamespaceIsOursAndHoldsNothing() {
        holdInMedik8sLeases("w1", "tenure", 60);

        drive(request("w1"), MaintenanceState.initial(), phase(Phase.Succeeded));
        assertThat(events.stream().filter(e -> e.startsWith("LeaseWaiting"))).isEmpty();
        assertThat(writesToMedik8sLeases()).as("writes to medik8s-leases").isZero();
    }

    @Test
    void aSharedNamespaceTheOperatorMayNotReadIsSaidOnceAndHoldsNothing() {
        holdInMedik8sLeases("w1", "node-maintenance", 3600);
        cluster.faults()
                .failNext(
                        Integer.MAX_VALUE,
                        ApiRequest.resource("leases")
                                .and(ApiRequest.inNamespace(MaintenanceSettings.MEDIK8S_LEASES))
                                .and(r -> r.userAgent().equals(EmulatedCluster.OPERATOR_USER_AGENT)),
                        403);

        drive(request("w1"), MaintenanceState.initial(), phase(Phase.Succeeded));
        assertThat(events.stream().filter(e -> e.startsWith(MaintenanceEvents.SHARED_LEASE_UNREADABLE)))
                .singleElement()
                .asString()
                .contains("medik8s-leases/node-w1", "HTTP 403");
        assertThat(events.stream().filter(e -> e.startsWith("LeaseWaiting"))).isEmpty();
    }

    @Test
    void aMissingSharedNamespaceHoldsNothingAndAnEmptyGuardReadsNothing() {
        drive(request("w1"), MaintenanceState.initial(), phase(Phase.Succeeded));
        assertThat(events.stream().filter(e -> e.startsWith(MaintenanceEvents.SHARED_LEASE_UNREADABLE)))
                .isEmpty();

        holdInMedik8sLeases("w2", "node-maintenance", 3600);
        machine.close();
        machine = newMachine(SETTINGS.withGuardNamespaces(List.of()));
        drive(request("w2"), MaintenanceState.initial(), phase(Phase.Succeeded));
        assertThat(cluster.requests()
                        .count(ApiRequest.resource("leases")
                                .and(ApiRequest.inNamespace(MaintenanceSettings.MEDIK8S_LEASES))
                                .and(r -> r.userAgent().equals(EmulatedCluster.OPERATOR_USER_AGENT))
                                .and(ApiRequest.named("node-w2"))))
                .as("requests to medik8s-leases/node-w2 with the guard off")
                .isZero();
    }

    @Test
    void priorCordonAndTaintsAreRestoredExactly() {
        cluster.seed()
                .node("w3")
                .role("worker")
                .unschedulable()
                .taint("node.kubernetes.io/unschedulable", "", "NoSchedule")
                .taint("gpu", "true", "NoSchedule")
                .create();
        List<String> before = client.nodes().withName("w3").get().getSpec().getTaints().stream()
                .map(NodeMarks::key)
                .toList();

        drive(request("w3"), MaintenanceState.initial(), phase(Phase.Succeeded));
        assertThat(client.nodes().withName("w3").get().getSpec().getTaints())
                .extracting(NodeMarks::key)
                .contains("tenure.dev/drain:NoSchedule");
        machine.end("w3", sink);

        Node after = client.nodes().withName("w3").get();
        assertThat(after.getSpec().getUnschedulable()).isTrue();
        assertThat(after.getSpec().getTaints()).extracting(NodeMarks::key).containsExactlyElementsOf(before);
    }

    /**
     * Issue 50, item 3: an admin who finds a bad disk during the maintenance taints the node (kubectl cordon would send
     * nothing: it is cordoned already); the end removes what Tenure put there and keeps the node cordoned, and says
     * what it restored and what it kept.
     */
    @Test
    void anAdminsTaintAddedDuringTheMaintenanceKeepsTheNodeCordoned() {
        drive(request("w2"), MaintenanceState.initial(), phase(Phase.Succeeded));
        client.nodes().withName("w2").edit(n -> {
            Taint disk = new Taint("NoSchedule", "example.com/disk-fault", null, "sdb");
            List<Taint> taints = new ArrayList<>(n.getSpec().getTaints());
            taints.add(disk);
            n.getSpec().setTaints(taints);
            n.getMetadata().getAnnotations().put("example.com/why", "sdb reallocated sectors");
            return n;
        });
        events.clear();

        machine.end("w2", sink);

        Node after = client.nodes().withName("w2").get();
        assertThat(after.getSpec().getUnschedulable()).as("kept cordoned").isTrue();
        assertThat(after.getSpec().getTaints())
                .extracting(NodeMarks::key)
                .contains("example.com/disk-fault:NoSchedule")
                .doesNotContain("tenure.dev/drain:NoSchedule");
        assertThat(NodeMarks.conditionOf(after))
                .as("Tenure's condition removed")
                .isEmpty();
        assertThat(after.getMetadata().getAnnotations()).containsKey("example.com/why");
        assertThat(events)
                .anySatisfy(e -> assertThat(e)
                        .startsWith("KeptCordoned: ")
                        .contains("tenure.dev/drain")
                        .contains("example.com/disk-fault=sdb:NoSchedule added during the maintenance"));
        assertThat(client.leases()
                        .inNamespace("tenure-system")
                        .withName("node-w2")
                        .get()
                        .getSpec()
                        .getHolderIdentity())
                .as("the lease released all the same")
                .isNull();
    }

    /** Issue 50, item 3: the documented way to end a maintenance leaving the node cordoned. */
    @Test
    void theKeepCordonedAnnotationEndsTheMaintenanceLeavingTheNodeCordoned() {
        drive(request("w2"), MaintenanceState.initial(), phase(Phase.Succeeded));
        client.nodes().withName("w2").edit(n -> {
            n.getMetadata().getAnnotations().put("tenure.dev/keep-cordoned", "waiting for the new disk");
            return n;
        });
        events.clear();

        machine.end("w2", sink);

        Node after = client.nodes().withName("w2").get();
        assertThat(after.getSpec().getUnschedulable()).isTrue();
        assertThat(after.getSpec().getTaints())
                .extracting(NodeMarks::key)
                .doesNotContain("tenure.dev/drain:NoSchedule");
        assertThat(events)
                .anySatisfy(e -> assertThat(e).startsWith("KeptCordoned: ").contains("waiting for the new disk"));
    }

    @Test
    void nodeDeletedMidDrainFailsAndReleasesTheLease() {
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(1)
                .onNodes("w1")
                .create();
        cluster.seed()
                .pdb("web")
                .namespace("app")
                .selector("app", "web")
                .minAvailable(1)
                .create();
        MaintenanceState blocked = drive(
                request("w1"),
                MaintenanceState.initial(),
                s -> counter("tenure.maintenance.evictions", "result", "blocked_by_pdb") >= 1);
        assertThat(pendingPodsGauge("w1")).isEqualTo(1.0);
        client.nodes().withName("w1").delete();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> client.nodes().withName("w1").get() == null);

        MaintenanceState failed = drive(request("w1"), blocked, phase(Phase.Failed));
        assertThat(pendingPodsGauge("w1"))
                .as("a deleted node's pending pods series (stale, it kept TenureMaintenanceStuck firing)")
                .isNull();
        NodeMaintenanceStatus status = NodeMaintenanceStatuses.toStatus(failed, null, 1, clock.instant());
        assertThat(NodeMaintenanceStatuses.condition(status, "Cordoned").orElseThrow())
                .as("Cordoned on a NodeMaintenance whose node is gone")
                .satisfies(c -> assertThat(c.getStatus()).isEqualTo("False"))
                .satisfies(c -> assertThat(c.getReason()).isEqualTo("NodeDeleted"));
        MaintenanceState again = machine.advance(request("w1"), NodeMaintenanceStatuses.toState(status), false, sink)
                .state();
        assertThat(again.lastError()).isEqualTo(failed.lastError());
        assertThat(failed.lastError()).contains("node w1 was deleted during maintenance");
        assertThat(failed.holdsNode()).isFalse();
        var lease =
                client.leases().inNamespace("tenure-system").withName("node-w1").get();
        assertThat(lease == null || lease.getSpec().getHolderIdentity() == null).isTrue();
        machine.end("w1", sink); // correct when the node is gone
    }

    @Test
    void aNewMachinePicksUpMidDrainFromTheClusterAndTheStatus() {
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(3)
                .onNodes("w1")
                .create();
        cluster.seed()
                .pdb("web")
                .namespace("app")
                .selector("app", "web")
                .maxUnavailable(1)
                .create();
        cluster.seed().node("w3").role("worker").create();
        cluster.seed()
                .deployment("other")
                .namespace("app")
                .replicas(3)
                .onNodes("w3")
                .create();
        MaintenanceState midway = drive(
                request("w1"),
                MaintenanceState.initial(),
                s -> counter("tenure.maintenance.evictions", "result", "ok") >= 1);
        assertThat(midway.phase()).isEqualTo(Phase.Running);
        String recordedPrior = client.nodes()
                .withName("w1")
                .get()
                .getMetadata()
                .getAnnotations()
                .get(NodeMarks.PRIOR_STATE);

        machine = newMachine(); // operator restart: nothing carried over but the status
        MaintenanceState done = drive(request("w1"), midway, phase(Phase.Succeeded));
        assertThat(done.totalPods()).isEqualTo(midway.totalPods());
        assertThat(done.leaseAcquiredAt()).isEqualTo(midway.leaseAcquiredAt());
        assertThat(podsOn("w1")).isEmpty();
        assertThat(client.nodes()
                        .withName("w1")
                        .get()
                        .getMetadata()
                        .getAnnotations()
                        .get(NodeMarks.PRIOR_STATE))
                .isEqualTo(recordedPrior);
        assertThat(new KubeLeaseStore(client)
                        .get(LeaseKey.of("tenure-system", "node-w1"))
                        .leaseTransitions())
                .isZero();
    }

    @Test
    void conflictsAndServerErrorsOnNodePatchAndEvictionAreRetried() {
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(2)
                .onNodes("w1")
                .create();
        cluster.faults().failNext(2, r -> r.is("patch", "nodes"), 409);
        cluster.faults().failNext(1, r -> r.is("patch", "nodes", "status"), 500);
        cluster.faults().failNext(2, ApiRequest.resource("pods", "eviction"), 500);

        MaintenanceState done = drive(request("w1"), MaintenanceState.initial(), phase(Phase.Succeeded));
        assertThat(podsOn("w1")).isEmpty();
        assertThat(counter("tenure.maintenance.evictions", "result", "error")).isEqualTo(2);
        Node node = client.nodes().withName("w1").get();
        assertThat(node.getSpec().getUnschedulable()).isTrue();
        assertThat(NodeMarks.conditionOf(node)).isPresent();
        assertThat(done.lastError()).isNull();
    }

    @Test
    void windowEndsTheMaintenanceByItself() {
        MaintenanceRequest req = new MaintenanceRequest(
                "w1", "", Optional.of(Duration.ofMinutes(10)), DrainOptions.defaults(), HandoverOptions.defaults());
        MaintenanceState done = drive(req, MaintenanceState.initial(), phase(Phase.Succeeded));
        var lease =
                client.leases().inNamespace("tenure-system").withName("node-w1").get();
        assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(10 * 60 + 30);
        clock.advance(Duration.ofMinutes(10));
        MaintenanceState ended = machine.advance(req, done, false, sink).state();
        assertThat(ended.phase()).isEqualTo(Phase.Ended);
        assertThat(client.nodes().withName("w1").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);
        assertThat(client.leases()
                        .inNamespace("tenure-system")
                        .withName("node-w1")
                        .get()
                        .getSpec()
                        .getHolderIdentity())
                .isNull();
        assertThat(machine.advance(req, ended, false, sink).state().phase()).isEqualTo(Phase.Ended);
    }

    @Test
    void handoverRunsBetweenCordonAndDrainAndIsBoundedByItsTimeout() {
        cluster.seed()
                .deployment("web")
                .namespace("app")
                .replicas(1)
                .onNodes("w1")
                .create();
        List<String> calls = Collections.synchronizedList(new ArrayList<>());
        machine = new MaintenanceMachine(
                client,
                new KubeLeaseStore(client),
                (node, started, now) -> {
                    calls.add(node + " cordoned="
                            + client.nodes().withName(node).get().getSpec().getUnschedulable() + " pods="
                            + podsOn(node).size());
                    return LeadershipHandover.Outcome.inProgress("1 lease still held on " + node);
                },
                new MaintenanceMetrics(new SimpleMeterRegistry()),
                SETTINGS,
                pool,
                heartbeats,
                clock);

        MaintenanceState handingOver =
                drive(request("w1"), MaintenanceState.initial(), s -> s.handoverStartedAt() != null);
        MaintenanceState still =
                machine.advance(request("w1"), handingOver, false, sink).state();
        assertThat(still.handedOverAt()).isNull();
        assertThat(calls).isNotEmpty().allMatch(c -> c.equals("w1 cordoned=true pods=1"));
        assertThat(cluster.requests().count(ApiRequest.resource("pods", "eviction")))
                .isZero();

        clock.advance(Duration.ofSeconds(31));
        MaintenanceState done = drive(request("w1"), still, phase(Phase.Succeeded));
        assertThat(done.handoverMessage()).contains("did not finish within 30s");
    }

    @Test
    void theLeaseIsKeptRenewedBetweenReconcilesAndNotAfterTheEnd() {
        drive(request("w1"), MaintenanceState.initial(), phase(Phase.Succeeded));
        var leases = new KubeLeaseStore(client);
        LeaseKey key = LeaseKey.of("tenure-system", "node-w1");
        java.time.Instant renewed = leases.get(key).renewTime();
        clock.advance(Duration.ofSeconds(3)); // no reconcile from here on
        await().atMost(Duration.ofSeconds(10))
                .until(() -> leases.get(key).renewTime().isAfter(renewed));
        assertThat(leases.get(key).leaseDuration()).contains(SETTINGS.leaseDuration());

        machine.end("w1", sink);
        assertThat(leases.get(key).hasHolder()).isFalse();
        clock.advance(Duration.ofSeconds(3));
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(5))
                .until(() -> !leases.get(key).hasHolder());
    }

    /**
     * Issue 38, item 3: a status this operator did not write is a record. One that says the drain is done is checked
     * against the node's pods: kept when the node is drained, re-derived (drain forgotten, Running, a Warning naming
     * the pods) when pods are left; a status that claims no drain is not read against the world at all.
     */
    @Test
    void aRecordedDrainIsCheckedAgainstThePodsOnTheNode() {
        MaintenanceRequest request = request("w1");
        MaintenanceState succeeded = drive(request, MaintenanceState.initial(), phase(Phase.Succeeded));
        events.clear();

        assertThat(machine.rederive(request, succeeded, sink))
                .as("drained node")
                .isEqualTo(succeeded);
        assertThat(events).isEmpty();

        cluster.seed()
                .deployment("late")
                .namespace("app")
                .replicas(1)
                .onNodes("w1")
                .create();
        MaintenanceState recordedOnly = machine.rederive(request, succeeded, sink);
        assertThat(recordedOnly.phase()).isEqualTo(Phase.Running);
        assertThat(recordedOnly.drainedAt()).isNull();
        assertThat(recordedOnly.drainStartedAt()).isNull();
        assertThat(recordedOnly.drainProgress()).isZero();
        assertThat(recordedOnly.leaseAcquiredAt()).isEqualTo(succeeded.leaseAcquiredAt());
        assertThat(events)
                .singleElement()
                .asString()
                .startsWith(MaintenanceEvents.STATUS_REDERIVED + ": ")
                .contains("not written by this operator")
                .contains("app/late");

        events.clear();
        MaintenanceState running =
                succeeded.toBuilder().phase(Phase.Running).drainedAt(null).build();
        assertThat(machine.rederive(request, running, sink))
                .as("claims no drain")
                .isEqualTo(running);
        MaintenanceState failed = succeeded.toBuilder().phase(Phase.Failed).build();
        assertThat(machine.rederive(request, failed, sink)).as("held failure").isEqualTo(failed);
        assertThat(events).isEmpty();

        // and the machine then drains what the record said was gone
        drive(request, recordedOnly, phase(Phase.Succeeded));
        assertThat(podsOn("w1")).isEmpty();
    }
}
