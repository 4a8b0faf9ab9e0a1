package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.maintenance.api.DrainOutlook;
import dev.tenure.maintenance.api.DrainPlanStatus.PlannedPod;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.Evacuation;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.SurgeOutlook;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMachineIT;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.MutableClock;
import dev.tenure.testsupport.ShippedSurgeRole;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 51 items 1, 2 and 4 on the emulated cluster: with {@code spec.drain.evacuation: Surge}, the preview names for
 * each pod its budget holds (the budget's pods healthy, {@code disruptionsAllowed} 0, as the living cluster's
 * disruption controller writes it) whether it can surge, and if not why. Without the opt-in ClusterRole (asked with
 * SelfSubjectAccessReviews, which the emulated cluster answers from its RBAC objects for the operator's account) the
 * Deployment's pod says "no surge role" and no workload is read; with the shipped role bound, it says by how much its
 * Deployment would surge; a StatefulSet's pod never surges. Nothing is written to the workloads.
 */
@EndToEnd
class SurgePreviewIT {

    static final String NS = "surge";
    static final String OPERATOR_SA = "tenure-operator";
    static final String OPERATOR_NS = "tenure-system";

    MutableClock clock;
    EmulatedCluster cluster;
    KubernetesClient client;
    ExecutorService pool;
    ExecutorScheduler heartbeats;
    MaintenanceMachine machine;
    EmulatedCluster.Living living;

    @BeforeEach
    void start() {
        clock = MutableClock.atSystemTime();
        cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests().clock(clock));
        client = cluster.client();
        pool = Executors.newFixedThreadPool(2);
        heartbeats = new ExecutorScheduler("test-heartbeats");
        KubernetesClient operator = cluster.operatorClient();
        machine = new MaintenanceMachine(
                operator,
                new KubeLeaseStore(operator),
                (node, started, now) -> LeadershipHandover.Outcome.complete("nothing held"),
                new MaintenanceMetrics(new SimpleMeterRegistry()),
                MaintenanceMachineIT.SETTINGS,
                pool,
                heartbeats,
                clock);
        cluster.seed().node("w1").role("worker").create();
        cluster.seed().node("w2").role("worker").create();
        living = cluster.living(NS, Duration.ofHours(1));
        cluster.seed().deployment("web").namespace(NS).replicas(1).onNodes("w2").create();
        cluster.seed().statefulSet("db").namespace(NS).replicas(1).onNodes("w2").create();
        cluster.seed()
                .pdb("web")
                .namespace(NS)
                .selector("app", "web")
                .minAvailable(1)
                .create();
        cluster.seed()
                .pdb("db")
                .namespace(NS)
                .selector("app", "db")
                .minAvailable(1)
                .create();
        settled("web", 1);
        awaitBudgetCounted("web");
        awaitBudgetCounted("db");
    }

    @AfterEach
    void stop() throws Exception {
        living.close();
        machine.close();
        heartbeats.close();
        pool.shutdownNow();
        cluster.close();
    }

    @Test
    void withoutTheOptInRoleTheDeploymentsPodSaysNoSurgeRoleAndNoWorkloadIsRead() {
        Map<String, PlannedPod> pods = preview(Evacuation.Surge);

        PlannedPod web = podOf(pods, "web");
        assertThat(web.getOutlook()).isEqualTo(DrainOutlook.WaitsForBudget);
        assertThat(web.getSurge()).isEqualTo(SurgeOutlook.CannotSurge);
        assertThat(web.getSurgeReason()).startsWith("cannot surge: no surge role");
        PlannedPod db = podOf(pods, "db");
        assertThat(db.getSurge()).isEqualTo(SurgeOutlook.CannotSurge);
        assertThat(db.getSurgeReason()).startsWith("cannot surge: StatefulSet");
        assertThat(operatorRequests("create", "selfsubjectaccessreviews"))
                .as("the role was asked for")
                .isPositive();
        assertThat(operatorRequests("get", "deployments") + operatorRequests("get", "replicasets"))
                .as("no workload read without the role's rights")
                .isZero();
    }

    @Test
    void withTheShippedRoleBoundTheDeploymentSurgesAndTheStatefulSetDoesNot() throws IOException {
        bindShippedSurgeRole();

        Map<String, PlannedPod> pods = preview(Evacuation.Surge);

        PlannedPod web = podOf(pods, "web");
        assertThat(web.getSurge()).isEqualTo(SurgeOutlook.Surges);
        assertThat(web.getSurgeReason()).isEqualTo("surge Deployment surge/web by 1 (replicas 1 -> 2)");
        PlannedPod db = podOf(pods, "db");
        assertThat(db.getSurge()).isEqualTo(SurgeOutlook.CannotSurge);
        assertThat(db.getSurgeReason()).startsWith("cannot surge: StatefulSet");
        assertThat(operatorRequests("get", "replicasets")).isPositive();
        assertThat(operatorRequests("get", "deployments")).isPositive();
        assertThat(operatorRequests("list", "horizontalpodautoscalers")).isPositive();
        assertThat(client.apps()
                        .deployments()
                        .inNamespace(NS)
                        .withName("web")
                        .get()
                        .getSpec()
                        .getReplicas())
                .as("a preview scales nothing")
                .isEqualTo(1);
        assertThat(cluster.requests()
                        .count(r -> r.isWrite()
                                && NS.equals(r.namespace())
                                && dev.tenure.testsupport.RequestOrigin.of(r)
                                        == dev.tenure.testsupport.RequestOrigin.OPERATOR))
                .as("nothing written by the operator in the workloads' namespace during a preview")
                .isZero();

        client.apps().deployments().inNamespace(NS).withName("web").edit(d -> {
            d.getMetadata().setAnnotations(Map.of(SurgePlanner.OPT_OUT, "false"));
            return d;
        });
        assertThat(podOf(preview(Evacuation.Surge), "web").getSurgeReason())
                .startsWith("cannot surge: opted out (Deployment surge/web has tenure.dev/surge: \"false\")");
    }

    @Test
    void evictSaysNothingAboutSurges() {
        Map<String, PlannedPod> pods = preview(Evacuation.Evict);

        assertThat(podOf(pods, "web").getOutlook()).isEqualTo(DrainOutlook.WaitsForBudget);
        assertThat(pods.values()).allSatisfy(p -> assertThat(p.getSurge()).isNull());
        assertThat(operatorRequests("create", "selfsubjectaccessreviews")).isZero();
    }

    Map<String, PlannedPod> preview(Evacuation evacuation) {
        DrainSpec drain = new DrainSpec();
        drain.setEvacuation(evacuation);
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec("w2", "surge preview");
        spec.setDrain(drain);
        spec.setPreview(true);
        MaintenanceState state = machine.preview(MaintenanceRequest.from(spec), MaintenanceState.initial())
                .state();
        Map<String, PlannedPod> out = new java.util.TreeMap<>();
        state.preview().forEach(p -> out.put(p.getPod(), p));
        return out;
    }

    static PlannedPod podOf(Map<String, PlannedPod> pods, String app) {
        return pods.entrySet().stream()
                .filter(e -> e.getKey().startsWith(NS + "/" + app + "-"))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no pod of " + app + " in the preview: " + pods.keySet()));
    }

    long operatorRequests(String verb, String resource) {
        return cluster.requests()
                .count(r -> r.is(verb, resource)
                        && dev.tenure.testsupport.RequestOrigin.of(r) == dev.tenure.testsupport.RequestOrigin.OPERATOR);
    }

    /** The Deployment as its controller leaves it once rolled out: every replica updated and available. */
    void settled(String name, int replicas) {
        Deployment d =
                client.apps().deployments().inNamespace(NS).withName(name).get();
        d.setStatus(new io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder()
                .withObservedGeneration(d.getMetadata().getGeneration())
                .withReplicas(replicas)
                .withUpdatedReplicas(replicas)
                .withReadyReplicas(replicas)
                .withAvailableReplicas(replicas)
                .build());
        client.apps().deployments().inNamespace(NS).resource(d).updateStatus();
    }

    void awaitBudgetCounted(String name) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            var pdb = client.policy()
                    .v1()
                    .podDisruptionBudget()
                    .inNamespace(NS)
                    .withName(name)
                    .get();
            return pdb != null
                    && pdb.getStatus() != null
                    && Integer.valueOf(1).equals(pdb.getStatus().getCurrentHealthy())
                    && Integer.valueOf(0).equals(pdb.getStatus().getDisruptionsAllowed());
        });
    }

    /** The opt-in ClusterRole exactly as shipped in deploy/, bound to the operator's account as an admin would. */
    void bindShippedSurgeRole() throws IOException {
        ShippedSurgeRole.bind(client, OPERATOR_NS, OPERATOR_SA);
    }
}
