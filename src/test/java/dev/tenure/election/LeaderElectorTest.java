package dev.tenure.election;

import static dev.tenure.election.ElectorHarness.LD;
import static dev.tenure.election.ElectorHarness.LEASE;
import static dev.tenure.election.ElectorHarness.RD;
import static dev.tenure.election.ElectorHarness.RP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LeaderElectorTest {
    final ElectorHarness h = new ElectorHarness(42);

    static Stream<Arguments> invalidConfigs() {
        return Stream.<Arguments>of(
                Arguments.of(
                        "empty identity",
                        (UnaryOperator<LeaderElector.Builder>) b -> b.identity(" "),
                        "identity must be non-empty"),
                Arguments.of(
                        "lease duration not above renew deadline",
                        (UnaryOperator<LeaderElector.Builder>) b -> b.leaseDuration(Duration.ofSeconds(10)),
                        "leaseDuration (PT10S) must be greater than renewDeadline (PT10S)"),
                Arguments.of(
                        "renew deadline not above 1.2 x retry",
                        (UnaryOperator<LeaderElector.Builder>) b -> b.retryPeriod(Duration.ofMillis(8400)),
                        "renewDeadline (PT10S) must be greater than 1.2 × retryPeriod"),
                Arguments.of(
                        "zero retry period",
                        (UnaryOperator<LeaderElector.Builder>) b -> b.retryPeriod(Duration.ZERO),
                        "retryPeriod (PT0S) must be greater than 0"),
                Arguments.of(
                        "no store", (UnaryOperator<LeaderElector.Builder>) b -> b.store(null), "store must be set"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidConfigs")
    void builderNamesTheViolatedRule(String name, UnaryOperator<LeaderElector.Builder> breakIt, String message) {
        assertThatThrownBy(() -> breakIt.apply(h.builder("a", Duration.ZERO)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void configIsWhatWasSetWithTheDefaultsFilledIn() {
        LeaderElector a = h.builder("a", Duration.ZERO).build();
        ElectionConfig c = a.config();
        assertThat(c.lease()).isEqualTo(LEASE);
        assertThat(c.identity()).isEqualTo("a");
        assertThat(List.of(c.leaseDuration(), c.renewDeadline(), c.retryPeriod()))
                .containsExactly(LD, RD, RP);
        assertThat(c.healthGrace()).isEqualTo(Duration.ofSeconds(20));
        assertThat(c.releaseOnStop()).isTrue();
        assertThat(c.coordinated()).isFalse();
        assertThat(c.fenceScheduler())
                .as("the harness runs all on the loop's scheduler (virtual time)")
                .isSameAs(c.scheduler());
        assertThat(c.storeCalls())
                .as("store calls on the loop thread (virtual time)")
                .isNull();
    }

    /** Issue 40: left at its defaults, the fence, the store calls and the callbacks get threads of their own. */
    @Test
    void theDefaultsGiveTheFenceTheStoreCallsAndTheCallbacksThreadsOfTheirOwn() {
        LeaderElector a = LeaderElector.builder()
                .lease(LEASE)
                .identity("a")
                .store(h.store)
                .scheduler(h.scheduler)
                .clock(h.scheduler.clock())
                .monotonic(h.scheduler.clock())
                .random(new Random(1))
                .build();
        ElectionConfig c = a.config();
        assertThat(c.fenceScheduler()).as("fence").isNotNull().isNotSameAs(c.scheduler());
        assertThat(c.storeCalls()).as("store calls can be abandoned").isNotNull();
        assertThat(c.callbackExecutor()).as("callbacks").isInstanceOf(ExecutorService.class);
        a.stop();
        assertThat(c.storeCalls().isShutdown())
                .as("the elector's own pool ends with it")
                .isTrue();
        assertThat(((ExecutorService) c.callbackExecutor()).isShutdown())
                .as("the elector's own callback thread ends with it")
                .isTrue();
    }

    @Test
    void givenExecutorsAreUsedAsTheyAreAndLeftRunningOnStop() {
        ExecutorService calls = Executors.newCachedThreadPool();
        ExecutorService callbacks = Executors.newSingleThreadExecutor();
        try {
            LeaderElector a = h.builder("a", Duration.ZERO)
                    .storeCalls(calls)
                    .callbackExecutor(callbacks)
                    .build();
            assertThat(a.config().storeCalls()).isSameAs(calls);
            assertThat(a.config().callbackExecutor()).isSameAs(callbacks);
            a.stop();
            assertThat(calls.isShutdown())
                    .as("the caller's pool is the caller's to shut down")
                    .isFalse();
            assertThat(callbacks.isShutdown()).isFalse();
        } finally {
            calls.shutdownNow();
            callbacks.shutdownNow();
        }
    }

    @Test
    void acquiresAFreshLeaseAndReportsItself() {
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        assertThat(a.isLeader()).isTrue();
        assertThat(h.leaders).containsExactly("a");
        LeaseRecord rec = h.store.peek(LEASE).orElseThrow();
        assertThat(rec.holderIdentity()).isEqualTo("a");
        assertThat(rec.leaseDurationSeconds()).isEqualTo(15);
        assertThat(rec.leaseTransitions()).isZero();
    }

    @Test
    void steadyStateRenewIsOneWriteAndNoRead() {
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        h.store.resetCounts();
        h.scheduler.advance(RP.multipliedBy(10));
        assertThat(h.store.calls(InMemoryLeaseStore.Op.UPDATE)).isEqualTo(10);
        assertThat(h.store.calls(InMemoryLeaseStore.Op.GET)).isZero();
        assertThat(a.isLeader()).isTrue();
    }

    @Test
    void conflictOnRenewRereadsOnceAndKeepsLeading() {
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        h.store.resetCounts();
        h.store.failNext(InMemoryLeaseStore.Op.UPDATE, new LeaseConflict(LEASE, false, null));
        h.scheduler.advance(RP);
        assertThat(h.store.calls(InMemoryLeaseStore.Op.GET)).isEqualTo(1);
        assertThat(h.store.calls(InMemoryLeaseStore.Op.UPDATE)).isEqualTo(2);
        assertThat(a.isLeader()).isTrue();
        assertThat(h.intervals).isEmpty();
    }

    @Test
    void givesUpAtRenewDeadlineBeforeAContenderCanSeeExpiry() {
        PartitionedLeaseStore aView = new PartitionedLeaseStore(h.store);
        LeaderElector a = h.builder("a", Duration.ZERO).store(aView).build();
        a.start();
        h.scheduler.runDue();
        Instant acquired = h.scheduler.now();
        LeaderElector b = h.start("b", Duration.ZERO);
        aView.partitioned = true;
        h.scheduler.advance(LD.multipliedBy(3));
        assertThat(b.isLeader()).isTrue();
        h.closeOpen(List.of(a, b));
        assertThat(h.intervals).hasSizeGreaterThanOrEqualTo(2);
        ElectorHarness.Interval first = h.intervals.get(0);
        assertThat(first.identity()).isEqualTo("a");
        assertThat(first.end()).isBeforeOrEqualTo(acquired.plus(RD));
        assertThat(h.intervals.get(1).identity()).isEqualTo("b");
        assertThat(h.intervals.get(1).start()).isAfterOrEqualTo(acquired.plus(LD));
        assertThat(h.overlaps()).isEmpty();
    }

    @Test
    void releaseOnStopLetsAContenderTakeOverOnTheReleaseEvent() {
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        LeaderElector b = h.start("b", Duration.ZERO);
        h.scheduler.advance(Duration.ofSeconds(30));
        assertThat(b.isLeader()).isFalse();
        Instant stoppedAt = h.scheduler.now();
        a.stop();
        LeaseRecord released = h.store.peek(LEASE).orElseThrow();
        assertThat(released.hasHolder()).isFalse();
        assertThat(released.leaseDurationSeconds()).isEqualTo(1);
        h.scheduler.runDue(); // the watch event only: no time passes, no jittered retry is due
        assertThat(b.isLeader()).isTrue();
        assertThat(h.store.peek(LEASE).orElseThrow().leaseTransitions()).isEqualTo(1);
        h.closeOpen(List.of(b));
        assertThat(h.intervals).extracting(ElectorHarness.Interval::identity).containsExactly("a", "b");
        assertThat(h.intervals.get(0).end()).isEqualTo(stoppedAt);
        assertThat(h.intervals.get(1).start())
                .as("leaderless gap of zero virtual time")
                .isEqualTo(stoppedAt);
    }

    /** A foreign write (a holder without an elector here, or a CLE controller) that contenders b and c then watch. */
    interface ForeignWrite {
        void apply(InMemoryLeaseStore store, LeaseRecord current, Instant now);
    }

    static Stream<Arguments> watchedRecords() {
        return Stream.<Arguments>of(
                // contenders b, c (observer view): a release or a free lease is taken on the event
                Arguments.of(
                        "a releases: the first to see it takes it",
                        false,
                        (ForeignWrite) (s, cur, now) -> s.put(LEASE, LeaseRules.releasedRecord(cur, now)),
                        "b"),
                Arguments.of(
                        "a releases for c: reserved, c takes it",
                        false,
                        (ForeignWrite) (s, cur, now) ->
                                s.put(LEASE, LeaseRules.releasedRecord(cur, now).withPreferredHolder("c")),
                        "c"),
                Arguments.of(
                        "a releases for d (not here): nobody takes it before the reservation expires",
                        false,
                        (ForeignWrite) (s, cur, now) ->
                                s.put(LEASE, LeaseRules.releasedRecord(cur, now).withPreferredHolder("d")),
                        null),
                // Tenure, not client-go: a deletion is no evidence that a stopped working, so its term is honoured
                // (see aLeaseDeletedWhileHeldIsCreatedOnlyAfterTheHoldersTermWouldHaveExpired)
                Arguments.of(
                        "the lease is deleted while a holds it: nobody creates it at once",
                        false,
                        (ForeignWrite) (s, cur, now) -> s.delete(LEASE),
                        null),
                Arguments.of(
                        "a renews: still held",
                        false,
                        (ForeignWrite) (s, cur, now) -> s.put(LEASE, cur.withRenewTime(now)),
                        null),
                Arguments.of(
                        "d takes it over",
                        false,
                        (ForeignWrite) (s, cur, now) -> s.put(LEASE, LeaseRules.heldRecord(cur, "d", now, LD)),
                        null),
                Arguments.of(
                        "a stale release event (store still held by a): the write conflicts",
                        false,
                        (ForeignWrite) (s, cur, now) -> s.deliverStale(
                                LEASE, LeaseRules.releasedRecord(cur, now).withResourceVersion("0")),
                        null),
                // coordinated candidates b, c: only the controller's assignment counts
                Arguments.of(
                        "coordinated: the controller assigns b",
                        true,
                        (ForeignWrite) (s, cur, now) ->
                                s.put(LEASE, LeaseRules.heldRecord(cur, "b", now, Duration.ofSeconds(5))),
                        "b"),
                Arguments.of(
                        "coordinated: a releases, nobody is assigned",
                        true,
                        (ForeignWrite) (s, cur, now) -> s.put(LEASE, LeaseRules.releasedRecord(cur, now)),
                        null),
                Arguments.of(
                        "coordinated: assigned to b but c already preferred",
                        true,
                        (ForeignWrite) (s, cur, now) -> s.put(
                                LEASE,
                                LeaseRules.heldRecord(cur, "b", now, Duration.ofSeconds(5))
                                        .withPreferredHolder("c")),
                        null),
                Arguments.of(
                        "coordinated: a stale assignment to b: the write conflicts",
                        true,
                        (ForeignWrite) (s, cur, now) -> s.deliverStale(
                                LEASE,
                                LeaseRules.heldRecord(cur, "b", now, Duration.ofSeconds(5))
                                        .withResourceVersion("0")),
                        null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("watchedRecords")
    void aWatchedRecordThatLetsAContenderWriteIsActedOnAtOnce(
            String name, boolean coordinated, ForeignWrite write, String leaderAtOnce) {
        h.store.put(
                LEASE,
                LeaseRecord.heldBy("a", LD, h.scheduler.now())
                        .withStrategy(coordinated ? "OldestEmulationVersion" : null));
        LeaderElector b = h.builder("b", Duration.ZERO).coordinated(coordinated).build();
        LeaderElector c = h.builder("c", Duration.ZERO).coordinated(coordinated).build();
        b.start();
        c.start();
        h.scheduler.advance(Duration.ofSeconds(5)); // both have read the lease held by a
        Instant at = h.scheduler.now();
        write.apply(h.store, h.store.peek(LEASE).orElseThrow(), at);
        h.scheduler.runDue(); // watch deliveries only: no time passes, no retry is due
        assertThat(b.isLeader()).as("b leads").isEqualTo("b".equals(leaderAtOnce));
        assertThat(c.isLeader()).as("c leads").isEqualTo("c".equals(leaderAtOnce));
        if (leaderAtOnce != null) {
            LeaseRecord held = h.store.peek(LEASE).orElseThrow();
            assertThat(held.holderIdentity()).isEqualTo(leaderAtOnce);
            assertThat(held.renewTime()).isEqualTo(at);
            assertThat(held.leaseDurationSeconds())
                    .as("the new leader wrote its own duration")
                    .isEqualTo(15);
        }
        // and nothing unsafe afterwards: the loser's retries and the winner's renews never overlap
        h.scheduler.advance(LD.multipliedBy(2));
        h.closeOpen(List.of(b, c));
        assertThat(h.overlaps()).isEmpty();
    }

    @Test
    void stopWithoutReleaseLeavesTheLeaseToExpire() {
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        LeaderElector b = h.start("b", Duration.ZERO);
        h.scheduler.advance(Duration.ofSeconds(1));
        a.stopWithoutRelease();
        assertThat(h.store.peek(LEASE).orElseThrow().holderIdentity()).isEqualTo("a");
        // b saw a's record at 0 s: it is a's until 15 s on b's clock, and b's at once then.
        h.scheduler.advance(LD.minusSeconds(1).minusMillis(1));
        assertThat(b.isLeader()).isFalse();
        h.scheduler.advance(Duration.ofMillis(1));
        assertThat(b.isLeader()).isTrue();
    }

    @ParameterizedTest(name = "crash {0} ms after a renew")
    @MethodSource("crashPoints")
    void aWatchingContenderTakesOverACrashedLeaderALeaseDurationAfterItSawTheLastRenew(long crashAfterRenewMillis) {
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        Instant[] bStarted = {null};
        LeaderElector b = h.builder("b", Duration.ZERO)
                .onStartedLeading(() -> bStarted[0] = h.scheduler.now())
                .build();
        b.start();
        h.scheduler.advance(RP.multipliedBy(5)); // a renews at 2 s, 4 s, ...; b watches and waits
        h.scheduler.advance(Duration.ofMillis(crashAfterRenewMillis));
        a.stopWithoutRelease(); // a crashes: no more renews, no release
        // The watch delivers each write at once here, so b saw the last renew when it was written.
        Instant lastRenewSeen = h.store.peek(LEASE).orElseThrow().renewTime();
        assertThat(lastRenewSeen).isEqualTo(h.scheduler.now().minusMillis(crashAfterRenewMillis));
        h.scheduler.advance(LD.plus(RP.multipliedBy(3)));
        assertThat(b.isLeader()).isTrue();
        // At the observer expiry itself, not at the next jittered retry after it (up to 2.2 x retryPeriod later).
        assertThat(bStarted[0]).isEqualTo(lastRenewSeen.plus(LD));
    }

    /**
     * Runs {@code world} once, just before the first read of the lease: what happens at the API server while an
     * elector's loop is busy in that read (its watch events queue behind it).
     *
     * @return a flag set once {@code world} has run
     */
    private boolean[] beforeFirstRead(Runnable world) {
        boolean[] ran = {false};
        h.store.intercept(new InMemoryLeaseStore.Interceptor() {
            @Override
            public void before(InMemoryLeaseStore.Op op, LeaseKey key) {
                if (op == InMemoryLeaseStore.Op.GET && !ran[0]) {
                    ran[0] = true;
                    world.run();
                }
            }
        });
        return ran;
    }

    static Stream<Long> crashPoints() {
        return Stream.of(100L, 900L, 1500L, 1999L);
    }

    @Test
    void aHolderHeardOnTheWatchButNotYetHandledIsHonouredWhenItsLeaseIsThenFoundGone() {
        // While b's loop is busy in a read, a takes the lease and someone deletes it: both watch events queue
        // behind the read, which finds the lease gone. a may still be working until its fence, so the lease is
        // not free for b until a leaseDuration after that read (RealTimeElectionChaosTest found this overlap).
        beforeFirstRead(() -> {
            h.store.put(LEASE, LeaseRecord.heldBy("a", LD, h.scheduler.now()));
            h.store.delete(LEASE);
        });
        LeaderElector b = h.start("b", Duration.ZERO);
        h.scheduler.runDue();
        assertThat(b.isLeader()).isFalse();
        h.scheduler.advance(LD.minusMillis(1));
        assertThat(b.isLeader()).isFalse();
        h.scheduler.advance(RP.multipliedBy(3));
        assertThat(b.isLeader()).isTrue();
    }

    @Test
    void olderRecordsStillQueuedNeverFreeALeaseWhoseHolderWasSeenBeforeItsDeletion() {
        // While b's loop is busy in a read: c renews the lease and releases it, someone deletes it, a creates it and
        // starts working, someone deletes it again. The read finds it gone and honours a (heard, not yet handled);
        // then the queued events run, oldest first: neither c's renew nor its release (both older than a's record)
        // may end that wait, and the first deletion must not let b create the lease while a may still be working
        // until its fence (RealTimeElectionChaosTest, trial 2110512435997290: 128 ms of overlap).
        boolean[] once = beforeFirstRead(() -> {
            Instant now = h.scheduler.now();
            LeaseRecord byC = LeaseRecord.heldBy("c", LD, now);
            h.store.put(LEASE, byC);
            h.store.put(LEASE, LeaseRules.releasedRecord(byC, now));
            h.store.delete(LEASE);
            h.store.put(LEASE, LeaseRecord.heldBy("a", LD, now));
            h.store.delete(LEASE);
        });
        LeaderElector b = h.start("b", Duration.ZERO);
        Instant read = h.scheduler.now();
        h.scheduler.runDue();
        assertThat(once[0]).isTrue();
        assertThat(b.isLeader())
                .as("a was seen holding the lease; its deletion is no evidence that a stopped")
                .isFalse();
        assertThat(h.store.peek(LEASE)).as("b created no lease").isEmpty();
        h.scheduler.advance(LD.minusMillis(1));
        assertThat(b.isLeader()).isFalse();
        assertThat(h.store.peek(LEASE)).isEmpty();
        h.scheduler.advance(RP.multipliedBy(3));
        assertThat(b.isLeader()).isTrue();
        h.closeOpen(List.of(b));
        assertThat(h.intervals.get(0).start()).isAfterOrEqualTo(read.plus(LD));
    }

    @Test
    void aFencedLeaderThatFindsItsLeaseGoneHonoursTheSuccessorItHeardButHasNotHandled() {
        // a led, lost its store for longer than renewDeadline (fenced; its last observation is its own record),
        // then reads again: meanwhile b took the lease and someone deleted it, both events still queued behind the
        // read. b may be stopping its work right now, so a must not create the lease at once on the strength of
        // its own stale record (RealTimeElectionChaosTest found this overlap on CI: 20 ms, b's stop callback).
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        assertThat(a.isLeader()).isTrue();
        boolean[] outage = {true};
        boolean[] takenAndDeleted = {false};
        h.store.intercept(new InMemoryLeaseStore.Interceptor() {
            @Override
            public void before(InMemoryLeaseStore.Op op, LeaseKey key) {
                if (outage[0]) {
                    throw new LeaseStoreFailure(key, 503, "outage (injected)", null);
                }
                if (op == InMemoryLeaseStore.Op.GET && !takenAndDeleted[0]) {
                    takenAndDeleted[0] = true;
                    h.store.put(LEASE, LeaseRecord.heldBy("b", LD, h.scheduler.now()));
                    h.store.delete(LEASE);
                }
            }
        });
        h.scheduler.advance(RD.plus(RP));
        assertThat(a.isLeader()).isFalse();
        outage[0] = false;
        Instant storeBack = h.scheduler.now(); // the read that finds the lease gone comes at or after this
        h.scheduler.advance(RP.multipliedBy(3));
        assertThat(takenAndDeleted[0]).isTrue();
        assertThat(a.isLeader()).isFalse();
        assertThat(h.store.peek(LEASE)).isEmpty();
        h.scheduler.advance(LD.minus(RP.multipliedBy(3)).minusMillis(1));
        assertThat(a.isLeader())
                .as("free only a leaseDuration after the read at or after %s", storeBack)
                .isFalse();
        h.scheduler.advance(RP.multipliedBy(6));
        assertThat(a.isLeader()).isTrue();
    }

    @Test
    void stoppedFiresEvenWhenNeverLeading() {
        List<String> events = new ArrayList<>();
        h.store.put(LEASE, LeaseRecord.heldBy("someone", LD, h.scheduler.now()));
        LeaderElector a = h.builder("a", Duration.ZERO)
                .onStoppedLeading(() -> events.add("stopped"))
                .build();
        a.start();
        h.scheduler.advance(RP);
        a.stop();
        assertThat(events).containsExactly("stopped");
        assertThat(h.store.peek(LEASE).orElseThrow().holderIdentity()).isEqualTo("someone");
    }

    @Test
    void preferredHolderElsewhereMakesTheLeaderReleaseAtOnceAndThePreferredOneTakesOver() {
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        LeaderElector b = h.start("b", Duration.ZERO);
        LeaderElector c = h.start("c", Duration.ZERO);
        h.scheduler.advance(Duration.ofSeconds(5));
        Instant asked = h.scheduler.now();
        // A coordinated-election controller marks "c" as preferred (a foreign write).
        h.store.put(
                LEASE,
                h.store
                        .peek(LEASE)
                        .orElseThrow()
                        .withStrategy("OldestEmulationVersion")
                        .withPreferredHolder("c"));
        h.scheduler.runDue();
        assertThat(a.isLeader()).isFalse();
        assertThat(h.intervals)
                .singleElement()
                .satisfies(i -> assertThat(i.end()).isEqualTo(asked));
        // c took the released lease on the release event, in the same instant
        assertThat(c.isLeader()).isTrue();
        assertThat(b.isLeader()).isFalse();
        h.scheduler.advance(RP.multipliedBy(22).dividedBy(10));
        assertThat(c.isLeader()).isTrue();
        assertThat(b.isLeader()).isFalse();
        LeaseRecord now = h.store.peek(LEASE).orElseThrow();
        assertThat(now.preferredHolder()).isNull();
        assertThat(now.strategy()).isEqualTo("OldestEmulationVersion");
    }

    /** How a leader comes to give the lease up with a release write. */
    interface GiveUp {
        void apply(ElectorHarness h, LeaderElector leader);
    }

    static Stream<Arguments> releases() {
        return Stream.<Arguments>of(
                Arguments.of("preferredHolder elsewhere, seen on the watch event", (GiveUp) (h, a) -> {
                    h.store.put(LEASE, h.store.peek(LEASE).orElseThrow().withPreferredHolder("b"));
                    h.scheduler.runDue();
                }),
                Arguments.of("preferredHolder elsewhere, found by the next renew (watch event lost)", (GiveUp)
                        (h, a) -> {
                            h.store.putUnwatched(
                                    LEASE, h.store.peek(LEASE).orElseThrow().withPreferredHolder("b"));
                            h.scheduler.advance(RP);
                        }),
                Arguments.of("stop()", (GiveUp) (h, a) -> a.stop()));
    }

    /**
     * A release lets the successor in at once (the controller assigns it, or a contender takes it on the event), so
     * the leader must have stepped down before the release is stored: otherwise, while the release's answer is on its
     * way (a slow API server), both the old leader and its successor answer isLeader(). Found by
     * CoordinatedElectionChaosTest (two candidates leading for 0.8 s behind a release answered after 1 s).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("releases")
    void aLeaderHasSteppedDownWhenItsReleaseIsStored(String name, GiveUp giveUp) {
        List<String> events = new ArrayList<>();
        LeaderElector a = h.builder("a", Duration.ZERO)
                .onStoppedLeading(() -> events.add("stopped"))
                .build();
        a.start();
        h.scheduler.runDue();
        assertThat(a.isLeader()).isTrue();
        h.store.intercept(new InMemoryLeaseStore.Interceptor() {
            @Override
            public void after(InMemoryLeaseStore.Op op, LeaseKey key) {
                if (op == InMemoryLeaseStore.Op.UPDATE
                        && !h.store.peek(LEASE).orElseThrow().hasHolder()) {
                    events.add("release stored, a leads: " + a.isLeader());
                }
            }
        });
        giveUp.apply(h, a);
        assertThat(events).contains("release stored, a leads: false").doesNotContain("release stored, a leads: true");
        // and its onStoppedLeading has run (synchronous callbacks): the caller's guarded work ended before a
        // successor could see the lease free
        assertThat(events).containsSubsequence("stopped", "release stored, a leads: false");
        assertThat(a.isLeader()).isFalse();
    }

    /**
     * RealTimeElectionChaosTest seed 63878699765137 (230 ms of overlap): a leader yields while its stop callback is
     * still queued, the lease is deleted, it re-creates the lease and yields again, all before its callback thread
     * catches up. Then (1) the first yield's release, due once the first stop has run, released the second term's
     * lease while that term's start and stop were still queued, and (2) the second term's start ran although the term
     * had ended: the old leader worked beside the successor the release let in.
     */
    @Test
    void aQueuedStartOfAnEndedTermNeverRunsAndAReleaseWaitsForEveryQueuedCallback() {
        ArrayDeque<Runnable> callbacks = new ArrayDeque<>();
        List<String> events = new ArrayList<>();
        LeaderElector a = h.builder("a", Duration.ZERO)
                .callbackExecutor(callbacks::add)
                .onStartedLeading(() -> events.add("a starts"))
                .onStoppedLeading(() -> events.add("a stops"))
                .build();
        a.start();
        h.scheduler.runDue();
        while (!callbacks.isEmpty()) {
            callbacks.poll().run(); // term 1 starts working
        }
        assertThat(events).containsExactly("a starts");
        LeaderElector b = h.start("b", Duration.ZERO);
        h.scheduler.runDue();
        h.store.intercept(new InMemoryLeaseStore.Interceptor() {
            @Override
            public void after(InMemoryLeaseStore.Op op, LeaseKey key) {
                h.store
                        .peek(LEASE)
                        .filter(r -> !r.hasHolder())
                        .ifPresent(r -> events.add("release stored, a's callbacks queued: " + callbacks.size()));
            }
        });
        h.store.put(LEASE, h.store.peek(LEASE).orElseThrow().withPreferredHolder("b"));
        h.scheduler.runDue(); // yield 1: term 1's stop is queued, not run
        h.store.delete(LEASE);
        h.scheduler.runDue(); // a re-creates the lease it just gave up: term 2, its start queued
        assertThat(h.store.peek(LEASE).orElseThrow().holderIdentity()).isEqualTo("a");
        h.store.put(LEASE, h.store.peek(LEASE).orElseThrow().withPreferredHolder("b"));
        h.scheduler.runDue(); // yield 2: term 2 ends before its start has run
        while (!callbacks.isEmpty()) {
            callbacks.poll().run();
            h.scheduler.runDue();
        }
        h.scheduler.runDue();
        assertThat(events.stream().filter(e -> e.equals("a starts")))
                .as(events.toString())
                .hasSize(1);
        assertThat(events.stream().filter(e -> e.startsWith("release stored")))
                .as(events.toString())
                .isNotEmpty()
                .allMatch(e -> e.endsWith("queued: 0"));
        assertThat(b.isLeader()).isTrue();
    }

    /**
     * The operator's Lease deleted while held (its holder keeps a finalizer): the leader stops, then lets it go; a
     * contender — one that never saw the leader too — waits, and starts only on a new Lease, after the leader's term.
     */
    @Test
    void aLeaseWhoseDeletionWasRequestedIsLetGoByItsLeaderAfterItsWorkAndNeverTakenMeanwhile() {
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        assertThat(a.isLeader()).isTrue();
        h.store.requestDeletion(LEASE);
        LeaderElector fresh = h.start("fresh", Duration.ZERO); // started after the delete: it never saw a lead
        h.scheduler.runDue();
        assertThat(h.intervals)
                .as("the leader's term ended on the requested deletion")
                .extracting(ElectorHarness.Interval::identity)
                .containsExactly("a");
        // the release let the deletion finish; whoever leads now (a again, here: its work had stopped) does so on a
        // new Lease, and nobody took the old one while a worked
        LeaseRecord now = h.store.peek(LEASE).orElseThrow();
        assertThat(now.deletionRequested()).isFalse();
        assertThat(Long.parseLong(now.resourceVersion())).isGreaterThan(2);
        h.scheduler.advance(LD.multipliedBy(3));
        assertThat(a.isLeader() ^ fresh.isLeader()).isTrue();
        assertThat(h.overlaps()).isEmpty();
        h.closeOpen(List.of(a, fresh));
    }

    /**
     * The same with the leader's watch down (the event lost): the leader finds the requested deletion on its next
     * renew, and meanwhile a contender, fresh or not, still treats the Lease in deletion as held.
     */
    @Test
    void aRequestedDeletionTheLeaderDidNotSeeOnItsWatchEndsItsTermAtItsNextRenewAndNobodyTakesTheLease() {
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        h.store.requestDeletion(LEASE, false);
        LeaderElector fresh = h.start("fresh", Duration.ZERO);
        h.scheduler.runDue();
        assertThat(fresh.isLeader()).as("the Lease in deletion is not free").isFalse();
        assertThat(h.intervals).as("the leader has not seen it yet").isEmpty();
        h.scheduler.advance(RP.multipliedBy(2));
        assertThat(h.intervals)
                .as("its next renew found the deletion and ended the term")
                .extracting(ElectorHarness.Interval::identity)
                .containsExactly("a");
        h.scheduler.advance(LD.multipliedBy(3));
        assertThat(a.isLeader() ^ fresh.isLeader()).isTrue();
        assertThat(h.overlaps()).isEmpty();
        h.closeOpen(List.of(a, fresh));
    }

    /** The leader died with its Lease in deletion: after the record's duration a contender lets it go, then leads. */
    @Test
    void aLeaseInDeletionWhoseHolderDiedIsLetGoAfterItsDurationAndOnlyThen() {
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        a.stopWithoutRelease(); // crashed: no release, no finalizer removal
        h.store.requestDeletion(LEASE);
        Instant deleted = h.scheduler.now();
        LeaderElector b = h.start("b", Duration.ZERO);
        h.scheduler.advance(LD.minusSeconds(1));
        assertThat(b.isLeader()).as("a may still be working").isFalse();
        assertThat(h.store.peek(LEASE)).as("still in deletion").isPresent();
        h.scheduler.advance(RP.multipliedBy(4));
        assertThat(b.isLeader()).isTrue();
        assertThat(h.intervals.get(0).end()).isBeforeOrEqualTo(deleted);
        assertThat(h.overlaps()).isEmpty();
        h.closeOpen(List.of(b));
    }

    @Test
    void aStaleWatchEventNamingAnotherHolderDoesNotEndAValidLeadership() {
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        LeaseRecord mine = h.store.peek(LEASE).orElseThrow();
        // The previous holder's last renew, delivered after a's acquisition (the store still names a).
        h.store.deliverStale(LEASE, mine.withHolderIdentity("previous"));
        h.scheduler.runDue();
        assertThat(a.isLeader()).isTrue();
        assertThat(h.intervals).as("no leadership interval ended").isEmpty();
        // A real foreign write still ends it at once.
        h.store.put(LEASE, h.store.peek(LEASE).orElseThrow().withHolderIdentity("intruder"));
        h.scheduler.runDue();
        assertThat(a.isLeader()).isFalse();
    }

    /**
     * A hand edit shortens the lease (15 s → 1 s) while a leads: a contender that sees it may take over after 1 s,
     * long before a's fence (renewDeadline after its last renew). The previous elector went on leading (its next
     * renew put 15 s back, too late for a contender that had already counted 1 s); now a ends its term on the event.
     */
    @Test
    void aLeaderWhoseLeaseIsShortenedByAnotherWriterEndsItsTermAtOnce() {
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        LeaderElector b = h.start("b", Duration.ZERO);
        h.scheduler.advance(Duration.ofMillis(500));
        Instant edited = h.scheduler.now();
        h.store.put(LEASE, h.store.peek(LEASE).orElseThrow().withLeaseDurationSeconds(1));
        h.scheduler.runDue();
        assertThat(a.isLeader())
                .as("a still leads after its lease was shortened to 1 s")
                .isFalse();
        assertThat(h.intervals)
                .singleElement()
                .satisfies(i -> assertThat(i.end()).isEqualTo(edited));
        h.scheduler.advance(LD);
        h.closeOpen(List.of(a, b));
        assertThat(h.overlaps()).isEmpty();
        // a renewal of our own (duration as configured) is not an edit: the new leader keeps leading
        assertThat(h.intervals).hasSizeGreaterThanOrEqualTo(2);
    }

    @Test
    void acquireRetriesAreJitteredBetweenOneAndTwoPointTwoRetryPeriods() {
        List<Duration> delays = new ArrayList<>();
        Scheduler recording = (delay, task) -> {
            delays.add(delay);
            return h.scheduler.schedule(delay, task);
        };
        h.store.put(LEASE, LeaseRecord.heldBy("someone", Duration.ofSeconds(3600), h.scheduler.now()));
        LeaderElector a = h.builder("a", Duration.ZERO).scheduler(recording).build();
        a.start();
        h.scheduler.advance(Duration.ofMinutes(5));
        List<Duration> retries = delays.subList(1, delays.size());
        assertThat(retries)
                .hasSizeGreaterThan(20)
                .allSatisfy(d -> assertThat(d).isBetween(RP, RP.multipliedBy(22).dividedBy(10)));
        assertThat(retries.stream().distinct().count())
                .as("spread, not lockstep")
                .isGreaterThan(retries.size() / 2);
        assertThat(retries.stream().mapToLong(Duration::toMillis).max().orElseThrow())
                .isGreaterThan(RP.multipliedBy(18).dividedBy(10).toMillis());
    }

    @Test
    void healthIsBadOnlyWhenLeadingWithoutRenewForLeaseDurationPlusGrace() {
        LeaderElector a =
                h.builder("a", Duration.ZERO).healthGrace(Duration.ofSeconds(5)).build();
        assertThat(a.health().healthy()).isTrue();
        a.start();
        h.scheduler.runDue();
        assertThat(a.health()).satisfies(s -> {
            assertThat(s.leading()).isTrue();
            assertThat(s.healthy()).isTrue();
        });
        h.scheduler.elapse(LD.plusSeconds(5)); // the loop does not run: wedged
        assertThat(a.health().healthy()).isTrue();
        h.scheduler.elapse(Duration.ofMillis(1));
        assertThat(a.health().healthy()).isFalse();
        assertThat(a.health().detail()).contains("stuck");
        assertThat(a.isLeader())
                .as("a wedged leader no longer claims leadership")
                .isFalse();
    }

    @Test
    void metricsSeeLeadershipRenewsAndFailures() {
        List<String> seen = new ArrayList<>();
        ElectionMetrics m = new ElectionMetrics() {
            @Override
            public void leadershipChanged(LeaseKey lease, boolean leading) {
                seen.add("leading=" + leading);
            }

            @Override
            public void renewSucceeded(LeaseKey lease, Duration latency) {
                seen.add("renewed");
            }

            @Override
            public void renewFailed(LeaseKey lease, LeaseStoreException cause) {
                seen.add("failed");
            }
        };
        LeaderElector a = h.builder("a", Duration.ZERO).metrics(m).build();
        a.start();
        h.scheduler.runDue();
        h.scheduler.advance(RP);
        // the optimistic write and the write after the fallback read both fail: one failed attempt
        h.store.failNext(InMemoryLeaseStore.Op.UPDATE, new LeaseStoreFailure(LEASE, 500, "injected", null));
        h.store.failNext(InMemoryLeaseStore.Op.UPDATE, new LeaseStoreFailure(LEASE, 500, "injected", null));
        h.scheduler.advance(RP);
        a.stop();
        assertThat(seen).containsExactly("leading=true", "renewed", "failed", "leading=false");
    }

    // ---------------------------------------------------------------- issue 13: deletion, 404, fallback, clock steps

    @Test
    void aLeaseDeletedWhileHeldIsCreatedOnlyALeaseDurationAfterTheDeletionWasSeen() {
        h.store.put(LEASE, LeaseRecord.heldBy("a", LD, h.scheduler.now())); // a: another process, still working
        LeaderElector b = h.start("b", Duration.ZERO);
        h.scheduler.runDue();
        h.scheduler.advance(Duration.ofSeconds(3));
        h.store.delete(LEASE);
        Instant deleted = h.scheduler.now();
        h.scheduler.advance(LD.minusMillis(1));
        assertThat(b.isLeader())
                .as("a deletion is no evidence that a stopped: b waits a leaseDuration")
                .isFalse();
        assertThat(h.store.peek(LEASE)).isEmpty();
        h.scheduler.advance(RP.multipliedBy(3));
        assertThat(b.isLeader()).isTrue();
        h.closeOpen(List.of(b));
        assertThat(h.intervals.get(0).start()).isAfterOrEqualTo(deleted.plus(LD));
    }

    @Test
    void aContenderWhoseCreateLostTheRaceTreatsTheLeaseAsHeldUntilItReadsIt() {
        PartitionedLeaseStore bView = new PartitionedLeaseStore(h.store);
        bView.watchLost = true; // b never sees a's record: only its 409 tells it someone created the lease
        h.store.intercept(new InMemoryLeaseStore.Interceptor() {
            @Override
            public void before(InMemoryLeaseStore.Op op, LeaseKey key) {
                if (op == InMemoryLeaseStore.Op.CREATE && h.store.peek(LEASE).isEmpty()) {
                    h.store.put(LEASE, LeaseRecord.heldBy("a", LD, h.scheduler.now())); // a wins the race
                }
            }
        });
        LeaderElector b = h.builder("b", Duration.ZERO).store(bView).build();
        b.start();
        h.scheduler.runDue();
        h.store.intercept(new InMemoryLeaseStore.Interceptor() {});
        h.store.delete(LEASE); // before b's next read
        Instant deleted = h.scheduler.now();
        h.scheduler.advance(LD.minusMillis(1));
        assertThat(b.isLeader()).isFalse();
        h.scheduler.advance(RP.multipliedBy(3));
        assertThat(b.isLeader()).isTrue();
        h.closeOpen(List.of(b));
        assertThat(h.intervals.get(0).start()).isAfterOrEqualTo(deleted.plus(LD));
    }

    @Test
    void aRecordNamingUsThatWeDidNotSeeOurselvesWriteIsHonouredUntilItExpires() {
        // b's create lands but its answer is lost (or was abandoned at its budget): whoever led before may still be
        // stopping, so b does not renew that record into leadership as if it had seen itself write it
        boolean[] lost = {false};
        h.store.intercept(new InMemoryLeaseStore.Interceptor() {
            @Override
            public void after(InMemoryLeaseStore.Op op, LeaseKey key) {
                if (op == InMemoryLeaseStore.Op.CREATE && !lost[0]) {
                    lost[0] = true;
                    throw new LeaseStoreFailure(key, 0, "answer lost (injected)", null);
                }
            }
        });
        LeaderElector b = h.start("b", Duration.ZERO);
        h.scheduler.runDue();
        Instant landed = h.scheduler.now();
        assertThat(h.store.peek(LEASE).orElseThrow().holderIdentity()).isEqualTo("b");
        h.scheduler.advance(LD.minusMillis(1));
        assertThat(b.isLeader()).isFalse();
        h.scheduler.advance(RP.multipliedBy(3));
        assertThat(b.isLeader()).isTrue();
        h.closeOpen(List.of(b));
        assertThat(h.intervals.get(0).start()).isAfterOrEqualTo(landed.plus(LD));
    }

    @Test
    void theLeaderStepsDownAtOnceWhenItsLeaseIsDeleted() {
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        h.scheduler.advance(Duration.ofMillis(500));
        assertThat(a.isLeader()).isTrue();
        Instant deleted = h.scheduler.now();
        h.store.delete(LEASE);
        h.scheduler.runDue();
        assertThat(a.isLeader()).isFalse();
        assertThat(h.intervals)
                .singleElement()
                .satisfies(i -> assertThat(i.end()).isEqualTo(deleted));
    }

    @Test
    void aNotFoundOnTheOptimisticRenewStepsDown() {
        PartitionedLeaseStore aView = new PartitionedLeaseStore(h.store);
        LeaderElector a = h.builder("a", Duration.ZERO).store(aView).build();
        a.start();
        h.scheduler.runDue();
        aView.watchLost = true; // the DELETED event never arrives: the renew's 404 must be enough
        h.store.delete(LEASE);
        Instant deleted = h.scheduler.now();
        h.scheduler.advance(RP);
        assertThat(a.isLeader()).isFalse();
        assertThat(h.intervals)
                .singleElement()
                .satisfies(i -> assertThat(i.end()).isEqualTo(deleted.plus(RP)));
    }

    @Test
    void anyFailureOfTheOptimisticRenewFallsBackToARead() {
        LeaderElector a = h.start("a", Duration.ZERO);
        h.scheduler.runDue();
        h.store.resetCounts();
        h.store.failNext(InMemoryLeaseStore.Op.UPDATE, new LeaseStoreFailure(LEASE, 500, "injected", null));
        h.scheduler.advance(RP);
        assertThat(h.store.calls(InMemoryLeaseStore.Op.GET)).isEqualTo(1);
        assertThat(h.store.calls(InMemoryLeaseStore.Op.UPDATE)).isEqualTo(2);
        assertThat(a.isLeader()).isTrue();
        assertThat(h.store.peek(LEASE).orElseThrow().renewTime()).isEqualTo(h.scheduler.now());
    }

    @Test
    void wallClockStepsMoveNoDeadline() {
        // a is cut off from the API server (it cannot renew) and its wall clock steps back by 8 s (NTP); b's wall
        // clock steps forward by 8 s. Measured on the wall clock, a would keep leading 8 s past its renew deadline
        // and b would take over 8 s early: both overlap. On the monotonic clocks (virtual time) neither moves.
        Duration[] aStep = {Duration.ZERO};
        Duration[] bStep = {Duration.ZERO};
        PartitionedLeaseStore aView = new PartitionedLeaseStore(h.store);
        LeaderElector a = h.builder("a", Duration.ZERO)
                .store(aView)
                .clock(() -> h.scheduler.now().plus(aStep[0]))
                .build();
        LeaderElector b = h.builder("b", Duration.ZERO)
                .clock(() -> h.scheduler.now().plus(bStep[0]))
                .build();
        a.start();
        h.scheduler.runDue();
        b.start();
        h.scheduler.advance(Duration.ofSeconds(3));
        aView.partitioned = true;
        aStep[0] = Duration.ofSeconds(-8);
        bStep[0] = Duration.ofSeconds(8);
        h.scheduler.advance(LD.multipliedBy(2));
        h.closeOpen(List.of(a, b));
        assertThat(h.intervals).extracting(ElectorHarness.Interval::identity).containsExactly("a", "b");
        assertThat(h.overlaps()).isEmpty();
        assertThat(h.store.peek(LEASE).orElseThrow().acquireTime())
                .as("the wall clock is still what gets written")
                .isEqualTo(h.intervals.get(1).start().plusSeconds(8));
    }
}
