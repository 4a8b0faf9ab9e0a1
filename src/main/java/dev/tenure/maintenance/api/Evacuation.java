package dev.tenure.maintenance.api;

/**
 * {@code spec.drain.evacuation}: how the drain moves a pod whose PodDisruptionBudget allows no eviction because its
 * workload has no spare replica (every pod the budget selects healthy, {@code disruptionsAllowed} 0).
 */
public enum Evacuation {
    /**
     * The default, and kubectl drain's behaviour: the eviction is retried every {@code evictionRetryDelay} until the
     * budget allows it or {@code spec.drain.timeout} passes ({@code onTimeout} decides).
     */
    Evict,
    /**
     * Surge first (issue 51): scale the pod's Deployment (or a ReplicaSet without one) up by its pods on the node, wait
     * until that many new pods are available elsewhere, evict, then give back the replicas still ours. Needs the
     * opt-in ClusterRole {@code tenure-operator-surge}; without it, or for a workload that cannot surge (named in the
     * preview: StatefulSet, bare pod, opted out by annotation {@code tenure.dev/surge: "false"}, Recreate strategy,
     * mid-rollout, budget forbids it, HPA-managed, would not fit), the pod is evicted as with {@link #Evict}.
     *
     * <p>The surge is recorded on the workload ({@code tenure.dev/surged-by}) and in {@code status.surges} before the
     * scale, every write resourceVersion-conditional, so a restart or a new leader finishes or undoes it; replicas
     * someone else changed meanwhile are left as they are and said once in a {@code SurgeLeft} event.
     */
    Surge
}
