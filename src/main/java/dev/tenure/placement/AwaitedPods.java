package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The pods whose arrival may give room to pods that fit nowhere (issue 49): a pod arriving only takes room, except for
 * a pod that a stranded pod's required pod affinity term selects ({@code InterPodAffinity}: the domain it joins may
 * now satisfy the term) or that one of its {@code DoNotSchedule} spread constraints counts ({@code PodTopologySpread}:
 * it may raise the smallest domain's count, so the skew elsewhere drops). A pod that becomes bound, or whose labels
 * change, "arrives" in the same sense. Pure; what the pod watch asks before it wakes a waiting maintenance.
 *
 * <p>Namespaces are read as the filters read them (a term's {@code namespaces}, else the pod's own), except that a
 * term with a {@code namespaceSelector} is taken to match every namespace: the watch does not know namespace labels,
 * and a wake-up too many costs one forecast, one too few a wait until the recheck.
 */
public final class AwaitedPods {

    /** Nothing awaited: no arrival opens room. */
    public static final AwaitedPods NONE = new AwaitedPods(List.of());

    private record Awaited(String owner, List<String> namespaces, boolean anyNamespace, LabelSelector pods) {}

    private final List<Awaited> awaited;

    private AwaitedPods(List<Awaited> awaited) {
        this.awaited = awaited;
    }

    /** What the arrival of which pods may change for {@code stranded} (pods that fit nowhere). */
    public static AwaitedPods of(Collection<Pod> stranded) {
        List<Awaited> out = new ArrayList<>();
        for (Pod pod : stranded) {
            String ns = pod.getMetadata().getNamespace();
            Affinity a = pod.getSpec() == null ? null : pod.getSpec().getAffinity();
            if (a != null && a.getPodAffinity() != null) {
                for (PodAffinityTerm t :
                        Resources.list(a.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())) {
                    out.add(new Awaited(
                            ns,
                            Resources.list(t.getNamespaces()),
                            t.getNamespaceSelector() != null,
                            t.getLabelSelector()));
                }
            }
            if (pod.getSpec() != null) {
                for (TopologySpreadConstraint c : Resources.list(pod.getSpec().getTopologySpreadConstraints())) {
                    if ("DoNotSchedule".equals(c.getWhenUnsatisfiable())) {
                        out.add(new Awaited(ns, List.of(), false, c.getLabelSelector()));
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
            boolean inNamespace = a.anyNamespace()
                    || (a.namespaces().isEmpty()
                            ? java.util.Objects.equals(a.owner(), namespace)
                            : a.namespaces().contains(namespace));
            if (inNamespace && Selectors.matches(a.pods(), l)) {
                return true;
            }
        }
        return false;
    }
}
