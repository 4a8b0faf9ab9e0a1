package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.HooksSpec;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceMetrics.BlockerKind;
import dev.tenure.maintenance.machine.MaintenanceMetrics.StageLabel;
import dev.tenure.maintenance.machine.MaintenanceMetrics.StageOutcome;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.MutableClock;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 (metrics per stage), on the emulated cluster with the real machine, step by step on a clock the test moves
 * in whole seconds (status keeps times to the second): how long each stage took, read back from the registry to the
 * second, and how many seconds each PodDisruptionBudget and hook owner held the maintenance.
 */
@EndToEnd
class StageMetricsIT {

    static final Duration HOOK_TIMEOUT = Duration.ofMinutes(10);
    /** Enough calls for any of these maintenances to reach where it is going, one second apart. */
    static final int MAX_CALLS = 200;

    MutableClock clock;
    EmulatedCluster cluster;
    KubernetesClient client;
    ExecutorService pool;
    ExecutorScheduler heartbeats;
    SimpleMeterRegistry registry;
    MaintenanceMachine machine;
    final MaintenanceEvents sink = (warning, reason, message) -> {};

    @BeforeEach
    void start() {
        clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests().clock(clock));
        client = cluster.client();
        pool = Executors.newFixedThreadPool(4);
        heartbeats = new ExecutorScheduler("test-heartbeats");
        registry = new SimpleMeterRegistry();
        KubernetesClient operator = cluster.operatorClient();
        machine = new MaintenanceMachine(
                operator,
                new KubeLeaseStore(operator),
                (node, started, now) -> LeadershipHandover.Outcome.complete("nothing held"),
                new MaintenanceMetrics(registry),
                MaintenanceMachineIT.SETTINGS,
                pool,
                heartbeats,
                clock);
        cluster.seed().node("w1").role("worker").create();
        cluster.seed().node("w2").role("worker").create();
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

    void createMaintenance() {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("w1", "kernel upgrade");
        spec.setHooks(new HooksSpec(GoDuration.format(HOOK_TIMEOUT)));
        DrainSpec drain = new DrainSpec();
        drain.setEvictionRetryDelay("100ms");
        spec.setDrain(drain);
        client.resource(new NodeMaintenance("m", spec)).create();
    }

    void hook(String owner, boolean present) {
        client.resources(NodeMaintenance.class).withName("m").edit(nm -> {
            Map<String, String> annotations = new HashMap<>();
            if (nm.getMetadata().getAnnotations() != null) {
                annotations.putAll(nm.getMetadata().getAnnotations());
            }
            if (present) {
                annotations.put(MaintenanceHooks.PRE_DRAIN_PREFIX + owner, "");
            } else {
                annotations.remove(MaintenanceHooks.PRE_DRAIN_PREFIX + owner);
            }
            nm.getMetadata().setAnnotations(annotations);
            return nm;
        });
    }

    /** The request as the door builds it, with the hooks on the API server now. */
    MaintenanceRequest request() {
        NodeMaintenance nm =
                client.resources(NodeMaintenance.class).withName("m").get();
        MaintenanceRequest request = MaintenanceRequest.from(nm.getSpec(), "w1");
        return request.withHooks(
                request.hooks().withAnnotations(nm.getMetadata().getAnnotations()));
    }

    /** One reconcile {@code after} the last: the state goes through the status, as the door keeps it. */
    MaintenanceState step(MaintenanceState state, Duration after) {
        clock.advance(after);
        MaintenanceState next = machine.advance(request(), state, false, sink).state();
        return NodeMaintenanceStatuses.toState(NodeMaintenanceStatuses.toStatus(next, null, 1, clock.instant()));
    }

    /** Reconciles a second apart until {@code until} holds. */
    MaintenanceState stepUntil(MaintenanceState from, Predicate<MaintenanceState> until) {
        MaintenanceState state = from;
        for (int i = 0; i < MAX_CALLS && !until.test(state); i++) {
            state = step(state, Duration.ofSeconds(1));
        }
        assertThat(until).as("reached in %d calls: %s", MAX_CALLS, state).accepts(state);
        return state;
    }

    Timer stage(StageLabel stage, StageOutcome outcome) {
        return registry.find(MaintenanceMetrics.STAGE_DURATION)
                .tag("stage", stage.name())
                .tag("outcome", outcome.name())
                .timer();
    }

    double seconds(StageLabel stage, StageOutcome outcome) {
        Timer t = stage(stage, outcome);
        assertThat(t).as("stage %s, outcome %s observed", stage, outcome).isNotNull();
        return t.totalTime(TimeUnit.SECONDS);
    }

    double blocked(BlockerKind kind, String name) {
        Counter c = registry.find(MaintenanceMetrics.BLOCKED_SECONDS)
                .tag("kind", kind.name())
                .tag("name", name)
                .counter();
        return c == null ? 0 : c.count();
    }

    double evictionsBlocked() {
        Counter c = registry.find("tenure.maintenance.evictions")
                .tag("result", "blocked_by_pdb")
                .counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void preDrainHooksAreTimedAndEachOwnerIsChargedTheSecondsItHeldTheDrain() {
        createMaintenance();
        hook("rook-ceph", true);
        hook("app", true);
        MaintenanceState held = stepUntil(MaintenanceState.initial(), s -> s.hookWait() != null);
        assertThat(held.hookWait().since()).isEqualTo(clock.instant());

        held = step(held, Duration.ofSeconds(120));
        hook("app", false);
        held = step(held, Duration.ofSeconds(60)); // held by rook-ceph alone from here
        hook("rook-ceph", false);
        MaintenanceState draining = step(held, Duration.ofSeconds(30));

        assertThat(draining.hookWait()).isNull();
        assertThat(draining.drainStartedAt()).isNotNull();
        assertThat(seconds(StageLabel.pre_drain_hooks, StageOutcome.completed)).isEqualTo(210.0);
        assertThat(blocked(BlockerKind.hook, "app")).isEqualTo(180.0);
        assertThat(blocked(BlockerKind.hook, "rook-ceph")).isEqualTo(210.0);

        MaintenanceState done = stepUntil(draining, s -> s.phase() == Phase.Succeeded);

        // status keeps the drain's start while it drains, its end once it is drained
        double drain =
                Duration.between(draining.drainStartedAt(), done.drainedAt()).toSeconds();
        assertThat(drain).isPositive();
        assertThat(seconds(StageLabel.drain, StageOutcome.completed)).isEqualTo(drain);
        // kubectl's one wave for ordinary pods: it began with the drain and ended with it
        assertThat(stage(StageLabel.wave, StageOutcome.completed).count()).isEqualTo(1);
        assertThat(seconds(StageLabel.wave, StageOutcome.completed)).isEqualTo(drain);
        assertThat(blocked(BlockerKind.hook, "rook-ceph"))
                .as("nothing after the release")
                .isEqualTo(210.0);
        assertThat(registry.find(MaintenanceMetrics.STAGE_DURATION).meters().stream()
                        .map(m -> m.getId().getTag("stage") + "/" + m.getId().getTag("outcome")))
                .containsExactlyInAnyOrder("pre_drain_hooks/completed", "drain/completed", "wave/completed");
    }

    @Test
    void aBudgetThatRefusesEvictionsIsChargedEverySecondItHoldsTheDrain() {
        cluster.seed()
                .pdb("web")
                .namespace("app")
                .selector("app", "web")
                .minAvailable(2)
                .create();
        createMaintenance();
        MaintenanceState refused = stepUntil(MaintenanceState.initial(), s -> evictionsBlocked() >= 1);
        MaintenanceState held = step(refused, Duration.ofSeconds(1)); // the refusal is seen: held from here
        double before = blocked(BlockerKind.pdb, "app/web");
        for (int i = 0; i < 6; i++) {
            held = step(held, Duration.ofSeconds(10));
        }

        assertThat(held.phase()).isEqualTo(Phase.Running);
        assertThat(held.pendingPods()).hasSize(2);
        assertThat(blocked(BlockerKind.pdb, "app/web") - before).isEqualTo(60.0);
        assertThat(stage(StageLabel.drain, StageOutcome.completed)).isNull();

        client.policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace("app")
                .withName("web")
                .delete();
        MaintenanceState done = stepUntil(held, s -> s.phase() == Phase.Succeeded);
        double total = blocked(BlockerKind.pdb, "app/web");
        step(done, Duration.ofMinutes(5)); // Succeeded: nothing holds it any more

        assertThat(blocked(BlockerKind.pdb, "app/web")).isEqualTo(total).isGreaterThanOrEqualTo(60.0);
        assertThat(registry.find(MaintenanceMetrics.BLOCKED_SECONDS).counters().stream()
                        .map(Meter::getId)
                        .map(id -> id.getTag("kind") + ":" + id.getTag("name")))
                .containsExactly("pdb:app/web");
        assertThat(seconds(StageLabel.drain, StageOutcome.completed)).isEqualTo((double)
                Duration.between(held.drainStartedAt(), done.drainedAt()).toSeconds());
    }

    @Test
    void aMaintenanceDeletedMidDrainEndsItsStagesAsDeleted() {
        cluster.seed()
                .pdb("web")
                .namespace("app")
                .selector("app", "web")
                .minAvailable(2)
                .create();
        createMaintenance();
        MaintenanceState refused = stepUntil(MaintenanceState.initial(), s -> evictionsBlocked() >= 1);
        MaintenanceState held = step(refused, Duration.ofSeconds(1));
        double before = blocked(BlockerKind.pdb, "app/web");

        clock.advance(Duration.ofSeconds(45));
        machine.deleted("w1", held, HOOK_TIMEOUT);
        machine.forget("m", "w1");

        double sinceStart =
                Duration.between(held.drainStartedAt(), clock.instant()).toSeconds();
        assertThat(seconds(StageLabel.drain, StageOutcome.deleted)).isEqualTo(sinceStart);
        assertThat(stage(StageLabel.wave, StageOutcome.deleted).count()).isEqualTo(1);
        assertThat(blocked(BlockerKind.pdb, "app/web") - before).isEqualTo(45.0);
    }
}
