package dev.tenure.coordination;

import dev.tenure.election.LeaseKey;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Pure planning for moving leadership off a node (NodeMaintenance handover). A Lease is "held on" a node when its
 * holder is a LeaseCandidate (holder identity = candidate name, as CLE writes it) whose node is that node.
 */
public final class HandoverPlanner {

    /** One Lease held on the node and who should take it. */
    public record HandoverStep(LeaseKey lease, String holder, Optional<String> successor) {
    }

    private HandoverPlanner() {
    }

    /**
     * The best unexpired candidate for {@code lease} that does not run on {@code excludedNode} nor on a node in
     * {@code unavailableNodes}; ordering as OldestEmulationVersion (also MaintenanceAware's).
     *
     * @param nodeOf node of a candidate (label {@code tenure.dev/node}, else its Pod's node), empty if unknown
     */
    public static Optional<ObservedCandidate> bestCandidateExcluding(LeaseKey lease,
            Collection<ObservedCandidate> candidates, String excludedNode, Set<String> unavailableNodes,
            Function<ObservedCandidate, Optional<String>> nodeOf, ElectionPlanner planner, Instant now) {
        List<ObservedCandidate> eligible = planner.admissible(lease, candidates, now).stream()
                .filter(c -> nodeOf.apply(c)
                        .map(n -> !n.equals(excludedNode) && !unavailableNodes.contains(n))
                        .orElse(true))
                .toList();
        return CandidateRanking.pickBest(eligible);
    }

    /** Leases with a valid holder whose candidate runs on {@code node}. */
    public static List<ObservedLease> leasesHeldOn(String node, Collection<ObservedLease> leases,
            Map<LeaseKey, ObservedCandidate> candidatesByIdentity, Function<ObservedCandidate, Optional<String>> nodeOf,
            Instant now) {
        return leases.stream()
                .filter(l -> l.hasHolder() && !ElectionPlanner.isLeaseExpired(l, now))
                .filter(l -> {
                    ObservedCandidate holder = candidatesByIdentity.get(new LeaseKey(l.namespace(), l.holderIdentity()));
                    return holder != null && nodeOf.apply(holder).map(node::equals).orElse(false);
                })
                .toList();
    }

    /** For each Lease held on {@code node}: its successor off the node (empty when nobody else can lead). */
    public static List<HandoverStep> plan(String node, Collection<ObservedLease> leases,
            Collection<ObservedCandidate> candidates, Set<String> unavailableNodes,
            Function<ObservedCandidate, Optional<String>> nodeOf, ElectionPlanner planner, Instant now) {
        Map<LeaseKey, ObservedCandidate> byIdentity = byIdentity(candidates);
        return leasesHeldOn(node, leases, byIdentity, nodeOf, now).stream()
                .map(l -> new HandoverStep(l.key(), l.holderIdentity(),
                        bestCandidateExcluding(l.key(), candidates, node, unavailableNodes, nodeOf, planner, now)
                                .map(ObservedCandidate::name)))
                .toList();
    }

    static Map<LeaseKey, ObservedCandidate> byIdentity(Collection<ObservedCandidate> candidates) {
        return candidates.stream().collect(java.util.stream.Collectors.toMap(
                c -> new LeaseKey(c.namespace(), c.name()), Function.identity(), (a, b) -> a));
    }

}
