package dev.tenure.placement;

import static dev.tenure.placement.Fixtures.on;
import static dev.tenure.placement.Fixtures.requesting;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.placement.PlacementForecast.Drain;
import dev.tenure.placement.PlacementForecast.PodForecast;
import dev.tenure.placement.PlacementForecast.Verdict;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The forecast over the filters: wave order and the room each replacement takes, the drained node cordoned but
 * still a topology domain, bare pods, pods already Pending, pinned volumes, several drains forecast together, and
 * the scheduler's message.
 */
class PlacementForecastTest {

    private static Node cpu(String name, String allocatable, Map<String, String> labels) {
        Node n = Fixtures.node(name, labels);
        n.getStatus().getAllocatable().put("cpu", new io.fabric8.kubernetes.api.model.Quantity(allocatable));
        return n;
    }

    private static List<Verdict> verdicts(PlacementForecast f) {
        return f.pods().stream().map(PodForecast::verdict).toList();
    }

    private static PlacementForecast forecast(List<Node> nodes, List<Pod> bound, String drained, List<Pod> evictions) {
        return PlacementForecast.of(
                PlacementCluster.of(nodes, bound), List.of(new Drain(drained, evictions)), List.of());
    }

    @Test
    void eachPlacedReplacementTakesRoomFromTheNextInWaveOrder() {
        Pod a = on(requesting("a", "cpu", "5m"), "n1");
        Pod b = on(requesting("b", "cpu", "6m"), "n1");
        List<Node> nodes = List.of(cpu("n1", "10m", Map.of()), cpu("n2", "10m", Map.of()));
        List<Pod> bound = List.of(a, b, on(requesting("x", "cpu", "4m"), "n2"));

        PlacementForecast ab = forecast(nodes, bound, "n1", List.of(a, b));
        assertThat(verdicts(ab)).containsExactly(Verdict.FITS, Verdict.DOES_NOT_FIT);
        assertThat(ab.pods().get(1).message())
                .isEqualTo("0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable.");

        // the other wave order: b takes the room first, and a is the one left without
        PlacementForecast ba = forecast(nodes, bound, "n1", List.of(b, a));
        assertThat(verdicts(ba)).containsExactly(Verdict.FITS, Verdict.DOES_NOT_FIT);
        assertThat(ba.pods().get(1).name()).isEqualTo("a");
    }

    @Test
    void theDrainedNodeStaysATopologyDomainWhileCordoned() {
        // one pod per host; the replacement of n1's pod must not make any host hold 2 while n1 (cordoned) holds 0
        var spread = PodTopologySpreadTest.spread(1, "kubernetes.io/hostname");
        Pod template = PodTopologySpreadTest.incoming(PodTopologySpreadTest.FOO, spread.build());
        List<Node> nodes = List.of(
                Fixtures.node("n1").build(),
                Fixtures.node("n2").build(),
                Fixtures.node("n3").build());
        Pod evicted = on(
                new PodBuilder(template)
                        .editMetadata()
                        .withName("a")
                        .endMetadata()
                        .build(),
                "n1");
        List<Pod> bound = List.of(
                evicted,
                on(
                        new PodBuilder(template)
                                .editMetadata()
                                .withName("b")
                                .endMetadata()
                                .build(),
                        "n2"),
                on(
                        new PodBuilder(template)
                                .editMetadata()
                                .withName("c")
                                .endMetadata()
                                .build(),
                        "n3"));

        PlacementForecast f = forecast(nodes, bound, "n1", List.of(evicted));
        assertThat(verdicts(f)).containsExactly(Verdict.DOES_NOT_FIT);
        assertThat(f.pods().get(0).message())
                .isEqualTo("0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match pod topology"
                        + " spread constraints.");

        // nodeTaintsPolicy: Honor leaves the cordoned node (its unschedulable taint) out of the domains: it fits
        Pod honoring = PodTopologySpreadTest.incoming(
                PodTopologySpreadTest.FOO, spread.withNodeTaintsPolicy("Honor").build());
        Pod evictedHonoring = on(
                new PodBuilder(honoring)
                        .editMetadata()
                        .withName("a")
                        .endMetadata()
                        .build(),
                "n1");
        List<Pod> boundHonoring = new ArrayList<>(bound.subList(1, 3));
        boundHonoring.add(evictedHonoring);
        assertThat(verdicts(forecast(nodes, boundHonoring, "n1", List.of(evictedHonoring))))
                .containsExactly(Verdict.FITS);
    }

    @Test
    void aBarePodIsNotRecreatedAndTakesNoRoom() {
        Pod bare = on(
                Fixtures.with(
                        requesting("bare", "cpu", "8m"),
                        b -> b.editMetadata().withOwnerReferences().endMetadata()),
                "n1");
        Pod owned = on(requesting("owned", "cpu", "8m"), "n1");
        List<Node> nodes = List.of(cpu("n1", "20m", Map.of()), cpu("n2", "10m", Map.of()));

        PlacementForecast f = forecast(nodes, List.of(bare, owned), "n1", List.of(bare, owned));
        assertThat(verdicts(f)).containsExactly(Verdict.NOT_RECREATED, Verdict.FITS);
    }

    @Test
    void aPodAlreadyPendingElsewhereTakesNoRoomAndTurnsNothingRed() {
        Pod owned = on(requesting("owned", "cpu", "8m"), "n1");
        Pod pending = requesting("pending", "cpu", "10m"); // no nodeName: Pending, unscheduled
        Pod failed = on(
                Fixtures.with(
                        requesting("done", "cpu", "10m"),
                        b -> b.editStatus().withPhase("Failed").endStatus()),
                "n2");
        List<Node> nodes = List.of(cpu("n1", "10m", Map.of()), cpu("n2", "10m", Map.of()));

        PlacementForecast f = forecast(nodes, List.of(owned, pending, failed), "n1", List.of(owned));
        assertThat(verdicts(f)).containsExactly(Verdict.FITS);
        assertThat(f.pods().get(0).message()).isEqualTo("fits on 1/2 nodes");
    }

    @Test
    void aLocalVolumeOnTheDrainedNodePinsItsPod() {
        Pod pod = on(VolumeFixtures.mounting("db-0", "data"), "n1");
        PlacementCluster cluster = PlacementCluster.of(
                List.of(Fixtures.node("n1").build(), Fixtures.node("n2").build()),
                List.of(pod),
                List.of(VolumeFixtures.local("pv-local", "n1")),
                List.of(VolumeFixtures.claim("data", "pv-local")),
                Map.of());

        PlacementForecast f = PlacementForecast.of(cluster, List.of(new Drain("n1", List.of(pod))), List.of());
        assertThat(verdicts(f)).containsExactly(Verdict.PINNED);
        assertThat(f.pods().get(0).message()).isEqualTo("pinned by local PersistentVolume pv-local");
        assertThat(f.stranded()).hasSize(1);
        assertThat(f.doesNotFit()).isEmpty();
    }

    /**
     * A claim the caller could not read (refused, 404) is not read as missing ("persistentvolumeclaim not found"
     * would make the pod fit nowhere): the pod is forecast without that volume, and the forecast lists the claim.
     */
    @Test
    void aClaimNotReadIsForecastWithoutItsVolumeAndListed() {
        Pod pod = on(VolumeFixtures.mounting("db-0", "data"), "n1");
        PlacementCluster cluster = PlacementCluster.of(
                        List.of(Fixtures.node("n1").build(), Fixtures.node("n2").build()),
                        List.of(pod),
                        List.of(),
                        List.of(),
                        Map.of())
                .claimNotRead(pod.getMetadata().getNamespace(), "data", "HTTP 403 Forbidden");

        PlacementForecast f = PlacementForecast.of(cluster, List.of(new Drain("n1", List.of(pod))), List.of());
        assertThat(verdicts(f)).containsExactly(Verdict.FITS);
        assertThat(f.volumesNotRead()).containsExactly(pod.getMetadata().getNamespace() + "/data: HTTP 403 Forbidden");

        // the same claim simply absent is the scheduler's "not found": the pod fits nowhere
        PlacementCluster absent = PlacementCluster.of(
                List.of(Fixtures.node("n1").build(), Fixtures.node("n2").build()),
                List.of(pod),
                List.of(),
                List.of(),
                Map.of());
        PlacementForecast g = PlacementForecast.of(absent, List.of(new Drain("n1", List.of(pod))), List.of());
        assertThat(verdicts(g)).containsExactly(Verdict.DOES_NOT_FIT);
        assertThat(g.volumesNotRead()).isEmpty();
    }

    /**
     * NodeUnschedulable ({@code plugins/nodeunschedulable/node_unschedulable.go}) lets a pod that tolerates
     * {@code node.kubernetes.io/unschedulable:NoSchedule} onto a cordoned node: its replacement goes back to the drained
     * node, where its local volume is, and is not stranded (found by {@code PlacementForecastOnClusterIT}, seed -26955:
     * the forecast said pinned, the living scheduler bound the replacement to the cordoned node).
     */
    @Test
    void aPodThatToleratesTheCordonIsNotPinnedByItsLocalVolume() {
        Pod pod = Fixtures.with(
                on(VolumeFixtures.mounting("db-0", "data"), "n1"),
                b -> b.editSpec()
                        .withTolerations(new io.fabric8.kubernetes.api.model.Toleration(
                                "NoSchedule", "node.kubernetes.io/unschedulable", "Exists", null, null))
                        .endSpec());
        PlacementCluster cluster = PlacementCluster.of(
                List.of(Fixtures.node("n1").build(), Fixtures.node("n2").build()),
                List.of(pod),
                List.of(VolumeFixtures.local("pv-local", "n1")),
                List.of(VolumeFixtures.claim("data", "pv-local")),
                Map.of());

        PlacementForecast f = PlacementForecast.of(cluster, List.of(new Drain("n1", List.of(pod))), List.of());
        assertThat(verdicts(f)).containsExactly(Verdict.FITS);
        assertThat(f.pods().get(0).message()).isEqualTo("fits on 1/2 nodes");
        assertThat(f.stranded()).isEmpty();
    }

    @Test
    void aZonalVolumeWhoseZoneHasNoOtherNodeWithRoomDoesNotFit() {
        Pod pod = on(VolumeFixtures.mounting("db-0", "data"), "n1");
        Pod filler = on(requesting("filler", "cpu", "10m"), "n2");
        Pod db = Fixtures.with(
                pod,
                b -> b.editSpec()
                        .withContainers(Fixtures.container("cpu", "1m"))
                        .endSpec());
        PlacementCluster cluster = PlacementCluster.of(
                List.of(
                        Fixtures.node("n1", Map.of("zone", "a")),
                        Fixtures.node("n2", Map.of("zone", "a")),
                        Fixtures.node("n3", Map.of("zone", "b"))),
                List.of(db, filler),
                List.of(VolumeFixtures.affine("pv-a", "zone", "a")),
                List.of(VolumeFixtures.claim("data", "pv-a")),
                Map.of());

        PlacementForecast f = PlacementForecast.of(cluster, List.of(new Drain("n1", List.of(db))), List.of());
        assertThat(verdicts(f)).containsExactly(Verdict.DOES_NOT_FIT);
        assertThat(f.pods().get(0).message())
                .isEqualTo("0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had volume node affinity conflict,"
                        + " 1 node(s) were unschedulable.");
    }

    @Test
    void drainsForecastTogetherShareTheRoomAndCordonEveryNodeAhead() {
        Pod a = on(requesting("a", "cpu", "6m"), "n1");
        Pod b = on(requesting("b", "cpu", "6m"), "n2");
        List<Node> nodes = List.of(
                cpu("n1", "10m", Map.of()),
                cpu("n2", "10m", Map.of()),
                cpu("n3", "10m", Map.of()),
                cpu("n4", "10m", Map.of()));
        PlacementCluster cluster = PlacementCluster.of(nodes, List.of(a, b));

        // n4 is in maintenance: cordoned for the forecast; n1's pod takes n3's room, and n2's pod has none left
        PlacementForecast f = PlacementForecast.of(
                cluster, List.of(new Drain("n1", List.of(a)), new Drain("n2", List.of(b))), List.of("n4"));
        assertThat(verdicts(f)).containsExactly(Verdict.FITS, Verdict.DOES_NOT_FIT);
        assertThat(f.pods().get(1).message())
                .isEqualTo("0/4 nodes are available: 1 Insufficient cpu, 3 node(s) were unschedulable.");
    }

    @Test
    void theMessageCountsNodesPerReasonSortedAsTheSchedulerSortsThem() {
        Map<String, Integer> reasons =
                new TreeMap<>(Map.of("node(s) had untolerated taint {k: v}", 3, "Insufficient cpu", 2));
        assertThat(PlacementForecast.fitError(5, reasons))
                .isEqualTo("0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint {k: v}.");

        Pod a = on(requesting("a", "cpu", "6m"), "n1");
        List<Node> nodes = List.of(
                cpu("n1", "10m", Map.of()),
                cpu("n2", "5m", Map.of()),
                cpu("n3", "5m", Map.of()),
                Fixtures.tainted("n4", Fixtures.taint("k", "v", "NoSchedule")),
                Fixtures.tainted("n5", Fixtures.taint("k", "v", "NoExecute")));
        assertThat(forecast(nodes, List.of(a), "n1", List.of(a)).pods().get(0).message())
                .isEqualTo("0/5 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu, 2 node(s) had"
                        + " untolerated taint {k: v}.");
    }
}
