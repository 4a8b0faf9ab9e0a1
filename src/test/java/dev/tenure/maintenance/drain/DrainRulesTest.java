package dev.tenure.maintenance.drain;

import static dev.tenure.maintenance.drain.DrainPlanTest.HEALTHY;
import static dev.tenure.maintenance.drain.DrainPlanTest.NOW;
import static dev.tenure.maintenance.drain.DrainPlanTest.ds;
import static dev.tenure.maintenance.drain.DrainPlanTest.owned;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.DrainBehavior;
import dev.tenure.maintenance.drain.DrainPlan.Action;
import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each pod's behaviour and wave (Cluster API's drain rules, KEP-4212's default order), and the waves they make. */
class DrainRulesTest {

    static LabelSelector labels(String key, String value) {
        return new LabelSelectorBuilder().addToMatchLabels(key, value).build();
    }

    static DrainRules.Rule rule(LabelSelector ns, LabelSelector pods, DrainBehavior behavior, Integer order) {
        return new DrainRules.Rule(ns, pods, behavior, order);
    }

    static PodBuilder web(String name) {
        return owned(name, "ReplicaSet", "rs")
                .editMetadata()
                .addToLabels("app", "web")
                .endMetadata();
    }

    static Pod withPriority(PodBuilder b, int priority) {
        return b.editSpec().withPriority(priority).endSpec().build();
    }

    static Pod annotated(PodBuilder b, String order) {
        return b.editMetadata()
                .addToAnnotations(DrainRules.ORDER_ANNOTATION, order)
                .endMetadata()
                .build();
    }

    static Pod skipLabelled(PodBuilder b) {
        return b.editMetadata()
                .addToLabels(DrainRules.SKIP_LABEL, DrainRules.SKIP_VALUE)
                .endMetadata()
                .build();
    }

    static final Map<String, String> TEAM_A = Map.of("team", "a");

    static Stream<Arguments> decisions() {
        return Stream.of(
                Arguments.of("no rules: Drain, order 0", List.of(), web("a").build(), null, DrainBehavior.Drain, 0),
                Arguments.of(
                        "no rules: order is the pod's priority",
                        List.of(),
                        withPriority(web("a"), 1000),
                        null,
                        DrainBehavior.Drain,
                        1000),
                Arguments.of(
                        "negative priority drains before the unset ones",
                        List.of(),
                        withPriority(web("a"), -5),
                        null,
                        DrainBehavior.Drain,
                        -5),
                Arguments.of(
                        "DaemonSet pods last by default",
                        List.of(),
                        ds("a"),
                        null,
                        DrainBehavior.Drain,
                        DrainRules.LAST),
                Arguments.of(
                        "system-node-critical pods last by default",
                        List.of(),
                        web("a").editSpec()
                                .withPriorityClassName("system-node-critical")
                                .withPriority(2000001000)
                                .endSpec()
                                .build(),
                        null,
                        DrainBehavior.Drain,
                        DrainRules.LAST),
                Arguments.of(
                        "order annotation beats the default",
                        List.of(),
                        annotated(web("a"), "7"),
                        null,
                        DrainBehavior.Drain,
                        7),
                Arguments.of(
                        "an order annotation that is not an integer falls back to the default",
                        List.of(),
                        annotated(web("a"), "soon"),
                        null,
                        DrainBehavior.Drain,
                        0),
                Arguments.of(
                        "first matching rule wins",
                        List.of(
                                rule(null, labels("app", "web"), DrainBehavior.WaitCompleted, 3),
                                rule(null, null, DrainBehavior.Skip, 9)),
                        web("a").build(),
                        null,
                        DrainBehavior.WaitCompleted,
                        3),
                Arguments.of(
                        "a rule that does not match is passed over",
                        List.of(
                                rule(null, labels("app", "db"), DrainBehavior.Skip, 1),
                                rule(null, null, DrainBehavior.Drain, 2)),
                        web("a").build(),
                        null,
                        DrainBehavior.Drain,
                        2),
                Arguments.of(
                        "a rule's order beats the annotation",
                        List.of(rule(null, null, DrainBehavior.Drain, 4)),
                        annotated(web("a"), "7"),
                        null,
                        DrainBehavior.Drain,
                        4),
                Arguments.of(
                        "a rule without an order keeps the annotation's",
                        List.of(rule(null, null, DrainBehavior.Drain, null)),
                        annotated(web("a"), "7"),
                        null,
                        DrainBehavior.Drain,
                        7),
                Arguments.of(
                        "namespaceSelector matches the namespace's labels",
                        List.of(rule(labels("team", "a"), null, DrainBehavior.Skip, null)),
                        web("a").build(),
                        TEAM_A,
                        DrainBehavior.Skip,
                        0),
                Arguments.of(
                        "namespaceSelector does not match another namespace",
                        List.of(rule(labels("team", "b"), null, DrainBehavior.Skip, null)),
                        web("a").build(),
                        TEAM_A,
                        DrainBehavior.Drain,
                        0),
                Arguments.of(
                        "namespaceSelector by name works without reading the namespace",
                        List.of(rule(labels("kubernetes.io/metadata.name", "ns"), null, DrainBehavior.Skip, null)),
                        web("a").build(),
                        null,
                        DrainBehavior.Skip,
                        0),
                Arguments.of(
                        "both selectors must match",
                        List.of(rule(labels("team", "a"), labels("app", "db"), DrainBehavior.Skip, null)),
                        web("a").build(),
                        TEAM_A,
                        DrainBehavior.Drain,
                        0),
                Arguments.of(
                        "the opt-out label beats every rule",
                        List.of(rule(null, null, DrainBehavior.WaitCompleted, 2)),
                        skipLabelled(web("a")),
                        null,
                        DrainBehavior.Skip,
                        2),
                Arguments.of(
                        "another value of the opt-out label opts out of nothing",
                        List.of(),
                        web("a").editMetadata()
                                .addToLabels(DrainRules.SKIP_LABEL, "yes")
                                .endMetadata()
                                .build(),
                        null,
                        DrainBehavior.Drain,
                        0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("decisions")
    void decidesBehaviourAndOrder(
            String name,
            List<DrainRules.Rule> rules,
            Pod pod,
            Map<String, String> namespaceLabels,
            DrainBehavior behavior,
            int order) {
        DrainRules.Decision d = new DrainRules(rules).decide(pod, namespaceLabels);
        assertThat(d.behavior()).isEqualTo(behavior);
        assertThat(d.order()).isEqualTo(order);
    }

    static DrainOptions withRules(DrainRules.Rule... rules) {
        DrainOptions d = DrainOptions.defaults();
        return new DrainOptions(
                d.timeout(),
                d.gracePeriodSeconds(),
                d.ignoreDaemonSets(),
                d.deleteEmptyDirData(),
                d.force(),
                d.podSelector(),
                d.evictionRetryDelay(),
                d.skipWaitForDeleteTimeout(),
                d.disableEviction(),
                new DrainRules(List.of(rules)),
                Optional.empty(),
                VolumeDetach.Options.off());
    }

    static Stream<Arguments> behaviours() {
        DrainOptions skip = withRules(rule(null, null, DrainBehavior.Skip, null));
        DrainOptions waitCompleted = withRules(rule(null, null, DrainBehavior.WaitCompleted, null));
        DrainOptions strict = new DrainOptions(
                Optional.empty(),
                -1,
                true,
                false,
                false,
                null,
                Duration.ofSeconds(5),
                Optional.empty(),
                false,
                new DrainRules(List.of(rule(null, labels("app", "bare"), DrainBehavior.Skip, null))),
                Optional.empty(),
                VolumeDetach.Options.off());
        return Stream.of(
                Arguments.of("Skip is never evicted", skip, web("a").build(), Action.SKIP),
                Arguments.of("WaitCompleted is never evicted", waitCompleted, web("a").build(), Action.WAIT_COMPLETED),
                Arguments.of(
                        "a finished WaitCompleted pod is done",
                        waitCompleted,
                        DrainPlanTest.finished(web("a")),
                        Action.LEAVE),
                Arguments.of(
                        "a Skip pod does not refuse the drain though kubectl would (unmanaged, no force)",
                        strict,
                        new PodBuilder(DrainPlanTest.pod("a").build())
                                .editMetadata()
                                .addToLabels("app", "bare")
                                .endMetadata()
                                .build(),
                        Action.SKIP),
                Arguments.of(
                        "an ignored DaemonSet pod stays left alone under a Drain rule",
                        withRules(rule(null, null, DrainBehavior.Drain, 1)),
                        ds("a"),
                        Action.LEAVE),
                Arguments.of(
                        "a pod outside spec.drain.podSelector stays left alone under a WaitCompleted rule",
                        new DrainOptions(
                                Optional.empty(),
                                -1,
                                true,
                                true,
                                true,
                                labels("app", "db"),
                                Duration.ofSeconds(5),
                                Optional.empty(),
                                false,
                                new DrainRules(List.of(rule(null, null, DrainBehavior.WaitCompleted, null))),
                                Optional.empty(),
                                VolumeDetach.Options.off()),
                        web("a").build(),
                        Action.LEAVE));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("behaviours")
    void behaviourDecidesWhatHappensToThePod(String name, DrainOptions options, Pod pod, Action expected) {
        assertThat(DrainPlan.of(List.of(pod), options, HEALTHY, NOW).verdicts())
                .singleElement()
                .extracting(PodVerdict::action)
                .isEqualTo(expected);
    }

    @Test
    void skippedPodsAreNotCountedAndWaitCompletedPodsHoldTheDrainOpen() {
        DrainPlan waiting = DrainPlan.of(
                List.of(
                        skipLabelled(web("s")),
                        web("w").editMetadata()
                                .addToLabels("name", "w")
                                .endMetadata()
                                .build()),
                withRules(rule(null, labels("name", "w"), DrainBehavior.WaitCompleted, null)),
                HEALTHY,
                NOW);
        assertThat(waiting.toDrainCount())
                .as("Skip not counted, WaitCompleted counted")
                .isEqualTo(1);
        assertThat(waiting.complete())
                .as("a running WaitCompleted pod holds the drain open")
                .isFalse();
        assertThat(waiting.toSend()).as("and is never sent").isEmpty();
        assertThat(waiting.currentWave()).as("it is in no wave").isEmpty();
        assertThat(waiting.with(Action.SKIP)).extracting(PodVerdict::key).containsExactly("ns/s");
    }

    @Test
    void onlyTheLowestWaveWithPodsLeftIsSentAndTerminatingPodsHoldItOpen() {
        Pod low = withPriority(web("low"), -10);
        Pod mid = withPriority(web("mid"), 0);
        Pod high = withPriority(web("high"), 100);
        Pod orphanDs = ds("agent"); // orphaned (its DaemonSet is gone): drained with force, last
        DrainPlan.Observed dsGone = DrainPlanTest.DS_GONE;

        DrainPlan first = DrainPlan.of(List.of(high, orphanDs, mid, low), DrainOptions.defaults(), dsGone, NOW);
        assertThat(first.currentWave()).contains(-10);
        assertThat(first.laterWaves()).containsExactly(0, 100, DrainRules.LAST);
        assertThat(first.toSend()).extracting(PodVerdict::key).containsExactly("ns/low");
        assertThat(first.toDrainCount()).isEqualTo(4);

        Pod lowTerminating = DrainPlanTest.terminating(new PodBuilder(low), Duration.ofSeconds(1));
        DrainPlan evicted =
                DrainPlan.of(List.of(high, orphanDs, mid, lowTerminating), DrainOptions.defaults(), dsGone, NOW);
        assertThat(evicted.currentWave())
                .as("a terminating pod keeps its wave open")
                .contains(-10);
        assertThat(evicted.toSend()).isEmpty();
        assertThat(evicted.currentWavePods()).extracting(PodVerdict::action).containsExactly(Action.WAIT_TERMINATING);

        DrainPlan next = DrainPlan.of(List.of(high, orphanDs, mid), DrainOptions.defaults(), dsGone, NOW);
        assertThat(next.toSend()).extracting(PodVerdict::key).containsExactly("ns/mid");

        DrainPlan last = DrainPlan.of(List.of(orphanDs), DrainOptions.defaults(), dsGone, NOW);
        assertThat(last.currentWave()).contains(DrainRules.LAST);
        assertThat(last.toSend()).extracting(PodVerdict::key).containsExactly("ns/agent");
    }

    @Test
    void aPdbRefusalInTheCurrentWaveHoldsTheNextWave() {
        Pod first = annotated(web("a"), "1");
        Pod second = annotated(web("b"), "2");
        DrainPlan plan = DrainPlan.of(
                List.of(first, second),
                DrainOptions.defaults(),
                new DrainPlan.Observed(Set.of(), false, Duration.ZERO, Map.of("uid-a", NOW.plusSeconds(3))),
                NOW);
        assertThat(plan.currentWave()).contains(1);
        assertThat(plan.toSend()).isEmpty();
        assertThat(DrainReport.waveBlockers(plan)).containsExactly("ns/a (eviction refused by a PodDisruptionBudget)");
    }
}
