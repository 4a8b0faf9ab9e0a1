package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** The chaos suites' trial runner: every seed run once, side by side, and a failed trial named with its replay line. */
class SeededTrialsTest {
    record Seen(long seed, long millis, List<String> problems, String trace, String thread)
            implements SeededTrials.Outcome {}

    static Seen trial(long seed) {
        return new Seen(
                seed,
                seed,
                seed == 12 ? List.of("node n1 is left cordoned") : List.of(),
                "trace of " + seed,
                Thread.currentThread().getName());
    }

    @Test
    void seedsCountUpFromTheFirstOrRepeatTheReplayedOne() {
        assertThat(SeededTrials.seeds(10, 3, null)).containsExactly(10L, 11L, 12L);
        assertThat(SeededTrials.seeds(10, 2, 99L)).containsExactly(99L, 99L);
        assertThat(SeededTrials.seeds(10, 0, null)).isEmpty();
    }

    @Test
    void everySeedRunsOnceOnTheSuitesThreadsAtMostParallelAtATime() throws Exception {
        SeededTrials trials = new SeededTrials("test", "test-trial-", 8);
        List<Integer> doneSoFar = new ArrayList<>();
        Set<String> threads = ConcurrentHashMap.newKeySet();
        SeededTrials.Ran<Seen> ran = trials.run(SeededTrials.seeds(1, 3, null), SeededTrialsTest::trial, (o, done) -> {
            threads.add(o.thread());
            synchronized (doneSoFar) {
                doneSoFar.add(done.size());
            }
        });
        assertThat(ran.outcomes()).extracting(Seen::seed).containsExactlyInAnyOrder(1L, 2L, 3L);
        assertThat(ran.parallel()).as("no more at a time than seeds").isEqualTo(3);
        assertThat(ran.sortedMillis()).containsExactly(1, 2, 3);
        assertThat(threads).allMatch(t -> t.matches("test-trial-[123]"));
        assertThat(doneSoFar).as("each trial's report sees the outcomes so far").hasSize(3);
        assertThat(doneSoFar).allMatch(n -> n >= 1 && n <= 3);
    }

    @Test
    void passingTrialsPass() throws Exception {
        SeededTrials trials = new SeededTrials("test", "test-trial-", 2);
        SeededTrials.Ran<Seen> ran = trials.run(SeededTrials.seeds(1, 4, null), SeededTrialsTest::trial, (o, d) -> {});
        trials.assertAllPassed(ran, 4, o -> "fault");
    }

    @Test
    void aFailedTrialIsNamedWithItsSeedWhatStruckAndItsReplayLine() throws Exception {
        SeededTrials trials = new SeededTrials("test chaos", "test-trial-", 2);
        SeededTrials.Ran<Seen> ran = trials.run(SeededTrials.seeds(10, 4, null), SeededTrialsTest::trial, (o, d) -> {});
        assertThatThrownBy(() -> trials.assertAllPassed(ran, 4, o -> "KILL at MID_DRAIN"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("test chaos trials that failed")
                .hasMessageContaining(
                        "12 (KILL at MID_DRAIN): node n1 is left cordoned — replay: -Dtenure.chaos.trial=12")
                .hasMessageNotContaining("11 (");
    }

    @Test
    void aTrialThatDidNotRunFails() throws Exception {
        SeededTrials trials = new SeededTrials("test", "test-trial-", 2);
        SeededTrials.Ran<Seen> ran = trials.run(SeededTrials.seeds(1, 2, null), SeededTrialsTest::trial, (o, d) -> {});
        assertThatThrownBy(() -> trials.assertAllPassed(ran, 3, o -> ""))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("every test trial ran");
    }
}
