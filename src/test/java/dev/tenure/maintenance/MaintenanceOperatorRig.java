package dev.tenure.maintenance;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.WorkFence;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.FencedWrites;
import dev.tenure.kube.NodeCache;
import dev.tenure.maintenance.admission.AdmissionCaches;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.admission.NodesMaintainedElsewhere;
import dev.tenure.maintenance.annotation.AnnotatedNodes;
import dev.tenure.maintenance.annotation.AnnotationDoor;
import dev.tenure.maintenance.annotation.AnnotationSettings;
import dev.tenure.maintenance.api.MalformedFields;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.door.NodeMaintenanceReconciler;
import dev.tenure.maintenance.machine.EventRecorder;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The NodeMaintenance door as the operator runs it, for the integration tests of its features: an emulated cluster
 * with worker nodes, the real {@link MaintenanceMachine} and {@link NodeMaintenanceReconciler} in a JOSDK
 * {@link Operator}, with a handover that holds nothing and the work fence always open, and the NodeMaintenance CRD
 * stored (its schema enforced). {@link #close} stops it all.
 */
public final class MaintenanceOperatorRig implements AutoCloseable {
    public final EmulatedCluster cluster;
    /** The harness's client (the operator has its own, {@code cluster.operatorClient()}). */
    public final KubernetesClient client;
    /** The operator's meters (the door's and the machine's). */
    public final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    final MaintenanceMachine machine;
    private final KubernetesClient work;
    private final ExecutorService pool;
    private final ExecutorScheduler heartbeats;
    private final Operator operator;

    /**
     * Starts the rig: {@code options}' cluster with a worker node per name in {@code nodes}, the machine with {@code
     * settings} on {@code clock}, the reconciler with {@code limits} and {@code queueLook} (the backstop look of a held
     * request).
     */
    public static MaintenanceOperatorRig start(
            EmulatedCluster.Options options,
            MaintenanceSettings settings,
            Clock clock,
            MaintenanceLimits limits,
            Duration queueLook,
            String... nodes) {
        return new MaintenanceOperatorRig(
                options,
                settings,
                clock,
                limits,
                queueLook,
                false,
                io.javaoperatorsdk.operator.api.monitoring.Metrics.NOOP,
                nodes);
    }

    /**
     * {@link #start}, with JOSDK told of each reconcile through {@code metrics} (the bench counts the looks at a queued
     * request by it).
     */
    public static MaintenanceOperatorRig start(
            EmulatedCluster.Options options,
            MaintenanceSettings settings,
            Clock clock,
            MaintenanceLimits limits,
            Duration queueLook,
            io.javaoperatorsdk.operator.api.monitoring.Metrics metrics,
            String... nodes) {
        return new MaintenanceOperatorRig(options, settings, clock, limits, queueLook, false, metrics, nodes);
    }

    /**
     * {@link #start}, with the second front door too: the {@code lifecycle.metal3.io/maintenance} annotation door
     * ({@link AnnotationDoor}, its default settings), wired as production wires it (the NodeMaintenance door counts
     * its nodes, each hands a node over to the other's active request).
     */
    public static MaintenanceOperatorRig startWithAnnotationDoor(
            EmulatedCluster.Options options,
            MaintenanceSettings settings,
            Clock clock,
            MaintenanceLimits limits,
            Duration queueLook,
            String... nodes) {
        return new MaintenanceOperatorRig(
                options,
                settings,
                clock,
                limits,
                queueLook,
                true,
                io.javaoperatorsdk.operator.api.monitoring.Metrics.NOOP,
                nodes);
    }

    private AnnotationDoor annotationDoor;

    private MaintenanceOperatorRig(
            EmulatedCluster.Options options,
            MaintenanceSettings settings,
            Clock clock,
            MaintenanceLimits limits,
            Duration queueLook,
            boolean withAnnotationDoor,
            io.javaoperatorsdk.operator.api.monitoring.Metrics josdkMetrics,
            String... nodes) {
        cluster = EmulatedCluster.start(options);
        client = cluster.client();
        installCrd(client);
        for (String node : nodes) {
            cluster.seed().node(node).role("worker").create();
        }
        // The operator's own client, read as production's (dev.tenure.operator.MalformedFieldsReading): a
        // NodeMaintenance with a field of the wrong JSON type is read with that field absent and named, not a failed
        // watch event that stops the informer (and, by JOSDK's default, the process).
        ObjectMapper mapper = new ObjectMapper();
        mapper.registerModule(new MalformedFields());
        // Its writes pass a work fence (always open: no leader election here) as production's do (WorkFenceBeans), so
        // the bounds the machine puts on its writes (the node lease, the window) hold here as they do there.
        work = FencedWrites.client(
                new ConfigBuilder(cluster.clientConfig())
                        .withUserAgent(EmulatedCluster.OPERATOR_USER_AGENT)
                        .build(),
                new KubernetesSerialization(mapper, true),
                WorkFence.alwaysOpen(),
                "rig",
                EmulatedCluster.HTTP_CLIENTS);
        pool = Executors.newFixedThreadPool(4);
        heartbeats = new ExecutorScheduler("rig-heartbeats");
        MaintenanceMetrics metrics = new MaintenanceMetrics(registry);
        machine = new MaintenanceMachine(
                work,
                new KubeLeaseStore(work),
                (node, started, now) -> LeadershipHandover.Outcome.complete("nothing held"),
                metrics,
                settings,
                pool,
                heartbeats,
                clock);
        NodeCache nodeCache = new NodeCache(work);
        EventRecorder recorder = new EventRecorder(work, clock);
        NodesMaintainedElsewhere elsewhere = Map::of;
        if (withAnnotationDoor) {
            AdmissionCaches caches = new AdmissionCaches(work, nodeCache);
            elsewhere = new AnnotatedNodes(caches);
            annotationDoor = new AnnotationDoor(
                    work,
                    new KubeLeaseStore(work),
                    nodeCache,
                    caches,
                    machine,
                    recorder,
                    settings,
                    limits,
                    AnnotationSettings.defaults(),
                    clock);
            annotationDoor.start();
        }
        NodeMaintenanceReconciler reconciler = new NodeMaintenanceReconciler(
                machine,
                work,
                recorder,
                metrics,
                limits,
                elsewhere,
                nodeCache,
                WorkFence.alwaysOpen(),
                clock,
                queueLook);
        operator = new Operator(o -> o.withKubernetesClient(work)
                .withCloseClientOnStop(false)
                .withUseSSAToPatchPrimaryResource(false)
                .withMetrics(josdkMetrics));
        operator.register(reconciler);
        operator.start();
    }

    /**
     * Stores the NodeMaintenance CRD as the build generates it ({@link RigCrd}: the build's copy when current, else
     * generated from the API types), so the emulated API server enforces its schema and CEL rules as kube-apiserver
     * does (a spec the schema refuses is a 422, never a stored object the rig's tests could mistake for one a cluster
     * would hold).
     */
    public static void installCrd(KubernetesClient client) {
        client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .resource(client.getKubernetesSerialization().unmarshal(crd().yaml(), CustomResourceDefinition.class))
                .create();
    }

    /** The CRD the rig stores, where it came from and what reading or generating it cost (bench notes say so). */
    public static RigCrd.Loaded crd() {
        return LoadedCrd.CRD;
    }

    /** Loaded once per test JVM (the API types do not change within one), at first use. */
    private static final class LoadedCrd {
        static final RigCrd.Loaded CRD = RigCrd.load();
    }

    NodeMaintenance get(String name) {
        return client.resources(NodeMaintenance.class).withName(name).get();
    }

    public NodeMaintenanceStatus status(String name) {
        NodeMaintenance nm = get(name);
        return nm == null ? null : nm.getStatus();
    }

    public Phase phase(String name) {
        NodeMaintenanceStatus s = status(name);
        return s == null ? null : s.getPhase();
    }

    @Override
    public void close() {
        if (annotationDoor != null) {
            annotationDoor.stop();
        }
        operator.stop();
        machine.close();
        heartbeats.close();
        pool.shutdownNow();
        work.close();
        cluster.close();
    }
}
