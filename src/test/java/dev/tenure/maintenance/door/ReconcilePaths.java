package dev.tenure.maintenance.door;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.WorkFence;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.NodeCache;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.ScheduleSpec;
import dev.tenure.maintenance.machine.EventRecorder;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceHooks;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One reconcile (or cleanup) of each kind the door decides, on the emulated cluster with the real machine, each
 * between {@link CallPath#start} and {@link CallPath#stop}. Loaded by {@link CallPath.Loader}: see
 * {@code ReconcilePathIT}.
 */
public final class ReconcilePaths implements Supplier<Map<String, List<String>>>, AutoCloseable {

    private final EmulatedCluster cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests());
    private final KubernetesClient client = cluster.client();
    private final ExecutorService pool = Executors.newFixedThreadPool(2);
    private final ExecutorScheduler heartbeats = new ExecutorScheduler("call-path-heartbeats");
    private final MaintenanceMachine machine;
    private final NodeMaintenanceReconciler door;
    private final NodeMaintenanceReconciler cappedDoor;

    public ReconcilePaths() {
        for (String node : List.of("n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8")) {
            cluster.seed().node(node).role("worker").create();
        }
        KubernetesClient work = cluster.operatorClient();
        Clock clock = Clock.systemUTC();
        MaintenanceMetrics metrics = new MaintenanceMetrics(new SimpleMeterRegistry());
        machine = new MaintenanceMachine(
                work,
                new KubeLeaseStore(work),
                (node, started, now) -> LeadershipHandover.Outcome.complete("nothing held"),
                metrics,
                MaintenanceLifecycleIT.SETTINGS,
                pool,
                heartbeats,
                clock);
        door = reconciler(work, metrics, clock, MaintenanceLimits.none());
        cappedDoor = reconciler(work, metrics, clock, new MaintenanceLimits(OptionalInt.of(1), OptionalInt.empty()));
    }

    private NodeMaintenanceReconciler reconciler(
            KubernetesClient work, MaintenanceMetrics metrics, Clock clock, MaintenanceLimits limits) {
        return new NodeMaintenanceReconciler(
                machine,
                work,
                new EventRecorder(work, clock),
                metrics,
                limits,
                Map::of,
                new NodeCache(work),
                WorkFence.alwaysOpen(),
                clock,
                Duration.ofMinutes(10));
    }

    @Override
    public Map<String, List<String>> get() {
        Map<String, List<String>> paths = new LinkedHashMap<>();
        create("owner", "n1", s -> {});
        paths.put("admit", reconcile(door, "owner"));
        paths.put("advance", reconcile(door, "owner"));
        create("ghost", "n9", s -> {});
        paths.put("refuse", reconcile(door, "ghost"));
        paths.put("unchanged", reconcile(door, "ghost"));
        create("queued", "n2", s -> {});
        paths.put("hold", reconcile(cappedDoor, "queued"));
        create("later", "n3", s -> {
            ScheduleSpec schedule = new ScheduleSpec();
            schedule.setStartAt("2099-01-01T00:00:00Z");
            s.setSchedule(schedule);
        });
        paths.put("scheduled", reconcile(door, "later"));
        create("plan", "n4", s -> s.setPreview(true));
        paths.put("preview", reconcile(door, "plan"));
        create("joiner", "n1", s -> s.setJoin(true));
        paths.put("join", reconcile(door, "joiner"));
        paths.put("joined", reconcile(door, "joiner"));
        paths.put("cleanup: hold for joiners", cleanup("owner"));
        paths.put("cleanup: joiner", cleanup("joiner"));
        create("hooked", "n5", s -> {});
        reconcile(door, "hooked");
        reconcile(door, "hooked");
        client.resources(NodeMaintenance.class).withName("hooked").edit(nm -> {
            nm.getMetadata().getAnnotations().put(MaintenanceHooks.PRE_UNCORDON_PREFIX + "storage", "");
            return nm;
        });
        paths.put("cleanup: wait for hooks", cleanup("hooked"));
        create("ending", "n6", s -> {});
        reconcile(door, "ending");
        reconcile(door, "ending");
        paths.put("cleanup: end", cleanup("ending"));
        paths.put("cleanup: refused", cleanup("ghost"));
        // another client's status names another node: the node leases pin it (read in observe), and it still decides
        // once
        create("foreign", "n7", s -> {});
        reconcile(door, "foreign");
        reconcile(door, "foreign");
        client.resources(NodeMaintenance.class)
                .withName("foreign")
                .subresource("status")
                .patch(
                        io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                        "{\"status\":{\"nodeName\":\"n8\",\"queuePosition\":50}}");
        paths.put("advance: a foreign status names another node", reconcile(door, "foreign"));
        client.resources(NodeMaintenance.class)
                .withName("foreign")
                .subresource("status")
                .patch(
                        io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                        "{\"status\":{\"nodeName\":\"n8\",\"queuePosition\":50}}");
        paths.put("cleanup: a foreign status names another node", cleanup("foreign"));
        return paths;
    }

    private void create(String name, String node, Consumer<NodeMaintenanceSpec> spec) {
        NodeMaintenance nm = new NodeMaintenance();
        nm.setMetadata(new ObjectMetaBuilder()
                .withName(name)
                .withAnnotations(new LinkedHashMap<>())
                .build());
        NodeMaintenanceSpec s = new NodeMaintenanceSpec();
        s.setNodeName(node);
        spec.accept(s);
        nm.setSpec(s);
        nm.setStatus(new NodeMaintenanceStatus());
        client.resources(NodeMaintenance.class).resource(nm).create();
    }

    private List<String> reconcile(NodeMaintenanceReconciler reconciler, String name) {
        NodeMaintenance nm = read(name);
        Context<NodeMaintenance> context = context();
        CallPath.start();
        List<String> path;
        try {
            reconciler.reconcile(nm, context);
        } finally {
            path = CallPath.stop();
        }
        return path;
    }

    private List<String> cleanup(String name) {
        NodeMaintenance nm = read(name);
        Context<NodeMaintenance> context = context();
        CallPath.start();
        List<String> path;
        try {
            door.cleanup(nm, context);
        } finally {
            path = CallPath.stop();
        }
        return path;
    }

    private NodeMaintenance read(String name) {
        return client.resources(NodeMaintenance.class).withName(name).get();
    }

    /** JOSDK's context as the door uses it: the primary cache, here what the API server has now. */
    @SuppressWarnings("unchecked")
    private Context<NodeMaintenance> context() {
        List<NodeMaintenance> all =
                client.resources(NodeMaintenance.class).list().getItems();
        IndexedResourceCache<NodeMaintenance> cache = (IndexedResourceCache<NodeMaintenance>) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {IndexedResourceCache.class}, (proxy, method, args) -> {
                    if (method.getName().equals("get")) {
                        ResourceID id = (ResourceID) args[0];
                        return all.stream()
                                .filter(nm -> nm.getMetadata().getName().equals(id.getName()))
                                .findFirst();
                    }
                    if (method.getName().equals("list")) {
                        Predicate<NodeMaintenance> p = args == null ? nm -> true : (Predicate<NodeMaintenance>) args[0];
                        return all.stream().filter(p);
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        return (Context<NodeMaintenance>) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {Context.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getPrimaryCache")) {
                        return cache;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Override
    public void close() {
        machine.close();
        heartbeats.close();
        pool.shutdownNow();
        cluster.close();
    }
}
