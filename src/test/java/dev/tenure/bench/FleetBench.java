package dev.tenure.bench;

import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.testsupport.EmulatedCluster;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Row 5: many NodeMaintenances on a large cluster, Tenure against the serial model of medik8s'
 * node-maintenance-operator. Tenure: every maintenance's MaintenanceMachine is driven by a scheduled pool of
 * reconcile threads (one per maintenance, quarkus-operator-sdk's default of 50), each next step scheduled after the
 * previous step's requeueAfter as the reconciler does, so all nodes drain at once. Serial (NMO): its single
 * reconcile thread runs kubectl's drain helper to the end for one node before it takes the next; modelled here by
 * the same MaintenanceMachine driven to Succeeded node after node on one thread — the same per-node drain, only
 * serialised, so the peer is never slower per node than Tenure itself.
 */
final class FleetBench {
    record Result(double seconds, long requests, double peakHeapMiB, int succeeded, int failed, double listMillis) {}

    private final int nodes;
    private final int podsPerNode;
    private final int maintenances;
    private final Duration termination;

    FleetBench(int nodes, int podsPerNode, int maintenances, Duration termination) {
        this.nodes = nodes;
        this.podsPerNode = podsPerNode;
        this.maintenances = maintenances;
        this.termination = termination;
    }

    /**
     * Nodes n0..n(nodes-1), {@code podsPerNode} pods (one Deployment) on every node; the maintenances take
     * n0..n(maintenances-1). The simulated kubelets renew their node leases every 10 s (the kubelet's own
     * interval) rather than the tests' 200 ms: 200 leases five times a second would be emulator load that no
     * real cluster of this size generates.
     */
    EmulatedCluster cluster() {
        EmulatedCluster cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests()
                .nodeLeaseRenewInterval(Duration.ofSeconds(10))
                .terminationDelay(p -> termination));
        for (int n = 0; n < nodes; n++) {
            cluster.seed().node("n" + n).role("worker").create();
        }
        for (int n = 0; n < nodes; n++) {
            cluster.seed()
                    .deployment("app" + n)
                    .namespace("fleet")
                    .replicas(podsPerNode)
                    .onNodes("n" + n)
                    .create();
        }
        return cluster;
    }

    /** Milliseconds one spec.nodeName pod list of an idle node takes on this cluster (median of 10): the emulator's cost. */
    double listMillis(EmulatedCluster cluster) {
        Samples s = new Samples();
        for (int i = 0; i < 10; i++) {
            long t0 = System.nanoTime();
            cluster.client()
                    .pods()
                    .inAnyNamespace()
                    .withField("spec.nodeName", "n" + (nodes - 1 - i))
                    .list();
            s.add(Duration.ofNanos(System.nanoTime() - t0));
        }
        return s.medianMillis();
    }

    /** All maintenances at once, on {@code reconcileThreads} reconcile threads. */
    Result concurrent(int reconcileThreads, Duration limit) throws Exception {
        return measure(limit, (machine, requests, states, deadline) -> {
            ScheduledExecutorService reconcilers = Executors.newScheduledThreadPool(reconcileThreads);
            CountDownLatch settled = new CountDownLatch(requests.size());
            try {
                for (MaintenanceRequest request : requests) {
                    reconcilers.execute(() -> step(machine, reconcilers, request, states, settled));
                }
                if (!settled.await(
                        Duration.between(java.time.Instant.now(), deadline).toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException(settled.getCount() + " of " + requests.size()
                            + " maintenances not settled within " + limit);
                }
            } finally {
                reconcilers.shutdownNow();
            }
        });
    }

    /** One maintenance at a time, each to the end before the next starts (NMO's single blocking reconcile). */
    Result serial(Duration limit) throws Exception {
        return measure(limit, (machine, requests, states, deadline) -> {
            for (MaintenanceRequest request : requests) {
                while (!MachineRig.isSettled(states.get(request.nodeName()).phase())) {
                    if (java.time.Instant.now().isAfter(deadline)) {
                        throw new IllegalStateException(
                                "serial drain not done within " + limit + " at " + request.nodeName());
                    }
                    Duration next;
                    try {
                        MaintenanceMachine.Step step =
                                machine.advance(request, states.get(request.nodeName()), false, MaintenanceEvents.NONE);
                        states.put(request.nodeName(), step.state());
                        next = step.requeueAfter().orElse(Duration.ofSeconds(1));
                    } catch (RuntimeException e) {
                        next = Duration.ofSeconds(1);
                    }
                    if (!MachineRig.isSettled(states.get(request.nodeName()).phase())) {
                        Thread.sleep(next.toMillis());
                    }
                }
            }
        });
    }

    private interface Driver {
        void drive(
                MaintenanceMachine machine,
                java.util.List<MaintenanceRequest> requests,
                Map<String, MaintenanceState> states,
                java.time.Instant deadline)
                throws Exception;
    }

    private Result measure(Duration limit, Driver driver) throws Exception {
        try (EmulatedCluster cluster = cluster();
                MachineRig rig = new MachineRig(cluster.client(), MachineRig.settings(10, Duration.ofSeconds(2)))) {
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            System.gc();
            long baseline = memory.getHeapMemoryUsage().getUsed();
            AtomicLong peak = new AtomicLong(baseline);
            ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
            sampler.scheduleAtFixedRate(
                    () -> peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max),
                    0,
                    20,
                    TimeUnit.MILLISECONDS);
            Map<String, MaintenanceState> states = new ConcurrentHashMap<>();
            java.util.List<MaintenanceRequest> requests = new java.util.ArrayList<>();
            for (int i = 0; i < maintenances; i++) {
                MaintenanceRequest request = MachineRig.request("n" + i);
                requests.add(request);
                states.put(request.nodeName(), MaintenanceState.initial());
            }
            double listMillis = listMillis(cluster);
            int requestsBefore = cluster.requests().all().size();
            long t0 = System.nanoTime();
            try {
                driver.drive(
                        rig.machine, requests, states, java.time.Instant.now().plus(limit));
                double seconds = (System.nanoTime() - t0) / 1e9;
                long requestCount = (long) cluster.requests().all().size() - requestsBefore;
                int ok = (int) states.values().stream()
                        .filter(s -> s.phase() == Phase.Succeeded)
                        .count();
                int failed = (int) states.values().stream()
                        .filter(s -> s.phase() == Phase.Failed)
                        .count();
                return new Result(
                        seconds, requestCount, (peak.get() - baseline) / (1024.0 * 1024.0), ok, failed, listMillis);
            } finally {
                sampler.shutdownNow();
            }
        }
    }

    private static void step(
            MaintenanceMachine machine,
            ScheduledExecutorService reconcilers,
            MaintenanceRequest request,
            Map<String, MaintenanceState> states,
            CountDownLatch settled) {
        Duration next;
        try {
            MaintenanceMachine.Step step =
                    machine.advance(request, states.get(request.nodeName()), false, MaintenanceEvents.NONE);
            states.put(request.nodeName(), step.state());
            if (MachineRig.isSettled(step.state().phase())) {
                settled.countDown();
                return;
            }
            next = step.requeueAfter().orElse(Duration.ofSeconds(1));
        } catch (RuntimeException e) {
            next = Duration.ofSeconds(1); // as JOSDK would retry a failed reconcile
        }
        if (!reconcilers.isShutdown()) {
            reconcilers.schedule(
                    () -> step(machine, reconcilers, request, states, settled), next.toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
