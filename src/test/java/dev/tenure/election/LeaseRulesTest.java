package dev.tenure.election;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LeaseRulesTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final Duration LD = Duration.ofSeconds(15);
    static final Duration TOLERANCE = Duration.ofSeconds(5);
    static final String ME = "me";
    static final String OTHER = "other";

    static Instant at(long seconds) {
        return T0.plusSeconds(seconds);
    }

    static LeaseRecord held(String holder, Integer duration, Instant renew) {
        return new LeaseRecord(holder, duration, T0.minusSeconds(100), renew, 3, null, null, List.of(), "7");
    }

    // ------------------------------------------------------------ observer view

    static Stream<Arguments> observerCases() {
        return Stream.of(
                // name, record, observedAt, now, expired
                Arguments.of("fresh lease just seen", held(OTHER, 15, at(0)), at(0), at(0), false),
                Arguments.of("unchanged for less than its duration", held(OTHER, 15, at(0)), at(0), at(14), false),
                Arguments.of("unchanged for its duration", held(OTHER, 15, at(0)), at(0), at(15), true),
                Arguments.of(
                        "writer clock far behind: renewTime old but seen just now",
                        held(OTHER, 15, at(-3600)),
                        at(0),
                        at(1),
                        false),
                Arguments.of(
                        "writer clock far ahead: renewTime in the future, unchanged too long",
                        held(OTHER, 15, at(3600)),
                        at(0),
                        at(15),
                        true),
                Arguments.of(
                        "absent duration falls back to the observer's", held(OTHER, null, at(0)), at(0), at(14), false),
                Arguments.of("zero duration falls back to the observer's", held(OTHER, 0, at(0)), at(0), at(15), true),
                Arguments.of(
                        "record's own duration wins over the observer's", held(OTHER, 60, at(0)), at(0), at(30), false),
                Arguments.of("holder cleared is free at once", held("", 1, at(0)), at(0), at(0), true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("observerCases")
    void observerView(String name, LeaseRecord record, Instant observedAt, Instant now, boolean expired) {
        assertThat(LeaseRules.observerExpired(new ObservedLease(record, observedAt), now, LD))
                .isEqualTo(expired);
    }

    @Test
    void observationRestartsOnlyWhenTheElectionStateChanges() {
        ObservedLease first = LeaseRules.observe(null, held(OTHER, 15, at(0)), at(0));
        ObservedLease sameStateNewVersion =
                LeaseRules.observe(first, held(OTHER, 15, at(0)).withResourceVersion("8"), at(10));
        assertThat(sameStateNewVersion.observedAt()).isEqualTo(at(0));
        assertThat(sameStateNewVersion.record().resourceVersion()).isEqualTo("8");
        ObservedLease renewed = LeaseRules.observe(sameStateNewVersion, held(OTHER, 15, at(10)), at(10));
        assertThat(renewed.observedAt()).isEqualTo(at(10));
    }

    // ------------------------------------------------------------ authority view

    static Stream<Arguments> authorityCases() {
        return Stream.of(
                Arguments.of("no holder", held("", 15, at(0)), at(0), AuthorityStatus.Free.class),
                Arguments.of("renewed within duration", held(OTHER, 15, at(0)), at(14), AuthorityStatus.Valid.class),
                // upstream CLE isLeaseExpired: expired only when now is strictly after renewTime + duration
                Arguments.of(
                        "renewed exactly duration ago (upstream: still valid)",
                        held(OTHER, 15, at(0)),
                        at(15),
                        AuthorityStatus.Valid.class),
                Arguments.of(
                        "renewed a nanosecond more than duration ago",
                        held(OTHER, 15, at(0)),
                        at(15).plusNanos(1),
                        AuthorityStatus.Expired.class),
                Arguments.of(
                        "renewTime slightly ahead (within tolerance)",
                        held(OTHER, 15, at(4)),
                        at(0),
                        AuthorityStatus.Valid.class),
                Arguments.of(
                        "renewTime far in the future",
                        held(OTHER, 15, at(3600)),
                        at(0),
                        AuthorityStatus.FutureRenewTime.class),
                Arguments.of("absent duration", held(OTHER, null, at(0)), at(1), AuthorityStatus.Expired.class),
                Arguments.of("zero duration", held(OTHER, 0, at(0)), at(0), AuthorityStatus.Expired.class),
                Arguments.of("absent renewTime", held(OTHER, 15, null), at(0), AuthorityStatus.Expired.class));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("authorityCases")
    void authorityView(String name, LeaseRecord record, Instant now, Class<? extends AuthorityStatus> expected) {
        AuthorityStatus status = LeaseRules.authorityStatus(record, now, TOLERANCE);
        assertThat(status).isInstanceOf(expected);
        assertThat(status.isValid()).isEqualTo(expected == AuthorityStatus.Valid.class);
    }

    @Test
    void futureRenewTimeIsNotValidForeverAndSaysByHowMuch() {
        AuthorityStatus s = LeaseRules.authorityStatus(held(OTHER, 15, at(3600)), at(0), TOLERANCE);
        assertThat(s).isEqualTo(new AuthorityStatus.FutureRenewTime(OTHER, at(3600), Duration.ofSeconds(3600)));
    }

    // ------------------------------------------------------------ observer decisions (elector)

    static Stream<Arguments> decideCases() {
        ObservedLease seen = null;
        return Stream.of(
                // name, observed (null = absent), now, expected decision type, expected transitions (-1 = n/a)
                Arguments.of("absent lease is created", seen, at(0), ElectionDecision.Create.class, 0),
                Arguments.of(
                        "own lease is renewed", obs(held(ME, 15, at(0)), 0), at(2), ElectionDecision.Write.class, 3),
                Arguments.of(
                        "foreign valid lease waits",
                        obs(held(OTHER, 15, at(0)), 0),
                        at(14),
                        ElectionDecision.Wait.class,
                        -1),
                Arguments.of(
                        "foreign expired lease is taken",
                        obs(held(OTHER, 15, at(0)), 0),
                        at(15),
                        ElectionDecision.Write.class,
                        4),
                Arguments.of(
                        "foreign lease stamped in the future still expires by observation",
                        obs(held(OTHER, 15, at(3600)), 0),
                        at(15),
                        ElectionDecision.Write.class,
                        4),
                Arguments.of(
                        "foreign lease stamped long ago but just changed waits",
                        obs(held(OTHER, 15, at(-3600)), 0),
                        at(1),
                        ElectionDecision.Wait.class,
                        -1),
                Arguments.of(
                        "holder cleared is taken (a holder change)",
                        obs(held("", 1, at(0)), 0),
                        at(0),
                        ElectionDecision.Write.class,
                        4),
                Arguments.of(
                        "preferredHolder = self on own lease renews",
                        obs(held(ME, 15, at(0)).withPreferredHolder(ME), 0),
                        at(1),
                        ElectionDecision.Write.class,
                        3),
                Arguments.of(
                        "preferredHolder = other on own lease yields",
                        obs(held(ME, 15, at(0)).withPreferredHolder(OTHER), 0),
                        at(1),
                        ElectionDecision.Yield.class,
                        -1),
                Arguments.of(
                        "released for another preferred holder waits",
                        obs(held("", 1, at(0)).withPreferredHolder(OTHER), 0),
                        at(0),
                        ElectionDecision.Wait.class,
                        -1),
                Arguments.of(
                        "released for another preferred holder, reservation over",
                        obs(held("", 1, at(0)).withPreferredHolder(OTHER), 0),
                        at(1),
                        ElectionDecision.Write.class,
                        4),
                Arguments.of(
                        "released for us as preferred holder is taken at once",
                        obs(held("", 1, at(0)).withPreferredHolder(ME), 0),
                        at(0),
                        ElectionDecision.Write.class,
                        4));
    }

    static ObservedLease obs(LeaseRecord r, long seenAt) {
        return new ObservedLease(r, at(seenAt));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("decideCases")
    void decide(
            String name,
            ObservedLease observed,
            Instant now,
            Class<? extends ElectionDecision> expected,
            int transitions) {
        ElectionDecision d = LeaseRules.decide(ME, observed, now, LD);
        assertThat(d).isInstanceOf(expected);
        LeaseRecord desired = d instanceof ElectionDecision.Create c
                ? c.desired()
                : d instanceof ElectionDecision.Write w ? w.desired() : null;
        if (desired != null) {
            assertThat(desired.holderIdentity()).isEqualTo(ME);
            assertThat(desired.renewTime()).isEqualTo(now);
            assertThat(desired.leaseDurationSeconds()).isEqualTo(15);
            assertThat(desired.leaseTransitions()).isEqualTo(transitions);
            assertThat(desired.preferredHolder())
                    .as("preferredHolder is cleared once satisfied or on a holder change")
                    .isNull();
            if (observed != null) {
                assertThat(desired.resourceVersion())
                        .as("conditional on what was read")
                        .isEqualTo(observed.record().resourceVersion());
                boolean renew = observed.record().isHeldBy(ME);
                assertThat(desired.acquireTime())
                        .isEqualTo(renew ? observed.record().acquireTime() : now);
                assertThat(((ElectionDecision.Write) d).acquired()).isEqualTo(!renew);
            }
        }
    }

    @Test
    void yieldClearsTheHolderForOneSecondAndKeepsTheCount() {
        ElectionDecision d = LeaseRules.decide(ME, obs(held(ME, 15, at(0)).withPreferredHolder(OTHER), 0), at(1), LD);
        LeaseRecord released = ((ElectionDecision.Yield) d).released();
        assertThat(released.hasHolder()).isFalse();
        assertThat(released.leaseDurationSeconds()).isEqualTo(1);
        assertThat(released.leaseTransitions()).isEqualTo(3);
        assertThat(released.preferredHolder()).isEqualTo(OTHER);
    }

    // ------------------------------------------------------------ authority claims (maintenance leases)

    static Stream<Arguments> claimCases() {
        return Stream.of(
                Arguments.of("absent lease is created", null, at(0), ClaimDecision.Create.class, 0),
                Arguments.of("own lease is renewed", held(ME, 15, at(0)), at(5), ClaimDecision.Renew.class, 3),
                Arguments.of(
                        "own lease is renewed even when expired",
                        held(ME, 15, at(0)),
                        at(500),
                        ClaimDecision.Renew.class,
                        3),
                Arguments.of(
                        "foreign valid lease is reported",
                        held(OTHER, 15, at(0)),
                        at(5),
                        ClaimDecision.HeldElsewhere.class,
                        -1),
                Arguments.of(
                        "foreign lease at its exact expiry is still reported",
                        held(OTHER, 15, at(0)),
                        at(15),
                        ClaimDecision.HeldElsewhere.class,
                        -1),
                Arguments.of(
                        "foreign expired lease is taken over",
                        held(OTHER, 15, at(0)),
                        at(16),
                        ClaimDecision.TakeOver.class,
                        4),
                Arguments.of(
                        "foreign lease stamped far in the future is taken over",
                        held(OTHER, 15, at(3600)),
                        at(0),
                        ClaimDecision.TakeOver.class,
                        4),
                Arguments.of(
                        "foreign lease with zero duration is taken over",
                        held(OTHER, 0, at(0)),
                        at(0),
                        ClaimDecision.TakeOver.class,
                        4),
                Arguments.of(
                        "released lease is taken (holder change)",
                        held("", 1, at(0)),
                        at(0),
                        ClaimDecision.TakeOver.class,
                        4));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("claimCases")
    void claim(
            String name, LeaseRecord current, Instant now, Class<? extends ClaimDecision> expected, int transitions) {
        ClaimDecision d = LeaseRules.claim(ME, current, now, Duration.ofSeconds(90), TOLERANCE);
        assertThat(d).isInstanceOf(expected);
        LeaseRecord desired = d instanceof ClaimDecision.Create c
                ? c.desired()
                : d instanceof ClaimDecision.Renew r
                        ? r.desired()
                        : d instanceof ClaimDecision.TakeOver t ? t.desired() : null;
        if (desired != null) {
            assertThat(desired.holderIdentity()).isEqualTo(ME);
            assertThat(desired.leaseDurationSeconds()).isEqualTo(90);
            assertThat(desired.renewTime()).isEqualTo(now);
            assertThat(desired.leaseTransitions()).isEqualTo(transitions);
        } else {
            assertThat(((ClaimDecision.HeldElsewhere) d).holder()).isEqualTo(OTHER);
            assertThat(((ClaimDecision.HeldElsewhere) d).expiresAt()).isEqualTo(at(15));
        }
    }

    @Test
    void aSuccessorTakesAValidLeaseOfAPredecessorAtOnceAndOnlyThat() {
        java.util.function.Predicate<String> predecessors = h -> h.startsWith("tenure/") && !h.equals(ME);
        ClaimDecision fromPredecessor = LeaseRules.claim(
                ME, predecessors, held("tenure/old", 15, at(0)), at(1), Duration.ofSeconds(90), TOLERANCE);
        assertThat(fromPredecessor).isInstanceOf(ClaimDecision.TakeOver.class);
        ClaimDecision.TakeOver t = (ClaimDecision.TakeOver) fromPredecessor;
        assertThat(t.previous())
                .as("taken while still valid: the predecessor's term, not its lease, ended")
                .isEqualTo(new AuthorityStatus.Valid("tenure/old", at(15)));
        assertThat(t.desired().holderIdentity()).isEqualTo(ME);
        assertThat(t.desired().leaseTransitions())
                .as("recorded as a change of holder")
                .isEqualTo(4);
        assertThat(t.desired().acquireTime()).isEqualTo(at(1));

        assertThat(LeaseRules.claim(ME, predecessors, held(OTHER, 15, at(0)), at(1), Duration.ofSeconds(90), TOLERANCE))
                .as("another controller's valid lease is still waited for")
                .isEqualTo(new ClaimDecision.HeldElsewhere(OTHER, at(15)));
        assertThat(LeaseRules.claim(ME, held("tenure/old", 15, at(0)), at(1), Duration.ofSeconds(90), TOLERANCE))
                .as("without predecessors, a sibling is a holder like any other")
                .isInstanceOf(ClaimDecision.HeldElsewhere.class);
    }

    @Test
    void aLeaseInDeletionIsLetGoByItsHolderAndNeverTakenByAnother() {
        LeaseRecord deleting = held(ME, 15, at(0)).withDeletionRequested(true);
        ElectionDecision holder = LeaseRules.decide(ME, new ObservedLease(deleting, at(0)), at(1), LD);
        assertThat(holder).isInstanceOf(ElectionDecision.Yield.class);
        LeaseRecord released = ((ElectionDecision.Yield) holder).released();
        assertThat(released.hasHolder()).isFalse();
        assertThat(released.deletionRequested())
                .as("the release lets the deletion finish")
                .isTrue();

        LeaseRecord othersInDeletion = held(OTHER, 15, at(0)).withDeletionRequested(true);
        assertThat(LeaseRules.decide(ME, new ObservedLease(othersInDeletion, at(0)), at(14), LD))
                .as("its holder may still be working")
                .isEqualTo(new ElectionDecision.Wait(OTHER, at(15)));
        ElectionDecision afterExpiry = LeaseRules.decide(ME, new ObservedLease(othersInDeletion, at(0)), at(15), LD);
        assertThat(afterExpiry)
                .as("an expired holder's lease in deletion is let go, not taken")
                .isInstanceOf(ElectionDecision.FinishDeletion.class);
        assertThat(((ElectionDecision.FinishDeletion) afterExpiry).released().hasHolder())
                .isFalse();

        assertThat(new ObservedLease(othersInDeletion, at(0)).record().sameElectionState(held(OTHER, 15, at(0))))
                .as("a requested deletion is a change: observers restart their clock")
                .isFalse();
    }

    @Test
    void releaseNeverClearsSomeoneElsesHolding() {
        assertThat(LeaseRules.release(held(OTHER, 15, at(0)), ME, at(1))).isEmpty();
        LeaseRecord released =
                LeaseRules.release(held(ME, 15, at(0)), ME, at(1)).orElseThrow();
        assertThat(released.hasHolder()).isFalse();
        assertThat(released.leaseDurationSeconds()).isEqualTo(1);
        assertThat(released.renewTime()).isEqualTo(at(1));
        assertThat(released.leaseTransitions())
                .as("a release is not a transition")
                .isEqualTo(3);
    }

    @Test
    void transitionsCountOnlyHolderChanges() {
        LeaseRecord r = LeaseRules.createdRecord(ME, at(0), LD).withResourceVersion("1");
        r = LeaseRules.heldRecord(r, ME, at(2), LD);
        r = LeaseRules.heldRecord(r, ME, at(4), LD);
        assertThat(r.leaseTransitions()).isZero();
        r = LeaseRules.heldRecord(r, OTHER, at(30), LD);
        assertThat(r.leaseTransitions()).isEqualTo(1);
        r = LeaseRules.releasedRecord(r, at(31));
        assertThat(r.leaseTransitions()).isEqualTo(1);
        r = LeaseRules.heldRecord(r, OTHER, at(32), LD);
        assertThat(r.leaseTransitions()).isEqualTo(2);
    }
}
