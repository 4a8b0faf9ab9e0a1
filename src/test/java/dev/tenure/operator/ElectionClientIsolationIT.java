package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.LeaderElector;
import dev.tenure.election.LeaseKey;
import dev.tenure.maintenance.door.QuietStatusProfile;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.netty.util.concurrent.EventExecutor;
import io.quarkus.arc.ClientProxy;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The operator's renewals do not queue behind the informers' work (bench row 15: the packaged operator, started beside
 * heavy load, lost its lease while its Vert.x event loops were blocked 2–5 s at a time by class loading and an
 * informer's list processed on the loop). Here every event loop of the application's Vert.x, the one the operator's
 * own client (informers, reconcilers) runs its I/O on, is held for longer than renewDeadline plus a retry, and the
 * leader must keep renewing its lease through it: the election's client has a Vert.x of its own ({@code
 * ElectionHttpClients}). The rule does not depend on the timings, so the class shares {@code QuietStatusProfile}'s
 * application (the {@code %test} election timings: 20 s renewDeadline, 2 s retryPeriod, so a 24 s hold) rather than
 * cost a profile of its own; holding the default application's loops would stall its 14 classes' shared cluster.
 */
@QuarkusTest
@TestProfile(QuietStatusProfile.class)
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class ElectionClientIsolationIT {

    private static final Duration START = Duration.ofMinutes(2);

    @Inject
    OperatorLeadership leadership;

    @Inject
    TenureConfig config;

    /** The application's Vert.x: quarkus-kubernetes-client builds the operator's client on it. */
    @Inject
    Vertx vertx;

    /** The operator's own client (WorkFenceBeans): its informers and reconcilers. */
    @Inject
    KubernetesClient operatorClient;

    @Test
    void theLeaderRenewsWhileEveryEventLoopOfTheOperatorsClientIsBlocked() throws Exception {
        List<Integer> exits = new CopyOnWriteArrayList<>();
        ClientProxy.unwrap(leadership).exit = exits::add; // a lost term would otherwise end the test application
        await().atMost(START).until(() -> leadership.isLeader() && leadership.reconcilersStarted());
        LeaderElector elector = leadership.elector().orElseThrow();
        LeaseKey key = elector.lease();
        LeaderElectionConfig le = config.leaderElection();

        List<EventExecutor> loops = new ArrayList<>();
        vertx.nettyEventLoopGroup().forEach(loops::add);
        CountDownLatch held = new CountDownLatch(loops.size());
        CountDownLatch release = new CountDownLatch(1);
        Instant blockedAt = Clock.systemUTC().instant();
        for (EventExecutor loop : loops) {
            loop.execute(() -> {
                held.countDown();
                try {
                    // what a loop busy with an informer's list or class loading does to the requests queued on it
                    release.await(2, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        CompletableFuture<Lease> operatorRead = new CompletableFuture<>();
        try {
            assertThat(held.await(30, TimeUnit.SECONDS))
                    .as("every event loop of the application's Vert.x is held")
                    .isTrue();
            // a read by the operator's own client, sent while its loops are held
            Thread reader = new Thread(() -> {
                try {
                    operatorRead.complete(operatorClient
                            .leases()
                            .inNamespace(key.namespace())
                            .withName(key.name())
                            .get());
                } catch (RuntimeException e) {
                    operatorRead.completeExceptionally(e);
                }
            });
            reader.setDaemon(true);
            reader.start();

            Duration window = le.renewDeadline().plus(le.retryPeriod().multipliedBy(2));
            await().during(window).atMost(window.plusSeconds(10)).until(() -> leadership.isLeader() && exits.isEmpty());

            assertThat(operatorRead.isDone() && !operatorRead.isCompletedExceptionally())
                    .as("the operator's own client got no answer while its event loops were held (else this test"
                            + " blocked nothing)")
                    .isFalse();
            Lease lease = EmulatedClusterResource.cluster()
                    .client()
                    .leases()
                    .inNamespace(key.namespace())
                    .withName(key.name())
                    .get();
            assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(elector.identity());
            assertThat(lease.getSpec().getRenewTime().toInstant())
                    .as("renewed after the loops were held for longer than renewDeadline")
                    .isAfter(blockedAt.plus(le.renewDeadline()));
        } finally {
            release.countDown();
        }
        assertThat(exits).as("exit codes asked for").isEmpty();
        await().atMost(START)
                .ignoreExceptions()
                .until(() -> operatorClient
                                .leases()
                                .inNamespace(key.namespace())
                                .withName(key.name())
                                .get()
                        != null);
    }
}
