package dev.tenure.maintenance.door;

import dev.tenure.maintenance.admission.NodeMaintenanceAdmission;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The node a NodeMaintenance whose status is not this reconciler's own write is pinned to, judged on evidence: the
 * node whose maintenance Lease this operator holds for it, never the node a foreign status names. Another client may
 * patch {@code status.nodeName} of a running maintenance; trusting it would run (and at deletion, undo) the maintenance
 * of a node it never touched, and leave its own node cordoned under a lease nobody releases. Pure: the door reads the
 * Leases of the status's node and of the spec's node (one read each, only for a status not its own).
 *
 * <p>It stays now that the door's status writes carry the version they were decided from (issue 50 item 13): that
 * precondition keeps the door from writing over a status it did not see, but it does not stop another client from
 * writing one, and it cannot make what that client wrote true. A foreign {@code status.nodeName} still lands, and a
 * conflict now makes the door read it and decide from it ({@code NodeMaintenanceReconciler#readAgain}) where a blind
 * write used to replace it unseen; so the pin is still judged on the Leases, the one record of which node is ours.
 *
 * @param node the node it is pinned to; empty when neither the status nor the lease says it was admitted for one
 * @param leaseOurs this operator holds that node's lease for this maintenance: what was done on the node is ours to
 *     undo, whatever the status says of it
 */
record PinnedNode(Optional<String> node, boolean leaseOurs) {

    /**
     * A node the maintenance may be pinned to, as read.
     *
     * @param leaseHolder the holder of the node's maintenance Lease (empty: no Lease, or released)
     * @param otherStarted another NodeMaintenance that is not a joiner has started on the node: a lease of ours there
     *     is held for that one
     */
    record Candidate(String node, Optional<String> leaseHolder, boolean otherStarted) {
        boolean heldFor(Predicate<String> ours) {
            return !otherStarted && leaseHolder.filter(ours).isPresent();
        }
    }

    /**
     * The pin of a status that is not ours. The first candidate whose lease this operator holds for this maintenance
     * (the spec's node first: spec.nodeName is immutable, so a status naming another node is either foreign or the
     * record of an edit the door refused); with no lease of ours, the spec's node when the status claims a pin at all.
     *
     * @param recorded the node the status says it was pinned to ({@code NodeMaintenanceAdmission.pinnedNode})
     * @param specNode spec.nodeName (null when none)
     * @param candidates the spec's node and the recorded one, as read, spec's first
     * @param ours whether a lease holder is this operator (this instance or an earlier one)
     */
    static PinnedNode judge(
            Optional<String> recorded, String specNode, List<Candidate> candidates, Predicate<String> ours) {
        for (Candidate c : candidates) {
            if (c.heldFor(ours)) {
                return new PinnedNode(Optional.of(c.node()), true);
            }
        }
        return new PinnedNode(recorded.isEmpty() ? Optional.empty() : Optional.ofNullable(specNode), false);
    }

    private static final Pattern NODE_NAME = Pattern.compile(NodeMaintenanceSpec.NODE_NAME_PATTERN);

    /**
     * The nodes to read the leases of, spec's first: the spec's and the recorded one, each once, and only names a Node
     * may have (a foreign status may name anything; no lease of ours is named after a node that cannot exist).
     */
    static List<String> candidates(Optional<String> recorded, String specNode) {
        return Stream.concat(Optional.ofNullable(specNode).stream(), recorded.stream())
                .filter(n -> n.length() <= NodeMaintenanceSpec.MAX_NODE_NAME
                        && NODE_NAME.matcher(n).matches())
                .distinct()
                .toList();
    }

    /**
     * Where the maintenance stands so pinned: {@code recorded} (as its status says) when the pin agrees with it, else
     * pinned to {@link #node}, admitted (no cluster view); empty when it is pinned to no node (a spec without a node,
     * which the CRD refuses): the admission rules then say where it stands.
     */
    Optional<NodeMaintenanceAdmission.Standing> standing(NodeMaintenanceAdmission.Standing recorded) {
        if (node.equals(recorded.pinned())) {
            return Optional.of(recorded);
        }
        return node.map(n -> new NodeMaintenanceAdmission.Standing(node, n, false, recorded.generation()));
    }

    /** A status this reconciler wrote is its own record: the node it names is the pin, and its conditions say the rest. */
    static PinnedNode trusted(Optional<String> recorded) {
        return new PinnedNode(recorded, false);
    }
}
