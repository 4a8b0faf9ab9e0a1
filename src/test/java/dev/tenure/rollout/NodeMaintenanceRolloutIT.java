package dev.tenure.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.kube.WholeStatus;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.rollout.api.DoneWhen;
import dev.tenure.rollout.api.HealthGate;
import dev.tenure.rollout.api.NodeMaintenanceRollout;
import dev.tenure.rollout.api.NodeRecord;
import dev.tenure.rollout.api.NodeState;
import dev.tenure.rollout.api.RolloutPhase;
import dev.tenure.rollout.api.RolloutSpec;
import dev.tenure.rollout.api.RolloutStatus;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.Conflicts;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.RequestOrigin;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;

/**
 * A NodeMaintenanceRollout end to end on the living emulated cluster, the operator's own reconcilers doing the work:
 * 12 nodes in 3 zones, {@code maxUnavailable: 2}, one per zone, done when rebooted. The test is the maintenance
 * agent: when a child NodeMaintenance has drained its node, it reboots the node (the emulator changes its boot ID at
 * once and makes it Ready a second later). Watches of the nodes and of the NodeMaintenances see every change, so
 * "never more than 2 at once, 1 per zone" is judged on each event, not on samples.
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class NodeMaintenanceRolloutIT {

    static final String POOL = "tenure.test/rollout-pool";
    static final String ZONE = "topology.kubernetes.io/zone";
    static final String NS = "rollout-shop";

    /** Pool nodes unschedulable or NotReady, as each node event shows them. */
    static final class Unavailability implements Watcher<Node> {
        final Map<String, String> zoneOf = new ConcurrentHashMap<>();
        final Set<String> unavailable = ConcurrentHashMap.newKeySet();
        final AtomicInteger most = new AtomicInteger();
        final Map<String, AtomicInteger> mostPerZone = new ConcurrentHashMap<>();

        @Override
        public synchronized void eventReceived(Action action, Node node) {
            String name = node.getMetadata().getName();
            if (!zoneOf.containsKey(name)) {
                return;
            }
            boolean down = Boolean.TRUE.equals(node.getSpec().getUnschedulable())
                    || node.getStatus().getConditions().stream()
                            .noneMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
            if (down && action != Action.DELETED) {
                unavailable.add(name);
            } else {
                unavailable.remove(name);
            }
            most.accumulateAndGet(unavailable.size(), Math::max);
            for (String zone : Set.copyOf(zoneOf.values())) {
                long inZone = unavailable.stream()
                        .filter(n -> zone.equals(zoneOf.get(n)))
                        .count();
                mostPerZone.computeIfAbsent(zone, z -> new AtomicInteger()).accumulateAndGet((int) inZone, Math::max);
            }
        }

        @Override
        public void onClose(WatcherException cause) {}
    }

    /** Children created per node, from the NodeMaintenance watch. */
    static final class Children implements Watcher<NodeMaintenance> {
        final Map<String, AtomicInteger> created = new ConcurrentHashMap<>();
        final String rollout;

        Children(String rollout) {
            this.rollout = rollout;
        }

        @Override
        public void eventReceived(Action action, NodeMaintenance nm) {
            if (action == Action.ADDED && childOf(nm, rollout)) {
                created.computeIfAbsent(nm.getSpec().getNodeName(), n -> new AtomicInteger())
                        .incrementAndGet();
            }
        }

        @Override
        public void onClose(WatcherException cause) {}
    }

    static RolloutSpec spec(String pool, int maxUnavailable, int perZone) {
        RolloutSpec spec = new RolloutSpec();
        spec.setNodeSelector(
                new LabelSelectorBuilder().addToMatchLabels(POOL, pool).build());
        spec.setMaxUnavailable(new IntOrString(maxUnavailable));
        spec.setMaxUnavailablePerDomain(perZone);
        DoneWhen done = new DoneWhen();
        done.setRebooted(true);
        spec.setDoneWhen(done);
        HealthGate health = new HealthGate();
        health.setSoak("1s");
        spec.setHealth(health);
        return spec;
    }

    /** One node at a time, each done when the test acknowledges its child ({@code doneWhen.manual}). */
    static RolloutSpec manualSpec(String pool) {
        RolloutSpec spec = spec(pool, 1, 1);
        DoneWhen manual = new DoneWhen();
        manual.setManual(true);
        spec.setDoneWhen(manual);
        return spec;
    }

    /** The pods labelled {@code app} in {@code ns} that are not terminating. */
    static List<Pod> livingPods(KubernetesClient client, String ns, String app) {
        return client.pods().inNamespace(ns).withLabel("app", app).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    /** The agent: reboots each node whose child has drained it, once. */
    static void rebootDrained(EmulatedCluster cluster, String rollout, Set<String> rebooted, Set<String> never) {
        for (NodeMaintenance nm : cluster.client()
                .resources(NodeMaintenance.class)
                .withLabel(NodeMaintenanceRolloutReconciler.ROLLOUT_LABEL, rollout)
                .list()
                .getItems()) {
            String node = nm.getSpec().getNodeName();
            if (nm.getStatus() != null
                    && nm.getStatus().getPhase() == Phase.Succeeded
                    && !never.contains(node)
                    && rebooted.add(node)) {
                cluster.reboot(node, Duration.ofSeconds(1));
            }
        }
    }

    /** {@code nm} carries the label of {@code rollout}'s children. */
    static boolean childOf(NodeMaintenance nm, String rollout) {
        Map<String, String> labels = nm.getMetadata().getLabels();
        return labels != null && rollout.equals(labels.get(NodeMaintenanceRolloutReconciler.ROLLOUT_LABEL));
    }

    /** The rollout's children (every NodeMaintenance labelled with it, deleting ones included). */
    static List<NodeMaintenance> maintenancesOf(KubernetesClient client, String rollout) {
        return client.resources(NodeMaintenance.class)
                .withLabel(NodeMaintenanceRolloutReconciler.ROLLOUT_LABEL, rollout)
                .list()
                .getItems();
    }

    /** Pool nodes {@code names}, workers labelled with {@code pool} and one {@code zone}. */
    static void seedPool(EmulatedCluster cluster, String pool, String zone, List<String> names) {
        for (String name : names) {
            cluster.seed()
                    .node(name)
                    .role("worker")
                    .label(POOL, pool)
                    .label(ZONE, zone)
                    .create();
        }
    }

    /**
     * The agent at work ({@link #rebootDrained}) until the rollout has a status that passes {@code expected}, polled
     * every 200 ms within {@code wait}'s bounds.
     */
    static void rebootUntil(
            ConditionFactory wait,
            EmulatedCluster cluster,
            String rollout,
            Set<String> rebooted,
            Set<String> never,
            Consumer<RolloutStatus> expected) {
        wait.pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            rebootDrained(cluster, rollout, rebooted, never);
            NodeMaintenanceRollout r = RolloutAlertGateIT.rollout(cluster.client(), rollout);
            assertThat(r.getStatus()).isNotNull();
            expected.accept(r.getStatus());
        });
    }

    /** The rollout has no child left, and none of {@code nodes} is cordoned. */
    static void assertGivenBack(KubernetesClient client, String rollout, List<String> nodes) {
        assertThat(maintenancesOf(client, rollout)).isEmpty();
        for (String name : nodes) {
            assertThat(client.nodes().withName(name).get().getSpec().getUnschedulable())
                    .as(name)
                    .isNotEqualTo(Boolean.TRUE);
        }
    }

    static boolean ready(Pod pod) {
        return pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    @Test
    void twelveNodesInThreeZonesAreEachMaintainedOnceTwoAtATimeOnePerZone() {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        KubernetesClient client = cluster.client();
        Unavailability seen = new Unavailability();
        Children children = new Children("pool-a");
        List<String> names = new ArrayList<>();
        for (String zone : List.of("a", "b", "c")) {
            for (int i = 1; i <= 4; i++) {
                String name = "ro-" + zone + i;
                names.add(name);
                seen.zoneOf.put(name, "zone-" + zone);
            }
        }
        try (EmulatedCluster.Living living = cluster.living(NS, Duration.ofMillis(500));
                Watch nodeWatch = client.nodes().watch(seen);
                Watch childWatch = client.resources(NodeMaintenance.class).watch(children)) {
            for (String name : names) {
                cluster.seed()
                        .node(name)
                        .role("worker")
                        .label(POOL, "a")
                        .label(ZONE, seen.zoneOf.get(name))
                        .create();
            }
            cluster.seed()
                    .deployment("web")
                    .namespace(NS)
                    .replicas(6)
                    .onNodes("ro-a1", "ro-b1", "ro-c1")
                    .nodeSelector(POOL, "a")
                    .create();
            cluster.seed()
                    .pdb("web")
                    .namespace(NS)
                    .selector("app", "web")
                    .maxUnavailable(1)
                    .create();

            client.resource(new NodeMaintenanceRollout("pool-a", spec("a", 2, 1)))
                    .create();

            Set<String> rebooted = ConcurrentHashMap.newKeySet();
            rebootUntil(
                    await().atMost(Duration.ofMinutes(3)),
                    cluster,
                    "pool-a",
                    rebooted,
                    Set.of(),
                    st -> assertThat(st.getPhase()).isEqualTo(RolloutPhase.Complete));

            NodeMaintenanceRollout done = RolloutAlertGateIT.rollout(client, "pool-a");
            assertThat(done.getStatus().getDone()).isEqualTo(12);
            assertThat(done.getStatus().getFailed()).isZero();
            assertThat(done.getStatus().getNodes())
                    .extracting(NodeRecord::getName)
                    .containsExactlyInAnyOrderElementsOf(names);
            assertThat(done.getStatus().getNodes()).allSatisfy(r -> {
                assertThat(r.getState()).isEqualTo(NodeState.Done);
                assertThat(r.getBootIDBefore()).isEqualTo(EmulatedCluster.bootId(r.getName(), 0));
            });
            assertThat(rebooted).containsExactlyInAnyOrderElementsOf(names);
            // every node maintained exactly once
            assertThat(children.created.keySet()).containsExactlyInAnyOrderElementsOf(names);
            assertThat(children.created.values())
                    .allSatisfy(c -> assertThat(c.get()).isEqualTo(1));
            // never more than 2 pool nodes unavailable at once, never more than 1 in a zone
            assertThat(seen.most.get()).isEqualTo(2);
            assertThat(seen.mostPerZone.values())
                    .allSatisfy(m -> assertThat(m.get()).isEqualTo(1));
            // the drains went through the Eviction API, and the workload is whole again
            assertThat(cluster.requests().count(r -> r.is("create", "pods", "eviction") && NS.equals(r.namespace())))
                    .isGreaterThanOrEqualTo(6);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(livingPods(client, NS, "web"))
                        .hasSize(6)
                        .allSatisfy(p -> assertThat(ready(p)).isTrue());
            });
            // every node given back: no child left, none cordoned
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertGivenBack(client, "pool-a", names));
        } finally {
            client.resources(NodeMaintenanceRollout.class).withName("pool-a").delete();
        }
    }

    @Test
    void aNodeThatFailsPausesTheRolloutAtTheBudgetAndDeletingItEndsWhatIsInFlight() {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        KubernetesClient client = cluster.client();
        List<String> names = List.of("rf-1", "rf-2", "rf-3", "rf-4", "rf-5", "rf-6");
        seedPool(cluster, "f", "zone-f", names);
        RolloutSpec spec = spec("f", 1, 1);
        spec.getDoneWhen().setTimeout("15s");
        spec.setFailureBudget(new IntOrString(1));
        try {
            client.resource(new NodeMaintenanceRollout("pool-f", spec)).create();
            Set<String> rebooted = ConcurrentHashMap.newKeySet();
            // rf-2 never comes back: its maintenance times out, and the budget of one failure is spent
            rebootUntil(await().atMost(Duration.ofMinutes(2)), cluster, "pool-f", rebooted, Set.of("rf-2"), st -> {
                assertThat(st.getPhase()).isEqualTo(RolloutPhase.Paused);
                assertThat(st.getReason()).isEqualTo("FailureBudget");
            });
            NodeMaintenanceRollout paused = RolloutAlertGateIT.rollout(client, "pool-f");
            assertThat(paused.getStatus().getFailed()).isEqualTo(1);
            assertThat(paused.getStatus().getNodes())
                    .filteredOn(r -> r.getState() == NodeState.Failed)
                    .extracting(NodeRecord::getName)
                    .containsExactly("rf-2");
            int started = paused.getStatus().getNodes().size();
            assertThat(started).as("rf-1 done, rf-2 failed, nothing after").isEqualTo(2);
            // the failed node is given back (its child ended: the undo uncordoned it), and nothing else starts
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertGivenBack(client, "pool-f", List.of("rf-2"));
            });
            NodeMaintenanceRollout still = RolloutAlertGateIT.rollout(client, "pool-f");
            assertThat(still.getStatus().getNodes()).hasSize(started);
            assertThat(still.getStatus().getPhase()).isEqualTo(RolloutPhase.Paused);

            // raising the budget resumes where it stopped; deleting the rollout then ends the node in flight.
            // fabric8's edit patches with the resourceVersion it read, so a write of the operator's in between (its
            // status, its finalizer) makes it a 409, as kube-apiserver answers (seen once at load 34): the edit is
            // made again on a fresh read. The 409 is injected on the first try, so the retry is proven every run.
            java.util.function.Predicate<ApiRequest> specEdit = r -> r.is("patch", "nodemaintenancerollouts")
                    && "pool-f".equals(r.name())
                    && RequestOrigin.of(r) == RequestOrigin.HARNESS;
            cluster.faults().failNext(1, specEdit, 409);
            Conflicts.retry(() -> client.resources(NodeMaintenanceRollout.class)
                    .withName("pool-f")
                    .edit(r -> {
                        r.getSpec().setFailureBudget(new IntOrString(5));
                        return r;
                    }));
            assertThat(cluster.requests().answers())
                    .filteredOn(a -> specEdit.test(a.request()))
                    .extracting(a -> a.status() + (a.injected() ? " injected" : ""))
                    .as("the edit refused once (409), then made again")
                    .startsWith("409 injected")
                    .endsWith("200");
            assertThat(RolloutAlertGateIT.rollout(client, "pool-f").getSpec().getFailureBudget())
                    .isEqualTo(new IntOrString(5));
            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(maintenancesOf(client, "pool-f"))
                            .extracting(nm -> nm.getSpec().getNodeName())
                            .containsExactly("rf-3"));
            client.resources(NodeMaintenanceRollout.class).withName("pool-f").delete();
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(RolloutAlertGateIT.rollout(client, "pool-f")).isNull();
                assertGivenBack(client, "pool-f", names);
            });
        } finally {
            client.resources(NodeMaintenanceRollout.class).withName("pool-f").delete();
        }
    }

    /**
     * The "workloads whole again" gate: rg-1's drain evicts both pods of Deployment {@code held}, whose replacements
     * the emulated kubelets keep not Ready (a failing readiness probe). rg-1 reboots and soaks, yet its slot does not
     * go to rg-2 while the Deployment is not whole; past {@code gateTimeout} the rollout pauses (GateTimeout, naming
     * the gate and the ReplicaSet) with an event; once the replacements are Ready it goes on by itself. The watch of
     * the children proves rg-2 was never started before the replacements were let become Ready: without the gate, rg-2
     * would start a second after rg-1 soaked.
     */
    @Test
    void theNextNodeWaitsUntilTheWorkloadsDrainedOffTheLastAreWholeAndATimedOutGatePauses() {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        KubernetesClient client = cluster.client();
        String ns = "rollout-gate";
        String workers = "tenure.test/gate-workers";
        AtomicBoolean released = new AtomicBoolean();
        Map<String, Boolean> startedBeforeRelease = new ConcurrentHashMap<>();
        Watcher<NodeMaintenance> starts = new Watcher<>() {
            @Override
            public void eventReceived(Action action, NodeMaintenance nm) {
                if (action == Action.ADDED && childOf(nm, "pool-g")) {
                    startedBeforeRelease.putIfAbsent(nm.getSpec().getNodeName(), !released.get());
                }
            }

            @Override
            public void onClose(WatcherException cause) {}
        };
        for (String name : List.of("rg-1", "rg-2", "rg-spare")) {
            var node = cluster.seed()
                    .node(name)
                    .role("worker")
                    .label(workers, "yes")
                    .label(ZONE, "zone-g");
            (name.equals("rg-spare") ? node : node.label(POOL, "g")).create();
        }
        RolloutSpec spec = spec("g", 1, 1);
        spec.getHealth().setGateTimeout("6s");
        try (EmulatedCluster.Living living = cluster.living(ns, Duration.ofMillis(200));
                Watch watch = client.resources(NodeMaintenance.class).watch(starts);
                EmulatedCluster.Living hold = cluster.holdReadiness(ns, "app", "held")) {
            cluster.seed()
                    .deployment("held")
                    .namespace(ns)
                    .replicas(2)
                    .onNodes("rg-1")
                    .nodeSelector(workers, "yes")
                    .create();
            // a StatefulSet drained off rg-1 too: its pod is recreated and Ready soon, so it never holds the gate
            cluster.seed()
                    .statefulSet("db")
                    .namespace(ns)
                    .replicas(1)
                    .onNodes("rg-1")
                    .nodeSelector(workers, "yes")
                    .create();
            client.resource(new NodeMaintenanceRollout("pool-g", spec)).create();
            Set<String> rebooted = ConcurrentHashMap.newKeySet();

            // rg-1 done and soaked, its replacements held not Ready: the gate holds its slot, then pauses the rollout
            rebootUntil(
                    await().atMost(Duration.ofMinutes(2))
                            .failFast(
                                    "rg-2 started while the workloads drained off rg-1 were not whole",
                                    () -> startedBeforeRelease.containsKey("rg-2")),
                    cluster,
                    "pool-g",
                    rebooted,
                    Set.of(),
                    st -> {
                        assertThat(st.getPhase()).isEqualTo(RolloutPhase.Paused);
                        assertThat(st.getReason()).isEqualTo("GateTimeout");
                    });
            NodeMaintenanceRollout paused = RolloutAlertGateIT.rollout(client, "pool-g");
            assertThat(paused.getStatus().getMessage())
                    .contains("gate WorkloadsWhole of node rg-1", "ReplicaSet " + ns + "/held-", "of 2 available");
            assertThat(paused.getStatus().getGates()).singleElement().satisfies(g -> {
                assertThat(g.getName()).isEqualTo("WorkloadsWhole");
                assertThat(g.getNode()).isEqualTo("rg-1");
            });
            assertThat(paused.getStatus().getNodes()).singleElement().satisfies(r -> {
                assertThat(r.getState()).isEqualTo(NodeState.Soaking);
                // what rg-1's drain evicted, by controller: the gate judged both, only the Deployment's is not whole
                assertThat(r.getWorkloads())
                        .extracting(ObjectReference::getKind)
                        .containsExactlyInAnyOrder("ReplicaSet", "StatefulSet");
            });
            assertThat(paused.getStatus().getMessage()).doesNotContain("StatefulSet");
            assertThat(rebooted).containsExactly("rg-1");
            assertThat(startedBeforeRelease).containsOnlyKeys("rg-1");
            // the event follows the status write in the same reconcile: seen Paused, it may not be recorded yet
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> assertThat(
                                    client.v1().events().inAnyNamespace().list().getItems())
                            .filteredOn(
                                    e -> "pool-g".equals(e.getInvolvedObject().getName()))
                            .filteredOn(e -> "RolloutPaused".equals(e.getReason()))
                            .isNotEmpty()
                            .allSatisfy(e -> {
                                assertThat(e.getType()).isEqualTo("Warning");
                                assertThat(e.getMessage()).startsWith("GateTimeout: gate WorkloadsWhole of node rg-1");
                            }));

            // the replacements become Ready: the gate opens, rg-1 is done and rg-2 starts, then the rollout completes
            released.set(true);
            hold.close();
            rebootUntil(
                    await().atMost(Duration.ofMinutes(2)),
                    cluster,
                    "pool-g",
                    rebooted,
                    Set.of(),
                    st -> assertThat(st.getPhase()).isEqualTo(RolloutPhase.Complete));
            assertThat(startedBeforeRelease).containsEntry("rg-1", true).containsEntry("rg-2", false);
            assertThat(client.v1().events().inAnyNamespace().list().getItems())
                    .filteredOn(e -> "pool-g".equals(e.getInvolvedObject().getName()))
                    .extracting(io.fabric8.kubernetes.api.model.Event::getReason)
                    .contains("RolloutResumed");
            assertThat(livingPods(client, ns, "held"))
                    .hasSize(2)
                    .allSatisfy(p -> assertThat(ready(p)).isTrue());
        } finally {
            client.resources(NodeMaintenanceRollout.class).withName("pool-g").delete();
        }
    }

    /**
     * The status is replaced whole on each write, never merged: a field that becomes null is gone from the object the
     * API server returns. Here the ETA, set once a node is done, and absent while the spec is invalid (a merge patch,
     * as fabric8's patchStatus sends, left the old ETA on the object). The write's resourceVersion precondition holds
     * for this CRD's status subresource: the same JSON patch naming a stale version is a 409 and changes nothing.
     */
    @Test
    void aStatusFieldThatBecomesNullIsGoneFromTheStoredObject() {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        KubernetesClient client = cluster.client();
        seedPool(cluster, "n", "zone-n", List.of("rn-1", "rn-2", "rn-3"));
        RolloutSpec spec = manualSpec("n");
        spec.getHealth().setSoak("0s");
        spec.getHealth().setWorkloadsWhole(false);
        try {
            client.resource(new NodeMaintenanceRollout("pool-n", spec)).create();
            // the first node started is acknowledged done: the rollout has a pace, so an ETA
            String first = await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(
                            () -> client
                                    .resources(NodeMaintenance.class)
                                    .withLabel(NodeMaintenanceRolloutReconciler.ROLLOUT_LABEL, "pool-n")
                                    .list()
                                    .getItems()
                                    .stream()
                                    .map(nm -> nm.getSpec().getNodeName())
                                    .findFirst()
                                    .orElse(null),
                            java.util.Objects::nonNull);
            RolloutAlertGateIT.acknowledge(client, "pool-n", first);
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        NodeMaintenanceRollout r = RolloutAlertGateIT.rollout(client, "pool-n");
                        assertThat(r.getStatus().getDone()).isEqualTo(1);
                        assertThat(r.getStatus().getEta()).isNotBlank();
                    });

            // an invalid spec: nothing starts, the records stay, and there is no ETA any more
            RolloutAlertGateIT.retryingConflicts(() -> client.resources(NodeMaintenanceRollout.class)
                    .withName("pool-n")
                    .edit(r -> {
                        r.getSpec().setMaxUnavailable(new IntOrString("0%"));
                        return r;
                    }));
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        NodeMaintenanceRollout r = RolloutAlertGateIT.rollout(client, "pool-n");
                        assertThat(r.getStatus().getPhase()).isEqualTo(RolloutPhase.Invalid);
                        assertThat(r.getStatus().getMessage()).contains("spec.maxUnavailable");
                        assertThat(r.getStatus().getNodes())
                                .filteredOn(n -> n.getName().equals(first))
                                .extracting(NodeRecord::getState)
                                .containsExactly(NodeState.Done);
                        assertThat(r.getStatus().getEta()).as("status.eta").isNull();
                    });

            // the precondition: a whole-status write naming a version that is not the stored one changes nothing
            NodeMaintenanceRollout stored = RolloutAlertGateIT.rollout(client, "pool-n");
            dev.tenure.rollout.api.RolloutStatus forged = new dev.tenure.rollout.api.RolloutStatus();
            forged.setPhase(RolloutPhase.Complete);
            String stale = String.valueOf(Long.parseLong(stored.getMetadata().getResourceVersion()) - 1);
            assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(
                                    KubernetesClientException.class,
                                    () -> client.resources(NodeMaintenanceRollout.class)
                                            .withName("pool-n")
                                            .subresource("status")
                                            .patch(
                                                    PatchContext.of(PatchType.JSON),
                                                    WholeStatus.patch(
                                                            client.getKubernetesSerialization(), stale, forged)))
                            .getCode())
                    .isEqualTo(409);
            assertThat(RolloutAlertGateIT.rollout(client, "pool-n").getStatus().getPhase())
                    .isEqualTo(RolloutPhase.Invalid);
        } finally {
            client.resources(NodeMaintenanceRollout.class).withName("pool-n").delete();
        }
    }

    /**
     * A status write that meets a newer version of the rollout (409: nothing written) is not the end of the reconcile:
     * the controller reads the rollout again and decides again from it, in the same reconcile, and still starts the
     * first node exactly once (the status goes before any child). The 409 is injected on the first status write; the
     * operator's GET of the rollout is the read again (nothing else of the operator GETs a rollout: it reads them from
     * its informer).
     */
    @Test
    void aStatusWriteThatMeetsANewerVersionIsDecidedAgainFromAFreshRead() {
        EmulatedCluster cluster = EmulatedClusterResource.cluster();
        KubernetesClient client = cluster.client();
        seedPool(cluster, "c", "zone-c", List.of("rc-1", "rc-2"));
        RolloutSpec spec = manualSpec("c");
        java.util.function.Predicate<dev.tenure.testsupport.ApiRequest> statusWrite =
                r -> r.is("patch", "nodemaintenancerollouts", "status") && "pool-c".equals(r.name());
        cluster.faults().failNext(1, statusWrite, 409);
        try {
            client.resource(new NodeMaintenanceRollout("pool-c", spec)).create();
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        NodeMaintenanceRollout r = RolloutAlertGateIT.rollout(client, "pool-c");
                        assertThat(r.getStatus()).isNotNull();
                        assertThat(r.getStatus().getNodes())
                                .singleElement()
                                .satisfies(n -> assertThat(n.getState()).isEqualTo(NodeState.InProgress));
                        assertThat(RolloutAlertGateIT.children(client, "pool-c"))
                                .hasSize(1);
                    });
            assertThat(cluster.requests().answers())
                    .filteredOn(a -> statusWrite.test(a.request()))
                    .first()
                    .satisfies(a -> {
                        assertThat(a.status()).isEqualTo(409);
                        assertThat(a.injected()).isTrue();
                    });
            assertThat(cluster.requests()
                            .count(r -> r.is("get", "nodemaintenancerollouts")
                                    && "pool-c".equals(r.name())
                                    && dev.tenure.testsupport.RequestOrigin.of(r)
                                            == dev.tenure.testsupport.RequestOrigin.OPERATOR))
                    .as("the operator read the rollout again after the 409")
                    .isPositive();
            assertThat(maintenancesOf(client, "pool-c"))
                    .as("one node started, once")
                    .hasSize(1);
        } finally {
            client.resources(NodeMaintenanceRollout.class).withName("pool-c").delete();
        }
    }
}
