package dev.tenure.election;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * Port to LeaseCandidate objects, keyed by namespace and candidate name. Same error types and
 * concurrency rules as {@link LeaseStore}.
 */
public interface LeaseCandidateStore {

    CandidateRecord get(LeaseKey candidate);

    CandidateRecord create(LeaseKey candidate, CandidateRecord record);

    /** Conditional on {@code record.resourceVersion()}. */
    CandidateRecord update(LeaseKey candidate, CandidateRecord record);

    /** One candidate's changes; empty on delete. */
    LeaseStore.LeaseWatch watch(LeaseKey candidate, Consumer<Optional<CandidateRecord>> listener);
}
