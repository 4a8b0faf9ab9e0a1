package dev.tenure.maintenance.api;

/** {@code spec.preview}: for a pod whose budget allows no eviction, whether {@code evacuation: Surge} moves it. */
public enum SurgeOutlook {
    /** Its workload would be scaled up first, then the pod evicted ({@code surgeReason} says by how many). */
    Surges,
    /** It cannot surge ({@code surgeReason} names why); it is evicted as with {@code evacuation: Evict}. */
    CannotSurge
}
