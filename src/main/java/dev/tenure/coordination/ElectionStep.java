package dev.tenure.coordination;

import dev.tenure.election.LeaseRecord;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What one election step should do for a Lease: at most one write (ping candidates, or create/update the Lease),
 * then when to look again. Produced by {@link ElectionPlanner}, carried out by {@link CoordinationController}.
 *
 * @param outcome      what kind of step this is
 * @param ping         candidates (names, in the Lease's namespace) whose {@code spec.pingTime} is set to now
 * @param lease        the Lease as it should be written, or {@code null} when the Lease is not written
 * @param createLease  whether {@link #lease} is created (else it is updated at its resourceVersion)
 * @param failure      why no election could be held, for {@link Outcome#FAILED}
 * @param detail       one line for the log
 * @param requeueAfter when to run the step again, or {@code null} to wait for the next event
 */
public record ElectionStep(
        Outcome outcome,
        List<String> ping,
        LeaseRecord lease,
        boolean createLease,
        FailureReason failure,
        String detail,
        Duration requeueAfter) {

    public enum Outcome {
        /** No unexpired candidate, or a strategy another controller handles: the Lease is not ours. */
        NOT_MANAGED,
        /** The holder is already the best candidate (or nobody better can be chosen). */
        NO_CHANGE,
        /** Candidates are asked to prove they are alive before a vote. */
        PING,
        /** Pings are out; waiting for acks or for the window to close. */
        AWAIT_ACKS,
        CREATE_LEASE,
        /** The Lease had no holder or expired: the elected candidate is written as holder. */
        SET_HOLDER,
        /** A valid Lease is held by a worse candidate: the better one is written as preferredHolder. */
        SET_PREFERRED_HOLDER,
        /** preferredHolder names a candidate that is gone, expired, or no longer the best: it is removed. */
        CLEAR_PREFERRED_HOLDER,
        /** Only the Lease's strategy changes (third-party strategy, upstream parity). */
        SET_STRATEGY,
        FAILED
    }

    /** Bounded set of failure reasons (also the metric label). */
    public enum FailureReason {
        STRATEGY_CONFLICT("strategy_conflict"),
        NO_ACKED_CANDIDATES("no_acked_candidates"),
        NO_VALID_CANDIDATE("no_valid_candidate");

        private final String label;

        FailureReason(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    public ElectionStep {
        ping = List.copyOf(ping);
    }

    static ElectionStep notManaged(String detail) {
        return new ElectionStep(Outcome.NOT_MANAGED, List.of(), null, false, null, detail, null);
    }

    static ElectionStep noChange(String detail, Duration requeueAfter) {
        return new ElectionStep(Outcome.NO_CHANGE, List.of(), null, false, null, detail, requeueAfter);
    }

    static ElectionStep ping(List<String> candidates, Duration requeueAfter) {
        return new ElectionStep(Outcome.PING, candidates, null, false, null, "pinging " + candidates, requeueAfter);
    }

    static ElectionStep awaitAcks(String detail, Duration requeueAfter) {
        return new ElectionStep(Outcome.AWAIT_ACKS, List.of(), null, false, null, detail, requeueAfter);
    }

    static ElectionStep write(
            Outcome outcome, LeaseRecord lease, boolean create, String detail, Duration requeueAfter) {
        return new ElectionStep(outcome, List.of(), lease, create, null, detail, requeueAfter);
    }

    static ElectionStep failed(FailureReason reason, String detail, Duration requeueAfter) {
        return new ElectionStep(Outcome.FAILED, List.of(), null, false, reason, detail, requeueAfter);
    }

    public Optional<LeaseRecord> leaseWrite() {
        return Optional.ofNullable(lease);
    }

    public Optional<Duration> requeue() {
        return Optional.ofNullable(requeueAfter);
    }

    /** The holder this step writes, when it elects someone (create with a holder, or a takeover). */
    public Optional<String> electedHolder() {
        if ((outcome == Outcome.CREATE_LEASE || outcome == Outcome.SET_HOLDER) && lease != null && lease.hasHolder()) {
            return Optional.of(lease.holderIdentity());
        }
        return Optional.empty();
    }
}
