package dev.tenure.maintenance.drain;

import dev.tenure.placement.PlacementForecast;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether a pod whose PodDisruptionBudget allows no eviction can be moved by a surge ({@code spec.drain.evacuation:
 * Surge}, issue 51): scale its workload up by its pods on the node, wait until that many new pods are available
 * elsewhere, evict, give the replicas back. Pure: the caller reads the pod's budget, its owner chain (Pod → ReplicaSet
 * → Deployment, or a ReplicaSet without one), the namespace's HorizontalPodAutoscalers and the placement forecast, and
 * checks the opt-in role.
 *
 * <p>A surge is for the one case the budget model calls "no spare replica" ({@link BlockedPods.Cause#NO_SPARE_REPLICA}):
 * exactly one budget selects the pod (two: the eviction API answers 500 whatever they allow), the disruption controller
 * has counted it, every pod it expects is healthy ({@code currentHealthy >= expectedPods}) and it allows no disruption
 * ({@code disruptionsAllowed} 0). A budget short of healthy pods frees by itself once they are Ready; a surge would
 * only add to what is not Ready.
 *
 * <p>Then the reasons a workload cannot surge, first match wins (each {@link Reason} named in the preview before the
 * drain starts): a bare pod and a StatefulSet (identity and storage are per pod: a surge pod is not a replacement), a
 * controller other than a ReplicaSet (DaemonSet, Job, a custom controller), the ReplicaSet or its Deployment not
 * found, the workload opting out ({@value #OPT_OUT} other than {@code "true"}), a {@code Recreate} Deployment (its
 * own updates never run old and new pods together), a Deployment mid-rollout (kubectl rollout status's conditions: a
 * generation not yet observed, updated or available replicas short of the spec, old replicas still running: scaling
 * then spreads over old and new ReplicaSets), the Deployment's own {@code maxSurge} (rounded up, as the Deployment
 * controller's {@code ResolveFenceposts} rounds it) smaller than the pods to add, a budget the surge would not free
 * ({@link #stillNoDisruption}: {@code maxUnavailable: 0} refuses every eviction whatever the replicas), a
 * HorizontalPodAutoscaler on the
 * workload (at {@code maxReplicas}: the named case, a surge cannot fit under it; below it refused as well, by
 * decision: the HPA owns the replicas and would rewrite those a surge raised, and raising its {@code minReplicas}
 * instead would write an object its owner manages and give back through the HPA's scale-down, whose timing and pod
 * choice are the HPA's, not an exact give-back: docs/node-maintenance.md), and the forecast saying the
 * pod fits on no node that stays schedulable. The operator lacking the opt-in role is checked right after the pod's own
 * reasons (bare pod, StatefulSet, another controller): the workload is read with that role's rights.
 */
public final class SurgePlanner {

    /**
     * The workload annotation that opts a Deployment (or a ReplicaSet without one) out of surges: any value but {@code
     * "true"} (e.g. {@code "false"}) opts out.
     */
    public static final String OPT_OUT = "tenure.dev/surge";

    /** The Deployment's default {@code spec.strategy.rollingUpdate.maxSurge} (apps/v1). */
    static final String DEFAULT_MAX_SURGE = "25%";

    private SurgePlanner() {}

    /** Why a workload cannot surge, with the name status, events and metrics show. */
    public enum Reason {
        BARE_POD("bare pod"),
        STATEFUL_SET("StatefulSet"),
        OTHER_CONTROLLER("not a ReplicaSet's pod"),
        OWNER_NOT_FOUND("owner not found"),
        OPTED_OUT("opted out"),
        RECREATE("Recreate strategy"),
        MID_ROLLOUT("mid-rollout"),
        MAX_SURGE("maxSurge too small"),
        BUDGET_FORBIDS("budget forbids it"),
        HPA_AT_MAX("HPA at maxReplicas"),
        HPA_MANAGED("HPA-managed"),
        WOULD_NOT_FIT("would not fit (forecast)"),
        NO_SURGE_ROLE("no surge role");

        private final String shown;

        Reason(String shown) {
            this.shown = shown;
        }

        /** The reason as status, events and messages show it. */
        public String shown() {
            return shown;
        }

        /** A bounded metric label. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** The workload a surge scales: a Deployment, or a ReplicaSet without one. */
    public record Target(String kind, String namespace, String name) {
        public Target {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(name, "name");
        }

        /** {@code Deployment ns/name}. */
        public String shown() {
            return kind + " " + namespace + "/" + name;
        }
    }

    /** The answer for one pod. */
    public sealed interface Decision {
        /** As the preview and status show it. */
        String shown();
    }

    /**
     * Surge: scale {@code target} from {@code replicas} to {@code replicas + add}.
     *
     * @param add the workload's pods on the node (the pods the budget holds there)
     */
    public record Surge(Target target, int replicas, int add) implements Decision {
        @Override
        public String shown() {
            return "surge " + target.shown() + " by " + add + " (replicas " + replicas + " -> " + (replicas + add)
                    + ")";
        }
    }

    /** The workload cannot surge: the pod is evicted as with {@code evacuation: Evict}. */
    public record CannotSurge(Reason reason, String detail) implements Decision {
        @Override
        public String shown() {
            return "cannot surge: " + reason.shown() + (detail.isEmpty() ? "" : " (" + detail + ")");
        }
    }

    /** No surge is called for: the budget is not the "no spare replica" case. */
    public record NotNeeded(String why) implements Decision {
        @Override
        public String shown() {
            return "no surge: " + why;
        }
    }

    /**
     * What the planner reads about one pod.
     *
     * @param pod the pod as listed on the node
     * @param budgets the PodDisruptionBudgets of its namespace
     * @param replicaSet its controlling ReplicaSet as read, empty when it has none or it is gone
     * @param deployment the Deployment controlling that ReplicaSet, empty when none or gone
     * @param autoscalers the HorizontalPodAutoscalers of its namespace
     * @param podsOnNode the workload's pods on the node the drain still has to move (at least 1: this one)
     * @param fit the placement forecast's verdict for this pod; null when none was made ({@code placement: Ignore})
     * @param surgeRole whether the operator holds the opt-in surge role (a SelfSubjectAccessReview said so)
     */
    public record Observed(
            Pod pod,
            List<PodDisruptionBudget> budgets,
            Optional<ReplicaSet> replicaSet,
            Optional<Deployment> deployment,
            List<HorizontalPodAutoscaler> autoscalers,
            int podsOnNode,
            PlacementForecast.Verdict fit,
            boolean surgeRole) {
        public Observed {
            budgets = List.copyOf(budgets);
            autoscalers = List.copyOf(autoscalers);
            if (podsOnNode < 1) {
                throw new IllegalArgumentException("podsOnNode: at least 1 (the pod itself), was " + podsOnNode);
            }
        }
    }

    /** The decision for one pod (first match wins; see the class comment). */
    public static Decision decide(Observed o) {
        Optional<String> notNeeded = notNoSpareReplica(o.pod(), o.budgets());
        if (notNeeded.isPresent()) {
            return new NotNeeded(notNeeded.get());
        }
        OwnerReference controller = PodFilters.controllerOf(o.pod());
        if (controller == null) {
            return new CannotSurge(Reason.BARE_POD, "no controller recreates it");
        }
        if ("StatefulSet".equals(controller.getKind())) {
            return new CannotSurge(Reason.STATEFUL_SET, "StatefulSet " + controller.getName());
        }
        if (!"ReplicaSet".equals(controller.getKind())) {
            return new CannotSurge(Reason.OTHER_CONTROLLER, controller.getKind() + " " + controller.getName());
        }
        if (!o.surgeRole()) {
            // the workload is read with the role's rights: without them, nothing past the pod is known
            return new CannotSurge(
                    Reason.NO_SURGE_ROLE, "bind the ClusterRole tenure-operator-surge to the operator's account");
        }
        String ns = o.pod().getMetadata().getNamespace();
        if (o.replicaSet().isEmpty()
                || !Objects.equals(o.replicaSet().get().getMetadata().getUid(), controller.getUid())) {
            return new CannotSurge(Reason.OWNER_NOT_FOUND, "ReplicaSet " + ns + "/" + controller.getName());
        }
        ReplicaSet rs = o.replicaSet().get();
        OwnerReference rsController = controllerOf(rs.getMetadata());
        boolean underDeployment = rsController != null && "Deployment".equals(rsController.getKind());
        if (rsController != null && !underDeployment) {
            return new CannotSurge(
                    Reason.OTHER_CONTROLLER,
                    "ReplicaSet " + rs.getMetadata().getName() + " is controlled by " + rsController.getKind() + " "
                            + rsController.getName());
        }
        if (underDeployment
                && (o.deployment().isEmpty()
                        || !Objects.equals(o.deployment().get().getMetadata().getUid(), rsController.getUid()))) {
            return new CannotSurge(Reason.OWNER_NOT_FOUND, "Deployment " + ns + "/" + rsController.getName());
        }
        Target target;
        ObjectMeta meta;
        int replicas;
        if (underDeployment) {
            Deployment d = o.deployment().get();
            meta = d.getMetadata();
            target = new Target("Deployment", ns, meta.getName());
            replicas = replicasOf(d.getSpec() == null ? null : d.getSpec().getReplicas());
        } else {
            meta = rs.getMetadata();
            target = new Target("ReplicaSet", ns, meta.getName());
            replicas = replicasOf(rs.getSpec() == null ? null : rs.getSpec().getReplicas());
        }
        String optOut =
                meta.getAnnotations() == null ? null : meta.getAnnotations().get(OPT_OUT);
        if (optOut != null && !"true".equals(optOut)) {
            return new CannotSurge(Reason.OPTED_OUT, target.shown() + " has " + OPT_OUT + ": \"" + optOut + "\"");
        }
        if (underDeployment) {
            Deployment d = o.deployment().get();
            if (d.getSpec() != null
                    && d.getSpec().getStrategy() != null
                    && "Recreate".equals(d.getSpec().getStrategy().getType())) {
                return new CannotSurge(Reason.RECREATE, target.shown());
            }
            Optional<String> rollout = midRollout(d, replicas);
            if (rollout.isPresent()) {
                return new CannotSurge(Reason.MID_ROLLOUT, target.shown() + ": " + rollout.get());
            }
            int maxSurge = maxSurge(d, replicas);
            if (maxSurge < o.podsOnNode()) {
                return new CannotSurge(
                        Reason.MAX_SURGE,
                        target.shown() + " allows " + maxSurge + " pod(s) above its replicas, " + o.podsOnNode()
                                + " are on the node");
            }
        }
        Optional<String> forbids = stillNoDisruption(o.pod(), o.budgets(), o.podsOnNode());
        if (forbids.isPresent()) {
            return new CannotSurge(Reason.BUDGET_FORBIDS, forbids.get());
        }
        Optional<HorizontalPodAutoscaler> hpa =
                o.autoscalers().stream().filter(h -> scales(h, target)).findFirst();
        if (hpa.isPresent()) {
            HorizontalPodAutoscaler h = hpa.get();
            Integer current = h.getStatus() == null ? null : h.getStatus().getCurrentReplicas();
            Integer max = h.getSpec() == null ? null : h.getSpec().getMaxReplicas();
            String named =
                    "HorizontalPodAutoscaler " + ns + "/" + h.getMetadata().getName();
            if (max != null && Math.max(replicas, current == null ? 0 : current) + o.podsOnNode() > max) {
                return new CannotSurge(
                        Reason.HPA_AT_MAX, named + " allows at most " + max + " replicas, " + replicas + " now");
            }
            return new CannotSurge(
                    Reason.HPA_MANAGED,
                    named + " sets the replicas: a surge would be rewritten by it (Tenure does not write autoscalers)");
        }
        if (o.fit() == PlacementForecast.Verdict.DOES_NOT_FIT || o.fit() == PlacementForecast.Verdict.PINNED) {
            return new CannotSurge(Reason.WOULD_NOT_FIT, "the placement forecast says " + o.fit());
        }
        return new Surge(target, replicas, o.podsOnNode());
    }

    /**
     * Whether the pod's one budget would still allow no disruption with {@code add} more pods, all healthy: the
     * disruption controller's arithmetic ({@code disruptionsAllowed = currentHealthy - desiredHealthy}, with
     * {@code desiredHealthy} = {@code minAvailable}, or {@code expectedPods - maxUnavailable}, a percentage of
     * {@code expectedPods} rounded up either way, as {@code intstr.GetScaledValueFromIntOrPercent(.., true)} in
     * kube-controller-manager's disruption controller). A {@code maxUnavailable: 0} budget (or {@code minAvailable:
     * 100%}) refuses every eviction whatever the replicas: a surge there would only hold extra pods until the drain's
     * timeout. Called for the "no spare replica" case only ({@link #notNoSpareReplica} empty).
     *
     * @return why the surge would not free the budget; empty when it would
     */
    static Optional<String> stillNoDisruption(Pod pod, List<PodDisruptionBudget> budgets, int add) {
        PodDisruptionBudget b = budgets.stream()
                .filter(x -> BudgetSimulation.selects(x, pod))
                .findFirst()
                .orElseThrow();
        int expected = b.getStatus().getExpectedPods() + add;
        int healthy = b.getStatus().getCurrentHealthy() + add;
        IntOrString min = b.getSpec() == null ? null : b.getSpec().getMinAvailable();
        IntOrString max = b.getSpec() == null ? null : b.getSpec().getMaxUnavailable();
        int desired;
        String rule;
        if (max != null) {
            desired = expected - scaled(max, expected);
            rule = "maxUnavailable " + max.getValue();
        } else if (min != null) {
            desired = scaled(min, expected);
            rule = "minAvailable " + min.getValue();
        } else {
            return Optional.empty(); // neither set: the API server refuses such a budget; nothing to add here
        }
        if (healthy - desired > 0) {
            return Optional.empty();
        }
        return Optional.of("PodDisruptionBudget " + b.getMetadata().getNamespace() + "/"
                + b.getMetadata().getName() + " (" + rule + ") would still allow no disruption with " + add
                + " more healthy pod(s): " + healthy + " healthy, " + desired + " desired");
    }

    /** An int-or-percent of {@code total}, a percentage rounded up (the disruption controller's rounding). */
    private static int scaled(IntOrString v, int total) {
        if (v.getIntVal() != null) {
            return v.getIntVal();
        }
        String s = v.getStrVal() == null ? "" : v.getStrVal().trim();
        if (s.endsWith("%")) {
            try {
                int percent = Integer.parseInt(s.substring(0, s.length() - 1).trim());
                return (int) Math.ceil(percent * (double) total / 100);
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * Empty when the pod's budgets are the "no spare replica" case; else why no surge is called for (no budget, two,
     * one not counted, one short of healthy pods, one that allows an eviction).
     */
    static Optional<String> notNoSpareReplica(Pod pod, List<PodDisruptionBudget> budgets) {
        List<PodDisruptionBudget> selecting =
                budgets.stream().filter(b -> BudgetSimulation.selects(b, pod)).toList();
        if (selecting.isEmpty()) {
            return Optional.of("no PodDisruptionBudget selects it");
        }
        if (selecting.size() > 1) {
            return Optional.of("more than one PodDisruptionBudget selects it (the eviction API refuses it)");
        }
        PodDisruptionBudget b = selecting.get(0);
        PodDisruptionBudgetStatus s = b.getStatus();
        String name = b.getMetadata().getNamespace() + "/" + b.getMetadata().getName();
        Long generation = b.getMetadata().getGeneration();
        if (s == null
                || s.getDisruptionsAllowed() == null
                || s.getCurrentHealthy() == null
                || s.getExpectedPods() == null
                || (generation != null
                        && s.getObservedGeneration() != null
                        && s.getObservedGeneration() < generation)) {
            return Optional.of(name + " is not yet counted by the disruption controller");
        }
        if (s.getDisruptionsAllowed() > 0) {
            return Optional.of(name + " allows " + s.getDisruptionsAllowed() + " disruption(s)");
        }
        if (s.getCurrentHealthy() < s.getExpectedPods() || !BudgetSimulation.ready(pod)) {
            return Optional.of(name + " has pods not Ready (currentHealthy " + s.getCurrentHealthy() + " of "
                    + s.getExpectedPods() + "): it frees once they are");
        }
        return Optional.empty();
    }

    /** kubectl rollout status's "not done" conditions, first found; empty when the rollout is complete. */
    static Optional<String> midRollout(Deployment d, int replicas) {
        DeploymentStatus s = d.getStatus();
        Long generation = d.getMetadata().getGeneration();
        if (s == null) {
            return Optional.of("no status written by the Deployment controller");
        }
        if (generation != null && (s.getObservedGeneration() == null || s.getObservedGeneration() < generation)) {
            return Optional.of("generation " + generation + " not yet observed");
        }
        int updated = orZero(s.getUpdatedReplicas());
        if (updated < replicas) {
            return Optional.of(updated + " of " + replicas + " replicas updated");
        }
        if (orZero(s.getReplicas()) > updated) {
            return Optional.of((orZero(s.getReplicas()) - updated) + " old replica(s) pending termination");
        }
        if (orZero(s.getAvailableReplicas()) < updated) {
            return Optional.of(orZero(s.getAvailableReplicas()) + " of " + updated + " updated replicas available");
        }
        return Optional.empty();
    }

    /**
     * The Deployment's {@code maxSurge} in pods: a number, or a percentage of {@code replicas} rounded up (the
     * Deployment controller's {@code ResolveFenceposts}); 25% when unset. A malformed value counts as 0.
     */
    static int maxSurge(Deployment d, int replicas) {
        IntOrString v = d.getSpec() == null
                        || d.getSpec().getStrategy() == null
                        || d.getSpec().getStrategy().getRollingUpdate() == null
                ? null
                : d.getSpec().getStrategy().getRollingUpdate().getMaxSurge();
        if (v == null) {
            v = new IntOrString(DEFAULT_MAX_SURGE);
        }
        if (v.getIntVal() != null) {
            return Math.max(0, v.getIntVal());
        }
        String s = v.getStrVal() == null ? "" : v.getStrVal().trim();
        try {
            if (s.endsWith("%")) {
                int percent = Integer.parseInt(s.substring(0, s.length() - 1));
                return Math.max(0, (int) Math.ceil(percent * (double) replicas / 100));
            }
            return Math.max(0, Integer.parseInt(s));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static boolean scales(HorizontalPodAutoscaler h, Target target) {
        var ref = h.getSpec() == null ? null : h.getSpec().getScaleTargetRef();
        return ref != null
                && target.kind().equals(ref.getKind())
                && target.name().equals(ref.getName());
    }

    private static OwnerReference controllerOf(ObjectMeta meta) {
        return meta.getOwnerReferences() == null
                ? null
                : meta.getOwnerReferences().stream()
                        .filter(r -> Boolean.TRUE.equals(r.getController()))
                        .findFirst()
                        .orElse(null);
    }

    private static int replicasOf(Integer replicas) {
        return replicas == null ? 1 : replicas;
    }

    private static int orZero(Integer i) {
        return i == null ? 0 : i;
    }
}
