package dev.tenure.maintenance.api;

/**
 * {@code spec.drain.placement}: what a maintenance does, before it takes its node's lease and cordons it, with the
 * placement forecast ({@code dev.tenure.placement.PlacementForecast}: will each pod the drain evicts fit on a node
 * that stays schedulable?).
 */
public enum PlacementPolicy {
    /**
     * The default, and {@code kubectl drain}'s behaviour (it checks nothing): the forecast is written to {@code
     * status.placement}; a pod that fits nowhere gets a Warning event {@code PodsWillNotFit} and condition {@code
     * PodsFit=False}, and the maintenance goes on.
     */
    Warn,
    /**
     * As {@link #Warn}, but while a pod fits nowhere (or is pinned by a volume) the maintenance stays Pending: no lease,
     * no cordon, no eviction; the forecast is made again when Nodes change, when a bound pod is deleted or finishes,
     * and at least every {@code tenure.maintenance.placement-recheck} (30 s), and once every pod fits the maintenance
     * goes on.
     */
    Wait,
    /** No forecast: nothing read, nothing written (the behaviour before the forecast existed). */
    Ignore
}
