package dev.tenure.operator;

import io.smallrye.config.WithDefault;
import java.time.Duration;

/** {@code tenure.maintenance.annotation.*}: the node annotation protocol ({@code lifecycle.metal3.io/maintenance}). */
public interface AnnotationProtocolConfig {

    /** Whether Nodes carrying the annotation are put into maintenance at all. */
    @WithDefault("true")
    boolean enabled();

    /**
     * holderIdentity of the per-node lease taken for an annotation. Distinct from the NodeMaintenance holder
     * ({@code tenure.maintenance.lease.holder}) so the lease itself tells which front door holds the node.
     */
    @WithDefault("tenure-annotation")
    String holder();

    /** Lease duration = the annotation's seconds + this; teardown must finish within it. */
    @WithDefault("30s")
    Duration leasePadding();

    /** Longer requests are refused as malformed (status {@code invalid: ...}). */
    @WithDefault("720h")
    Duration maxDuration();

    /**
     * What the placement forecast before the cordon does for a maintenance the annotation requests (the annotation
     * carries only a duration, so the operator sets it for every annotated node): Warn, Wait or Ignore, as a
     * NodeMaintenance's {@code spec.drain.placement}.
     */
    @WithDefault("Warn")
    dev.tenure.maintenance.api.PlacementPolicy placement();
}
