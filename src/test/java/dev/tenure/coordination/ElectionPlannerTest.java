package dev.tenure.coordination;

import static dev.tenure.coordination.CandidateFixture.NOW;
import static dev.tenure.coordination.CandidateFixture.ago;
import static dev.tenure.coordination.CandidateFixture.cand;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.coordination.ElectionStep.FailureReason;
import dev.tenure.coordination.ElectionStep.Outcome;
import dev.tenure.election.CandidateRecord;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upstream leaderelection_controller_test.go TestReconcileElectionStep, one row per upstream case (same names,
 * single {@code strategy} instead of v1alpha1's preferredStrategies), then Tenure's own rows.
 */
class ElectionPlannerTest {

    private static final String OEV = OldestEmulationVersion.NAME;
    private static final String MA = MaintenanceAware.NAME;
    private static final Duration WINDOW = ElectionTiming.UPSTREAM.electionWindow();
    private static final LeaseKey KEY = new LeaseKey("default", "component-A");

    private static final ElectionPlanner UPSTREAM_MODE = new ElectionPlanner(ElectionTiming.UPSTREAM, true);
    private static final ElectionPlanner DEFAULT_MODE = new ElectionPlanner(ElectionTiming.UPSTREAM, false);

    /** Expected result of one step: the Lease after it (null = absent), pings, requeue, failure. */
    record Expect(
            Outcome outcome,
            String holder,
            String preferredHolder,
            String strategy,
            List<String> pinged,
            boolean requeue,
            FailureReason failure) {

        static Expect of(Outcome outcome) {
            return new Expect(outcome, null, null, null, List.of(), true, null);
        }

        Expect holder(String h) {
            return new Expect(outcome, h, preferredHolder, strategy, pinged, requeue, failure);
        }

        Expect preferred(String p) {
            return new Expect(outcome, holder, p, strategy, pinged, requeue, failure);
        }

        Expect strategy(String s) {
            return new Expect(outcome, holder, preferredHolder, s, pinged, requeue, failure);
        }

        Expect pinged(String... names) {
            return new Expect(outcome, holder, preferredHolder, strategy, List.of(names), requeue, failure);
        }

        Expect noRequeue() {
            return new Expect(outcome, holder, preferredHolder, strategy, pinged, false, failure);
        }

        Expect failure(FailureReason f) {
            return new Expect(outcome, holder, preferredHolder, strategy, pinged, requeue, f);
        }
    }

    static LeaseRecord lease(String holder, int durationSeconds, Instant renew, String strategy, String preferred) {
        return new LeaseRecord(holder, durationSeconds, null, renew, 0, strategy, preferred, List.of(), "7");
    }

    static Stream<Arguments> upstreamReconcileElectionStep() {
        return Stream.of(
                Arguments.of(
                        "no candidates, no lease, noop",
                        List.of(),
                        null,
                        Expect.of(Outcome.NOT_MANAGED).noRequeue()),
                Arguments.of(
                        "no candidates, lease exists. noop, not managed by CLE",
                        List.of(),
                        lease(null, 0, null, null, null),
                        Expect.of(Outcome.NOT_MANAGED).noRequeue()),
                Arguments.of(
                        "candidates exist, no existing lease should create lease",
                        List.of(cand("component-identity-1")
                                .versions("1.19.0", "1.19.0")
                                .renewed(NOW)),
                        null,
                        Expect.of(Outcome.CREATE_LEASE)
                                .holder("component-identity-1")
                                .strategy(OEV)),
                Arguments.of(
                        "candidates exist, lease exists, unoptimal should set preferredHolder",
                        List.of(
                                cand("component-identity-1")
                                        .versions("1.19.0", "1.19.0")
                                        .renewed(NOW),
                                cand("component-identity-2")
                                        .versions("1.18.0", "1.18.0")
                                        .renewed(NOW)),
                        lease("component-identity-1", 10, NOW, null, null),
                        Expect.of(Outcome.SET_PREFERRED_HOLDER)
                                .holder("component-identity-1")
                                .preferred("component-identity-2")
                                .strategy(OEV)),
                Arguments.of(
                        "candidates exist, should only elect leader from acked candidates",
                        List.of(
                                cand("component-identity-1")
                                        .versions("1.19.0", "1.19.0")
                                        .pinged(ago(WINDOW.multipliedBy(2)))
                                        .renewed(ago(WINDOW.multipliedBy(4))),
                                cand("component-identity-2")
                                        .versions("1.20.0", "1.20.0")
                                        .pinged(NOW)
                                        .renewed(NOW)),
                        null,
                        Expect.of(Outcome.CREATE_LEASE)
                                .holder("component-identity-2")
                                .strategy(OEV)),
                Arguments.of(
                        "candidates exist, lease exists, lease expired",
                        List.of(cand("component-identity-1")
                                .versions("1.19.0", "1.19.0")
                                .renewed(NOW)),
                        lease("component-identity-expired", 10, ago(Duration.ofMinutes(1)), null, null),
                        Expect.of(Outcome.SET_HOLDER)
                                .holder("component-identity-1")
                                .strategy(OEV)),
                // upstream returns an error and never looks again (expectedRequeue false); Tenure retries (PR 138066)
                Arguments.of(
                        "candidates exist, no acked candidates should return error",
                        List.of(cand("component-identity-1")
                                .versions("1.19.0", "1.19.0")
                                .pinged(ago(Duration.ofMinutes(1)))
                                .renewed(ago(Duration.ofMinutes(2)))),
                        null,
                        Expect.of(Outcome.FAILED).failure(FailureReason.NO_ACKED_CANDIDATES)),
                Arguments.of(
                        "candidates exist, should ping on election",
                        List.of(cand("component-identity-1")
                                .versions("1.19.0", "1.19.0")
                                .renewed(ago(WINDOW.multipliedBy(2)))),
                        null,
                        Expect.of(Outcome.PING).pinged("component-identity-1")),
                Arguments.of(
                        "candidate exist, pinged candidate should have until electionDuration until election"
                                + " decision is made",
                        List.of(cand("component-identity-1")
                                .versions("1.19.0", "1.19.0")
                                .pinged(NOW)
                                .renewed(ago(Duration.ofMinutes(1)))),
                        null,
                        Expect.of(Outcome.AWAIT_ACKS)),
                Arguments.of(
                        "candidates exist, lease exists, lease expired, 3rdparty strategy",
                        List.of(cand("component-identity-1")
                                .versions("1.19.0", "1.19.0")
                                .renewed(NOW)
                                .strategy("foo.com/bar")),
                        lease("component-identity-expired", 10, ago(Duration.ofMinutes(1)), null, null),
                        Expect.of(Outcome.SET_STRATEGY)
                                .holder("component-identity-expired")
                                .strategy("foo.com/bar")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void upstreamReconcileElectionStep(
            String name, List<CandidateFixture> candidates, LeaseRecord lease, Expect expect) {
        check(UPSTREAM_MODE, candidates, lease, Set.of(), expect);
    }

    static Stream<Arguments> tenureElectionStep() {
        LeaseRecord heldByBest = lease("c1", 5, NOW, OEV, null);
        return Stream.of(
                // issue 38 item 8: a tie on both versions is no reason to move a valid holder (each row failed
                // before: the older LeaseCandidate won the creation-time tie-break and got preferredHolder)
                Arguments.of(
                        "a candidate tied with the valid holder on both versions but created earlier does not take"
                                + " over (OldestEmulationVersion)",
                        UPSTREAM_MODE,
                        List.of(
                                cand("holder")
                                        .versions("1.19.0", "1.20.0")
                                        .created(NOW.minus(Duration.ofMinutes(5)))
                                        .renewed(NOW),
                                cand("older")
                                        .versions("1.19.0", "1.20.0")
                                        .created(NOW.minus(Duration.ofDays(3)))
                                        .renewed(NOW)),
                        lease("holder", 10, NOW, OEV, null),
                        Set.of(),
                        Expect.of(Outcome.NO_CHANGE).holder("holder").strategy(OEV)),
                Arguments.of(
                        "... nor under MaintenanceAware, both nodes available",
                        DEFAULT_MODE,
                        List.of(
                                cand("holder")
                                        .versions("1.19.0", "1.20.0")
                                        .strategy(MA)
                                        .created(NOW.minus(Duration.ofMinutes(5)))
                                        .renewed(NOW),
                                cand("older")
                                        .versions("1.19.0", "1.20.0")
                                        .strategy(MA)
                                        .created(NOW.minus(Duration.ofDays(3)))
                                        .renewed(NOW)),
                        lease("holder", 10, NOW, MA, null),
                        Set.of(),
                        Expect.of(Outcome.NO_CHANGE).holder("holder").strategy(MA)),
                Arguments.of(
                        "... and a preferredHolder left by such a tie is withdrawn (MaintenanceAware)",
                        DEFAULT_MODE,
                        List.of(
                                cand("holder")
                                        .versions("1.19.0", "1.20.0")
                                        .strategy(MA)
                                        .created(NOW.minus(Duration.ofMinutes(5)))
                                        .renewed(NOW),
                                cand("older")
                                        .versions("1.19.0", "1.20.0")
                                        .strategy(MA)
                                        .created(NOW.minus(Duration.ofDays(3)))
                                        .renewed(NOW)),
                        lease("holder", 10, NOW, MA, "older"),
                        Set.of(),
                        Expect.of(Outcome.CLEAR_PREFERRED_HOLDER)
                                .holder("holder")
                                .strategy(MA)),
                Arguments.of(
                        "a tied candidate still takes over from a holder whose node became unavailable",
                        DEFAULT_MODE,
                        List.of(
                                cand("holder")
                                        .versions("1.19.0", "1.20.0")
                                        .strategy(MA)
                                        .created(NOW.minus(Duration.ofMinutes(5)))
                                        .renewed(NOW),
                                cand("older")
                                        .versions("1.19.0", "1.20.0")
                                        .strategy(MA)
                                        .created(NOW.minus(Duration.ofDays(3)))
                                        .renewed(NOW)),
                        lease("holder", 10, NOW, MA, null),
                        Set.of("holder"),
                        Expect.of(Outcome.SET_PREFERRED_HOLDER)
                                .holder("holder")
                                .preferred("older")
                                .strategy(MA)),
                Arguments.of(
                        "a candidate with an older binary version (same emulation version) still takes over",
                        UPSTREAM_MODE,
                        List.of(
                                cand("holder")
                                        .versions("1.19.0", "1.20.0")
                                        .created(NOW.minus(Duration.ofDays(3)))
                                        .renewed(NOW),
                                cand("better")
                                        .versions("1.19.0", "1.19.5")
                                        .created(NOW.minus(Duration.ofMinutes(5)))
                                        .renewed(NOW)),
                        lease("holder", 10, NOW, OEV, null),
                        Set.of(),
                        Expect.of(Outcome.SET_PREFERRED_HOLDER)
                                .holder("holder")
                                .preferred("better")
                                .strategy(OEV)),
                Arguments.of(
                        "with the lease expired the tie-break holds again: the older candidate gets it",
                        UPSTREAM_MODE,
                        List.of(
                                cand("holder")
                                        .versions("1.19.0", "1.20.0")
                                        .created(NOW.minus(Duration.ofMinutes(5)))
                                        .renewed(NOW),
                                cand("older")
                                        .versions("1.19.0", "1.20.0")
                                        .created(NOW.minus(Duration.ofDays(3)))
                                        .renewed(NOW)),
                        lease("holder", 10, ago(Duration.ofMinutes(1)), OEV, null),
                        Set.of(),
                        Expect.of(Outcome.SET_HOLDER).holder("older").strategy(OEV)),
                Arguments.of(
                        "upstream strategy off: OldestEmulationVersion is left to the API server",
                        DEFAULT_MODE,
                        List.of(cand("c1").versions("1.19.0", "1.19.0").renewed(NOW)),
                        null,
                        Set.of(),
                        Expect.of(Outcome.NOT_MANAGED).noRequeue()),
                Arguments.of(
                        "upstream strategy off: third-party strategy is left alone",
                        DEFAULT_MODE,
                        List.of(cand("c1")
                                .versions("1.19.0", "1.19.0")
                                .renewed(NOW)
                                .strategy("foo.com/bar")),
                        null,
                        Set.of(),
                        Expect.of(Outcome.NOT_MANAGED).noRequeue()),
                Arguments.of(
                        "MaintenanceAware is always on: creates the lease for the oldest emulation version",
                        DEFAULT_MODE,
                        List.of(
                                cand("c1")
                                        .versions("1.20.0", "1.20.0")
                                        .renewed(NOW)
                                        .strategy(MA),
                                cand("c2")
                                        .versions("1.19.0", "1.20.0")
                                        .renewed(NOW)
                                        .strategy(MA)),
                        null,
                        Set.of(),
                        Expect.of(Outcome.CREATE_LEASE).holder("c2").strategy(MA)),
                Arguments.of(
                        "MaintenanceAware skips a candidate on an unavailable node",
                        DEFAULT_MODE,
                        List.of(
                                cand("c1")
                                        .versions("1.19.0", "1.19.0")
                                        .renewed(NOW)
                                        .strategy(MA),
                                cand("c2")
                                        .versions("1.20.0", "1.20.0")
                                        .renewed(NOW)
                                        .strategy(MA)),
                        null,
                        Set.of("c1"),
                        Expect.of(Outcome.CREATE_LEASE).holder("c2").strategy(MA)),
                Arguments.of(
                        "MaintenanceAware moves a valid lease off an unavailable node via preferredHolder",
                        DEFAULT_MODE,
                        List.of(
                                cand("c1")
                                        .versions("1.19.0", "1.19.0")
                                        .renewed(NOW)
                                        .strategy(MA),
                                cand("c2")
                                        .versions("1.20.0", "1.20.0")
                                        .renewed(NOW)
                                        .strategy(MA)),
                        lease("c1", 5, NOW, MA, null),
                        Set.of("c1"),
                        Expect.of(Outcome.SET_PREFERRED_HOLDER)
                                .holder("c1")
                                .preferred("c2")
                                .strategy(MA)),
                Arguments.of(
                        "MaintenanceAware with every candidate unavailable still elects (a leader beats none)",
                        DEFAULT_MODE,
                        List.of(cand("c1")
                                .versions("1.19.0", "1.19.0")
                                .renewed(NOW)
                                .strategy(MA)),
                        lease(null, 5, ago(Duration.ofMinutes(1)), MA, null),
                        Set.of("c1"),
                        Expect.of(Outcome.SET_HOLDER).holder("c1").strategy(MA)),
                Arguments.of(
                        "MaintenanceAware keeps an unavailable holder when nobody else can lead",
                        DEFAULT_MODE,
                        List.of(cand("c1")
                                .versions("1.19.0", "1.19.0")
                                .renewed(NOW)
                                .strategy(MA)),
                        lease("c1", 5, NOW, MA, null),
                        Set.of("c1"),
                        Expect.of(Outcome.NO_CHANGE).holder("c1").strategy(MA)),
                Arguments.of(
                        "MaintenanceAware: a lease released for its preferredHolder goes to it, even when the"
                                + " node cache has not seen the cordon of the better candidate's node yet",
                        DEFAULT_MODE,
                        List.of(
                                cand("c1")
                                        .versions("1.19.0", "1.19.0")
                                        .renewed(NOW)
                                        .strategy(MA),
                                cand("c2")
                                        .versions("1.20.0", "1.20.0")
                                        .renewed(NOW)
                                        .strategy(MA)),
                        lease(null, 1, NOW, MA, "c2"),
                        Set.of(),
                        Expect.of(Outcome.SET_HOLDER).holder("c2").strategy(MA)),
                Arguments.of(
                        "MaintenanceAware: ...but not when the preferredHolder's own node is unavailable now",
                        DEFAULT_MODE,
                        List.of(
                                cand("c1")
                                        .versions("1.19.0", "1.19.0")
                                        .renewed(NOW)
                                        .strategy(MA),
                                cand("c2")
                                        .versions("1.20.0", "1.20.0")
                                        .renewed(NOW)
                                        .strategy(MA)),
                        lease(null, 1, NOW, MA, "c2"),
                        Set.of("c2"),
                        Expect.of(Outcome.SET_HOLDER).holder("c1").strategy(MA)),
                Arguments.of(
                        "OldestEmulationVersion re-ranks a released lease like upstream, preferredHolder or not",
                        UPSTREAM_MODE,
                        List.of(
                                cand("c1").versions("1.19.0", "1.19.0").renewed(NOW),
                                cand("c2").versions("1.20.0", "1.20.0").renewed(NOW)),
                        lease(null, 1, NOW, OEV, "c2"),
                        Set.of(),
                        Expect.of(Outcome.SET_HOLDER).holder("c1").strategy(OEV)),
                Arguments.of(
                        "138066: preferredHolder names a deleted candidate -> cleared before anything else",
                        UPSTREAM_MODE,
                        List.of(cand("c1").versions("1.19.0", "1.19.0").renewed(NOW)),
                        lease("c1", 5, NOW, OEV, "c-deleted"),
                        Set.of(),
                        Expect.of(Outcome.CLEAR_PREFERRED_HOLDER).holder("c1").strategy(OEV)),
                Arguments.of(
                        "138066: stale preferredHolder is cleared even when no candidate acks",
                        UPSTREAM_MODE,
                        List.of(cand("c1")
                                .versions("1.19.0", "1.19.0")
                                .pinged(ago(Duration.ofMinutes(1)))
                                .renewed(ago(Duration.ofMinutes(2)))),
                        lease("c1", 5, ago(Duration.ofMinutes(1)), OEV, "c-deleted"),
                        Set.of(),
                        Expect.of(Outcome.CLEAR_PREFERRED_HOLDER).holder("c1").strategy(OEV)),
                Arguments.of(
                        "138066: preferredHolder names an expired candidate -> cleared",
                        UPSTREAM_MODE,
                        List.of(
                                cand("c1").versions("1.19.0", "1.19.0").renewed(NOW),
                                cand("c0").versions("1.18.0", "1.18.0").renewed(ago(Duration.ofMinutes(31)))),
                        lease("c1", 5, NOW, OEV, "c0"),
                        Set.of(),
                        Expect.of(Outcome.CLEAR_PREFERRED_HOLDER).holder("c1").strategy(OEV)),
                Arguments.of(
                        "MaintenanceAware: holder's node is back, left-over preferredHolder withdrawn",
                        DEFAULT_MODE,
                        List.of(
                                cand("c1")
                                        .versions("1.19.0", "1.19.0")
                                        .renewed(NOW)
                                        .strategy(MA),
                                cand("c2")
                                        .versions("1.20.0", "1.20.0")
                                        .renewed(NOW)
                                        .strategy(MA)),
                        lease("c1", 5, NOW, MA, "c2"),
                        Set.of(),
                        Expect.of(Outcome.CLEAR_PREFERRED_HOLDER).holder("c1").strategy(MA)),
                Arguments.of(
                        "OldestEmulationVersion keeps a preferredHolder naming a live candidate (upstream)",
                        UPSTREAM_MODE,
                        List.of(
                                cand("c1").versions("1.19.0", "1.19.0").renewed(NOW),
                                cand("c2").versions("1.20.0", "1.20.0").renewed(NOW)),
                        lease("c1", 5, NOW, OEV, "c2"),
                        Set.of(),
                        Expect.of(Outcome.NO_CHANGE)
                                .holder("c1")
                                .preferred("c2")
                                .strategy(OEV)),
                Arguments.of(
                        "valid lease held by the best candidate: nothing to do, look again later",
                        UPSTREAM_MODE,
                        List.of(
                                cand("c1").versions("1.19.0", "1.19.0").renewed(NOW),
                                cand("c2").versions("1.20.0", "1.20.0").renewed(NOW)),
                        heldByBest,
                        Set.of(),
                        Expect.of(Outcome.NO_CHANGE).holder("c1").strategy(OEV)),
                Arguments.of(
                        "every 15 min candidates are re-pinged even with an optimal holder",
                        UPSTREAM_MODE,
                        List.of(
                                cand("c1").versions("1.19.0", "1.19.0").renewed(NOW),
                                cand("c2")
                                        .versions("1.20.0", "1.20.0")
                                        .renewed(ago(Duration.ofMinutes(16)))
                                        .pinged(ago(Duration.ofMinutes(20)))),
                        heldByBest,
                        Set.of(),
                        Expect.of(Outcome.PING).holder("c1").strategy(OEV).pinged("c2")),
                Arguments.of(
                        "a candidate silent for 30 min is not a candidate any more",
                        UPSTREAM_MODE,
                        List.of(cand("c1").versions("1.19.0", "1.19.0").renewed(ago(Duration.ofMinutes(31)))),
                        null,
                        Set.of(),
                        Expect.of(Outcome.NOT_MANAGED).noRequeue()),
                Arguments.of(
                        "renewTime far in the future is suspect: lease treated as expired",
                        UPSTREAM_MODE,
                        List.of(cand("c1").versions("1.19.0", "1.19.0").renewed(NOW)),
                        lease("ghost", 10, NOW.plus(Duration.ofHours(1)), OEV, null),
                        Set.of(),
                        Expect.of(Outcome.SET_HOLDER).holder("c1").strategy(OEV)),
                Arguments.of(
                        "an ack from the current ping round still counts just after the window",
                        UPSTREAM_MODE,
                        List.of(
                                cand("c1")
                                        .versions("1.19.0", "1.19.0")
                                        .pinged(ago(Duration.ofMillis(5100)))
                                        .renewed(ago(Duration.ofMillis(5050))),
                                cand("dead")
                                        .versions("1.18.0", "1.18.0")
                                        .pinged(ago(Duration.ofMillis(5100)))
                                        .renewed(ago(Duration.ofMinutes(10)))),
                        lease("dead", 5, ago(Duration.ofSeconds(20)), OEV, null),
                        Set.of(),
                        Expect.of(Outcome.SET_HOLDER).holder("c1").strategy(OEV)),
                Arguments.of(
                        "MaintenanceAware and OldestEmulationVersion at one binary version conflict",
                        UPSTREAM_MODE,
                        List.of(
                                cand("c1")
                                        .versions("1.19.0", "1.19.0")
                                        .renewed(NOW)
                                        .strategy(MA),
                                cand("c2").versions("1.19.0", "1.19.0").renewed(NOW)),
                        null,
                        Set.of(),
                        Expect.of(Outcome.FAILED).failure(FailureReason.STRATEGY_CONFLICT)),
                // issue 17: upstream parity rows (each failed on the planner before the fix)
                Arguments.of(
                        "a silent candidate with a conflicting strategy does not block: the strategy is picked"
                                + " among the candidates that answered (upstream pings first)",
                        UPSTREAM_MODE,
                        List.of(
                                cand("a").versions("1.19.0", "1.19.0").renewed(NOW),
                                cand("b")
                                        .versions("1.18.0", "1.19.0")
                                        .strategy("foo.com/bar")
                                        .pinged(ago(Duration.ofMinutes(1)))
                                        .renewed(ago(Duration.ofMinutes(10)))),
                        null,
                        Set.of(),
                        Expect.of(Outcome.CREATE_LEASE).holder("a").strategy(OEV)),
                Arguments.of(
                        "... and the same for MaintenanceAware with upstream strategies off",
                        DEFAULT_MODE,
                        List.of(
                                cand("a")
                                        .versions("1.19.0", "1.19.0")
                                        .renewed(NOW)
                                        .strategy(MA),
                                cand("b")
                                        .versions("1.18.0", "1.19.0")
                                        .strategy("foo.com/bar")
                                        .pinged(ago(Duration.ofMinutes(1)))
                                        .renewed(ago(Duration.ofMinutes(10)))),
                        null,
                        Set.of(),
                        Expect.of(Outcome.CREATE_LEASE).holder("a").strategy(MA)),
                Arguments.of(
                        "a lease at its exact expiry instant is still valid (upstream isLeaseExpired is strict):"
                                + " only preferredHolder, no takeover",
                        UPSTREAM_MODE,
                        List.of(
                                cand("c1").versions("1.19.0", "1.19.0").renewed(NOW),
                                cand("c2").versions("1.20.0", "1.20.0").renewed(NOW)),
                        lease("c2", 10, ago(Duration.ofSeconds(10)), OEV, null),
                        Set.of(),
                        Expect.of(Outcome.SET_PREFERRED_HOLDER)
                                .holder("c2")
                                .preferred("c1")
                                .strategy(OEV)),
                Arguments.of(
                        "a ping that expired with renewTime == pingTime is sent again (upstream re-pings)",
                        UPSTREAM_MODE,
                        List.of(cand("c1")
                                .versions("1.19.0", "1.19.0")
                                .pinged(ago(WINDOW.multipliedBy(3)))
                                .renewed(ago(WINDOW.multipliedBy(3)))),
                        null,
                        Set.of(),
                        Expect.of(Outcome.PING).pinged("c1")),
                Arguments.of(
                        "a ping round that closed with an answer elects among those who answered (upstream fast"
                                + " track): a candidate that could not be pinged does not hold the election up",
                        UPSTREAM_MODE,
                        List.of(
                                cand("c-a").versions("1.19.0", "1.19.0").renewed(ago(Duration.ofSeconds(30))),
                                cand("c-b")
                                        .versions("1.20.0", "1.20.0")
                                        .pinged(ago(Duration.ofSeconds(6)))
                                        .renewed(ago(Duration.ofMillis(5900)))),
                        null,
                        Set.of(),
                        Expect.of(Outcome.CREATE_LEASE).holder("c-b").strategy(OEV)),
                Arguments.of(
                        "a valid lease of a third-party strategy keeps its preferredHolder (another controller's"
                                + " field; upstream never writes such a lease while it is valid)",
                        UPSTREAM_MODE,
                        List.of(cand("c1")
                                .versions("1.19.0", "1.19.0")
                                .renewed(NOW)
                                .strategy("foo.com/bar")),
                        lease("c1", 5, NOW, "foo.com/bar", "not-a-candidate"),
                        Set.of(),
                        Expect.of(Outcome.NO_CHANGE)
                                .holder("c1")
                                .preferred("not-a-candidate")
                                .strategy("foo.com/bar")),
                Arguments.of(
                        "no candidate with parsable versions: failure, no lease",
                        UPSTREAM_MODE,
                        List.of(cand("c1").versions("xyz", "xyz").renewed(NOW)),
                        null,
                        Set.of(),
                        Expect.of(Outcome.FAILED).failure(FailureReason.NO_VALID_CANDIDATE)),
                Arguments.of(
                        "candidates of another lease or namespace are ignored",
                        UPSTREAM_MODE,
                        List.of(
                                cand("other")
                                        .lease("component-B")
                                        .versions("1.1.0", "1.1.0")
                                        .renewed(NOW),
                                cand("elsewhere")
                                        .namespace("kube-system")
                                        .versions("1.1.0", "1.1.0")
                                        .renewed(NOW),
                                cand("c1").versions("1.19.0", "1.19.0").renewed(NOW)),
                        null,
                        Set.of(),
                        Expect.of(Outcome.CREATE_LEASE).holder("c1").strategy(OEV)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void tenureElectionStep(
            String name,
            ElectionPlanner planner,
            List<CandidateFixture> candidates,
            LeaseRecord lease,
            Set<String> unavailable,
            Expect expect) {
        check(planner, candidates, lease, unavailable, expect);
    }

    private static void check(
            ElectionPlanner planner,
            List<CandidateFixture> fixtures,
            LeaseRecord lease,
            Set<String> unavailable,
            Expect expect) {
        List<CandidateRecord> candidates =
                fixtures.stream().map(CandidateFixture::build).toList();
        ElectionStep d = planner.decide(KEY, candidates, lease, unavailable, NOW);

        assertThat(d.outcome()).as("outcome (%s)", d.detail()).isEqualTo(expect.outcome());
        assertThat(d.failure()).as("failure").isEqualTo(expect.failure());
        assertThat(d.requeue().isPresent()).as("requeue").isEqualTo(expect.requeue());
        assertThat(d.ping()).as("pinged").containsExactlyInAnyOrderElementsOf(expect.pinged());
        LeaseRecord after = d.leaseWrite().orElse(lease);
        if (expect.outcome() == Outcome.NOT_MANAGED || (after == null && expect.holder() == null)) {
            assertThat(d.leaseWrite()).as("lease written").isEmpty();
            return;
        }
        assertThat(after).as("lease").isNotNull();
        assertThat(after.holderIdentity()).as("holder").isEqualTo(expect.holder());
        assertThat(after.preferredHolder()).as("preferredHolder").isEqualTo(expect.preferredHolder());
        assertThat(after.strategy()).as("strategy").isEqualTo(expect.strategy());
        if (d.createLease() || d.outcome() == Outcome.SET_HOLDER) {
            assertThat(after.leaseDurationSeconds())
                    .as("written lease duration")
                    .isEqualTo(5);
            assertThat(after.renewTime())
                    .as("renewTime from the injected clock")
                    .isEqualTo(NOW);
        }
    }

    static Stream<Arguments> idempotence() {
        return Stream.of(
                Arguments.of(
                        "create",
                        List.of(cand("c1").versions("1.19.0", "1.19.0").renewed(NOW)),
                        null),
                Arguments.of(
                        "preferredHolder",
                        List.of(
                                cand("c1").versions("1.19.0", "1.19.0").renewed(NOW),
                                cand("c2").versions("1.18.0", "1.18.0").renewed(NOW)),
                        lease("c1", 10, NOW, OEV, null)),
                Arguments.of(
                        "takeover",
                        List.of(cand("c1").versions("1.19.0", "1.19.0").renewed(NOW)),
                        lease("gone", 10, ago(Duration.ofMinutes(1)), OEV, null)));
    }

    /** Applying a step's write and deciding again changes nothing (level-triggered, idempotent). */
    @ParameterizedTest(name = "{0}")
    @MethodSource
    void idempotence(String name, List<CandidateFixture> fixtures, LeaseRecord lease) {
        List<CandidateRecord> candidates =
                fixtures.stream().map(CandidateFixture::build).toList();
        ElectionStep first = UPSTREAM_MODE.decide(KEY, candidates, lease, Set.of(), NOW);
        assertThat(first.leaseWrite()).isPresent();
        ElectionStep second = UPSTREAM_MODE.decide(KEY, candidates, first.lease(), Set.of(), NOW);
        assertThat(second.outcome()).as(second.detail()).isEqualTo(Outcome.NO_CHANGE);
        assertThat(second.leaseWrite()).isEmpty();
    }

    @Test
    void pingRoundRequeuesWhenTheWindowCloses() {
        List<CandidateRecord> candidates = List.of(cand("c1")
                .versions("1.19.0", "1.19.0")
                .pinged(ago(Duration.ofSeconds(2)))
                .renewed(ago(Duration.ofMinutes(1)))
                .build());
        ElectionStep d = UPSTREAM_MODE.decide(KEY, candidates, null, Set.of(), NOW);
        assertThat(d.outcome()).isEqualTo(Outcome.AWAIT_ACKS);
        assertThat(d.requeueAfter()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void leaderlessSinceCountsFromExpiry() {
        LeaseRecord expired = lease("c1", 5, ago(Duration.ofSeconds(65)), OEV, null);
        assertThat(ElectionPlanner.leaderlessSince(expired, List.of(), NOW)).contains(ago(Duration.ofMinutes(1)));
        assertThat(ElectionPlanner.leaderlessSince(lease("c1", 5, NOW, OEV, null), List.of(), NOW))
                .isEmpty();
        CandidateRecord c = cand("c1").created(ago(Duration.ofSeconds(9))).build();
        assertThat(ElectionPlanner.leaderlessSince(null, List.of(c), NOW)).contains(ago(Duration.ofSeconds(9)));
    }

    static Stream<Arguments> invalidTiming() {
        Duration m = Duration.ofMinutes(1);
        return Stream.of(
                Arguments.of(
                        Duration.ofMinutes(10),
                        Duration.ofMinutes(15),
                        Duration.ofSeconds(5),
                        5,
                        m,
                        "candidateValidity"),
                Arguments.of(
                        Duration.ofMinutes(30),
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(5),
                        5,
                        m,
                        "reelectionInterval"),
                Arguments.of(Duration.ofMinutes(30), Duration.ofMinutes(15), Duration.ZERO, 5, m, "electionWindow"),
                Arguments.of(
                        Duration.ofMinutes(30),
                        Duration.ofMinutes(15),
                        Duration.ofSeconds(5),
                        0,
                        m,
                        "leaseDurationSeconds"),
                Arguments.of(
                        Duration.ofMinutes(30),
                        Duration.ofMinutes(15),
                        Duration.ofSeconds(5),
                        5,
                        Duration.ZERO,
                        "requeueInterval"));
    }

    @ParameterizedTest(name = "rejects bad {5}")
    @MethodSource
    void invalidTiming(
            Duration validity, Duration reelection, Duration window, int lease, Duration requeue, String field) {
        assertThatThrownBy(() -> new ElectionTiming(validity, reelection, window, lease, requeue))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(field);
    }
}
