package dev.tenure.coordination;

import dev.tenure.election.LeaseKey;
import java.util.List;

/**
 * What NodeMaintenance calls to move leaders off a node before draining it. Leases count when their holder is a
 * LeaseCandidate (holder identity = candidate name) running on the node (label {@code tenure.dev/node}, else its
 * Pod's node). MaintenanceAware Leases also move by themselves once the node is cordoned or tainted.
 */
public interface LeaseHandover {

    /** Leases with a valid holder on {@code node}. */
    List<LeaseKey> leasesHeldOn(String node);

    /**
     * Sets preferredHolder on every Lease held on {@code node} to the best candidate off that node (and off other
     * cordoned or maintained nodes); returns one step per such Lease, with an empty successor where nobody else
     * can lead. Idempotent.
     */
    List<HandoverPlanner.HandoverStep> requestHandover(String node);

    /** True when no Lease is held on {@code node} any more. */
    boolean handedOver(String node);
}
