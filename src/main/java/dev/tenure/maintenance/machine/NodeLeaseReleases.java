package dev.tenure.maintenance.machine;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import java.util.Objects;

/**
 * Which changes of a node lease may end another request's wait for it: a maintenance waiting for a node lease held
 * by the other door (a NodeMaintenance or the {@code lifecycle.metal3.io/maintenance} annotation) looks again when the
 * holder lets it go, not at its next timed look ({@code tenure.maintenance.lease.wait-retry}). Both doors watch the
 * lease namespace for these changes; a renewal of the same holder (every third of the lease's duration) is not one.
 */
public final class NodeLeaseReleases {

    private NodeLeaseReleases() {}

    /**
     * Whether the change from {@code before} to {@code after} may free the lease for a waiter: the holder changed or
     * was cleared (a release by {@code LeaseRules#releasedRecord}), or the duration was unset (the annotation
     * protocol's release, "LeaseDurationSeconds = 0", which the API refuses as 0). A renewal, a change of the
     * renewTime or of the owner references only is not.
     */
    public static boolean frees(Lease before, Lease after) {
        return !Objects.equals(holder(before), holder(after)) || (held(before) && !held(after));
    }

    private static String holder(Lease lease) {
        LeaseSpec spec = lease.getSpec();
        String h = spec == null ? null : spec.getHolderIdentity();
        return h == null || h.isEmpty() ? null : h;
    }

    private static boolean held(Lease lease) {
        LeaseSpec spec = lease.getSpec();
        return holder(lease) != null && spec.getLeaseDurationSeconds() != null && spec.getLeaseDurationSeconds() > 0;
    }
}
