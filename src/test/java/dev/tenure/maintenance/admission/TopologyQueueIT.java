package dev.tenure.maintenance.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.MaintenanceOperatorRig;
import dev.tenure.maintenance.admission.MaintenanceLimits.NodeCount;
import dev.tenure.maintenance.admission.MaintenanceLimits.TopologyLimit;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.door.MaintenanceLifecycleIT;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.SecondLane;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 37's queue limits through the NodeMaintenance door on the emulated cluster ({@link MaintenanceOperatorRig}):
 * at most one node per zone at once while another zone proceeds, watched the whole time at the API server; and the
 * cap as a percentage of the nodes with nodes down for another reason counted against it.
 */
@EndToEnd
@SecondLane
class TopologyQueueIT {

    static final String ZONE = "topology.kubernetes.io/zone";

    /** The backstop look of a held request in the zone test: far longer than any wait in it. */
    static final Duration QUEUE_LOOK = Duration.ofMinutes(10);

    static final Duration WAKE_UP = Duration.ofSeconds(8);

    MaintenanceOperatorRig rig;
    KubernetesClient client;

    @AfterEach
    void stop() {
        if (rig != null) {
            rig.close();
        }
    }

    void start(MaintenanceLimits limits, Duration queueLook) {
        rig = MaintenanceOperatorRig.start(
                EmulatedCluster.Options.forTests(),
                MaintenanceLifecycleIT.SETTINGS,
                Clock.systemUTC(),
                limits,
                queueLook);
        client = rig.client;
    }

    void create(String node) {
        client.resource(new NodeMaintenance("m-" + node, new NodeMaintenanceSpec(node, "test " + node)))
                .create();
    }

    Phase phase(String node) {
        return rig.phase("m-" + node);
    }

    String lastError(String node) {
        return rig.status("m-" + node) == null ? null : rig.status("m-" + node).getLastError();
    }

    void awaitStarted(String node) {
        await().atMost(WAKE_UP).until(() -> phase(node) == Phase.Succeeded);
    }

    void awaitHeld(String node, String error) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> phase(node) == Phase.Pending && error.equals(lastError(node)));
    }

    void end(String node) {
        client.resources(NodeMaintenance.class).withName("m-" + node).delete();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> client.resources(NodeMaintenance.class)
                                .withName("m-" + node)
                                .get()
                        == null);
    }

    void assertStaysPending(Duration during, String... nodes) {
        try {
            await().during(during)
                    .atMost(during.plusSeconds(2))
                    .until(() -> java.util.Arrays.stream(nodes).allMatch(n -> phase(n) == Phase.Pending));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("a request its zone holds started", e);
        }
    }

    List<String> eventMessages(String node, String reason) {
        return client.v1().events().inAnyNamespace().list().getItems().stream()
                .filter(e -> ("m-" + node).equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
                .map(io.fabric8.kubernetes.api.model.Event::getMessage)
                .toList();
    }

    /** Cordoned nodes per zone now, as the API server shows them. */
    Map<String, List<String>> cordonedPerZone() {
        Map<String, List<String>> out = new TreeMap<>();
        for (Node n : client.nodes().list().getItems()) {
            if (Boolean.TRUE.equals(n.getSpec().getUnschedulable())) {
                String zone = n.getMetadata().getLabels().getOrDefault(ZONE, "(none)");
                out.computeIfAbsent(zone, z -> new java.util.ArrayList<>())
                        .add(n.getMetadata().getName());
            }
        }
        return out;
    }

    static String zoneHold(String zone, String taken) {
        return "not in the queue: a limit of its own holds it, and the requests behind it go ahead: "
                + "tenure.maintenance.max-nodes-in-maintenance-per-topology: at most 1 node(s) per " + ZONE
                + " may be in maintenance at once; 1 of 1 in " + ZONE + "=" + zone + " already are: " + taken;
    }

    @Test
    void atMostOneNodePerZoneWhileAnotherZoneProceeds() {
        start(
                new MaintenanceLimits(
                        Optional.empty(),
                        OptionalInt.empty(),
                        Optional.of(new TopologyLimit(ZONE, NodeCount.nodes(1)))),
                QUEUE_LOOK);
        for (String a : List.of("a1", "a2", "a3")) {
            rig.cluster.seed().node(a).role("worker").label(ZONE, "eu-1a").create();
        }
        for (String b : List.of("b1", "b2")) {
            rig.cluster.seed().node(b).role("worker").label(ZONE, "eu-1b").create();
        }
        AtomicInteger mostInOneZone = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        ConcurrentLinkedQueue<String> over = new ConcurrentLinkedQueue<>();
        ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor();
        watch.scheduleWithFixedDelay(
                () -> {
                    Map<String, List<String>> now = cordonedPerZone();
                    mostAtOnce.accumulateAndGet(
                            now.values().stream().mapToInt(List::size).sum(), Math::max);
                    now.values().forEach(nodes -> {
                        mostInOneZone.accumulateAndGet(nodes.size(), Math::max);
                        if (nodes.size() > 1) {
                            over.add(now.toString());
                        }
                    });
                },
                0,
                50,
                TimeUnit.MILLISECONDS);
        try {
            create("a1");
            await().atMost(Duration.ofSeconds(20)).until(() -> phase("a1") == Phase.Succeeded);
            create("a2");
            String a2Held = zoneHold("eu-1a", "a1 (in maintenance)");
            awaitHeld("a2", a2Held);
            assertThat(rig.status("m-a2").getQueuePosition())
                    .as("held by its zone: no place in the cluster-wide queue")
                    .isNull();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> eventMessages("a2", MaintenanceEvents.NOT_ADMISSIBLE)
                            .contains(a2Held));

            // a later request of another zone is not held by a2, first in line but held by its zone
            create("b1");
            await().atMost(Duration.ofSeconds(20)).until(() -> phase("b1") == Phase.Succeeded);
            create("a3");
            awaitHeld("a3", zoneHold("eu-1a", "a1 (in maintenance)"));
            create("b2");
            awaitHeld("b2", zoneHold("eu-1b", "b1 (in maintenance)"));
            assertStaysPending(Duration.ofSeconds(2), "a2", "a3", "b2");

            // a1 ends: the zone's slot goes to a2, first of it in the queue, never to a3
            end("a1");
            awaitStarted("a2");
            awaitHeld("a3", zoneHold("eu-1a", "a2 (in maintenance)"));
            assertStaysPending(Duration.ofSeconds(2), "a3", "b2");

            end("b1");
            awaitStarted("b2");
            end("a2");
            awaitStarted("a3");
            assertThat(cordonedPerZone()).isEqualTo(Map.of("eu-1a", List.of("a3"), "eu-1b", List.of("b2")));
        } finally {
            watch.shutdownNow();
        }
        assertThat(over).as("moments with two nodes of one zone cordoned").isEmpty();
        assertThat(mostInOneZone.get()).as("the watch saw a zone's slot taken").isEqualTo(1);
        assertThat(mostAtOnce.get())
                .as("both zones were in maintenance at once: one zone's hold did not stop the other")
                .isEqualTo(2);
    }

    @Test
    void aPercentageCapCountsNodesCordonedOrNotReadyBySomeoneElse() {
        // 50% of 6 nodes = 3; w5 cordoned by an admin and w6 NotReady take two of them
        start(
                new MaintenanceLimits(
                        Optional.of(NodeCount.parse(MaintenanceLimits.MAX_NODES_SETTING, "50%")),
                        OptionalInt.empty(),
                        Optional.empty()),
                Duration.ofSeconds(2));
        for (String w : List.of("w1", "w2", "w3", "w4")) {
            rig.cluster.seed().node(w).role("worker").create();
        }
        rig.cluster.seed().node("w5").role("worker").unschedulable().create();
        rig.cluster.seed().node("w6").role("worker").notReady().create();

        create("w1");
        await().atMost(Duration.ofSeconds(20)).until(() -> phase("w1") == Phase.Succeeded);
        create("w2");
        awaitHeld(
                "w2",
                "1st in queue for max-nodes-in-maintenance=50%: tenure.maintenance.max-nodes-in-maintenance: at most 3"
                        + " node(s) (50% of 6, rounded down) may be in maintenance at once; 1 already are: w1; 2 more"
                        + " unavailable for another reason count against it: w5 (cordoned), w6 (NotReady)");
        assertStaysPending(Duration.ofSeconds(3), "w2");
        assertThat(client.nodes().withName("w2").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);

        // the admin uncordons w5: a slot is free, and the held request takes it at its next look
        client.nodes().withName("w5").edit(n -> {
            n.getSpec().setUnschedulable(null);
            return n;
        });
        await().atMost(Duration.ofSeconds(20)).until(() -> phase("w2") == Phase.Succeeded);
    }
}
