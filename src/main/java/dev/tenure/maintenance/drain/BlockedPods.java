package dev.tenure.maintenance.drain;

import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Why a pod the drain waits on is still on the node, as a cause class a platform team can act on, with the
 * PodDisruptionBudgets that select it and their numbers as the disruption controller keeps them in status (the numbers
 * kube-apiserver's eviction subresource decides with: pkg/registry/core/pod/storage/eviction.go). Pure: the caller
 * lists the budgets and remembers the eviction answers.
 *
 * <p>The classes, first match wins:
 *
 * <ol>
 *   <li>{@link Cause#NODE_UNREACHABLE}: the node's kubelet lease is stale and the pod is not Ready (or terminating):
 *       nothing on the node becomes Ready or finishes terminating until the kubelet is back;
 *   <li>{@link Cause#TWO_BUDGETS}: the eviction answered 500 "This pod has more than one PodDisruptionBudget, which the
 *       eviction subresource does not support." (eviction.go; kubectl drain stops on it): no eviction succeeds until
 *       one budget is removed or narrowed;
 *   <li>{@link Cause#NAMESPACE_TERMINATING}: the eviction answered 403 with cause {@code NamespaceTerminating}
 *       (plugin/pkg/admission/namespace/lifecycle): the namespace controller deletes the pod; kubectl drain retries;
 *   <li>{@link Cause#RECREATED_POD}: the eviction answered 409 (its UID precondition failed), or a pod of the same
 *       name was evicted before with another UID: a controller recreated it (a StatefulSet keeps names) and it is
 *       evicted again;
 *   <li>{@link Cause#REPLICAS_NOT_READY}: a PodDisruptionBudget refused the eviction (429) and some pods it selects are
 *       not healthy ({@code currentHealthy < expectedPods}): the budget frees once they are Ready;
 *   <li>{@link Cause#NO_SPARE_REPLICA}: a PodDisruptionBudget refused the eviction (429) with every selected pod
 *       healthy: {@code currentHealthy <= desiredHealthy}, the workload has no replica to spare; scale it up or relax
 *       the budget.
 * </ol>
 */
public final class BlockedPods {
    /** Budgets named per pod at most (status stays bounded); the rest are counted. */
    static final int BUDGETS_NAMED = 3;
    /** A budget or pod name longer than this is cut in messages (a name may have 253 characters). */
    static final int NAME_SHOWN = 80;

    private BlockedPods() {}

    /** The cause classes of a waiting drain (docs/troubleshooting.md "A drain that waits"). */
    public enum Cause {
        NO_SPARE_REPLICA("no spare replica"),
        REPLICAS_NOT_READY("replicas not Ready"),
        TWO_BUDGETS("two budgets (500)"),
        NAMESPACE_TERMINATING("namespace terminating (403)"),
        NODE_UNREACHABLE("node unreachable"),
        RECREATED_POD("recreated pod");

        private final String shown;

        Cause(String shown) {
            this.shown = shown;
        }

        /** The class as status, events and messages show it. */
        public String shown() {
            return shown;
        }
    }

    /**
     * One budget selecting the pod, with its status as read (null numbers: the disruption controller has not written
     * them yet).
     */
    public record Budget(
            String name,
            Integer currentHealthy,
            Integer desiredHealthy,
            Integer expectedPods,
            Integer disruptionsAllowed,
            String unhealthyPodEvictionPolicy) {

        static Budget of(PodDisruptionBudget pdb) {
            PodDisruptionBudgetStatus s = pdb.getStatus();
            String policy = pdb.getSpec() == null ? null : pdb.getSpec().getUnhealthyPodEvictionPolicy();
            return new Budget(
                    pdb.getMetadata().getNamespace() + "/" + pdb.getMetadata().getName(),
                    s == null ? null : s.getCurrentHealthy(),
                    s == null ? null : s.getDesiredHealthy(),
                    s == null ? null : s.getExpectedPods(),
                    s == null ? null : s.getDisruptionsAllowed(),
                    policy == null || policy.isEmpty() ? "IfHealthyBudget" : policy);
        }

        /** {@code ns/name (currentHealthy 1, desiredHealthy 1, disruptionsAllowed 0, ...)}. */
        public String shown() {
            String numbers = currentHealthy == null
                    ? "status not yet written by the disruption controller"
                    : "currentHealthy " + currentHealthy + ", desiredHealthy " + desiredHealthy + ", expectedPods "
                            + expectedPods + ", disruptionsAllowed " + disruptionsAllowed;
            return cut(name) + " (" + numbers + ", unhealthyPodEvictionPolicy " + unhealthyPodEvictionPolicy + ")";
        }
    }

    /** One waiting pod: its cause and the budgets that select it. */
    public record Blocked(String pod, Cause cause, List<Budget> budgets) {
        public Blocked {
            budgets = List.copyOf(budgets);
        }

        /** The cause and the budgets, as one bounded line (without the pod's name). */
        public String why() {
            String named =
                    budgets.stream().limit(BUDGETS_NAMED).map(Budget::shown).collect(Collectors.joining(", "));
            String more = budgets.size() > BUDGETS_NAMED ? " and " + (budgets.size() - BUDGETS_NAMED) + " more" : "";
            return cause.shown() + (budgets.isEmpty() ? "" : "; PodDisruptionBudget " + named + more);
        }

        /** {@code ns/name (cause; budgets)}. */
        public String shown() {
            return cut(pod) + " (" + why() + ")";
        }
    }

    /**
     * Why {@code v}, still on the node, waits; empty when nothing holds it yet (not sent, or evicted and terminating
     * on a healthy node).
     *
     * @param pod the pod as listed
     * @param refusal its last refused eviction ({@link PodDrain#refusals}), null if none
     * @param budgetsInNamespace the PodDisruptionBudgets of its namespace, as listed
     * @param nodeUnreachable the node's kubelet lease is stale
     * @param evictedUid the UID of a pod of the same name evicted before by this drain, null if none
     */
    public static Optional<Blocked> explain(
            PodVerdict v,
            Pod pod,
            String refusal,
            List<PodDisruptionBudget> budgetsInNamespace,
            boolean nodeUnreachable,
            String evictedUid) {
        List<Budget> budgets = budgetsInNamespace.stream()
                .filter(b -> BudgetSimulation.selects(b, pod))
                .map(Budget::of)
                .sorted(java.util.Comparator.comparing(Budget::name))
                .toList();
        boolean terminating = pod.getMetadata().getDeletionTimestamp() != null;
        Cause cause;
        if (nodeUnreachable && (terminating || !BudgetSimulation.ready(pod))) {
            cause = Cause.NODE_UNREACHABLE;
        } else if (refusal != null && refusal.contains(PodDrain.TWO_BUDGETS_MESSAGE)) {
            cause = Cause.TWO_BUDGETS;
        } else if (refusal != null && refusal.endsWith(PodDrain.NAMESPACE_TERMINATING_SUFFIX)) {
            cause = Cause.NAMESPACE_TERMINATING;
        } else if ((refusal != null && refusal.endsWith(PodDrain.PRECONDITION_SUFFIX))
                || (evictedUid != null && !evictedUid.equals(v.uid()) && !terminating)) {
            cause = Cause.RECREATED_POD;
        } else if (refusal != null) {
            boolean unready = budgets.stream()
                    .anyMatch(b -> b.currentHealthy() != null
                            && b.expectedPods() != null
                            && b.currentHealthy() < b.expectedPods());
            cause = unready || !BudgetSimulation.ready(pod) ? Cause.REPLICAS_NOT_READY : Cause.NO_SPARE_REPLICA;
        } else {
            return Optional.empty();
        }
        return Optional.of(new Blocked(v.key(), cause, budgets));
    }

    private static String cut(String s) {
        return s.length() > NAME_SHOWN ? s.substring(0, NAME_SHOWN) + "..." : s;
    }
}
