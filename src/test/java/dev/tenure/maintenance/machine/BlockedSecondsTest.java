package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.machine.MaintenanceMetrics.BlockerKind;
import dev.tenure.maintenance.machine.MaintenanceMetrics.StageLabel;
import dev.tenure.maintenance.machine.MaintenanceMetrics.StageOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 (metrics per stage): the seconds a maintenance is held, put on what held it (a PodDisruptionBudget, a hook
 * owner), on a clock the test sets; the names stay a bounded set however many budgets there are; the door's waits
 * (queue, window) are timed from their first hold to their end.
 */
class BlockedSecondsTest {

    static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final MaintenanceMetrics metrics = new MaintenanceMetrics(registry);

    double blocked(BlockerKind kind, String name) {
        Counter c = registry.find(MaintenanceMetrics.BLOCKED_SECONDS)
                .tag("kind", kind.name())
                .tag("name", name)
                .counter();
        return c == null ? 0 : c.count();
    }

    Timer stage(StageLabel stage, StageOutcome outcome) {
        return registry.find(MaintenanceMetrics.STAGE_DURATION)
                .tag("stage", stage.name())
                .tag("outcome", outcome.name())
                .timer();
    }

    @Test
    void eachIntervalGoesOnWhatHeldTheMaintenanceAtItsStart() {
        metrics.blocking("w1", BlockerKind.hook, Set.of("rook-ceph", "app"), T0);
        metrics.blocking("w1", BlockerKind.hook, Set.of("rook-ceph", "app"), T0.plusSeconds(120));
        metrics.blocking("w1", BlockerKind.hook, Set.of("rook-ceph"), T0.plusSeconds(180)); // app removed
        metrics.blocking("w1", BlockerKind.hook, Set.of(), T0.plusSeconds(210)); // released

        assertThat(blocked(BlockerKind.hook, "app")).isEqualTo(180.0);
        assertThat(blocked(BlockerKind.hook, "rook-ceph")).isEqualTo(210.0);

        metrics.blocking("w1", BlockerKind.hook, Set.of(), T0.plusSeconds(900)); // nothing held it since
        metrics.blocking("w1", BlockerKind.pdb, Set.of("app/web"), T0.plusSeconds(900));
        metrics.blocking("w2", BlockerKind.pdb, Set.of("app/web"), T0.plusSeconds(930));
        metrics.blocking("w1", BlockerKind.pdb, Set.of("app/web"), T0.plusSeconds(960));
        metrics.blocking("w2", BlockerKind.pdb, Set.of(), T0.plusSeconds(935));

        assertThat(blocked(BlockerKind.hook, "rook-ceph")).isEqualTo(210.0);
        assertThat(blocked(BlockerKind.pdb, "app/web"))
                .as("60 s on w1, 5 s on w2")
                .isEqualTo(65.0);
    }

    @Test
    void aForgottenNodeCountsNothingMore() {
        metrics.blocking("w1", BlockerKind.pdb, Set.of("app/web"), T0);
        metrics.forget("m", "w1");
        metrics.blocking("w1", BlockerKind.pdb, Set.of("app/web"), T0.plusSeconds(3600));
        metrics.blocking("w1", BlockerKind.pdb, Set.of(), T0.plusSeconds(3610));

        assertThat(blocked(BlockerKind.pdb, "app/web")).isEqualTo(10.0);
    }

    @Test
    void manyBudgetsKeepABoundedSetOfSeriesAndLoseNoSecond() {
        List<String> budgets = IntStream.range(0, 500)
                .mapToObj(i -> "ns-" + i + "/budget-" + i + "-" + "x".repeat(80))
                .toList();
        for (int i = 0; i < budgets.size(); i++) {
            metrics.blocking("node-" + i, BlockerKind.pdb, Set.of(budgets.get(i)), T0);
            metrics.blocking("node-" + i, BlockerKind.pdb, Set.of(), T0.plusSeconds(10));
        }

        List<Counter> series = registry.find(MaintenanceMetrics.BLOCKED_SECONDS).tag("kind", "pdb").counters().stream()
                .toList();
        assertThat(series).hasSize(MaintenanceMetrics.BLOCKER_NAMES_MAX + 1);
        assertThat(series).allSatisfy(c -> assertThat(c.getId().getTag("name")).hasSizeLessThanOrEqualTo(63));
        assertThat(blocked(BlockerKind.pdb, BoundedNames.FirstSeen.OTHER))
                .isEqualTo(10.0 * (budgets.size() - MaintenanceMetrics.BLOCKER_NAMES_MAX));
        assertThat(series.stream().mapToDouble(Counter::count).sum()).isEqualTo(10.0 * budgets.size());
    }

    @Test
    void theDoorsWaitsAreTimedFromTheirFirstHoldToTheirEnd() {
        metrics.waitingIn("m", StageLabel.window_wait, T0);
        metrics.waitingIn("m", StageLabel.window_wait, T0.plusSeconds(600)); // still waiting: same wait
        metrics.waitingIn("m", StageLabel.queue, T0.plusSeconds(3600)); // window open, the queue holds it
        metrics.waitEnded("m", StageOutcome.completed, T0.plusSeconds(3690)); // admitted
        metrics.waitEnded("m", StageOutcome.completed, T0.plusSeconds(7200)); // no wait: nothing

        metrics.waitingIn("gone", StageLabel.queue, T0);
        metrics.forget("gone", "w9");
        metrics.waitEnded("gone", StageOutcome.deleted, T0.plusSeconds(5));

        assertThat(stage(StageLabel.window_wait, StageOutcome.completed).totalTime(TimeUnit.SECONDS))
                .isEqualTo(3600.0);
        assertThat(stage(StageLabel.queue, StageOutcome.completed).totalTime(TimeUnit.SECONDS))
                .isEqualTo(90.0);
        assertThat(stage(StageLabel.queue, StageOutcome.completed).count()).isEqualTo(1);
        assertThat(stage(StageLabel.queue, StageOutcome.deleted)).isNull();
    }

    @Test
    void aStageIsRecordedInSecondsWithItsOutcome() {
        metrics.stage(StageLabel.volume_detach, StageOutcome.proceed, T0, T0.plus(Duration.ofMinutes(5)));
        assertThat(stage(StageLabel.volume_detach, StageOutcome.proceed).totalTime(TimeUnit.SECONDS))
                .isEqualTo(300.0);
    }
}
