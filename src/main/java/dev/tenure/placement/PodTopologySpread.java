package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * kube-scheduler's {@code PodTopologySpread} filter, {@code whenUnsatisfiable: DoNotSchedule} constraints only
 * ({@code plugins/podtopologyspread/filtering.go}, {@code common.go}). For each constraint, the pods of the pod's
 * namespace its {@code labelSelector} selects (terminating pods left out) are counted per domain (value of
 * {@code topologyKey}) over the nodes that carry every constraint's key and pass the inclusion policies:
 * {@code nodeAffinityPolicy} (default {@code Honor}: the node matches the pod's nodeSelector and required node
 * affinity) and {@code nodeTaintsPolicy} (default {@code Ignore}; {@code Honor}: the pod tolerates the node's
 * NoSchedule/NoExecute taints). A node is refused when it lacks the key, or when placing the pod would make its
 * domain's count minus the smallest domain's count exceed {@code maxSkew}; with fewer domains than
 * {@code minDomains} the smallest count is taken as 0.
 *
 * <p>A cordoned node keeps its domain (it is not deleted): with the default taints policy its pods still count.
 * {@code matchLabelKeys} is not merged here: the API server merges it into the selector (1.34+).
 */
final class PodTopologySpread implements FilterPlugin {

    static final String REASON = "node(s) didn't match pod topology spread constraints";
    static final String MISSING_LABEL = REASON + " (missing required label)";

    @Override
    public String name() {
        return "PodTopologySpread";
    }

    @Override
    public NodeFilter prepare(Pod pod, PlacementCluster cluster) {
        List<TopologySpreadConstraint> constraints = constraints(pod);
        if (constraints.isEmpty()) {
            return node -> List.of();
        }
        List<Map<String, Integer>> counts = new ArrayList<>();
        constraints.forEach(c -> counts.add(new HashMap<>()));
        String namespace = pod.getMetadata().getNamespace();
        for (PlacementNode node : cluster.nodes()) {
            if (!constraints.stream().allMatch(c -> node.labels().containsKey(c.getTopologyKey()))) {
                continue;
            }
            for (int i = 0; i < constraints.size(); i++) {
                TopologySpreadConstraint c = constraints.get(i);
                if (!included(c, pod, node)) {
                    continue;
                }
                int matching = 0;
                for (PlacedPod p : node.pods()) {
                    if (!p.terminating()
                            && namespace != null
                            && namespace.equals(p.namespace())
                            && Selectors.matches(c.getLabelSelector(), p.labels())) {
                        matching++;
                    }
                }
                counts.get(i).merge(node.labels().get(c.getTopologyKey()), matching, Integer::sum);
            }
        }
        return node -> {
            for (int i = 0; i < constraints.size(); i++) {
                TopologySpreadConstraint c = constraints.get(i);
                String value = node.labels().get(c.getTopologyKey());
                if (value == null) {
                    return List.of(MISSING_LABEL);
                }
                Map<String, Integer> domains = counts.get(i);
                int min = minMatch(domains, c.getMinDomains());
                int self = Selectors.matches(c.getLabelSelector(), InterPodAffinity.labels(pod)) ? 1 : 0;
                long skew = (long) domains.getOrDefault(value, 0) + self - min;
                if (skew > (c.getMaxSkew() == null ? 1 : c.getMaxSkew())) {
                    return List.of(REASON);
                }
            }
            return List.of();
        };
    }

    private static int minMatch(Map<String, Integer> domains, Integer minDomains) {
        if (minDomains != null && domains.size() < minDomains) {
            return 0;
        }
        return domains.values().stream().mapToInt(Integer::intValue).min().orElse(Integer.MAX_VALUE);
    }

    private static boolean included(TopologySpreadConstraint c, Pod pod, PlacementNode node) {
        boolean honorAffinity = c.getNodeAffinityPolicy() == null || "Honor".equals(c.getNodeAffinityPolicy());
        boolean honorTaints = "Honor".equals(c.getNodeTaintsPolicy());
        return (!honorAffinity || NodeAffinity.matches(pod, node))
                && (!honorTaints
                        || TaintToleration.untolerated(pod, node.taints()).isEmpty());
    }

    private static List<TopologySpreadConstraint> constraints(Pod pod) {
        if (pod.getSpec() == null) {
            return List.of();
        }
        return Resources.list(pod.getSpec().getTopologySpreadConstraints()).stream()
                .filter(c -> "DoNotSchedule".equals(c.getWhenUnsatisfiable()))
                .filter(c -> c.getTopologyKey() != null)
                .toList();
    }
}
