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

    static Pod labelled(PodBuilder b, String value) {
        return b.editMetadata()
                .addToLabels(DrainRules.SKIP_LABEL, value)
                .endMetadata()
                .build();
    }

    static final Map<String, String> TEAM_A = Map.of("team", "a");

    static Stream<Arguments> decisions() {
        return Stream.of(
                Arguments.of("no rules: Drain, order 0", List.of(), web("a").build(), null, DrainBehavior.Drain, 0),
                Arguments.of(
                        "no rules: one wave whatever the priority (kubectl), not a wave per priority",
                        List.of(),
                        withPriority(web("a"), 1000),
                        null,
                        DrainBehavior.Drain,
                        0),
                Arguments.of(
                        "a negative priority is in the same one wave",
                        List.of(),
                        withPriority(web("a"), -5),
                        null,
                        DrainBehavior.Drain,
                        0),
                Arguments.of(
                        "system-cluster-critical pods after the ordinary ones by default",
                        List.of(),
                        web("a").editSpec()
                                .withPriorityClassName("system-cluster-critical")
                                .withPriority(2000000000)
                                .endSpec()
                                .build(),
                        null,
                        DrainBehavior.Drain,
                        DrainRules.CLUSTER_CRITICAL),
                Arguments.of(
                        "DaemonSet pods last by default",
                        List.of(),
                        ds("a"),
                        null,
                        DrainBehavior.Drain,
                        DrainRules.LAST),
                Arguments.of(
                        "a DaemonSet of another API group is an ordinary pod: the one wave (kubectl)",
                        List.of(),
                        owned("a", "apps.kruise.io/v1alpha1", "DaemonSet", "ds").build(),
                        null,
                        DrainBehavior.Drain,
                        0),
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
                        "the order annotation is ignored: a workload cannot reorder the drain",
                        List.of(),
                        annotated(web("a"), "-7"),
                        null,
                        DrainBehavior.Drain,
                        0),
                Arguments.of(
                        "an order annotation that is not an integer is ignored too",
                        List.of(),
                        annotated(web("a"), "soon"),
                        null,
                        DrainBehavior.Drain,
                        0),
                Arguments.of(
                        "first matching rule wins",
                        List.of(
                                rule(null, labels("app", "web"), DrainBehavior.WaitCompleted, null),
                                rule(null, null, DrainBehavior.Skip, null)),
                        web("a").build(),
                        null,
                        DrainBehavior.WaitCompleted,
                        0),
                Arguments.of(
                        "a rule that does not match is passed over",
                        List.of(
                                rule(null, labels("app", "db"), DrainBehavior.Skip, null),
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
                        "a Drain rule without an order takes the default, never the annotation's",
                        List.of(rule(null, null, DrainBehavior.Drain, null)),
                        annotated(web("a"), "7"),
                        null,
                        DrainBehavior.Drain,
                        0),
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
                        List.of(rule(null, null, DrainBehavior.WaitCompleted, null)),
                        skipLabelled(web("a")),
                        null,
                        DrainBehavior.Skip,
                        0),
                Arguments.of(
                        "the label's skip in any case (Cluster API's values)",
                        List.of(),
                        labelled(web("a"), "Skip"),
                        null,
                        DrainBehavior.Skip,
                        0),
                Arguments.of(
                        "the label's wait-completed in any case opts out into WaitCompleted, wave 0",
                        List.of(rule(null, null, DrainBehavior.Drain, 5)),
                        labelled(web("a"), "Wait-Completed"),
                        null,
                        DrainBehavior.WaitCompleted,
                        0),
                Arguments.of(
                        "the label's WaitCompleted, the behaviour's own spelling, opts out as in Cluster API",
                        List.of(),
                        labelled(web("a"), "WaitCompleted"),
                        null,
                        DrainBehavior.WaitCompleted,
                        0),
                Arguments.of(
                        "the label's wait-completed beats a Skip rule",
                        List.of(rule(null, null, DrainBehavior.Skip, null)),
                        labelled(web("a"), "wait-completed"),
                        null,
                        DrainBehavior.WaitCompleted,
                        0),
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
                VolumeDetach.Options.off(),
                null,
                null);
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
                VolumeDetach.Options.off(),
                null,
                null);
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
                        "a catch-all WaitCompleted rule does not capture a DaemonSet pod (it would never complete)",
                        waitCompleted,
                        ds("a"),
                        Action.LEAVE),
                Arguments.of(
                        "a catch-all WaitCompleted rule does not capture a mirror pod",
                        waitCompleted,
                        new PodBuilder(DrainPlanTest.pod("a").build())
                                .editMetadata()
                                .addToAnnotations(PodFilters.MIRROR_ANNOTATION, "x")
                                .endMetadata()
                                .build(),
                        Action.LEAVE),
                Arguments.of("a catch-all Skip rule does not capture a DaemonSet pod", skip, ds("a"), Action.LEAVE),
                Arguments.of(
                        "a wait-completed label does not make a DaemonSet pod one to wait for",
                        DrainOptions.defaults(),
                        labelled(owned("a", "DaemonSet", "ds"), "wait-completed"),
                        Action.LEAVE),
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
                                VolumeDetach.Options.off(),
                                null,
                                null),
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
        assertThat(waiting.currentWave()).as("it is in wave 0").contains(0);
        assertThat(waiting.with(Action.SKIP)).extracting(PodVerdict::key).containsExactly("ns/s");
    }

    static Pod named(PodBuilder b) {
        Pod p = b.build();
        return new PodBuilder(p)
                .editMetadata()
                .addToLabels("name", p.getMetadata().getName())
                .endMetadata()
                .build();
    }

    @Test
    void aWaitCompletedPodHoldsEveryLaterWaveUntilItCompletes() {
        DrainOptions options = withRules(
                rule(null, labels("name", "job"), DrainBehavior.WaitCompleted, null),
                rule(null, null, DrainBehavior.Drain, 5));
        Pod job = named(web("job"));
        Pod late = named(web("late"));
        DrainPlan running = DrainPlan.of(List.of(job, late), options, HEALTHY, NOW);
        assertThat(running.currentWave()).as("the job's wave 0").contains(0);
        assertThat(running.laterWaves()).containsExactly(5);
        assertThat(running.toSend()).as("wave 5 waits for the job").isEmpty();
        assertThat(DrainReport.waveBlockers(running))
                .containsExactly("ns/job (WaitCompleted: waiting for it to complete)");

        DrainPlan completed =
                DrainPlan.of(List.of(DrainPlanTest.finished(new PodBuilder(job)), late), options, HEALTHY, NOW);
        assertThat(completed.toSend()).extracting(PodVerdict::key).containsExactly("ns/late");
    }

    @Test
    void aWaitCompletedPodDoesNotHoldItsOwnWaveNorAnEarlierOne() {
        DrainOptions options = withRules(
                rule(null, labels("name", "job"), DrainBehavior.WaitCompleted, null),
                rule(null, labels("name", "early"), DrainBehavior.Drain, -1),
                rule(null, null, DrainBehavior.Drain, null));
        DrainPlan plan = DrainPlan.of(
                List.of(named(web("job")), named(web("early")), named(web("same"))), options, HEALTHY, NOW);
        assertThat(plan.toSend()).extracting(PodVerdict::key).containsExactly("ns/early");
        DrainPlan next = DrainPlan.of(List.of(named(web("job")), named(web("same"))), options, HEALTHY, NOW);
        assertThat(next.toSend()).extracting(PodVerdict::key).containsExactly("ns/same");
    }

    @Test
    void anUnknownLabelValueIsDrainedWithAWarningNamingThePodAndTheValue() {
        DrainPlan plan = DrainPlan.of(List.of(labelled(web("a"), "yes")), DrainOptions.defaults(), HEALTHY, NOW);
        assertThat(plan.toSend()).extracting(PodVerdict::key).containsExactly("ns/a");
        assertThat(plan.warnings()).singleElement().asString().contains("ns/a").contains("tenure.dev/drain=\"yes\"");
    }

    @Test
    void defaultOrderIsKubectlsOneWaveThenTheSystemPods() {
        Pod low = withPriority(web("low"), -10);
        Pod mid = withPriority(web("mid"), 0);
        Pod high = withPriority(web("high"), 1_000_000_000);
        Pod clusterCritical = web("cc")
                .editSpec()
                .withPriorityClassName("system-cluster-critical")
                .withPriority(2_000_000_000)
                .endSpec()
                .build();
        Pod nodeCritical = web("nc")
                .editSpec()
                .withPriorityClassName("system-node-critical")
                .withPriority(2_000_001_000)
                .endSpec()
                .build();
        Pod orphanDs = ds("agent"); // orphaned (its DaemonSet is gone): drained with force, last
        DrainPlan.Observed dsGone = DrainPlanTest.DS_GONE;
        List<Pod> all = List.of(high, orphanDs, nodeCritical, mid, clusterCritical, low);

        DrainPlan first = DrainPlan.of(all, DrainOptions.defaults(), dsGone, NOW);
        assertThat(first.currentWave()).contains(0);
        assertThat(first.laterWaves()).containsExactly(DrainRules.CLUSTER_CRITICAL, DrainRules.LAST);
        assertThat(first.toSend()).extracting(PodVerdict::key).containsExactly("ns/high", "ns/mid", "ns/low");

        DrainPlan.Observed midRefused =
                new DrainPlan.Observed(Set.of(), false, Duration.ZERO, Map.of("uid-mid", NOW.plusSeconds(3)));
        DrainPlan blocked = DrainPlan.of(all, DrainOptions.defaults(), midRefused, NOW);
        assertThat(blocked.toSend())
                .as("a PDB-blocked ordinary pod does not hold back the ordinary pods of higher priority")
                .extracting(PodVerdict::key)
                .containsExactly("ns/high", "ns/low");

        DrainPlan evicted = DrainPlan.of(
                List.of(
                        orphanDs,
                        nodeCritical,
                        DrainPlanTest.terminating(new PodBuilder(mid), Duration.ofSeconds(1)),
                        clusterCritical),
                DrainOptions.defaults(),
                dsGone,
                NOW);
        assertThat(evicted.currentWave())
                .as("a terminating pod keeps its wave open")
                .contains(0);
        assertThat(evicted.toSend()).isEmpty();

        DrainPlan system =
                DrainPlan.of(List.of(orphanDs, nodeCritical, clusterCritical), DrainOptions.defaults(), dsGone, NOW);
        assertThat(system.toSend()).extracting(PodVerdict::key).containsExactly("ns/cc");

        DrainPlan last = DrainPlan.of(List.of(orphanDs, nodeCritical), DrainOptions.defaults(), dsGone, NOW);
        assertThat(last.currentWave()).contains(DrainRules.LAST);
        assertThat(last.toSend()).extracting(PodVerdict::key).containsExactly("ns/agent", "ns/nc");
    }

    @Test
    void aPdbRefusalInTheCurrentWaveHoldsTheNextWave() {
        Pod first = named(web("a"));
        Pod second = named(web("b"));
        DrainPlan plan = DrainPlan.of(
                List.of(first, second),
                withRules(
                        rule(null, labels("name", "a"), DrainBehavior.Drain, 1),
                        rule(null, labels("name", "b"), DrainBehavior.Drain, 2)),
                new DrainPlan.Observed(Set.of(), false, Duration.ZERO, Map.of("uid-a", NOW.plusSeconds(3))),
                NOW);
        assertThat(plan.currentWave()).contains(1);
        assertThat(plan.toSend()).isEmpty();
        assertThat(DrainReport.waveBlockers(plan)).containsExactly("ns/a (eviction refused by a PodDisruptionBudget)");
    }
}
