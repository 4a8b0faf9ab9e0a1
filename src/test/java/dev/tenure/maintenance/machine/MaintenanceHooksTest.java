package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.maintenance.machine.MaintenanceHooks.Hooks;
import dev.tenure.maintenance.machine.MaintenanceHooks.Point;
import dev.tenure.maintenance.machine.MaintenanceHooks.Verdict;
import dev.tenure.maintenance.machine.MaintenanceHooks.Wait;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Cluster API style hooks: which annotations hold which point, and what a wait at a point means over time. */
class MaintenanceHooksTest {

    private static final Instant T0 = Instant.parse("2026-11-26T02:00:00Z");
    private static final Duration TIMEOUT = Duration.ofMinutes(10);

    @Test
    void theOwnersOfEachPointAreReadFromTheirAnnotationsSorted() {
        Map<String, String> annotations = Map.of(
                "pre-drain.hooks.tenure.dev/rook-ceph", "set noout",
                "pre-drain.hooks.tenure.dev/app-operator", "",
                "pre-uncordon.hooks.tenure.dev/rook-ceph", "unset noout",
                "pre-drain.hooks.tenure.dev/", "an empty owner is no hook",
                "hooks.tenure.dev/other", "not a point",
                "kubectl.kubernetes.io/last-applied-configuration", "{}");

        Hooks hooks = Hooks.of(annotations, TIMEOUT);

        assertThat(hooks.preDrain()).containsExactly("app-operator", "rook-ceph");
        assertThat(hooks.preUncordon()).containsExactly("rook-ceph");
        assertThat(MaintenanceHooks.owners(null, Point.PreDrain)).isEmpty();
    }

    @Test
    void onlyAChangeOfHooksCountsAsOne() {
        Map<String, String> one = Map.of("pre-drain.hooks.tenure.dev/storage", "", "team", "a");

        assertThat(MaintenanceHooks.changed(one, Map.of("pre-drain.hooks.tenure.dev/storage", "new value")))
                .isFalse();
        assertThat(MaintenanceHooks.changed(one, Map.of("team", "a"))).isTrue();
        assertThat(MaintenanceHooks.changed(null, Map.of("pre-uncordon.hooks.tenure.dev/storage", "")))
                .isTrue();
        assertThat(MaintenanceHooks.changed(null, Map.of("team", "b"))).isFalse();
    }

    @Test
    void noHookAtAPointLetsItPass() {
        Hooks hooks = new Hooks(List.of(), List.of("storage"), TIMEOUT);

        assertThat(MaintenanceHooks.decide(Point.PreDrain, hooks, null, T0)).isEqualTo(new Verdict.Clear());
    }

    @Test
    void aHookHoldsItsPointFromTheFirstTimeItIsSeenUntilTheTimeout() {
        Hooks hooks = new Hooks(List.of("storage"), List.of(), TIMEOUT);

        Verdict first = MaintenanceHooks.decide(Point.PreDrain, hooks, null, T0);
        Wait wait = MaintenanceHooks.waitOf(first).orElseThrow();
        Verdict later = MaintenanceHooks.decide(Point.PreDrain, hooks, wait, T0.plus(Duration.ofMinutes(9)));
        Verdict end = MaintenanceHooks.decide(Point.PreDrain, hooks, wait, T0.plus(TIMEOUT));

        assertThat(first)
                .isEqualTo(new Verdict.Hold(
                        new Wait(Point.PreDrain, List.of("storage"), T0),
                        TIMEOUT,
                        "waiting for PreDrain hook(s) pre-drain.hooks.tenure.dev/storage to be removed (until "
                                + "2026-11-26T02:10:00Z)"));
        assertThat(later).isInstanceOfSatisfying(Verdict.Hold.class, h -> {
            assertThat(h.waiting().since()).isEqualTo(T0); // the wait is counted from when it began
            assertThat(h.recheck()).isEqualTo(Duration.ofMinutes(1));
        });
        assertThat(end)
                .isEqualTo(new Verdict.TimedOut(
                        new Wait(Point.PreDrain, List.of("storage"), T0),
                        "PreDrain hook(s) pre-drain.hooks.tenure.dev/storage still present after 10m"
                                + " (spec.hooks.timeout)"));
    }

    @Test
    void aWaitAtAnotherPointStartsItsOwnClock() {
        Hooks hooks = new Hooks(List.of(), List.of("storage"), TIMEOUT);
        Wait drainWait = new Wait(Point.PreDrain, List.of("storage"), T0);
        Instant later = T0.plus(Duration.ofHours(2));

        Verdict v = MaintenanceHooks.decide(Point.PreUncordon, hooks, drainWait, later);

        assertThat(v)
                .isInstanceOfSatisfying(
                        Verdict.Hold.class, h -> assertThat(h.waiting().since()).isEqualTo(later));
    }

    @Test
    void aTimeoutOfZeroIsRefusedNamingTheField() {
        assertThatThrownBy(() -> new Hooks(List.of(), List.of(), Duration.ZERO))
                .hasMessage("spec.hooks.timeout: must be more than 0, was PT0S");
    }

    /** Issue 50 item 4: a foreign status's wait moves no deadline; this operator's own record is the anchor. */
    @Test
    void aForeignWaitMovesNoDeadline() {
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        Instant now = t0.plusSeconds(10);
        Wait own = new Wait(Point.PreDrain, List.of("backup"), t0);
        Wait later = new Wait(Point.PreDrain, List.of("backup"), t0.plusSeconds(3600));
        Wait earlier = new Wait(Point.PreDrain, List.of("backup"), t0.minusSeconds(3600));
        // this operator wrote a status: its wait is the one, whatever the foreign one says (moved, or erased)
        assertThat(MaintenanceHooks.notMovedByOthers(later, true, own, now)).isEqualTo(own);
        assertThat(MaintenanceHooks.notMovedByOthers(earlier, true, own, now)).isEqualTo(own);
        assertThat(MaintenanceHooks.notMovedByOthers(null, true, own, now)).isEqualTo(own);
        assertThat(MaintenanceHooks.notMovedByOthers(later, true, null, now)).isNull();
        // no record of its own (a new instance): the foreign wait, never starting after now
        assertThat(MaintenanceHooks.notMovedByOthers(earlier, false, null, now)).isEqualTo(earlier);
        assertThat(MaintenanceHooks.notMovedByOthers(later, false, null, now))
                .isEqualTo(new Wait(Point.PreDrain, List.of("backup"), now));
        assertThat(MaintenanceHooks.notMovedByOthers(null, false, null, now)).isNull();
    }
}
