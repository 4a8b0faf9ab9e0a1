package dev.tenure.bench;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.BudgetCache;
import dev.tenure.kube.SharedInformerCache;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.BudgetRelease;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A MaintenanceMachine wired as MaintenanceBeans wires it (shared eviction pool of evictionParallelism
 * threads, heartbeat scheduler, system clock), minus Quarkus: the bench calls advance() itself, the way
 * the reconciler would, honouring each step's requeueAfter, and, as the reconciler's BudgetWakeUps does, the
 * operator's PodDisruptionBudget watch (BudgetCache) wakes it early when a budget that refused one of its
 * evictions admits evictions again. Handover is a no-op (no leases on the nodes).
 */
final class MachineRig implements AutoCloseable {
    final MaintenanceMachine machine;
    private final ExecutorService evictionPool;
    private final ExecutorScheduler heartbeats;
    private final SharedInformerCache<PodDisruptionBudget>.Subscription budgets;
    /** Nodes a budget's change freed a pod of; the drive loop's wait ends when its node is added. */
    private final Set<String> woken = ConcurrentHashMap.newKeySet();

    private final Object wake = new Object();
    /** Budget changes that freed a pod of a draining node (each wakes its drain). */
    final java.util.concurrent.atomic.AtomicLong budgetWakeUps = new java.util.concurrent.atomic.AtomicLong();

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
        this.budgets = new BudgetCache(client).open(new ResourceEventHandler<>() {
            @Override
            public void onAdd(PodDisruptionBudget pdb) {
                freed(pdb, BudgetRelease.frees(null, pdb));
            }

            @Override
            public void onUpdate(PodDisruptionBudget before, PodDisruptionBudget after) {
                freed(after, BudgetRelease.frees(before, after));
            }

            @Override
            public void onDelete(PodDisruptionBudget pdb, boolean unknown) {
                freed(pdb, BudgetRelease.ALL);
            }
        });
    }

    /** As BudgetWakeUps: the drain's memory frees the budget's refused pods, their nodes' maintenances wake. */
    private void freed(PodDisruptionBudget pdb, int admits) {
        if (admits <= 0) {
            return;
        }
        Set<String> nodes = machine.budgetFreed(
                pdb.getMetadata().getNamespace() + "/" + pdb.getMetadata().getName(), admits);
        if (!nodes.isEmpty()) {
            budgetWakeUps.incrementAndGet();
            synchronized (wake) {
                woken.addAll(nodes);
                wake.notifyAll();
            }
        }
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
        return driveToEnd(request, limit, false);
    }

    /**
     * {@link #driveToEnd(MaintenanceRequest, Duration)}; {@code throughStatus}: each step starts from the state as the
     * reconciler keeps it, written to a NodeMaintenance status and read back (a surge's later steps work from the status
     * as written, issue 51).
     */
    MaintenanceState driveToEnd(MaintenanceRequest request, Duration limit, boolean throughStatus)
            throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        MaintenanceState state = MaintenanceState.initial();
        while (System.nanoTime() < deadline) {
            MaintenanceMachine.Step step = machine.advance(request, state, false, MaintenanceEvents.NONE);
            state = throughStatus
                    ? NodeMaintenanceStatuses.toState(
                            NodeMaintenanceStatuses.toStatus(step.state(), null, 1, Instant.EPOCH))
                    : step.state();
            if (isSettled(state.phase())) {
                return state;
            }
            waitFor(request.nodeName(), step.requeueAfter().orElse(Duration.ofSeconds(1)));
        }
        throw new IllegalStateException("maintenance of " + request.nodeName() + " not settled within " + limit + ": "
                + state.phase() + " " + state.lastError());
    }

    /** Until {@code requeueAfter} has passed or a budget's change woke {@code node}, whichever comes first. */
    private void waitFor(String node, Duration requeueAfter) throws InterruptedException {
        long until = System.nanoTime() + requeueAfter.toNanos();
        synchronized (wake) {
            for (long left = requeueAfter.toNanos();
                    left > 0 && !woken.remove(node);
                    left = until - System.nanoTime()) {
                TimeUnit.NANOSECONDS.timedWait(wake, left);
            }
        }
    }

    static boolean isSettled(Phase phase) {
        return phase == Phase.Succeeded || phase == Phase.Failed || phase == Phase.Ended;
    }

    @Override
    public void close() {
        budgets.close();
        machine.close();
        evictionPool.shutdownNow();
        heartbeats.close();
    }
}
