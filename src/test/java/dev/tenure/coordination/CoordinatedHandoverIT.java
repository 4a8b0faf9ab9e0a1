package dev.tenure.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.Candidate;
import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseCandidateStore;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.NodeCache;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.operator.CoordinatedLeadershipHandover;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The maintenance-aware handover end to end without Quarkus: election-core {@link Candidate}s (coordinated electors
 * on the fabric8 adapters) on two emulated nodes, the {@link CoordinationController} built as
 * {@code CoordinationBeans} builds it, and the NodeMaintenance handover step ({@link CoordinatedLeadershipHandover}).
 *
 * <p>The candidates retry every 5 minutes, far beyond the test's waits: every move below happens on a watch event
 * (the holder releasing on preferredHolder, the controller writing the successor, the successor leading on the
 * assignment), never on a retry. How fast it is is the benchmark's business (row 2); here the order is asserted.
 */
@EndToEnd
class CoordinatedHandoverIT {

    private static final String NS = "handover-core";
    private static final String LEASE = "app-lease";
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final Clock clock = Clock.systemUTC();
    private final List<AutoCloseable> cleanup = new ArrayList<>();
    private final List<String> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
    }

    @Test
    void theHolderReleasesOnTheRequestAndTheSuccessorLeadsOnTheAssignment() {
        EmulatedCluster cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests());
        cleanup.add(cluster);
        KubernetesClient client = cluster.client();
        cluster.seed().namespace(NS);
        cluster.seed().node("w1").role("worker").create();
        cluster.seed().node("w2").role("worker").create();
        LeaseCandidateApi api = LeaseCandidateApi.discover(client, "auto");
        CoordinationController controller = new CoordinationController(
                client,
                new KubeLeaseStore(client),
                new ElectionPlanner(ElectionTiming.UPSTREAM, false),
                clock,
                api,
                new CoordinationMetrics(new SimpleMeterRegistry(), clock),
                Duration.ofMinutes(30),
                new NodeCache(client));
        cleanup.add(controller::stop);

        // app-0 has the older emulation version: elected first. Both register before the controller starts:
        // it elects among the candidates it knows, so a head start for app-1 would make it the first leader
        // (then hand over to app-0), which is right, but not the order this test is about.
        Candidate app0 = candidate(client, api, "app-0", "1.30.0", "w1");
        Candidate app1 = candidate(client, api, "app-1", "1.31.0", "w2");
        app0.start();
        app1.start();
        await("both LeaseCandidates registered")
                .atMost(WAIT)
                .until(() -> client.genericKubernetesResources(api.context())
                                .inNamespace(NS)
                                .list()
                                .getItems()
                                .size()
                        == 2);
        controller.start();
        await("app-0 leads on the controller's first assignment").atMost(WAIT).until(app0::isLeader);
        assertThat(holder(client)).isEqualTo("app-0");

        // the NodeMaintenance step: cordon and taint, then hand over in the same reconcile
        client.nodes()
                .withName("w1")
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"spec\":{\"unschedulable\":true,\"taints\":[{\"key\":\"tenure.dev/drain\",\"effect\":\"NoSchedule\"}]}}");
        Instant now = clock.instant();
        LeadershipHandover.Outcome requested = new CoordinatedLeadershipHandover(controller).handOver("w1", now, now);
        assertThat(requested.done()).as(requested.message()).isFalse();
        assertThat(requested.message()).contains("app-0 -> app-1");

        await("app-0 yields and app-1 leads on the controller's assignment")
                .atMost(WAIT)
                .until(app1::isLeader);
        assertThat(app0.isLeader()).isFalse();
        assertThat(events).containsExactly("app-0 started", "app-0 stopped", "app-1 started");
        assertThat(holder(client)).isEqualTo("app-1");
        await("the controller sees the handover off w1 done").atMost(WAIT).until(() -> controller.handedOver("w1"));
        assertThat(new CoordinatedLeadershipHandover(controller)
                        .handOver("w1", now, clock.instant())
                        .done())
                .isTrue();
    }

    /**
     * A replica that has just begun to lead starts its reconcilers before coordinated election: a maintenance reconciled
     * in between must not take a handover the previous leader asked for as done (UpgradeIT caught the drain evicting
     * the holder's pod while it still held the Lease). Only where the LeaseCandidate API is not served (or coordination
     * is disabled) is there nothing to hand over.
     */
    @Test
    void aHandoverIsNotDoneWhileCoordinationHasNotStartedOnlyWhereItIsOff() {
        EmulatedCluster cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests());
        cleanup.add(cluster);
        KubernetesClient client = cluster.client();
        cluster.seed().node("w1").role("worker").create();
        Instant now = clock.instant();

        LeadershipHandover.Outcome starting = new CoordinatedLeadershipHandover(
                        controller(client, LeaseCandidateApi.discover(client, "auto")))
                .handOver("w1", now, now);
        assertThat(starting.done()).as(starting.message()).isFalse();
        assertThat(starting.message()).contains("stopped (not leading)", "w1");

        LeadershipHandover.Outcome off = new CoordinatedLeadershipHandover(
                        controller(client, new LeaseCandidateApi(null, "disabled (tenure.coordination.enabled=false)")))
                .handOver("w1", now, now);
        assertThat(off.done()).as(off.message()).isTrue();
    }

    private CoordinationController controller(KubernetesClient client, LeaseCandidateApi api) {
        return new CoordinationController(
                client,
                new KubeLeaseStore(client),
                new ElectionPlanner(ElectionTiming.UPSTREAM, false),
                clock,
                api,
                new CoordinationMetrics(new SimpleMeterRegistry(), clock),
                Duration.ofMinutes(30),
                new NodeCache(client));
    }

    private Candidate candidate(
            KubernetesClient client, LeaseCandidateApi api, String name, String emulationVersion, String node) {
        ExecutorScheduler scheduler = new ExecutorScheduler("it-" + name);
        Candidate c = Candidate.builder()
                .namespace(NS)
                .identity(name)
                .leaseName(LEASE)
                .binaryVersion("1.31.0")
                .emulationVersion(emulationVersion)
                .strategy(MaintenanceAware.NAME)
                .nodeName(node)
                .candidateStore(new KubeLeaseCandidateStore(client, api.version()))
                .leaseStore(new KubeLeaseStore(client))
                .scheduler(scheduler)
                .clock(clock)
                .monotonic(dev.tenure.election.MonotonicClock.system())
                .random(new Random(7))
                // no retry falls due during the test: what happens, happens on watch events
                .leaseDuration(Duration.ofMinutes(15))
                .renewDeadline(Duration.ofMinutes(10))
                .retryPeriod(Duration.ofMinutes(5))
                .onStartedLeading(() -> events.add(name + " started"))
                .onStoppedLeading(() -> events.add(name + " stopped"))
                .build();
        cleanup.add(scheduler);
        cleanup.add(c::stop);
        return c;
    }

    private static String holder(KubernetesClient client) {
        Lease l = client.resources(Lease.class).inNamespace(NS).withName(LEASE).get();
        return l == null ? null : l.getSpec().getHolderIdentity();
    }
}
