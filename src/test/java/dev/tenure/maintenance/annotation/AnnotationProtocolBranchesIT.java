package dev.tenure.maintenance.annotation;

import static dev.tenure.maintenance.annotation.AnnotationFixture.SETTINGS;
import static dev.tenure.maintenance.annotation.AnnotationFixture.leaseOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.LeaseRecord;
import dev.tenure.kube.UserText;
import dev.tenure.testsupport.EndToEnd;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One case per branch of the protocol while the request annotation is present: given a lease and the
 * Node's annotations at fake time t0, one reconcile against the emulated cluster must report the branch's
 * status and leave the lease exactly as the protocol says. A PodDisruptionBudget keeps the drain from
 * finishing, so the status stays at the transition (active has its own tests).
 */
@EndToEnd
class AnnotationProtocolBranchesIT {

    static final String OTHER = "node-maintenance-operator";
    static final String US = SETTINGS.holder();

    record Case(
            BiConsumer<AnnotationFixture, Instant> given,
            String status,
            boolean entersMaintenance,
            BiConsumer<LeaseRecord, Instant> lease) {}

    static Stream<Arguments> branches() {
        return Stream.of(
                Arguments.of(
                        "waiting: a valid lease of another holder is left alone",
                        new Case(
                                (f, t0) -> f.seedLease(leaseOf(OTHER, 60, t0.minusSeconds(5), t0.minusSeconds(5), 3)),
                                MaintenanceAnnotation.WAITING,
                                false,
                                (l, t0) -> {
                                    assertThat(l.holderIdentity()).isEqualTo(OTHER);
                                    assertThat(l.leaseTransitions()).isEqualTo(3);
                                    assertThat(l.renewTime()).isEqualTo(t0.minusSeconds(5));
                                })),
                Arguments.of(
                        "waiting: acquired long ago but renewed lately is still valid (review: no take-over "
                                + "of a valid lease on a holder mismatch)",
                        new Case(
                                (f, t0) ->
                                        f.seedLease(leaseOf(OTHER, 60, t0.minusSeconds(3600), t0.minusSeconds(5), 3)),
                                MaintenanceAnnotation.WAITING,
                                false,
                                (l, t0) -> {
                                    assertThat(l.holderIdentity()).isEqualTo(OTHER);
                                    assertThat(l.acquireTime()).isEqualTo(t0.minusSeconds(3600));
                                })),
                Arguments.of(
                        "new, create: no lease",
                        new Case((f, t0) -> {}, MaintenanceAnnotation.NEW_CREATE, true, (l, t0) -> {
                            assertThat(l.holderIdentity()).isEqualTo(US);
                            assertThat(l.leaseDurationSeconds()).isEqualTo(600 + 30);
                            assertThat(l.acquireTime()).isEqualTo(t0);
                            assertThat(l.renewTime()).isEqualTo(t0);
                            assertThat(l.leaseTransitions()).isEqualTo(1);
                        })),
                Arguments.of(
                        "new, acquired: an expired lease of another holder is taken over",
                        new Case(
                                (f, t0) ->
                                        f.seedLease(leaseOf(OTHER, 60, t0.minusSeconds(300), t0.minusSeconds(120), 3)),
                                MaintenanceAnnotation.NEW_ACQUIRED,
                                true,
                                (l, t0) -> {
                                    assertThat(l.holderIdentity()).isEqualTo(US);
                                    assertThat(l.leaseTransitions()).isEqualTo(4);
                                    assertThat(l.acquireTime()).isEqualTo(t0);
                                    assertThat(l.renewTime()).isEqualTo(t0);
                                    assertThat(l.leaseDurationSeconds()).isEqualTo(630);
                                })),
                Arguments.of(
                        "new: our lease's duration was unset at the end of the last maintenance",
                        new Case(
                                (f, t0) ->
                                        f.seedLease(leaseOf(US, null, t0.minusSeconds(3600), t0.minusSeconds(3000), 2)),
                                MaintenanceAnnotation.NEW,
                                true,
                                (l, t0) -> {
                                    assertThat(l.leaseTransitions()).isEqualTo(3);
                                    assertThat(l.acquireTime()).isEqualTo(t0);
                                    assertThat(l.leaseDurationSeconds()).isEqualTo(630);
                                })),
                Arguments.of(
                        "new, recreate: re-created after ended, before the duration was unset (review: "
                                + "reachable, and before 'updated'/'stale')",
                        new Case(
                                (f, t0) -> {
                                    f.seedLease(leaseOf(US, 330, t0.minusSeconds(100), t0.minusSeconds(100), 1));
                                    f.annotate(Map.of(MaintenanceAnnotation.STATUS, MaintenanceAnnotation.ENDED));
                                },
                                MaintenanceAnnotation.NEW_RECREATE,
                                true,
                                (l, t0) -> {
                                    assertThat(l.acquireTime()).isEqualTo(t0);
                                    assertThat(l.renewTime()).isEqualTo(t0);
                                    assertThat(l.leaseDurationSeconds()).isEqualTo(630);
                                    assertThat(l.leaseTransitions()).isEqualTo(1);
                                })),
                Arguments.of(
                        "updated: the interval changed; the window still counts from acquireTime",
                        new Case(
                                (f, t0) -> {
                                    f.seedLease(leaseOf(US, 330, t0.minusSeconds(100), t0.minusSeconds(100), 1));
                                    f.annotate(Map.of(MaintenanceAnnotation.STATUS, MaintenanceAnnotation.NEW_CREATE));
                                },
                                MaintenanceAnnotation.UPDATED,
                                true,
                                (l, t0) -> {
                                    assertThat(l.leaseDurationSeconds()).isEqualTo(630);
                                    assertThat(l.acquireTime()).isEqualTo(t0.minusSeconds(100));
                                    assertThat(l.renewTime()).isEqualTo(t0);
                                    assertThat(l.leaseTransitions()).isEqualTo(1);
                                })),
                Arguments.of(
                        "new, stale: our lease records an earlier window this controller did not run",
                        new Case(
                                (f, t0) -> {
                                    f.seedLease(leaseOf(US, 630, t0.minusSeconds(700), t0.minusSeconds(700), 1));
                                    f.annotate(Map.of(MaintenanceAnnotation.STATUS, MaintenanceAnnotation.ACTIVE));
                                },
                                MaintenanceAnnotation.NEW_STALE,
                                true,
                                (l, t0) -> {
                                    assertThat(l.acquireTime()).isEqualTo(t0);
                                    assertThat(l.renewTime()).isEqualTo(t0);
                                    assertThat(l.leaseDurationSeconds()).isEqualTo(630);
                                    assertThat(l.leaseTransitions()).isEqualTo(1);
                                })));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("branches")
    void oneReconcileTakesTheBranch(String name, Case c) {
        try (AnnotationFixture f = new AnnotationFixture()) {
            f.cluster
                    .seed()
                    .deployment("web")
                    .namespace("app")
                    .replicas(1)
                    .onNodes(AnnotationFixture.NODE)
                    .create();
            f.cluster
                    .seed()
                    .pdb("web")
                    .namespace("app")
                    .selector("app", "web")
                    .minAvailable(1)
                    .create();
            Instant t0 = f.clock.instant();
            c.given().accept(f, t0);
            f.request("600");

            f.reconcile();

            assertThat(f.status()).isEqualTo(c.status());
            c.lease().accept(f.lease(), t0);
            assertThat(f.annotation(MaintenanceAnnotation.REQUEST)).isEqualTo("600");
            if (c.entersMaintenance()) {
                assertThat(f.lease().owners())
                        .singleElement()
                        .satisfies(o -> assertThat(o.uid())
                                .isEqualTo(f.node().getMetadata().getUid()));
                assertThat(f.cordoned())
                        .as("cordoned by the maintenance machine")
                        .isTrue();
                assertThat(f.node().getSpec().getUnschedulable()).isTrue();
                assertThat(f.listedPodsByNode()).isTrue();
            } else {
                assertThat(f.cordoned()).isFalse();
                assertThat(f.evictions()).isZero();
                assertThat(f.eventReasons()).contains("LeaseWaiting");
            }
            // Idempotent: a second reconcile at the same time changes nothing (the lease is not written again).
            LeaseRecord before = f.lease();
            f.reconcile();
            assertThat(f.lease().resourceVersion()).isEqualTo(before.resourceVersion());
            assertThat(f.status()).isEqualTo(c.status());
        }
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("abc", "not a whole number of seconds"),
                Arguments.of("1.5", "not a whole number of seconds"),
                Arguments.of("10m", "not a whole number of seconds"),
                // issue 50 item 5: user text reaches terminals escaped, not as an escape sequence or a NUL
                Arguments.of("6\u001b[31m0\u0000", "not a whole number of seconds: \"6\\u001b[31m0\\u0000\""),
                Arguments.of("", "is empty"),
                Arguments.of("-60", "is negative"),
                Arguments.of("0", "is 0"),
                Arguments.of(String.valueOf(Duration.ofDays(30).toSeconds() + 1), "is too long"),
                Arguments.of("99999999999999999999999", "is too long"));
    }

    @ParameterizedTest(name = "invalid: \"{0}\"")
    @MethodSource("malformed")
    void malformedRequestsAreReportedAndChangeNothing(String value, String why) {
        try (AnnotationFixture f = new AnnotationFixture()) {
            f.cluster
                    .seed()
                    .deployment("web")
                    .namespace("app")
                    .replicas(1)
                    .onNodes(AnnotationFixture.NODE)
                    .create();
            f.request(value);

            f.reconcile();

            assertThat(f.status())
                    .startsWith(MaintenanceAnnotation.INVALID_PREFIX)
                    .contains(why);
            assertThat(f.events(MaintenanceAnnotationController.INVALID_EVENT))
                    .singleElement()
                    .satisfies(e -> {
                        assertThat(e.getType()).isEqualTo("Warning");
                        assertThat(e.getMessage()).contains(why);
                        assertThat(e.getMessage().chars().filter(UserText::isControl))
                                .as("control characters in the event")
                                .isEmpty();
                    });
            assertThat(f.status().chars().filter(UserText::isControl))
                    .as("control characters in the status annotation")
                    .isEmpty();
            assertThat(f.lease()).isNull();
            assertThat(f.cordoned()).isFalse();
            assertThat(f.evictions()).isZero();

            f.request("600"); // fixed: maintenance starts
            f.reconcile();
            assertThat(f.status()).isEqualTo(MaintenanceAnnotation.NEW_CREATE);
        }
    }
}
