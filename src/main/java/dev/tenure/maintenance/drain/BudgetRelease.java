package dev.tenure.maintenance.drain;

import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * When a PodDisruptionBudget that refused an eviction (429) lets the drain try again before {@code
 * spec.drain.evictionRetryDelay} (issue 51 item 8): a drain a budget paces moves at the budget's pace, not the retry
 * timer's. Pure: the budgets' changes come from the operator's one PodDisruptionBudget watch, the refusals from the
 * drain's memory; the timer stays the fallback for a change the watch did not deliver, and for a refusal that names no
 * budget.
 *
 * <p>The eviction API (pkg/registry/core/pod/storage/eviction.go, checkAndDecrement) admits an eviction a budget
 * selects only when the budget's {@code status.observedGeneration} has caught up with its {@code metadata.generation}
 * and {@code status.disruptionsAllowed} is above 0; kube-controller-manager's disruption controller raises it when a
 * replacement becomes Ready ({@code currentHealthy} up). So a change frees evictions when, after it, the budget admits
 * some, and before it admitted fewer, or its {@code currentHealthy} or {@code observedGeneration} moved (a change the
 * watch may have folded into one event, e.g. after a re-list). A deleted budget refuses nothing more.
 */
public final class BudgetRelease {

    /** What a deleted budget frees: every eviction it refused. */
    public static final int ALL = Integer.MAX_VALUE;

    private BudgetRelease() {}

    /**
     * The evictions the budget admits as it stands: {@code status.disruptionsAllowed}, or 0 when its status is absent
     * or older than its spec ({@code observedGeneration < generation}, the eviction API's "still being processed").
     */
    public static int admits(PodDisruptionBudget pdb) {
        if (pdb == null || pdb.getStatus() == null) {
            return 0;
        }
        PodDisruptionBudgetStatus s = pdb.getStatus();
        Long generation = pdb.getMetadata() == null ? null : pdb.getMetadata().getGeneration();
        Long observed = s.getObservedGeneration();
        if (generation != null && (observed == null || observed < generation)) {
            return 0;
        }
        return s.getDisruptionsAllowed() == null ? 0 : Math.max(0, s.getDisruptionsAllowed());
    }

    /**
     * How many refused evictions the change of a budget from {@code before} (null: first seen) to {@code after} frees:
     * 0 when it frees none, else the evictions it admits now.
     */
    public static int frees(PodDisruptionBudget before, PodDisruptionBudget after) {
        int now = admits(after);
        if (now == 0) {
            return 0;
        }
        if (before == null) {
            return now;
        }
        PodDisruptionBudgetStatus was = before.getStatus();
        PodDisruptionBudgetStatus is = after.getStatus();
        boolean moved = was == null
                || !Objects.equals(was.getCurrentHealthy(), is.getCurrentHealthy())
                || !Objects.equals(was.getObservedGeneration(), is.getObservedGeneration());
        return now > admits(before) || moved ? now : 0;
    }

    /**
     * A pod whose eviction a budget refused: when ({@code at}, the drain step's time, taken before the eviction was
     * sent), when the retry timer lets it be tried again ({@code retryAt}), and the budgets the 429 named.
     */
    public record Refusal(Instant at, Instant retryAt, List<String> budgets) {
        public Refusal {
            Objects.requireNonNull(at, "at");
            Objects.requireNonNull(retryAt, "retryAt");
            budgets = List.copyOf(budgets);
        }

        /** The same refusal, free to be tried again from {@code when} on. */
        public Refusal retryFrom(Instant when) {
            return when.isBefore(retryAt) ? new Refusal(at, when, budgets) : this;
        }
    }

    /**
     * The pods (uids) of {@code refused} to try again at {@code now} because {@code budget} now admits {@code
     * admits} evictions: those the budget refused, oldest refusal first, as many as it admits, counting those already
     * free to go (so that hearing the same change twice frees no more). A retry the budget refuses again costs one 429
     * and waits for the next change or the timer.
     */
    public static Set<String> released(Map<String, Refusal> refused, String budget, int admits, Instant now) {
        List<Map.Entry<String, Refusal>> named = refused.entrySet().stream()
                .filter(e -> e.getValue().budgets().contains(budget))
                .sorted(Comparator.comparing(
                                (Map.Entry<String, Refusal> e) -> e.getValue().at())
                        .thenComparing(Map.Entry::getKey))
                .toList();
        long free =
                named.stream().filter(e -> !e.getValue().retryAt().isAfter(now)).count();
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Refusal> e : named) {
            if (free + out.size() >= admits) {
                break;
            }
            if (e.getValue().retryAt().isAfter(now)) {
                out.add(e.getKey());
            }
        }
        return Set.copyOf(out);
    }
}
