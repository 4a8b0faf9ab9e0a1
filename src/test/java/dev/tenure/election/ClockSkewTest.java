package dev.tenure.election;

import static dev.tenure.election.ElectorHarness.LD;
import static dev.tenure.election.ElectorHarness.LEASE;
import static dev.tenure.election.ElectorHarness.RP;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Clock skew of ±leaseDuration/2 between leader and contender. The leader is cut off from the
 * API server right after a renew, so it gives up at renewDeadline and the contender takes over
 * when the lease expires in its view. The observer view never overlaps; the authority view
 * (renewTime + leaseDuration against the contender's clock) does when the contender's clock is
 * ahead — which is why electors use the observer view and only controllers that cannot watch
 * (and run on the control plane's synchronised clocks) use the authority view.
 */
class ClockSkewTest {
    static final Duration HALF = LD.dividedBy(2);

    /** Each skew pair with several jitter seeds, so some contender retry lands in every window an error would open. */
    static Stream<Arguments> skews() {
        List<Duration[]> pairs = List.of(
                new Duration[] {Duration.ZERO, HALF},
                new Duration[] {Duration.ZERO, HALF.negated()},
                new Duration[] {HALF, Duration.ZERO},
                new Duration[] {HALF.negated(), Duration.ZERO},
                new Duration[] {HALF, HALF.negated()},
                new Duration[] {HALF.negated(), HALF});
        return pairs.stream().flatMap(p -> LongStream.range(1, 9).mapToObj(seed -> Arguments.of(p[0], p[1], seed)));
    }

    @ParameterizedTest(name = "leader clock {0}, contender clock {1}, seed {2}")
    @MethodSource("skews")
    void observerViewToleratesSkew(Duration leaderOffset, Duration contenderOffset, long seed) {
        ElectorHarness h = new ElectorHarness(seed);
        PartitionedLeaseStore leaderView = new PartitionedLeaseStore(h.store);
        LeaderElector leader =
                h.builder("leader", leaderOffset).store(leaderView).build();
        leader.start();
        h.scheduler.runDue();
        LeaderElector contender = h.start("contender", contenderOffset);
        h.scheduler.advance(Duration.ofSeconds(20));
        leaderView.partitioned = true; // just after a renew at t = 20 s
        h.scheduler.advance(Duration.ofSeconds(60));
        assertThat(contender.isLeader()).isTrue();
        h.closeOpen(List.of(leader, contender));
        assertThat(h.intervals).extracting(ElectorHarness.Interval::identity).containsExactly("leader", "contender");
        assertThat(h.overlaps()).isEmpty();
    }

    @Test
    void authorityViewOverlapsWhenTheContendersClockIsAhead() {
        ElectorHarness h = new ElectorHarness(7);
        PartitionedLeaseStore leaderView = new PartitionedLeaseStore(h.store);
        LeaderElector leader =
                h.builder("leader", Duration.ZERO).store(leaderView).build();
        leader.start();
        h.scheduler.runDue();
        AuthorityViewContender contender = new AuthorityViewContender(h, h.scheduler.clock(HALF));
        contender.tick();
        h.scheduler.advance(Duration.ofSeconds(20));
        leaderView.partitioned = true;
        h.scheduler.advance(Duration.ofSeconds(60));
        h.closeOpen(List.of(leader));
        assertThat(contender.tookOverAt).isNotNull();
        ElectorHarness.Interval leaderReign = h.intervals.get(0);
        assertThat(contender.tookOverAt)
                .as("authority view took the lease while the old leader still believed it led")
                .isBefore(leaderReign.end());
    }

    /** A contender that trusts the writer's renewTime against its own clock (what electors must not do). */
    static final class AuthorityViewContender {
        final ElectorHarness h;
        final InstantSource clock;
        Instant tookOverAt;

        AuthorityViewContender(ElectorHarness h, InstantSource clock) {
            this.h = h;
            this.clock = clock;
        }

        void tick() {
            if (tookOverAt != null) {
                return;
            }
            LeaseRecord current = h.store.get(LEASE);
            if (!LeaseRules.authorityStatus(current, clock.instant(), Duration.ofSeconds(5))
                    .isValid()) {
                h.store.update(LEASE, LeaseRules.heldRecord(current, "authority-contender", clock.instant(), LD));
                tookOverAt = h.scheduler.now();
                return;
            }
            h.scheduler.schedule(RP, this::tick);
        }
    }
}
