package dev.tenure.placement;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.placement.PlacementForecast.Drain;
import dev.tenure.placement.PlacementForecast.PodForecast;
import dev.tenure.placement.PlacementForecast.Verdict;
import dev.tenure.testsupport.SuiteCounts;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Invariants of the forecast on generated clusters (nodes with cpu and pod room, zones, taints, cordons; pods with
 * requests, tolerations, node selectors, host ports, zone spread, bare or owned, bound, Pending or Failed). Each try is
 * one seed: a failure prints jqwik's seed and the sample (the cluster's seed); {@code @Property(seed = "...")} replays
 * the run. Tries: the pom's {@code jqwik.tries.default} ({@code make test}), {@code FAST_TRIES} in
 * {@code make test-fast}, {@value SuiteCounts#PLACEMENT_FORECAST_TRIES_PROPERTY} when set ({@code make chaos}:
 * {@code PLACEMENT_FORECAST_TRIES}, not the drain model's 200,000 that its {@code jqwik.tries.default} carries).
 */
class PlacementForecastPropertyTest {

    /** The tries from {@value SuiteCounts#PLACEMENT_FORECAST_TRIES_PROPERTY} when set, else jqwik's default. */
    public static final class Tries implements AroundPropertyHook {
        @Override
        public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
            Integer tries = Integer.getInteger(SuiteCounts.PLACEMENT_FORECAST_TRIES_PROPERTY);
            if (tries != null) {
                context.attributes().setTries(tries);
            }
            return property.execute();
        }

        /** Outermost: the tries are read when the property starts. */
        @Override
        public int aroundPropertyProximity() {
            return -100;
        }
    }

    private static final Pattern REASON = Pattern.compile("(\\d+) ([^,]+)");

    record Generated(List<Node> nodes, List<Pod> pods, List<Drain> drains, List<String> alsoCordoned) {}

    @Property(shrinking = ShrinkingMode.OFF)
    @AddLifecycleHook(Tries.class)
    void forecastInvariants(@ForAll long seed) {
        Generated g = generate(new Random(seed));
        PlacementCluster cluster = PlacementCluster.of(g.nodes(), g.pods());
        Map<String, long[]> before = usage(cluster);
        PlacementForecast f = PlacementForecast.of(cluster, g.drains(), g.alsoCordoned());

        List<Pod> evictions =
                g.drains().stream().flatMap(d -> d.evictions().stream()).toList();
        // one answer per evicted pod, in wave order
        assertThat(f.pods().stream().map(PodForecast::name).toList())
                .isEqualTo(
                        evictions.stream().map(p -> p.getMetadata().getName()).toList());

        Set<String> cordoned = new java.util.HashSet<>(g.alsoCordoned());
        g.drains().forEach(d -> cordoned.add(d.nodeName()));
        int placed = 0;
        for (PlacementNode n : cluster.nodes()) {
            long[] was = before.get(n.name());
            long[] now = usage(n);
            int arrived = (int) (now[2] - was[2] + evictedFrom(g, n.name()));
            placed += arrived;
            if (cordoned.contains(n.name()) || n.unschedulable()) {
                // nothing is placed on a node the forecast cordons, nor on one already cordoned
                assertThat(arrived).as("replacements on cordoned %s", n.name()).isZero();
            }
            if (arrived > 0) {
                // a replacement never overcommits the node it is placed on
                assertThat(now[0])
                        .as("cpu on %s", n.name())
                        .isLessThanOrEqualTo(Math.max(was[0], n.allocatable("cpu")));
                assertThat(now[2]).as("pods on %s", n.name()).isLessThanOrEqualTo(n.allocatable("pods"));
            }
        }
        // each pod that fits takes room once; a bare pod (not recreated), a pinned one or one that fits nowhere none
        assertThat(placed)
                .isEqualTo(f.pods().stream()
                        .filter(p -> p.verdict() == Verdict.FITS)
                        .count());

        for (PodForecast p : f.pods()) {
            Pod pod = evictions.stream()
                    .filter(e -> e.getMetadata().getName().equals(p.name()))
                    .findFirst()
                    .orElseThrow();
            boolean bare = pod.getMetadata().getOwnerReferences() == null
                    || pod.getMetadata().getOwnerReferences().isEmpty();
            assertThat(p.verdict() == Verdict.NOT_RECREATED)
                    .as("bare %s", p.name())
                    .isEqualTo(bare);
            if (p.verdict() == Verdict.DOES_NOT_FIT) {
                String prefix = "0/" + g.nodes().size() + " nodes are available: ";
                assertThat(p.message()).startsWith(prefix).endsWith(".");
                int sum = 0;
                Matcher m = REASON.matcher(p.message().substring(prefix.length()));
                while (m.find()) {
                    int count = Integer.parseInt(m.group(1));
                    assertThat(count).isBetween(1, g.nodes().size());
                    sum += count;
                }
                // every node gave at least one reason (NodeResourcesFit may give several on one node)
                assertThat(sum).isGreaterThanOrEqualTo(g.nodes().size());
            }
        }

        // pods already Pending (no node) change nothing
        List<Pod> withPending = new ArrayList<>(g.pods());
        withPending.add(Fixtures.requesting("pending-big", "cpu", "1"));
        assertThat(PlacementForecast.of(PlacementCluster.of(g.nodes(), withPending), g.drains(), g.alsoCordoned())
                        .pods())
                .isEqualTo(f.pods());
    }

    private static long evictedFrom(Generated g, String node) {
        return g.drains().stream()
                .filter(d -> d.nodeName().equals(node))
                .mapToLong(d -> d.evictions().size())
                .sum();
    }

    private static Map<String, long[]> usage(PlacementCluster cluster) {
        Map<String, long[]> out = new HashMap<>();
        cluster.nodes().forEach(n -> out.put(n.name(), usage(n)));
        return out;
    }

    private static long[] usage(PlacementNode n) {
        return new long[] {n.requested("cpu"), n.requested("memory"), n.pods().size()};
    }

    static Generated generate(Random r) {
        int nodeCount = 2 + r.nextInt(6);
        String[] zones = {"a", "b", "c"};
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            NodeBuilder b = new NodeBuilder(Fixtures.node("n" + i, Map.of("zone", zones[r.nextInt(zones.length)])));
            b.editStatus()
                    .addToAllocatable("cpu", new Quantity((4 + r.nextInt(17)) + "m"))
                    .addToAllocatable("pods", new Quantity(String.valueOf(3 + r.nextInt(8))))
                    .endStatus();
            if (r.nextInt(5) == 0) {
                b.editSpec()
                        .withTaints(Fixtures.taint("k", "v", r.nextBoolean() ? "NoSchedule" : "NoExecute"))
                        .endSpec();
            }
            if (r.nextInt(10) == 0) {
                b.editSpec().withUnschedulable(true).endSpec();
            }
            nodes.add(b.build());
        }
        List<Pod> pods = new ArrayList<>();
        int podCount = r.nextInt(25);
        for (int i = 0; i < podCount; i++) {
            PodBuilder b = new PodBuilder(Fixtures.requesting("p" + i, "cpu", r.nextInt(6) + "m"));
            b.editMetadata()
                    .withLabels(Map.of("app", r.nextBoolean() ? "x" : "y"))
                    .endMetadata();
            if (r.nextInt(10) == 0) {
                b.editMetadata().withOwnerReferences().endMetadata();
            }
            if (r.nextInt(3) == 0) {
                b.editSpec()
                        .withTolerations(new Toleration("", "k", "Equal", null, "v"))
                        .endSpec();
            }
            if (r.nextInt(5) == 0) {
                b.editSpec()
                        .withNodeSelector(Map.of("zone", zones[r.nextInt(zones.length)]))
                        .endSpec();
            }
            if (r.nextInt(8) == 0) {
                b.editSpec()
                        .editFirstContainer()
                        .addNewPort()
                        .withContainerPort(80)
                        .withHostPort(80)
                        .endPort()
                        .endContainer()
                        .endSpec();
            }
            if (r.nextInt(5) == 0) {
                b.editSpec()
                        .withTopologySpreadConstraints(new TopologySpreadConstraintBuilder()
                                .withMaxSkew(1)
                                .withTopologyKey("zone")
                                .withWhenUnsatisfiable("DoNotSchedule")
                                .withLabelSelector(new LabelSelectorBuilder()
                                        .withMatchLabels(Map.of("app", "x"))
                                        .build())
                                .build())
                        .endSpec();
            }
            int where = r.nextInt(nodeCount + 2);
            if (where < nodeCount) {
                b.editSpec().withNodeName("n" + where).endSpec();
            } else if (where == nodeCount) {
                b.editSpec()
                        .withNodeName("n0")
                        .endSpec()
                        .editStatus()
                        .withPhase("Failed")
                        .endStatus();
            }
            pods.add(b.build());
        }
        List<Drain> drains = new ArrayList<>();
        int drainCount = 1 + r.nextInt(Math.min(2, nodeCount - 1));
        for (int d = 0; d < drainCount; d++) {
            String node = "n" + d;
            List<Pod> evictions = new ArrayList<>(pods.stream()
                    .filter(p -> node.equals(p.getSpec().getNodeName()))
                    .filter(p -> !"Failed".equals(p.getStatus().getPhase()))
                    .toList());
            java.util.Collections.shuffle(evictions, r);
            drains.add(new Drain(node, evictions));
        }
        List<String> alsoCordoned = r.nextInt(4) == 0 ? List.of("n" + (nodeCount - 1)) : List.of();
        return new Generated(nodes, pods, drains, alsoCordoned);
    }
}
