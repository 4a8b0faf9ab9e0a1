package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.ClaimResult;
import dev.tenure.election.LeaseClaims;
import dev.tenure.election.LeaseHeldElsewhere;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.ManualScheduler;
import dev.tenure.election.WorkFence;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.FencedWrites;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.SecondLane;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 52 item 7: an idle maintenance holds its node Lease long and writes it at most 4 times an hour; before any
 * write to the node it shortens the Lease, and that write has landed before the node write goes out. Time is virtual:
 * the heartbeats run on a {@link ManualScheduler} whose time is the machine's clock, and the test comes back every
 * {@code renewEvery} (20 s) as the door does while a maintenance holds its node.
 */
@EndToEnd
@SecondLane
class IdleNodeLeaseIT {
    static final LeaseKey LEASE = LeaseKey.of("tenure-system", "node-w1");
    static final Duration DOOR_LOOK = Duration.ofSeconds(20);

    final ManualScheduler time = new ManualScheduler(Instant.now());
    final Clock clock = new Clock() {
        @Override
        public Instant instant() {
            return time.now();
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    };
    EmulatedCluster cluster;
    final List<Instance> instances = new ArrayList<>();
    final MaintenanceEvents sink = (warning, reason, message) -> {};
    /** Each write to the node, with the node Lease as stored when the API server received it. */
    final List<String> journal = Collections.synchronizedList(new ArrayList<>());

    /** One operator instance's machine: its own holder, fence and fenced client; heartbeats on virtual time. */
    final class Instance implements AutoCloseable {
        final WorkFence fence = WorkFence.closed();
        final KubernetesClient client;
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        final MaintenanceMachine machine;

        Instance(String identity) {
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
                    Duration.ofMillis(100),
                    Duration.ofSeconds(1));
            machine = new MaintenanceMachine(
                    client,
                    new KubeLeaseStore(client),
                    (node, started, now) -> LeadershipHandover.Outcome.complete("nothing held"),
                    new MaintenanceMetrics(new SimpleMeterRegistry()),
                    settings,
                    pool,
                    time,
                    clock);
            fence.open(() -> Optional.of(Duration.ofHours(10)));
            instances.add(this);
        }

        /** One call, its state passed through status as the door keeps it. */
        MaintenanceState advance(MaintenanceState prior) {
            MaintenanceState next =
                    machine.advance(request(), prior, false, sink).state();
            return NodeMaintenanceStatuses.toState(NodeMaintenanceStatuses.toStatus(next, null, 1, clock.instant()));
        }

        /** Lease, cordon, handover and the drain of a node without pods: Succeeded. */
        MaintenanceState toSucceeded() {
            MaintenanceState s = MaintenanceState.initial();
            for (int i = 0; i < 20 && s.phase() != Phase.Succeeded; i++) {
                s = advance(s);
                time.advance(Duration.ofMillis(200));
            }
            assertThat(s.phase()).as("state " + s).isEqualTo(Phase.Succeeded);
            return s;
        }

        /** The process dies: no more renewals, no release, no write of this term. */
        void kill() {
            machine.close();
            fence.close();
        }

        @Override
        public void close() {
            machine.close();
            pool.shutdownNow();
            client.close();
        }
    }

    final Consumer<ApiRequest> witness = r -> {
        if (r.isWrite() && "nodes".equals(r.resource()) && "w1".equals(r.name())) {
            Lease lease =
                    cluster.stored(Lease.class, LEASE.namespace(), LEASE.name()).orElse(null);
            journal.add("node " + r.method() + " under "
                    + (lease == null
                            ? "no lease"
                            : lease.getSpec().getHolderIdentity() + " "
                                    + lease.getSpec().getLeaseDurationSeconds() + "s"));
        }
    };

    @BeforeEach
    void start() {
        cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests().clock(clock));
        cluster.seed().node("w1").role("worker").create();
        cluster.requests().observe(witness);
    }

    @AfterEach
    void stop() {
        cluster.requests().stopObserving(witness);
        instances.forEach(Instance::close);
        cluster.close();
    }

    static MaintenanceRequest request() {
        return new MaintenanceRequest(
                "w1", "firmware", Optional.empty(), DrainOptions.from(new DrainSpec()), HandoverOptions.defaults());
    }

    long leaseWrites() {
        return cluster.requests()
                .count(r -> r.isWrite()
                        && "leases".equals(r.resource())
                        && LEASE.name().equals(r.name())
                        && LEASE.namespace().equals(r.namespace()));
    }

    LeaseRecord lease() {
        return new KubeLeaseStore(cluster.client()).find(LEASE).orElseThrow();
    }

    /** {@code how} long idling, the door coming back every 20 s; the lease checked valid and ours at each look. */
    MaintenanceState idle(Instance a, MaintenanceState s, Duration how) {
        Instant end = time.now().plus(how);
        while (time.now().isBefore(end)) {
            time.advance(DOOR_LOOK);
            s = a.advance(s);
            LeaseRecord l = lease();
            assertThat(l.holderIdentity()).isEqualTo("tenure/tenure-a");
            assertThat(l.renewTime().plus(l.leaseDuration().orElseThrow()))
                    .as("the lease never lapses while idle")
                    .isAfter(time.now());
        }
        assertThat(s.phase()).isEqualTo(Phase.Succeeded);
        return s;
    }

    @Test
    void anIdleMaintenanceWritesItsNodeLeaseAtMostFourTimesAnHour() {
        Instance a = new Instance("tenure-a");
        MaintenanceState s = a.toSucceeded();
        long atSucceeded = leaseWrites();
        int nodeWritesAtSucceeded = journal.size();

        s = idle(a, s, Duration.ofHours(1));
        long firstHour = leaseWrites() - atSucceeded;
        idle(a, s, Duration.ofHours(1));
        long secondHour = leaseWrites() - atSucceeded - firstHour;

        assertThat(secondHour)
                .as("node Lease writes in an hour of idling (30 min lease, renewed every 15 min)")
                .isBetween(3L, 4L);
        assertThat(firstHour)
                .as("the same, plus the two writes of becoming idle (the claim, the heartbeat's first renewal)")
                .isLessThanOrEqualTo(4 + 2);
        assertThat(lease().leaseDuration()).contains(Duration.ofMinutes(30));
        assertThat(journal).as("nothing written to the node while idle").hasSize(nodeWritesAtSucceeded);
    }

    @Test
    void theUndoShortensTheIdleLeaseFirstAndItsNodeWritesGoOutUnderTheShortLease() {
        Instance a = new Instance("tenure-a");
        idle(a, a.toSucceeded(), Duration.ofMinutes(20));
        assertThat(lease().leaseDuration()).as("held long while idle").contains(Duration.ofMinutes(30));
        journal.clear();
        long before = leaseWrites();

        assertThat(a.machine.end("w1", sink)).isEmpty();

        assertThat(cluster.client().nodes().withName("w1").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);
        assertThat(journal)
                .as("each node write of the undo, sent after the shortening write landed")
                .isNotEmpty()
                .allMatch(j -> j.endsWith("under tenure/tenure-a 60s"));
        assertThat(leaseWrites() - before).as("shortened, then released").isEqualTo(2);
        assertThat(lease().hasHolder()).isFalse();
    }

    @Test
    void aMarkRemovedWhileIdleIsPutBackOnlyAfterTheLeaseIsShortened() {
        Instance a = new Instance("tenure-a");
        MaintenanceState s = idle(a, a.toSucceeded(), Duration.ofMinutes(20));
        assertThat(lease().leaseDuration()).contains(Duration.ofMinutes(30));
        // someone uncordons the node (kubectl uncordon)
        cluster.client()
                .nodes()
                .withName("w1")
                .edit(n -> new NodeBuilder(n)
                        .editSpec()
                        .withUnschedulable(false)
                        .endSpec()
                        .build());
        journal.clear();

        time.advance(DOOR_LOOK);
        s = a.advance(s);

        assertThat(cluster.client().nodes().withName("w1").get().getSpec().getUnschedulable())
                .as("cordoned again")
                .isTrue();
        assertThat(journal).isNotEmpty().allMatch(j -> j.endsWith("under tenure/tenure-a 60s"));
        // and nothing left to do: long again at the next look
        time.advance(DOOR_LOOK);
        a.advance(s);
        assertThat(lease().leaseDuration()).contains(Duration.ofMinutes(30));
    }

    @Test
    void aSuccessorUndoesAKilledInstancesIdleMaintenanceAtOnceAndAForeignClaimantWaitsAtMostTheIdleLease() {
        Instance a = new Instance("tenure-a");
        idle(a, a.toSucceeded(), Duration.ofMinutes(20));
        LeaseRecord held = lease();
        assertThat(held.leaseDuration()).contains(Duration.ofMinutes(30));
        a.kill();
        time.advance(Duration.ofSeconds(5));

        // another controller waits: at most until the last renewal + 30 min (docs: node-maintenance.md, Lease)
        LeaseClaims foreign = new LeaseClaims(new KubeLeaseStore(cluster.client()), clock);
        ClaimResult waiting = foreign.claim(LEASE, "node-maintenance", Duration.ofMinutes(5), Optional.empty());
        assertThat(waiting).isInstanceOf(LeaseHeldElsewhere.class);
        assertThat(((LeaseHeldElsewhere) waiting).expiresAt())
                .isEqualTo(held.renewTime().plus(Duration.ofMinutes(30)));

        // our successor does not wait for it: it takes the lease over at once, short, and undoes under it
        journal.clear();
        Instance b = new Instance("tenure-b");
        Instant undoStarted = time.now();
        assertThat(b.machine.end("w1", sink)).isEmpty();

        assertThat(time.now()).as("no wait for the predecessor's long lease").isEqualTo(undoStarted);
        assertThat(cluster.client().nodes().withName("w1").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);
        assertThat(journal).isNotEmpty().allMatch(j -> j.endsWith("under tenure/tenure-b 60s"));
        assertThat(lease().hasHolder()).isFalse();
        assertThat(lease().leaseTransitions()).isEqualTo(held.leaseTransitions() + 1);
        // released: the other controller takes the node at once
        assertThat(foreign.claim(LEASE, "node-maintenance", Duration.ofMinutes(5), Optional.empty()))
                .isNotInstanceOf(LeaseHeldElsewhere.class);
        assertThat(lease().holderIdentity()).isEqualTo("node-maintenance");
    }
}
