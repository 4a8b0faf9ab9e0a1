package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.WorkFence;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.NodeCache;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.machine.EventRecorder;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The door writes status on condition that the NodeMaintenance is still at the resourceVersion its decision was made
 * from (issue 50, item 13): a status write someone made in between is never replaced unseen; the refused write makes
 * the reconcile read the resource again and decide again from what it reads.
 */
@EndToEnd
class StatusOnItsVersionIT {
    private static final String FOREIGN = "written by someone else";

    private static EmulatedCluster cluster;
    private static KubernetesClient client;
    private static KubernetesClient work;
    private static ExecutorService pool;
    private static ExecutorScheduler heartbeats;
    private static MaintenanceMachine machine;
    private static NodeMaintenanceReconciler door;

    @BeforeAll
    static void start() {
        cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests());
        client = cluster.client();
        work = cluster.operatorClient();
        for (String node : List.of("v1", "v2")) {
            cluster.seed().node(node).role("worker").create();
        }
        pool = Executors.newFixedThreadPool(2);
        heartbeats = new ExecutorScheduler("status-version-heartbeats");
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
        door = new NodeMaintenanceReconciler(
                machine,
                work,
                new EventRecorder(work, clock),
                metrics,
                MaintenanceLimits.none(),
                Map::of,
                new NodeCache(work),
                WorkFence.alwaysOpen(),
                clock,
                Duration.ofMinutes(10));
    }

    @AfterAll
    static void stop() {
        if (machine != null) {
            machine.close();
        }
        if (heartbeats != null) {
            heartbeats.close();
        }
        if (pool != null) {
            pool.shutdownNow();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aStatusWriteFromAnOlderVersionIsRefusedAndTheWriteInBetweenStays() {
        create("older", "v1");
        NodeMaintenance read = read("older");
        foreignStatusWrite("older");
        DoorActs acts = new DoorActs(
                null, work, null, null, new OwnStatusWrites(work.getKubernetesSerialization()), Clock.systemUTC());
        NodeMaintenanceStatus decided = new NodeMaintenanceStatus();
        decided.setPhase(Phase.Succeeded);

        Throwable refused = catchThrowable(() -> acts.writeStatus(read, decided));

        NodeMaintenanceStatus stored = read("older").getStatus();
        assertThat(stored.getLastError())
                .as("the status written in between stays (refused: %s)", refused)
                .isEqualTo(FOREIGN);
        assertThat(stored.getPhase()).isNotEqualTo(Phase.Succeeded);
        assertThat(refused).isNotNull().hasMessageContaining("older").hasMessageContaining("changed since");
        // decided from the version the API server has now, the same write goes through
        acts.writeStatus(read("older"), decided);
        assertThat(read("older").getStatus().getPhase()).isEqualTo(Phase.Succeeded);
    }

    @Test
    void aReconcileWhoseStatusWriteMeetsANewerVersionReadsAgainAndDecidesAgain() {
        create("raced", "v2");
        NodeMaintenance decidedFrom = read("raced"); // no status yet: the door's to admit
        foreignStatusWrite("raced");
        String foreignVersion = read("raced").getMetadata().getResourceVersion();
        cluster.requests().clear();

        door.reconcile(decidedFrom, context()); // decided from the version before the foreign write

        List<ApiRequest> all = cluster.requests().all();
        List<ApiRequest> onIt = all.stream()
                .filter(ours("raced"))
                .filter(r -> r.verb().equals("get") || r.subresource().equals("status"))
                .toList();
        assertThat(onIt)
                .as(
                        "a status write refused, the resource read again, and the status written from what was read;"
                                + " all requests: %s",
                        all)
                .extracting(r -> r.verb() + (r.subresource().isEmpty() ? "" : " " + r.subresource()))
                .containsSubsequence("patch status", "get", "patch status");
        NodeMaintenance now = read("raced");
        assertThat(now.getMetadata().getResourceVersion())
                .as("the door's write landed on the version the foreign write left")
                .isNotEqualTo(foreignVersion);
        assertThat(now.getStatus().getPhase()).isNotNull();
    }

    // ---- fixtures ------------------------------------------------------------------------------------------------

    private static Predicate<ApiRequest> ours(String name) {
        return r -> !r.userAgent().equals(EmulatedCluster.HARNESS_USER_AGENT)
                && r.resource().equals("nodemaintenances")
                && r.name().equals(name);
    }

    private static void foreignStatusWrite(String name) {
        client.resources(NodeMaintenance.class)
                .withName(name)
                .subresource("status")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"lastError\":\"" + FOREIGN + "\"}}");
    }

    private static void create(String name, String node) {
        NodeMaintenance nm = new NodeMaintenance();
        nm.setMetadata(new ObjectMetaBuilder()
                .withName(name)
                .withAnnotations(new LinkedHashMap<>())
                .build());
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec();
        spec.setNodeName(node);
        nm.setSpec(spec);
        client.resources(NodeMaintenance.class).resource(nm).create();
    }

    private static NodeMaintenance read(String name) {
        return client.resources(NodeMaintenance.class).withName(name).get();
    }

    /** JOSDK's context as the door uses it: the primary cache, here what the API server has now. */
    @SuppressWarnings("unchecked")
    private static Context<NodeMaintenance> context() {
        List<NodeMaintenance> all =
                client.resources(NodeMaintenance.class).list().getItems();
        IndexedResourceCache<NodeMaintenance> cache = (IndexedResourceCache<NodeMaintenance>) Proxy.newProxyInstance(
                StatusOnItsVersionIT.class.getClassLoader(),
                new Class<?>[] {IndexedResourceCache.class},
                (proxy, method, args) -> {
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
                StatusOnItsVersionIT.class.getClassLoader(), new Class<?>[] {Context.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getPrimaryCache")) {
                        return cache;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
