package dev.tenure.maintenance.drain;

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
 * <p>Each pod is judged by {@link PodFilters}, in kubectl drain's order (deleted-long-ago, DaemonSet, mirror, emptyDir, unmanaged):
 * the first filter that keeps a pod ends its evaluation, and any refused pod stops the whole drain
 * before anything is evicted, as kubectl does.
 *
 * <p>Each pod has a behaviour and a wave ({@link DrainRules}): a Skip pod is left (and named), a WaitCompleted pod is
 * waited for and never evicted, and only the Drain pods of the current wave are sent: the lowest wave with a Drain pod
 * or a running WaitCompleted pod still on the node (Cluster API's drain order: a WaitCompleted pod belongs to its wave
 * and holds every later one). The default order is kubectl's single wave, system pods after it.
 *
 * @param warnings problems with the pods' own signals (an unknown {@code tenure.dev/drain} value), one per pod
 */
public record DrainPlan(List<PodVerdict> verdicts, List<String> warnings) {

    public DrainPlan {
        verdicts = List.copyOf(verdicts);
        warnings = List.copyOf(warnings);
    }

    public DrainPlan(List<PodVerdict> verdicts) {
        this(verdicts, List.of());
    }

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
        /**
         * Refused by a PodDisruptionBudget (retry after evictionRetryDelay), or failed with another error (retry after
         * the back-off); the reason says which.
         */
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

        /** Holds the later waves while on the node: drained in its wave, or a WaitCompleted pod still running. */
        public boolean holdsItsWave() {
            return drained() || action == Action.WAIT_COMPLETED;
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
     * @param failedNotBefore pod uid → earliest time to retry an eviction (or delete) that failed with an error other
     *     than a budget's refusal (a 500, a timeout, API Priority and Fairness's 429): the back-off of {@link
     *     DrainPacing#errorBackoff}
     */
    public record Observed(
            Set<String> existingDaemonSets,
            boolean kubeletStale,
            Duration staleNodeSkipWait,
            Map<String, Instant> retryNotBefore,
            Map<String, String> refusals,
            Map<String, Map<String, String>> namespaceLabels,
            Map<String, Instant> failedNotBefore) {
        public Observed {
            existingDaemonSets = Set.copyOf(existingDaemonSets);
            retryNotBefore = Map.copyOf(retryNotBefore);
            refusals = Map.copyOf(refusals);
            namespaceLabels = Map.copyOf(namespaceLabels);
            failedNotBefore = Map.copyOf(failedNotBefore);
        }

        public Observed(
                Set<String> existingDaemonSets,
                boolean kubeletStale,
                Duration staleNodeSkipWait,
                Map<String, Instant> retryNotBefore,
                Map<String, String> refusals,
                Map<String, Map<String, String>> namespaceLabels) {
            this(
                    existingDaemonSets,
                    kubeletStale,
                    staleNodeSkipWait,
                    retryNotBefore,
                    refusals,
                    namespaceLabels,
                    Map.of());
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
        List<String> warnings = new ArrayList<>();
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
            PodVerdict verdict = noted(
                            PodFilters.judge(pod, options, observed, skipWait, decision, now), pod, observed, now)
                    .inWave(decision.order());
            verdicts.add(verdict);
            if (decision.warning() != null && verdict.action() != Action.LEAVE) {
                warnings.add(decision.warning());
            }
        }
        return new DrainPlan(verdicts, warnings);
    }

    /** The verdict with what the drain has seen of the pod: its last PDB refusal, a grace period it outlived. */
    private static PodVerdict noted(PodVerdict v, Pod pod, Observed observed, Instant now) {
        String refusal =
                v.uid() == null || !v.pending() ? null : observed.refusals().get(v.uid());
        Instant deletedAt = PodFilters.parseTime(pod.getMetadata().getDeletionTimestamp());
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
    public static List<String> budgetsNamed(String namespace, String refusal) {
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

    /**
     * The wave being drained: the lowest order of a Drain pod or a running WaitCompleted pod still on the node; empty
     * when none is left.
     */
    public Optional<Integer> currentWave() {
        return verdicts.stream()
                .filter(PodVerdict::holdsItsWave)
                .map(PodVerdict::wave)
                .min(Integer::compare);
    }

    /** The orders of the waves after the current one, ascending. */
    public List<Integer> laterWaves() {
        Optional<Integer> current = currentWave();
        return verdicts.stream()
                .filter(PodVerdict::holdsItsWave)
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
                        .filter(v -> v.holdsItsWave() && v.wave() == current.get())
                        .toList();
    }

    /**
     * The evictions, then the deletions, to send now: those of the current wave. The evictions no PodDisruptionBudget
     * has refused yet come first: a step sends a bounded batch from the front of this list, and pods a budget keeps
     * refusing (retried every {@code evictionRetryDelay}) would otherwise fill every batch while the pods behind them
     * were never sent (kubectl drain sends all its evictions at once, so none waits behind another).
     */
    public List<PodVerdict> toSend() {
        List<PodVerdict> wave = currentWavePods();
        return java.util.stream.Stream.of(
                        wave.stream().filter(v -> v.action() == Action.EVICT && v.refusal() == null),
                        wave.stream().filter(v -> v.action() == Action.EVICT && v.refusal() != null),
                        wave.stream().filter(v -> v.action() == Action.DELETE))
                .flatMap(x -> x)
                .toList();
    }

    /**
     * This plan once the WaitCompleted timeout was passed (onTimeout Proceed): the WaitCompleted pods still running
     * no longer hold their wave nor the drain; they are left on the node like Skip pods (never evicted).
     */
    public DrainPlan passingWaitCompleted() {
        return new DrainPlan(
                verdicts.stream()
                        .map(v -> v.action() != Action.WAIT_COMPLETED
                                ? v
                                : new PodVerdict(
                                        v.namespace(),
                                        v.name(),
                                        v.uid(),
                                        Action.SKIP,
                                        "WaitCompleted, its timeout passed (onTimeout Proceed): left running",
                                        v.refusal(),
                                        v.graceEnded(),
                                        v.wave()))
                        .toList(),
                warnings);
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
}
