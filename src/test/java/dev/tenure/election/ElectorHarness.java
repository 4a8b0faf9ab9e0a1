package dev.tenure.election;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Runs electors on one {@link ManualScheduler} and records, per elector, every interval during
 * which it believed it was leader (from onStartedLeading to onStoppedLeading), in true virtual time.
 */
final class ElectorHarness {
    static final LeaseKey LEASE = LeaseKey.of("tenure-system", "tenure-operator");
    static final Duration LD = Duration.ofSeconds(15);
    static final Duration RD = Duration.ofSeconds(10);
    static final Duration RP = Duration.ofSeconds(2);

    record Interval(String identity, Instant start, Instant end) {
        boolean overlaps(Interval o) {
            return start.isBefore(o.end) && o.start.isBefore(end);
        }
    }

    final ManualScheduler scheduler = new ManualScheduler(Instant.parse("2026-01-01T00:00:00Z"));
    final InMemoryLeaseStore store = new InMemoryLeaseStore();
    final List<Interval> intervals = new ArrayList<>();
    final List<String> leaders = new ArrayList<>();
    final Random random;

    ElectorHarness(long seed) {
        this.random = new Random(seed);
    }

    LeaderElector.Builder builder(String identity, Duration clockOffset) {
        Instant[] started = {null};
        return LeaderElector.builder()
                .lease(LEASE)
                .identity(identity)
                .leaseDuration(LD)
                .renewDeadline(RD)
                .retryPeriod(RP)
                .store(store)
                .scheduler(scheduler)
                .unsafeAllOnLoopSchedulerForTests() // virtual time: one ManualScheduler drives it all
                .clock(scheduler.clock(clockOffset))
                .monotonic(scheduler.clock(clockOffset))
                .random(new Random(random.nextLong()))
                .onStartedLeading(() -> started[0] = scheduler.now())
                .onStoppedLeading(() -> {
                    if (started[0] != null) {
                        intervals.add(new Interval(identity, started[0], scheduler.now()));
                        started[0] = null;
                    }
                })
                .onNewLeader(leaders::add);
    }

    LeaderElector start(String identity, Duration clockOffset) {
        LeaderElector e = builder(identity, clockOffset).build();
        e.start();
        return e;
    }

    /** Closes open intervals of electors still leading at the end of a run. */
    void closeOpen(List<LeaderElector> electors) {
        for (LeaderElector e : electors) {
            e.stopWithoutRelease();
        }
    }

    List<Interval> overlaps() {
        List<Interval> bad = new ArrayList<>();
        for (int i = 0; i < intervals.size(); i++) {
            for (int j = i + 1; j < intervals.size(); j++) {
                if (intervals.get(i).overlaps(intervals.get(j))) {
                    bad.add(intervals.get(i));
                    bad.add(intervals.get(j));
                }
            }
        }
        return bad;
    }
}
