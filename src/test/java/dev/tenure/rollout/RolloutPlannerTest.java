package dev.tenure.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.rollout.RolloutPlanner.Observed;
import dev.tenure.rollout.RolloutPlanner.RolloutPlan;
import dev.tenure.rollout.api.NodeState;
import dev.tenure.rollout.api.RolloutPhase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rollout planner's rules, one row per behaviour (docs/rollout.md). */
class RolloutPlannerTest {

    static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

    static PoolNode node(String name, String zone) {
        return new PoolNode(
                name,
                zone,
                zone,
                true,
                NOW.minusSeconds(3600),
                false,
                "boot-" + name,
                "v1",
                "os",
                Map.of(),
                Map.of(),
                null);
    }

    static PoolNode cordoned(String name, String zone) {
        return new PoolNode(
                name,
                zone,
                zone,
                true,
                NOW.minusSeconds(3600),
                true,
                "boot-" + name,
                "v1",
                "os",
                Map.of(),
                Map.of(),
                null);
    }

    static PoolNode notReady(String name, String zone) {
        return new PoolNode(name, zone, zone, false, null, false, "boot-" + name, "v1", "os", Map.of(), Map.of(), null);
    }

    static RolloutRules rules(int max, int perDomain, int budget, boolean paused) {
        return new RolloutRules(
                max, perDomain, budget, paused, new DoneSignal.Rebooted(), Duration.ZERO, Duration.ofMinutes(30), null);
    }

    static List<PoolNode> pool(int n, int zones) {
        return IntStream.range(0, n)
                .mapToObj(i -> node(String.format("n%02d", i), "z" + (i % zones)))
                .toList();
    }

    static RolloutPlan plan(
            List<PoolNode> pool, List<NodeProgress> records, Map<String, ChildView> children, RolloutRules rules) {
        return RolloutPlanner.plan(new Observed(pool, children, records), rules, NOW);
    }

    @ParameterizedTest(name = "{0}% of {1} nodes is {2} (rounded down, at least 1)")
    @CsvSource({"50, 11, 5", "10, 200, 20", "10, 5, 1", "1, 3, 1", "100, 7, 7", "33, 10, 3"})
    void percentagesRoundDownWithAMinimumOfOne(int percent, int selected, int expected) {
        assertThat(RolloutRules.scaled(0, percent, selected)).isEqualTo(expected);
    }

    @Test
    void fiftyPercentOfElevenStartsFiveNotSix() {
        RolloutPlan plan = plan(
                pool(11, 1), List.of(), Map.of(), rules(RolloutRules.scaled(0, 50, 11), Integer.MAX_VALUE, 1, false));
        assertThat(plan.started()).hasSize(5);
        assertThat(plan.create()).hasSize(5);
        assertThat(plan.records()).allMatch(r -> r.state() == NodeState.InProgress && r.bootIDBefore() != null);
    }

    @Test
    void nodesAlreadyCordonedOrNotReadyCountAgainstTheLimit() {
        List<PoolNode> pool = new ArrayList<>(pool(6, 1));
        pool.set(4, cordoned("n04", "z0"));
        pool.set(5, notReady("n05", "z0"));
        RolloutPlan plan = plan(pool, List.of(), Map.of(), rules(3, Integer.MAX_VALUE, 1, false));
        // two unavailable already: one more beside them (n00), and the two themselves, which add nothing
        assertThat(plan.started()).containsExactly("n00", "n04", "n05");
    }

    @Test
    void oneNodePerDomainIsPassedOverNotBlocking() {
        RolloutPlan plan = plan(pool(12, 3), List.of(), Map.of(), rules(2, 1, 1, false));
        assertThat(plan.started()).containsExactly("n00", "n01"); // z0 and z1: order by zone, one each
    }

    @Test
    void aHeldNodeTakesNoSlot() {
        List<PoolNode> pool = new ArrayList<>(pool(3, 1));
        PoolNode n0 = pool.get(0);
        pool.set(
                0,
                new PoolNode(
                        n0.name(),
                        n0.domain(),
                        n0.orderKey(),
                        true,
                        n0.readySince(),
                        false,
                        n0.bootID(),
                        "v1",
                        "os",
                        Map.of(),
                        Map.of(),
                        "blocking pod default/backup"));
        RolloutPlan plan = plan(pool, List.of(), Map.of(), rules(1, Integer.MAX_VALUE, 1, false));
        assertThat(plan.started()).containsExactly("n01");
    }

    @Test
    void aRecordedNodeIsNeverStartedAgainAndAMissingChildIsCreated() {
        NodeProgress inFlight =
                new NodeProgress("n00", NodeState.InProgress, "boot-n00", NOW.minusSeconds(5), null, null, null, null);
        NodeProgress done = new NodeProgress(
                "n01",
                NodeState.Done,
                "boot-n01",
                NOW.minusSeconds(50),
                null,
                NOW.minusSeconds(30),
                NOW.minusSeconds(20),
                null);
        RolloutPlan plan = plan(pool(3, 1), List.of(inFlight, done), Map.of(), rules(1, Integer.MAX_VALUE, 1, false));
        assertThat(plan.started()).isEmpty(); // n00 holds the one slot
        assertThat(plan.create()).containsExactly("n00"); // status said started; the child never came: create it
        assertThat(plan.records()).extracting(NodeProgress::name).containsExactly("n00", "n01");
    }

    @Test
    void aRebootedReadyNodeIsDoneItsChildEndedThenItSoaks() {
        NodeProgress inFlight = new NodeProgress(
                "n00", NodeState.InProgress, "boot-old", NOW.minusSeconds(60), NOW.minusSeconds(30), null, null, null);
        ChildView child = new ChildView("n00", "Succeeded", null, false, false);
        RolloutRules soak = new RolloutRules(
                1,
                Integer.MAX_VALUE,
                1,
                false,
                new DoneSignal.Rebooted(),
                Duration.ofSeconds(10),
                Duration.ofMinutes(30),
                null);
        RolloutPlan plan = plan(pool(2, 1), List.of(inFlight), Map.of("n00", child), soak);
        assertThat(plan.records().get(0).state()).isEqualTo(NodeState.Soaking);
        assertThat(plan.end()).containsExactly("n00");
        assertThat(plan.started()).isEmpty(); // soaking holds the slot
    }

    @Test
    void aFailedChildFailsTheNodeAndTheBudgetPauses() {
        NodeProgress inFlight =
                new NodeProgress("n00", NodeState.InProgress, "boot-n00", NOW.minusSeconds(60), null, null, null, null);
        ChildView child = new ChildView("n00", "Failed", "eviction blocked", false, false);
        RolloutPlan plan =
                plan(pool(4, 1), List.of(inFlight), Map.of("n00", child), rules(2, Integer.MAX_VALUE, 1, false));
        assertThat(plan.failed()).isEqualTo(1);
        assertThat(plan.end()).containsExactly("n00"); // ended: the undo restores the node, nothing left cordoned
        assertThat(plan.started()).isEmpty();
        assertThat(plan.phase()).isEqualTo(RolloutPhase.Paused);
        assertThat(plan.reason()).isEqualTo("FailureBudget");
    }

    @Test
    void pausedStartsNothingButInFlightNodesFinish() {
        NodeProgress inFlight =
                new NodeProgress("n00", NodeState.InProgress, "boot-old", NOW.minusSeconds(60), null, null, null, null);
        RolloutPlan plan = plan(
                pool(4, 1),
                List.of(inFlight),
                Map.of("n00", new ChildView("n00", "Succeeded", null, false, false)),
                rules(2, Integer.MAX_VALUE, 1, true));
        assertThat(plan.started()).isEmpty();
        assertThat(plan.records().get(0).state()).isEqualTo(NodeState.Soaking);
        assertThat(plan.phase()).isEqualTo(RolloutPhase.Paused);
    }

    @Test
    void aClosedAlertGateStartsNothingSaysWhyAndInFlightNodesGoOn() {
        NodeProgress inFlight =
                new NodeProgress("n00", NodeState.InProgress, "boot-old", NOW.minusSeconds(60), null, null, null, null);
        AlertGate closed = AlertGate.firing("AlertsFiring: 1 alert(s) firing in Prometheus: NodeDown");
        Map<String, ChildView> children = Map.of("n00", new ChildView("n00", "Succeeded", null, false, false));
        RolloutPlan plan = RolloutPlanner.plan(
                new Observed(pool(4, 1), children, List.of(inFlight), List.of(closed.asGate()), List.of()),
                rules(3, Integer.MAX_VALUE, 1, false),
                NOW);
        assertThat(plan.started()).as("two slots free, the gate closed").isEmpty();
        assertThat(plan.create()).isEmpty();
        assertThat(plan.records().get(0).state()).as("in flight goes on").isEqualTo(NodeState.Soaking);
        assertThat(plan.end()).containsExactly("n00");
        assertThat(plan.phase()).isEqualTo(RolloutPhase.Progressing);
        // one rule for every gate: the reason is WaitingForGate, the message names the gate, then its own reason
        assertThat(plan.reason()).isEqualTo("WaitingForGate");
        assertThat(plan.message())
                .startsWith("gate Alerts is closed: AlertsFiring: 1 alert(s) firing in Prometheus: NodeDown; no new"
                        + " node starts");
        assertThat(plan.gates()).singleElement().satisfies(g -> {
            assertThat(g.name()).isEqualTo(AlertGate.GATE_NAME);
            assertThat(g.node()).isNull();
            assertThat(g.closedSince()).as("first seen closed now").isEqualTo(NOW);
        });

        RolloutPlan open = RolloutPlanner.plan(
                new Observed(pool(4, 1), children, List.of(inFlight), List.of(AlertGate.OPEN.asGate()), List.of()),
                rules(3, Integer.MAX_VALUE, 1, false),
                NOW);
        assertThat(open.started()).as("the same, the gate open").containsExactly("n01", "n02");
        assertThat(open.gates()).isEmpty();
    }

    @Test
    void anUnreachablePrometheusHoldsEveryWaitingNodeAndSaysSo() {
        RolloutPlan plan = planWithGates(
                pool(2, 1),
                List.of(),
                List.of(AlertGate.unreachable("cannot ask http://prometheus:9090: ConnectException")
                        .asGate()),
                List.of(),
                rules(1, Integer.MAX_VALUE, 1, false));
        assertThat(plan.started()).isEmpty();
        assertThat(plan.waiting()).isEqualTo(2);
        assertThat(plan.reason()).isEqualTo("WaitingForGate");
        assertThat(plan.message())
                .startsWith("gate Alerts is closed: PrometheusUnreachable: cannot ask http://prometheus:9090");
    }

    @Test
    void alertsClosedForGateTimeoutPauseTheRolloutAndItResumesWhenTheyStop() {
        GateState firing = AlertGate.firing("AlertsFiring: 1 alert(s) firing in Prometheus: NodeDown")
                .asGate();
        Instant since = NOW.minus(Duration.ofMinutes(30));
        List<GateState> before = List.of(new GateState(AlertGate.GATE_NAME, null, false, since, "AlertsFiring: x"));

        RolloutPlan early = planWithGates(
                pool(3, 1),
                List.of(),
                List.of(firing),
                List.of(new GateState(AlertGate.GATE_NAME, null, false, NOW.minus(Duration.ofMinutes(29)), "m")),
                rules(2, 9, 1, false));
        assertThat(early.reason()).isEqualTo("WaitingForGate");
        assertThat(early.lookAgain()).as("when it times out").isEqualTo(Duration.ofMinutes(1));

        RolloutPlan paused = planWithGates(pool(3, 1), List.of(), List.of(firing), before, rules(2, 9, 1, false));
        assertThat(paused.phase()).isEqualTo(RolloutPhase.Paused);
        assertThat(paused.reason()).isEqualTo("GateTimeout");
        assertThat(paused.message())
                .startsWith("gate Alerts closed since " + since + ", past spec.health.gateTimeout 30m: AlertsFiring:"
                        + " 1 alert(s) firing in Prometheus: NodeDown; no new node starts until it opens");
        assertThat(paused.started()).isEmpty();
        assertThat(paused.gates())
                .singleElement()
                .satisfies(
                        g -> assertThat(g.closedSince()).as("kept across looks").isEqualTo(since));

        RolloutPlan resumed =
                planWithGates(pool(3, 1), List.of(), List.of(AlertGate.OPEN.asGate()), before, rules(2, 9, 1, false));
        assertThat(resumed.phase()).isEqualTo(RolloutPhase.Progressing);
        assertThat(resumed.started()).containsExactly("n00", "n01");
        assertThat(resumed.gates()).as("an open gate is forgotten").isEmpty();
    }

    @Test
    void theAlertGateIsAskedOnlyWhenANodeWouldStartAndClosedItIsOneMoreGate() {
        List<GateState> asked = new ArrayList<>();
        GateState firing = AlertGate.firing("AlertsFiring: 1 alert(s) firing in Prometheus: NodeDown")
                .asGate();
        java.util.function.Supplier<GateState> ask = () -> {
            asked.add(firing);
            return firing;
        };
        // every slot taken (n00 in flight, maxUnavailable 1): nothing would start, Prometheus is not asked
        NodeProgress inFlight =
                new NodeProgress("n00", NodeState.InProgress, "b", NOW.minusSeconds(60), null, null, null, null);
        Map<String, ChildView> children = Map.of("n00", new ChildView("n00", "Running", null, false, false));
        RolloutPlan full = RolloutPlanner.planAskingBeforeStart(
                new Observed(pool(3, 1), children, List.of(inFlight), List.of(), List.of()),
                rules(1, 9, 1, false),
                NOW,
                ask);
        assertThat(asked).isEmpty();
        assertThat(full.reason()).isEqualTo("WaitingForSlot");
        assertThat(full.gates()).isEmpty();

        // a slot free: asked once, closed, nothing starts, the gate is in the answer as any gate of the rollout
        RolloutPlan held = RolloutPlanner.planAskingBeforeStart(
                new Observed(pool(3, 1), Map.of(), List.of(), List.of(), List.of()), rules(1, 9, 1, false), NOW, ask);
        assertThat(asked).hasSize(1);
        assertThat(held.started()).isEmpty();
        assertThat(held.records()).isEmpty();
        assertThat(held.reason()).isEqualTo("WaitingForGate");
        assertThat(held.gates())
                .singleElement()
                .satisfies(g -> assertThat(g.name()).isEqualTo("Alerts"));

        // open: the first plan stands
        RolloutPlan open = RolloutPlanner.planAskingBeforeStart(
                new Observed(pool(3, 1), Map.of(), List.of(), List.of(), List.of()),
                rules(1, 9, 1, false),
                NOW,
                () -> AlertGate.OPEN.asGate());
        assertThat(open.started()).containsExactly("n00");
    }

    @Test
    void pausedAndTheBudgetSayTheirReasonBeforeTheGate() {
        assertThat(planWithGates(
                                pool(2, 1),
                                List.of(),
                                List.of(AlertGate.unreachable("x").asGate()),
                                List.of(),
                                rules(1, Integer.MAX_VALUE, 1, true))
                        .reason())
                .isEqualTo("Paused");
    }

    @Test
    void aNodeAlreadyAtTheVersionIsSkipped() {
        RolloutRules v2 = new RolloutRules(
                1,
                Integer.MAX_VALUE,
                1,
                false,
                new DoneSignal.KubeletVersion("v1"),
                Duration.ZERO,
                Duration.ofMinutes(30),
                null);
        RolloutPlan plan = plan(pool(2, 1), List.of(), Map.of(), v2);
        assertThat(plan.records()).extracting(NodeProgress::state).containsOnly(NodeState.Skipped);
        assertThat(plan.phase()).isEqualTo(RolloutPhase.Complete);
    }

    @Test
    void theEtaFollowsTheNodesDoneSoFar() {
        NodeProgress done = new NodeProgress(
                "n00", NodeState.Done, "b", NOW.minusSeconds(100), null, null, NOW.minusSeconds(40), null);
        RolloutPlan plan = plan(pool(5, 1), List.of(done), Map.of(), rules(2, Integer.MAX_VALUE, 1, false));
        // 60 s a node, 4 left, 2 at a time: two rounds
        assertThat(plan.eta()).isEqualTo(NOW.plusSeconds(120));
    }

    // ---- health gates (issue 52 item 3): a done node's own gate holds its slot; a timed-out gate pauses ----------

    static final List<WorkloadRef> WEB = List.of(new WorkloadRef("apps/v1", "ReplicaSet", "shop", "web-5d8f"));

    /** n00 done a minute ago, Ready for an hour: soaked (soak 0). */
    static NodeProgress soaking(String name) {
        return new NodeProgress(
                name,
                NodeState.Soaking,
                "boot-old",
                NOW.minusSeconds(300),
                NOW.minusSeconds(200),
                NOW.minusSeconds(60),
                null,
                null,
                WEB);
    }

    static GateState webNotWhole(String node) {
        return GateState.closed(WorkloadsWhole.GATE, node, "ReplicaSet shop/web-5d8f: 2 of 3 available");
    }

    static RolloutPlan planWithGates(
            List<PoolNode> pool,
            List<NodeProgress> records,
            List<GateState> gates,
            List<GateState> before,
            RolloutRules rules) {
        return RolloutPlanner.plan(new Observed(pool, Map.of(), records, gates, before), rules, NOW);
    }

    @Test
    void aSoakedNodeWhoseWorkloadsAreNotWholeKeepsItsSlotAndTheReasonNamesTheGate() {
        RolloutPlan plan = planWithGates(
                pool(3, 1), List.of(soaking("n00")), List.of(webNotWhole("n00")), List.of(), rules(1, 9, 1, false));
        assertThat(plan.records().get(0).state()).isEqualTo(NodeState.Soaking);
        assertThat(plan.records().get(0).message()).contains("WorkloadsWhole", "2 of 3 available");
        assertThat(plan.started()).isEmpty();
        assertThat(plan.phase()).isEqualTo(RolloutPhase.Progressing);
        assertThat(plan.reason()).isEqualTo("WaitingForGate");
        assertThat(plan.message()).contains("node n00", "gate WorkloadsWhole", "ReplicaSet shop/web-5d8f");
        assertThat(plan.gates())
                .containsExactly(new GateState(
                        WorkloadsWhole.GATE, "n00", false, NOW, "ReplicaSet shop/web-5d8f: 2 of 3 available"));
        assertThat(plan.lookAgain()).isEqualTo(RolloutRules.DEFAULT_GATE_TIMEOUT);
    }

    @Test
    void onceTheWorkloadsAreWholeTheNodeIsDoneAndItsSlotGoesToTheNext() {
        RolloutPlan plan = planWithGates(
                pool(3, 1),
                List.of(soaking("n00")),
                List.of(GateState.open(WorkloadsWhole.GATE, "n00")),
                List.of(webNotWhole("n00")),
                rules(1, 9, 1, false));
        assertThat(plan.records().get(0).state()).isEqualTo(NodeState.Done);
        assertThat(plan.records().get(0).workloads()).isEmpty(); // no longer needed: status stays small
        assertThat(plan.started()).containsExactly("n01");
        assertThat(plan.gates()).isEmpty();
    }

    @Test
    void aNodeGateHoldsOnlyItsOwnSlotNotTheOthers() {
        RolloutPlan plan = planWithGates(
                pool(3, 1), List.of(soaking("n00")), List.of(webNotWhole("n00")), List.of(), rules(2, 9, 1, false));
        assertThat(plan.started()).containsExactly("n01");
        assertThat(plan.reason()).isEqualTo("Progressing");
    }

    @Test
    void theWaitIsMeasuredFromWhenTheGateWasFirstSeenClosedKeptInStatus() {
        Instant since = NOW.minus(Duration.ofMinutes(10));
        RolloutPlan plan = planWithGates(
                pool(3, 1),
                List.of(soaking("n00")),
                List.of(webNotWhole("n00")),
                List.of(new GateState(WorkloadsWhole.GATE, "n00", false, since, "older message")),
                rules(1, 9, 1, false));
        assertThat(plan.gates()).singleElement().satisfies(g -> {
            assertThat(g.closedSince()).isEqualTo(since);
            assertThat(g.message()).isEqualTo("ReplicaSet shop/web-5d8f: 2 of 3 available");
        });
        assertThat(plan.lookAgain()).isEqualTo(Duration.ofMinutes(20)); // when the gate times out
    }

    @Test
    void aGateClosedPastGateTimeoutPausesTheRolloutStartsNothingAndDoesNotFailTheNode() {
        RolloutPlan plan = planWithGates(
                pool(4, 1),
                List.of(soaking("n00")),
                List.of(webNotWhole("n00")),
                List.of(new GateState(WorkloadsWhole.GATE, "n00", false, NOW.minus(Duration.ofMinutes(30)), "m")),
                rules(3, 9, 1, false)); // two slots free: still nothing starts
        assertThat(plan.phase()).isEqualTo(RolloutPhase.Paused);
        assertThat(plan.reason()).isEqualTo("GateTimeout");
        assertThat(plan.message())
                .contains("gate WorkloadsWhole of node n00", "spec.health.gateTimeout", "2 of 3 available");
        assertThat(plan.started()).isEmpty();
        assertThat(plan.failed()).isZero();
        assertThat(plan.records().get(0).state()).isEqualTo(NodeState.Soaking);
    }

    @Test
    void aTimedOutGateThatOpensResumesByItself() {
        RolloutPlan plan = planWithGates(
                pool(4, 1),
                List.of(soaking("n00")),
                List.of(GateState.open(WorkloadsWhole.GATE, "n00")),
                List.of(new GateState(WorkloadsWhole.GATE, "n00", false, NOW.minus(Duration.ofHours(2)), "m")),
                rules(3, 9, 1, false));
        assertThat(plan.phase()).isEqualTo(RolloutPhase.Progressing);
        assertThat(plan.records().get(0).state()).isEqualTo(NodeState.Done);
        assertThat(plan.started()).containsExactly("n01", "n02", "n03");
    }

    @Test
    void aClosedGateOfTheWholeRolloutStartsNothingThenPausesAtItsTimeout() {
        GateState alerts = GateState.closed("Alerts", null, "1 alert firing: NodeDown");
        RolloutPlan waiting = planWithGates(pool(3, 1), List.of(), List.of(alerts), List.of(), rules(2, 9, 1, false));
        assertThat(waiting.started()).isEmpty();
        assertThat(waiting.reason()).isEqualTo("WaitingForGate");
        assertThat(waiting.message()).contains("gate Alerts is closed", "NodeDown");

        RolloutPlan timedOut = planWithGates(
                pool(3, 1),
                List.of(),
                List.of(alerts),
                List.of(new GateState("Alerts", null, false, NOW.minus(Duration.ofMinutes(5)), "m")),
                new RolloutRules(
                        2,
                        9,
                        1,
                        false,
                        new DoneSignal.Rebooted(),
                        Duration.ZERO,
                        Duration.ofMinutes(30),
                        null,
                        Duration.ofMinutes(5)));
        assertThat(timedOut.phase()).isEqualTo(RolloutPhase.Paused);
        assertThat(timedOut.reason()).isEqualTo("GateTimeout");
        assertThat(timedOut.started()).isEmpty();
    }

    @Test
    void aNodeGateOfANodeNotSoakingIsIgnored() {
        NodeProgress done = new NodeProgress(
                "n00",
                NodeState.Done,
                "b",
                NOW.minusSeconds(100),
                null,
                NOW.minusSeconds(50),
                NOW.minusSeconds(40),
                null);
        RolloutPlan plan =
                planWithGates(pool(2, 1), List.of(done), List.of(webNotWhole("n00")), List.of(), rules(1, 9, 1, false));
        assertThat(plan.gates()).isEmpty();
        assertThat(plan.started()).containsExactly("n01");
    }

    @Test
    void aNodeNotReadyPastSoakTimeoutFailsWhatEverItsGateSays() {
        // soakTimeout judges the node itself (it failed to come back): Failed, against the budget; a gate never fails
        // it
        NodeProgress r = new NodeProgress(
                "n00",
                NodeState.Soaking,
                "boot-old",
                NOW.minus(Duration.ofHours(1)),
                null,
                NOW.minus(Duration.ofMinutes(31)),
                null,
                null,
                WEB);
        List<PoolNode> pool = new ArrayList<>(pool(2, 1));
        pool.set(0, notReady("n00", "z0"));
        RolloutPlan plan =
                planWithGates(pool, List.of(r), List.of(webNotWhole("n00")), List.of(), rules(1, 9, 5, false));
        assertThat(plan.records().get(0).state()).isEqualTo(NodeState.Failed);
        assertThat(plan.records().get(0).message()).startsWith("SoakTimeout");
    }

    @Test
    void theWorkloadsTheChildDrainedAreKeptOnTheRecordForTheGate() {
        NodeProgress inFlight =
                new NodeProgress("n00", NodeState.InProgress, "boot-old", NOW.minusSeconds(60), null, null, null, null);
        ChildView child = new ChildView("n00", "Succeeded", null, false, false, WEB);
        RolloutPlan plan = plan(pool(2, 1), List.of(inFlight), Map.of("n00", child), rules(1, 9, 1, false));
        assertThat(plan.records().get(0).state()).isEqualTo(NodeState.Soaking);
        assertThat(plan.records().get(0).workloads()).isEqualTo(WEB);
    }
}
