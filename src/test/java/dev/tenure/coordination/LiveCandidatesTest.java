package dev.tenure.coordination;

import static dev.tenure.coordination.CandidateFixture.NOW;
import static dev.tenure.coordination.CandidateFixture.cand;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.LeaseKey;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 38 item 7: TenureCoordinatedLeaseLeaderless kept firing for a workload whose candidates were all killed
 * (they stay admissible for 30 min); tenure_coordination_live_candidates tells that case apart.
 */
class LiveCandidatesTest {

    private static final ElectionPlanner PLANNER = new ElectionPlanner(ElectionTiming.UPSTREAM, true);
    private static final Duration WINDOW = ElectionTiming.UPSTREAM.electionWindow();

    @Test
    void aCandidateThatLetAPingGoUnansweredIsNotLive() {
        var answered = cand("a")
                .versions("1.19.0", "1.19.0")
                .pinged(NOW.minus(WINDOW.multipliedBy(2)))
                .renewed(NOW.minus(WINDOW))
                .build();
        var neverPinged = cand("b")
                .versions("1.19.0", "1.19.0")
                .renewed(NOW.minus(Duration.ofMinutes(5)))
                .build();
        var pingOpen = cand("c")
                .versions("1.19.0", "1.19.0")
                .pinged(NOW.minus(WINDOW.dividedBy(2)))
                .renewed(NOW.minus(Duration.ofMinutes(5)))
                .build();
        var silent = cand("d")
                .versions("1.19.0", "1.19.0")
                .pinged(NOW.minus(WINDOW.multipliedBy(2)))
                .renewed(NOW.minus(Duration.ofMinutes(5)))
                .build();
        assertThat(PLANNER.liveCandidates(List.of(answered, neverPinged, pingOpen, silent), NOW))
                .isEqualTo(3);
        assertThat(PLANNER.liveCandidates(List.of(silent), NOW)).isZero();
    }

    @Test
    void theGaugeGoesWithTheLeaderlessOne() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CoordinationMetrics metrics = new CoordinationMetrics(registry, Clock.fixed(NOW, ZoneOffset.UTC));
        LeaseKey key = new LeaseKey("app", "db");
        ElectionStep failed = ElectionStep.failed(
                ElectionStep.FailureReason.NO_ACKED_CANDIDATES, "no candidate answered", Duration.ofSeconds(5));
        metrics.liveCandidates(key, failed, 0);
        assertThat(registry.get("tenure.coordination.live.candidates")
                        .tag("lease", "db")
                        .gauge()
                        .value())
                .isZero();
        metrics.liveCandidates(key, failed, 2);
        assertThat(registry.get("tenure.coordination.live.candidates")
                        .tag("lease", "db")
                        .gauge()
                        .value())
                .isEqualTo(2.0);
        metrics.forget(key);
        assertThat(registry.find("tenure.coordination.live.candidates").gauges())
                .isEmpty();
    }
}
