package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.Evacuation;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMachineIT;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import dev.tenure.maintenance.machine.PlacementView;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.MutableClock;
import dev.tenure.testsupport.RequestOrigin;
import dev.tenure.testsupport.SecondLane;
import dev.tenure.testsupport.ShippedSurgeRole;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 51's act on the living emulated cluster: a Deployment with one replica and a budget of {@code minAvailable: 1}
 * on the drained node. {@code Evict} times out on the budget; {@code Surge} scales it to 2, lets the eviction go once
 * the new pod is Ready elsewhere, gives the replica back and removes its record, and the workload is never without a
 * Ready pod (sampled at the API server at every step). A foreign scale meanwhile is left as it is and said once; a
 * StatefulSet is never scaled; without the opt-in role no scale request is sent; a new operator instance (a restart,
 * a new leader) that takes over mid-surge from the status finishes it, replicas exact.
 */
@EndToEnd
@SecondLane
class SurgeDrainIT {

    static final String NS = "surging";
    static final String MAINTENANCE_UID = "0b5e7c1e-surge-it";
    /** The surge pod becomes Ready this long (cluster clock) after it is bound; the test loop moves 250 ms a step. */
    static final Duration READINESS = Duration.ofSeconds(3);
    /** How far the machine's clock (the cluster's too) moves at each step of {@link #drain}. */
    static final Duration STEP = Duration.ofMillis(250);
    /**
     * The drain timeout of the cases whose subject is not the timeout. The machine's clock moves {@link #STEP} a step
     * while the living cluster's controllers, scheduler and pod terminations run on real time (a round every 200 ms),
     * so a drain timeout of 2m (480 steps) is a bound on the number of steps, not on time: these cases are bounded by
     * the wait's 90 s of real time instead, which can step the clock by at most 18¾ minutes (4,500 polls of 20 ms).
     * A drain that does not get there fails the wait with its phase, steps, events and workload writes.
     */
    static final String UNREACHED_TIMEOUT = "1h";

    MutableClock clock;
    EmulatedCluster cluster;
    KubernetesClient client;
    ExecutorService pool;
    ExecutorScheduler heartbeats;
    MaintenanceMachine machine;
    EmulatedCluster.Living living;
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    /** Steps at which no pod of web was Ready and not terminating, sampled at the API server. */
    final List<String> withoutReadyPod = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void start() {
        clock = MutableClock.atSystemTime();
        cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests().clock(clock));
        client = cluster.client();
        pool = Executors.newFixedThreadPool(2);
        heartbeats = new ExecutorScheduler("test-heartbeats");
        machine = newMachine();
        cluster.seed().node("w1").role("worker").create();
        cluster.seed().node("w2").role("worker").create();
        living = cluster.living(NS, READINESS);
        cluster.seed().deployment("web").namespace(NS).replicas(1).onNodes("w2").create();
        cluster.seed()
                .pdb("web")
                .namespace(NS)
                .selector("app", "web")
                .minAvailable(1)
                .create();
        awaitRolledOut("web", 1);
    }

    @AfterEach
    void stop() throws Exception {
        living.close();
        machine.close();
        heartbeats.close();
        pool.shutdownNow();
        cluster.close();
    }

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    /** What the door supplies for the placement forecast; empty: none (the machine then makes no forecast). */
    Optional<PlacementView> placement = Optional.empty();

    MaintenanceMachine newMachine() {
        KubernetesClient operator = cluster.operatorClient();
        return new MaintenanceMachine(
                operator,
                new KubeLeaseStore(operator),
                (node, started, now) -> LeadershipHandover.Outcome.complete("nothing held"),
                new MaintenanceMetrics(registry),
                MaintenanceMachineIT.SETTINGS,
                pool,
                heartbeats,
                clock);
    }

    @Test
    void evictTimesOutOnTheBudget() throws IOException {
        bindShippedSurgeRole();

        MaintenanceState end = drain(
                Evacuation.Evict,
                "5s",
                new AtomicReference<>(MaintenanceState.initial()),
                s -> s.phase() == Phase.Failed);

        assertThat(end.lastError()).contains("did not finish within 5s");
        assertThat(replicas()).isEqualTo(1);
        assertThat(operatorScales()).isZero();
    }

    @Test
    void surgeDrainsTheNodeNeverWithoutAReadyPodAndGivesTheReplicaBack() throws IOException {
        bindShippedSurgeRole();
        String old = podsOf("web").get(0).getMetadata().getName();

        MaintenanceState end = drain(
                Evacuation.Surge,
                UNREACHED_TIMEOUT,
                new AtomicReference<>(MaintenanceState.initial()),
                s -> s.phase() == Phase.Succeeded);

        assertThat(withoutReadyPod).as("steps at which web had no Ready pod").isEmpty();
        assertThat(replicas()).isEqualTo(1);
        assertThat(annotation()).as("the surge's record is removed").isNull();
        assertThat(end.surges()).isEmpty();
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(podsOf("web")).singleElement().satisfies(p -> {
                    assertThat(p.getSpec().getNodeName()).isEqualTo("w1");
                    assertThat(p.getMetadata().getName()).isNotEqualTo(old);
                }));
        assertThat(cluster.requests()
                        .count(r ->
                                r.is("create", "pods", "eviction") && NS.equals(r.namespace()) && old.equals(r.name())))
                .as("the old pod was evicted through the Eviction API")
                .isPositive();
        assertThat(cluster.requests()
                        .count(r -> r.is("list", "pods")
                                && String.valueOf(r.query().get("fieldSelector"))
                                        .contains("spec.nodeName=w2")))
                .as("pods listed by node")
                .isPositive();
        assertThat(acceptedOperatorWrites(r -> r.is("update", "deployments", "scale")))
                .as("scale writes that took effect: one up, one back (%s)", operatorWriteTrace())
                .isEqualTo(2);
        assertThat(refusedOtherThanConflict())
                .as("a refused write is only ever a conflict, decided again")
                .isEmpty();
        assertThat(events)
                .filteredOn(
                        e -> e.startsWith(MaintenanceEvents.SURGE + ": scaled Deployment surging/web" + " from 1 to 2"))
                .hasSize(1);
        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.SURGE + ": gave back"))
                .hasSize(1);
        assertThat(surges("started", "none")).isEqualTo(1);
        assertThat(surges("completed", "none")).isEqualTo(1);
    }

    @Test
    void aForeignScaleWhileTheSurgeWaitsIsLeftAndSaidOnce() throws IOException {
        bindShippedSurgeRole();
        AtomicReference<MaintenanceState> state = new AtomicReference<>(MaintenanceState.initial());
        // hold the surge pod not Ready: the surge waits
        living.close();
        living = cluster.living(NS, Duration.ofHours(1));
        drain(
                Evacuation.Surge,
                UNREACHED_TIMEOUT,
                state,
                s -> s.surges().stream().anyMatch(e -> Boolean.TRUE.equals(e.getRaised())));
        assertThat(replicas()).isEqualTo(2);

        client.apps().deployments().inNamespace(NS).withName("web").scale(5);
        // the first removal of the record conflicts (as when the Deployment's controller writes its status between
        // the read and the patch): it is read again and removed all the same
        cluster.faults()
                .failNext(
                        1,
                        r -> RequestOrigin.of(r) == RequestOrigin.OPERATOR
                                && r.is("patch", "deployments")
                                && "web".equals(r.name()),
                        409);
        living.close();
        living = cluster.living(NS, READINESS);
        MaintenanceState end = drain(Evacuation.Surge, UNREACHED_TIMEOUT, state, s -> s.phase() == Phase.Succeeded);

        assertThat(replicas()).as("another client's scale is not overwritten").isEqualTo(5);
        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.SURGE_LEFT + ": "))
                .singleElement()
                .asString()
                .contains("replicas are 5, neither the 1 the owner had nor the 2 the surge set")
                .contains("left as they are");
        assertThat(annotation()).isNull();
        assertThat(end.surges())
                .singleElement()
                .satisfies(e -> assertThat(e.getLeft()).contains("replicas are 5"));
        assertThat(acceptedOperatorWrites(r -> r.is("update", "deployments", "scale")))
                .as("only the scale up took effect: nothing given back over the foreign 5 (%s)", operatorWriteTrace())
                .isEqualTo(1);
        assertThat(surges("left", "changed")).isEqualTo(1);
        assertThat(surges("completed", "none") + surges("given_back", "none")).isZero();
    }

    /**
     * The raise takes effect but the status saying so is lost (the door's status write refused with a 409, or the
     * operator killed after the scale: the next step starts from the status before it), then someone else puts the
     * replicas back to the owner's 1. Replicas alone now look never raised; the workload's generation, moved by the
     * raise and the put-back since the record, says otherwise: the surge is left, said once, never raised again.
     */
    @Test
    void aPutBackRaiseWhoseStatusWasLostIsNotRaisedAgain() throws IOException {
        bindShippedSurgeRole();
        AtomicReference<MaintenanceState> state = new AtomicReference<>(MaintenanceState.initial());
        living.close();
        living = cluster.living(NS, Duration.ofHours(1)); // the surge pod never Ready: the surge would wait
        drain(Evacuation.Surge, UNREACHED_TIMEOUT, state, s -> !s.surges().isEmpty());
        assertThat(state.get().surges())
                .singleElement()
                .satisfies(e -> assertThat(e.getRaised()).isFalse());
        assertThat(replicas()).as("recorded, not raised yet").isEqualTo(1);

        // the raise's step, from the status as read (a copy, as the door reads it), its status never written: the
        // state it leaves is dropped, the next step starts from the status before it
        AtomicReference<MaintenanceState> lost = new AtomicReference<>(NodeMaintenanceStatuses.toState(
                NodeMaintenanceStatuses.toStatus(state.get(), null, 1, clock.instant())));
        drain(Evacuation.Surge, UNREACHED_TIMEOUT, lost, s -> true);
        assertThat(replicas()).as("raised (%s)", operatorWriteTrace()).isEqualTo(2);
        assertThat(lost.get().surges())
                .singleElement()
                .satisfies(e -> assertThat(e.getRaised()).isTrue());
        assertThat(state.get().surges())
                .as("the status before the raise")
                .singleElement()
                .satisfies(e -> assertThat(e.getRaised()).isFalse());

        client.apps().deployments().inNamespace(NS).withName("web").scale(1); // a GitOps controller reverts it
        int[] steps = {0};
        MaintenanceState end = drain(Evacuation.Surge, UNREACHED_TIMEOUT, state, s -> ++steps[0] >= 20);

        assertThat(acceptedOperatorWrites(r -> r.is("update", "deployments", "scale")))
                .as("raised once, never again over the put-back (%s)", operatorWriteTrace())
                .isEqualTo(1);
        assertThat(replicas()).as("the put-back stands").isEqualTo(1);
        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.SURGE_LEFT + ": "))
                .singleElement()
                .asString()
                .contains("replicas were put back to 1 (the owner's), the workload written since the surge's record")
                .contains("not raised again");
        assertThat(end.surges())
                .singleElement()
                .satisfies(e -> assertThat(e.getLeft()).startsWith("replicas were put back to 1"));
        assertThat(annotation()).as("the record removed").isNull();
        assertThat(surges("left", "reverted")).isEqualTo(1);
        assertThat(surges("started", "none")).as("the one raise").isEqualTo(1);
    }

    /**
     * A StatefulSet's pod and a Deployment's pod, each held by its budget on the node: the Deployment surges (so the act
     * ran), the StatefulSet is never written, its pod evicted as with Evict and refused until the timeout, and the
     * Deployment's replicas are exact at the end.
     */
    @Test
    void aStatefulSetIsNeverScaledWhileTheDeploymentBesideItSurges() throws IOException {
        bindShippedSurgeRole();
        cluster.seed().statefulSet("db").namespace(NS).replicas(1).onNodes("w2").create();
        cluster.seed()
                .pdb("db")
                .namespace(NS)
                .selector("app", "db")
                .minAvailable(1)
                .create();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            var pdb = client.policy()
                    .v1()
                    .podDisruptionBudget()
                    .inNamespace(NS)
                    .withName("db")
                    .get();
            return pdb.getStatus() != null
                    && Integer.valueOf(1).equals(pdb.getStatus().getCurrentHealthy());
        });

        MaintenanceState end = drain(
                Evacuation.Surge,
                "20s",
                new AtomicReference<>(MaintenanceState.initial()),
                s -> s.phase() == Phase.Failed);

        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.SURGE + ": scaled Deployment surging/web"))
                .as("the Deployment beside it surged")
                .hasSize(1);
        assertThat(cluster.requests()
                        .count(r -> RequestOrigin.of(r) == RequestOrigin.OPERATOR
                                && r.isWrite()
                                && r.resource().equals("statefulsets")))
                .as("no write to the StatefulSet, its scale included")
                .isZero();
        assertThat(client.apps()
                        .statefulSets()
                        .inNamespace(NS)
                        .withName("db")
                        .get()
                        .getSpec()
                        .getReplicas())
                .isEqualTo(1);
        assertThat(cluster.requests()
                        .count(r -> r.is("create", "pods", "eviction")
                                && NS.equals(r.namespace())
                                && "db-0".equals(r.name())))
                .as("its pod evicted as with Evict, and refused")
                .isPositive();
        assertThat(end.surges()).isEmpty();
        assertThat(replicas()).isEqualTo(1);
        assertThat(annotation()).isNull();
    }

    /**
     * The surge pod would fit nowhere (w2 is drained, w1 carries a taint the pod does not tolerate): the act asks the
     * placement forecast before it records a surge, so nothing is written to the workload, the refusal is named once
     * with the scheduler's message and kept in status, and the drain goes on as Evict until its timeout.
     */
    @Test
    void aSurgeWhosePodWouldFitNowhereIsNotStarted() throws IOException {
        bindShippedSurgeRole();
        dev.tenure.testsupport.Conflicts.retry(() -> client.nodes()
                .withName("w1")
                .edit(n -> new io.fabric8.kubernetes.api.model.NodeBuilder(n)
                        .editSpec()
                        .addNewTaint()
                        .withKey("dedicated")
                        .withValue("db")
                        .withEffect("NoSchedule")
                        .endTaint()
                        .endSpec()
                        .build()));
        placement = Optional.of(new PlacementView(() -> client.nodes().list().getItems(), List::of));

        MaintenanceState end = drain(
                Evacuation.Surge,
                "5s",
                new AtomicReference<>(MaintenanceState.initial()),
                s -> s.phase() == Phase.Failed);

        assertThat(operatorScales())
                .as("no scale request (%s)", operatorWriteTrace())
                .isZero();
        assertThat(cluster.requests()
                        .count(r -> RequestOrigin.of(r) == RequestOrigin.OPERATOR
                                && r.isWrite()
                                && WORKLOADS.contains(r.resource())))
                .as("no write to the workload, its record included")
                .isZero();
        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.SURGE_LEFT + ": "))
                .singleElement()
                .asString()
                .contains("Deployment surging/web")
                .contains("not started: would not fit (forecast)")
                .contains("untolerated taint");
        assertThat(end.surges()).singleElement().satisfies(e -> {
            assertThat(e.getRaised()).isNotEqualTo(Boolean.TRUE);
            assertThat(e.getLeft()).contains("would not fit (forecast)");
        });
        assertThat(end.lastError()).contains("did not finish within 5s");
        assertThat(replicas()).isEqualTo(1);
    }

    /** A ReplicaSet without a Deployment is its own surge's target: scaled through replicasets/scale, given back. */
    @Test
    void aReplicaSetWithoutADeploymentSurgesItself() throws IOException {
        bindShippedSurgeRole();
        Deployment web =
                client.apps().deployments().inNamespace(NS).withName("web").get();
        io.fabric8.kubernetes.api.model.apps.ReplicaSet rs =
                client.apps().replicaSets().inNamespace(NS).list().getItems().get(0);
        var template = web.getSpec().getTemplate();
        template.getMetadata()
                .getLabels()
                .put("pod-template-hash", rs.getMetadata().getLabels().get("pod-template-hash"));
        rs.getSpec().setTemplate(template);
        rs.getMetadata().setOwnerReferences(List.of());
        client.apps().replicaSets().inNamespace(NS).resource(rs).update();
        client.apps().deployments().inNamespace(NS).withName("web").delete();
        String name = rs.getMetadata().getName();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> client.apps()
                                        .deployments()
                                        .inNamespace(NS)
                                        .withName("web")
                                        .get()
                                == null
                        && podsOf("web").size() == 1);

        MaintenanceState end = drain(
                Evacuation.Surge,
                UNREACHED_TIMEOUT,
                new AtomicReference<>(MaintenanceState.initial()),
                s -> s.phase() == Phase.Succeeded);

        assertThat(withoutReadyPod).isEmpty();
        assertThat(end.surges()).isEmpty();
        var after = client.apps().replicaSets().inNamespace(NS).withName(name).get();
        assertThat(after.getSpec().getReplicas()).isEqualTo(1);
        assertThat(
                        after.getMetadata().getAnnotations() == null
                                ? null
                                : after.getMetadata().getAnnotations().get(SurgeRecord.ANNOTATION))
                .isNull();
        assertThat(acceptedOperatorWrites(r -> r.is("update", "replicasets", "scale")))
                .as("raised and given back through replicasets/scale (%s)", operatorWriteTrace())
                .isEqualTo(2);
        assertThat(acceptedOperatorWrites(r -> r.is("patch", "replicasets")))
                .as("the record written and removed (%s)", operatorWriteTrace())
                .isEqualTo(2);
    }

    @Test
    void withoutTheOptInRoleNoScaleIsSentAndTheDrainSaysUnavailable() {
        MaintenanceState end = drain(
                Evacuation.Surge,
                "5s",
                new AtomicReference<>(MaintenanceState.initial()),
                s -> s.phase() == Phase.Failed);

        assertThat(end.lastError()).contains("did not finish within 5s");
        assertThat(cluster.requests().count(r -> r.subresource().equals("scale")))
                .as("no scale request ever sent")
                .isZero();
        assertThat(cluster.requests()
                        .count(r -> RequestOrigin.of(r) == RequestOrigin.OPERATOR
                                && r.isWrite()
                                && (r.resource().equals("deployments")
                                        || r.resource().equals("replicasets"))))
                .isZero();
        assertThat(events)
                .filteredOn(e -> e.startsWith(
                        MaintenanceEvents.DRAIN_WARNING + ": spec.drain.evacuation Surge" + " unavailable"))
                .singleElement()
                .asString()
                .contains("evicts as Evict");
        assertThat(replicas()).isEqualTo(1);
    }

    @Test
    void aNewOperatorInstanceTakesOverMidSurgeFromTheStatusAndFinishesIt() throws IOException {
        bindShippedSurgeRole();
        AtomicReference<MaintenanceState> state = new AtomicReference<>(MaintenanceState.initial());
        drain(
                Evacuation.Surge,
                UNREACHED_TIMEOUT,
                state,
                s -> s.surges().stream().anyMatch(e -> Boolean.TRUE.equals(e.getRaised())));
        assertThat(replicas()).as("the scale is written").isEqualTo(2);
        assertThat(annotation()).contains("\"maintenanceUid\":\"" + MAINTENANCE_UID + "\"");

        machine.close(); // the operator stops: its memory (pacing, refusals) goes with it
        machine = newMachine();
        MaintenanceState end = drain(Evacuation.Surge, UNREACHED_TIMEOUT, state, s -> s.phase() == Phase.Succeeded);

        assertThat(withoutReadyPod).isEmpty();
        assertThat(replicas()).isEqualTo(1);
        assertThat(annotation()).isNull();
        assertThat(end.surges()).isEmpty();
        assertThat(acceptedOperatorWrites(r -> r.is("update", "deployments", "scale")))
                .as("raised once, given back once: the new instance did not raise again (%s)", operatorWriteTrace())
                .isEqualTo(2);
    }

    /** A maintenance deleted mid-surge: the door gives back the replicas still the surge's before the node's end. */
    @Test
    void aMaintenanceDeletedMidSurgeGivesTheReplicaBack() throws IOException {
        bindShippedSurgeRole();
        AtomicReference<MaintenanceState> state = surgeWaitingOnAPodNeverReady();

        assertThat(giveBackAtDeletion(state)).as("every surge done with").isTrue();

        assertThat(replicas()).isEqualTo(1);
        assertThat(annotation()).isNull();
        assertThat(surges("given_back", "none")).isEqualTo(1);
    }

    /**
     * SurgeChaosIT trial 2703152294382527: the leader wrote a surge's record on the workload, then was killed before
     * that step's status was written, and the maintenance was deleted before the next leader's drain step (which would
     * have adopted the record). The deletion finds the record no status names from the node's pods and removes it; the
     * replicas, never raised, are not touched.
     */
    @Test
    void aRecordWhoseStepsStatusWasNeverWrittenIsRemovedAtDeletion() throws IOException {
        bindShippedSurgeRole();
        AtomicReference<MaintenanceState> state = new AtomicReference<>(MaintenanceState.initial());
        AtomicReference<MaintenanceState> lastWritten = new AtomicReference<>(state.get());
        drain(Evacuation.Surge, UNREACHED_TIMEOUT, state, s -> {
            if (s.surges().isEmpty()) {
                lastWritten.set(s);
                return false;
            }
            return true;
        });
        assertThat(annotation()).as("the record is written").contains("\"maintenanceUid\":\"" + MAINTENANCE_UID + "\"");
        assertThat(replicas()).as("not raised in the step that recorded it").isEqualTo(1);

        state.set(lastWritten.get()); // the recording step's status was never written: the leader was killed
        assertThat(state.get().surges()).isEmpty();
        assertThat(giveBackAtDeletion(state)).as("every surge done with").isTrue();

        assertThat(annotation())
                .as("the record no status named is removed (%s)", operatorWriteTrace())
                .isNull();
        assertThat(replicas()).isEqualTo(1);
        assertThat(operatorScales()).as("the replicas are not touched").isZero();
        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.SURGE + ": removed the record " + SurgeRecord.ANNOTATION
                        + " from Deployment surging/web"))
                .hasSize(1);
        assertThat(events).noneMatch(e -> e.startsWith(MaintenanceEvents.SURGE_LEFT));
    }

    /** Another maintenance's record on a workload of the node is never removed by this one's deletion. */
    @Test
    void anotherMaintenancesRecordIsNotRemovedAtDeletion() throws IOException {
        bindShippedSurgeRole();
        String foreign = new SurgeRecord("another-uid", "another", "w9", 1, 1).toJson();
        recordOnWeb(foreign);
        AtomicReference<MaintenanceState> state = new AtomicReference<>(MaintenanceState.initial());

        assertThat(giveBackAtDeletion(state)).isTrue();

        assertThat(annotation()).isEqualTo(foreign);
        assertThat(operatorWriteTrace()).isEqualTo("[]");
    }

    /**
     * A record left by a maintenance that no longer exists (deleted once its pods had left the node, so its end never
     * met the workload), at the owner's count: no surge of it was in flight, so the record is removed, said in a
     * {@code Surge} event, and this maintenance surges the workload. Before, the record kept every later surge of it
     * out for ever: the drain waited on the budget.
     */
    @Test
    void anOrphanedRecordAtTheOwnersCountIsRemovedAndTheWorkloadSurged() throws IOException {
        bindShippedSurgeRole();
        recordOnWeb(new SurgeRecord("gone-uid", "gone", "w9", 1, 1).toJson());

        MaintenanceState end = drain(
                Evacuation.Surge,
                UNREACHED_TIMEOUT,
                new AtomicReference<>(MaintenanceState.initial()),
                s -> s.phase() == Phase.Succeeded);

        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.SURGE + ": removed the record " + SurgeRecord.ANNOTATION
                        + " from Deployment surging/web"))
                .singleElement()
                .asString()
                .contains("names NodeMaintenance gone (uid gone-uid), which no longer exists")
                .contains("its surge was not in flight");
        assertThat(events)
                .filteredOn(
                        e -> e.startsWith(MaintenanceEvents.SURGE + ": scaled Deployment surging/web" + " from 1 to 2"))
                .hasSize(1);
        assertThat(events).noneMatch(e -> e.startsWith(MaintenanceEvents.SURGE_LEFT));
        assertThat(withoutReadyPod).as("steps at which web had no Ready pod").isEmpty();
        assertThat(replicas()).as("the owner's count").isEqualTo(1);
        assertThat(annotation()).as("neither record left").isNull();
        assertThat(end.surges()).isEmpty();
        assertThat(acceptedOperatorWrites(operatorRecordPatch()))
                .as("the orphan removed, this surge's record written and removed (%s)", operatorWriteTrace())
                .isEqualTo(3);
        assertThat(acceptedOperatorWrites(r -> r.is("update", "deployments", "scale")))
                .as("one up, one back (%s)", operatorWriteTrace())
                .isEqualTo(2);
        assertThat(cluster.requests()
                        .count(r -> RequestOrigin.of(r) == RequestOrigin.OPERATOR
                                && r.is("get", "nodemaintenances")
                                && "gone".equals(r.name())))
                .as("the record's maintenance looked up by name")
                .isPositive();
    }

    /**
     * A record left by a maintenance that no longer exists, at a count that is not the owner's (a surge raised and
     * never given back, or someone else's): nothing is written to the workload, a {@code SurgeLeft} Warning tells an
     * admin what to do, and the pod is evicted as with Evict (refused here until the timeout).
     */
    @Test
    void anOrphanedRecordAtAnotherCountIsLeftForAPersonAndSaidOnce() throws IOException {
        bindShippedSurgeRole();
        String orphan = new SurgeRecord("gone-uid", "gone", "w9", 2, 1).toJson();
        recordOnWeb(orphan);
        Long generation = client.apps()
                .deployments()
                .inNamespace(NS)
                .withName("web")
                .get()
                .getMetadata()
                .getGeneration();

        MaintenanceState end = drain(
                Evacuation.Surge,
                "5s",
                new AtomicReference<>(MaintenanceState.initial()),
                s -> s.phase() == Phase.Failed);

        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.SURGE_LEFT + ": "))
                .singleElement()
                .asString()
                .contains("surge of Deployment surging/web for node w2")
                .contains("names NodeMaintenance gone (uid gone-uid), which no longer exists")
                .contains("replicas are 1, not the 2 it recorded as the owner's")
                .contains("scale it back to 2, then remove the annotation " + SurgeRecord.ANNOTATION)
                .contains("evicted as with evacuation Evict");
        assertThat(end.surges())
                .singleElement()
                .satisfies(e -> assertThat(e.getLeft()).contains("which no longer exists"));
        assertThat(operatorWriteTrace()).as("nothing written to a workload").isEqualTo("[]");
        assertThat(annotation()).isEqualTo(orphan);
        assertThat(replicas()).isEqualTo(1);
        assertThat(client.apps()
                        .deployments()
                        .inNamespace(NS)
                        .withName("web")
                        .get()
                        .getMetadata()
                        .getGeneration())
                .as("spec and annotations unchanged")
                .isEqualTo(generation);
        assertThat(cluster.requests().count(r -> r.is("create", "pods", "eviction") && NS.equals(r.namespace())))
                .as("its pod evicted as with Evict, and refused")
                .isPositive();
        assertThat(end.lastError()).contains("did not finish within 5s");
    }

    /**
     * A record whose maintenance exists is that maintenance's surge: left to it, nothing written, and the wait says
     * whose it is, once.
     */
    @Test
    void aRecordWhoseMaintenanceExistsIsLeftToItAndTheWaitNamesIt() throws IOException {
        bindShippedSurgeRole();
        NodeMaintenance other = client.resource(
                        new NodeMaintenance("other", new NodeMaintenanceSpec("w9", "another maintenance")))
                .create();
        String uid = other.getMetadata().getUid();
        String foreign = new SurgeRecord(uid, "other", "w9", 1, 1).toJson();
        recordOnWeb(foreign);

        MaintenanceState end = drain(
                Evacuation.Surge,
                "5s",
                new AtomicReference<>(MaintenanceState.initial()),
                s -> s.phase() == Phase.Failed);

        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.SURGE + ": Deployment surging/web carries the surge"
                        + " record " + SurgeRecord.ANNOTATION + " of NodeMaintenance other (uid " + uid))
                .singleElement()
                .asString()
                .contains("its surge is left to it")
                .contains("waits on its budget until that maintenance gives the replicas back");
        assertThat(events).noneMatch(e -> e.startsWith(MaintenanceEvents.SURGE_LEFT));
        assertThat(operatorWriteTrace()).as("nothing written to a workload").isEqualTo("[]");
        assertThat(annotation()).isEqualTo(foreign);
        assertThat(replicas()).isEqualTo(1);
        assertThat(end.surges()).isEmpty();
        assertThat(end.lastError()).contains("did not finish within 5s");
    }

    /**
     * The give-back's scale conflicts (the Deployment's controller wrote its status after the operator's read, as it
     * does right after the raise): the act reads again and decides again in the same step, so the replicas are given
     * back, not left with a {@code SurgeLeft} as if someone else had changed them.
     */
    @Test
    void aGiveBackThatConflictsIsDecidedAgainFromAFreshRead() throws IOException {
        bindShippedSurgeRole();
        AtomicReference<MaintenanceState> state = surgeWaitingOnAPodNeverReady();
        cluster.faults().failNext(1, operatorScale(), 409);

        assertThat(giveBackAtDeletion(state)).as("every surge done with").isTrue();

        assertThat(replicas()).as("given back (%s)", operatorWriteTrace()).isEqualTo(1);
        assertThat(annotation()).isNull();
        assertThat(events).noneMatch(e -> e.startsWith(MaintenanceEvents.SURGE_LEFT));
        assertThat(acceptedOperatorWrites(r -> r.is("update", "deployments", "scale")))
                .as("raised, given back (%s)", operatorWriteTrace())
                .isEqualTo(2);
        assertThat(surges("given_back", "none")).isEqualTo(1);
    }

    /**
     * A give-back at the end that fails for now (a 503) is not left: the surge is said undone, its record stays, and
     * the next try (the door's retry of the deletion, from the same status) gives the replica back.
     */
    @Test
    void aGiveBackThatFailsAtTheEndIsTriedAgainNotLeft() throws IOException {
        bindShippedSurgeRole();
        AtomicReference<MaintenanceState> state = surgeWaitingOnAPodNeverReady();
        cluster.faults().failNext(1, operatorScale(), 503);

        assertThat(giveBackAtDeletion(state)).as("the give-back failed for now").isFalse();
        assertThat(replicas()).isEqualTo(2);
        assertThat(annotation()).as("the record stays, naming this maintenance").contains(MAINTENANCE_UID);
        assertThat(events).noneMatch(e -> e.startsWith(MaintenanceEvents.SURGE_LEFT));

        assertThat(giveBackAtDeletion(state)).as("done at the next try").isTrue();
        assertThat(replicas()).isEqualTo(1);
        assertThat(annotation()).isNull();
        assertThat(surges("given_back", "none")).isEqualTo(1);
        assertThat(surges("left", "changed")).isZero();
    }

    /**
     * The give-back's scale takes effect, then every try to remove the record conflicts (the Deployment's controller
     * writing its status meanwhile): the replicas are settled, so the next try only removes the record, from a fresh
     * read. A count set meanwhile by someone else, even the surge's own target, is theirs and is not given back again.
     */
    @Test
    void aGiveBackWhoseRecordRemovalKeepsConflictingNeverTouchesTheReplicasAgain() throws IOException {
        bindShippedSurgeRole();
        AtomicReference<MaintenanceState> state = surgeWaitingOnAPodNeverReady();
        cluster.faults().failNext(3, operatorRecordPatch(), 409);

        assertThat(giveBackAtDeletion(state)).as("the record's removal put off").isFalse();
        assertThat(replicas()).as("given back (%s)", operatorWriteTrace()).isEqualTo(1);
        assertThat(annotation()).as("the record stays for now").contains(MAINTENANCE_UID);
        boolean pendingKept = state.get().surges().stream().anyMatch(e -> Boolean.TRUE.equals(e.getRecordPending()));

        client.apps().deployments().inNamespace(NS).withName("web").scale(2); // someone sets 2, the surge's own target
        // the door tries again until done (a conflict with the Deployment's controller is the common case)
        await().atMost(Duration.ofSeconds(30)).until(() -> giveBackAtDeletion(state));

        assertThat(replicas())
                .as("another client's 2 is not given back again (%s)", operatorWriteTrace())
                .isEqualTo(2);
        assertThat(annotation()).isNull();
        assertThat(acceptedOperatorWrites(r -> r.is("update", "deployments", "scale")))
                .as("raised, given back once (%s)", operatorWriteTrace())
                .isEqualTo(2);
        assertThat(pendingKept)
                .as("status kept the record's removal as all that is left")
                .isTrue();
        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.SURGE + ": the record " + SurgeRecord.ANNOTATION
                        + " stays on Deployment surging/web for now"))
                .hasSize(1);
        assertThat(events).noneMatch(e -> e.startsWith(MaintenanceEvents.SURGE_LEFT));
        assertThat(surges("given_back", "none")).isEqualTo(1);
    }

    /**
     * A foreign scale leaves the surge, and every try to remove its record conflicts: the record is not left behind
     * (a left surge is not looked at again, and the record would keep every other maintenance from surging the
     * workload): it stays only until a later step removes it, which the drain waits for, said once.
     */
    @Test
    void aLeftSurgeWhoseRecordRemovalKeepsConflictingRemovesItLater() throws IOException {
        bindShippedSurgeRole();
        AtomicReference<MaintenanceState> state = new AtomicReference<>(MaintenanceState.initial());
        living.close();
        living = cluster.living(NS, Duration.ofHours(1));
        drain(
                Evacuation.Surge,
                UNREACHED_TIMEOUT,
                state,
                s -> s.surges().stream().anyMatch(e -> Boolean.TRUE.equals(e.getRaised())));
        client.apps().deployments().inNamespace(NS).withName("web").scale(5);
        cluster.faults().failNext(3, operatorRecordPatch(), 409);
        living.close();
        living = cluster.living(NS, READINESS);

        MaintenanceState end = drain(Evacuation.Surge, UNREACHED_TIMEOUT, state, s -> s.phase() == Phase.Succeeded);

        assertThat(annotation())
                .as("the record removed (%s)", operatorWriteTrace())
                .isNull();
        assertThat(replicas()).isEqualTo(5);
        assertThat(end.surges()).singleElement().satisfies(e -> {
            assertThat(e.getLeft()).contains("replicas are 5");
            assertThat(e.getRecordPending()).isNull();
        });
        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.SURGE_LEFT + ": "))
                .singleElement()
                .asString()
                .contains("replicas are 5");
        assertThat(events)
                .filteredOn(e -> e.startsWith(MaintenanceEvents.SURGE + ": the record " + SurgeRecord.ANNOTATION
                        + " stays on Deployment surging/web for now"))
                .hasSize(1);
        assertThat(acceptedOperatorWrites(r -> r.is("update", "deployments", "scale")))
                .as("only the raise: nothing given back over the foreign 5 (%s)", operatorWriteTrace())
                .isEqualTo(1);
    }

    /**
     * A window that closes mid-surge ends the maintenance: the replicas still the surge's are given back first; a
     * give-back that fails for now (a 503 on its scale) keeps the surge in status and is tried again at the next step,
     * before the node's end.
     */
    @Test
    void aWindowThatClosesMidSurgeGivesTheReplicaBack() throws IOException {
        bindShippedSurgeRole();
        living.close();
        living = cluster.living(NS, Duration.ofHours(1)); // the surge waits: its pod never Ready
        AtomicReference<MaintenanceState> state = new AtomicReference<>(MaintenanceState.initial());
        drain(
                Evacuation.Surge,
                UNREACHED_TIMEOUT,
                "10m",
                state,
                s -> s.surges().stream().anyMatch(e -> Boolean.TRUE.equals(e.getRaised())));
        assertThat(replicas()).isEqualTo(2);

        cluster.faults().failNext(1, operatorScale(), 503);
        clock.advance(Duration.ofMinutes(10));
        MaintenanceState end = drain(Evacuation.Surge, UNREACHED_TIMEOUT, "10m", state, s -> !s.holdsNode());

        assertThat(end.surges()).isEmpty();
        assertThat(replicas()).as("given back (%s)", operatorWriteTrace()).isEqualTo(1);
        assertThat(annotation()).isNull();
        assertThat(events).noneMatch(e -> e.startsWith(MaintenanceEvents.SURGE_LEFT));
        assertThat(surges("given_back", "none")).isEqualTo(1);
    }

    // ---- fixtures ------------------------------------------------------------------------------------------------

    /** A surge raised whose pod is never Ready: it waits, replicas 2. */
    AtomicReference<MaintenanceState> surgeWaitingOnAPodNeverReady() {
        living.close();
        living = cluster.living(NS, Duration.ofHours(1));
        AtomicReference<MaintenanceState> state = new AtomicReference<>(MaintenanceState.initial());
        drain(
                Evacuation.Surge,
                UNREACHED_TIMEOUT,
                state,
                s -> s.surges().stream().anyMatch(e -> Boolean.TRUE.equals(e.getRaised())));
        assertThat(replicas()).isEqualTo(2);
        return state;
    }

    /**
     * The door's give-back at the deletion of the maintenance, from the status as written; what is still to do is kept
     * in that status for the next try, as the door keeps it.
     *
     * @return whether every surge is done with
     */
    boolean giveBackAtDeletion(AtomicReference<MaintenanceState> state) {
        var status = NodeMaintenanceStatuses.toStatus(state.get(), null, 1, clock.instant());
        var again = machine.giveBackSurges(
                "w2",
                MAINTENANCE_UID,
                "surge-w2",
                status.getSurges(),
                (warning, reason, message) -> events.add(reason + ": " + message));
        status.setSurges(again.isEmpty() ? null : again);
        state.set(NodeMaintenanceStatuses.toState(status));
        return again.isEmpty();
    }

    /** Puts {@code record} on web as another client (the maintenance that wrote it). */
    void recordOnWeb(String record) {
        client.apps()
                .deployments()
                .inNamespace(NS)
                .withName("web")
                .edit(d -> new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder(d)
                        .editMetadata()
                        .addToAnnotations(SurgeRecord.ANNOTATION, record)
                        .endMetadata()
                        .build());
    }

    /** The operator's merge patch of web: the record written or removed. */
    static Predicate<ApiRequest> operatorRecordPatch() {
        return r ->
                RequestOrigin.of(r) == RequestOrigin.OPERATOR && r.is("patch", "deployments") && "web".equals(r.name());
    }

    static Predicate<ApiRequest> operatorScale() {
        return r -> RequestOrigin.of(r) == RequestOrigin.OPERATOR && r.is("update", "deployments", "scale");
    }

    /** Steps the machine (state kept through the status, as the door keeps it) until {@code done}. */
    MaintenanceState drain(
            Evacuation evacuation,
            String timeout,
            AtomicReference<MaintenanceState> state,
            Predicate<MaintenanceState> done) {
        return drain(evacuation, timeout, null, state, done);
    }

    MaintenanceState drain(
            Evacuation evacuation,
            String timeout,
            String window,
            AtomicReference<MaintenanceState> state,
            Predicate<MaintenanceState> done) {
        DrainSpec drain = new DrainSpec();
        drain.setEvacuation(evacuation);
        drain.setTimeout(timeout);
        drain.setEvictionRetryDelay("500ms");
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("w2", "surge drain");
        spec.setDrain(drain);
        spec.setWindow(window);
        MaintenanceRequest request = MaintenanceRequest.from(spec).withOwner(MAINTENANCE_UID, "surge-w2");
        Optional<PlacementView> view = placement;
        int[] steps = {0};
        try {
            await().atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        clock.advance(STEP);
                        steps[0]++;
                        MaintenanceState next = machine.advance(
                                        request,
                                        state.get(),
                                        false,
                                        Optional.empty(),
                                        view,
                                        Optional::empty,
                                        (warning, reason, message) -> events.add(reason + ": " + message))
                                .state();
                        state.set(NodeMaintenanceStatuses.toState(
                                NodeMaintenanceStatuses.toStatus(next, null, 1, clock.instant())));
                        sampleReadiness();
                        return done.test(state.get());
                    });
        } catch (ConditionTimeoutException e) {
            MaintenanceState at = state.get();
            throw new AssertionError(
                    "not there within 90 s of real time, " + steps[0] + " steps (" + STEP.multipliedBy(steps[0])
                            + " on the machine's clock): phase " + at.phase() + ", lastError " + at.lastError()
                            + ", surges "
                            + at.surges().stream()
                                    .map(x -> x.getName() + " raised=" + x.getRaised() + " left=" + x.getLeft())
                                    .toList()
                            + ", replicas " + replicas() + ", events " + events
                            + ", workload writes " + operatorWriteTrace(),
                    e);
        }
        return state.get();
    }

    void sampleReadiness() {
        List<Pod> web = podsOf("web");
        if (!web.isEmpty() && web.stream().noneMatch(DisruptionReadiness::ready)) {
            withoutReadyPod.add(clock.instant() + ": "
                    + web.stream().map(p -> p.getMetadata().getName()).toList());
        }
    }

    /** Ready and not being deleted: what a budget counts healthy. */
    static final class DisruptionReadiness {
        static boolean ready(Pod p) {
            return p.getMetadata().getDeletionTimestamp() == null
                    && p.getStatus() != null
                    && p.getStatus().getConditions() != null
                    && p.getStatus().getConditions().stream()
                            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        }
    }

    List<Pod> podsOf(String app) {
        return client.pods().inNamespace(NS).withLabel("app", app).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    int replicas() {
        return client.apps()
                .deployments()
                .inNamespace(NS)
                .withName("web")
                .get()
                .getSpec()
                .getReplicas();
    }

    String annotation() {
        Deployment d =
                client.apps().deployments().inNamespace(NS).withName("web").get();
        return d.getMetadata().getAnnotations() == null
                ? null
                : d.getMetadata().getAnnotations().get(SurgeRecord.ANNOTATION);
    }

    double surges(String outcome, String reason) {
        var counter = registry.find("tenure.maintenance.surges")
                .tag("outcome", outcome)
                .tag("reason", reason)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    /**
     * The operator's writes matching {@code what} that took effect (answered 2xx). A conditional write refused with
     * 409 (the Deployment's controller wrote its status between the operator's read and its write) changed nothing;
     * the act reads again and decides again, so it is not counted here but shown in {@link #operatorWriteTrace()}.
     */
    long acceptedOperatorWrites(Predicate<ApiRequest> what) {
        return cluster.requests().answers().stream()
                .filter(a -> RequestOrigin.of(a.request()) == RequestOrigin.OPERATOR && what.test(a.request()))
                .filter(a -> a.status() < 300)
                .count();
    }

    /** The operator's writes to workloads refused with anything but a conflict (409). */
    List<String> refusedOtherThanConflict() {
        return cluster.requests().answers().stream()
                .filter(a -> RequestOrigin.of(a.request()) == RequestOrigin.OPERATOR
                        && a.request().isWrite())
                .filter(a -> WORKLOADS.contains(a.request().resource()))
                .filter(a -> a.status() >= 300 && a.status() != 409)
                .map(a -> a.request() + " " + a.status())
                .toList();
    }

    static final java.util.Set<String> WORKLOADS = java.util.Set.of("deployments", "replicasets", "statefulsets");

    /** The operator's writes to workloads as answered, in order: "update apps/deployments/scale surging/web 409". */
    String operatorWriteTrace() {
        return cluster.requests().answers().stream()
                .filter(a -> RequestOrigin.of(a.request()) == RequestOrigin.OPERATOR
                        && a.request().isWrite())
                .filter(a -> WORKLOADS.contains(a.request().resource()))
                .map(a -> a.request() + " " + a.status() + (a.injected() ? " (injected)" : ""))
                .toList()
                .toString();
    }

    long operatorScales() {
        return cluster.requests()
                .count(r -> RequestOrigin.of(r) == RequestOrigin.OPERATOR
                        && r.subresource().equals("scale"));
    }

    /** The Deployment controller has written its status (rolled out: every replica available) and the budget counts it. */
    void awaitRolledOut(String name, int replicas) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Deployment d =
                    client.apps().deployments().inNamespace(NS).withName(name).get();
            var pdb = client.policy()
                    .v1()
                    .podDisruptionBudget()
                    .inNamespace(NS)
                    .withName(name)
                    .get();
            return d.getStatus() != null
                    && Integer.valueOf(replicas).equals(d.getStatus().getAvailableReplicas())
                    && pdb != null
                    && pdb.getStatus() != null
                    && Integer.valueOf(replicas).equals(pdb.getStatus().getCurrentHealthy())
                    && Integer.valueOf(0).equals(pdb.getStatus().getDisruptionsAllowed());
        });
    }

    /** The opt-in ClusterRole exactly as shipped in deploy/, bound to the operator's account as an admin would. */
    void bindShippedSurgeRole() throws IOException {
        ShippedSurgeRole.bind(client, SurgePreviewIT.OPERATOR_NS, SurgePreviewIT.OPERATOR_SA);
    }
}
