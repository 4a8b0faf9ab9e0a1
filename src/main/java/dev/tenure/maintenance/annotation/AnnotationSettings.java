package dev.tenure.maintenance.annotation;

import java.time.Duration;

/**
 * Settings of the annotation protocol ({@code tenure.maintenance.annotation.*}) plus where the per-node
 * lease lives (shared with NodeMaintenance: one lease per node is what makes the two doors exclusive).
 */
public record AnnotationSettings(
        boolean enabled,
        String holder,
        Duration leasePadding,
        Duration maxDuration,
        String leaseNamespace,
        String leaseNamePrefix) {

    /** An enabled protocol. */
    public AnnotationSettings(
            String holder, Duration leasePadding, Duration maxDuration, String leaseNamespace, String leaseNamePrefix) {
        this(true, holder, leasePadding, maxDuration, leaseNamespace, leaseNamePrefix);
    }

    public AnnotationSettings {
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

    public String leaseName(String nodeName) {
        return dev.tenure.maintenance.machine.BoundedNames.shorten(
                leaseNamePrefix + nodeName, dev.tenure.maintenance.machine.BoundedNames.DNS_SUBDOMAIN_MAX);
    }
}
