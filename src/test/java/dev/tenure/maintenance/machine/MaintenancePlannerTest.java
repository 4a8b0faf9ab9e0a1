package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.maintenance.drain.DrainPlan;
import dev.tenure.maintenance.drain.DrainPlan.Action;
import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import dev.tenure.maintenance.drain.DrainRules;
import dev.tenure.maintenance.drain.VolumeDetach;
import dev.tenure.maintenance.machine.MaintenancePlanner.DrainVerdict;
import dev.tenure.maintenance.machine.MaintenancePlanner.HandoverVerdict;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The maintenance's decisions without a cluster: observed plan and state in, one step out. */
class MaintenancePlannerTest {

    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final MaintenanceSettings SETTINGS = MaintenanceSettings.defaults();

    private static PodVerdict pod(String name, Action action) {
        return new PodVerdict("shop", name, "uid-" + name, action, action.name().toLowerCase(Locale.ROOT));
    }

    private static DrainOptions timeout(Duration timeout) {
        DrainOptions d = DrainOptions.defaults();
        return new DrainOptions(
                Optional.of(timeout),
                d.gracePeriodSeconds(),
                d.ignoreDaemonSets(),
                d.deleteEmptyDirData(),
                d.force(),
                d.podSelector(),
                d.evictionRetryDelay(),
                d.skipWaitForDeleteTimeout(),
                d.disableEviction());
    }

    private static MaintenanceRequest request(Optional<Duration> window) {
        return new MaintenanceRequest(
                "w1", "", window, DrainOptions.defaults(), new HandoverOptions(true, Duration.ofSeconds(60)));
    }

    @Test
    void aPodThatCannotBeDrainedFailsTheDrainBeforeAnythingIsSent() {
        DrainPlan plan = new DrainPlan(List.of(pod("a", Action.EVICT), pod("bare", Action.REFUSE)));

        DrainVerdict v = MaintenancePlanner.drain("w1", plan, DrainOptions.defaults(), 2, NOW, 10, NOW);

        assertThat(v)
                .isInstanceOfSatisfying(
                        DrainVerdict.Refused.class,
                        r -> assertThat(r.message()).isEqualTo("cannot drain node w1: shop/bare (refuse)"));
    }

    @Test
    void nothingLeftToGoCompletesTheDrain() {
        DrainPlan plan = new DrainPlan(List.of(pod("ds", Action.LEAVE), pod("old", Action.GONE)));

        assertThat(MaintenancePlanner.drain("w1", plan, DrainOptions.defaults(), 3, NOW, 10, NOW))
                .isEqualTo(new DrainVerdict.Complete("node w1 drained: 3 pod(s) evicted or gone"));
    }

    @Test
    void pastTheDrainTimeoutThePodsStillThereAreNamedWithWhy() {
        DrainPlan plan = new DrainPlan(List.of(pod("a", Action.RETRY_LATER), pod("b", Action.WAIT_TERMINATING)));

        DrainVerdict v =
                MaintenancePlanner.drain("w1", plan, timeout(Duration.ofSeconds(30)), 2, NOW.minusSeconds(30), 10, NOW);

        assertThat(v)
                .isEqualTo(new DrainVerdict.TimedOut(
                        "DrainTimedOut: drain of node w1 did not finish within 30s; pods still on "
                                + "it: shop/a (eviction refused by a PodDisruptionBudget), shop/b (terminating)"));
        assertThat(MaintenancePlanner.drain(
                        "w1", plan, timeout(Duration.ofSeconds(30)), 2, NOW.minusSeconds(29), 10, NOW))
                .isInstanceOf(DrainVerdict.Send.class);
    }

    @Test
    void pastTheDrainTimeoutTheBudgetsThatRefusedTheLastEvictionsAreNamed() {
        String refusal = "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget web "
                + "needs 2 healthy pods and has 2 currently";
        DrainPlan plan = new DrainPlan(List.of(
                new PodVerdict("shop", "a", "uid-a", Action.RETRY_LATER, "", refusal, null),
                new PodVerdict("shop", "c", "uid-c", Action.EVICT, "", refusal, null),
                new PodVerdict(
                        "shop",
                        "b",
                        "uid-b",
                        Action.WAIT_TERMINATING,
                        "",
                        null,
                        Instant.parse("2026-03-01T09:59:00Z"))));

        DrainVerdict v =
                MaintenancePlanner.drain("w1", plan, timeout(Duration.ofSeconds(30)), 3, NOW.minusSeconds(30), 10, NOW);

        assertThat(v)
                .isEqualTo(new DrainVerdict.TimedOut(
                        "DrainTimedOut: drain of node w1 did not finish within 30s; pods still on it: "
                                + "shop/a (eviction refused by PodDisruptionBudget shop/web), "
                                + "shop/c (eviction refused by PodDisruptionBudget shop/web), "
                                + "shop/b (terminating past its grace period, which ended 2026-03-01T09:59:00Z); "
                                + "the last evictions were refused by PodDisruptionBudget shop/web"));
    }

    @Test
    void stuckPodsAreExplainedByNameAndNothingIsSaidWithoutNewOnes() {
        PodVerdict stuck = new PodVerdict(
                "shop", "b", "uid-b", Action.WAIT_TERMINATING, "", null, Instant.parse("2026-03-01T09:59:00Z"));

        assertThat(MaintenancePlanner.stuckTerminating("w1", List.of(stuck)))
                .hasValueSatisfying(m -> assertThat(m)
                        .startsWith("pods still on node w1 past the end of their grace period: shop/b (grace period "
                                + "ended 2026-03-01T09:59:00Z)")
                        .contains("finalizer"));
        assertThat(MaintenancePlanner.stuckTerminating("w1", List.of())).isEmpty();
    }

    @Test
    void waitCompletedPodsStillRunningAtTheirTimeoutFailTheDrainByName() {
        DrainOptions d = DrainOptions.defaults();
        DrainOptions options = new DrainOptions(
                Optional.of(Duration.ofMinutes(10)),
                d.gracePeriodSeconds(),
                d.ignoreDaemonSets(),
                d.deleteEmptyDirData(),
                d.force(),
                d.podSelector(),
                d.evictionRetryDelay(),
                d.skipWaitForDeleteTimeout(),
                d.disableEviction(),
                DrainRules.none(),
                Optional.of(Duration.ofMinutes(2)),
                VolumeDetach.Options.off(),
                null,
                null);
        DrainPlan plan = new DrainPlan(List.of(pod("job", Action.WAIT_COMPLETED), pod("gone", Action.GONE)));

        assertThat(MaintenancePlanner.drain("w1", plan, options, 2, NOW.minusSeconds(119), 10, NOW))
                .as("before the timeout: nothing to send, wait")
                .isInstanceOfSatisfying(
                        DrainVerdict.Send.class, s -> assertThat(s.batch()).isEmpty());
        assertThat(MaintenancePlanner.drain("w1", plan, options, 2, NOW.minusSeconds(120), 10, NOW))
                .isInstanceOfSatisfying(
                        DrainVerdict.WaitCompletedTimedOut.class,
                        t -> assertThat(t.message())
                                .startsWith("WaitCompletedTimedOut: pods did not complete within 2m on node w1: "
                                        + "shop/job"));
        assertThat(MaintenancePlanner.drain(
                        "w1",
                        new DrainPlan(List.of(pod("gone", Action.GONE))),
                        options,
                        2,
                        NOW.minusSeconds(600),
                        10,
                        NOW))
                .as("completed: the timeout no longer matters")
                .isInstanceOf(DrainVerdict.Complete.class);
    }

    @Test
    void oneBatchIsAtMostTheParallelismEvictionsFirstThenDeletions() {
        List<PodVerdict> verdicts = new java.util.ArrayList<>(
                IntStream.range(0, 4).mapToObj(i -> pod("e" + i, Action.EVICT)).toList());
        verdicts.add(0, pod("d0", Action.DELETE));
        verdicts.add(pod("t0", Action.WAIT_TERMINATING));

        DrainVerdict v =
                MaintenancePlanner.drain("w1", new DrainPlan(verdicts), DrainOptions.defaults(), 6, NOW, 3, NOW);

        assertThat(v).isInstanceOfSatisfying(DrainVerdict.Send.class, send -> {
            assertThat(send.batch()).extracting(PodVerdict::name).containsExactly("e0", "e1", "e2");
            assertThat(send.left()).isEqualTo(2);
        });
    }

    /**
     * Four pods a budget keeps refusing ahead of two it never saw, with a batch of four: the two go in the batch, not
     * behind the four forever (MaintenanceChaosTest, living cluster, seed 10309381364904: n0's api pods never sent).
     */
    @Test
    void aBatchSendsThePodsNoBudgetRefusedYetBeforeThoseABudgetKeepsRefusing() {
        List<PodVerdict> verdicts = new java.util.ArrayList<>(IntStream.range(0, 4)
                .mapToObj(i -> new PodVerdict(
                        "shop",
                        "web" + i,
                        "uid-web" + i,
                        Action.EVICT,
                        "evict",
                        "Cannot evict pod as it would violate the pod's disruption budget.",
                        null))
                .toList());
        verdicts.add(pod("api0", Action.EVICT));
        verdicts.add(pod("api1", Action.EVICT));

        DrainVerdict v =
                MaintenancePlanner.drain("w1", new DrainPlan(verdicts), DrainOptions.defaults(), 6, NOW, 4, NOW);

        assertThat(v).isInstanceOfSatisfying(DrainVerdict.Send.class, send -> {
            assertThat(send.batch()).extracting(PodVerdict::name).containsExactly("api0", "api1", "web0", "web1");
            assertThat(send.left()).isEqualTo(2);
        });
    }

    @Test
    void aHandoverIsDoneWhenThePortSaysSoOrGivesUpAtItsTimeout() {
        HandoverOptions options = new HandoverOptions(true, Duration.ofSeconds(60));
        LeadershipHandover.Outcome moving = LeadershipHandover.Outcome.inProgress("2 lease(s) to move");

        assertThat(MaintenancePlanner.handover(
                        options, NOW, LeadershipHandover.Outcome.complete("none held"), Duration.ofSeconds(2), NOW))
                .isEqualTo(new HandoverVerdict.Done("none held", false));
        assertThat(MaintenancePlanner.handover(options, NOW.minusSeconds(60), moving, Duration.ofSeconds(2), NOW))
                .isEqualTo(new HandoverVerdict.Done(
                        MaintenancePlanner.HANDOVER_TIMED_OUT + "1m (2 lease(s) to move); draining anyway", true));
    }

    @Test
    void aHandoverInProgressIsLookedAtSoonButNotPastItsDeadline() {
        HandoverOptions options = new HandoverOptions(true, Duration.ofSeconds(60));
        LeadershipHandover.Outcome moving = LeadershipHandover.Outcome.inProgress("moving");

        assertThat(MaintenancePlanner.handover(options, NOW, moving, Duration.ofSeconds(2), NOW))
                .isEqualTo(new HandoverVerdict.Pending("moving", MaintenancePlanner.HANDOVER_CHECK));
        assertThat(MaintenancePlanner.handover(options, NOW.minusMillis(59_800), moving, Duration.ofSeconds(2), NOW))
                .isEqualTo(new HandoverVerdict.Pending("moving", Duration.ofMillis(200)));
    }

    @Test
    void aWindowFixesTheLeaseAtItsEndPlusPaddingOtherwiseTheLeaseRolls() {
        MaintenanceState acquired = MaintenanceState.initial().toBuilder()
                .leaseAcquiredAt(NOW.minusSeconds(100))
                .build();

        assertThat(MaintenancePlanner.leaseUntil(request(Optional.of(Duration.ofMinutes(10))), acquired, SETTINGS, NOW))
                .isEqualTo(NOW.minusSeconds(100).plus(Duration.ofMinutes(10)).plus(SETTINGS.windowPadding()));
        assertThat(MaintenancePlanner.leaseUntil(request(Optional.empty()), acquired, SETTINGS, NOW))
                .isEqualTo(NOW.plus(SETTINGS.leaseDuration()));
        assertThat(MaintenancePlanner.windowEnd(request(Optional.of(Duration.ofMinutes(10))), acquired))
                .contains(NOW.minusSeconds(100).plus(Duration.ofMinutes(10)));
        assertThat(MaintenancePlanner.windowEnd(request(Optional.empty()), acquired))
                .isEmpty();
    }

    @Test
    void theNextRenewLookComesAtTheWindowsEndIfThatIsSoonerAndNeverBelowAFloor() {
        MaintenanceState acquired =
                MaintenanceState.initial().toBuilder().leaseAcquiredAt(NOW).build();

        assertThat(MaintenancePlanner.renewIn(request(Optional.empty()), acquired, SETTINGS, NOW))
                .isEqualTo(SETTINGS.renewEvery());
        assertThat(MaintenancePlanner.renewIn(request(Optional.of(Duration.ofSeconds(5))), acquired, SETTINGS, NOW))
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(MaintenancePlanner.renewIn(
                        request(Optional.of(Duration.ofSeconds(5))), acquired, SETTINGS, NOW.plusSeconds(5)))
                .isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void aPdbRefusalStaysTheLastErrorUntilAnAnswerReplacesIt() {
        String blocked = "eviction of pod shop/a refused: Cannot evict pod; retrying every 5s";

        assertThat(MaintenancePlanner.lastErrorAfterBatch("removing pod shop/a: HTTP 500", blocked, false, null))
                .startsWith("removing pod");
        assertThat(MaintenancePlanner.lastErrorAfterBatch(null, blocked, false, null))
                .isEqualTo(blocked);
        assertThat(MaintenancePlanner.lastErrorAfterBatch(null, null, false, blocked))
                .isEqualTo(blocked);
        assertThat(MaintenancePlanner.lastErrorAfterBatch(null, null, true, blocked))
                .isNull();
        assertThat(MaintenancePlanner.lastErrorAfterBatch(null, null, false, "listing pods on node w1: HTTP 500"))
                .isNull();
        assertThat(MaintenancePlanner.leaseErrorBackoff(1)).isEqualTo(Duration.ofSeconds(2));
        assertThat(MaintenancePlanner.leaseErrorBackoff(9)).isEqualTo(Duration.ofSeconds(60));
    }
}
