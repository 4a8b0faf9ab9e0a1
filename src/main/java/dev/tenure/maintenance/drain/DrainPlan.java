package dev.tenure.maintenance.drain;

import dev.tenure.maintenance.api.DrainBehavior;
import dev.tenure.maintenance.api.GoDuration;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One drain step, decided from what is on the node now: which pods to evict (or delete), which to
 * leave, which to wait for, and which stop the drain. Pure: the caller lists, the caller acts.
 *
 * <p>Filters run in kubectl drain's order (deleted-long-ago, DaemonSet, mirror, emptyDir, unmanaged),
 * the first filter that keeps a pod ends its evaluation, and any refused pod stops the whole drain
 * before anything is evicted, as kubectl does.
 *
 * <p>Each pod has a behaviour and a wave ({@link DrainRules}): a Skip pod is left (and named), a WaitCompleted pod is
 * waited for and never evicted, and of the Drain pods only those of the lowest wave with a pod still on the node are
 * sent (Cluster API's drain order; KEP-4212's priority order by default).
 */
public record DrainPlan(List<PodVerdict> verdicts) {

    static final String MIRROR_ANNOTATION = "kubernetes.io/config.mirror";

    /** What happens to one pod this step. */
    public enum Action {
        /** Not drained: not selected, DaemonSet-managed, a mirror pod. Does not count. */
        LEAVE,
        /** Counts as gone: terminating longer than skipWaitForDeleteTimeout. */
        GONE,
        /** Issue an eviction now. */
        EVICT,
        /** Issue a delete now (disableEviction). */
        DELETE,
        /** Refused by a PodDisruptionBudget; retry after evictionRetryDelay. */
        RETRY_LATER,
        /** Terminating; wait until it is gone. */
        WAIT_TERMINATING,
        /** Cannot be drained under the options (kubectl's fatal filter errors). */
        REFUSE,
        /** Behaviour Skip: never evicted, not waited for; counted and named. */
        SKIP,
        /** Behaviour WaitCompleted, still running: never evicted; the drain waits until it finishes. */
        WAIT_COMPLETED
    }

    /**
     * One pod's place in the plan: what the drain does with it and why.
     *
     * @param refusal the last PodDisruptionBudget refusal of this pod's eviction (the 429's message), null if none
     * @param graceEnded for a pod still terminating past the end of its grace period: that end (its
     *     deletionTimestamp, which the API server sets to the deletion time plus the grace period); else null
     * @param wave the pod's order ({@link DrainRules}): Drain pods of a higher wave wait for the lower ones
     */
    public record PodVerdict(
            String namespace,
            String name,
            String uid,
            Action action,
            String reason,
            String refusal,
            Instant graceEnded,
            int wave) {

        public PodVerdict(String namespace, String name, String uid, Action action, String reason) {
            this(namespace, name, uid, action, reason, null, null, 0);
        }

        public PodVerdict(
                String namespace,
                String name,
                String uid,
                Action action,
                String reason,
                String refusal,
                Instant graceEnded) {
            this(namespace, name, uid, action, reason, refusal, graceEnded, 0);
        }

        PodVerdict inWave(int order) {
            return new PodVerdict(namespace, name, uid, action, reason, refusal, graceEnded, order);
        }

        /** Evicted (or deleted) by the drain in its wave, and waited for until gone. */
        public boolean drained() {
            return action == Action.EVICT
                    || action == Action.DELETE
                    || action == Action.RETRY_LATER
                    || action == Action.WAIT_TERMINATING;
        }

        public String key() {
            return namespace + "/" + name;
        }

        /** Terminating past its grace period: something holds it (a finalizer, a hung kubelet or container). */
        public boolean stuckTerminating() {
            return action == Action.WAIT_TERMINATING && graceEnded != null;
        }

        /** The PodDisruptionBudgets, "namespace/name", its last refused eviction named. */
        public List<String> blockingBudgets() {
            return budgetsNamed(namespace, refusal);
        }

        /** Still to go before the drain is complete. */
        public boolean pending() {
            return action == Action.EVICT
                    || action == Action.DELETE
                    || action == Action.RETRY_LATER
                    || action == Action.WAIT_TERMINATING
                    || action == Action.REFUSE
                    || action == Action.WAIT_COMPLETED;
        }
    }

    /**
     * What the planner looks at besides the pods.
     *
     * @param existingDaemonSets "namespace/name" of the DaemonSets that control pods on the node and exist
     * @param kubeletStale the node's kubelet lease is expired: terminating pods there never finish
     * @param staleNodeSkipWait used as skipWaitForDeleteTimeout on a stale node when the spec sets none
     * @param retryNotBefore pod uid → earliest time to retry an eviction a PodDisruptionBudget refused
     * @param refusals pod uid → the message of its last eviction a PodDisruptionBudget refused (the 429's)
     * @param namespaceLabels namespace → its labels, for rules with a namespaceSelector (empty when none needs them)
     */
    public record Observed(
            Set<String> existingDaemonSets,
            boolean kubeletStale,
            Duration staleNodeSkipWait,
            Map<String, Instant> retryNotBefore,
            Map<String, String> refusals,
            Map<String, Map<String, String>> namespaceLabels) {
        public Observed {
            existingDaemonSets = Set.copyOf(existingDaemonSets);
            retryNotBefore = Map.copyOf(retryNotBefore);
            refusals = Map.copyOf(refusals);
            namespaceLabels = Map.copyOf(namespaceLabels);
        }

        public Observed(
                Set<String> existingDaemonSets,
                boolean kubeletStale,
                Duration staleNodeSkipWait,
                Map<String, Instant> retryNotBefore,
                Map<String, String> refusals) {
            this(existingDaemonSets, kubeletStale, staleNodeSkipWait, retryNotBefore, refusals, Map.of());
        }

        public Observed(
                Set<String> existingDaemonSets,
                boolean kubeletStale,
                Duration staleNodeSkipWait,
                Map<String, Instant> retryNotBefore) {
            this(existingDaemonSets, kubeletStale, staleNodeSkipWait, retryNotBefore, Map.of());
        }

        public static Observed healthyNode() {
            return new Observed(Set.of(), false, Duration.ZERO, Map.of());
        }
    }

    public static DrainPlan of(List<Pod> podsOnNode, DrainOptions options, Observed observed, Instant now) {
        List<PodVerdict> verdicts = new ArrayList<>();
        Optional<Duration> skipWait = options.skipWaitForDeleteTimeout();
        if (skipWait.isEmpty()
                && observed.kubeletStale()
                && !observed.staleNodeSkipWait().isZero()) {
            skipWait = Optional.of(observed.staleNodeSkipWait());
        }
        for (Pod pod : podsOnNode) {
            DrainRules.Decision decision = options.rules()
                    .decide(
                            pod,
                            observed.namespaceLabels().get(pod.getMetadata().getNamespace()));
            verdicts.add(noted(judge(pod, options, observed, skipWait, decision, now), pod, observed, now)
                    .inWave(decision.order()));
        }
        return new DrainPlan(List.copyOf(verdicts));
    }

    private static PodVerdict judge(
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
        // behaviour before kubectl's refusing filters: a pod that is never evicted cannot make the eviction unsafe
        if (decision.behavior() == DrainBehavior.Skip) {
            return new PodVerdict(ns, name, uid, Action.SKIP, "skipped: " + decision.why());
        }
        if (decision.behavior() == DrainBehavior.WaitCompleted) {
            return finished
                    ? new PodVerdict(ns, name, uid, Action.LEAVE, "completed (WaitCompleted: " + decision.why() + ")")
                    : new PodVerdict(
                            ns, name, uid, Action.WAIT_COMPLETED, "waiting for it to complete: " + decision.why());
        }
        OwnerReference controller = controllerOf(pod);
        // 2. DaemonSet (kubectl daemonSetFilter)
        if (controller != null && "DaemonSet".equals(controller.getKind()) && !finished) {
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
            return new PodVerdict(ns, name, uid, Action.RETRY_LATER, "eviction refused by a PodDisruptionBudget");
        }
        return o.disableEviction()
                ? new PodVerdict(ns, name, uid, Action.DELETE, "delete (spec.drain.disableEviction)")
                : new PodVerdict(ns, name, uid, Action.EVICT, "evict");
    }

    /** The verdict with what the drain has seen of the pod: its last PDB refusal, a grace period it outlived. */
    private static PodVerdict noted(PodVerdict v, Pod pod, Observed observed, Instant now) {
        String refusal =
                v.uid() == null || !v.pending() ? null : observed.refusals().get(v.uid());
        Instant deletedAt = parseTime(pod.getMetadata().getDeletionTimestamp());
        Instant graceEnded =
                v.action() == Action.WAIT_TERMINATING && deletedAt != null && now.isAfter(deletedAt) ? deletedAt : null;
        return refusal == null && graceEnded == null
                ? v
                : new PodVerdict(v.namespace(), v.name(), v.uid(), v.action(), v.reason(), refusal, graceEnded);
    }

    /** Pods still on the node past the end of their grace period. */
    public List<PodVerdict> stuckTerminating() {
        return verdicts.stream().filter(PodVerdict::stuckTerminating).toList();
    }

    /** The PodDisruptionBudgets ("namespace/name", sorted) that refused the last evictions of pods still to go. */
    public List<String> blockingBudgets() {
        return pending().stream()
                .flatMap(v -> v.blockingBudgets().stream())
                .distinct()
                .sorted()
                .toList();
    }

    // kube-apiserver's eviction refusals (pkg/registry/core/pod/storage/eviction.go): "The disruption budget <name>
    // needs <n> healthy pods and has <m> currently", "The disruption budget <name> is still being processed by the
    // server."
    private static final java.util.regex.Pattern BUDGET_NAMED =
            java.util.regex.Pattern.compile("The disruption budget (\\S+?)\\.? (?:needs|is still)");

    /** The PodDisruptionBudgets (in the pod's {@code namespace}) a 429 message names; empty when none. */
    static List<String> budgetsNamed(String namespace, String refusal) {
        if (refusal == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        java.util.regex.Matcher m = BUDGET_NAMED.matcher(refusal);
        while (m.find()) {
            String budget = namespace + "/" + m.group(1);
            if (!out.contains(budget)) {
                out.add(budget);
            }
        }
        return out;
    }

    public List<PodVerdict> with(Action action) {
        return verdicts.stream().filter(v -> v.action() == action).toList();
    }

    /** Pods that still have to go. */
    public List<PodVerdict> pending() {
        return verdicts.stream().filter(PodVerdict::pending).toList();
    }

    /** Pods the drain is about: everything not left alone or skipped. */
    public int toDrainCount() {
        return (int) verdicts.stream()
                .filter(v -> v.action() != Action.LEAVE && v.action() != Action.SKIP)
                .count();
    }

    /** The wave being drained: the lowest order of a Drain pod still on the node; empty when none is left. */
    public Optional<Integer> currentWave() {
        return verdicts.stream()
                .filter(PodVerdict::drained)
                .map(PodVerdict::wave)
                .min(Integer::compare);
    }

    /** The orders of the waves after the current one, ascending. */
    public List<Integer> laterWaves() {
        Optional<Integer> current = currentWave();
        return verdicts.stream()
                .filter(PodVerdict::drained)
                .map(PodVerdict::wave)
                .filter(w -> w > current.orElseThrow())
                .distinct()
                .sorted()
                .toList();
    }

    /** The current wave's pods still on the node: what the next wave waits for. */
    public List<PodVerdict> currentWavePods() {
        Optional<Integer> current = currentWave();
        return current.isEmpty()
                ? List.of()
                : verdicts.stream()
                        .filter(v -> v.drained() && v.wave() == current.get())
                        .toList();
    }

    /** The evictions, then the deletions, to send now: those of the current wave. */
    public List<PodVerdict> toSend() {
        List<PodVerdict> wave = currentWavePods();
        return java.util.stream.Stream.concat(
                        wave.stream().filter(v -> v.action() == Action.EVICT),
                        wave.stream().filter(v -> v.action() == Action.DELETE))
                .toList();
    }

    public boolean refused() {
        return verdicts.stream().anyMatch(v -> v.action() == Action.REFUSE);
    }

    public boolean complete() {
        return pending().isEmpty();
    }

    /** Percentage of {@code evictionPods} (counted when the drain started) that are gone. */
    public int progress(int evictionPods) {
        if (evictionPods <= 0) {
            return complete() ? 100 : 0;
        }
        int left = Math.min(pending().size(), evictionPods);
        return (int) Math.floor(100.0 * (evictionPods - left) / evictionPods);
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
