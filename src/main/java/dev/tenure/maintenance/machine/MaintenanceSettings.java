package dev.tenure.maintenance.machine;

import java.time.Duration;
import java.util.List;

/**
 * Operator-wide settings of the maintenance machine (from {@code tenure.maintenance.*}).
 *
 * @param guardNamespaces namespaces whose node Leases ({@code <prefix><node>}) other controllers hold for maintenance
 *     and Tenure only reads: a maintenance does not start while one is validly held by another holder
 *     ({@link SharedNodeLeases}); {@code leaseNamespace} itself is skipped (there the claim decides)
 * @param placementRecheck how often a maintenance that {@code spec.drain.placement: Wait} holds makes its forecast
 *     again at the latest; Node changes and pods deleted or finished wake it sooner
 * @param idleLeaseDuration the node lease's duration while its maintenance has nothing to do on the node ({@link
 *     LeaseHold}): renewed every half of it, shortened to {@code leaseDuration} before any write; {@link
 *     Duration#ZERO}: off (the lease is always {@code leaseDuration} long, renewed every quarter)
 */
public record MaintenanceSettings(
        String leaseNamespace,
        String leaseNamePrefix,
        String holder,
        Duration leaseDuration,
        Duration windowPadding,
        Duration leaseWaitRetry,
        int evictionParallelism,
        Duration drainPollInterval,
        Duration staleNodeSkipWait,
        List<String> guardNamespaces,
        Duration placementRecheck,
        Duration idleLeaseDuration) {

    /** The default of {@link #placementRecheck()}. */
    public static final Duration PLACEMENT_RECHECK = Duration.ofSeconds(30);

    /**
     * The default of {@link #idleLeaseDuration()}: 30 min, renewed every 15 min, so an idle maintenance writes its
     * node Lease at most 4 times an hour; a crashed operator with no successor keeps a foreign claimant out this long.
     */
    public static final Duration IDLE_LEASE = Duration.ofMinutes(30);

    /** Where the medik8s family (node-maintenance-operator, NHC, SNR) and Tenure 0.1.0 keep node leases. */
    public static final String MEDIK8S_LEASES = "medik8s-leases";

    /** The settings with the default {@link #IDLE_LEASE}. */
    public MaintenanceSettings(
            String leaseNamespace,
            String leaseNamePrefix,
            String holder,
            Duration leaseDuration,
            Duration windowPadding,
            Duration leaseWaitRetry,
            int evictionParallelism,
            Duration drainPollInterval,
            Duration staleNodeSkipWait,
            List<String> guardNamespaces,
            Duration placementRecheck) {
        this(
                leaseNamespace,
                leaseNamePrefix,
                holder,
                leaseDuration,
                windowPadding,
                leaseWaitRetry,
                evictionParallelism,
                drainPollInterval,
                staleNodeSkipWait,
                guardNamespaces,
                placementRecheck,
                IDLE_LEASE);
    }

    /** The settings with the default guard ({@link #MEDIK8S_LEASES}). */
    public MaintenanceSettings(
            String leaseNamespace,
            String leaseNamePrefix,
            String holder,
            Duration leaseDuration,
            Duration windowPadding,
            Duration leaseWaitRetry,
            int evictionParallelism,
            Duration drainPollInterval,
            Duration staleNodeSkipWait) {
        this(
                leaseNamespace,
                leaseNamePrefix,
                holder,
                leaseDuration,
                windowPadding,
                leaseWaitRetry,
                evictionParallelism,
                drainPollInterval,
                staleNodeSkipWait,
                List.of(MEDIK8S_LEASES),
                PLACEMENT_RECHECK);
    }

    /** The settings with {@code guardNamespaces} and the default {@link #PLACEMENT_RECHECK}. */
    public MaintenanceSettings(
            String leaseNamespace,
            String leaseNamePrefix,
            String holder,
            Duration leaseDuration,
            Duration windowPadding,
            Duration leaseWaitRetry,
            int evictionParallelism,
            Duration drainPollInterval,
            Duration staleNodeSkipWait,
            List<String> guardNamespaces) {
        this(
                leaseNamespace,
                leaseNamePrefix,
                holder,
                leaseDuration,
                windowPadding,
                leaseWaitRetry,
                evictionParallelism,
                drainPollInterval,
                staleNodeSkipWait,
                guardNamespaces,
                PLACEMENT_RECHECK);
    }

    public MaintenanceSettings {
        if (holder == null || holder.isBlank()) {
            throw new IllegalArgumentException("tenure.maintenance.lease.holder: must not be empty");
        }
        if (leaseDuration.compareTo(Duration.ofSeconds(3)) < 0) {
            throw new IllegalArgumentException(
                    "tenure.maintenance.lease.duration: must be at least 3s, was " + leaseDuration);
        }
        if (evictionParallelism < 1) {
            throw new IllegalArgumentException(
                    "tenure.maintenance.eviction-parallelism: must be at least 1, was " + evictionParallelism);
        }
        if (drainPollInterval.isNegative() || drainPollInterval.isZero()) {
            throw new IllegalArgumentException("tenure.maintenance.drain-poll-interval: must be more than 0");
        }
        if (placementRecheck.isNegative() || placementRecheck.isZero()) {
            throw new IllegalArgumentException(
                    "tenure.maintenance.placement-recheck: must be more than 0, was " + placementRecheck);
        }
        if (idleLeaseDuration.isNegative()
                || (!idleLeaseDuration.isZero() && idleLeaseDuration.compareTo(leaseDuration) <= 0)) {
            throw new IllegalArgumentException("tenure.maintenance.lease.idle-duration: must be 0 (off) or longer than"
                    + " tenure.maintenance.lease.duration (" + leaseDuration + "), was " + idleLeaseDuration);
        }
        guardNamespaces = List.copyOf(guardNamespaces);
        for (String ns : guardNamespaces) {
            if (ns.isBlank()) {
                throw new IllegalArgumentException(
                        "tenure.maintenance.lease.guard-namespaces: names must not be blank, was " + guardNamespaces);
            }
        }
    }

    /** These settings with {@code namespaces} as {@link #guardNamespaces()} (empty: no guard). */
    public MaintenanceSettings withGuardNamespaces(List<String> namespaces) {
        return new MaintenanceSettings(
                leaseNamespace,
                leaseNamePrefix,
                holder,
                leaseDuration,
                windowPadding,
                leaseWaitRetry,
                evictionParallelism,
                drainPollInterval,
                staleNodeSkipWait,
                namespaces,
                placementRecheck,
                idleLeaseDuration);
    }

    /** These settings with {@code recheck} as {@link #placementRecheck()}. */
    public MaintenanceSettings withPlacementRecheck(Duration recheck) {
        return new MaintenanceSettings(
                leaseNamespace,
                leaseNamePrefix,
                holder,
                leaseDuration,
                windowPadding,
                leaseWaitRetry,
                evictionParallelism,
                drainPollInterval,
                staleNodeSkipWait,
                guardNamespaces,
                recheck,
                idleLeaseDuration);
    }

    /** These settings with {@code duration} as {@link #idleLeaseDuration()} ({@link Duration#ZERO}: off). */
    public MaintenanceSettings withIdleLeaseDuration(Duration duration) {
        return new MaintenanceSettings(
                leaseNamespace,
                leaseNamePrefix,
                holder,
                leaseDuration,
                windowPadding,
                leaseWaitRetry,
                evictionParallelism,
                drainPollInterval,
                staleNodeSkipWait,
                guardNamespaces,
                placementRecheck,
                duration);
    }

    public static MaintenanceSettings defaults() {
        return new MaintenanceSettings(
                "tenure-system",
                "node-",
                "tenure",
                Duration.ofSeconds(60),
                Duration.ofSeconds(30),
                Duration.ofSeconds(10),
                10,
                Duration.ofSeconds(2),
                Duration.ofSeconds(30));
    }

    /** {@code <prefix><nodeName>}, hash-suffixed when longer than a Lease name may be ({@link BoundedNames}). */
    public String leaseName(String nodeName) {
        return BoundedNames.shorten(leaseNamePrefix + nodeName, BoundedNames.DNS_SUBDOMAIN_MAX);
    }

    /**
     * The holder every instance of this operator shares as a prefix: {@code holder} up to its first {@code /}
     * ({@code tenure} for {@code tenure/<instance>}); the whole holder when it has no {@code /}.
     */
    public String holderFamily() {
        int slash = holder.indexOf('/');
        return slash < 0 ? holder : holder.substring(0, slash);
    }

    /**
     * Whether {@code other} is an earlier instance of this operator ({@code <family>/<another instance>}, or the bare
     * family an operator before instance holders wrote): a successor takes such a node lease over at once.
     */
    public boolean isPredecessor(String other) {
        String family = holderFamily();
        return other != null && !other.equals(holder) && (other.equals(family) || other.startsWith(family + "/"));
    }

    /** Whether {@code holder} is this operator: this instance, or an earlier one ({@link #isPredecessor}). */
    public boolean isOurs(String holder) {
        return holder != null && (holder.equals(this.holder) || isPredecessor(holder));
    }

    /** {@code family/instance}: the node-lease holder of one operator instance. */
    public static String instanceHolder(String family, String instance) {
        return family + "/" + instance;
    }

    /** Renew our lease when a third of its duration has passed (kubelet node-lease uses a quarter). */
    public Duration renewEvery() {
        return leaseDuration.dividedBy(3);
    }
}
