package dev.tenure.operator;

import dev.tenure.maintenance.admission.MaintenanceLimits;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** {@code tenure.maintenance.*}: NodeMaintenance and the node lease it takes. */
public interface MaintenanceConfig {

    /** The per-node Lease; defaults interoperate with the medik8s family. */
    Lease lease();

    interface Lease {
        /**
         * Namespace of the per-node leases; default: the operator's own (where the tenure-node-leases Role
         * grants the lease calls). Another namespace must exist and grant the same calls: the operator
         * neither creates namespaces nor holds cluster-wide lease writes for maintenance.
         */
        Optional<String> namespace();

        /** Lease name is this prefix plus the node name. */
        @WithDefault("node-")
        String namePrefix();

        /**
         * The holder family of the node leases: each operator instance writes {@code <holder>/<its identity>} as
         * holderIdentity, and takes over a lease held by another {@code <holder>/…} (or the bare {@code <holder>})
         * at once, as the successor of an instance whose term has ended (leaseTransitions + 1).
         */
        @WithDefault("tenure")
        String holder();

        /** Lease duration while no window is set; the lease is renewed well within it. */
        @WithDefault("60s")
        Duration duration();

        /**
         * Lease duration while the maintenance has nothing to do on the node (drained and waiting for its end, or
         * failed and held): renewed every half of it, shortened to {@link #duration()} before any write to the node
         * or its pods; 0 turns it off.
         */
        @WithDefault("30m")
        Duration idleDuration();

        /** Added to the window for the lease duration, so cleanup finishes while the lease is still ours. */
        @WithDefault("30s")
        Duration windowPadding();

        /** How often a NodeMaintenance waiting for a foreign lease looks again (at most). */
        @WithDefault("10s")
        Duration waitRetry();

        /**
         * Namespaces whose node Leases ({@code <name-prefix><node>}) other controllers hold for maintenance and the
         * operator only reads ({@code get}): a NodeMaintenance does not start while one is validly held by a holder
         * outside {@link #holder()}'s family. The default is where the medik8s family and Tenure 0.1.0 keep them; the
         * lease namespace itself is skipped; {@value #NO_GUARD} turns the guard off.
         */
        @WithDefault(dev.tenure.maintenance.machine.MaintenanceSettings.MEDIK8S_LEASES)
        List<String> guardNamespaces();

        /** The value of {@link #guardNamespaces()} that turns the guard off (an empty value cannot be told apart). */
        String NO_GUARD = "none";
    }

    /** {@code tenure.maintenance.annotation.*}: the node annotation protocol (lifecycle.metal3.io/maintenance). */
    AnnotationProtocolConfig annotation();

    /** Evictions issued at once per node per reconcile. */
    @WithDefault("10")
    int evictionParallelism();

    /** Longest wait between looks at a draining node's terminating pods (the first look comes after 250 ms). */
    @WithDefault("2s")
    Duration drainPollInterval();

    /**
     * How often a NodeMaintenance that {@code spec.drain.placement: Wait} holds makes its placement forecast again at
     * the latest; a Node change and a pod deleted or finished wake it sooner.
     */
    @WithDefault("30s")
    Duration placementRecheck();

    /** skipWaitForDeleteTimeout used on a node whose kubelet lease is stale when the spec sets none. */
    @WithDefault("30s")
    Duration staleNodeSkipWait();

    /**
     * Cluster-wide cap on nodes in maintenance at once, a number ({@code 2}) or a percentage of the cluster's nodes
     * ({@code 25%}, rounded down); nodes unavailable for another reason (cordoned, Ready not True) count against it;
     * unset = no cap.
     */
    @WithConverter(NodeCountConverter.MaxNodes.class)
    Optional<MaintenanceLimits.NodeCount> maxNodesInMaintenance();

    /**
     * Cap on nodes in maintenance at once per topology domain (the nodes with one value of {@link #topologyKey}), a
     * number or a percentage of the domain's nodes (rounded down); unset = no such cap.
     */
    @WithConverter(NodeCountConverter.PerTopology.class)
    Optional<MaintenanceLimits.NodeCount> maxNodesInMaintenancePerTopology();

    /** The node label whose values are the domains of {@link #maxNodesInMaintenancePerTopology}. */
    @WithDefault("topology.kubernetes.io/zone")
    String topologyKey();

    /** Control-plane nodes that must stay out of maintenance; unset = a majority (etcd quorum). */
    OptionalInt controlPlaneMinAvailable();
}
