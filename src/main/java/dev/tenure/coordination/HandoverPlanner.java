package dev.tenure.coordination;

import dev.tenure.election.CandidateRecord;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Pure planning for moving leadership off a node (NodeMaintenance handover). A Lease is "held on" a node when its
 * holder is a LeaseCandidate (holder identity = candidate name, as CLE writes it) whose node is that node.
 */
public final class HandoverPlanner {

    /** One Lease held on the node and who should take it. */
    public record HandoverStep(LeaseKey lease, String holder, Optional<String> successor) {}

    private HandoverPlanner() {}

    /**
     * The best unexpired candidate for {@code lease} that does not run on {@code excludedNode} nor on a node in
     * {@code unavailableNodes}; ordering as OldestEmulationVersion (also MaintenanceAware's).
     *
     * @param nodeOf node of a candidate (label {@code tenure.dev/node}, else its Pod's node), empty if unknown
     */
    public static Optional<CandidateRecord> bestCandidateExcluding(
            LeaseKey lease,
            Collection<CandidateRecord> candidates,
            String excludedNode,
            Set<String> unavailableNodes,
            Function<CandidateRecord, Optional<String>> nodeOf,
            ElectionPlanner planner,
            Instant now) {
        List<CandidateRecord> eligible = planner.admissible(lease, candidates, now).stream()
                .filter(c -> nodeOf.apply(c)
                        .map(n -> !n.equals(excludedNode) && !unavailableNodes.contains(n))
                        .orElse(true))
                .toList();
        return CandidateRanking.pickBest(eligible);
    }

    /** Leases with a valid holder whose candidate runs on {@code node}. */
    public static List<LeaseKey> leasesHeldOn(
            String node,
            Map<LeaseKey, LeaseRecord> leases,
            Map<LeaseKey, CandidateRecord> candidatesByIdentity,
            Function<CandidateRecord, Optional<String>> nodeOf,
            Instant now) {
        return leases.entrySet().stream()
                .filter(e -> e.getValue().hasHolder() && !ElectionPlanner.isLeaseExpired(e.getValue(), now))
                .filter(e -> {
                    CandidateRecord holder = candidatesByIdentity.get(
                            new LeaseKey(e.getKey().namespace(), e.getValue().holderIdentity()));
                    return holder != null
                            && nodeOf.apply(holder).map(node::equals).orElse(false);
                })
                .map(Map.Entry::getKey)
                .toList();
    }

    /** For each Lease held on {@code node}: its successor off the node (empty when nobody else can lead). */
    public static List<HandoverStep> plan(
            String node,
            Map<LeaseKey, LeaseRecord> leases,
            Collection<CandidateRecord> candidates,
            Set<String> unavailableNodes,
            Function<CandidateRecord, Optional<String>> nodeOf,
            ElectionPlanner planner,
            Instant now) {
        Map<LeaseKey, CandidateRecord> byIdentity = byIdentity(candidates);
        return leasesHeldOn(node, leases, byIdentity, nodeOf, now).stream()
                .map(key -> new HandoverStep(
                        key,
                        leases.get(key).holderIdentity(),
                        bestCandidateExcluding(key, candidates, node, unavailableNodes, nodeOf, planner, now)
                                .map(CandidateRecord::name)))
                .toList();
    }

    static Map<LeaseKey, CandidateRecord> byIdentity(Collection<CandidateRecord> candidates) {
        return candidates.stream()
                .collect(java.util.stream.Collectors.toMap(CandidateRecord::key, Function.identity(), (a, b) -> a));
    }
}
