package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.WorkFence;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.FencedWrites;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.MutableClock;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The node lease fences the maintenance's side effects, as the operator lease fences the operator's: each instance
 * holds node leases in its own name, a successor takes a predecessor's over explicitly (leaseTransitions + 1), and
 * nothing is sent for a node once its lease no longer holds — not even by a reconcile that began while it did.
 */
@EndToEnd
class NodeLeaseFenceIT {
    static final LeaseKey LEASE = LeaseKey.of("tenure-system", "node-w1");
    /** The instances' {@code drain-poll-interval}. */
    static final Duration DRAIN_POLL = Duration.ofMillis(100);

    final MutableClock clock = MutableClock.atSystemTime();
    EmulatedCluster cluster;
    final List<Instance> instances = new ArrayList<>();
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    final MaintenanceEvents sink = (warning, reason, message) -> events.add(reason + ": " + message);

    /** One operator instance's machine: its own holder, fence and fenced client. */
    final class Instance implements AutoCloseable {
        final WorkFence fence = WorkFence.closed();
        /** What the term has left, as its elector would say: a test shortens it to refuse every write. */
        final AtomicReference<Duration> termLeft = new AtomicReference<>(Duration.ofHours(1));

        final KubernetesClient client;
        final ExecutorService pool;
        final ExecutorScheduler heartbeats = new ExecutorScheduler("test-heartbeats");
        final MaintenanceMachine machine;

        Instance(String identity, ExecutorService pool) {
            this.pool = pool;
            KubernetesClient operator = cluster.operatorClient();
            client = FencedWrites.client(
                    new ConfigBuilder(operator.getConfiguration())
                            .withRequestRetryBackoffLimit(0)
                            .build(),
                    null,
                    fence,
                    identity,
                    EmulatedCluster.HTTP_CLIENTS);
            MaintenanceSettings settings = new MaintenanceSettings(
                    "tenure-system",
                    "node-",
                    MaintenanceSettings.instanceHolder("tenure", identity),
                    Duration.ofSeconds(60),
                    Duration.ofSeconds(30),
                    Duration.ofSeconds(10),
                    4,
                    DRAIN_POLL,
                    Duration.ofSeconds(1));
            machine = new MaintenanceMachine(
                    client,
                    new KubeLeaseStore(client),
                    (node, started, now) -> LeadershipHandover.Outcome.complete("nothing held"),
                    new MaintenanceMetrics(new SimpleMeterRegistry()),
                    settings,
                    pool,
                    heartbeats,
                    clock);
            fence.open(() -> Optional.of(termLeft.get()));
            instances.add(this);
        }

        MaintenanceState advance(MaintenanceState prior) {
            return advance(request(), prior);
        }

        /** One call, its state passed through status as the door keeps it. */
        MaintenanceState advance(MaintenanceRequest request, MaintenanceState prior) {
            return step(request, prior).state();
        }

        /** One call as {@link #advance(MaintenanceRequest, MaintenanceState)}, with when it asks to be called again. */
        MaintenanceMachine.Step step(MaintenanceRequest request, MaintenanceState prior) {
            MaintenanceMachine.Step step = machine.advance(request, prior, false, sink);
            MaintenanceState kept = NodeMaintenanceStatuses.toState(
                    NodeMaintenanceStatuses.toStatus(step.state(), null, 1, clock.instant()));
            return new MaintenanceMachine.Step(kept, step.requeueAfter(), step.failed());
        }

        @Override
        public void close() {
            machine.close();
            heartbeats.close();
            pool.shutdownNow();
            client.close();
        }
    }

    @BeforeEach
    void start() {
        cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests().clock(clock));
        cluster.seed().node("w1").role("worker").create();
        cluster.seed().pod("web-1").namespace("app").onNodes("w1").create();
        cluster.seed().pod("web-2").namespace("app").onNodes("w1").create();
    }

    @AfterEach
    void stop() {
        instances.forEach(Instance::close);
        cluster.close();
    }

    static MaintenanceRequest request() {
        return request(Optional.empty());
    }

    static MaintenanceRequest request(Optional<Duration> window) {
        return new MaintenanceRequest(
                "w1", "kernel upgrade", window, DrainOptions.from(new DrainSpec()), HandoverOptions.defaults());
    }

    long nodePatches() {
        return cluster.requests().count(r -> r.is("patch", "nodes") && "w1".equals(r.name()));
    }

    LeaseRecord lease() {
        return new KubeLeaseStore(cluster.client()).find(LEASE).orElseThrow();
    }

    static boolean isWrite(ApiRequest r) {
        return java.util.Set.of("POST", "PUT", "PATCH", "DELETE").contains(r.method());
    }

    long evictions() {
        return cluster.requests().count(ApiRequest.resource("pods", "eviction"));
    }

    @Test
    void aSuccessorTakesThePredecessorsNodeLeaseOverExplicitlyAndThePredecessorCannotWriteAgain() {
        Instance a = new Instance("tenure-a", Executors.newFixedThreadPool(2));
        MaintenanceState afterA = a.advance(MaintenanceState.initial());
        assertThat(afterA.phase()).isEqualTo(Phase.Running);
        assertThat(lease().holderIdentity()).isEqualTo("tenure/tenure-a");
        int transitions = lease().leaseTransitions();

        // a's term ends (its fence closes: the operator lease moved on); b leads now and continues the maintenance
        a.fence.close();
        Instance b = new Instance("tenure-b", Executors.newFixedThreadPool(2));
        MaintenanceState afterB = b.advance(afterA);

        assertThat(lease().holderIdentity())
                .as("the successor holds the node lease in its own name at once, not after it expires")
                .isEqualTo("tenure/tenure-b");
        assertThat(lease().leaseTransitions()).as("the takeover is recorded").isEqualTo(transitions + 1);
        assertThat(afterB.phase()).isIn(Phase.Running, Phase.Succeeded);
        assertThat(events)
                .anySatisfy(e -> assertThat(e)
                        .startsWith(MaintenanceEvents.LEASE_TAKEN_OVER + ": ")
                        .contains("from tenure/tenure-a by tenure/tenure-b"));

        // the predecessor, still reconciling from a stale belief, sends nothing
        long writesBefore = cluster.requests().count(NodeLeaseFenceIT::isWrite);
        a.advance(afterA);
        assertThat(cluster.requests().count(NodeLeaseFenceIT::isWrite))
                .as("writes of the predecessor after its term")
                .isEqualTo(writesBefore);
        assertThat(lease().holderIdentity()).isEqualTo("tenure/tenure-b");
    }

    @Test
    void evictionsAreNotSentOnceTheNodeLeaseNoLongerHoldsEvenWithinOneReconcile() {
        // every eviction reaches its pool thread a lease duration later (a stalled JVM, a slow pool): by then the
        // lease the reconcile claimed has run out, and another controller may already hold the node
        ExecutorService stalling = Executors.newFixedThreadPool(2);
        ExecutorService late = new java.util.concurrent.AbstractExecutorService() {
            @Override
            public void execute(Runnable task) {
                stalling.execute(() -> {
                    clock.advance(Duration.ofSeconds(61));
                    task.run();
                });
            }

            @Override
            public void shutdown() {
                stalling.shutdown();
            }

            @Override
            public List<Runnable> shutdownNow() {
                return stalling.shutdownNow();
            }

            @Override
            public boolean isShutdown() {
                return stalling.isShutdown();
            }

            @Override
            public boolean isTerminated() {
                return stalling.isTerminated();
            }

            @Override
            public boolean awaitTermination(long timeout, java.util.concurrent.TimeUnit unit)
                    throws InterruptedException {
                return stalling.awaitTermination(timeout, unit);
            }
        };
        Instance a = new Instance("tenure-a", late);
        Instant claimed = clock.instant();

        MaintenanceState state = a.advance(MaintenanceState.initial());

        assertThat(Duration.between(claimed, clock.instant())).isGreaterThan(Duration.ofSeconds(60));
        assertThat(evictions())
                .as("evictions sent after the node lease ran out")
                .isZero();
        assertThat(state.lastError()).contains("not sent").contains("node lease tenure-system/node-w1");
        Node node = cluster.client().nodes().withName("w1").get();
        assertThat(node.getSpec().getUnschedulable())
                .as("the cordon went out while the lease held")
                .isTrue();
    }

    /**
     * The fence refuses every eviction of fifty drain steps in a row, then opens. The stand-in: the operator's term is
     * not renewed (20 ms left, too little for a write to be answered) while its reconciles still run; nothing the next
     * step does can undo that (its claim of the node lease renews only the node lease), as with any refusal that time
     * must end. The door calls again when each step asks (the clock moved by the step's requeue).
     */
    @Test
    void aDrainTheFenceRefusesFiftyStepsInARowLooksAgainEachPollAndSendsEachPodOnceWhenItOpens() {
        Instance a = new Instance("tenure-a", Executors.newFixedThreadPool(2));
        MaintenanceRequest held =
                request().withHooks(new MaintenanceHooks.Hooks(List.of("app"), List.of(), Duration.ofHours(1)));
        MaintenanceState state = a.advance(held, MaintenanceState.initial());
        assertThat(state.hookWait())
                .as("cordoned, held before the drain by a pre-drain hook")
                .isNotNull();
        assertThat(evictions()).isZero();

        a.termLeft.set(Duration.ofMillis(20));
        long writesBefore = cluster.requests().count(NodeLeaseFenceIT::isWrite);
        long readsBefore = cluster.requests().count(r -> !isWrite(r));
        Instant refusedFrom = clock.instant();
        int refusedSteps = 50;
        List<Optional<Duration>> requeues = new ArrayList<>();
        List<MaintenanceState> refused = new ArrayList<>();
        for (int i = 0; i < refusedSteps; i++) {
            MaintenanceMachine.Step step = a.step(request(), state); // the hook removed: on to the drain
            state = step.state();
            requeues.add(step.requeueAfter());
            refused.add(state);
            clock.advance(step.requeueAfter().orElseThrow());
        }
        Duration refusedFor = Duration.between(refusedFrom, clock.instant());
        long reads = cluster.requests().count(r -> !isWrite(r)) - readsBefore;
        assertThat(requeues)
                .as(
                        "requeue of each step the fence refused (%d steps, %d reads, in %d ms of the clock)",
                        refusedSteps, reads, refusedFor.toMillis())
                .containsOnly(Optional.of(DRAIN_POLL));
        assertThat(refused).allSatisfy(s -> {
            assertThat(s.pendingPods())
                    .as("pods the drain still waits on")
                    .containsExactlyInAnyOrder("app/web-1", "app/web-2");
            assertThat(s.lastError())
                    .as("why the drain waits")
                    .startsWith("not sent: the term ends in 20 ms")
                    .contains("app/web-1 and 1 more")
                    .endsWith("is left to the next step, in 0.1s (no back-off: the API server did not fail it)");
        });
        assertThat(cluster.requests().count(NodeLeaseFenceIT::isWrite))
                .as("writes that reached the API server while the fence refused")
                .isEqualTo(writesBefore);

        a.termLeft.set(Duration.ofHours(1));
        state = a.advance(request(), state);

        assertThat(evictions())
                .as("evictions sent by the first step after the fence opened (no back-off carried over)")
                .isEqualTo(2);
        assertThat(state.lastError()).isNull();
        // a bound on liveness: the emulated kubelets end the evicted pods in real time (grace scaled to 300 ms)
        AtomicReference<MaintenanceState> drained = new AtomicReference<>(state);
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    clock.advance(DRAIN_POLL);
                    drained.set(a.advance(request(), drained.get()));
                    return drained.get().phase() == Phase.Succeeded;
                });
        for (String pod : List.of("web-1", "web-2")) {
            assertThat(cluster.requests().count(r -> r.is("create", "pods", "eviction") && pod.equals(r.name())))
                    .as("evictions of pod app/%s", pod)
                    .isEqualTo(1);
        }
    }

    @Test
    void theEndLeavesTheNodeAloneWhenAnotherControllerHoldsItsLease() {
        Instance a = new Instance("tenure-a", Executors.newFixedThreadPool(2));
        a.advance(MaintenanceState.initial());
        assertThat(cluster.client().nodes().withName("w1").get().getSpec().getUnschedulable())
                .isTrue();
        // our lease ran out; another maintenance controller took the node and needs it cordoned
        KubeLeaseStore store = new KubeLeaseStore(cluster.client());
        LeaseRecord current = store.find(LEASE).orElseThrow();
        clock.advance(Duration.ofSeconds(61));
        store.update(
                LEASE,
                dev.tenure.election.LeaseRules.heldRecord(
                        current, "node-maintenance", clock.instant(), Duration.ofMinutes(5)));
        events.clear();

        a.machine.end("w1", sink);

        assertThat(cluster.client().nodes().withName("w1").get().getSpec().getUnschedulable())
                .as("uncordoned under another controller's maintenance")
                .isTrue();
        assertThat(lease().holderIdentity()).isEqualTo("node-maintenance");
        assertThat(events)
                .anySatisfy(e -> assertThat(e).startsWith(MaintenanceEvents.NODE_LEFT_TO_HOLDER + ": "))
                .noneSatisfy(e -> assertThat(e).startsWith(MaintenanceEvents.UNCORDONED + ": "));
    }

    @Test
    void theEndUndoesAndReleasesWhenTheLeaseIsStillOurs() {
        Instance a = new Instance("tenure-a", Executors.newFixedThreadPool(2));
        a.advance(MaintenanceState.initial());

        a.machine.end("w1", sink);

        assertThat(cluster.client().nodes().withName("w1").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);
        assertThat(lease().hasHolder()).isFalse();
    }

    @Test
    void aOneNanosecondWindowSendsNothingToTheNodeOrItsPodsAndEndsSayingSo() {
        Instance a = new Instance("tenure-a", Executors.newFixedThreadPool(2));
        MaintenanceRequest request = request(Optional.of(Duration.ofNanos(1)));

        MaintenanceState first = a.advance(request, MaintenanceState.initial());
        assertThat(first.lastError())
                .as("the first call's writes, refused past the window's end")
                .contains("not sent")
                .contains("maintenance window (spec.window 1ns");
        clock.advance(Duration.ofMillis(100));
        MaintenanceState ended = a.advance(request, first);

        assertThat(ended.phase()).isEqualTo(Phase.Ended);
        assertThat(evictions()).as("evictions sent for a 1 ns window").isZero();
        assertThat(nodePatches())
                .as("node patches (cordon, taints) sent for a 1 ns window")
                .isZero();
        assertThat(cluster.client().nodes().withName("w1").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);
        assertThat(lease().hasHolder()).as("the lease released at the end").isFalse();
        assertThat(cluster.client().pods().inNamespace("app").list().getItems()).hasSize(2);
    }

    @Test
    void aWindowThatClosesMidCallStopsTheEvictionsOfThatCall() {
        Instance a = new Instance("tenure-a", Executors.newFixedThreadPool(2));
        MaintenanceRequest request = request(Optional.of(Duration.ofMinutes(10)));
        // the window closes while the cordon is being sent: the evictions of the same call come after its end
        java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
        cluster.requests().observe(r -> {
            if (r.is("patch", "nodes") && closed.compareAndSet(false, true)) {
                clock.advance(Duration.ofMinutes(10));
            }
        });

        MaintenanceState state = a.advance(request, MaintenanceState.initial());

        assertThat(closed).isTrue();
        assertThat(evictions()).as("evictions sent after the window's end").isZero();
        assertThat(state.lastError()).contains("not sent").contains("maintenance window");
        MaintenanceState ended = a.advance(request, state);
        assertThat(ended.phase()).isEqualTo(Phase.Ended);
        assertThat(evictions()).isZero();
        assertThat(cluster.client().nodes().withName("w1").get().getSpec().getUnschedulable())
                .as("restored at the end")
                .isNotEqualTo(Boolean.TRUE);
    }
}
