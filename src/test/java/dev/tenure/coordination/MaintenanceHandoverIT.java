package dev.tenure.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.CandidateRecord;
import dev.tenure.maintenance.api.HandoverSpec;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1beta1.LeaseCandidateBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The maintenance-aware handover end to end, in the operator as it runs (NodeMaintenance reconciler, the
 * coordination controller, the LeadershipHandover bean that joins them) on the emulated cluster: leadership of a
 * coordinated Lease leaves the node before any pod on it is evicted. Gap figures are the benchmark's; here the
 * assertion is the order of events.
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class MaintenanceHandoverIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private final List<AutoCloseable> cleanup = new ArrayList<>();

    @Inject
    MeterRegistry registry;

    private static EmulatedCluster cluster() {
        return EmulatedClusterResource.cluster();
    }

    private static KubernetesClient client() {
        return cluster().client();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
        cleanup.clear();
    }

    @Test
    void leadershipMovesOffTheNodeBeforeItsPodsAreEvicted() {
        String ns = "handover";
        cluster().seed().node("ho-1").role("worker").create();
        cluster().seed().node("ho-2").role("worker").create();
        // app-0 runs on ho-1, app-1 on ho-2: the processes behind the two candidates
        cluster()
                .seed()
                .statefulSet("app")
                .namespace(ns)
                .replicas(2)
                .onNodes("ho-1", "ho-2")
                .create();

        // app-0 has the older emulation version, so it is elected first
        leaseCandidate(ns, "app-0", "1.30.0", "ho-1");
        leaseCandidate(ns, "app-1", "1.31.0", "ho-2");
        SimulatedCandidates processes = new SimulatedCandidates(client(), ns, "app-lease", Clock.systemUTC());
        cleanup.add(processes);
        processes.live("app-0", "app-1");
        awaitHolder(ns, "app-lease", "app-0");
        // the witness: the Lease as stored when the eviction request of app-0 arrives, before it is served
        List<String> holdersAtEviction = new CopyOnWriteArrayList<>();
        Consumer<ApiRequest> witness = r -> {
            if (r.is("create", "pods", "eviction") && ns.equals(r.namespace()) && "app-0".equals(r.name())) {
                holdersAtEviction.add(cluster()
                        .stored(Lease.class, ns, "app-lease")
                        .map(l -> l.getSpec().getHolderIdentity())
                        .orElse("<no lease>"));
            }
        };
        cluster().requests().observe(witness);
        cleanup.add(() -> cluster().requests().stopObserving(witness));

        // the holder is slow to let go: until it does, the node is cordoned but nothing on it is evicted
        processes.followPreferredHolder(false);
        create("handover", "ho-1", s -> {});
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(condition("handover").getMessage())
                        .isEqualTo(
                                "waiting for 1 lease(s) to move off node ho-1: handover/app-lease (app-0 -> app-1)"));
        assertThat(lease(ns, "app-lease").getSpec().getPreferredHolder()).isEqualTo("app-1");
        // several handover checks (every 500 ms) with the holder still on the node: nothing on it is evicted
        await().during(Duration.ofMillis(1500)).atMost(WAIT).until(() -> evictionsOf(ns, "app-0") == 0);
        assertThat(status("handover").getPhase()).isEqualTo(Phase.Running);

        processes.followPreferredHolder(true);
        awaitPhase("handover", Phase.Succeeded);

        assertThat(cluster()
                        .requests()
                        .count(r -> r.is("list", "pods")
                                && "spec.nodeName=ho-1".equals(r.query().get("fieldSelector"))))
                .as("pods listed by node")
                .isPositive();
        assertThat(evictionsOf(ns, "app-0")).as("app-0 evicted once").isEqualTo(1);
        assertThat(holdersAtEviction)
                .as("holder of app-lease when app-0 was evicted")
                .containsExactly("app-1");
        assertThat(condition("handover")).satisfies(c -> {
            assertThat(c.getStatus()).isEqualTo("True");
            assertThat(c.getReason()).isEqualTo("HandedOver");
            assertThat(c.getMessage()).isEqualTo("no coordinated lease is held on node ho-1 any more");
        });
        deleteAndAwait("handover");
    }

    @Test
    void aHolderThatIgnoresPreferredHolderDelaysTheDrainOnlyUntilTheTimeout() {
        String ns = "stubborn";
        cluster().seed().node("st-1").role("worker").create();
        cluster().seed().node("st-2").role("worker").create();
        cluster()
                .seed()
                .statefulSet("app")
                .namespace(ns)
                .replicas(2)
                .onNodes("st-1", "st-2")
                .create();
        leaseCandidate(ns, "app-0", "1.30.0", "st-1");
        leaseCandidate(ns, "app-1", "1.31.0", "st-2");
        SimulatedCandidates processes = new SimulatedCandidates(client(), ns, "app-lease", Clock.systemUTC());
        cleanup.add(processes);
        processes.followPreferredHolder(false);
        processes.live("app-0", "app-1");
        awaitHolder(ns, "app-lease", "app-0");

        create("stubborn", "st-1", s -> s.setHandover(timeout("3s")));
        await().atMost(WAIT).untilAsserted(() -> {
            Condition c = condition("stubborn");
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getMessage())
                    .contains("waiting for 1 lease(s) to move off node st-1: stubborn/app-lease (app-0 -> app-1)");
        });
        assertThat(evictionsOf(ns, "app-0"))
                .as("no eviction while the handover is pending")
                .isZero();
        assertThat(lease(ns, "app-lease").getSpec().getPreferredHolder()).isEqualTo("app-1");

        awaitPhase("stubborn", Phase.Succeeded);
        assertThat(evictionsOf(ns, "app-0")).isEqualTo(1);
        assertThat(condition("stubborn")).satisfies(c -> {
            assertThat(c.getReason()).isEqualTo("TimedOut");
            assertThat(c.getMessage()).startsWith("handover did not finish within 3s");
        });
        await().atMost(WAIT)
                .until(() -> client().v1().events().inNamespace("default").list().getItems().stream()
                        .anyMatch(e -> "stubborn".equals(e.getInvolvedObject().getName())
                                && "HandoverTimedOut".equals(e.getReason())
                                && "Warning".equals(e.getType())));
        assertThat(registry.find("tenure.maintenance.handover.duration")
                        .tag("outcome", "timed_out")
                        .timer())
                .isNotNull()
                .satisfies(t -> assertThat(t.count()).isPositive());
        deleteAndAwait("stubborn");
    }

    @Test
    void aLeaseNobodyElseCanTakeDoesNotHoldUpTheDrain() {
        String ns = "alone";
        cluster().seed().node("al-1").role("worker").create();
        cluster()
                .seed()
                .statefulSet("app")
                .namespace(ns)
                .replicas(1)
                .onNodes("al-1")
                .create();
        leaseCandidate(ns, "app-0", "1.30.0", "al-1");
        SimulatedCandidates processes = new SimulatedCandidates(client(), ns, "app-lease", Clock.systemUTC());
        cleanup.add(processes);
        processes.live("app-0");
        awaitHolder(ns, "app-lease", "app-0");

        // a timeout far beyond the test's wait: only "nobody else can lead" lets the drain start
        create("alone", "al-1", s -> s.setHandover(timeout("10m")));
        awaitPhase("alone", Phase.Succeeded);
        assertThat(condition("alone").getMessage())
                .isEqualTo("no candidate off node al-1 can lead alone/app-lease (app-0)");
        assertThat(evictionsOf(ns, "app-0")).isEqualTo(1);
        deleteAndAwait("alone");
    }

    // ------------------------------------------------------------------ fixtures

    private static void leaseCandidate(String ns, String name, String emulationVersion, String node) {
        client().resources(io.fabric8.kubernetes.api.model.coordination.v1beta1.LeaseCandidate.class)
                .inNamespace(ns)
                .resource(new LeaseCandidateBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(ns)
                        .withLabels(Map.of(CandidateRecord.NODE_LABEL, node))
                        .endMetadata()
                        .withNewSpec()
                        .withLeaseName("app-lease")
                        .withEmulationVersion(emulationVersion)
                        .withBinaryVersion("1.31.0")
                        .withStrategy(MaintenanceAware.NAME)
                        .withRenewTime(new MicroTime(
                                KubeObjects.microTime(Clock.systemUTC().instant())))
                        .endSpec()
                        .build())
                .create();
    }

    private static HandoverSpec timeout(String timeout) {
        HandoverSpec h = new HandoverSpec();
        h.setTimeout(timeout);
        return h;
    }

    private static long evictionsOf(String ns, String pod) {
        return cluster()
                .requests()
                .count(r -> r.is("create", "pods", "eviction") && ns.equals(r.namespace()) && pod.equals(r.name()));
    }

    private static Lease lease(String ns, String name) {
        return client().resources(Lease.class).inNamespace(ns).withName(name).get();
    }

    private static void awaitHolder(String ns, String name, String holder) {
        await().atMost(WAIT).untilAsserted(() -> {
            Lease l = lease(ns, name);
            assertThat(l).isNotNull();
            assertThat(l.getSpec().getHolderIdentity()).isEqualTo(holder);
        });
    }

    private static void create(String name, String node, Consumer<NodeMaintenanceSpec> edit) {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec(node, "test " + name);
        edit.accept(spec);
        client().resource(new NodeMaintenance(name, spec)).create();
    }

    private static NodeMaintenanceStatus status(String name) {
        // null until the first status write
        NodeMaintenance nm =
                client().resources(NodeMaintenance.class).withName(name).get();
        return nm == null ? null : nm.getStatus();
    }

    private static void awaitPhase(String name, Phase phase) {
        await().atMost(WAIT).until(() -> {
            NodeMaintenanceStatus seen = status(name); // one read per look: judge one version of the object
            return seen != null && seen.getPhase() == phase;
        });
    }

    private static Condition condition(String name) {
        NodeMaintenanceStatus status = status(name);
        assertThat(status).as("status of " + name).isNotNull();
        return status.getConditions().stream()
                .filter(c -> "LeadersHandedOver".equals(c.getType()))
                .findFirst()
                // an AssertionError, which untilAsserted retries: a status written before the handover step has
                // no such condition yet (NoSuchElementException would end the wait at once)
                .orElseThrow(() -> new AssertionError("no LeadersHandedOver condition yet in the status of " + name));
    }

    private static void deleteAndAwait(String name) {
        client().resources(NodeMaintenance.class).withName(name).delete();
        await().atMost(WAIT)
                .until(() ->
                        client().resources(NodeMaintenance.class).withName(name).get() == null);
    }
}
