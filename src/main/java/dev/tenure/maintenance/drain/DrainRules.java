package dev.tenure.maintenance.drain;

import dev.tenure.maintenance.api.DrainBehavior;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which behaviour and which wave each pod of a drain gets. Pure. Applied by {@link PodFilters} only to pods past the
 * deleted-long-ago, DaemonSet and mirror-pod filters (Cluster API's order): a rule never captures a DaemonSet or a
 * mirror pod.
 *
 * <p>Behaviour, first match wins: the pod label {@code tenure.dev/drain} with value {@code skip} or {@code
 * wait-completed}, any case, the hyphen optional (the pod's owner opts out, read as Cluster API reads {@code
 * cluster.x-k8s.io/drain}), then the
 * first rule of {@code spec.drain.rules} whose selectors match, then {@code Drain}. Any other value of the label is
 * not an opt-out: the pod is drained and the plan carries a warning naming the pod and the value (pods are not
 * admission-controlled by Tenure, so the value cannot be refused where it is written).
 *
 * <p>Order (the wave; lower first) comes from the maintenance only: a {@code Drain} rule's {@code order}, else the
 * default, which drains like kubectl: every ordinary pod in one wave ({@code 0}) whatever its priority, then
 * {@code system-cluster-critical} pods ({@link #CLUSTER_CRITICAL}), then {@code system-node-critical} and
 * DaemonSet-managed pods (when drained at all: orphaned, with force) ({@link #LAST}). A WaitCompleted pod is in wave
 * {@code 0} (a Skip or WaitCompleted rule has no order) and holds every later wave until it completes. Nothing on the
 * pod sets its order: the annotation {@code tenure.dev/drain-order} of earlier versions is ignored (a workload must
 * not reorder the cluster's drain), and named as ignored in the pod's reason.
 */
public record DrainRules(List<Rule> rules) {

    /** Pod label by which a pod opts out of being evicted (values {@value #SKIP_VALUE}, {@value #WAIT_VALUE}). */
    public static final String SKIP_LABEL = "tenure.dev/drain";

    /** {@link #SKIP_LABEL} value: never evicted, not waited for (any case). */
    public static final String SKIP_VALUE = "skip";
    /** {@link #SKIP_LABEL} value: never evicted, waited for until it completes (any case). */
    public static final String WAIT_VALUE = "wait-completed";
    /** Pod annotation that once set a pod's wave; ignored now (order comes from the maintenance only). */
    public static final String ORDER_ANNOTATION = "tenure.dev/drain-order";
    /** Namespace label kube-apiserver sets to the namespace's own name (since 1.21). */
    static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

    static final String NODE_CRITICAL = "system-node-critical";
    static final String CLUSTER_CRITICAL_CLASS = "system-cluster-critical";
    /**
     * kube-apiserver's priority values of the two system classes (scheduling/types.go: SystemCriticalPriority and
     * +1000); user-defined classes stop at 1,000,000,000, so a value this high is a system class's.
     */
    static final int SYSTEM_CLUSTER_CRITICAL_PRIORITY = 2_000_000_000;

    static final int SYSTEM_NODE_CRITICAL_PRIORITY = 2_000_001_000;
    /** The default order of system-cluster-critical pods: after the ordinary pods, before {@link #LAST}. */
    public static final int CLUSTER_CRITICAL = Integer.MAX_VALUE - 1;
    /** The default order of DaemonSet-managed and system-node-critical pods: after every other default. */
    public static final int LAST = Integer.MAX_VALUE;

    /** One resolved rule; a null selector matches everything. */
    public record Rule(
            LabelSelector namespaceSelector, LabelSelector podSelector, DrainBehavior behavior, Integer order) {
        public Rule {
            behavior = behavior == null ? DrainBehavior.Drain : behavior;
        }
    }

    /**
     * A pod's behaviour and wave, and why (for status and events).
     *
     * @param warning a problem with the pod's own signals to show as a Warning (an unknown {@link #SKIP_LABEL}
     *     value), null when none
     */
    public record Decision(DrainBehavior behavior, int order, String why, String warning) {
        public Decision(DrainBehavior behavior, int order, String why) {
            this(behavior, order, why, null);
        }
    }

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
        String ignored = ignoredAnnotation(pod);
        String label = labels.get(SKIP_LABEL);
        String warning = null;
        if (label != null) {
            if (label.equalsIgnoreCase(SKIP_VALUE)) {
                return new Decision(DrainBehavior.Skip, 0, "pod label " + SKIP_LABEL + "=" + label + ignored);
            }
            if (isWaitValue(label)) {
                return new Decision(
                        DrainBehavior.WaitCompleted, 0, "pod label " + SKIP_LABEL + "=" + label + "; wave 0" + ignored);
            }
            warning = "pod " + pod.getMetadata().getNamespace() + "/"
                    + pod.getMetadata().getName() + ": label "
                    + SKIP_LABEL + "=" + DrainReport.shown(label) + " is neither " + SKIP_VALUE + " nor "
                    + WAIT_VALUE + " (any case, the hyphen optional); the pod is drained";
        }
        Map<String, String> nsLabels = new HashMap<>(namespaceLabels == null ? Map.of() : namespaceLabels);
        nsLabels.putIfAbsent(NAMESPACE_NAME_LABEL, pod.getMetadata().getNamespace());
        for (int i = 0; i < rules.size(); i++) {
            Rule r = rules.get(i);
            if (PodFilters.selects(r.namespaceSelector(), nsLabels) && PodFilters.selects(r.podSelector(), labels)) {
                String rule = "spec.drain.rules[" + i + "] (" + r.behavior() + ")";
                if (r.behavior() != DrainBehavior.Drain) {
                    return new Decision(r.behavior(), 0, rule + "; wave 0" + ignored, warning);
                }
                Order order = r.order() != null
                        ? new Order(r.order(), "spec.drain.rules[" + i + "].order")
                        : defaultOrder(pod);
                return new Decision(
                        DrainBehavior.Drain, order.value(), rule + "; order from " + order.from() + ignored, warning);
            }
        }
        Order order = defaultOrder(pod);
        return new Decision(
                DrainBehavior.Drain, order.value(), "default (Drain); order from " + order.from() + ignored, warning);
    }

    /**
     * {@link #WAIT_VALUE} as Cluster API reads its {@code cluster.x-k8s.io/drain} value (drain/filters.go: one hyphen
     * dropped, then compared with {@code WaitCompleted} in any case), so the behaviour's own spelling {@code
     * WaitCompleted} opts out too instead of being evicted.
     */
    static boolean isWaitValue(String label) {
        return label.replaceFirst("-", "").equalsIgnoreCase("waitcompleted");
    }

    private record Order(int value, String from) {}

    private static String ignoredAnnotation(Pod pod) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        return annotations != null && annotations.containsKey(ORDER_ANNOTATION)
                ? " (annotation " + ORDER_ANNOTATION + " ignored: order comes from spec.drain.rules)"
                : "";
    }

    /** The default order, kubectl's single wave with the system pods after it. */
    private static Order defaultOrder(Pod pod) {
        OwnerReference controller = PodFilters.controllerOf(pod);
        if (PodFilters.isDaemonSet(controller)) {
            return new Order(LAST, "default: DaemonSet pods last");
        }
        String priorityClass = pod.getSpec() == null ? null : pod.getSpec().getPriorityClassName();
        Integer priority = pod.getSpec() == null ? null : pod.getSpec().getPriority();
        if (NODE_CRITICAL.equals(priorityClass) || (priority != null && priority >= SYSTEM_NODE_CRITICAL_PRIORITY)) {
            return new Order(LAST, "default: " + NODE_CRITICAL + " pods last");
        }
        if (CLUSTER_CRITICAL_CLASS.equals(priorityClass)
                || (priority != null && priority >= SYSTEM_CLUSTER_CRITICAL_PRIORITY)) {
            return new Order(CLUSTER_CRITICAL, "default: " + CLUSTER_CRITICAL_CLASS + " pods after the others");
        }
        return new Order(0, "default: one wave for every ordinary pod");
    }
}
