package dev.tenure.bench;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import dev.tenure.maintenance.machine.MaintenanceState;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A MaintenanceMachine wired as MaintenanceBeans wires it (shared eviction pool of evictionParallelism
 * threads, heartbeat scheduler, system clock), minus Quarkus: the bench calls advance() itself, the way
 * the reconciler would, honouring each step's requeueAfter. Handover is a no-op (no leases on the nodes).
 */
final class MachineRig implements AutoCloseable {
    final MaintenanceMachine machine;
    private final ExecutorService evictionPool;
    private final ExecutorScheduler heartbeats;

    MachineRig(KubernetesClient client, MaintenanceSettings settings) {
        this.evictionPool = Executors.newFixedThreadPool(settings.evictionParallelism());
        this.heartbeats = new ExecutorScheduler("bench-maintenance-heartbeats");
        this.machine = new MaintenanceMachine(
                client,
                new KubeLeaseStore(client),
                (node, started, now) -> LeadershipHandover.Outcome.complete("no leases held on " + node),
                new MaintenanceMetrics(new SimpleMeterRegistry()),
                settings,
                evictionPool,
                heartbeats,
                Clock.systemUTC());
    }

    /** The operator's defaults with eviction parallelism and drain poll interval overridden. */
    static MaintenanceSettings settings(int evictionParallelism, Duration drainPollInterval) {
        MaintenanceSettings d = MaintenanceSettings.defaults();
        return new MaintenanceSettings(
                d.leaseNamespace(),
                d.leaseNamePrefix(),
                d.holder(),
                d.leaseDuration(),
                d.windowPadding(),
                d.leaseWaitRetry(),
                evictionParallelism,
                drainPollInterval,
                d.staleNodeSkipWait());
    }

    static MaintenanceRequest request(String node) {
        return new MaintenanceRequest(node, "bench", Optional.empty(), null, null);
    }

    /** Drives one maintenance on this thread until it leaves Pending/Waiting/Running, or {@code limit} passes. */
    MaintenanceState driveToEnd(MaintenanceRequest request, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        MaintenanceState state = MaintenanceState.initial();
        while (System.nanoTime() < deadline) {
            MaintenanceMachine.Step step = machine.advance(request, state, false, MaintenanceEvents.NONE);
            state = step.state();
            if (isSettled(state.phase())) {
                return state;
            }
            Thread.sleep(step.requeueAfter().orElse(Duration.ofSeconds(1)).toMillis());
        }
        throw new IllegalStateException("maintenance of " + request.nodeName() + " not settled within " + limit + ": "
                + state.phase() + " " + state.lastError());
    }

    static boolean isSettled(Phase phase) {
        return phase == Phase.Succeeded || phase == Phase.Failed || phase == Phase.Ended;
    }

    @Override
    public void close() {
        machine.close();
        evictionPool.shutdownNow();
        heartbeats.close();
    }
}
