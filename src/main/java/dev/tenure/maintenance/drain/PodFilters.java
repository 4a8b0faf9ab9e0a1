package dev.tenure.maintenance.drain;

import dev.tenure.maintenance.api.DrainBehavior;
import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.drain.DrainPlan.Action;
import dev.tenure.maintenance.drain.DrainPlan.Observed;
import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The verdict on one pod, by kubectl drain's filters in kubectl's order (deleted-long-ago, DaemonSet, mirror,
 * emptyDir, unmanaged) and the pod's behaviour from {@link DrainRules}, applied after the DaemonSet and mirror
 * filters as Cluster API applies its rules (so no rule captures a DaemonSet or mirror pod) and before the refusing
 * emptyDir and unmanaged filters (a pod that is never evicted cannot make an eviction unsafe); the first filter that
 * decides ends the evaluation. Pure, and each predicate a small function (as Cluster API's {@code drain/filters.go}).
 */
public final class PodFilters {

    static final String MIRROR_ANNOTATION = "kubernetes.io/config.mirror";
    static final String DAEMONSET_KIND = "DaemonSet";
    /** The reason of a pod whose eviction a PodDisruptionBudget refused, until evictionRetryDelay has passed. */
    public static final String BUDGET_REFUSED = "eviction refused by a PodDisruptionBudget";
    /** The reason of a pod whose eviction failed otherwise (a 500, a timeout), until its back-off has passed. */
    public static final String FAILED_BACKING_OFF = "eviction failed; retried with back-off";

    static final String DAEMONSET_API_VERSION = "apps/v1";

    private PodFilters() {}

    static PodVerdict judge(
            Pod pod,
            DrainOptions o,
            Observed observed,
            Optional<Duration> skipWait,
            DrainRules.Decision decision,
            Instant now) {
        String ns = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        String uid = pod.getMetadata().getUid();
        if (!selects(o.podSelector(), pod.getMetadata().getLabels())) {
            return new PodVerdict(ns, name, uid, Action.LEAVE, "not selected by spec.drain.podSelector");
        }
        Instant deletedAt = parseTime(pod.getMetadata().getDeletionTimestamp());
        // 1. deleted long ago (kubectl skipDeletedFilter)
        if (deletedAt != null && skipWait.isPresent() && now.isAfter(deletedAt.plus(skipWait.get()))) {
            return new PodVerdict(
                    ns,
                    name,
                    uid,
                    Action.GONE,
                    observed.kubeletStale()
                            ? "terminating on a node whose kubelet is stale for longer than "
                                    + GoDuration.format(skipWait.get())
                            : "terminating for longer than skipWaitForDeleteTimeout "
                                    + GoDuration.format(skipWait.get()));
        }
        boolean finished = isFinished(pod);
        OwnerReference controller = controllerOf(pod);
        // 2. DaemonSet (kubectl daemonSetFilter)
        if (isDaemonSet(controller) && !finished) {
            boolean exists = observed.existingDaemonSets().contains(ns + "/" + controller.getName());
            if (!exists) {
                if (!o.force()) {
                    return new PodVerdict(
                            ns,
                            name,
                            uid,
                            Action.REFUSE,
                            "DaemonSet " + controller.getName() + " is gone (orphaned pod); set spec.drain.force");
                }
                // orphaned DaemonSet pod: removed with force, like kubectl
            } else if (!o.ignoreDaemonSets()) {
                return new PodVerdict(
                        ns, name, uid, Action.REFUSE, "DaemonSet-managed; set spec.drain.ignoreDaemonSets");
            } else {
                return new PodVerdict(ns, name, uid, Action.LEAVE, "DaemonSet-managed (ignored)");
            }
        }
        // 3. mirror pod (kubectl mirrorPodFilter)
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        if (annotations != null && annotations.containsKey(MIRROR_ANNOTATION)) {
            return new PodVerdict(ns, name, uid, Action.LEAVE, "mirror (static) pod");
        }
        // behaviour after the DaemonSet and mirror filters (Cluster API's order: a rule never captures those pods),
        // before kubectl's refusing filters: a pod that is never evicted cannot make the eviction unsafe
        if (decision.behavior() == DrainBehavior.Skip) {
            return new PodVerdict(ns, name, uid, Action.SKIP, "skipped: " + decision.why());
        }
        if (decision.behavior() == DrainBehavior.WaitCompleted) {
            return finished
                    ? new PodVerdict(ns, name, uid, Action.LEAVE, "completed (WaitCompleted: " + decision.why() + ")")
                    : new PodVerdict(
                            ns, name, uid, Action.WAIT_COMPLETED, "waiting for it to complete: " + decision.why());
        }
        // 4. emptyDir (kubectl localStorageFilter)
        if (!finished && hasEmptyDir(pod) && !o.deleteEmptyDirData()) {
            return new PodVerdict(
                    ns, name, uid, Action.REFUSE, "uses emptyDir (local data); set spec.drain.deleteEmptyDirData");
        }
        // 5. unmanaged (kubectl unreplicatedFilter)
        if (!finished && controller == null && !o.force()) {
            return new PodVerdict(ns, name, uid, Action.REFUSE, "not managed by a controller; set spec.drain.force");
        }
        if (deletedAt != null) {
            return new PodVerdict(ns, name, uid, Action.WAIT_TERMINATING, "terminating");
        }
        Instant retryAt = uid == null ? null : observed.retryNotBefore().get(uid);
        if (!o.disableEviction() && retryAt != null && now.isBefore(retryAt)) {
            return new PodVerdict(ns, name, uid, Action.RETRY_LATER, BUDGET_REFUSED);
        }
        Instant failedRetryAt = uid == null ? null : observed.failedNotBefore().get(uid);
        if (failedRetryAt != null && now.isBefore(failedRetryAt)) {
            return new PodVerdict(ns, name, uid, Action.RETRY_LATER, FAILED_BACKING_OFF + " until " + failedRetryAt);
        }
        return o.disableEviction()
                ? new PodVerdict(ns, name, uid, Action.DELETE, "delete (spec.drain.disableEviction)")
                : new PodVerdict(ns, name, uid, Action.EVICT, "evict");
    }

    static boolean isFinished(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    public static OwnerReference controllerOf(Pod pod) {
        List<OwnerReference> refs = pod.getMetadata().getOwnerReferences();
        if (refs == null) {
            return null;
        }
        return refs.stream()
                .filter(r -> Boolean.TRUE.equals(r.getController()))
                .findFirst()
                .orElse(null);
    }

    /**
     * Whether a controller reference names an {@code apps/v1} DaemonSet: the kind and the API group and version are
     * compared, as kubectl's daemonSetFilter does since kubernetes/kubernetes#128779. A {@code DaemonSet} of another
     * API group (e.g. {@code apps.kruise.io/v1alpha1}) is an ordinary controller: its pods are evicted as any
     * other's, and its absence is never looked up as an {@code apps/v1} DaemonSet.
     */
    public static boolean isDaemonSet(OwnerReference controller) {
        return controller != null
                && DAEMONSET_KIND.equals(controller.getKind())
                && DAEMONSET_API_VERSION.equals(controller.getApiVersion());
    }

    public static boolean hasEmptyDir(Pod pod) {
        return pod.getSpec() != null
                && pod.getSpec().getVolumes() != null
                && pod.getSpec().getVolumes().stream().anyMatch(v -> v.getEmptyDir() != null);
    }

    static Instant parseTime(String rfc3339) {
        return rfc3339 == null || rfc3339.isBlank()
                ? null
                : java.time.OffsetDateTime.parse(rfc3339).toInstant();
    }

    /** Label selector semantics (matchLabels AND matchExpressions); null selects everything. */
    static boolean selects(LabelSelector selector, Map<String, String> labels) {
        if (selector == null) {
            return true;
        }
        Map<String, String> l = labels == null ? Map.of() : labels;
        if (selector.getMatchLabels() != null) {
            for (Map.Entry<String, String> e : selector.getMatchLabels().entrySet()) {
                if (!e.getValue().equals(l.get(e.getKey()))) {
                    return false;
                }
            }
        }
        if (selector.getMatchExpressions() != null) {
            for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
                String v = l.get(r.getKey());
                List<String> values = r.getValues() == null ? List.of() : r.getValues();
                boolean ok = switch (r.getOperator()) {
                    case "In" -> v != null && values.contains(v);
                    case "NotIn" -> v == null || !values.contains(v);
                    case "Exists" -> l.containsKey(r.getKey());
                    case "DoesNotExist" -> !l.containsKey(r.getKey());
                    default ->
                        throw new IllegalArgumentException(
                                "spec.drain.podSelector: unknown operator " + r.getOperator());
                };
                if (!ok) {
                    return false;
                }
            }
        }
        return true;
    }
}
