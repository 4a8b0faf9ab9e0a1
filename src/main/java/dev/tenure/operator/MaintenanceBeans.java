package dev.tenure.operator;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.LeaseStore;
import dev.tenure.election.WorkFence;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.FencedWrites;
import dev.tenure.kube.NodeCache;
import dev.tenure.maintenance.admission.AdmissionCaches;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.OperatorServiceAccount;
import dev.tenure.maintenance.annotation.AnnotationDoor;
import dev.tenure.maintenance.annotation.AnnotationSettings;
import dev.tenure.maintenance.machine.EventRecorder;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * CDI wiring of the maintenance package (both front doors and the machine): configuration, clients, lease stores
 * and the clock ({@link Clocks}) go in here only. Lives with the configuration so that {@code maintenance} never
 * imports {@code operator}.
 *
 * <p>Which client each lease write goes through, and why:
 * <ul>
 *   <li>the machine (NodeMaintenance door, and the annotation door's cordon, handover and drain): its own client
 *       with client retries off. A 429 from a PodDisruptionBudget must come back at once, not after ~19 s of
 *       retries on a reconcile thread, and its node-lease writes are bounded by the node lease's own time; every
 *       failure is retried by the next reconcile, with the error in status;</li>
 *   <li>the annotation door's protocol lease writes (create, renew, take over, release of the lease the annotation
 *       protocol prescribes): the operator's shared client, which retries transient failures (5xx, 429, I/O) with
 *       backoff. Those writes are optimistic (a stale resourceVersion answers 409, which is not retried), so a
 *       retry cannot overwrite another holder's write; and both clients pass the {@code WorkFence}, which bounds
 *       every attempt by the time the operator's term has left.</li>
 * </ul>
 */
@ApplicationScoped
public class MaintenanceBeans {

    private ExecutorService evictionPool;
    private KubernetesClient machineClient;
    private ExecutorScheduler heartbeatScheduler;
    private MaintenanceMachine machine;
    private AnnotationDoor door;

    @Produces
    @Singleton
    MaintenanceSettings settings(TenureConfig config, OperatorInstance instance) {
        MaintenanceConfig m = config.maintenance();
        String leaseNamespace = m.lease().namespace().orElseGet(OperatorNamespace::current);
        return new MaintenanceSettings(
                leaseNamespace,
                m.lease().namePrefix(),
                // each instance holds node leases in its own name, so a successor's takeover is a recorded change
                // of holder and two replicas never both believe they hold a node
                MaintenanceSettings.instanceHolder(m.lease().holder(), instance.identity()),
                m.lease().duration(),
                m.lease().windowPadding(),
                m.lease().waitRetry(),
                m.evictionParallelism(),
                m.drainPollInterval(),
                m.staleNodeSkipWait(),
                guardNamespaces(m.lease().guardNamespaces()),
                m.placementRecheck(),
                m.lease().idleDuration());
    }

    static List<String> guardNamespaces(List<String> configured) {
        return configured.equals(List.of(MaintenanceConfig.Lease.NO_GUARD)) ? List.of() : configured;
    }

    @Produces
    @Singleton
    AnnotationSettings annotationSettings(TenureConfig config, MaintenanceSettings maintenance) {
        AnnotationProtocolConfig c = config.maintenance().annotation();
        return new AnnotationSettings(
                c.enabled(),
                c.holder(),
                c.leasePadding(),
                c.maxDuration(),
                maintenance.leaseNamespace(),
                maintenance.leaseNamePrefix(),
                c.placement());
    }

    @Produces
    @Singleton
    MaintenanceLimits limits(TenureConfig config) {
        MaintenanceConfig m = config.maintenance();
        return new MaintenanceLimits(
                m.maxNodesInMaintenance(),
                m.controlPlaneMinAvailable(),
                m.maxNodesInMaintenancePerTopology()
                        .map(max -> new MaintenanceLimits.TopologyLimit(m.topologyKey(), max)));
    }

    /**
     * The operator's own user, whose writes the webhook admits unchecked: the pod's service account from the downward
     * API ({@code POD_SERVICE_ACCOUNT}: spec.serviceAccountName), else the one the manifests and the bundle create.
     */
    @Produces
    @Singleton
    OperatorServiceAccount operatorServiceAccount() {
        String name = java.util.Optional.ofNullable(System.getenv("POD_SERVICE_ACCOUNT"))
                .filter(s -> !s.isBlank())
                .orElse(SERVICE_ACCOUNT);
        return new OperatorServiceAccount(OperatorNamespace.current(), name);
    }

    /** The service account deploy/ and the OLM bundle create ({@code quarkus.kubernetes.service-account}). */
    static final String SERVICE_ACCOUNT = "tenure-operator";

    @Produces
    @Singleton
    MaintenanceMetrics metrics(MeterRegistry registry, AdmissionCaches caches) {
        MaintenanceMetrics metrics = new MaintenanceMetrics(registry);
        // every replica runs the admission caches: read from them at each scrape, never a LIST per scrape
        metrics.watchBlockedBeforeDrain(() -> caches.cached() ? caches.maintenances() : null);
        return metrics;
    }

    @Produces
    @Singleton
    EventRecorder eventRecorder(KubernetesClient client, Clock clock) {
        return new EventRecorder(client, clock);
    }

    @Produces
    @Singleton
    MaintenanceMachine machine(
            KubernetesClient operatorClient,
            LeadershipHandover handover,
            MaintenanceMetrics metrics,
            MaintenanceSettings settings,
            WorkFence fence,
            OperatorInstance instance,
            Clock clock) {
        // The machine's own client does not retry: a 429 from a PodDisruptionBudget must come back at once
        // (the client would otherwise retry it for ~19 s on a reconcile thread); every failure is retried by
        // the next reconcile instead, with the error in status.
        machineClient = FencedWrites.client(
                new ConfigBuilder(operatorClient.getConfiguration())
                        .withRequestRetryBackoffLimit(0)
                        .build(),
                operatorClient.getKubernetesSerialization(),
                fence,
                instance.identity());
        KubernetesClient client = machineClient;
        LeaseStore leases = new KubeLeaseStore(client);
        AtomicInteger n = new AtomicInteger();
        // Shared by all maintenances: bounds the evictions in flight across the operator as well.
        evictionPool = Executors.newFixedThreadPool(settings.evictionParallelism(), r -> {
            Thread t = new Thread(r, "tenure-eviction-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        heartbeatScheduler = new ExecutorScheduler("tenure-maintenance-heartbeats");
        machine = new MaintenanceMachine(
                client, leases, handover, metrics, settings, evictionPool, heartbeatScheduler, clock);
        return machine;
    }

    /** The annotation door; {@code OperatorLeadership} starts it with the reconcilers. */
    @Produces
    @Singleton
    AnnotationDoor annotationDoor(
            KubernetesClient client,
            NodeCache nodes,
            AdmissionCaches caches,
            MaintenanceMachine machine,
            EventRecorder recorder,
            MaintenanceSettings maintenance,
            MaintenanceLimits limits,
            AnnotationSettings settings,
            WorkFence fence,
            Clock clock) {
        // the protocol's lease writes on the shared (retrying) client: see the class comment
        door = new AnnotationDoor(
                client,
                new KubeLeaseStore(client),
                nodes,
                caches,
                machine,
                recorder,
                maintenance,
                limits,
                settings,
                clock);
        door.fencedBy(fence);
        return door;
    }

    @PreDestroy
    void stop() {
        if (door != null) {
            door.stop();
        }
        if (machine != null) {
            machine.close();
        }
        if (heartbeatScheduler != null) {
            heartbeatScheduler.close();
        }
        if (evictionPool != null) {
            evictionPool.shutdownNow();
        }
        if (machineClient != null) {
            machineClient.close();
        }
    }
}
