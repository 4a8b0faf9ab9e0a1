package dev.tenure.coordination;

import dev.tenure.election.CandidateRecord;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;

/**
 * A coordinated leader election strategy (a LeaseCandidate's and a Lease's {@code spec.strategy}) with the rules
 * that make it what it is. The planner and the controller ask the strategy, never compare its name; adding one
 * is adding one implementation (and its {@link #of} case) and its rows in {@code ElectionPlannerTest}.
 */
public sealed interface LeaseStrategy permits OldestEmulationVersion, MaintenanceAware, LeaseStrategy.Unknown {

    /** The name candidates ask for; null for a candidate that names none. */
    String name();

    /** Elected by Tenure whatever the configuration; otherwise only with upstream strategy handling turned on. */
    boolean alwaysOn();

    /**
     * The best candidate, when this strategy ranks candidates itself; empty when it has no ranking of its own (a
     * third party's) or no candidate can be ranked.
     */
    Optional<CandidateRecord> best(Collection<CandidateRecord> candidates, Set<String> unavailable);

    /** Whether {@link #best} ranks at all: only then is a candidate without parsable versions worth a warning. */
    boolean ranked();

    /**
     * Moves leadership off candidates whose node is cordoned or in maintenance: the controller computes which are,
     * the preferredHolder of a released Lease gets it, and a preferredHolder is withdrawn once the holder is the
     * best again (its node came back).
     */
    boolean avoidsUnavailableNodes();

    /** A bounded metric label: the name of a strategy Tenure knows, "other" for any name a user wrote. */
    default String metricLabel() {
        return "other";
    }

    /** The strategy a name stands for; a name Tenure does not know (or none) is a third party's {@link Unknown}. */
    static LeaseStrategy of(String name) {
        if (OldestEmulationVersion.NAME.equals(name)) {
            return OldestEmulationVersion.INSTANCE;
        }
        if (MaintenanceAware.NAME.equals(name)) {
            return MaintenanceAware.INSTANCE;
        }
        return new Unknown(name);
    }

    /** A third party's strategy (or none named): Tenure only writes it on the Lease, in upstream mode. */
    record Unknown(String name) implements LeaseStrategy {
        @Override
        public boolean alwaysOn() {
            return false;
        }

        @Override
        public Optional<CandidateRecord> best(Collection<CandidateRecord> candidates, Set<String> unavailable) {
            return Optional.empty();
        }

        @Override
        public boolean ranked() {
            return false;
        }

        @Override
        public boolean avoidsUnavailableNodes() {
            return false;
        }
    }
}
