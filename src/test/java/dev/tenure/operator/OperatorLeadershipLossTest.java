package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseRules;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.testsupport.SecondLane;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Two replicas against an API server: one leads, the other stands by; a leader that loses the lease exits. */
@SecondLane
class OperatorLeadershipLossTest {
    static final LeaseKey LEASE = LeaseKey.of("tenure-system", "tenure-operator");
    KubernetesMockServer server;
    KubernetesClient client;
    final List<Integer> exits = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        server = new KubernetesMockServer(
                new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        client = server.createClient();
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    OperatorLeadership replica(String identity) {
        OperatorLeadership l = new OperatorLeadership(
                new Operator(o -> o.withKubernetesClient(client)), client, config(identity), new SimpleMeterRegistry());
        l.exit = exits::add;
        l.onStart(null);
        return l;
    }

    /**
     * A replica builds its client's table of Kubernetes kinds before it contends, not on the event loop of its
     * informers' first watch event while it renews (OperatorLeadership.buildTypeTable). Here the lease is held
     * elsewhere, so the replica stands by and nothing else it does decodes an object of an untold class.
     */
    @Test
    void aReplicaBuildsItsClientsTypeTableBeforeItContends() throws ReflectiveOperationException {
        new KubeLeaseStore(client).create(LEASE, LeaseRecord.heldBy("elsewhere", Duration.ofMinutes(5), Instant.now()));
        OperatorLeadership standby = replica("standby");
        try {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> standby.elector().orElseThrow().leader().isPresent());
            assertThat(standby.isLeader()).isFalse();
            java.lang.reflect.Field table =
                    client.getKubernetesSerialization().getClass().getDeclaredField("kubernetesDeserializer");
            table.setAccessible(true);
            assertThat(table.get(client.getKubernetesSerialization()))
                    .as("fabric8's type table, built before contending")
                    .isNotNull();
        } finally {
            standby.onStop(null);
        }
    }

    /**
     * tenure.leader-election.enabled=false (one replica, no HA): the work starts at once, with no election and no
     * Lease written, and the instance is ready and counts as leading.
     */
    @Test
    void withoutLeaderElectionTheWorkStartsAtOnceAndNoLeaseIsWritten() {
        OperatorLeadership solo = new OperatorLeadership(
                new Operator(o -> o.withKubernetesClient(client)),
                client,
                config("solo", Duration.ofSeconds(10), Duration.ofSeconds(7), Duration.ofSeconds(1), false),
                new SimpleMeterRegistry());
        solo.exit = exits::add;
        solo.onStart(null);
        try {
            assertThat(solo.reconcilersStarted()).isTrue();
            assertThat(solo.isLeader()).isTrue();
            assertThat(solo.ready()).isTrue();
            assertThat(solo.elector()).as("no elector").isEmpty();
            assertThat(client.leases().inAnyNamespace().list().getItems())
                    .as("Leases written")
                    .isEmpty();
        } finally {
            solo.onStop(null);
        }
        assertThat(solo.reconcilersStarted()).isFalse();
        assertThat(exits).isEmpty();
    }

    @Test
    void oneLeadsTheOtherStandsByAndALostLeaderExits() {
        OperatorLeadership a = replica("a");
        await().atMost(Duration.ofSeconds(10)).until(() -> a.isLeader() && a.reconcilersStarted());
        OperatorLeadership b = replica("b");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> b.elector().orElseThrow().leader().isPresent());
        assertThat(b.isLeader()).isFalse();
        assertThat(b.ready()).as("a standby is ready").isTrue();
        assertThat(b.reconcilersStarted()).isFalse();

        // Someone takes the lease from under the leader (e.g. an admin edit): it must stop and exit.
        KubeLeaseStore store = new KubeLeaseStore(client);
        LeaseRecord current = store.get(LEASE);
        store.update(LEASE, LeaseRules.heldRecord(current, "intruder", Instant.now(), Duration.ofSeconds(30)));
        await().atMost(Duration.ofSeconds(10)).until(() -> !exits.isEmpty());
        assertThat(exits).containsExactly(OperatorLeadership.LOST_LEADERSHIP_EXIT_CODE);
        assertThat(a.ready()).isFalse();
        assertThat(a.reconcilersStarted()).isFalse();

        b.onStop(null);
        a.onStop(null);
        assertThat(exits).as("shutdown and standbys never exit on their own").hasSize(1);
    }

    @Test
    void anInstanceExitingAfterALostTermDoesNotStartTheWorkAgainWhenItWinsAnother() {
        OperatorLeadership a = replica("a");
        await().atMost(Duration.ofSeconds(10)).until(() -> a.isLeader() && a.reconcilersStarted());
        KubeLeaseStore store = new KubeLeaseStore(client);
        store.update(LEASE, LeaseRules.heldRecord(store.get(LEASE), "intruder", Instant.now(), Duration.ofSeconds(30)));
        await().atMost(Duration.ofSeconds(10)).until(() -> !exits.isEmpty());
        assertThat(a.reconcilersStarted()).isFalse();

        // the exit is asynchronous (Quarkus.asyncExit): before the shutdown stops a's elector, the intruder lets go
        // and a wins a new term in the process that is exiting
        LeaseRecord taken = store.get(LEASE);
        store.update(LEASE, LeaseRules.heldRecord(taken, "", Instant.now(), Duration.ofSeconds(30)));
        await().atMost(Duration.ofSeconds(10)).until(a::isLeader);
        await("the work stays stopped in the exiting process")
                .during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(3))
                .until(() -> !a.reconcilersStarted());
        a.onStop(null);
        assertThat(exits).containsExactly(OperatorLeadership.LOST_LEADERSHIP_EXIT_CODE);
    }

    @Test
    void shutdownReleasesSoTheStandbyTakesOver() {
        OperatorLeadership a = replica("a");
        await().atMost(Duration.ofSeconds(10)).until(a::isLeader);
        OperatorLeadership b = replica("b");
        a.onStop(null);
        // Released: free, or already taken by the standby (it may be that quick). The release is a write like any
        // other: on a loaded machine the mock server's event loop has been seen blocked for 4 s, past the release's
        // request timeout, and the server applied it when the loop ran again. Within 5 s either way — well before
        // the 10 s lease, renewed within the last second, could expire had no release been sent.
        await("a's release reaches the server")
                .atMost(Duration.ofSeconds(5))
                .until(() -> List.of("", "b")
                        .contains(new KubeLeaseStore(client).get(LEASE).holderIdentity()));
        await().atMost(Duration.ofSeconds(15)).until(() -> b.isLeader() && b.reconcilersStarted());
        b.onStop(null);
        assertThat(exits).isEmpty();
    }

    static LeaderElectionConfig config(String identity) {
        // Generous enough that a starved CI machine does not miss a renew deadline (which exits).
        return config(identity, Duration.ofSeconds(10), Duration.ofSeconds(7), Duration.ofSeconds(1));
    }

    static LeaderElectionConfig config(
            String identity, Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
        return config(identity, leaseDuration, renewDeadline, retryPeriod, true);
    }

    static LeaderElectionConfig config(
            String identity, Duration leaseDuration, Duration renewDeadline, Duration retryPeriod, boolean enabled) {
        return new LeaderElectionConfig() {
            @Override
            public boolean enabled() {
                return enabled;
            }

            @Override
            public Optional<String> namespace() {
                return Optional.of("tenure-system");
            }

            @Override
            public String leaseName() {
                return "tenure-operator";
            }

            @Override
            public Optional<String> identity() {
                return Optional.of(identity);
            }

            @Override
            public Duration leaseDuration() {
                return leaseDuration;
            }

            @Override
            public Duration renewDeadline() {
                return renewDeadline;
            }

            @Override
            public Duration retryPeriod() {
                return retryPeriod;
            }

            @Override
            public Duration healthGrace() {
                return Duration.ofSeconds(5);
            }

            @Override
            public Duration startLimit() {
                return Duration.ofMinutes(3);
            }

            @Override
            public EvidenceOfDeath evidenceOfDeath() {
                return new EvidenceOfDeath() {
                    @Override
                    public boolean enabled() {
                        return true;
                    }

                    @Override
                    public String containerName() {
                        return "tenure-operator";
                    }
                };
            }
        };
    }
}
