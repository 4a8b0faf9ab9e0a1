package dev.tenure.bench;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.HolderProcess;
import dev.tenure.election.LeaderElector;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.election.kube.KubeProcessEvidence;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Clock;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One elector under benchmark, Tenure's or fabric8's, with the same three moves: start, crash (stop
 * renewing, no release) and planned stop (release when the implementation releases on stop).
 */
interface BenchElector {

    /** Which implementation; the row labels use {@link #label}. */
    enum Kind {
        TENURE("Tenure"),
        FABRIC8("fabric8");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    void start();

    /** The process dies: nothing more is written. */
    void crash();

    /** Planned stop: Tenure releases (holder cleared); fabric8 releases when built with releaseOnCancel. */
    void stop();

    /** What an elector reports back, stamped with System.nanoTime(). */
    interface Events {
        void startedLeading(long nanos);

        default void newLeader(String identity) {}
    }

    static BenchElector create(
            Kind kind,
            KubernetesClient client,
            String namespace,
            String lease,
            String identity,
            ElectionProfile profile,
            boolean fabric8ReleaseOnCancel,
            long seed,
            HolderProcess process,
            Events events) {
        return switch (kind) {
            case TENURE -> new Tenure(client, namespace, lease, identity, profile, seed, process, events);
            case FABRIC8 -> new Fabric8(client, namespace, lease, identity, profile, fabric8ReleaseOnCancel, events);
        };
    }

    /**
     * dev.tenure.election.LeaderElector on the fabric8 adapter; given the pod it runs in, it announces that binding and
     * takes over on the evidence that the holder's process ended (KubeProcessEvidence on the pods of its namespace).
     */
    final class Tenure implements BenchElector {
        private final LeaderElector elector;
        private final ExecutorScheduler scheduler;
        private final KubeProcessEvidence evidence;

        Tenure(
                KubernetesClient client,
                String namespace,
                String lease,
                String identity,
                ElectionProfile profile,
                long seed,
                HolderProcess process,
                Events events) {
            this.scheduler = new ExecutorScheduler("bench-" + identity);
            Consumer<String> onNew = events::newLeader;
            KubeLeaseStore store = new KubeLeaseStore(client);
            if (process != null) {
                store = store.announcing(process);
                this.evidence = new KubeProcessEvidence(client, namespace, store, identity, Clock.systemUTC()).start();
            } else {
                this.evidence = null;
            }
            LeaderElector.Builder builder = LeaderElector.builder()
                    .lease(LeaseKey.of(namespace, lease))
                    .identity(identity)
                    .leaseDuration(profile.leaseDuration())
                    .renewDeadline(profile.renewDeadline())
                    .retryPeriod(profile.retryPeriod())
                    .store(store)
                    .scheduler(scheduler)
                    .clock(Clock.systemUTC())
                    .monotonic(dev.tenure.election.MonotonicClock.system())
                    .random(new Random(seed))
                    .onStartedLeading(() -> events.startedLeading(System.nanoTime()))
                    .onNewLeader(onNew);
            if (evidence != null) {
                builder.processEvidence(evidence);
            }
            this.elector = builder.build();
        }

        @Override
        public void start() {
            elector.start();
        }

        @Override
        public void crash() {
            elector.stopWithoutRelease();
            scheduler.close();
            closeEvidence();
        }

        @Override
        public void stop() {
            elector.stop();
            scheduler.close();
            closeEvidence();
        }

        private void closeEvidence() {
            if (evidence != null) {
                evidence.close();
            }
        }
    }

    /** io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector (what Java Operator SDK uses). */
    final class Fabric8 implements BenchElector {
        private final io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector elector;
        private CompletableFuture<?> running;

        Fabric8(
                KubernetesClient client,
                String namespace,
                String lease,
                String identity,
                ElectionProfile profile,
                boolean releaseOnCancel,
                Events events) {
            this.elector = client.leaderElector()
                    .withConfig(new LeaderElectionConfigBuilder()
                            .withName(lease)
                            .withLock(new LeaseLock(namespace, lease, identity))
                            .withLeaseDuration(profile.leaseDuration())
                            .withRenewDeadline(profile.renewDeadline())
                            .withRetryPeriod(profile.retryPeriod())
                            .withReleaseOnCancel(releaseOnCancel)
                            .withLeaderCallbacks(new LeaderCallbacks(
                                    () -> events.startedLeading(System.nanoTime()), () -> {}, events::newLeader))
                            .build())
                    .build();
        }

        @Override
        public void start() {
            running = elector.start();
        }

        @Override
        public void crash() {
            running.cancel(true); // built with releaseOnCancel=false for crash trials: nothing is written
        }

        @Override
        public void stop() {
            running.cancel(true);
        }
    }
}
