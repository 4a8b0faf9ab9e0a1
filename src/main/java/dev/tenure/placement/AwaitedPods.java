package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The pods whose arrival may give room to pods that fit nowhere (issue 49): a pod arriving only takes room, except for
 * a pod that a stranded pod's required pod affinity term selects ({@code InterPodAffinity}: the domain it joins may
 * now satisfy the term) or that one of its {@code DoNotSchedule} spread constraints counts ({@code PodTopologySpread}:
 * it may raise the smallest domain's count, so the skew elsewhere drops). A pod that becomes bound, or whose labels
 * change, "arrives" in the same sense. Pure; what the pod watch asks before it wakes a waiting maintenance.
 *
 * <p>Namespaces are read as the filters read them: a term's {@code namespaces}, and those its {@code namespaceSelector}
 * selects by the labels the forecast read ({@code {}}: every one), else the pod's own. The selector is resolved when
 * the forecast is made, as kube-scheduler resolves it at PreFilter ({@code mergeAffinityTermNamespacesIfNotEmpty}); a
 * namespace the forecast did not know (created since), or every namespace when the labels were not read, is taken to
 * match: a wake-up too many costs one forecast, one too few a wait until the recheck.
 */
public final class AwaitedPods {

    /** Nothing awaited: no arrival opens room. */
    public static final AwaitedPods NONE = new AwaitedPods(List.of());

    /**
     * One awaited selection: pods with labels {@code pods} in {@code owner}'s namespace (no namespaces named, none
     * selected), in one of {@code namespaces}, or, with a selector, in a namespace {@code known} does not hold.
     */
    private record Awaited(
            String owner, Set<String> namespaces, boolean bySelector, Set<String> known, LabelSelector pods) {

        boolean inNamespace(String namespace) {
            if (namespaces.isEmpty() && !bySelector) {
                return Objects.equals(owner, namespace);
            }
            return namespaces.contains(namespace) || (bySelector && (known == null || !known.contains(namespace)));
        }
    }

    private final List<Awaited> awaited;

    private AwaitedPods(List<Awaited> awaited) {
        this.awaited = awaited;
    }

    /**
     * What the arrival of which pods may change for {@code stranded} (pods that fit nowhere), with no namespace labels
     * known: a term with a {@code namespaceSelector} is taken to match every namespace.
     */
    public static AwaitedPods of(Collection<Pod> stranded) {
        return of(stranded, null);
    }

    /**
     * What the arrival of which pods may change for {@code stranded} (pods that fit nowhere), a term's {@code
     * namespaceSelector} resolved over {@code namespaceLabels} (labels by namespace name, as the forecast read them;
     * null: not read, so the selector is taken to match every namespace).
     */
    public static AwaitedPods of(Collection<Pod> stranded, Map<String, Map<String, String>> namespaceLabels) {
        Set<String> known = namespaceLabels == null ? null : Set.copyOf(namespaceLabels.keySet());
        List<Awaited> out = new ArrayList<>();
        for (Pod pod : stranded) {
            String ns = pod.getMetadata().getNamespace();
            Affinity a = pod.getSpec() == null ? null : pod.getSpec().getAffinity();
            if (a != null && a.getPodAffinity() != null) {
                for (PodAffinityTerm t :
                        Resources.list(a.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())) {
                    Set<String> namespaces = new HashSet<>(Resources.list(t.getNamespaces()));
                    LabelSelector selector = t.getNamespaceSelector();
                    boolean bySelector = selector != null;
                    if (bySelector && known != null) {
                        namespaceLabels.forEach((name, labels) -> {
                            if (Selectors.matches(selector, labels == null ? Map.of() : labels)) {
                                namespaces.add(name);
                            }
                        });
                    }
                    out.add(new Awaited(ns, Set.copyOf(namespaces), bySelector, known, t.getLabelSelector()));
                }
            }
            if (pod.getSpec() != null) {
                for (TopologySpreadConstraint c : Resources.list(pod.getSpec().getTopologySpreadConstraints())) {
                    if ("DoNotSchedule".equals(c.getWhenUnsatisfiable())) {
                        out.add(new Awaited(ns, Set.of(), false, known, c.getLabelSelector()));
                    }
                }
            }
        }
        return out.isEmpty() ? NONE : new AwaitedPods(List.copyOf(out));
    }

    /** Whether no arrival can open room. */
    public boolean isEmpty() {
        return awaited.isEmpty();
    }

    /** Whether a pod in {@code namespace} with {@code labels}, arriving on a node, may open room. */
    public boolean opensRoom(String namespace, Map<String, String> labels) {
        Map<String, String> l = labels == null ? Map.of() : labels;
        for (Awaited a : awaited) {
            if (a.inNamespace(namespace) && Selectors.matches(a.pods(), l)) {
                return true;
            }
        }
        return false;
    }
}
