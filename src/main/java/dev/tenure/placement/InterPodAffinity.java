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
 * A term's namespaces are its {@code namespaces} and those whose labels its {@code namespaceSelector} selects
 * ({@code {}}: every namespace); neither set (null or an empty list, and a null selector) means the term owner's own
 * namespace ({@code framework/types.go} {@code newAffinityTerm} and {@code getNamespacesFromPodAffinityTerm}, {@code
 * AffinityTerm.Matches}; the incoming pod's selectors resolved over the namespaces by {@code
 * mergeAffinityTermNamespacesIfNotEmpty}, an existing pod's matched against the labels of the incoming pod's namespace,
 * {@code GetNamespaceLabelsSnapshot}: empty for a namespace not found). When the caller could not read the
 * namespaces' labels ({@link PlacementCluster#namespacesNotRead}), a term whose selector needs them is left out: the
 * forecast does not guess. {@code matchLabelKeys}/{@code mismatchLabelKeys} are not merged here: the API server merges
 * them into {@code labelSelector} when the pod is created (1.31+).
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
        List<PodAffinityTerm> affinity = forecastable(affinityTerms(pod), cluster);
        List<PodAffinityTerm> antiAffinity = forecastable(antiAffinityTerms(pod), cluster);
        String namespace = pod.getMetadata().getNamespace();
        Map<String, String> podLabels = labels(pod);
        Map<TopologyPair, Integer> existingAnti = new HashMap<>();
        Map<TopologyPair, Integer> affinityCounts = new HashMap<>();
        Map<TopologyPair, Integer> antiCounts = new HashMap<>();
        for (PlacementNode node : cluster.nodes()) {
            for (PlacedPod existing : node.pods()) {
                for (PodAffinityTerm term : forecastable(existing.antiAffinity(), cluster)) {
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

    /** {@code terms} less those whose namespace selector needs labels the caller could not read. */
    private static List<PodAffinityTerm> forecastable(List<PodAffinityTerm> terms, PlacementCluster cluster) {
        if (terms.isEmpty() || cluster.namespacesNotRead().isEmpty()) {
            return terms;
        }
        return terms.stream().filter(t -> !readsNamespaceLabels(t)).toList();
    }

    /** Whether {@code term} selects namespaces by their labels (a {@code namespaceSelector} neither null nor {@code {}}). */
    static boolean readsNamespaceLabels(PodAffinityTerm term) {
        return Selectors.readsLabels(term.getNamespaceSelector());
    }

    static boolean readsNamespaceLabels(List<PodAffinityTerm> terms) {
        for (PodAffinityTerm t : terms) {
            if (readsNamespaceLabels(t)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a required affinity or anti-affinity term of {@code pod} selects namespaces by their labels. */
    static boolean readsNamespaceLabels(Pod pod) {
        return readsNamespaceLabels(affinityTerms(pod)) || readsNamespaceLabels(antiAffinityTerms(pod));
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
