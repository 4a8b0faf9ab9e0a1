package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * kube-scheduler's {@code InterPodAffinity} filter, required terms only ({@code plugins/interpodaffinity/filtering.go}):
 *
 * <ol>
 *   <li>no existing pod's required anti-affinity term may select this pod within the node's topology domain
 *       ({@code node(s) didn't satisfy existing pods anti-affinity rules});
 *   <li>for each of the pod's required affinity terms, some pod selected by all of them must run in the node's
 *       domain of that term's {@code topologyKey}, and the node must carry every such key; the first pod of a group
 *       that selects itself passes when no pod anywhere matches ({@code node(s) didn't match pod affinity rules});
 *   <li>no pod selected by one of its required anti-affinity terms may run in the node's domain of that term
 *       ({@code node(s) didn't match pod anti-affinity rules}).
 * </ol>
 *
 * A term's namespaces are its {@code namespaces} and those its {@code namespaceSelector} selects; neither set means
 * the term owner's own namespace. {@code matchLabelKeys}/{@code mismatchLabelKeys} are not merged here: the API
 * server merges them into {@code labelSelector} when the pod is created (1.31+).
 */
final class InterPodAffinity implements FilterPlugin {

    static final String EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
    static final String AFFINITY = "node(s) didn't match pod affinity rules";
    static final String ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";

    private record TopologyPair(String key, String value) {}

    @Override
    public String name() {
        return "InterPodAffinity";
    }

    @Override
    public NodeFilter prepare(Pod pod, PlacementCluster cluster) {
        List<PodAffinityTerm> affinity = affinityTerms(pod);
        List<PodAffinityTerm> antiAffinity = antiAffinityTerms(pod);
        String namespace = pod.getMetadata().getNamespace();
        Map<String, String> podLabels = labels(pod);
        Map<TopologyPair, Integer> existingAnti = new HashMap<>();
        Map<TopologyPair, Integer> affinityCounts = new HashMap<>();
        Map<TopologyPair, Integer> antiCounts = new HashMap<>();
        for (PlacementNode node : cluster.nodes()) {
            for (PlacedPod existing : node.pods()) {
                for (PodAffinityTerm term : existing.antiAffinity()) {
                    if (selects(existing.namespace(), term, namespace, podLabels, cluster)) {
                        count(existingAnti, node, term.getTopologyKey());
                    }
                }
                if (!affinity.isEmpty()
                        && affinity.stream()
                                .allMatch(
                                        t -> selects(namespace, t, existing.namespace(), existing.labels(), cluster))) {
                    affinity.forEach(t -> count(affinityCounts, node, t.getTopologyKey()));
                }
                for (PodAffinityTerm term : antiAffinity) {
                    if (selects(namespace, term, existing.namespace(), existing.labels(), cluster)) {
                        count(antiCounts, node, term.getTopologyKey());
                    }
                }
            }
        }
        boolean selfMatch = affinity.stream().allMatch(t -> selects(namespace, t, namespace, podLabels, cluster));
        return node -> {
            Map<String, String> labels = node.labels();
            for (Map.Entry<String, String> l : labels.entrySet()) {
                if (existingAnti.getOrDefault(new TopologyPair(l.getKey(), l.getValue()), 0) > 0) {
                    return List.of(EXISTING_ANTI_AFFINITY);
                }
            }
            boolean podsExist = true;
            for (PodAffinityTerm term : affinity) {
                String value = labels.get(term.getTopologyKey());
                if (value == null) {
                    return List.of(AFFINITY);
                }
                if (affinityCounts.getOrDefault(new TopologyPair(term.getTopologyKey(), value), 0) <= 0) {
                    podsExist = false;
                }
            }
            if (!podsExist && !(affinityCounts.isEmpty() && selfMatch)) {
                return List.of(AFFINITY);
            }
            for (PodAffinityTerm term : antiAffinity) {
                String value = labels.get(term.getTopologyKey());
                if (value != null && antiCounts.getOrDefault(new TopologyPair(term.getTopologyKey(), value), 0) > 0) {
                    return List.of(ANTI_AFFINITY);
                }
            }
            return List.of();
        };
    }

    private static void count(Map<TopologyPair, Integer> counts, PlacementNode node, String topologyKey) {
        String value = node.labels().get(topologyKey);
        if (value != null) {
            counts.merge(new TopologyPair(topologyKey, value), 1, Integer::sum);
        }
    }

    /**
     * Does the term of a pod in namespace {@code owner} select a pod in namespace {@code ns} with {@code labels}
     * (namespace, then labels)?
     */
    static boolean selects(
            String owner, PodAffinityTerm term, String ns, Map<String, String> labels, PlacementCluster cluster) {
        List<String> namespaces = Resources.list(term.getNamespaces());
        boolean inNamespace;
        if (namespaces.isEmpty() && term.getNamespaceSelector() == null) {
            inNamespace = ns != null && ns.equals(owner);
        } else {
            inNamespace = namespaces.contains(ns)
                    || (term.getNamespaceSelector() != null
                            && Selectors.matches(term.getNamespaceSelector(), cluster.namespaceLabels(ns)));
        }
        return inNamespace && Selectors.matches(term.getLabelSelector(), labels);
    }

    static Map<String, String> labels(Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels();
        return labels == null ? Map.of() : labels;
    }

    private static List<PodAffinityTerm> affinityTerms(Pod pod) {
        Affinity a = pod.getSpec() == null ? null : pod.getSpec().getAffinity();
        return a == null || a.getPodAffinity() == null
                ? List.of()
                : Resources.list(a.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution());
    }

    private static List<PodAffinityTerm> antiAffinityTerms(Pod pod) {
        Affinity a = pod.getSpec() == null ? null : pod.getSpec().getAffinity();
        return a == null || a.getPodAntiAffinity() == null
                ? List.of()
                : Resources.list(a.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution());
    }
}
