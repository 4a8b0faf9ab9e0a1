package dev.tenure.bench;

import dev.tenure.maintenance.MaintenanceEvents;
import dev.tenure.maintenance.MaintenanceMachine;
import dev.tenure.maintenance.MaintenanceRequest;
import dev.tenure.maintenance.MaintenanceState;
import dev.tenure.maintenance.Phase;
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
 * Row 5: many NodeMaintenances at once on a large cluster. MaintenanceMachine instances are driven by a
 * scheduled pool of {@code reconcileThreads} threads standing in for JOSDK's reconcile threads: each
 * maintenance's next step is scheduled after the previous step's requeueAfter, as the reconciler does.
 * One thread = medik8s' model (max-concurrent-reconciles 1); the default is one thread per maintenance
 * (quarkus-operator-sdk's default pool of 50 reconcile threads is as large as the 50 maintenances).
 */
final class FleetBench {
  record Result(double seconds, long requests, double peakHeapMiB, int succeeded, int failed, double listMillis) {
  }

  private final int nodes;
  private final int podsPerNode;
  private final int maintenances;

  FleetBench(int nodes, int podsPerNode, int maintenances) {
    this.nodes = nodes;
    this.podsPerNode = podsPerNode;
    this.maintenances = maintenances;
  }

  /**
   * Nodes n0..n(nodes-1), {@code podsPerNode} pods (one Deployment) on every node; the maintenances take
   * n0..n(maintenances-1). The simulated kubelets renew their node leases every 10 s (the kubelet's own
   * interval) rather than the tests' 200 ms: 200 leases five times a second would be emulator load that no
   * real cluster of this size generates.
   */
  EmulatedCluster cluster() {
    EmulatedCluster cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests()
        .nodeLeaseRenewInterval(Duration.ofSeconds(10)));
    for (int n = 0; n < nodes; n++) {
      cluster.seed().node("n" + n).role("worker").create();
    }
    for (int n = 0; n < nodes; n++) {
      cluster.seed().deployment("app" + n).namespace("fleet").replicas(podsPerNode).onNodes("n" + n).create();
    }
    return cluster;
  }

  /** Milliseconds one spec.nodeName pod list of an idle node takes on this cluster (median of 10): the emulator's cost. */
  double listMillis(EmulatedCluster cluster) {
    Samples s = new Samples();
    for (int i = 0; i < 10; i++) {
      long t0 = System.nanoTime();
      cluster.client().pods().inAnyNamespace().withField("spec.nodeName", "n" + (nodes - 1 - i)).list();
      s.add(Duration.ofNanos(System.nanoTime() - t0));
    }
    return s.medianMillis();
  }

  Result run(int reconcileThreads, Duration limit) throws Exception {
    try (EmulatedCluster cluster = cluster();
        MachineRig rig = new MachineRig(cluster.client(), MachineRig.settings(10, Duration.ofSeconds(2)))) {
      MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
      System.gc();
      long baseline = memory.getHeapMemoryUsage().getUsed();
      AtomicLong peak = new AtomicLong(baseline);
      ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
      sampler.scheduleAtFixedRate(() -> peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max),
          0, 20, TimeUnit.MILLISECONDS);
      ScheduledExecutorService reconcilers = Executors.newScheduledThreadPool(reconcileThreads);
      Map<String, MaintenanceState> states = new ConcurrentHashMap<>();
      CountDownLatch settled = new CountDownLatch(maintenances);
      double listMillis = listMillis(cluster);
      int requestsBefore = cluster.requests().all().size();
      long t0 = System.nanoTime();
      try {
        for (int i = 0; i < maintenances; i++) {
          MaintenanceRequest request = MachineRig.request("n" + i);
          states.put(request.nodeName(), MaintenanceState.initial());
          reconcilers.execute(() -> step(rig.machine, reconcilers, request, states, settled));
        }
        if (!settled.await(limit.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException(settled.getCount() + " of " + maintenances + " maintenances not settled within "
              + limit);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        long requests = cluster.requests().all().size() - requestsBefore;
        int ok = (int) states.values().stream().filter(s -> s.phase() == Phase.Succeeded).count();
        int failed = (int) states.values().stream().filter(s -> s.phase() == Phase.Failed).count();
        return new Result(seconds, requests, (peak.get() - baseline) / (1024.0 * 1024.0), ok, failed, listMillis);
      } finally {
        reconcilers.shutdownNow();
        sampler.shutdownNow();
      }
    }
  }

  private static void step(MaintenanceMachine machine, ScheduledExecutorService reconcilers, MaintenanceRequest request,
      Map<String, MaintenanceState> states, CountDownLatch settled) {
    Duration next;
    try {
      MaintenanceMachine.Step step = machine.advance(request, states.get(request.nodeName()), false,
          MaintenanceEvents.NONE);
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
      reconcilers.schedule(() -> step(machine, reconcilers, request, states, settled), next.toMillis(),
          TimeUnit.MILLISECONDS);
    }
  }
}
