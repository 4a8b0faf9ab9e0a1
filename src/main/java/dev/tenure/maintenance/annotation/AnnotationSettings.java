package dev.tenure.maintenance.annotation;

import dev.tenure.maintenance.api.PlacementPolicy;
import java.time.Duration;

/**
 * Settings of the annotation protocol ({@code tenure.maintenance.annotation.*}) plus where the per-node
 * lease lives (shared with NodeMaintenance: one lease per node is what makes the two doors exclusive).
 *
 * @param placement what the placement forecast before the cordon does ({@value #PLACEMENT_SETTING}; null: Warn), the
 *     annotation carrying no policy of its own
 */
public record AnnotationSettings(
        boolean enabled,
        String holder,
        Duration leasePadding,
        Duration maxDuration,
        String leaseNamespace,
        String leaseNamePrefix,
        PlacementPolicy placement) {

    /** The operator setting that holds this door's placement policy: what its messages name. */
    public static final String PLACEMENT_SETTING = "tenure.maintenance.annotation.placement";

    /** An enabled protocol with the default placement policy (Warn). */
    public AnnotationSettings(
            String holder, Duration leasePadding, Duration maxDuration, String leaseNamespace, String leaseNamePrefix) {
        this(true, holder, leasePadding, maxDuration, leaseNamespace, leaseNamePrefix);
    }

    /** The default placement policy (Warn). */
    public AnnotationSettings(
            boolean enabled,
            String holder,
            Duration leasePadding,
            Duration maxDuration,
            String leaseNamespace,
            String leaseNamePrefix) {
        this(enabled, holder, leasePadding, maxDuration, leaseNamespace, leaseNamePrefix, PlacementPolicy.Warn);
    }

    public AnnotationSettings {
        placement = placement == null ? PlacementPolicy.Warn : placement;
        if (holder == null || holder.isBlank()) {
            throw new IllegalArgumentException("tenure.maintenance.annotation.holder: must not be empty");
        }
        if (leasePadding.isNegative()
                || leasePadding.isZero()
                || leasePadding.toNanosPart() != 0
                || leasePadding.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("tenure.maintenance.annotation.lease-padding: must be a whole number of "
                    + "seconds from 1s to 24h, was " + leasePadding);
        }
        // One limit per concept: no maintenance, from either door, is longer than spec.window may be.
        if (maxDuration.compareTo(Duration.ofSeconds(1)) < 0
                || maxDuration.compareTo(dev.tenure.maintenance.api.GoDuration.MAX) > 0) {
            throw new IllegalArgumentException("tenure.maintenance.annotation.max-duration: must be between 1s and "
                    + dev.tenure.maintenance.api.GoDuration.MAX_TEXT + " (spec.window's limit), was " + maxDuration);
        }
    }

    public static AnnotationSettings defaults() {
        return new AnnotationSettings(
                "tenure-annotation", Duration.ofSeconds(30), Duration.ofDays(30), "tenure-system", "node-");
    }

    /** These settings with {@code placement} as the placement policy. */
    public AnnotationSettings withPlacement(PlacementPolicy placement) {
        return new AnnotationSettings(
                enabled, holder, leasePadding, maxDuration, leaseNamespace, leaseNamePrefix, placement);
    }

    public String leaseName(String nodeName) {
        return dev.tenure.maintenance.machine.BoundedNames.shorten(
                leaseNamePrefix + nodeName, dev.tenure.maintenance.machine.BoundedNames.DNS_SUBDOMAIN_MAX);
    }
}
