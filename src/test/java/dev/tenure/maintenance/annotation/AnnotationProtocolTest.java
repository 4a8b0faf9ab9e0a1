package dev.tenure.maintenance.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.LeaseRecord;
import dev.tenure.maintenance.annotation.AnnotationProtocol.Observed;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The protocol's decision, pure: one named case per branch and per fix of the reference's defects. */
class AnnotationProtocolTest {

    static final AnnotationSettings S = AnnotationSettings.defaults();
    static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
    static final String US = S.holder();

    static LeaseRecord lease(String holder, Integer duration, long acquiredAgo, long renewedAgo, int transitions) {
        return new LeaseRecord(
                holder,
                duration,
                NOW.minusSeconds(acquiredAgo),
                NOW.minusSeconds(renewedAgo),
                transitions,
                null,
                null,
                List.of(),
                "7");
    }

    static Arguments c(String name, Observed o, Predicate<AnnotationDecision> expected) {
        return Arguments.of(name, o, expected);
    }

    static Predicate<AnnotationDecision> writes(String status, Predicate<LeaseRecord> lease) {
        return d -> d instanceof AnnotationDecision.WriteLease w && w.status().equals(status) && lease.test(w.lease());
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                c(
                        "valid foreign lease: wait until its renewTime + duration",
                        new Observed("600", null, lease("other", 60, 3600, 5, 3), null),
                        d -> d instanceof AnnotationDecision.Wait w
                                && w.holder().equals("other")
                                && w.until().equals(NOW.plusSeconds(55))),
                c(
                        "no lease: create, transitions 1, duration seconds + padding",
                        new Observed("600", null, null, null),
                        d -> d instanceof AnnotationDecision.WriteLease w
                                && w.create()
                                && w.status().equals("new, create")
                                && w.lease().leaseTransitions() == 1
                                && w.lease().leaseDurationSeconds() == 630
                                && w.lease().acquireTime().equals(NOW)
                                && w.lease().isHeldBy(US)),
                c(
                        "expired foreign lease: take over, transitions + 1",
                        new Observed("600", null, lease("other", 60, 300, 120, 3), null),
                        writes(
                                "new, acquired",
                                l -> l.isHeldBy(US)
                                        && l.leaseTransitions() == 4
                                        && l.acquireTime().equals(NOW))),
                c(
                        "released foreign lease (no holder): take over",
                        new Observed("600", null, lease("", 1, 10, 10, 3), null),
                        writes("new, acquired", l -> l.isHeldBy(US) && l.leaseTransitions() == 4)),
                c(
                        "our lease, duration unset: new, transitions + 1",
                        new Observed("600", "ended", lease(US, null, 3600, 3600, 2), null),
                        writes(
                                "new",
                                l -> l.leaseTransitions() == 3
                                        && l.acquireTime().equals(NOW)
                                        && l.leaseDurationSeconds() == 630)),
                c(
                        "status ended with the request present: recreate, even with another interval (before 'updated')",
                        new Observed("600", "ended", lease(US, 330, 100, 100, 1), NOW.minusSeconds(100)),
                        writes("new, recreate", l -> l.acquireTime().equals(NOW) && l.leaseDurationSeconds() == 630)),
                c(
                        "status ended with the request present: recreate, even past the window (before 'stale')",
                        new Observed("600", "ended", lease(US, 630, 700, 700, 1), NOW.minusSeconds(700)),
                        writes("new, recreate", l -> l.acquireTime().equals(NOW))),
                c(
                        "interval changed: duration, renewTime now; acquireTime kept",
                        new Observed("600", "active", lease(US, 330, 100, 100, 1), NOW.minusSeconds(100)),
                        writes(
                                "updated",
                                l -> l.leaseDurationSeconds() == 630
                                        && l.renewTime().equals(NOW)
                                        && l.acquireTime().equals(NOW.minusSeconds(100)))),
                c(
                        "past the window, not the one we ran: new, stale",
                        new Observed("600", "active", lease(US, 630, 700, 700, 1), null),
                        writes("new, stale", l -> l.acquireTime().equals(NOW) && l.leaseTransitions() == 1)),
                c(
                        "past the window we ran (operator was down): end, not restart",
                        new Observed("600", "active", lease(US, 630, 700, 700, 1), NOW.minusSeconds(700)),
                        d -> d instanceof AnnotationDecision.End e && e.removeRequest()),
                c(
                        "now + padding == acquireTime + duration: still maintaining",
                        new Observed("600", "active", lease(US, 630, 600, 600, 1), NOW.minusSeconds(600)),
                        d -> d instanceof AnnotationDecision.Maintain m
                                && m.endsAt().equals(NOW)),
                c(
                        "now + padding one second past acquireTime + duration: end, deleting the request",
                        new Observed("600", "active", lease(US, 630, 601, 601, 1), NOW.minusSeconds(601)),
                        d -> d instanceof AnnotationDecision.End e
                                && e.removeRequest()
                                && e.leaseEnd().equals(NOW.plusSeconds(29))),
                c(
                        "malformed value: refuse",
                        new Observed("ten", null, null, null),
                        d -> d instanceof AnnotationDecision.Refuse r && r.why().contains("not a whole number")),
                c(
                        "request removed, our lease valid: end (no request to delete)",
                        new Observed(null, "active", lease(US, 630, 100, 100, 1), NOW.minusSeconds(100)),
                        d -> d instanceof AnnotationDecision.End e
                                && !e.removeRequest()
                                && e.leaseEnd().equals(NOW.plusSeconds(530))),
                c(
                        "request removed, our lease ran out before the undo: re-take for the padding",
                        new Observed(null, "ended", lease(US, 630, 700, 700, 1), NOW.minusSeconds(700)),
                        d -> d instanceof AnnotationDecision.Reclaim r
                                && r.lease().leaseDurationSeconds() == 30
                                && r.lease().renewTime().equals(NOW)
                                && r.lease().acquireTime().equals(NOW.minusSeconds(700))
                                && "7".equals(r.lease().resourceVersion())),
                c(
                        "request removed, another holder took the lease: settle as ended, node left to it",
                        new Observed(null, "active", lease("tenure", 60, 10, 10, 2), NOW.minusSeconds(700)),
                        d -> d instanceof AnnotationDecision.Settle s && "ended".equals(s.status())),
                c(
                        "request removed while waiting: the status goes",
                        new Observed(null, "waiting", lease("tenure", 60, 10, 10, 2), null),
                        d -> d instanceof AnnotationDecision.Settle s && s.status() == null),
                c(
                        "nothing requested, our ended lease: nothing to do",
                        new Observed(null, "ended", lease(US, null, 10, 10, 2), null),
                        d -> d instanceof AnnotationDecision.Settle s && "ended".equals(s.status())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void decides(String name, Observed observed, Predicate<AnnotationDecision> expected) {
        AnnotationDecision d = AnnotationProtocol.decide(observed, NOW, S);
        assertThat(expected.test(d)).as("%s: got %s", name, d).isTrue();
    }

    static Stream<Arguments> values() {
        return Stream.of(
                Arguments.of("3600", "seconds 3600"),
                Arguments.of("007", "seconds 7"),
                Arguments.of("2592000", "seconds 2592000"),
                Arguments.of("2592001", "too long"),
                Arguments.of("99999999999999999999", "too long"),
                Arguments.of("0", "is 0"),
                Arguments.of("-1", "negative"),
                Arguments.of("+5", "not a whole number"),
                Arguments.of(" 60", "not a whole number"),
                Arguments.of("1e3", "not a whole number"),
                Arguments.of("", "empty"));
    }

    @ParameterizedTest(name = "\"{0}\" → {1}")
    @MethodSource("values")
    void parsesTheRequest(String raw, String expected) {
        MaintenanceAnnotation.Request r = MaintenanceAnnotation.parse(raw, Duration.ofDays(30));
        if (expected.startsWith("seconds ")) {
            assertThat(r).isEqualTo(new MaintenanceAnnotation.Request.Seconds(Long.parseLong(expected.substring(8))));
        } else {
            assertThat(r)
                    .isInstanceOfSatisfying(
                            MaintenanceAnnotation.Request.Invalid.class,
                            i -> assertThat(i.why()).contains(expected));
        }
    }

    @ParameterizedTest(name = "settings refuse {0}")
    @MethodSource("badSettings")
    void settingsAreCheckedWhenBuilt(String field, Runnable build) {
        org.assertj.core.api.Assertions.assertThatThrownBy(build::run)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(field);
    }

    static Stream<Arguments> badSettings() {
        return Stream.of(
                Arguments.of("holder", (Runnable)
                        () -> new AnnotationSettings(" ", Duration.ofSeconds(30), Duration.ofDays(1), "ns", "node-")),
                Arguments.of("lease-padding", (Runnable)
                        () -> new AnnotationSettings("h", Duration.ZERO, Duration.ofDays(1), "ns", "node-")),
                Arguments.of("lease-padding", (Runnable)
                        () -> new AnnotationSettings("h", Duration.ofMillis(1500), Duration.ofDays(1), "ns", "node-")),
                Arguments.of("max-duration", (Runnable)
                        () -> new AnnotationSettings("h", Duration.ofSeconds(30), Duration.ZERO, "ns", "node-")),
                // one limit per concept: the annotation door may not allow longer than spec.window's 720h
                Arguments.of("max-duration", (Runnable) () ->
                        new AnnotationSettings("h", Duration.ofSeconds(30), Duration.ofHours(721), "ns", "node-")));
    }

    /** request, status, state record present → whether the annotation door holds the node (counts for the limits). */
    static Stream<Arguments> holds() {
        return Stream.of(
                Arguments.of(null, null, false, false),
                Arguments.of("600", null, false, false),
                Arguments.of("600", "waiting", false, false),
                Arguments.of("6x", "invalid: not a number", false, false),
                Arguments.of("600", "new, create", false, true),
                Arguments.of("600", "new, acquired", false, true),
                Arguments.of("600", "new, stale", false, true),
                Arguments.of("600", "updated", false, true),
                Arguments.of("600", "active", false, true),
                Arguments.of("600", "ended", false, false),
                Arguments.of(null, "active", false, false),
                Arguments.of(null, "ended", true, true)); // request removed, undo still in progress
    }

    @ParameterizedTest(name = "request {0}, status {1}, state {2} → holds {3}")
    @MethodSource("holds")
    void whetherTheDoorHoldsTheNode(String request, String status, boolean state, boolean holds) {
        java.util.Map<String, String> a = new java.util.HashMap<>();
        if (request != null) {
            a.put(MaintenanceAnnotation.REQUEST, request);
        }
        if (status != null) {
            a.put(MaintenanceAnnotation.STATUS, status);
        }
        if (state) {
            a.put(MaintenanceAnnotation.STATE, "{}");
        }
        assertThat(MaintenanceAnnotation.holdsNode(a)).isEqualTo(holds);
    }
}
