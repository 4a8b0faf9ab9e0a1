package dev.tenure.bench;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Row 17 (issue 51): the seconds during which a workload had no Ready pod, from the pod changes a watch saw at the API
 * server. Pure: the bench's watch records each change as a {@link PodSeen}; this sums, per workload, the spells in a
 * window during which none of its pods was Ready. "Ready" is what a PodDisruptionBudget counts healthy (condition Ready
 * True and no deletionTimestamp), so a pod being evicted stops counting at once, not when it is gone.
 */
final class ReadinessGaps {

    /**
     * One pod as one watch event showed it: when (nanoseconds on one monotonic clock), its workload, its name, and
     * whether it counts Ready ({@code false} for a deleted pod).
     */
    record PodSeen(long atNanos, String workload, String pod, boolean ready) {}

    /** A workload's time without a Ready pod in the window: its seconds and the spells they came in. */
    record Gap(double seconds, int spells) {
        static final Gap NONE = new Gap(0, 0);
    }

    private ReadinessGaps() {}

    /**
     * Per workload of {@code workloads}: the seconds in [{@code fromNanos}, {@code toNanos}] during which none of its
     * pods was Ready. Changes before the window set the state it starts from (a workload without a Ready pod then
     * starts a spell at {@code fromNanos}); changes after it are ignored; a spell still open at {@code toNanos} counts
     * up to it. A workload no change ever named had no Ready pod the whole window.
     */
    static Map<String, Gap> of(Collection<String> workloads, List<PodSeen> seen, long fromNanos, long toNanos) {
        if (toNanos < fromNanos) {
            throw new IllegalArgumentException("window ends (" + toNanos + ") before it starts (" + fromNanos + ")");
        }
        Map<String, Set<String>> ready = new HashMap<>();
        Map<String, Long> spellSince = new HashMap<>();
        Map<String, long[]> nanosAndSpells = new LinkedHashMap<>();
        for (String w : workloads) {
            ready.put(w, new HashSet<>());
            nanosAndSpells.put(w, new long[2]);
        }
        List<PodSeen> ordered =
                seen.stream().sorted(Comparator.comparingLong(PodSeen::atNanos)).toList();
        int i = 0;
        for (; i < ordered.size() && ordered.get(i).atNanos() <= fromNanos; i++) {
            apply(ready, ordered.get(i));
        }
        for (String w : workloads) {
            if (ready.get(w).isEmpty()) {
                spellSince.put(w, fromNanos);
                nanosAndSpells.get(w)[1]++;
            }
        }
        for (; i < ordered.size() && ordered.get(i).atNanos() <= toNanos; i++) {
            PodSeen p = ordered.get(i);
            if (!ready.containsKey(p.workload())) {
                continue;
            }
            boolean before = !ready.get(p.workload()).isEmpty();
            apply(ready, p);
            boolean after = !ready.get(p.workload()).isEmpty();
            if (before && !after) {
                spellSince.put(p.workload(), p.atNanos());
                nanosAndSpells.get(p.workload())[1]++;
            } else if (!before && after) {
                nanosAndSpells.get(p.workload())[0] += p.atNanos() - spellSince.remove(p.workload());
            }
        }
        spellSince.forEach((w, since) -> nanosAndSpells.get(w)[0] += toNanos - since);
        Map<String, Gap> out = new LinkedHashMap<>();
        nanosAndSpells.forEach((w, ns) -> out.put(w, new Gap(ns[0] / 1e9, (int) ns[1])));
        return out;
    }

    /** The sum over workloads. */
    static double totalSeconds(Map<String, Gap> gaps) {
        return gaps.values().stream().mapToDouble(Gap::seconds).sum();
    }

    private static void apply(Map<String, Set<String>> ready, PodSeen p) {
        Set<String> pods = ready.get(p.workload());
        if (pods == null) {
            return;
        }
        if (p.ready()) {
            pods.add(p.pod());
        } else {
            pods.remove(p.pod());
        }
    }
}
