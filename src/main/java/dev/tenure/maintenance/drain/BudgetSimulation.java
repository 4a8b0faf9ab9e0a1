package dev.tenure.maintenance.drain;

import dev.tenure.maintenance.api.DrainOutlook;
import dev.tenure.maintenance.drain.DrainPlan.Action;
import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The preview's walk of a plan against the PodDisruptionBudgets: the waves in order, each wave's pods in the preview's
 * order, each eviction judged as kube-apiserver's eviction subresource judges it, and a budget spent by the pods
 * ahead in the plan. Pure: no API call; the caller lists the pods and the budgets.
 *
 * <p>The eviction API's rules (pkg/registry/core/pod/storage/eviction.go, policy/v1 PodDisruptionBudgetSpec): a pod
 * Pending, Succeeded, Failed or already terminating is deleted without asking any budget; a pod selected by more than
 * one budget is refused (HTTP 500) whatever they allow; a pod not Ready goes without spending its budget when the
 * budget's {@code unhealthyPodEvictionPolicy} is {@code AlwaysAllow}, or, under {@code IfHealthyBudget} (the default),
 * when {@code currentHealthy >= desiredHealthy > 0}; every other pod spends one of {@code status.disruptionsAllowed},
 * and is refused (429) when none is left, or when the disruption controller has not counted the budget's generation.
 *
 * <p>The budget as the disruption controller counts it: {@code disruptionsAllowed} from its status now, one spent by
 * each eviction the plan sends ahead of the pod (in any wave: a disruption comes back only once the evicted pod is gone
 * <em>and</em> a replacement is Ready, which a preview cannot know), and {@code currentHealthy} lower by each pod so
 * spent. A pod that finds its budget spent by pods ahead waits for the first of them to be gone: at their grace
 * periods, that is when its eviction can be expected at the earliest, plus the time a replacement takes to become
 * Ready (not counted: unknown). A pod whose budget allows nothing now, and that no pod of the plan will free, waits
 * for the budget's own pods to become Ready: no time can be stated.
 */
public final class BudgetSimulation {

    /** Grace period of a pod that states none (the API server's default). */
    static final long DEFAULT_GRACE_SECONDS = 30;

    private BudgetSimulation() {}

    /**
     * One pod's outlook.
     *
     * @param budgets the budgets ("namespace/name", sorted, at most {@link DrainReport#LISTED}) it waits for, or that
     *     refuse it; empty when none
     * @param afterSeconds when its eviction can be expected, in seconds after the drain starts, with every pod ahead of
     *     it (its budget's, its earlier waves') taking its whole grace period and replacements Ready at once; null when
     *     no time can be stated (a budget that allows nothing now, a WaitCompleted pod ahead, a refused pod ahead)
     * @param why in a few words
     */
    public record PodOutlook(DrainOutlook outlook, List<String> budgets, Long afterSeconds, String why) {
        public PodOutlook {
            budgets = List.copyOf(budgets);
        }
    }

    /** One budget's state as the walk spends it. */
    private static final class Budget {
        final PodDisruptionBudget pdb;
        final List<Slot> slots = new ArrayList<>();
        /** Null when the disruption controller has not counted this generation of the budget: every eviction 429s. */
        final String uncounted;

        Budget(PodDisruptionBudget pdb) {
            this.pdb = pdb;
            PodDisruptionBudgetStatus s = pdb.getStatus();
            Long generation = pdb.getMetadata().getGeneration();
            if (s == null || s.getDisruptionsAllowed() == null) {
                uncounted = "its status is not yet written by the disruption controller";
            } else if (generation != null
                    && s.getObservedGeneration() != null
                    && s.getObservedGeneration() < generation) {
                uncounted = "its generation " + generation + " is not yet counted by the disruption controller";
            } else {
                uncounted = null;
                for (int i = 0; i < s.getDisruptionsAllowed(); i++) {
                    slots.add(new Slot(0L, null, 0));
                }
            }
        }

        int currentHealthy() {
            return pdb.getStatus() == null || pdb.getStatus().getCurrentHealthy() == null
                    ? 0
                    : pdb.getStatus().getCurrentHealthy();
        }

        int desiredHealthy() {
            return pdb.getStatus() == null || pdb.getStatus().getDesiredHealthy() == null
                    ? 0
                    : pdb.getStatus().getDesiredHealthy();
        }

        /** Healthy pods as the controller will count them: its status's, less those the plan evicted ahead. */
        int healthyNow() {
            return currentHealthy()
                    - (int) slots.stream().filter(s -> s.heldBy != null).count();
        }

        boolean alwaysAllowUnhealthy() {
            return pdb.getSpec() != null && "AlwaysAllow".equals(pdb.getSpec().getUnhealthyPodEvictionPolicy());
        }
    }

    /**
     * One of a budget's disruptions: free from the start ({@code heldBy} null), or spent by the pod {@code heldBy},
     * whose grace ends {@code freeAt} seconds after the drain starts (null: unknown).
     */
    private record Slot(Long freeAt, String heldBy, long heldByGrace) {}

    /**
     * The outlook of each pod of {@code plan}, by "namespace/name".
     *
     * @param budgets namespace → its PodDisruptionBudgets
     */
    public static Map<String, PodOutlook> of(
            DrainPlan plan,
            List<Pod> pods,
            Map<String, List<PodDisruptionBudget>> budgets,
            DrainOptions options,
            Instant now) {
        Map<String, Pod> byKey = new HashMap<>();
        pods.forEach(p ->
                byKey.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p));
        Map<String, Budget> state = new HashMap<>();
        Map<String, PodOutlook> out = new LinkedHashMap<>();
        List<PodVerdict> holding = plan.verdicts().stream()
                .filter(PodVerdict::holdsItsWave)
                .sorted(Comparator.comparingInt(PodVerdict::wave).thenComparing(PodVerdict::key))
                .toList();
        Integer current = plan.currentWave().orElse(null);
        Long waveStart = 0L;
        int i = 0;
        while (i < holding.size()) {
            int wave = holding.get(i).wave();
            Long waveEnd = waveStart;
            for (; i < holding.size() && holding.get(i).wave() == wave; i++) {
                PodVerdict v = holding.get(i);
                Pod pod = byKey.get(v.key());
                long grace = graceOf(pod, options);
                Long gone;
                if (v.action() == Action.WAIT_COMPLETED) {
                    out.put(
                            v.key(),
                            new PodOutlook(DrainOutlook.WaitsCompleted, List.of(), null, "waits until it completes"));
                    gone = null;
                } else if (v.action() == Action.WAIT_TERMINATING) {
                    Long left = remainingGrace(pod, now);
                    out.put(
                            v.key(),
                            new PodOutlook(
                                    DrainOutlook.Terminating,
                                    List.of(),
                                    null,
                                    left == null ? "terminating past its grace period" : "terminating"));
                    gone = left == null || waveStart == null ? null : waveStart + left;
                } else {
                    PodOutlook o = evicted(v, pod, grace, wave, current, waveStart, budgets, state);
                    out.put(v.key(), o);
                    gone = o.afterSeconds() == null ? null : o.afterSeconds() + grace;
                }
                waveEnd = waveEnd == null || gone == null ? null : Math.max(waveEnd, gone);
            }
            waveStart = waveEnd;
        }
        for (PodVerdict v : plan.verdicts()) {
            if (!out.containsKey(v.key())) {
                out.put(v.key(), notDrained(v));
            }
        }
        return out;
    }

    /** A pod the drain sends in its wave: when, and which budget holds it. */
    private static PodOutlook evicted(
            PodVerdict v,
            Pod pod,
            long grace,
            int wave,
            Integer current,
            Long waveStart,
            Map<String, List<PodDisruptionBudget>> budgets,
            Map<String, Budget> state) {
        if (v.action() == Action.DELETE) {
            return free(wave, current, waveStart, "deleted (disableEviction): no budget is asked");
        }
        if (pod == null || ignoresBudgets(pod)) {
            return free(wave, current, waveStart, "not Running (or terminating): the eviction API asks no budget");
        }
        List<String> selecting = budgets.getOrDefault(v.namespace(), List.of()).stream()
                .filter(b -> selects(b, pod))
                .map(b -> v.namespace() + "/" + b.getMetadata().getName())
                .sorted()
                .toList();
        if (selecting.size() > 1) {
            return new PodOutlook(
                    DrainOutlook.Refused,
                    DrainReport.listed(selecting),
                    null,
                    "more than one PodDisruptionBudget selects it: the eviction API refuses it (HTTP 500) until only"
                            + " one does");
        }
        if (selecting.isEmpty()) {
            return free(wave, current, waveStart, "no PodDisruptionBudget selects it");
        }
        String key = selecting.get(0);
        Budget b = state.computeIfAbsent(
                key,
                k -> new Budget(budgets.get(v.namespace()).stream()
                        .filter(p ->
                                key.equals(v.namespace() + "/" + p.getMetadata().getName()))
                        .findFirst()
                        .orElseThrow()));
        if (!ready(pod)) {
            if (b.alwaysAllowUnhealthy()) {
                return free(
                        wave, current, waveStart, "not Ready, and " + key + " is AlwaysAllow: its budget is not spent");
            }
            if (b.uncounted == null && b.healthyNow() >= b.desiredHealthy() && b.desiredHealthy() > 0) {
                return free(
                        wave,
                        current,
                        waveStart,
                        "not Ready, and " + key + " (IfHealthyBudget) has its healthy pods: its budget is not spent");
            }
        }
        if (b.uncounted != null) {
            return new PodOutlook(DrainOutlook.WaitsForBudget, List.of(key), null, key + ": " + b.uncounted);
        }
        if (b.slots.isEmpty()) {
            return new PodOutlook(
                    DrainOutlook.WaitsForBudget,
                    List.of(key),
                    null,
                    key + " allows no disruption now (needs " + b.desiredHealthy() + " healthy pods, has "
                            + b.currentHealthy() + "): waits until more of its pods are Ready");
        }
        Slot slot = b.slots.stream()
                .min(Comparator.comparing(Slot::freeAt, Comparator.nullsLast(Comparator.naturalOrder())))
                .orElseThrow();
        b.slots.remove(slot);
        if (slot.heldBy() == null) {
            PodOutlook o = free(wave, current, waveStart, key + " allows it");
            b.slots.add(new Slot(o.afterSeconds() == null ? null : o.afterSeconds() + grace, v.key(), grace));
            return new PodOutlook(o.outlook(), List.of(), o.afterSeconds(), o.why());
        }
        Long after = slot.freeAt() == null || waveStart == null ? null : Math.max(waveStart, slot.freeAt());
        b.slots.add(new Slot(after == null ? null : after + grace, v.key(), grace));
        return new PodOutlook(
                DrainOutlook.WaitsForBudget,
                List.of(key),
                after,
                key + " is spent by " + slot.heldBy() + " ahead of it: waits until that pod is gone" + " (grace "
                        + slot.heldByGrace() + "s) and a replacement is Ready");
    }

    private static PodOutlook free(int wave, Integer current, Long waveStart, String why) {
        boolean now = current != null && wave == current;
        return new PodOutlook(
                now ? DrainOutlook.EvictsNow : DrainOutlook.EvictsInItsWave,
                List.of(),
                now ? Long.valueOf(0) : waveStart,
                now ? why : why + "; after the earlier waves");
    }

    private static PodOutlook notDrained(PodVerdict v) {
        return switch (v.action()) {
            case SKIP -> new PodOutlook(DrainOutlook.Skipped, List.of(), null, "Skip: never evicted");
            case REFUSE -> new PodOutlook(DrainOutlook.Refused, List.of(), null, "the drain refuses it: " + v.reason());
            default -> new PodOutlook(DrainOutlook.LeftAlone, List.of(), null, v.reason());
        };
    }

    /** kube-apiserver's canIgnorePDB: Pending, Succeeded, Failed or terminating pods are deleted without a budget. */
    static boolean ignoresBudgets(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase)
                || "Failed".equals(phase)
                || "Pending".equals(phase)
                || pod.getMetadata().getDeletionTimestamp() != null;
    }

    /** The pod's Ready condition is True (what the disruption controller and the eviction API call healthy). */
    static boolean ready(Pod pod) {
        return pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** policy/v1: a missing selector selects no pod, an empty one every pod of the namespace; a bad one none. */
    static boolean selects(PodDisruptionBudget b, Pod pod) {
        if (b.getSpec() == null || b.getSpec().getSelector() == null) {
            return false;
        }
        try {
            return PodFilters.selects(
                    b.getSpec().getSelector(), pod.getMetadata().getLabels());
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The grace period its eviction gives it: spec.drain.gracePeriodSeconds, else the pod's own, else 30 s. */
    static long graceOf(Pod pod, DrainOptions options) {
        if (options.gracePeriodSeconds() >= 0) {
            return options.gracePeriodSeconds();
        }
        Long own = pod == null || pod.getSpec() == null ? null : pod.getSpec().getTerminationGracePeriodSeconds();
        return own == null ? DEFAULT_GRACE_SECONDS : own;
    }

    /** A terminating pod's grace left (its deletionTimestamp is the end of it); null when it is past it. */
    private static Long remainingGrace(Pod pod, Instant now) {
        Instant end =
                pod == null ? null : PodFilters.parseTime(pod.getMetadata().getDeletionTimestamp());
        if (end == null) {
            return 0L;
        }
        return now.isAfter(end) ? null : Duration.between(now, end).toSeconds();
    }
}
