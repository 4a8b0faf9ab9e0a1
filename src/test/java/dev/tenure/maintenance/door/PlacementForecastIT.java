package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.PlacementPolicy;
import dev.tenure.maintenance.api.PlacementStatus;
import dev.tenure.maintenance.machine.PlacementGate;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EmulatedClusterResource;
import dev.tenure.testsupport.EndToEnd;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Issue 49 item 2, through the operator: the placement forecast made before the cordon ({@code spec.drain.placement}).
 * Each test drains a node whose pod has a {@code nodeSelector} only that node satisfies, so its replacement fits on no
 * node that stays schedulable: Warn says so (event, condition, status) and drains as kubectl does; Wait stays Pending
 * with nothing written to the node or its lease and nothing evicted, until a node that takes the pod is added; Ignore
 * forecasts nothing; a preview shows the forecast.
 */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class PlacementForecastIT {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final String POOL = "tenure.test/pool";
    static final String ZONE = "topology.kubernetes.io/zone";

    EmulatedCluster cluster() {
        return EmulatedClusterResource.cluster();
    }

    KubernetesClient client() {
        return cluster().client();
    }

    NodeMaintenance get(String name) {
        return client().resources(NodeMaintenance.class).withName(name).get();
    }

    NodeMaintenance create(String name, String node, PlacementPolicy policy, boolean preview) {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec(node, "test " + name);
        if (policy != null) {
            DrainSpec drain = new DrainSpec();
            drain.setPlacement(policy);
            spec.setDrain(drain);
        }
        if (preview) {
            spec.setPreview(true);
        }
        return client().resource(new NodeMaintenance(name, spec)).create();
    }

    /** Two nodes; on the first, one pod of a Deployment whose nodeSelector only that node satisfies. */
    Pod stranded(String prefix) {
        cluster().seed().node(prefix + "-1").role("worker").label(POOL, prefix).create();
        cluster().seed().node(prefix + "-2").role("worker").create();
        return cluster()
                .seed()
                .deployment("solo")
                .namespace(prefix)
                .onNode(prefix + "-1")
                .nodeSelector(POOL, prefix)
                .create()
                .get(0);
    }

    Optional<Condition> podsFit(NodeMaintenanceStatus status) {
        return status.getConditions().stream()
                .filter(c -> PlacementGate.PODS_FIT.equals(c.getType()))
                .findFirst();
    }

    List<Event> events(String involved, String reason) {
        return client().v1().events().inAnyNamespace().list().getItems().stream()
                .filter(e -> involved.equals(e.getInvolvedObject().getName()))
                .filter(e -> reason.equals(e.getReason()))
                .toList();
    }

    long requests(Predicate<ApiRequest> which) {
        return cluster().requests().count(which);
    }

    long nodeWrites(String node) {
        return requests(r -> r.isWrite() && "nodes".equals(r.resource()) && node.equals(r.name()));
    }

    long leaseWrites(String node) {
        return requests(r -> r.isWrite() && "leases".equals(r.resource()) && ("node-" + node).equals(r.name()));
    }

    long evictions(String namespace) {
        return requests(ApiRequest.resource("pods", "eviction").and(ApiRequest.inNamespace(namespace)));
    }

    long podListsOf(String node) {
        return requests(r -> r.is("list", "pods")
                && ("spec.nodeName=" + node).equals(r.query().get("fieldSelector")));
    }

    void assertStrandedForecast(PlacementStatus placement, Pod pod, PlacementPolicy policy) {
        String key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
        assertThat(placement.getPolicy()).isEqualTo(policy.name());
        assertThat(placement.getDoesNotFit()).isEqualTo(1);
        assertThat(placement.getPods()).singleElement().satisfies(p -> {
            assertThat(p.getPod()).isEqualTo(key);
            assertThat(p.getVerdict()).isEqualTo("DoesNotFit");
            // kube-scheduler's FitError: the node itself is cordoned, every other one fails the selector
            assertThat(p.getMessage())
                    .matches("0/\\d+ nodes are available: .*")
                    .containsPattern("\\d+ node\\(s\\) were unschedulable")
                    .contains("node(s) didn't match Pod's node affinity/selector");
        });
    }

    @Test
    void warnSaysThePodFitsNowhereThenDrainsAsKubectlDoes() {
        Pod pod = stranded("plw");

        create("plw", "plw-1", null, false); // the default policy: Warn
        await().atMost(WAIT)
                .until(() ->
                        get("plw").getStatus() != null && get("plw").getStatus().getPhase() == Phase.Succeeded);

        NodeMaintenanceStatus status = get("plw").getStatus();
        assertStrandedForecast(status.getPlacement(), pod, PlacementPolicy.Warn);
        assertThat(podsFit(status)).get().satisfies(c -> {
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getReason()).isEqualTo(PlacementGate.WILL_NOT_FIT);
            assertThat(c.getMessage()).contains(pod.getMetadata().getName());
        });
        await().atMost(WAIT)
                .until(() -> !events("plw", PlacementGate.WILL_NOT_FIT).isEmpty());
        assertThat(events("plw", PlacementGate.WILL_NOT_FIT)).singleElement().satisfies(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getMessage())
                    .contains("plw/" + pod.getMetadata().getName())
                    .contains("; spec.drain.placement Warn: the drain goes on")
                    .doesNotContain("tenure.maintenance.annotation");
        });
        // and then it drained as today: the node's pods listed by spec.nodeName and the pod evicted
        assertThat(podListsOf("plw-1")).isPositive();
        assertThat(evictions("plw")).isPositive();
        assertThat(client().pods()
                        .inNamespace("plw")
                        .withName(pod.getMetadata().getName())
                        .get())
                .isNull();
        assertThat(client().nodes().withName("plw-1").get().getSpec().getUnschedulable())
                .isTrue();
    }

    @Test
    void waitStaysPendingTouchingNothingUntilANodeTakesThePod() {
        Pod pod = stranded("plt");
        long nodeWritesBefore = nodeWrites("plt-1");
        long leaseWritesBefore = leaseWrites("plt-1");

        create("plt", "plt-1", PlacementPolicy.Wait, false);
        await().atMost(WAIT)
                .until(() ->
                        get("plt").getStatus() != null && get("plt").getStatus().getPlacement() != null);

        NodeMaintenanceStatus status = get("plt").getStatus();
        assertThat(status.getPhase()).isEqualTo(Phase.Pending);
        assertStrandedForecast(status.getPlacement(), pod, PlacementPolicy.Wait);
        assertThat(status.getWaitingFor()).startsWith("placement: 1 pod(s)");
        assertThat(podsFit(status)).get().satisfies(c -> {
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getMessage()).contains("plt/" + pod.getMetadata().getName(), "0/");
        });
        await().atMost(WAIT)
                .until(() -> !events("plt", PlacementGate.WILL_NOT_FIT).isEmpty());
        // it stays so: no write to the node, none to its lease, no eviction, no cordon
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(5))
                .until(() -> get("plt").getStatus().getPhase() == Phase.Pending);
        assertThat(nodeWrites("plt-1")).isEqualTo(nodeWritesBefore);
        assertThat(leaseWrites("plt-1")).isEqualTo(leaseWritesBefore);
        assertThat(evictions("plt")).isZero();
        assertThat(client().nodes().withName("plt-1").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);
        assertThat(requests(r -> r.is("list", "pods")
                        && r.namespace().isEmpty()
                        && "500".equals(r.query().get("limit"))))
                .as("the forecast read the pods in pages of 500")
                .isPositive();

        // room: a node the pod's selector takes; the Node's add wakes the wait, and the maintenance goes on
        cluster().seed().node("plt-3").role("worker").label(POOL, "plt").create();
        await().atMost(WAIT).until(() -> get("plt").getStatus().getPhase() == Phase.Succeeded);

        status = get("plt").getStatus();
        assertThat(status.getPlacement().getFits()).isEqualTo(1);
        assertThat(status.getPlacement().getPods()).isNull();
        assertThat(podsFit(status)).get().extracting(Condition::getStatus).isEqualTo("True");
        assertThat(events("plt", PlacementGate.PODS_FIT)).isNotEmpty();
        assertThat(podListsOf("plt-1")).isPositive();
        assertThat(evictions("plt")).isPositive();
        assertThat(client().pods()
                        .inNamespace("plt")
                        .withName(pod.getMetadata().getName())
                        .get())
                .isNull();
        assertThat(client().nodes().withName("plt-1").get().getSpec().getUnschedulable())
                .isTrue();
    }

    @Test
    void ignoreMakesNoForecast() {
        Pod pod = stranded("pli");

        create("pli", "pli-1", PlacementPolicy.Ignore, false);
        await().atMost(WAIT)
                .until(() ->
                        get("pli").getStatus() != null && get("pli").getStatus().getPhase() == Phase.Succeeded);

        NodeMaintenanceStatus status = get("pli").getStatus();
        assertThat(status.getPlacement()).isNull();
        assertThat(podsFit(status)).isEmpty();
        assertThat(events("pli", PlacementGate.WILL_NOT_FIT)).isEmpty();
        assertThat(evictions("pli")).isPositive();
        assertThat(client().pods()
                        .inNamespace("pli")
                        .withName(pod.getMetadata().getName())
                        .get())
                .isNull();
    }

    @Test
    void aPreviewShowsTheForecastAndTouchesNothing() {
        Pod pod = stranded("plp");
        long nodeWritesBefore = nodeWrites("plp-1");

        create("plp", "plp-1", PlacementPolicy.Wait, true);
        await().atMost(WAIT)
                .until(() ->
                        get("plp").getStatus() != null && get("plp").getStatus().getPlacement() != null);

        NodeMaintenanceStatus status = get("plp").getStatus();
        assertThat(status.getPhase()).isEqualTo(Phase.Pending);
        assertStrandedForecast(status.getPlacement(), pod, PlacementPolicy.Wait);
        assertThat(status.getDrainPlan().getPods()).isNotEmpty();
        assertThat(podsFit(status)).get().extracting(Condition::getStatus).isEqualTo("False");
        await().atMost(WAIT)
                .until(() -> !events("plp", PlacementGate.WILL_NOT_FIT).isEmpty());
        assertThat(nodeWrites("plp-1")).isEqualTo(nodeWritesBefore);
        assertThat(leaseWrites("plp-1")).isZero();
        assertThat(evictions("plp")).isZero();
    }

    // ---- volumes (issue 49 item 1b): the claims and volumes of the pods to evict, read on demand ---------------

    /** A claim {@code data} in {@code namespace} bound to {@code pv}. */
    void boundClaim(String namespace, String pv) {
        cluster().seed().namespace(namespace);
        client().persistentVolumeClaims()
                .inNamespace(namespace)
                .resource(new PersistentVolumeClaimBuilder()
                        .withNewMetadata()
                        .withName("data")
                        .withNamespace(namespace)
                        .endMetadata()
                        .withNewSpec()
                        .withAccessModes("ReadWriteOnce")
                        .withVolumeName(pv)
                        .withNewResources()
                        .addToRequests("storage", new Quantity("1Gi"))
                        .endResources()
                        .endSpec()
                        .withNewStatus()
                        .withPhase("Bound")
                        .endStatus()
                        .build())
                .create();
    }

    PersistentVolumeBuilder volume(String name, String namespace) {
        return new PersistentVolumeBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addToCapacity("storage", new Quantity("1Gi"))
                .withAccessModes("ReadWriteOnce")
                .withNewClaimRef()
                .withNamespace(namespace)
                .withName("data")
                .endClaimRef()
                .endSpec();
    }

    long volumeReads(String namespace, String pv) {
        return requests(r -> r.is("get", "persistentvolumeclaims")
                        && namespace.equals(r.namespace())
                        && "data".equals(r.name()))
                + requests(r -> r.is("get", "persistentvolumes") && pv.equals(r.name()));
    }

    @Test
    void aLocalVolumeOnTheNodePinsItsPodAndWaitHolds() {
        cluster().seed().node("plv-1").role("worker").create();
        cluster().seed().node("plv-2").role("worker").create();
        client().persistentVolumes()
                .resource(volume("plv-local", "plv")
                        .editSpec()
                        .withNewLocal()
                        .withPath("/mnt/disks/plv")
                        .endLocal()
                        .withNewNodeAffinity()
                        .withNewRequired()
                        .addNewNodeSelectorTerm()
                        .addNewMatchExpression()
                        .withKey("kubernetes.io/hostname")
                        .withOperator("In")
                        .withValues("plv-1")
                        .endMatchExpression()
                        .endNodeSelectorTerm()
                        .endRequired()
                        .endNodeAffinity()
                        .endSpec()
                        .build())
                .create();
        boundClaim("plv", "plv-local");
        Pod pod = cluster()
                .seed()
                .statefulSet("db")
                .namespace("plv")
                .onNode("plv-1")
                .claim("data")
                .create()
                .get(0);

        create("plv", "plv-1", PlacementPolicy.Wait, false);
        await().atMost(WAIT)
                .until(() ->
                        get("plv").getStatus() != null && get("plv").getStatus().getPlacement() != null);

        NodeMaintenanceStatus status = get("plv").getStatus();
        assertThat(status.getPhase()).isEqualTo(Phase.Pending);
        assertThat(status.getPlacement().getPinned()).isEqualTo(1);
        assertThat(status.getPlacement().getVolumesNotRead()).isNull();
        assertThat(status.getPlacement().getPods()).singleElement().satisfies(p -> {
            assertThat(p.getPod()).isEqualTo("plv/" + pod.getMetadata().getName());
            assertThat(p.getVerdict()).isEqualTo("Pinned");
            assertThat(p.getMessage()).isEqualTo("pinned by local PersistentVolume plv-local");
        });
        assertThat(volumeReads("plv", "plv-local"))
                .as("the claim read in the pod's namespace and its volume read, by name")
                .isGreaterThanOrEqualTo(2);
        assertThat(evictions("plv")).isZero();
        assertThat(client().nodes().withName("plv-1").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);
    }

    @Test
    void aZonalVolumeLetsThePodOnlyIntoItsZone() {
        // the pool keeps the other tests' nodes out (a node without zone labels passes VolumeZone)
        cluster()
                .seed()
                .node("plz-1")
                .role("worker")
                .label(POOL, "plz")
                .label(ZONE, "plz-a")
                .create();
        cluster()
                .seed()
                .node("plz-2")
                .role("worker")
                .label(POOL, "plz")
                .label(ZONE, "plz-b")
                .create();
        client().persistentVolumes()
                .resource(volume("plz-disk", "plz")
                        .editMetadata()
                        .addToLabels(ZONE, "plz-a")
                        .endMetadata()
                        .editSpec()
                        .withNewCsi()
                        .withDriver("pd.csi.example.com")
                        .withVolumeHandle("plz-disk")
                        .endCsi()
                        .endSpec()
                        .build())
                .create();
        boundClaim("plz", "plz-disk");
        Pod pod = cluster()
                .seed()
                .deployment("web")
                .namespace("plz")
                .onNode("plz-1")
                .nodeSelector(POOL, "plz")
                .claim("data")
                .create()
                .get(0);

        create("plz", "plz-1", null, false); // Warn: says so, and drains as kubectl does
        await().atMost(WAIT)
                .until(() ->
                        get("plz").getStatus() != null && get("plz").getStatus().getPhase() == Phase.Succeeded);

        PlacementStatus placement = get("plz").getStatus().getPlacement();
        assertThat(placement.getDoesNotFit()).isEqualTo(1);
        assertThat(placement.getPods()).singleElement().satisfies(p -> {
            assertThat(p.getPod()).isEqualTo("plz/" + pod.getMetadata().getName());
            assertThat(p.getVerdict()).isEqualTo("DoesNotFit");
            // the other zone's node fails VolumeZone, in the scheduler's words; the node itself is cordoned
            assertThat(p.getMessage())
                    .matches("0/\\d+ nodes are available: .*")
                    .contains("1 node(s) had no available volume zone");
        });
        assertThat(volumeReads("plz", "plz-disk")).isGreaterThanOrEqualTo(2);
        assertThat(evictions("plz")).isPositive();
    }

    @Test
    void aClaimReadRefusedIsSaidAndNeverHoldsTheDrain() {
        cluster().seed().node("plr-1").role("worker").create();
        cluster().seed().node("plr-2").role("worker").create();
        client().persistentVolumes()
                .resource(volume("plr-local", "plr")
                        .editSpec()
                        .withNewLocal()
                        .withPath("/mnt/disks/plr")
                        .endLocal()
                        .endSpec()
                        .build())
                .create();
        boundClaim("plr", "plr-local");
        Predicate<ApiRequest> claimReads =
                ApiRequest.resource("persistentvolumeclaims").and(ApiRequest.inNamespace("plr"));
        cluster().faults().failNext(1000, claimReads, 403);
        Pod pod = cluster()
                .seed()
                .statefulSet("db")
                .namespace("plr")
                .onNode("plr-1")
                .claim("data")
                .create()
                .get(0);

        create("plr", "plr-1", PlacementPolicy.Wait, false);
        await().atMost(WAIT)
                .until(() ->
                        get("plr").getStatus() != null && get("plr").getStatus().getPhase() == Phase.Succeeded);

        PlacementStatus placement = get("plr").getStatus().getPlacement();
        assertThat(placement.getFits()).isEqualTo(1);
        assertThat(placement.getVolumesNotRead())
                .startsWith("plr/data: get persistentvolumeclaim: HTTP 403")
                .contains("forecast without these volumes");
        assertThat(requests(claimReads.and(r -> r.is("get", "persistentvolumeclaims"))))
                .isPositive();
        assertThat(evictions("plr")).isPositive();
        assertThat(client().pods()
                        .inNamespace("plr")
                        .withName(pod.getMetadata().getName())
                        .get())
                .isNull();
    }

    // ---- what wakes a waiting maintenance (issue 49 item 2): a pod deleted elsewhere frees room ------------------

    @Test
    void aPodDeletedElsewhereWakesTheWaitWithoutANodeChange() {
        // plu-2 takes one pod and holds one; the pod on plu-1 fits only there (its selector) once that one is gone
        cluster().seed().node("plu-1").role("worker").label(POOL, "plu").create();
        cluster().seed().node("plu-2").role("worker").label(POOL, "plu").create();
        client().nodes()
                .withName("plu-2")
                .editStatus(n -> new NodeBuilder(n)
                        .editStatus()
                        .addToAllocatable("pods", new Quantity("1"))
                        .endStatus()
                        .build());
        Pod filler = cluster()
                .seed()
                .pod("filler")
                .namespace("plu")
                .onNode("plu-2")
                .create()
                .get(0);
        Pod pod = cluster()
                .seed()
                .deployment("solo")
                .namespace("plu")
                .onNode("plu-1")
                .nodeSelector(POOL, "plu")
                .create()
                .get(0);

        create("plu", "plu-1", PlacementPolicy.Wait, false);
        await().atMost(WAIT)
                .until(() ->
                        get("plu").getStatus() != null && get("plu").getStatus().getPlacement() != null);
        PlacementStatus held = get("plu").getStatus().getPlacement();
        assertThat(get("plu").getStatus().getPhase()).isEqualTo(Phase.Pending);
        assertThat(held.getPods()).singleElement().satisfies(p -> {
            assertThat(p.getPod()).isEqualTo("plu/" + pod.getMetadata().getName());
            assertThat(p.getMessage()).contains("1 Too many pods");
        });
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(requests(
                                r -> r.is("watch", "pods") && r.namespace().isEmpty()))
                        .as("the pod watch opened while a maintenance waits for placement")
                        .isPositive());
        long nodeWritesBefore = nodeWrites("plu-2");

        // the recheck is 10m in tests (tenure.maintenance.placement-recheck): only the pod's deletion can wake it
        client().pods()
                .inNamespace("plu")
                .withName(filler.getMetadata().getName())
                .withGracePeriod(0)
                .delete();
        await().atMost(WAIT).until(() -> get("plu").getStatus().getPhase() != Phase.Pending);
        assertThat(nodeWrites("plu-2"))
                .as("the node with the room not written meanwhile (no Node change woke the wait)")
                .isEqualTo(nodeWritesBefore);
        await().atMost(WAIT).until(() -> get("plu").getStatus().getPhase() == Phase.Succeeded);
        PlacementStatus released = get("plu").getStatus().getPlacement();
        assertThat(released.getFits()).isEqualTo(1);
        assertThat(events("plu", PlacementGate.PODS_FIT)).isNotEmpty();
        assertThat(podListsOf("plu-1")).isPositive();
        assertThat(evictions("plu")).isPositive();
    }

    @Test
    void aPodArrivingThatTheAffinityNeedsWakesTheWait() {
        // the pod on apa-1 needs a pod app=peer on its node (required affinity); there is none anywhere
        cluster().seed().node("apa-1").role("worker").label(POOL, "apa").create();
        cluster().seed().node("apa-2").role("worker").label(POOL, "apa").create();
        Pod solo = cluster()
                .seed()
                .deployment("solo")
                .namespace("apa")
                .onNode("apa-1")
                .create()
                .get(0);
        client().pods()
                .inNamespace("apa")
                .withName(solo.getMetadata().getName())
                .edit(p -> new io.fabric8.kubernetes.api.model.PodBuilder(p)
                        .editSpec()
                        .withNewAffinity()
                        .withNewPodAffinity()
                        .addNewRequiredDuringSchedulingIgnoredDuringExecution()
                        .withTopologyKey("kubernetes.io/hostname")
                        .withNewLabelSelector()
                        .addToMatchLabels("app", "peer")
                        .endLabelSelector()
                        .endRequiredDuringSchedulingIgnoredDuringExecution()
                        .endPodAffinity()
                        .endAffinity()
                        .endSpec()
                        .build());

        create("apa", "apa-1", PlacementPolicy.Wait, false);
        await().atMost(WAIT)
                .until(() ->
                        get("apa").getStatus() != null && get("apa").getStatus().getPlacement() != null);
        assertThat(get("apa").getStatus().getPhase()).isEqualTo(Phase.Pending);
        assertThat(get("apa").getStatus().getPlacement().getPods())
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.getPod()).isEqualTo("apa/" + solo.getMetadata().getName());
                    assertThat(p.getMessage()).contains("node(s) didn't match pod affinity rules");
                });
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(requests(
                                r -> r.is("watch", "pods") && r.namespace().isEmpty()))
                        .as("the pod watch opened while a maintenance waits for placement")
                        .isPositive());
        long nodeWritesBefore = nodeWrites("apa-2");

        // the recheck is 10m in tests (tenure.maintenance.placement-recheck): only the pod's arrival can wake it
        cluster().seed().pod("peer").namespace("apa").onNode("apa-2").create();
        await().atMost(WAIT).until(() -> get("apa").getStatus().getPhase() != Phase.Pending);
        assertThat(nodeWrites("apa-2"))
                .as("the node the pod arrived on not written meanwhile (no Node change woke the wait)")
                .isEqualTo(nodeWritesBefore);
        await().atMost(WAIT).until(() -> get("apa").getStatus().getPhase() == Phase.Succeeded);
        assertThat(get("apa").getStatus().getPlacement().getFits()).isEqualTo(1);
        assertThat(events("apa", PlacementGate.PODS_FIT)).isNotEmpty();
        assertThat(podListsOf("apa-1")).isPositive();
        assertThat(evictions("apa")).isPositive();
    }

    // ---- namespaceSelector (issue 49): namespace labels read only when an affinity term selects by them --------

    /**
     * Two nodes {@code <prefix>-1} and {@code -2} of a pool only the pod below selects (the other tests' nodes are not
     * candidates); on {@code -2} a pod {@code app=<prefix>-db} in namespace {@code <prefix>-data} (labelled {@code
     * team=<prefix>}); on {@code -1} the pod of a Deployment in namespace {@code <prefix>} whose required anti-affinity
     * keeps it off any node with an {@code app=<prefix>-db} pod of the namespaces labelled {@code team=<prefix>}: only
     * that selector keeps its replacement off {@code -2} (in its own namespace there is no such pod).
     */
    Pod keptOffByItsNamespaceSelector(String prefix) {
        cluster().seed().node(prefix + "-1").role("worker").label(POOL, prefix).create();
        cluster().seed().node(prefix + "-2").role("worker").label(POOL, prefix).create();
        client().namespaces()
                .resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                        .withNewMetadata()
                        .withName(prefix + "-data")
                        .withLabels(java.util.Map.of("team", prefix))
                        .endMetadata()
                        .build())
                .create();
        cluster()
                .seed()
                .pod(prefix + "-db")
                .namespace(prefix + "-data")
                .onNode(prefix + "-2")
                .create();
        Pod solo = cluster()
                .seed()
                .deployment("solo")
                .namespace(prefix)
                .onNode(prefix + "-1")
                .nodeSelector(POOL, prefix)
                .create()
                .get(0);
        return client().pods()
                .inNamespace(prefix)
                .withName(solo.getMetadata().getName())
                .edit(p -> new io.fabric8.kubernetes.api.model.PodBuilder(p)
                        .editSpec()
                        .withNewAffinity()
                        .withNewPodAntiAffinity()
                        .addNewRequiredDuringSchedulingIgnoredDuringExecution()
                        .withTopologyKey("kubernetes.io/hostname")
                        .withNewLabelSelector()
                        .addToMatchLabels("app", prefix + "-db")
                        .endLabelSelector()
                        .withNewNamespaceSelector()
                        .addToMatchLabels("team", prefix)
                        .endNamespaceSelector()
                        .endRequiredDuringSchedulingIgnoredDuringExecution()
                        .endPodAntiAffinity()
                        .endAffinity()
                        .endSpec()
                        .build());
    }

    long operatorRequests(Predicate<ApiRequest> which) {
        return requests(which.and(
                r -> dev.tenure.testsupport.RequestOrigin.of(r) == dev.tenure.testsupport.RequestOrigin.OPERATOR));
    }

    static final Predicate<ApiRequest> NAMESPACE_LISTS = r -> r.is("list", "namespaces");

    /** The first page of a forecast's cluster-wide pod LIST: one per forecast. */
    static final Predicate<ApiRequest> FORECASTS = r -> r.is("list", "pods")
            && r.namespace().isEmpty()
            && "500".equals(r.query().get("limit"))
            && r.query().get("continue") == null;

    @Test
    void onlyTheNamespaceSelectorKeepsThePodFromFitting() {
        Pod pod = keptOffByItsNamespaceSelector("nss");
        long listsBefore = operatorRequests(NAMESPACE_LISTS);
        long forecastsBefore = operatorRequests(FORECASTS);

        create("nss", "nss-1", PlacementPolicy.Wait, false);
        await().atMost(WAIT)
                .until(() ->
                        get("nss").getStatus() != null && get("nss").getStatus().getPlacement() != null);

        NodeMaintenanceStatus status = get("nss").getStatus();
        assertThat(status.getPhase()).isEqualTo(Phase.Pending);
        assertThat(status.getPlacement().getDoesNotFit()).isEqualTo(1);
        assertThat(status.getPlacement().getNamespacesNotRead()).isNull();
        assertThat(status.getPlacement().getPods()).singleElement().satisfies(p -> {
            assertThat(p.getPod()).isEqualTo("nss/" + pod.getMetadata().getName());
            // nss-1 is cordoned; nss-2 holds a pod of a namespace the selector selects; the rest are not in the pool
            assertThat(p.getMessage())
                    .containsPattern("[ :]1 node\\(s\\) didn't match pod anti-affinity rules")
                    .containsPattern("\\d+ node\\(s\\) were unschedulable");
        });
        assertThat(evictions("nss")).isZero();
        assertThat(client().nodes().withName("nss-1").get().getSpec().getUnschedulable())
                .isNotEqualTo(Boolean.TRUE);
        // the labels were read: one LIST of namespaces per forecast (a forecast in flight at the start may add one)
        long lists = operatorRequests(NAMESPACE_LISTS) - listsBefore;
        long forecasts = operatorRequests(FORECASTS) - forecastsBefore;
        assertThat(lists).isPositive().isLessThanOrEqualTo(forecasts + 1);

        // the selected namespace loses its label: the selector selects nothing, the pod fits on nss-2 (a namespace
        // change wakes nothing: the next look is the recheck, so the Node change below brings it)
        client().namespaces()
                .withName("nss-data")
                .edit(n -> new io.fabric8.kubernetes.api.model.NamespaceBuilder(n)
                        .editMetadata()
                        .withLabels(java.util.Map.of("team", "elsewhere"))
                        .endMetadata()
                        .build());
        client().nodes()
                .withName("nss-2")
                .edit(n -> new NodeBuilder(n)
                        .editMetadata()
                        .addToLabels("tenure.test/touched", "yes")
                        .endMetadata()
                        .build());
        await().atMost(WAIT).until(() -> get("nss").getStatus().getPhase() == Phase.Succeeded);
        assertThat(get("nss").getStatus().getPlacement().getFits()).isEqualTo(1);
        assertThat(podListsOf("nss-1")).isPositive();
        assertThat(evictions("nss")).isPositive();
    }

    @Test
    void aNamespaceListRefusedIsSaidAndNeverHoldsTheDrain() {
        Pod pod = keptOffByItsNamespaceSelector("nsr");
        Predicate<ApiRequest> operatorNamespaceLists = NAMESPACE_LISTS.and(
                r -> dev.tenure.testsupport.RequestOrigin.of(r) == dev.tenure.testsupport.RequestOrigin.OPERATOR);
        cluster().faults().failNext(1000, operatorNamespaceLists, 403);
        try {
            create("nsr", "nsr-1", PlacementPolicy.Wait, false);
            await().atMost(WAIT)
                    .until(() -> get("nsr").getStatus() != null
                            && get("nsr").getStatus().getPhase() == Phase.Succeeded);
        } finally {
            cluster().faults().clear();
        }

        PlacementStatus placement = get("nsr").getStatus().getPlacement();
        assertThat(placement.getFits()).isEqualTo(1);
        assertThat(placement.getNamespacesNotRead())
                .startsWith("list namespaces: HTTP 403")
                .contains("forecast without the affinity terms that select namespaces by label");
        assertThat(requests(operatorNamespaceLists)).isPositive();
        assertThat(evictions("nsr")).isPositive();
        assertThat(client().pods()
                        .inNamespace("nsr")
                        .withName(pod.getMetadata().getName())
                        .get())
                .isNull();
    }
}
