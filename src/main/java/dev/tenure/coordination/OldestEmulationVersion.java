package dev.tenure.coordination;

import dev.tenure.election.Candidate;
import dev.tenure.election.CandidateRecord;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;

/**
 * The upstream strategy (coordination.k8s.io CoordinatedLeaseStrategy, CLE's pickBestLeaderOldestEmulationVersion):
 * lowest emulationVersion, then lowest binaryVersion, then oldest. Elected by Tenure only in upstream mode.
 */
public final class OldestEmulationVersion implements LeaseStrategy {

    /** The election core's client asks for it by default, so the one constant lives there. */
    public static final String NAME = Candidate.OLDEST_EMULATION_VERSION;

    static final OldestEmulationVersion INSTANCE = new OldestEmulationVersion();

    private OldestEmulationVersion() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean alwaysOn() {
        return false;
    }

    @Override
    public Optional<CandidateRecord> best(Collection<CandidateRecord> candidates, Set<String> unavailable) {
        return CandidateRanking.pickBest(candidates);
    }

    @Override
    public boolean ranked() {
        return true;
    }

    @Override
    public boolean avoidsUnavailableNodes() {
        return false;
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
