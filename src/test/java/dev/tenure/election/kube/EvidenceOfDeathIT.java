package dev.tenure.election.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.ElectionMetrics;
import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.HolderProcess;
import dev.tenure.election.LeaderElector;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.MonotonicClock;
import dev.tenure.election.ProcessEnd;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.SecondLane;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Evidence of death end to end: two electors on the emulated cluster, each in a pod whose container runs the emulated
 * kubelet reports. A killed leader whose kubelet reports the kill is taken over long before its lease runs out; a
 * leader that stops renewing while its process may still run — its pod deleted, its node's kubelet down, its pod's
 * status showing only an earlier container's end — is waited out for the whole lease.
 */
@EndToEnd
@SecondLane
class EvidenceOfDeathIT {
    static final String NS = "tenure-system";
    static final String CONTAINER = "tenure-operator";
    static final LeaseKey LEASE = LeaseKey.of(NS, "tenure-operator");
    static final Duration LD = Duration.ofSeconds(12);
    static final Duration RD = Duration.ofSeconds(8);
    static final Duration RP = Duration.ofMillis(500);

    EmulatedCluster cluster;
    KubernetesClient client;
    final List<AutoCloseable> closing = new ArrayList<>();
    final List<ProcessEnd.Reason> counted = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        cluster = EmulatedCluster.start();
        client = cluster.client();
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        cluster.close();
    }

    /** Creates a pod on {@code node} with the operator's container; returns its UID. */
    String createPod(String pod, String node) {
        return client.pods()
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(pod)
                        .withNamespace(NS)
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(node)
                        .addNewContainer()
                        .withName(CONTAINER)
                        .withImage("tenure")
                        .endContainer()
                        .endSpec()
                        .build())
                .create()
                .getMetadata()
                .getUid();
    }

    static void pause(Duration d) {
        await().pollDelay(d).atMost(d.plusSeconds(5)).until(() -> true);
    }

    /** One replica: an elector in a run of the operator's container in {@code pod}. */
    final class Replica {
        final String pod;
        final String identity;
        final LeaderElector elector;
        final CompletableFuture<Long> leading = new CompletableFuture<>();
        final ExecutorScheduler scheduler;

        /** A new pod on {@code node} whose container run started 2 s ago (the JVM's start), reported running. */
        Replica(String pod, String node) {
            this(pod, createPod(pod, node), true, Clock.systemUTC().instant().minusSeconds(2));
        }

        /**
         * A new run in an existing pod, reported running by the kubelet unless {@code reported} is false (its status
         * still shows the previous run); the process starts contending 1.2 s after the run started.
         */
        Replica(String pod, String uid, boolean reported) {
            this(pod, uid, reported, null);
        }

        private Replica(String pod, String uid, boolean reported, java.time.Instant startedAt) {
            this.pod = pod;
            this.identity = pod + "_" + Integer.toHexString(new Random().nextInt());
            if (reported) {
                cluster.startContainer(
                        NS,
                        pod,
                        CONTAINER,
                        startedAt == null ? Clock.systemUTC().instant() : startedAt);
            }
            if (startedAt == null) {
                pause(Duration.ofMillis(1200));
            }
            KubeLeaseStore store =
                    new KubeLeaseStore(client).announcing(new HolderProcess(identity, NS, pod, uid, CONTAINER, null));
            KubeProcessEvidence evidence =
                    new KubeProcessEvidence(client, NS, store, identity, Clock.systemUTC()).start();
            scheduler = new ExecutorScheduler("evidence-it-" + pod);
            Consumer<String> onNew = h -> {};
            elector = LeaderElector.builder()
                    .lease(LEASE)
                    .identity(identity)
                    .leaseDuration(LD)
                    .renewDeadline(RD)
                    .retryPeriod(RP)
                    .store(store)
                    .processEvidence(evidence)
                    .scheduler(scheduler)
                    .clock(Clock.systemUTC())
                    .monotonic(MonotonicClock.system())
                    .random(new Random())
                    .onStartedLeading(() -> leading.complete(System.nanoTime()))
                    .onNewLeader(onNew)
                    .metrics(new ElectionMetrics() {
                        @Override
                        public void tookOverOnEvidence(LeaseKey lease, ProcessEnd.Reason reason) {
                            counted.add(reason);
                        }
                    })
                    .build();
            closing.add(evidence);
            closing.add(scheduler);
            closing.add(elector::stopWithoutRelease);
            elector.start();
        }

        /** The process stops writing at once, without a release (its kubelet may or may not know). */
        long crash() {
            long at = System.nanoTime();
            elector.stopWithoutRelease();
            scheduler.close();
            return at;
        }
    }

    /** a leads (and has renewed for a while), b stands by and has seen it. */
    Replica[] twoReplicas(String nodeOfA) throws Exception {
        return withStandby(new Replica("tenure-operator-a", nodeOfA));
    }

    Replica[] withStandby(Replica a) throws Exception {
        a.leading.get(20, TimeUnit.SECONDS);
        Replica b = new Replica("tenure-operator-b", "n2");
        await().atMost(Duration.ofSeconds(10)).until(() -> b.elector.leader().isPresent());
        pause(Duration.ofMillis(1500));
        return new Replica[] {a, b};
    }

    /** Pod a on n1 whose first run was OOM-killed, the kubelet's report of it in the status; returns its UID. */
    String podWithAnEarlierRunEnded() {
        String uid = createPod("tenure-operator-a", "n1");
        cluster.startContainer(
                NS, "tenure-operator-a", CONTAINER, Clock.systemUTC().instant().minusSeconds(5));
        cluster.endContainer(NS, "tenure-operator-a", CONTAINER, 137, "OOMKilled", Duration.ZERO);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !KubeProcessEvidence.endedRuns(client.pods()
                                .inNamespace(NS)
                                .withName("tenure-operator-a")
                                .get())
                        .isEmpty());
        return uid;
    }

    List<Event> takeoverEvents() {
        return client.v1().events().inNamespace(NS).list().getItems().stream()
                .filter(e -> KubeProcessEvidence.TAKEOVER_REASON.equals(e.getReason()))
                .toList();
    }

    @Test
    void aKilledLeaderIsTakenOverOnItsKubeletsReportLongBeforeItsLeaseRunsOut() throws Exception {
        Replica[] r = twoReplicas("n1");
        int transitions = new KubeLeaseStore(client).get(LEASE).leaseTransitions();
        long killed = r[0].crash();
        cluster.endContainer(NS, r[0].pod, CONTAINER, 137, "Error", Duration.ofMillis(300));

        // well inside the lease: without the evidence b could not lead before LD after a's last renew
        long started = r[1].leading.get(LD.minusSeconds(4).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(Duration.ofNanos(started - killed)).isLessThan(LD.minusSeconds(4));
        assertThat(new KubeLeaseStore(client).get(LEASE).leaseTransitions()).isEqualTo(transitions + 1);
        assertThat(counted).containsExactly(ProcessEnd.Reason.FAILED);
        await().atMost(Duration.ofSeconds(5)).until(() -> !takeoverEvents().isEmpty());
        assertThat(takeoverEvents().get(0).getMessage())
                .contains(r[1].identity, r[0].identity, "exit code 137", "tenure-operator-a");
    }

    @Test
    void anOomKilledLeaderThatRestartedIsTakenOverOnItsLastState() throws Exception {
        Replica[] r = twoReplicas("n1");
        r[0].crash();
        cluster.endContainer(NS, r[0].pod, CONTAINER, 137, "OOMKilled", Duration.ofMillis(200));
        await().atMost(Duration.ofSeconds(3))
                .until(() -> client.pods()
                                .inNamespace(NS)
                                .withName(r[0].pod)
                                .get()
                                .getStatus()
                                .getContainerStatuses()
                                .get(0)
                                .getState()
                                .getTerminated()
                        != null);
        // a new run (restartCount + 1, new container ID) moves the killed one to lastState
        cluster.startContainer(NS, r[0].pod, CONTAINER, Clock.systemUTC().instant());
        r[1].leading.get(LD.minusSeconds(4).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(counted).containsExactly(ProcessEnd.Reason.OOM_KILLED);
    }

    @Test
    void aLeaderWhosePodWasForceDeletedIsWaitedOut() throws Exception {
        Replica[] r = twoReplicas("n1");
        cluster.markKubeletDown("n1"); // the node is cut off: the process may still run there
        long stopped = r[0].crash();
        client.pods().inNamespace(NS).withName(r[0].pod).withGracePeriod(0).delete();
        assertWaitedOut(r[1], stopped);
    }

    @Test
    void aLeaderOnANodeWhoseKubeletIsDownIsWaitedOutThoughItWasKilled() throws Exception {
        Replica[] r = twoReplicas("n1");
        cluster.markKubeletDown("n1"); // NotReady: the kill is reported only once the kubelet is back
        long stopped = r[0].crash();
        cluster.endContainer(NS, r[0].pod, CONTAINER, 137, "Error", Duration.ZERO);
        assertWaitedOut(r[1], stopped);
    }

    @Test
    void aLeaderWhosePodShowsOnlyAnEarlierContainersEndIsWaitedOut() throws Exception {
        // the restart is reported (lastState: the earlier run); a's process then hangs, alive, without renewing
        String uid = podWithAnEarlierRunEnded();
        Replica[] r = withStandby(new Replica("tenure-operator-a", uid, true));
        long stopped = r[0].crash();
        assertWaitedOut(r[1], stopped);
    }

    @Test
    void aLeaderWhosePodsStatusIsOlderThanItsAcquisitionIsWaitedOut() throws Exception {
        // the kubelet reported the earlier run's end, then went down before reporting the new run: the status still
        // shows state.terminated of the earlier run while a's process, in the new run, leads and then hangs
        String uid = podWithAnEarlierRunEnded();
        cluster.markKubeletDown("n1");
        Replica[] r = withStandby(new Replica("tenure-operator-a", uid, false));
        long stopped = r[0].crash();
        assertWaitedOut(r[1], stopped);
    }

    /** b leads only once a's lease has run out (never on evidence), and nothing was counted or recorded. */
    void assertWaitedOut(Replica b, long stopped) throws Exception {
        long started = b.leading.get(LD.multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(Duration.ofNanos(started - stopped))
                .as("b took over before a's lease could have run out")
                .isGreaterThanOrEqualTo(LD.minus(RP.multipliedBy(2)));
        assertThat(counted).isEmpty();
        assertThat(takeoverEvents()).isEmpty();
    }
}
