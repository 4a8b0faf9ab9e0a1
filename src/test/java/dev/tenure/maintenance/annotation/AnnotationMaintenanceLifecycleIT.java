package dev.tenure.maintenance.annotation;

import static dev.tenure.maintenance.annotation.AnnotationFixture.NODE;
import static dev.tenure.maintenance.annotation.AnnotationFixture.SETTINGS;
import static dev.tenure.maintenance.annotation.AnnotationFixture.leaseOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.LeaseRecord;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.maintenance.machine.HandoverOptions;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMarks;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.SecondLane;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The annotation protocol end to end on the maintenance machine, against the emulated cluster with a fake clock. */
@EndToEnd
@SecondLane
class AnnotationMaintenanceLifecycleIT {

    static final String US = SETTINGS.holder();

    static boolean status(AnnotationFixture f, String status) {
        return status.equals(f.status());
    }

    /** The NodeMaintenance door on the same machine (what NodeMaintenanceReconciler does each reconcile). */
    static MaintenanceState driveNodeMaintenance(
            AnnotationFixture f, MaintenanceState from, Predicate<MaintenanceState> until) {
        MaintenanceRequest request = new MaintenanceRequest(
                NODE, "kernel upgrade", Optional.empty(), DrainOptions.defaults(), HandoverOptions.defaults());
        AtomicReference<MaintenanceState> state = new AtomicReference<>(from);
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    f.clock.advance(Duration.ofMillis(100));
                    state.set(f.machine
                            .advance(request, state.get(), false, MaintenanceEvents.NONE)
                            .state());
                    return until.test(state.get());
                });
        return state.get();
    }

    /**
     * Issue 49: the annotation carries no policy, so the operator's {@code tenure.maintenance.annotation.placement}
     * sets it. With Wait, a pod whose replacement fits nowhere (its nodeSelector matches only w1) keeps the annotated
     * node uncordoned, nothing evicted, the forecast in the state record and a Warning that names that setting (not
     * the NodeMaintenance's spec.drain.placement); a node that takes the pod lets the maintenance go on.
     */
    @Test
    void theOperatorsPlacementSettingWaitHoldsTheAnnotatedNodeUntilThePodsFit() {
        try (AnnotationFixture f =
                new AnnotationFixture(SETTINGS.withPlacement(dev.tenure.maintenance.api.PlacementPolicy.Wait))) {
            Pod pod = f.cluster
                    .seed()
                    .deployment("solo")
                    .namespace("app")
                    .onNode(NODE)
                    .nodeSelector("tenure.test/pool", "only")
                    .create()
                    .get(0);

            f.request("3600");
            for (int i = 0; i < 5; i++) {
                f.clock.advance(Duration.ofMillis(100));
                f.reconcile();
            }

            assertThat(f.cordoned()).as("held before the cordon").isFalse();
            assertThat(f.evictions()).isZero();
            var recorded = RecordedState.read(f.annotation(MaintenanceAnnotation.STATE))
                    .machine();
            assertThat(recorded.getPhase()).isEqualTo(Phase.Pending);
            assertThat(recorded.getPlacement().getPolicy()).isEqualTo("Wait");
            assertThat(recorded.getPlacement().getPods())
                    .singleElement()
                    .satisfies(p -> assertThat(p.getPod())
                            .isEqualTo("app/" + pod.getMetadata().getName()));
            assertThat(f.events(dev.tenure.maintenance.machine.PlacementGate.WILL_NOT_FIT))
                    .singleElement()
                    .satisfies(e -> assertThat(e.getMessage())
                            .contains("; tenure.maintenance.annotation.placement Wait: the maintenance waits")
                            .doesNotContain("spec.drain.placement"));

            f.cluster
                    .seed()
                    .node("w3")
                    .role("worker")
                    .label("tenure.test/pool", "only")
                    .create();
            f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));

            assertThat(f.cordoned()).isTrue();
            assertThat(f.evictionsOf(pod.getMetadata().getName())).isPositive();
            assertThat(RecordedState.read(f.annotation(MaintenanceAnnotation.STATE))
                            .machine()
                            .getPlacement()
                            .getFits())
                    .isEqualTo(1);
        }
    }

    @Test
    void annotateDrainsToActiveAndRemovingItEndsAndRestoresTheNode() {
        try (AnnotationFixture f = new AnnotationFixture()) {
            f.cluster
                    .seed()
                    .deployment("web")
                    .namespace("app")
                    .replicas(4)
                    .onNodes(NODE, "w2")
                    .create();
            f.cluster
                    .seed()
                    .daemonSet("agent")
                    .namespace("kube-system")
                    .onNodes(NODE, "w2")
                    .create();
            List<Pod> webOnW1 = f.podsOn(NODE).stream()
                    .filter(p -> p.getMetadata().getName().startsWith("web"))
                    .toList();
            List<String> onW2 =
                    f.podsOn("w2").stream().map(p -> p.getMetadata().getName()).toList();
            assertThat(webOnW1).hasSize(2);
            Instant t0 = f.clock.instant();

            f.request("3600");
            f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));

            assertThat(f.listedPodsByNode())
                    .as("pods listed with fieldSelector spec.nodeName=w1")
                    .isTrue();
            webOnW1.forEach(p -> assertThat(f.evictionsOf(p.getMetadata().getName()))
                    .as("eviction of " + p.getMetadata().getName())
                    .isPositive());
            assertThat(f.podsOn(NODE))
                    .allSatisfy(p -> assertThat(p.getMetadata().getName()).startsWith("agent"));
            assertThat(f.podsOn("w2"))
                    .extracting(p -> p.getMetadata().getName())
                    .containsExactlyInAnyOrderElementsOf(onW2);
            assertThat(f.node().getSpec().getUnschedulable()).isTrue();
            assertThat(f.node().getSpec().getTaints())
                    .extracting(t -> t.getKey() + ":" + t.getEffect())
                    .contains("tenure.dev/drain:NoSchedule");
            LeaseRecord lease = f.lease();
            assertThat(lease.holderIdentity()).isEqualTo(US);
            assertThat(lease.leaseDurationSeconds()).isEqualTo(3600 + 30);
            assertThat(lease.acquireTime()).isAfterOrEqualTo(t0);
            assertThat(f.annotation(MaintenanceAnnotation.STATE))
                    .contains(lease.acquireTime().toString());
            assertThat(f.eventReasons()).contains("BeginMaintenance", "Cordoned", "SucceedMaintenance");
            assertThat(MaintenanceAnnotationController.concerns(f.node())).isTrue();
            assertThat(MaintenanceAnnotationController.concerns(
                            f.client.nodes().withName("w2").get()))
                    .isFalse();

            f.withdraw();
            f.drive(n -> status(f, MaintenanceAnnotation.ENDED)
                    && f.lease().leaseDuration().isEmpty());

            assertThat(f.restored()).isTrue();
            assertThat(f.annotation(MaintenanceAnnotation.STATE)).isNull();
            assertThat(f.lease().holderIdentity()).isEqualTo(US);
            assertThat(f.lease().leaseDurationSeconds())
                    .as("unset: the API refuses 0")
                    .isNull();
            assertThat(f.eventReasons()).contains(MaintenanceAnnotationController.ENDED_EVENT, "UncordonNode");
            assertThat(MaintenanceAnnotationController.concerns(f.node()))
                    .as("ended and undone: no longer reconciled")
                    .isFalse();

            // Settled: further reconciles write nothing and evict nothing.
            Predicate<dev.tenure.testsupport.ApiRequest> ourWrites = r -> r.is("patch", "nodes")
                    || r.is("patch", "nodes", "status")
                    || (r.is("update", "leases") && "tenure-system".equals(r.namespace()));
            long writes = f.cluster.requests().count(ourWrites);
            long evictions = f.evictions();
            f.reconcile();
            f.reconcile();
            assertThat(f.cluster.requests().count(ourWrites)).isEqualTo(writes);
            assertThat(f.evictions()).isEqualTo(evictions);

            // A new request after the end is a new maintenance ("new": the duration was unset).
            f.request("60");
            f.reconcile();
            assertThat(f.status()).isIn(MaintenanceAnnotation.NEW, MaintenanceAnnotation.ACTIVE);
            assertThat(f.lease().leaseTransitions()).isEqualTo(lease.leaseTransitions() + 1);
            assertThat(f.node().getSpec().getUnschedulable()).isTrue();
        }
    }

    @Test
    void theRequestedSecondsEndExactlyWhereNowPlusPaddingPassesTheLease() {
        try (AnnotationFixture f = new AnnotationFixture()) {
            f.request("600");
            f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));
            Instant acquired = f.lease().acquireTime();
            Optional<Duration> next = f.reconcile();
            assertThat(next).hasValueSatisfying(d -> assertThat(d).isLessThanOrEqualTo(Duration.ofSeconds(600)));

            // now + padding == acquireTime + duration: not after it yet.
            f.clock.advance(Duration.between(f.clock.instant(), acquired.plusSeconds(600)));
            f.reconcile();
            assertThat(f.status()).isEqualTo(MaintenanceAnnotation.ACTIVE);
            assertThat(f.annotation(MaintenanceAnnotation.REQUEST)).isEqualTo("600");
            assertThat(f.node().getSpec().getUnschedulable()).isTrue();

            f.clock.advance(Duration.ofMillis(1));
            f.reconcile();
            assertThat(f.status()).isEqualTo(MaintenanceAnnotation.ENDED);
            assertThat(f.annotation(MaintenanceAnnotation.REQUEST))
                    .as("the protocol deletes the request")
                    .isNull();
            assertThat(f.restored()).isTrue();
            assertThat(f.lease().leaseDuration()).isEmpty();
            assertThat(f.lease().acquireTime()).isEqualTo(acquired);
        }
    }

    @Test
    void annotationFirstThenNodeMaintenanceWaitsNamingTheAnnotationHolderAndTakesOverAfterTheEnd() {
        try (AnnotationFixture f = new AnnotationFixture()) {
            f.request("3600");
            f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));

            MaintenanceState waiting =
                    driveNodeMaintenance(f, MaintenanceState.initial(), s -> s.phase() == Phase.Waiting);
            assertThat(waiting.waitingFor()).isEqualTo(US);
            assertThat(waiting.lastError()).contains("held by " + US);
            assertThat(f.lease().holderIdentity()).isEqualTo(US);
            assertThat(f.status()).isEqualTo(MaintenanceAnnotation.ACTIVE);

            f.withdraw();
            f.drive(n -> status(f, MaintenanceAnnotation.ENDED)
                    && f.lease().leaseDuration().isEmpty());
            int transitions = f.lease().leaseTransitions();
            MaintenanceState nm = driveNodeMaintenance(f, waiting, s -> s.phase() == Phase.Succeeded);
            assertThat(nm.holdsNode()).isTrue();
            assertThat(f.lease().holderIdentity()).isEqualTo("tenure");
            assertThat(f.lease().leaseTransitions()).isEqualTo(transitions + 1);
            assertThat(f.node().getSpec().getUnschedulable()).isTrue();
            // The ended annotation door stays out of the way.
            f.reconcile();
            assertThat(f.node().getSpec().getUnschedulable()).isTrue();
            assertThat(f.lease().holderIdentity()).isEqualTo("tenure");
        }
    }

    @Test
    void nodeMaintenanceFirstThenTheAnnotationWaitsAndStartsWhenTheLeaseIsReleased() {
        try (AnnotationFixture f = new AnnotationFixture()) {
            f.cluster
                    .seed()
                    .deployment("web")
                    .namespace("app")
                    .replicas(1)
                    .onNodes(NODE)
                    .create();
            driveNodeMaintenance(f, MaintenanceState.initial(), s -> s.phase() == Phase.Succeeded);
            long evictions = f.evictions();

            f.request("600");
            f.reconcile();
            assertThat(f.status()).isEqualTo(MaintenanceAnnotation.WAITING);
            assertThat(f.lease().holderIdentity()).isEqualTo("tenure");
            assertThat(f.events("LeaseWaiting"))
                    .singleElement()
                    .satisfies(e -> assertThat(e.getMessage()).contains("tenure"));

            // Withdrawn while waiting: the status goes, the NodeMaintenance's node is untouched.
            f.withdraw();
            f.reconcile();
            assertThat(f.status()).isNull();
            assertThat(f.node().getSpec().getUnschedulable()).isTrue();

            f.request("600");
            f.reconcile();
            assertThat(f.status()).isEqualTo(MaintenanceAnnotation.WAITING);
            f.machine.end(NODE, MaintenanceEvents.NONE); // the NodeMaintenance is deleted: lease released
            f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));
            assertThat(f.lease().holderIdentity()).isEqualTo(US);
            assertThat(f.node().getSpec().getUnschedulable()).isTrue();
            assertThat(f.evictions()).isEqualTo(evictions); // nothing left to evict; nothing evicted twice
        }
    }

    @Test
    void aLeaseLostBeforeTheUndoFinishedIsReTakenForThePaddingAndTheNodeRestored() {
        try (AnnotationFixture f = new AnnotationFixture()) {
            f.request("600");
            f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));
            f.cluster.faults().failNext(1, r -> r.is("patch", "nodes", "status"), 500);
            f.withdraw();
            f.reconcile(); // ended reported, undo failed
            assertThat(f.status()).isEqualTo(MaintenanceAnnotation.ENDED);
            assertThat(f.node().getSpec().getUnschedulable()).isTrue();

            f.clock.advance(Duration.ofSeconds(700)); // the lease ran out meanwhile
            Instant reclaimedAt = f.clock.instant();
            f.reconcile();

            assertThat(f.restored()).isTrue();
            LeaseRecord lease = f.lease();
            assertThat(lease.holderIdentity()).isEqualTo(US);
            assertThat(lease.renewTime()).as("re-taken: renewTime now").isEqualTo(reclaimedAt);
            assertThat(lease.leaseDuration()).isEmpty();
            assertThat(f.annotation(MaintenanceAnnotation.STATE)).isNull();
        }
    }

    @Test
    void aLeaseLostToAnotherHolderLeavesTheNodeToThatHolder() {
        try (AnnotationFixture f = new AnnotationFixture()) {
            f.request("600");
            f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));
            f.cluster.faults().failNext(1, r -> r.is("patch", "nodes", "status"), 500);
            f.withdraw();
            f.reconcile();
            f.clock.advance(Duration.ofSeconds(700));
            MaintenanceState nm =
                    driveNodeMaintenance(f, MaintenanceState.initial(), s -> s.phase() == Phase.Succeeded);
            assertThat(nm.holdsNode()).isTrue();

            f.reconcile();

            assertThat(f.status()).isEqualTo(MaintenanceAnnotation.ENDED);
            assertThat(f.annotation(MaintenanceAnnotation.STATE)).isNull();
            assertThat(f.lease().holderIdentity()).isEqualTo("tenure");
            assertThat(f.node().getSpec().getUnschedulable())
                    .as("the NodeMaintenance's cordon is kept")
                    .isTrue();
            assertThat(NodeMarks.conditionOf(f.node())).isPresent();
        }
    }

    // ------------------------------------------------------------------ operator restart in each state

    record Restart(Consumer<AnnotationFixture> reach, Consumer<AnnotationFixture> afterRestart) {}

    static Stream<Arguments> restarts() {
        return Stream.of(
                Arguments.of(
                        "waiting",
                        new Restart(
                                f -> {
                                    Instant now = f.clock.instant();
                                    f.seedLease(leaseOf("node-maintenance-operator", 60, now, now, 3));
                                    f.request("600");
                                    f.reconcile();
                                    assertThat(f.status()).isEqualTo(MaintenanceAnnotation.WAITING);
                                },
                                f -> {
                                    f.reconcile();
                                    assertThat(f.status()).isEqualTo(MaintenanceAnnotation.WAITING);
                                    assertThat(f.cordoned()).isFalse();
                                    f.clock.advance(Duration.ofSeconds(61));
                                    f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));
                                    assertThat(f.lease().leaseTransitions()).isEqualTo(4);
                                })),
                Arguments.of(
                        "new (draining, blocked by a PodDisruptionBudget)",
                        new Restart(
                                f -> {
                                    f.cluster
                                            .seed()
                                            .deployment("web")
                                            .namespace("app")
                                            .replicas(1)
                                            .onNodes(NODE)
                                            .create();
                                    f.cluster
                                            .seed()
                                            .pdb("web")
                                            .namespace("app")
                                            .selector("app", "web")
                                            .minAvailable(1)
                                            .create();
                                    f.request("600");
                                    f.drive(n -> f.evictions() > 0);
                                    assertThat(f.status()).isEqualTo(MaintenanceAnnotation.NEW_CREATE);
                                },
                                f -> {
                                    Instant acquired = f.lease().acquireTime();
                                    f.client
                                            .policy()
                                            .v1()
                                            .podDisruptionBudget()
                                            .inNamespace("app")
                                            .withName("web")
                                            .delete();
                                    f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));
                                    assertThat(f.podsOn(NODE)).isEmpty();
                                    assertThat(f.lease().acquireTime())
                                            .as("same maintenance, not a new one")
                                            .isEqualTo(acquired);
                                    assertThat(f.lease().leaseTransitions()).isEqualTo(1);
                                })),
                Arguments.of(
                        "active",
                        new Restart(
                                f -> {
                                    f.request("600");
                                    f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));
                                },
                                f -> {
                                    String leaseVersion = f.lease().resourceVersion();
                                    f.reconcile();
                                    assertThat(f.status()).isEqualTo(MaintenanceAnnotation.ACTIVE);
                                    assertThat(f.lease().resourceVersion()).isEqualTo(leaseVersion);
                                    f.withdraw();
                                    f.drive(n -> f.restored()
                                            && f.lease().leaseDuration().isEmpty());
                                    assertThat(f.status()).isEqualTo(MaintenanceAnnotation.ENDED);
                                })),
                Arguments.of(
                        "active, and the window passed while the operator was down (ends; not restarted as stale)",
                        new Restart(
                                f -> {
                                    f.request("600");
                                    f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));
                                    f.clock.advance(Duration.ofSeconds(700));
                                },
                                f -> {
                                    Instant acquired = f.lease().acquireTime();
                                    f.drive(n -> f.restored()
                                            && f.lease().leaseDuration().isEmpty());
                                    assertThat(f.status()).isEqualTo(MaintenanceAnnotation.ENDED);
                                    assertThat(f.annotation(MaintenanceAnnotation.REQUEST))
                                            .isNull();
                                    assertThat(f.lease().acquireTime()).isEqualTo(acquired);
                                })),
                Arguments.of(
                        "ended, undo not finished",
                        new Restart(
                                f -> {
                                    f.request("600");
                                    f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));
                                    f.cluster.faults().failNext(1, r -> r.is("patch", "nodes", "status"), 500);
                                    f.withdraw();
                                    f.reconcile();
                                    assertThat(f.status()).isEqualTo(MaintenanceAnnotation.ENDED);
                                    assertThat(f.node().getSpec().getUnschedulable())
                                            .isTrue();
                                },
                                f -> {
                                    f.reconcile();
                                    assertThat(f.restored()).isTrue();
                                    assertThat(f.lease().leaseDuration()).isEmpty();
                                })),
                Arguments.of(
                        "ended, then the request re-created before the undo finished",
                        new Restart(
                                f -> {
                                    f.request("600");
                                    f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));
                                    f.cluster.faults().failNext(1, r -> r.is("patch", "nodes", "status"), 500);
                                    f.withdraw();
                                    f.reconcile();
                                    f.request("600");
                                },
                                f -> {
                                    Instant before = f.lease().acquireTime();
                                    f.clock.advance(Duration.ofSeconds(5));
                                    f.reconcile();
                                    assertThat(f.lease().acquireTime()).isAfter(before);
                                    f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));
                                    assertThat(f.node().getSpec().getUnschedulable())
                                            .isTrue();
                                })),
                Arguments.of(
                        "invalid",
                        new Restart(
                                f -> {
                                    f.request("soon");
                                    f.reconcile();
                                },
                                f -> {
                                    f.reconcile();
                                    assertThat(f.status()).startsWith(MaintenanceAnnotation.INVALID_PREFIX);
                                    assertThat(f.events(MaintenanceAnnotationController.INVALID_EVENT))
                                            .singleElement()
                                            .satisfies(e ->
                                                    assertThat(e.getCount()).isEqualTo(1));
                                    assertThat(f.lease()).isNull();
                                })));
    }

    @ParameterizedTest(name = "restart when {0}")
    @MethodSource("restarts")
    void aNewControllerInstanceContinuesFromTheClusterAlone(String state, Restart c) {
        try (AnnotationFixture f = new AnnotationFixture()) {
            c.reach().accept(f);
            f.restart();
            c.afterRestart().accept(f);
        }
    }

    @Test
    void anInvalidValueOnANodeInMaintenanceKeepsTheMaintenanceAsItIs() {
        try (AnnotationFixture f = new AnnotationFixture()) {
            f.request("600");
            f.drive(n -> status(f, MaintenanceAnnotation.ACTIVE));
            f.annotate(Map.of(MaintenanceAnnotation.REQUEST, "ten minutes"));
            f.reconcile();
            assertThat(f.status()).startsWith(MaintenanceAnnotation.INVALID_PREFIX);
            assertThat(f.node().getSpec().getUnschedulable()).isTrue();
            assertThat(f.lease().leaseDurationSeconds()).isEqualTo(630);
        }
    }
}
