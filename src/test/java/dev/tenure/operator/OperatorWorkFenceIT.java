package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseRules;
import dev.tenure.election.WorkFence;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.FencedWrites;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.SecondLane;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Ignore;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two operator replicas (the real {@link OperatorLeadership}, each with a JOSDK {@link Operator}, its own fence and
 * fenced client) on the emulated cluster, with a reconciler that waits the way the drain used to (in a
 * {@code join()} that ignores interrupts) and then writes. Checked on work, in real time: no reconcile of one replica
 * overlaps a reconcile of the other, whatever ends the first one's leadership.
 */
@EndToEnd
@SecondLane
class OperatorWorkFenceIT {
    static final LeaseKey LEASE = LeaseKey.of("tenure-system", "tenure-operator");
    static final String NS = "work";
    // margin 8 s: the stop budget is 4 s, room for a reconcile's wait (3 s) on a busy machine (JOSDK's own stop
    // returns in ~50 ms without waiting for it: that is the defect these tests catch)
    static final Duration LD = Duration.ofSeconds(16);
    static final Duration RD = Duration.ofSeconds(8);

    record Interval(String replica, long start, long end) {
        boolean overlaps(Interval o) {
            return start < o.end && o.start < end;
        }
    }

    EmulatedCluster cluster;
    final ConcurrentLinkedQueue<Interval> reconciles = new ConcurrentLinkedQueue<>();
    /** When each replica's terms opened its fence: (replica, nanoTime, nanoTime). */
    final ConcurrentLinkedQueue<Interval> termStarts = new ConcurrentLinkedQueue<>();

    final List<String> exits = new CopyOnWriteArrayList<>();
    final List<String> halts = new CopyOnWriteArrayList<>();
    final List<Replica> replicas = new ArrayList<>();

    @BeforeEach
    void start() {
        cluster = EmulatedCluster.start();
        cluster.seed().namespace(LEASE.namespace());
        cluster.seed().namespace(NS);
    }

    @AfterEach
    void stop() {
        replicas.forEach(r -> r.leadership.onStop(null));
        replicas.forEach(r -> r.client.close());
        cluster.close();
    }

    /** A reconciler on ConfigMaps in {@value #NS} that works {@code work} long under a permit, then writes. */
    @Ignore // a test double: not one of the application's reconcilers
    @ControllerConfiguration(name = "fence-probe")
    static final class Probe implements Reconciler<ConfigMap> {
        final String replica;
        final WorkFence fence;
        final KubernetesClient client;
        final ConcurrentLinkedQueue<Interval> out;
        final CountDownLatch inside = new CountDownLatch(1);
        final ExecutorService waits = Executors.newCachedThreadPool();
        volatile Duration work = Duration.ofMillis(3000);

        Probe(String replica, WorkFence fence, KubernetesClient client, ConcurrentLinkedQueue<Interval> out) {
            this.replica = replica;
            this.fence = fence;
            this.client = client;
            this.out = out;
        }

        @Override
        public UpdateControl<ConfigMap> reconcile(ConfigMap cm, Context<ConfigMap> context) {
            try (WorkFence.Permit permit = fence.enter()) {
                long start = System.nanoTime();
                inside.countDown();
                // like the drain's old CompletableFuture.join(): deaf to the interrupt of Operator.stop()
                // (on a pool of its own, as the drain's evictions: the common pool may be one thread on two cores)
                CompletableFuture.runAsync(() -> parkFor(work), waits).join();
                try {
                    client.configMaps()
                            .inNamespace(NS)
                            .withName(cm.getMetadata().getName())
                            .patch(
                                    PatchContext.of(PatchType.JSON_MERGE),
                                    "{\"data\":{\"lastWriter\":\"" + replica + "\"}}");
                } finally {
                    out.add(new Interval(replica, start, System.nanoTime()));
                }
            }
            return UpdateControl.noUpdate();
        }
    }

    final class Replica {
        final String identity;
        final WorkFence fence = WorkFence.closed();
        final KubernetesClient client;
        final Probe probe;
        final OperatorLeadership leadership;

        Replica(String identity) {
            this.identity = identity;
            client = FencedWrites.client(
                    // the probe's ConfigMaps are not the operator's: its RBAC is not under test here
                    new ConfigBuilder(cluster.clientConfig())
                            .withUserAgent(EmulatedCluster.WORKLOAD_USER_AGENT)
                            .withRequestRetryBackoffLimit(0)
                            .build(),
                    null,
                    fence,
                    identity,
                    EmulatedCluster.HTTP_CLIENTS);
            probe = new Probe(identity, fence, client, reconciles);
            Operator operator = new Operator(o -> o.withKubernetesClient(client));
            operator.register(probe, o -> o.settingNamespaces(NS));
            leadership = new OperatorLeadership(
                    operator,
                    cluster.operatorClient(),
                    OperatorLeadershipLossTest.config(identity, LD, RD, Duration.ofMillis(500)),
                    new SimpleMeterRegistry(),
                    fence,
                    identity);
            leadership.exit = code -> {
                exits.add(identity + ":" + code);
                // System.exit runs the shutdown, as in the pod: it stops what still runs and releases what is held
                new Thread(() -> leadership.onStop(null)).start();
            };
            leadership.halt = code -> halts.add(identity + ":" + code);
            leadership.termOpened = t -> termStarts.add(new Interval(identity, t, t));
            replicas.add(this);
        }

        Replica contend() {
            leadership.onStart(null);
            return this;
        }
    }

    static void parkFor(Duration d) {
        long end = System.nanoTime() + d.toNanos();
        long left;
        while ((left = end - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left); // an interrupt does not end it early
        }
    }

    void createWork(String name) {
        cluster.client()
                .configMaps()
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .endMetadata()
                        .build())
                .create();
    }

    /**
     * A reconcile of one replica that was still running when another replica's term began (its fence opened, before
     * it starts any work), or that overlaps another replica's reconcile.
     */
    List<String> overlaps() {
        List<Interval> work = List.copyOf(reconciles);
        List<String> bad = new ArrayList<>();
        for (Interval a : work) {
            for (Interval b : work) {
                if (!a.replica().equals(b.replica()) && a.overlaps(b) && a.start() <= b.start()) {
                    bad.add(a + " overlaps " + b);
                }
            }
            for (Interval t : termStarts) {
                if (!a.replica().equals(t.replica()) && a.start() <= t.start() && t.start() < a.end()) {
                    bad.add(a + " still ran when " + t.replica() + "'s term began, for "
                            + TimeUnit.NANOSECONDS.toMillis(a.end() - t.start()) + " ms");
                }
            }
        }
        return bad;
    }

    /** Leads with a reconcile of ConfigMap "x" in progress, with b standing by. */
    Replica leaderMidReconcile(Replica a, Replica b) throws InterruptedException {
        a.contend();
        await().atMost(Duration.ofSeconds(20)).until(() -> a.leadership.reconcilersStarted());
        b.contend();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> b.leadership.elector().orElseThrow().leader().isPresent());
        createWork("x");
        assertThat(a.probe.inside.await(20, TimeUnit.SECONDS))
                .as("a reconciles x (a leads: %s, exits %s)", a.leadership.isLeader(), exits)
                .isTrue();
        return a;
    }

    @Test
    void shutdownReleasesOnlyAfterTheReconcileInFlightHasEnded() throws Exception {
        Replica a = new Replica("a");
        Replica b = new Replica("b");
        leaderMidReconcile(a, b);
        a.leadership.onStop(null); // SIGTERM: stops the work, then releases
        assertThat(b.probe.inside.await(20, TimeUnit.SECONDS))
                .as("b took over and reconciled")
                .isTrue();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> reconciles.stream().anyMatch(i -> i.replica().equals("b")));
        assertThat(halts).isEmpty();
        assertThat(overlaps()).isEmpty();
        assertThat(reconciles).anyMatch(i -> i.replica().equals("a"));
    }

    @Test
    void aYieldReleasesOnlyAfterTheReconcileInFlightHasEnded() throws Exception {
        Replica a = new Replica("a");
        Replica b = new Replica("b");
        leaderMidReconcile(a, b);
        KubeLeaseStore store = new KubeLeaseStore(cluster.client());
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
            LeaseRecord current = store.get(LEASE); // the leader renews meanwhile: retry on a conflict
            store.update(LEASE, current.withPreferredHolder("b")); // a coordinated-election controller asks for b
            return true;
        });
        await().atMost(Duration.ofSeconds(20))
                .until(() -> reconciles.stream().anyMatch(i -> i.replica().equals("b")));
        assertThat(exits).contains("a:" + OperatorLeadership.LOST_LEADERSHIP_EXIT_CODE);
        assertThat(halts).isEmpty();
        assertThat(overlaps()).isEmpty();
    }

    /**
     * The Lease deleted by hand while the leader works, and a contender that never saw the leader (started after the
     * delete): the leader's finalizer turns the delete into "deletion requested", the leader stops its work and then
     * lets the Lease go, and only then can anyone start on a new one.
     */
    @Test
    void aLeaseDeletedWhileHeldStartsNoOtherReplicaBeforeTheLeadersWorkHasStopped() throws Exception {
        Replica a = new Replica("a");
        Replica b = new Replica("b");
        leaderMidReconcile(a, b);
        cluster.client()
                .resources(io.fabric8.kubernetes.api.model.coordination.v1.Lease.class)
                .inNamespace(LEASE.namespace())
                .withName(LEASE.name())
                .delete();
        var deleting = cluster.client()
                .resources(io.fabric8.kubernetes.api.model.coordination.v1.Lease.class)
                .inNamespace(LEASE.namespace())
                .withName(LEASE.name())
                .get();
        assertThat(deleting)
                .as("the finalizer keeps the Lease while a holds it")
                .isNotNull();
        assertThat(deleting.getMetadata().getDeletionTimestamp()).isNotNull();
        Replica c = new Replica("c").contend(); // a fresh contender: it never saw a holding the lease
        await().atMost(Duration.ofSeconds(30))
                .until(() -> reconciles.stream().anyMatch(i -> !i.replica().equals("a")));
        assertThat(exits).contains("a:" + OperatorLeadership.LOST_LEADERSHIP_EXIT_CODE);
        assertThat(halts).isEmpty();
        assertThat(overlaps()).isEmpty();
        assertThat(c.leadership.isLeader() || b.leadership.isLeader()).isTrue();
    }

    /**
     * The stop callback itself, timed: with a unit of work that ignores interrupts still holding its permit, the
     * callback (after which the elector may release) returns only once the permit is back.
     */
    @Test
    void theStopCallbackReturnsOnlyOnceEveryPermitIsBack() throws Exception {
        Replica a = new Replica("a");
        a.contend();
        await().atMost(Duration.ofSeconds(20)).until(() -> a.leadership.reconcilersStarted());
        WorkFence.Permit permit = a.fence.enter(); // a reconcile deaf to interrupts
        long[] returned = new long[1];
        Thread stop = new Thread(() -> {
            a.leadership.leadershipLost();
            returned[0] = System.nanoTime();
        });
        stop.start();
        Thread.sleep(1500); // the unit of work keeps going for 1.5 s after the term ended
        assertThat(stop.isAlive())
                .as("the stop callback returned while work was still running")
                .isTrue();
        long released = System.nanoTime();
        permit.close();
        stop.join(10_000);
        assertThat(returned[0]).isGreaterThanOrEqualTo(released);
        assertThat(exits).containsExactly("a:" + OperatorLeadership.LOST_LEADERSHIP_EXIT_CODE);
        assertThat(halts).isEmpty();
    }

    @Test
    void workThatDoesNotStopWithinTheBudgetHaltsTheProcessWithoutARelease() throws Exception {
        Replica a = new Replica("a");
        a.probe.work = Duration.ofSeconds(8); // longer than the 4 s stop budget
        Replica b = new Replica("b");
        leaderMidReconcile(a, b);
        a.leadership.onStop(null);
        assertThat(halts).containsExactly("a:" + OperatorLeadership.LOST_LEADERSHIP_EXIT_CODE);
        // the test cannot halt its own JVM: the elector then went on to release, which a real halt never reaches
    }

    @Test
    void aStopPreemptsASlowStart() throws Exception {
        Replica a = new Replica("a");
        CountDownLatch starting = new CountDownLatch(1);
        List<String> interrupted = new CopyOnWriteArrayList<>();
        a.leadership.extraWork.add(OperatorLeadership.work(
                "a slow cache sync",
                true,
                () -> {
                    starting.countDown();
                    try {
                        Thread.sleep(60_000);
                    } catch (InterruptedException e) {
                        interrupted.add("interrupted");
                        throw new IllegalStateException("start interrupted", e);
                    }
                },
                () -> {}));
        a.contend();
        assertThat(starting.await(20, TimeUnit.SECONDS)).isTrue();
        // someone else takes the lease (an admin edit): the leader is fenced while its start still runs
        KubeLeaseStore store = new KubeLeaseStore(cluster.client());
        store.update(LEASE, LeaseRules.heldRecord(store.get(LEASE), "intruder", Instant.now(), Duration.ofSeconds(60)));
        long lost = System.nanoTime();
        await().atMost(Duration.ofSeconds(15)).until(() -> !exits.isEmpty());
        assertThat(Duration.ofNanos(System.nanoTime() - lost))
                .as("the stop did not wait for the start")
                .isLessThan(Duration.ofSeconds(15));
        assertThat(exits).containsExactly("a:" + OperatorLeadership.LOST_LEADERSHIP_EXIT_CODE);
        assertThat(interrupted).containsExactly("interrupted");
        assertThat(halts).isEmpty();
        assertThat(a.leadership.reconcilersStarted()).isFalse();
        assertThat(a.fence.isOpen()).isFalse();
    }

    /** A leader whose start hangs holds the lease and does nothing: liveness says so once the start limit passes. */
    @Test
    void livenessFailsForALeaderWhoseStartHangsPastTheLimit() throws Exception {
        Replica a = new Replica("a");
        CountDownLatch starting = new CountDownLatch(1);
        a.leadership.extraWork.add(OperatorLeadership.work(
                "an informer that never syncs",
                true,
                () -> {
                    starting.countDown();
                    try {
                        Thread.sleep(60_000);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException("start interrupted", e);
                    }
                },
                () -> {}));
        a.contend();
        assertThat(starting.await(20, TimeUnit.SECONDS)).isTrue();
        var patient = new LeadershipHealthChecks(a.leadership, Duration.ofMinutes(10)).liveness();
        var strict = new LeadershipHealthChecks(a.leadership, Duration.ofMillis(500)).liveness();
        assertThat(patient.call().getStatus()).isEqualTo(org.eclipse.microprofile.health.HealthCheckResponse.Status.UP);
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        strict.call().getStatus() == org.eclipse.microprofile.health.HealthCheckResponse.Status.DOWN);
        assertThat(strict.call().getData().orElseThrow().get("detail").toString())
                .contains("without the reconcilers started");
        assertThat(a.leadership.reconcilersStarted()).isFalse();
    }

    /** A start deaf to the interrupt could start work after the release: past the budget, halt instead. */
    @Test
    void aStartThatIgnoresTheStopHaltsTheProcessWithoutARelease() throws Exception {
        Replica a = new Replica("a");
        CountDownLatch starting = new CountDownLatch(1);
        a.leadership.extraWork.add(OperatorLeadership.work(
                "a start deaf to interrupts",
                true,
                () -> {
                    starting.countDown();
                    parkFor(Duration.ofSeconds(8)); // longer than the 4 s stop budget
                },
                () -> {}));
        a.contend();
        assertThat(starting.await(20, TimeUnit.SECONDS)).isTrue();
        KubeLeaseStore store = new KubeLeaseStore(cluster.client());
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
            store.update(
                    LEASE, LeaseRules.heldRecord(store.get(LEASE), "intruder", Instant.now(), Duration.ofSeconds(60)));
            return true;
        });
        await().atMost(Duration.ofSeconds(15)).until(() -> !exits.isEmpty());
        assertThat(halts).containsExactly("a:" + OperatorLeadership.LOST_LEADERSHIP_EXIT_CODE);
    }

    @Test
    void aStartThatFailsIsUndoneAndTheProcessExitsSoAnotherReplicaCanLead() throws Exception {
        Replica a = new Replica("a");
        List<String> stopped = new CopyOnWriteArrayList<>();
        a.leadership.extraWork.add(OperatorLeadership.work(
                "a controller whose CRD is missing",
                true,
                () -> {
                    throw new IllegalStateException("the server could not find the requested resource");
                },
                () -> stopped.add("stopped")));
        a.contend();
        await().atMost(Duration.ofSeconds(20)).until(() -> !exits.isEmpty());
        assertThat(exits).containsExactly("a:" + OperatorLeadership.START_FAILED_EXIT_CODE);
        assertThat(a.fence.isOpen())
                .as("no work admitted after the failed start")
                .isFalse();
        assertThat(a.leadership.reconcilersStarted()).isFalse();
        // the reconcilers that did start were stopped again: the JOSDK operator is no longer running
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !a.leadership.operatorForTests().getRuntimeInfo().isStarted());
        // the exit runs the shutdown, which releases: another replica leads
        Replica b = new Replica("b").contend();
        a.leadership.onStop(null);
        await().atMost(Duration.ofSeconds(20)).until(() -> b.leadership.reconcilersStarted());
        assertThat(halts).isEmpty();
    }
}
