package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Optional;

/**
 * kube-scheduler's {@code TaintToleration} ({@code plugins/tainttoleration/taint_toleration.go}): the first taint with
 * effect {@code NoSchedule} or {@code NoExecute} the pod does not tolerate refuses the node; tolerations match as
 * {@code v1.Toleration.ToleratesTaint} does ({@code k8s.io/api/core/v1/toleration.go}: an empty effect matches every
 * effect, an empty key with {@code Exists} every key, {@code Exists} any value, {@code Equal} (the default) the same
 * value). The message is v1.25-v1.32's, which names the taint.
 */
final class TaintToleration implements FilterPlugin {

    @Override
    public String name() {
        return "TaintToleration";
    }

    @Override
    public NodeFilter prepare(Pod pod, PlacementCluster cluster) {
        return node ->
                untolerated(pod, node.taints()).map(t -> List.of(reason(t))).orElse(List.of());
    }

    static String reason(Taint taint) {
        return "node(s) had untolerated taint {" + taint.getKey() + ": " + nullToEmpty(taint.getValue()) + "}";
    }

    /** The first NoSchedule or NoExecute taint the pod does not tolerate. */
    static Optional<Taint> untolerated(Pod pod, List<Taint> taints) {
        return taints.stream()
                .filter(t -> "NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect()))
                .filter(t -> !tolerates(pod, t))
                .findFirst();
    }

    static boolean tolerates(Pod pod, Taint taint) {
        List<Toleration> tolerations =
                pod.getSpec() == null ? List.of() : Resources.list(pod.getSpec().getTolerations());
        return tolerations.stream().anyMatch(t -> tolerates(t, taint));
    }

    static boolean tolerates(Toleration t, Taint taint) {
        if (!isEmpty(t.getEffect()) && !t.getEffect().equals(taint.getEffect())) {
            return false;
        }
        if (!isEmpty(t.getKey()) && !t.getKey().equals(taint.getKey())) {
            return false;
        }
        String operator = isEmpty(t.getOperator()) ? "Equal" : t.getOperator();
        return switch (operator) {
            case "Exists" -> true;
            case "Equal" -> nullToEmpty(t.getValue()).equals(nullToEmpty(taint.getValue()));
            default -> false;
        };
    }

    private static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
