package dev.tenure.maintenance.drain;

import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import java.util.ArrayList;
import java.util.List;

/** How a drain plan reads in status, events and messages: wave names, what a wave waits for, bounded lists. */
public final class DrainReport {
    /** Pods listed in status at most (the rest are counted): a node can hold hundreds. */
    public static final int LISTED = 20;

    private DrainReport() {}

    /** Why {@code v} is still on the node, in a few words. */
    public static String describe(PodVerdict v) {
        if (!v.blockingBudgets().isEmpty()) {
            return "eviction refused by PodDisruptionBudget " + String.join(", ", v.blockingBudgets());
        }
        if (v.stuckTerminating()) {
            return "terminating past its grace period, which ended " + v.graceEnded();
        }
        return switch (v.action()) {
            case RETRY_LATER ->
                v.reason() != null && v.reason().startsWith(PodFilters.FAILED_BACKING_OFF)
                        ? v.reason()
                        : PodFilters.BUDGET_REFUSED;
            case WAIT_TERMINATING -> "terminating";
            case WAIT_COMPLETED -> "WaitCompleted: waiting for it to complete";
            default -> "not yet evicted, wave " + wave(v.wave());
        };
    }

    /** Why {@code v} is still on the node: its cause class and budgets when {@code why} (by "ns/name") knows them. */
    public static String describe(PodVerdict v, java.util.Map<String, String> why) {
        String known = why.get(v.key());
        return known != null ? known : describe(v);
    }

    /** A wave's order as status and messages show it. */
    public static String wave(int order) {
        return order == DrainRules.LAST
                ? "last"
                : order == DrainRules.CLUSTER_CRITICAL ? "system-cluster-critical" : Integer.toString(order);
    }

    /** What the current wave waits for, as status shows it: each of its pods still on the node, and why. */
    public static List<String> waveBlockers(DrainPlan plan) {
        return waveBlockers(plan, java.util.Map.of());
    }

    /** As {@link #waveBlockers(DrainPlan)}, each held pod with its cause class and budgets ({@link BlockedPods}). */
    public static List<String> waveBlockers(DrainPlan plan, java.util.Map<String, String> why) {
        return listed(plan.currentWavePods().stream()
                .map(v -> v.key() + " (" + describe(v, why) + ")")
                .toList());
    }

    /** {@code items}, the first {@link #LISTED} of them and a count of the rest. */
    public static List<String> listed(List<String> items) {
        if (items.size() <= LISTED) {
            return items;
        }
        List<String> out = new ArrayList<>(items.subList(0, LISTED));
        out.add("... and " + (items.size() - LISTED) + " more");
        return List.copyOf(out);
    }

    /** The first {@link #LISTED} of {@code items}; {@link #notListed} counts the rest. */
    public static <T> List<T> firstListed(List<T> items) {
        return items.size() <= LISTED ? items : List.copyOf(items.subList(0, LISTED));
    }

    /** How many of {@code items} {@link #firstListed} leaves out; null when none. */
    public static Integer notListed(List<?> items) {
        return items.size() <= LISTED ? null : items.size() - LISTED;
    }

    /** A user's value in a message: quoted, cut to 64 characters (a hostile one can be megabytes). */
    public static String shown(String value) {
        return "\"" + (value.length() > 64 ? value.substring(0, 64) + "...(" + value.length() + " characters)" : value)
                + "\"";
    }
}
