package dev.tenure.maintenance.drain;

import dev.tenure.maintenance.api.DrainBehavior;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which behaviour and which wave each pod of a drain gets. Pure.
 *
 * <p>Behaviour, first match wins: the pod label {@code tenure.dev/drain=skip} (the pod's owner opts out, as Cluster
 * API's {@code cluster.x-k8s.io/drain: skip}), then the first rule of {@code spec.drain.rules} whose selectors
 * match, then {@code Drain}.
 *
 * <p>Order (the wave; lower first): the matching rule's {@code order}, else the pod annotation
 * {@code tenure.dev/drain-order} (an integer), else KEP-4212's default, priority ascending: the pod's
 * {@code spec.priority} (0 when unset), except DaemonSet-managed and {@code system-node-critical} pods, which go
 * last ({@link #LAST}).
 */
public record DrainRules(List<Rule> rules) {

    /** Pod label by which a pod opts out of every drain (value {@value #SKIP_VALUE}). */
    public static final String SKIP_LABEL = "tenure.dev/drain";

    public static final String SKIP_VALUE = "skip";
    /** Pod annotation naming the pod's wave (an integer) when no rule sets one. */
    public static final String ORDER_ANNOTATION = "tenure.dev/drain-order";
    /** Namespace label kube-apiserver sets to the namespace's own name (since 1.21). */
    static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

    static final String NODE_CRITICAL = "system-node-critical";
    /** The default order of DaemonSet-managed and system-node-critical pods: after every other default. */
    public static final int LAST = Integer.MAX_VALUE;

    /** One resolved rule; a null selector matches everything. */
    public record Rule(
            LabelSelector namespaceSelector, LabelSelector podSelector, DrainBehavior behavior, Integer order) {
        public Rule {
            behavior = behavior == null ? DrainBehavior.Drain : behavior;
        }
    }

    /** A pod's behaviour and wave, and why (for status and events). */
    public record Decision(DrainBehavior behavior, int order, String why) {}

    public DrainRules {
        rules = List.copyOf(rules);
    }

    public static DrainRules none() {
        return new DrainRules(List.of());
    }

    /** Some rule selects by namespace labels: the caller must read the pods' namespaces. */
    public boolean readsNamespaces() {
        return rules.stream().anyMatch(r -> r.namespaceSelector() != null);
    }

    /**
     * What the rules decide for {@code pod}: its behaviour and its wave.
     *
     * @param namespaceLabels the labels of the pod's namespace (null when not read or gone: then only
     *     {@code kubernetes.io/metadata.name}, which kube-apiserver sets on every namespace)
     */
    public Decision decide(Pod pod, Map<String, String> namespaceLabels) {
        Map<String, String> labels = pod.getMetadata().getLabels() == null
                ? Map.of()
                : pod.getMetadata().getLabels();
        Map<String, String> nsLabels = new HashMap<>(namespaceLabels == null ? Map.of() : namespaceLabels);
        nsLabels.putIfAbsent(NAMESPACE_NAME_LABEL, pod.getMetadata().getNamespace());
        Rule match = null;
        int index = -1;
        for (int i = 0; i < rules.size(); i++) {
            Rule r = rules.get(i);
            if (PodFilters.selects(r.namespaceSelector(), nsLabels) && PodFilters.selects(r.podSelector(), labels)) {
                match = r;
                index = i;
                break;
            }
        }
        Order order = match != null && match.order() != null
                ? new Order(match.order(), "spec.drain.rules[" + index + "].order")
                : orderOf(pod);
        if (SKIP_VALUE.equals(labels.get(SKIP_LABEL))) {
            return new Decision(DrainBehavior.Skip, order.value(), "pod label " + SKIP_LABEL + "=" + SKIP_VALUE);
        }
        if (match != null) {
            return new Decision(
                    match.behavior(),
                    order.value(),
                    "spec.drain.rules[" + index + "] (" + match.behavior() + "); order from " + order.from());
        }
        return new Decision(DrainBehavior.Drain, order.value(), "default (Drain); order from " + order.from());
    }

    private record Order(int value, String from) {}

    /** The order without a rule's: the pod's annotation, else the default. */
    private static Order orderOf(Pod pod) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        String annotated = annotations == null ? null : annotations.get(ORDER_ANNOTATION);
        String invalid = "";
        if (annotated != null) {
            try {
                return new Order(Integer.parseInt(annotated.trim()), "annotation " + ORDER_ANNOTATION);
            } catch (NumberFormatException e) {
                invalid = " (annotation " + ORDER_ANNOTATION + " is not an integer: " + DrainReport.shown(annotated)
                        + ")";
            }
        }
        OwnerReference controller = PodFilters.controllerOf(pod);
        if (controller != null && "DaemonSet".equals(controller.getKind())) {
            return new Order(LAST, "default: DaemonSet pods last" + invalid);
        }
        if (pod.getSpec() != null && NODE_CRITICAL.equals(pod.getSpec().getPriorityClassName())) {
            return new Order(LAST, "default: " + NODE_CRITICAL + " pods last" + invalid);
        }
        Integer priority = pod.getSpec() == null ? null : pod.getSpec().getPriority();
        return new Order(priority == null ? 0 : priority, "default: priority" + invalid);
    }
}
