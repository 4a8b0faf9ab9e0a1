package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.maintenance.api.DrainBehavior;
import dev.tenure.maintenance.api.DrainRule;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMachineIT;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.MutableClock;
import dev.tenure.testsupport.SecondLane;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 29 items 1 and 2 on the emulated cluster: pods listed by node and evicted wave by wave (each wave only once
 * the previous one's pods are gone), Skip and WaitCompleted pods never evicted, a WaitCompleted timeout failing the
 * maintenance by name. The machine is driven step by step as the reconciler drives it, its state going through the
 * NodeMaintenance status each time.
 */
@EndToEnd
@SecondLane
class OrderedDrainIT {

    MutableClock clock;
    EmulatedCluster cluster;
    KubernetesClient client;
    ExecutorService pool;
    ExecutorScheduler heartbeats;
    MaintenanceMachine machine;
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    final MaintenanceEvents sink = (warning, reason, message) -> events.add(reason + ": " + message);
    /** Pod name → the eviction requests it received, in the order the API server got them. */
    final List<String> evicted = Collections.synchronizedList(new ArrayList<>());
    /** The wave of each eviction, in the order the API server got them (workloads named in {@link #waveOf}). */
    final List<Integer> evictedWaves = Collections.synchronizedList(new ArrayList<>());
    /** Evictions that reached the API server while a pod of an earlier wave was still stored on the node. */
    final List<String> outOfOrder = Collections.synchronizedList(new ArrayList<>());
    /** Workload → its expected wave, and the pods ("namespace/name") on w1 when the drive started. */
    volatile Map<String, Integer> waveOf = Map.of();

    volatile List<String> podsAtStart = List.of();

    @BeforeEach
    void start() {
        clock = MutableClock.atSystemTime();
        cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests().clock(clock));
        client = cluster.client();
        pool = Executors.newFixedThreadPool(4);
        heartbeats = new ExecutorScheduler("test-heartbeats");
        KubernetesClient operator = cluster.operatorClient();
        machine = new MaintenanceMachine(
                operator,
                new KubeLeaseStore(operator),
                (node, started, now) -> LeadershipHandover.Outcome.complete("nothing held"),
                new MaintenanceMetrics(new SimpleMeterRegistry()),
                MaintenanceMachineIT.SETTINGS,
                pool,
                heartbeats,
                clock);
        cluster.seed().node("w1").role("worker").create();
        // on the server's thread, before the eviction is served: what the node held when it arrived
        cluster.requests().observe(r -> {
            if (r.is("create", "pods", "eviction")) {
                evicted.add(r.name());
                Integer wave = waveOf.get(group(r.name()));
                if (wave == null) {
                    return;
                }
                evictedWaves.add(wave);
                for (String key : podsAtStart) {
                    String ns = key.substring(0, key.indexOf('/'));
                    String name = key.substring(key.indexOf('/') + 1);
                    int theirs = waveOf.getOrDefault(group(name), Integer.MAX_VALUE);
                    if (theirs < wave && cluster.stored(Pod.class, ns, name).isPresent()) {
                        outOfOrder.add(r.name() + " (wave " + wave + ") while " + key + " (wave " + theirs
                                + ") was on the node");
                    }
                }
            }
        });
    }

    @AfterEach
    void stop() {
        machine.close();
        heartbeats.close();
        pool.shutdownNow();
        cluster.close();
    }

    static LabelSelector app(String name) {
        return new LabelSelectorBuilder().addToMatchLabels("app", name).build();
    }

    /** The request as a NodeMaintenance spec makes it: spec.drain.rules and spec.drain.waitCompletedTimeout. */
    static MaintenanceRequest request(String waitCompletedTimeout, DrainRule... rules) {
        DrainSpec drain = new DrainSpec();
        drain.setRules(List.of(rules));
        drain.setWaitCompletedTimeout(waitCompletedTimeout);
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("w1", "ordered drain");
        spec.setDrain(drain);
        return MaintenanceRequest.from(spec);
    }

    /**
     * Reconciles until {@code until} holds. Each eviction is checked as it reaches the API server (the request log's
     * observer, on the server's thread before it is served): no pod of an earlier wave of {@code waves} may still be
     * stored then (pods are not recreated here, so the pods on w1 at the start are all there are).
     */
    MaintenanceState drive(
            MaintenanceRequest request,
            MaintenanceState from,
            Map<String, Integer> waves,
            Predicate<MaintenanceState> until) {
        waveOf = Map.copyOf(waves);
        podsAtStart = podsOnW1().stream()
                .map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())
                .toList();
        AtomicReference<MaintenanceState> state = new AtomicReference<>(from);
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    clock.advance(Duration.ofMillis(100));
                    MaintenanceState next =
                            machine.advance(request, state.get(), false, sink).state();
                    assertThat(outOfOrder)
                            .as("evictions that reached the API server before an earlier wave was gone")
                            .isEmpty();
                    state.set(NodeMaintenanceStatuses.toState(
                            NodeMaintenanceStatuses.toStatus(next, null, 1, clock.instant())));
                    return until.test(state.get());
                });
        return state.get();
    }

    /** The workload a seeded pod belongs to: its name up to the first dash. */
    static String group(String pod) {
        int dash = pod.indexOf('-');
        return dash < 0 ? pod : pod.substring(0, dash);
    }

    List<Pod> podsOnW1() {
        return client.pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> "w1".equals(p.getSpec().getNodeName()))
                .toList();
    }

    boolean listedPodsByNode() {
        return cluster.requests()
                        .count(r -> r.is("list", "pods")
                                && "spec.nodeName=w1".equals(r.query().get("fieldSelector")))
                > 0;
    }

    long evictionsOf(String group) {
        return cluster.requests()
                .count(ApiRequest.resource("pods", "eviction").and(r -> group.equals(group(r.name()))));
    }

    void seed(String name, int replicas, Map<String, String> annotations) {
        var seed = cluster.seed()
                .deployment(name)
                .namespace("shop")
                .replicas(replicas)
                .onNode("w1")
                .terminationDelay(Duration.ofMillis(300));
        annotations.forEach(seed::annotation);
        seed.create();
    }

    /** An unmanaged system-node-critical pod (kube-proxy style) on w1: drained with force, in the last wave. */
    void seedNodeCritical(String name) {
        client.pods()
                .inNamespace("kube-system")
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("kube-system")
                        .addToLabels("app", name)
                        .addToAnnotations("emulated.tenure.dev/termination-delay-ms", "300")
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName("w1")
                        .withPriorityClassName("system-node-critical")
                        .withPriority(2000001000)
                        .addNewContainer()
                        .withName("main")
                        .withImage("registry.k8s.io/pause:3.9")
                        .endContainer()
                        .endSpec()
                        .withNewStatus()
                        .withPhase("Running")
                        .endStatus()
                        .build())
                .create();
    }

    @Test
    void wavesAreEvictedInOrderEachOnlyOnceThePreviousWavesPodsAreGone() {
        cluster.seed().namespace("kube-system");
        seed("backend", 2, Map.of()); // default: the one wave of ordinary pods
        seed("sneaky", 2, Map.of(DrainRules.ORDER_ANNOTATION, "-9")); // ignored: a workload cannot reorder the drain
        seed("frontend", 2, Map.of()); // rule: order -5, first
        seed("db", 2, Map.of()); // rule: order 7
        seedNodeCritical("proxy"); // default: last
        Map<String, Integer> waves =
                Map.of("frontend", -5, "backend", 0, "sneaky", 0, "db", 7, "proxy", DrainRules.LAST);
        MaintenanceRequest request = request(
                null,
                new DrainRule(null, app("frontend"), DrainBehavior.Drain, -5),
                new DrainRule(null, app("db"), DrainBehavior.Drain, 7));

        List<Integer> wavesSeen = new ArrayList<>();
        MaintenanceState done = drive(request, MaintenanceState.initial(), waves, s -> {
            if (s.waves() != null && s.waves().current() != null) {
                if (wavesSeen.isEmpty()
                        || !wavesSeen.get(wavesSeen.size() - 1).equals(s.waves().current())) {
                    wavesSeen.add(s.waves().current());
                }
            }
            return s.phase() == Phase.Succeeded;
        });

        assertThat(listedPodsByNode())
                .as("pods listed with fieldSelector spec.nodeName=w1")
                .isTrue();
        assertThat(evicted).as("every pod evicted exactly once").hasSize(9).doesNotHaveDuplicates();
        assertThat(evictedWaves)
                .as("the wave of each eviction, in the order the API server got them")
                .hasSize(9)
                .isSorted()
                .containsSubsequence(-5, 0, 7, DrainRules.LAST);
        assertThat(evicted.subList(0, 2))
                .as("the rule's first wave, not the annotated pods")
                .allMatch(p -> group(p).equals("frontend"));
        assertThat(outOfOrder).isEmpty();
        assertThat(wavesSeen).containsExactly(-5, 0, 7, DrainRules.LAST);
        assertThat(podsOnW1()).isEmpty();
        assertThat(done.waves()).as("nothing left to show in status.drainPlan").isNull();
        assertThat(events.stream().filter(e -> e.startsWith(MaintenanceEvents.DRAIN_WAVE)))
                .hasSize(4)
                .first()
                .asString()
                .contains("draining wave -5 of node w1 (2 pod(s)); then wave(s) 0, 7, last");
    }

    @Test
    void aWaitCompletedPodHoldsTheLaterWavesUntilItCompletes() {
        seed("job", 1, Map.of());
        seed("web", 1, Map.of());
        MaintenanceRequest request = request(
                null,
                new DrainRule(null, app("job"), DrainBehavior.WaitCompleted, null),
                new DrainRule(null, app("web"), DrainBehavior.Drain, 5));
        MaintenanceState waiting = drive(
                request,
                MaintenanceState.initial(),
                Map.of("job", 0, "web", 5),
                s -> s.waves() != null && s.waves().current() != null);
        MaintenanceState still = drive(request, waiting, Map.of("job", 0, "web", 5), s -> true);
        assertThat(still.waves().current()).as("the job's wave").isEqualTo(0);
        assertThat(still.waves().later()).containsExactly(5);
        assertThat(evictionsOf("web"))
                .as("wave 5 waits for the WaitCompleted job of wave 0")
                .isZero();

        String job = podsOnW1().stream()
                .map(p -> p.getMetadata().getName())
                .filter(n -> n.startsWith("job-"))
                .findFirst()
                .orElseThrow();
        Pod finished = client.pods().inNamespace("shop").withName(job).get();
        finished.getStatus().setPhase("Succeeded");
        client.pods().inNamespace("shop").resource(finished).updateStatus();
        drive(request, still, Map.of("web", 5), s -> s.phase() == Phase.Succeeded);
        assertThat(evictionsOf("web")).isEqualTo(1);
        assertThat(evictionsOf("job")).isZero();
    }

    @Test
    void statusShowsTheCurrentWaveAndWhatBlocksIt() {
        seed("web", 1, Map.of());
        seed("api", 1, Map.of());
        DrainRule[] rules = {
            new DrainRule(null, app("web"), DrainBehavior.Drain, 1),
            new DrainRule(null, app("api"), DrainBehavior.Drain, 2)
        };
        cluster.seed()
                .pdb("web")
                .namespace("shop")
                .selector("app", "web")
                .minAvailable(1)
                .create();
        MaintenanceState blocked = drive(
                request(null, rules),
                MaintenanceState.initial(),
                Map.of("web", 1, "api", 2),
                s -> evictionsOf("web") >= 2);

        assertThat(blocked.phase()).isEqualTo(Phase.Running);
        assertThat(blocked.waves().current()).isEqualTo(1);
        assertThat(blocked.waves().later()).containsExactly(2);
        assertThat(blocked.waves().blockedBy())
                .singleElement()
                .asString()
                .startsWith("shop/web-")
                .contains("PodDisruptionBudget shop/web");
        assertThat(evictionsOf("api"))
                .as("the next wave waits for the blocked one")
                .isZero();

        client.policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace("shop")
                .withName("web")
                .delete();
        drive(request(null, rules), blocked, Map.of("web", 1, "api", 2), s -> s.phase() == Phase.Succeeded);
        assertThat(evictionsOf("api")).isEqualTo(1);
    }

    @Test
    void skipAndWaitCompletedPodsAreNeverEvictedAndTheDrainWaitsForTheCompletion() {
        seed("web", 2, Map.of());
        cluster.seed()
                .deployment("cache")
                .namespace("shop")
                .onNode("w1")
                .label(DrainRules.SKIP_LABEL, DrainRules.SKIP_VALUE)
                .create();
        seed("job", 1, Map.of());
        client.namespaces()
                .resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                        .withNewMetadata()
                        .withName("team-a")
                        .addToLabels("team", "a")
                        .endMetadata()
                        .build())
                .create();
        cluster.seed().deployment("batch").namespace("team-a").onNode("w1").create();
        MaintenanceRequest request = request(
                null,
                new DrainRule(null, app("job"), DrainBehavior.WaitCompleted, null),
                new DrainRule(
                        new LabelSelectorBuilder().addToMatchLabels("team", "a").build(),
                        null,
                        DrainBehavior.Skip,
                        null));

        MaintenanceState waiting = drive(
                request,
                MaintenanceState.initial(),
                Map.of(),
                s -> s.waves() != null
                        && evictionsOf("web") == 2
                        && s.pendingPods().size() == 1);
        String job = podsOnW1().stream()
                .map(p -> p.getMetadata().getName())
                .filter(n -> n.startsWith("job-"))
                .findFirst()
                .orElseThrow();
        assertThat(waiting.phase())
                .as("a running WaitCompleted pod holds the drain open")
                .isEqualTo(Phase.Running);
        assertThat(waiting.waves().waitingForCompletion()).containsExactly("shop/" + job);
        assertThat(waiting.waves().skipped())
                .hasSize(2)
                .anyMatch(p -> p.startsWith("shop/cache-"))
                .anyMatch(p -> p.startsWith("team-a/batch-"));
        assertThat(waiting.pendingPods()).containsExactly("shop/" + job);
        assertThat(cluster.requests().count(r -> r.is("get", "namespaces")))
                .as("the namespace rule read the pods' namespaces")
                .isPositive();

        // the job finishes by itself
        Pod finished = client.pods().inNamespace("shop").withName(job).get();
        finished.getStatus().setPhase("Succeeded");
        client.pods().inNamespace("shop").resource(finished).updateStatus();
        MaintenanceState done = drive(request, waiting, Map.of(), s -> s.phase() == Phase.Succeeded);

        assertThat(evictionsOf("job")).as("WaitCompleted").isZero();
        assertThat(evictionsOf("cache")).as("Skip by label").isZero();
        assertThat(evictionsOf("batch")).as("Skip by namespace rule").isZero();
        assertThat(cluster.requests().count(r -> r.is("delete", "pods"))).isZero();
        assertThat(podsOnW1())
                .extracting(p -> group(p.getMetadata().getName()))
                .containsExactlyInAnyOrder("cache", "batch", "job");
        assertThat(done.waves().skipped()).hasSize(2);
        assertThat(done.evictionPods())
                .as("web x2 and the job; skipped pods are not counted")
                .isEqualTo(3);
    }

    @Test
    void aWaitCompletedPodStillRunningAtItsTimeoutFailsTheMaintenanceByName() {
        seed("job", 1, Map.of());
        MaintenanceRequest request = request("5m", new DrainRule(null, app("job"), DrainBehavior.WaitCompleted, null));
        MaintenanceState waiting = drive(
                request, MaintenanceState.initial(), Map.of(), s -> s.waves() != null && s.phase() == Phase.Running);
        assertThat(waiting.phase()).isEqualTo(Phase.Running);

        clock.advance(Duration.ofMinutes(5));
        MaintenanceState failed = drive(request, waiting, Map.of(), s -> s.phase() == Phase.Failed);

        assertThat(failed.lastError())
                .startsWith("WaitCompletedTimedOut: pods did not complete within 5m on node w1: shop/job-");
        assertThat(events).anyMatch(e -> e.startsWith(MaintenanceEvents.WAIT_COMPLETED_TIMED_OUT));
        assertThat(evictionsOf("job")).isZero();
        assertThat(podsOnW1()).hasSize(1);
    }

    void attach(String name, String node, String attacher) {
        attach(name, node, attacher, true);
    }

    void attach(String name, String node, String attacher, boolean attached) {
        client.storage()
                .v1()
                .volumeAttachments()
                .resource(new io.fabric8.kubernetes.api.model.storage.VolumeAttachmentBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .withNewSpec()
                        .withAttacher(attacher)
                        .withNodeName(node)
                        .withNewSource()
                        .withPersistentVolumeName("pv-" + name)
                        .endSource()
                        .endSpec()
                        .withNewStatus()
                        .withAttached(attached)
                        .endStatus()
                        .build())
                .create();
    }

    static MaintenanceRequest volumeRequest(String timeout, String... ignoreAttachers) {
        dev.tenure.maintenance.api.VolumeDetachSpec detach = new dev.tenure.maintenance.api.VolumeDetachSpec();
        detach.setTimeout(timeout);
        detach.setIgnoreAttachers(List.of(ignoreAttachers));
        DrainSpec drain = new DrainSpec();
        drain.setVolumeDetach(detach);
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("w1", "storage");
        spec.setDrain(drain);
        return MaintenanceRequest.from(spec);
    }

    @Test
    void volumeAttachmentsNamingTheNodeHoldSucceededUntilTheyAreGone() {
        cluster.seed().node("w2").role("worker").create();
        seed("db", 1, Map.of());
        attach("csi-data", "w1", "ebs.csi.aws.com");
        attach("csi-nfs", "w1", "nfs.csi.k8s.io"); // ignored attacher
        attach("csi-other", "w2", "ebs.csi.aws.com"); // another node's
        MaintenanceRequest request = volumeRequest(null, "nfs.csi.k8s.io");

        MaintenanceState waiting = drive(
                request,
                MaintenanceState.initial(),
                Map.of(),
                s -> s.drainedAt() != null && !s.attachedVolumes().isEmpty());
        assertThat(podsOnW1()).as("drained").isEmpty();
        assertThat(waiting.phase()).as("volumes still attached").isEqualTo(Phase.Running);
        assertThat(waiting.attachedVolumes()).containsExactly("csi-data (pv-csi-data) by ebs.csi.aws.com");
        assertThat(NodeMaintenanceStatuses.toStatus(waiting, null, 1, clock.instant())
                        .getDrainPlan()
                        .getVolumeAttachments())
                .as("status lists what it waits for")
                .containsExactly("csi-data (pv-csi-data) by ebs.csi.aws.com");
        MaintenanceState still = drive(request, waiting, Map.of(), s -> true);
        assertThat(still.phase()).isEqualTo(Phase.Running);

        client.storage().v1().volumeAttachments().withName("csi-data").delete();
        MaintenanceState done = drive(request, still, Map.of(), s -> s.phase() == Phase.Succeeded);
        assertThat(done.attachedVolumes()).isEmpty();
        assertThat(events).anyMatch(e -> e.startsWith(MaintenanceEvents.SUCCEEDED) && e.contains("1 by ignored"));
    }

    @Test
    void volumesStillAttachedAtTheTimeoutFailTheMaintenanceByName() {
        attach("csi-data", "w1", "ebs.csi.aws.com");
        MaintenanceRequest request = volumeRequest("2m");
        MaintenanceState waiting = drive(
                request,
                MaintenanceState.initial(),
                Map.of(),
                s -> !s.attachedVolumes().isEmpty());
        clock.advance(Duration.ofMinutes(2));
        MaintenanceState failed = drive(request, waiting, Map.of(), s -> s.phase() == Phase.Failed);
        assertThat(failed.lastError())
                .isEqualTo("VolumeDetachTimedOut: volumes of node w1 still attached 2m after the drain: "
                        + "csi-data (pv-csi-data) by ebs.csi.aws.com (spec.drain.volumeDetach.onTimeout Fail)");
        assertThat(events).anyMatch(e -> e.startsWith(MaintenanceEvents.VOLUME_DETACH_TIMED_OUT));
    }

    /** A pod the drain leaves (label {@code tenure.dev/drain=skip}) that uses claim {@code shop/<claim>}. */
    void seedStayingPodUsing(String name, String claim) {
        client.pods()
                .inNamespace("shop")
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("shop")
                        .addToLabels(DrainRules.SKIP_LABEL, DrainRules.SKIP_VALUE)
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName("w1")
                        .addNewContainer()
                        .withName("main")
                        .withImage("registry.k8s.io/pause:3.9")
                        .endContainer()
                        .addNewVolume()
                        .withName("data")
                        .withNewPersistentVolumeClaim()
                        .withClaimName(claim)
                        .endPersistentVolumeClaim()
                        .endVolume()
                        .endSpec()
                        .withNewStatus()
                        .withPhase("Running")
                        .endStatus()
                        .build())
                .create();
    }

    /** PersistentVolume {@code pv-<attachment>}, bound to claim {@code shop/<claim>}. */
    void volumeBoundTo(String attachment, String claim) {
        client.persistentVolumes()
                .resource(new io.fabric8.kubernetes.api.model.PersistentVolumeBuilder()
                        .withNewMetadata()
                        .withName("pv-" + attachment)
                        .endMetadata()
                        .withNewSpec()
                        .withNewClaimRef()
                        .withKind("PersistentVolumeClaim")
                        .withNamespace("shop")
                        .withName(claim)
                        .endClaimRef()
                        .endSpec()
                        .build())
                .create();
    }

    @Test
    void onlyAttachedVolumesOfPodsTheDrainMovesHoldTheNode() {
        cluster.seed().namespace("shop");
        seed("db", 1, Map.of());
        seedStayingPodUsing("agent", "agent-data");
        volumeBoundTo("csi-agent", "agent-data");
        attach("csi-agent", "w1", "ebs.csi.aws.com"); // its pod stays: never detaches, never waited for
        attach("csi-attaching", "w1", "ebs.csi.aws.com", false); // not attached (yet, or any more)
        MaintenanceRequest request = volumeRequest(null);

        MaintenanceState done = drive(request, MaintenanceState.initial(), Map.of(), s -> s.phase() == Phase.Succeeded);

        assertThat(listedPodsByNode()).as("pods listed by node").isTrue();
        assertThat(evictionsOf("db")).as("the drained pod evicted").isEqualTo(1);
        assertThat(evictionsOf("agent")).as("the skipped pod left").isZero();
        assertThat(done.attachedVolumes()).isEmpty();
        assertThat(events)
                .anyMatch(e -> e.startsWith(MaintenanceEvents.SUCCEEDED)
                        && e.contains("1 used by pods that stay on the node"));
        assertThat(cluster.requests().count(r -> r.is("get", "persistentvolumes")))
                .as("the claim read from the attachment's volume")
                .isPositive();
    }

    @Test
    void anUnreachableNodesVolumesAreNotWaitedFor() {
        attach("csi-data", "w1", "ebs.csi.aws.com");
        client.nodes()
                .withName("w1")
                .editStatus(n -> new io.fabric8.kubernetes.api.model.NodeBuilder(n)
                        .editStatus()
                        .withConditions(new io.fabric8.kubernetes.api.model.NodeConditionBuilder()
                                .withType("Ready")
                                .withStatus("Unknown")
                                .withReason("NodeStatusUnknown")
                                .build())
                        .endStatus()
                        .build());
        MaintenanceState done =
                drive(volumeRequest("2m"), MaintenanceState.initial(), Map.of(), s -> s.phase() == Phase.Succeeded);

        assertThat(done.attachedVolumes()).isEmpty();
        assertThat(events)
                .anyMatch(e -> e.startsWith(MaintenanceEvents.SUCCEEDED) && e.contains("unreachable (Ready Unknown)"));
    }

    @Test
    void withoutVolumeDetachTheDrainSucceedsWhateverIsAttached() {
        attach("csi-data", "w1", "ebs.csi.aws.com");
        MaintenanceState done =
                drive(request(null), MaintenanceState.initial(), Map.of(), s -> s.phase() == Phase.Succeeded);
        assertThat(done.attachedVolumes()).isEmpty();
        assertThat(cluster.requests().count(r -> r.is("list", "volumeattachments")))
                .as("not even listed")
                .isZero();
    }
}
