package dev.tenure.coordination;

import dev.tenure.election.CandidateRecord;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * How candidates are ranked and which strategy a Lease gets; upstream CLE election.go semantics
 * (pickBestLeaderOldestEmulationVersion, compare, pickBestStrategy).
 */
public final class CandidateRanking {

    private CandidateRanking() {}

    /** The strategy for a set of candidates, or the reason none can be chosen. */
    public record StrategyChoice(String strategy, String conflict) {

        static StrategyChoice of(String strategy) {
            return new StrategyChoice(strategy, null);
        }

        static StrategyChoice conflicting(String message) {
            return new StrategyChoice(null, message);
        }

        public boolean isConflict() {
            return conflict != null;
        }
    }

    /**
     * Orders candidates best first: lowest emulation version, then lowest binary version, then oldest creation.
     * Unparsable versions count as 0.0.0 here (as upstream); {@link #pickBest} skips such candidates.
     */
    public static final Comparator<CandidateRecord> BEST_FIRST = CandidateRanking::compare;

    /** -1 when {@code lhs} is the better leader, 1 when {@code rhs} is; never 0 (a full tie goes to {@code lhs}). */
    public static int compare(CandidateRecord lhs, CandidateRecord rhs) {
        int result = emulationVersionOrZero(lhs).compareTo(emulationVersionOrZero(rhs));
        if (result == 0) {
            result = binaryVersionOrZero(lhs).compareTo(binaryVersionOrZero(rhs));
        }
        if (result == 0) {
            return creation(lhs).isAfter(creation(rhs)) ? 1 : -1;
        }
        return result;
    }

    /** Equal on emulation and binary version: only the creation-time tie-break tells them apart. */
    public static boolean sameVersions(CandidateRecord a, CandidateRecord b) {
        return emulationVersionOrZero(a).compareTo(emulationVersionOrZero(b)) == 0
                && binaryVersionOrZero(a).compareTo(binaryVersionOrZero(b)) == 0;
    }

    /** Both versions parse: only such candidates can be elected by OldestEmulationVersion. */
    public static boolean validForOldestEmulationVersion(CandidateRecord c) {
        return SemanticVersion.parseTolerant(c.emulationVersion()).isPresent()
                && SemanticVersion.parseTolerant(c.binaryVersion()).isPresent();
    }

    /** The best valid candidate by {@link #compare}, or empty when none has parsable versions. */
    public static Optional<CandidateRecord> pickBest(Collection<CandidateRecord> candidates) {
        CandidateRecord electee = null;
        for (CandidateRecord c : candidates) {
            if (!validForOldestEmulationVersion(c)) {
                continue;
            }
            if (electee == null || compare(electee, c) > 0) {
                electee = c;
            }
        }
        return Optional.ofNullable(electee);
    }

    /**
     * The strategy of the candidate with the highest binary version; candidates that share that version but
     * disagree on the strategy are a user error, reported as a conflict (the Lease is then left alone).
     */
    public static StrategyChoice pickStrategy(Collection<CandidateRecord> candidates) {
        if (candidates.isEmpty()) {
            return StrategyChoice.conflicting("no candidates");
        }
        SemanticVersion highest = candidates.stream()
                .map(CandidateRanking::binaryVersionOrZero)
                .max(Comparator.naturalOrder())
                .orElseThrow();
        List<CandidateRecord> newest = candidates.stream()
                .filter(c -> binaryVersionOrZero(c).compareTo(highest) == 0)
                .toList();
        TreeSet<String> strategies = newest.stream()
                .map(c -> c.strategy() == null ? "" : c.strategy())
                .collect(Collectors.toCollection(TreeSet::new));
        if (strategies.size() > 1) {
            return StrategyChoice.conflicting("candidates "
                    + newest.stream().map(CandidateRecord::name).sorted().toList() + " share binary version " + highest
                    + " but ask for different strategies "
                    + strategies);
        }
        return StrategyChoice.of(strategies.first());
    }

    static SemanticVersion emulationVersionOrZero(CandidateRecord c) {
        return SemanticVersion.parseTolerant(c.emulationVersion()).orElse(SemanticVersion.ZERO);
    }

    static SemanticVersion binaryVersionOrZero(CandidateRecord c) {
        return SemanticVersion.parseTolerant(c.binaryVersion()).orElse(SemanticVersion.ZERO);
    }

    private static Instant creation(CandidateRecord c) {
        return c.creationTimestamp() == null ? Instant.MIN : c.creationTimestamp();
    }
}
