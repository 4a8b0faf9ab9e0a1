package dev.tenure.coordination;

import dev.tenure.election.CandidateRecord;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Tenure's own strategy, always on: {@link OldestEmulationVersion}'s ordering minus candidates whose node is cordoned
 * or in maintenance, falling back to all of them when every candidate is on such a node (a leader on a draining node
 * beats no leader).
 */
public final class MaintenanceAware implements LeaseStrategy {

    public static final String NAME = "tenure.dev/MaintenanceAware";

    static final MaintenanceAware INSTANCE = new MaintenanceAware();

    private MaintenanceAware() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean alwaysOn() {
        return true;
    }

    @Override
    public Optional<CandidateRecord> best(Collection<CandidateRecord> candidates, Set<String> unavailable) {
        List<CandidateRecord> available =
                candidates.stream().filter(c -> !unavailable.contains(c.name())).toList();
        return CandidateRanking.pickBest(available).or(() -> CandidateRanking.pickBest(candidates));
    }

    @Override
    public boolean ranked() {
        return true;
    }

    @Override
    public boolean avoidsUnavailableNodes() {
        return true;
    }

    @Override
    public String metricLabel() {
        return NAME;
    }

    @Override
    public String toString() {
        return NAME;
    }
}
