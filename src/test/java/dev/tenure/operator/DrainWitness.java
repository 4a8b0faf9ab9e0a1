package dev.tenure.operator;

import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongFunction;

/**
 * The chaos suite's witness of a drain, on the emulator's request log: every eviction (and pod delete) request is
 * judged against the pods as stored the moment it arrives, before the server serves it. A request for a pod already
 * terminating or gone is a second eviction; one for a pod whose behaviour is Skip or WaitCompleted should never have
 * been sent; one for a pod of a later wave while a pod of an earlier wave is still stored broke the wave gate.
 *
 * @param namespace where the witnessed pods are
 * @param waves each Drain pod's wave (pod name → order); a pod is judged against every pod of a lower order
 * @param untouchable pods that must never be evicted or deleted (Skip, WaitCompleted)
 */
record DrainWitness(
        EmulatedCluster cluster,
        String namespace,
        Map<String, Integer> waves,
        Set<String> untouchable,
        ConcurrentLinkedQueue<String> violations,
        Map<String, List<String>> evictionsByUid,
        LongFunction<String> clock) {

    static DrainWitness watch(
            EmulatedCluster cluster,
            String namespace,
            Map<String, Integer> waves,
            Set<String> untouchable,
            LongFunction<String> clock) {
        DrainWitness w = new DrainWitness(
                cluster,
                namespace,
                Map.copyOf(waves),
                Set.copyOf(untouchable),
                new ConcurrentLinkedQueue<>(),
                new ConcurrentHashMap<>(),
                clock);
        cluster.requests().observe(w::judge);
        return w;
    }

    private void judge(ApiRequest r) {
        boolean eviction = r.is("create", "pods", "eviction");
        boolean delete = r.is("delete", "pods");
        if ((!eviction && !delete) || !namespace.equals(r.namespace())) {
            return;
        }
        String at = clock.apply(System.nanoTime());
        String what = (eviction ? "eviction" : "delete") + " of " + r.name() + " by " + r.userAgent() + " at " + at;
        if (untouchable.contains(r.name())) {
            violations.add(what + ": a Skip/WaitCompleted pod");
        }
        Optional<Pod> pod = cluster.stored(Pod.class, namespace, r.name());
        if (pod.isEmpty()) {
            violations.add(what + ": the pod is already gone (evicted before)");
            return;
        }
        String uid = pod.get().getMetadata().getUid();
        List<String> seen = evictionsByUid.computeIfAbsent(uid, u -> new ArrayList<>());
        synchronized (seen) {
            seen.add(what);
        }
        if (pod.get().getMetadata().getDeletionTimestamp() != null) {
            violations.add(what + ": the pod is already terminating (evicted twice, uid " + uid + ")");
        }
        Integer wave = waves.get(r.name());
        if (wave != null) {
            waves.forEach((other, otherWave) -> {
                if (otherWave < wave
                        && cluster.stored(Pod.class, namespace, other).isPresent()) {
                    violations.add(what + ": pod " + other + " of the earlier wave " + otherWave
                            + " is still on the node (wave " + wave + " started early)");
                }
            });
        }
    }

    /** Drain pods still stored (not evicted, or still terminating). */
    List<String> stillStored() {
        List<String> out = new ArrayList<>();
        for (String name : waves.keySet()) {
            if (cluster.stored(Pod.class, namespace, name).isPresent()) {
                out.add(name);
            }
        }
        return out;
    }

    /** Pods evicted at least once, by UID. */
    int evictedPods() {
        return evictionsByUid.size();
    }
}
