package dev.tenure.election.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.CandidateRecord;
import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.Heartbeat;
import dev.tenure.election.LeaderElector;
import dev.tenure.election.LeaseConflict;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseNotFound;
import dev.tenure.election.LeaseOwner;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseRules;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.SecondLane;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fabric8 adapter against a real API server (the fabric8 mock in CRUD mode), with real threads. */
@EndToEnd
@SecondLane
class KubeLeaseStoreIT {
    static final LeaseKey KEY = LeaseKey.of("tenure-system", "tenure-operator");
    KubernetesMockServer server;
    KubernetesClient client;
    KubeLeaseStore store;
    final List<ExecutorScheduler> schedulers = new ArrayList<>();

    @BeforeEach
    void start() {
        server = new KubernetesMockServer(
                new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        client = server.createClient();
        store = new KubeLeaseStore(client);
    }

    @AfterEach
    void stop() {
        schedulers.forEach(ExecutorScheduler::close);
        client.close();
        server.destroy();
    }

    @Test
    void crudWithOptimisticConcurrencyAndTypedErrors() {
        assertThatThrownBy(() -> store.get(KEY)).isInstanceOf(LeaseNotFound.class);
        Instant now = Instant.parse("2026-01-01T00:00:00.123456Z");
        LeaseOwner node = LeaseOwner.node("worker-1", "uid-1");
        LeaseRecord created = store.create(
                KEY, LeaseRecord.heldBy("a", Duration.ofSeconds(15), now).withOwners(List.of(node)));
        assertThat(created.resourceVersion()).isNotBlank();
        assertThat(created.owners()).containsExactly(node);
        assertThat(created.renewTime()).isEqualTo(now);
        assertThatThrownBy(() -> store.create(KEY, created))
                .isInstanceOfSatisfying(
                        LeaseConflict.class, c -> assertThat(c.alreadyExists()).isTrue());
        LeaseRecord renewed =
                store.update(KEY, LeaseRules.heldRecord(created, "a", now.plusSeconds(2), Duration.ofSeconds(15)));
        assertThat(renewed.renewTime()).isEqualTo(now.plusSeconds(2));
        assertThat(store.get(KEY).sameElectionState(renewed)).isTrue();
        assertThatThrownBy(() -> store.update(KEY, created.withRenewTime(now.plusSeconds(4))))
                .as("stale resourceVersion")
                .isInstanceOf(LeaseConflict.class);
        Lease raw = client.resources(Lease.class)
                .inNamespace("tenure-system")
                .withName("tenure-operator")
                .get();
        assertThat(raw.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(o -> assertThat(o.getKind()).isEqualTo("Node"));
    }

    /** Issue 13: a PUT of a fresh ObjectMeta wiped everything else on the Lease at every renew. */
    @Test
    void renewsKeepLabelsAnnotationsFinalizersAndOwnerReferenceFlags() {
        client.resource(new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder()
                        .withNewMetadata()
                        .withNamespace("tenure-system")
                        .withName("tenure-operator")
                        .addToLabels("team", "platform")
                        .addToAnnotations("note", "kept")
                        .addToFinalizers("example.com/keep")
                        .addNewOwnerReference()
                        .withApiVersion("v1")
                        .withKind("Node")
                        .withName("worker-1")
                        .withUid("uid-1")
                        .withController(true)
                        .withBlockOwnerDeletion(true)
                        .endOwnerReference()
                        .endMetadata()
                        .withNewSpec()
                        .withHolderIdentity("a")
                        .withLeaseDurationSeconds(15)
                        .endSpec()
                        .build())
                .create();
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        LeaseRecord read = store.get(KEY);
        LeaseRecord renewed = store.update(KEY, LeaseRules.heldRecord(read, "a", now, Duration.ofSeconds(15)));
        // a second store instance has never seen the object: it must read the metadata rather than drop it
        LeaseRecord again = new KubeLeaseStore(client)
                .update(
                        KEY,
                        LeaseRules.heldRecord(renewed, "a", now.plusSeconds(2), Duration.ofSeconds(15))
                                .withOwners(List.of(
                                        LeaseOwner.node("worker-1", "uid-1"), LeaseOwner.node("worker-2", "uid-2"))));
        assertThat(again.renewTime()).isEqualTo(now.plusSeconds(2));
        Lease raw = client.resources(Lease.class)
                .inNamespace("tenure-system")
                .withName("tenure-operator")
                .get();
        assertThat(raw.getMetadata().getLabels()).containsEntry("team", "platform");
        assertThat(raw.getMetadata().getAnnotations()).containsEntry("note", "kept");
        assertThat(raw.getMetadata().getFinalizers()).containsExactly("example.com/keep");
        assertThat(raw.getMetadata().getOwnerReferences()).hasSize(2).first().satisfies(o -> {
            assertThat(o.getUid()).isEqualTo("uid-1");
            assertThat(o.getController()).isTrue();
            assertThat(o.getBlockOwnerDeletion()).isTrue();
        });
        assertThat(raw.getSpec().getHolderIdentity()).isEqualTo("a");
    }

    @Test
    void watchDeliversChanges() {
        List<Optional<LeaseRecord>> seen = new CopyOnWriteArrayList<>();
        try (var w = store.watch(KEY, seen::add)) {
            LeaseRecord r = store.create(KEY, LeaseRecord.heldBy("a", Duration.ofSeconds(15), Instant.now()));
            store.update(KEY, r.withPreferredHolder("b"));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> seen.stream()
                            .anyMatch(o ->
                                    o.map(x -> "b".equals(x.preferredHolder())).orElse(false)));
        }
    }

    record Interval(String id, Instant start, Instant end) {}

    /** The next renew is 30 s away, so only the watch can make the leader yield within the wait. */
    @Test
    void leaderYieldsToPreferredHolderThroughTheWatch() {
        ExecutorScheduler scheduler = new ExecutorScheduler("elector-yield");
        schedulers.add(scheduler);
        List<String> events = new CopyOnWriteArrayList<>();
        LeaderElector a = LeaderElector.builder()
                .lease(KEY)
                .identity("a")
                .leaseDuration(Duration.ofSeconds(60))
                .renewDeadline(Duration.ofSeconds(40))
                .retryPeriod(Duration.ofSeconds(30))
                .store(store)
                .scheduler(scheduler)
                .clock(Clock.systemUTC())
                .monotonic(dev.tenure.election.MonotonicClock.system())
                .random(new Random(1))
                .onStartedLeading(() -> events.add("started"))
                .onStoppedLeading(() -> events.add("stopped"))
                .build();
        a.start();
        await().atMost(Duration.ofSeconds(10)).until(a::isLeader);
        LeaseRecord held = store.get(KEY);
        store.update(KEY, held.withStrategy("OldestEmulationVersion").withPreferredHolder("b"));
        await().atMost(Duration.ofSeconds(10)).until(() -> !store.get(KEY).hasHolder());
        assertThat(a.isLeader()).isFalse();
        assertThat(events).containsExactly("started", "stopped");
        assertThat(store.get(KEY).preferredHolder()).isEqualTo("b");
        a.stop();
    }

    @Test
    void threeElectorsOnRealThreadsNeverOverlapAndHandOver() {
        long seed = System.nanoTime();
        System.out.println("KubeLeaseStoreIT seed " + seed);
        Random random = new Random(seed);
        InstantSource clock = Clock.systemUTC();
        List<Interval> intervals = Collections.synchronizedList(new ArrayList<>());
        Map<String, Instant> open = new java.util.concurrent.ConcurrentHashMap<>();
        List<LeaderElector> electors = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = "replica-" + i;
            ExecutorScheduler scheduler = new ExecutorScheduler("elector-" + id);
            schedulers.add(scheduler);
            electors.add(LeaderElector.builder()
                    .lease(KEY)
                    .identity(id)
                    .leaseDuration(Duration.ofSeconds(4))
                    .renewDeadline(Duration.ofSeconds(2))
                    .retryPeriod(Duration.ofMillis(400))
                    .store(store)
                    .scheduler(scheduler)
                    .clock(clock)
                    .monotonic(dev.tenure.election.MonotonicClock.system())
                    .random(new Random(random.nextLong()))
                    .onStartedLeading(() -> open.put(id, Instant.now()))
                    .onStoppedLeading(() -> {
                        Instant s = open.remove(id);
                        if (s != null) {
                            intervals.add(new Interval(id, s, Instant.now()));
                        }
                    })
                    .build());
        }
        electors.forEach(LeaderElector::start);
        LeaderElector first = await().atMost(Duration.ofSeconds(10))
                .until(() -> startedSoleLeader(electors, open), Optional::isPresent)
                .orElseThrow();
        first.stop(); // release: the next one takes over within ~2.2 × retryPeriod
        assertThat(store.get(KEY).holderIdentity()).isNotEqualTo(first.identity());
        LeaderElector second = await().atMost(Duration.ofSeconds(5))
                .until(() -> startedSoleLeader(electors, open), Optional::isPresent)
                .orElseThrow();
        second.stopWithoutRelease(); // crash: the last one takes over after leaseDuration
        LeaderElector third = await().atMost(Duration.ofSeconds(15))
                .until(() -> startedSoleLeader(electors, open), Optional::isPresent)
                .orElseThrow();
        third.stop();
        assertThat(List.of(first, second, third)).doesNotHaveDuplicates();
        // At least the three hand-overs; a replica starved of CPU past renewDeadline may add more.
        assertThat(intervals).hasSizeGreaterThanOrEqualTo(3);
        for (Interval a : intervals) {
            for (Interval b : intervals) {
                if (a != b) {
                    assertThat(a.start().isBefore(b.end()) && b.start().isBefore(a.end()))
                            .as(a + " overlaps " + b)
                            .isFalse();
                }
            }
        }
        assertThat(store.get(KEY).leaseTransitions()).isGreaterThanOrEqualTo(2);
    }

    /**
     * The one elector that leads, once its work has started. {@code isLeader()} turns true when a term begins, before
     * {@code onStartedLeading} runs on the elector's callback thread, and a stop in between preempts the start
     * ({@code LeadershipTerm.begin}): a hand-over forced then leaves no term to count. Seen at load ~18 beside
     * {@code FairQueueIT}: four terms for five rounds of {@link #fiveElectorsWithFaultsNeverOverlap}.
     */
    static Optional<LeaderElector> startedSoleLeader(List<LeaderElector> electors, Map<String, Instant> open) {
        List<LeaderElector> leaders =
                electors.stream().filter(LeaderElector::isLeader).toList();
        return leaders.size() == 1 && open.containsKey(leaders.get(0).identity())
                ? Optional.of(leaders.get(0))
                : Optional.empty();
    }

    /**
     * Five electors on real threads against the API server, with seeded 409/500/lost-response
     * faults (10 % of calls) and random crashes, stops and restarts. Margins are generous
     * (leaseDuration − renewDeadline = 2 s) because real threads on a shared machine can be
     * descheduled; the skew bound is 0 (one JVM, one clock).
     */
    @Test
    void fiveElectorsWithFaultsNeverOverlap() {
        long seed = Long.getLong("tenure.chaos.seed", System.nanoTime());
        System.out.println("KubeLeaseStoreIT chaos seed " + seed);
        Random random = new Random(seed);
        List<Interval> intervals = Collections.synchronizedList(new ArrayList<>());
        Map<String, Instant> open = new java.util.concurrent.ConcurrentHashMap<>();
        List<LeaderElector> live = new ArrayList<>();
        List<LeaderElector> all = new ArrayList<>();
        int[] next = {0};
        Runnable spawn = () -> {
            String id = "replica-" + next[0]++;
            ExecutorScheduler scheduler = new ExecutorScheduler("elector-" + id);
            schedulers.add(scheduler);
            LeaderElector e = LeaderElector.builder()
                    .lease(KEY)
                    .identity(id)
                    .leaseDuration(Duration.ofSeconds(4))
                    .renewDeadline(Duration.ofSeconds(2))
                    .retryPeriod(Duration.ofMillis(400))
                    .store(new dev.tenure.election.FaultyLeaseStore(store, random.nextLong(), 0.10))
                    .scheduler(scheduler)
                    .clock(Clock.systemUTC())
                    .monotonic(dev.tenure.election.MonotonicClock.system())
                    .random(new Random(random.nextLong()))
                    .onStartedLeading(() -> open.put(id, Instant.now()))
                    .onStoppedLeading(() -> {
                        Instant s = open.remove(id);
                        if (s != null) {
                            intervals.add(new Interval(id, s, Instant.now()));
                        }
                    })
                    .build();
            live.add(e);
            all.add(e);
            e.start();
        };
        for (int i = 0; i < 5; i++) {
            spawn.run();
        }
        for (int round = 0; round < 5; round++) {
            // a leader whose work has started (startedSoleLeader says why)
            LeaderElector leader = await().atMost(Duration.ofSeconds(20))
                    .until(
                            () -> live.stream()
                                    .filter(e -> e.isLeader() && open.containsKey(e.identity()))
                                    .findFirst(),
                            Optional::isPresent)
                    .orElseThrow();
            live.remove(leader);
            if (random.nextBoolean()) {
                leader.stop();
            } else {
                leader.stopWithoutRelease();
            }
            spawn.run();
        }
        all.forEach(LeaderElector::stopWithoutRelease);
        // the stop is asynchronous: onStoppedLeading runs on each elector's own thread, so wait until every term
        // is closed before judging them (judging earlier missed the last terms and met a list still being added to)
        await().atMost(Duration.ofSeconds(20)).until(open::isEmpty);
        List<Interval> terms;
        synchronized (intervals) {
            terms = List.copyOf(intervals);
        }
        assertThat(terms).hasSizeGreaterThanOrEqualTo(5);
        for (Interval a : terms) {
            for (Interval b : terms) {
                if (a != b) {
                    assertThat(a.start().isBefore(b.end()) && b.start().isBefore(a.end()))
                            .as("seed " + seed + ": " + a + " overlaps " + b)
                            .isFalse();
                }
            }
        }
    }

    @Test
    void heartbeatKeepsAPerNodeLeaseOwnedByTheNode() {
        client.nodes()
                .resource(new NodeBuilder()
                        .withNewMetadata()
                        .withName("worker-1")
                        .endMetadata()
                        .build())
                .create();
        ExecutorScheduler scheduler = new ExecutorScheduler("heartbeat");
        schedulers.add(scheduler);
        LeaseKey nodeLease = LeaseKey.of("medik8s-leases", "node-worker-1");
        Heartbeat hb = Heartbeat.builder()
                .lease(nodeLease)
                .holder("tenure")
                .leaseDuration(Duration.ofSeconds(4))
                .renewInterval(Duration.ofMillis(500))
                .owner(new NodeOwner(client, "worker-1"))
                .store(store)
                .scheduler(scheduler)
                .clock(Clock.systemUTC())
                .random(new Random(1))
                .build();
        hb.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.find(nodeLease).isPresent());
        Instant first = store.get(nodeLease).renewTime();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> store.get(nodeLease).renewTime().isAfter(first));
        LeaseRecord r = store.get(nodeLease);
        assertThat(r.holderIdentity()).isEqualTo("tenure");
        assertThat(r.owners()).singleElement().satisfies(o -> {
            assertThat(o.kind()).isEqualTo("Node");
            assertThat(o.name()).isEqualTo("worker-1");
            assertThat(o.uid()).isNotBlank();
        });
        assertThat(hb.stopAndRelease()).isTrue();
        assertThat(store.get(nodeLease).hasHolder()).isFalse();
    }

    @Test
    void leaseCandidateStoreUsesTheServedVersion() {
        KubeLeaseCandidateStore candidates =
                KubeLeaseCandidateStore.detect(client, "kube-system").orElseThrow();
        assertThat(candidates.apiVersion()).isEqualTo("coordination.k8s.io/v1beta1");
        LeaseKey key = LeaseKey.of("kube-system", "pod-a");
        Instant now = Instant.parse("2026-01-01T00:00:00.123456Z");
        CandidateRecord created = candidates.create(
                key,
                new CandidateRecord(
                        "kube-system",
                        "pod-a",
                        "my-lease",
                        "1.33.0",
                        "1.32.0",
                        "OldestEmulationVersion",
                        now,
                        null,
                        null,
                        Map.of("tenure.dev/node", "worker-1"),
                        null));
        assertThat(created.renewTime()).isEqualTo(now);
        assertThat(created.labels()).containsEntry("tenure.dev/node", "worker-1");
        CandidateRecord pinged = candidates.update(key, created.withPingTime(now.plusSeconds(1)));
        assertThat(candidates.get(key).pinged()).isTrue();
        assertThatThrownBy(() -> candidates.update(key, created)).isInstanceOf(LeaseConflict.class);
        assertThat(pinged.leaseName()).isEqualTo("my-lease");
        io.fabric8.kubernetes.api.model.coordination.v1beta1.LeaseCandidate typed = client.resources(
                        io.fabric8.kubernetes.api.model.coordination.v1beta1.LeaseCandidate.class)
                .inNamespace("kube-system")
                .withName("pod-a")
                .get();
        assertThat(typed.getSpec().getBinaryVersion()).isEqualTo("1.33.0");
    }
}
