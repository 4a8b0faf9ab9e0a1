package dev.tenure.coordination;

import dev.tenure.coordination.CandidateRanking.StrategyChoice;
import dev.tenure.coordination.ElectionStep.FailureReason;
import dev.tenure.coordination.ElectionStep.Outcome;
import dev.tenure.election.CandidateRecord;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseRules;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One election step as a pure function of (candidates, Lease, unavailable candidates, now): upstream CLE
 * {@code reconcileElectionStep} semantics, with these deliberate differences, each a fix:
 * <ul>
 *   <li>a {@code preferredHolder} that names a candidate which is gone or expired is cleared first
 *       (kubernetes PR 138066: otherwise the holder steps down for nobody and the election stalls);</li>
 *   <li>under MaintenanceAware, a holder that is the best again (its node came back) loses a left-over
 *       {@code preferredHolder};</li>
 *   <li>every failure is retried after {@link ElectionTiming#requeueInterval()} instead of waiting for an event;</li>
 *   <li>an ack given in the current ping round stays valid until the round closes (two windows after the
 *       ping), so an ack that lands a few milliseconds before the window ends is not lost to timer jitter;</li>
 *   <li>the strategy conflict check looks at every candidate at the highest binary version, not at list order;</li>
 *   <li>a Lease renewed further in the future than its own duration is treated as expired, not valid forever.</li>
 *   <li>a valid holder tied with the best candidate on emulation and binary version keeps the Lease: the
 *       creation-time tie-break only orders an election, it does not move a valid holder (upstream marks the
 *       older candidate preferredHolder, a handover between two equally good candidates).</li>
 * </ul>
 *
 * <p>One file over ~400 lines, on purpose: one pure step whose branches follow upstream's
 * {@code reconcileElectionStep} in its order, so the two read side by side; each branch is a row of
 * {@code ElectionPlannerTest}.
 */
public final class ElectionPlanner {

    private final ElectionTiming timing;
    private final boolean upstreamStrategyEnabled;

    public ElectionPlanner(ElectionTiming timing, boolean upstreamStrategyEnabled) {
        this.timing = Objects.requireNonNull(timing, "timing");
        this.upstreamStrategyEnabled = upstreamStrategyEnabled;
    }

    public ElectionTiming timing() {
        return timing;
    }

    /** MaintenanceAware always; OldestEmulationVersion and third-party strategies only in upstream mode. */
    public boolean handles(String strategy) {
        return LeaseStrategy.of(strategy).alwaysOn() || upstreamStrategyEnabled;
    }

    /** The strategies Tenure itself elects by: MaintenanceAware, and OldestEmulationVersion in upstream mode. */
    boolean ownsStrategy(String strategy) {
        LeaseStrategy s = LeaseStrategy.of(strategy);
        return s.ranked() && (s.alwaysOn() || upstreamStrategyEnabled);
    }

    /**
     * Authority view (the election core's {@link LeaseRules#authorityStatus}): renewTime + duration against our
     * clock; missing renewTime or duration is expired (upstream), and a renewTime more than one lease duration
     * ahead of our clock proves nothing, so it does not keep the Lease valid. A Lease without holder is judged
     * by its timestamps alone (upstream isLeaseExpired).
     */
    public static boolean isLeaseExpired(LeaseRecord lease, Instant now) {
        if (lease.renewTime() == null || lease.leaseDurationSeconds() == null || lease.leaseDurationSeconds() <= 0) {
            return true;
        }
        Duration duration = Duration.ofSeconds(lease.leaseDurationSeconds());
        LeaseRecord judged = lease.hasHolder() ? lease : lease.withHolderIdentity("(none)");
        return !LeaseRules.authorityStatus(judged, now, duration).isValid();
    }

    public boolean isCandidateExpired(CandidateRecord c, Instant now) {
        return c.renewTime() == null
                || c.renewTime().plus(timing.candidateValidity()).isBefore(now);
    }

    /** Unexpired candidates for the Lease {@code key}. */
    public List<CandidateRecord> admissible(LeaseKey key, Collection<CandidateRecord> all, Instant now) {
        return all.stream()
                .filter(c -> key.namespace().equals(c.namespace()) && key.name().equals(c.leaseName()))
                .filter(c -> !isCandidateExpired(c, now))
                .toList();
    }

    /**
     * The best candidate under {@code strategy}: OldestEmulationVersion ranks all; MaintenanceAware ranks those
     * not in {@code unavailable} and falls back to all when every candidate is unavailable (a leader on a
     * draining node beats no leader). Empty for strategies without a built-in ranking.
     */
    public static Optional<CandidateRecord> bestFor(
            String strategy, Collection<CandidateRecord> candidates, Set<String> unavailable) {
        return LeaseStrategy.of(strategy).best(candidates, unavailable);
    }

    /**
     * One election step.
     *
     * @param all         candidates from the cache (any Lease; filtered here)
     * @param lease       the Lease from the cache, or {@code null} when it does not exist
     * @param unavailable names of candidates in the Lease's namespace whose node is cordoned or in maintenance
     */
    public ElectionStep decide(
            LeaseKey key, Collection<CandidateRecord> all, LeaseRecord lease, Set<String> unavailable, Instant now) {
        return decide(key, all, lease, unavailable, now, ElectionPlanner::isLeaseExpired);
    }

    /** How a step judges whether the Lease has expired: by its timestamps alone (upstream), or by what was seen. */
    @FunctionalInterface
    public interface LeaseExpiry {
        boolean expired(LeaseRecord lease, Instant now);
    }

    /** One election step, judging the Lease's expiry by {@code expiry} (see {@link LeaseExpiry}). */
    public ElectionStep decide(
            LeaseKey key,
            Collection<CandidateRecord> all,
            LeaseRecord lease,
            Set<String> unavailable,
            Instant now,
            LeaseExpiry expiry) {
        Duration requeue = timing.requeueInterval();
        List<CandidateRecord> candidates = admissible(key, all, now);
        if (candidates.isEmpty()) {
            return ElectionStep.notManaged("no unexpired candidates");
        }
        boolean leaseValid = lease != null && lease.hasHolder() && !expiry.expired(lease, now);
        StrategyChoice prelim = CandidateRanking.pickStrategy(candidates);
        Optional<ElectionStep> notOurs = screenStrategy(candidates, prelim, leaseValid, requeue);
        if (notOurs.isPresent()) {
            return notOurs.get();
        }

        Set<String> names = candidates.stream().map(CandidateRecord::name).collect(Collectors.toSet());
        // a valid Lease of another controller's strategy is its business: upstream never writes one while it is valid
        boolean ownedLease = !leaseValid || lease.strategy() == null || ownsStrategy(lease.strategy());
        if (ownedLease && lease != null && lease.hasPreferredHolder() && !names.contains(lease.preferredHolder())) {
            return ElectionStep.write(
                    Outcome.CLEAR_PREFERRED_HOLDER,
                    lease.withPreferredHolder(null),
                    false,
                    "preferredHolder " + lease.preferredHolder() + " is no longer a candidate",
                    requeue);
        }

        if (leaseValid && !electionNeeded(candidates, lease, prelim.strategy(), unavailable, now, expiry)) {
            return ElectionStep.noChange(
                    "holder " + (lease == null ? null : lease.holderIdentity()) + " is already the best candidate",
                    requeue);
        }

        Optional<ElectionStep> pingStep = pingStep(candidates, now);
        if (pingStep.isPresent()) {
            return pingStep.get();
        }

        return elect(candidates, lease, unavailable, now, requeue, expiry);
    }

    /**
     * Whether the candidates' strategy is one this controller runs. Upstream: with no valid holder an election is
     * needed whatever the candidates' strategies say; the strategy is then picked among the candidates that answer
     * the ping, so a silent candidate with a conflicting strategy cannot block it. Tenure only joins when a candidate
     * asks for a strategy it runs.
     */
    private Optional<ElectionStep> screenStrategy(
            List<CandidateRecord> candidates, StrategyChoice prelim, boolean leaseValid, Duration requeue) {
        if (!leaseValid) {
            if (candidates.stream().noneMatch(c -> handles(c.strategy()))) {
                return Optional.of(ElectionStep.notManaged("strategy "
                        + (prelim.isConflict() ? prelim.conflict() : prelim.strategy())
                        + " is left to the API server's coordinated leader election"));
            }
        } else if (prelim.isConflict()) {
            boolean ours = upstreamStrategyEnabled
                    || candidates.stream()
                            .anyMatch(c -> LeaseStrategy.of(c.strategy()).alwaysOn());
            return Optional.of(
                    ours
                            ? ElectionStep.failed(FailureReason.STRATEGY_CONFLICT, prelim.conflict(), requeue)
                            : ElectionStep.notManaged(prelim.conflict()));
        } else if (!handles(prelim.strategy())) {
            return Optional.of(ElectionStep.notManaged(
                    "strategy " + prelim.strategy() + " is left to the API server's coordinated leader election"));
        }
        return Optional.empty();
    }

    /** The vote, once the ping round is over: strategy and electee among the acked candidates, then the write. */
    private ElectionStep elect(
            List<CandidateRecord> candidates,
            LeaseRecord lease,
            Set<String> unavailable,
            Instant now,
            Duration requeue,
            LeaseExpiry expiry) {
        List<CandidateRecord> acked =
                candidates.stream().filter(c -> acked(c, now)).toList();
        if (acked.isEmpty()) {
            return ElectionStep.failed(
                    FailureReason.NO_ACKED_CANDIDATES,
                    "no candidate answered the last ping within " + timing.electionWindow(),
                    requeue);
        }
        StrategyChoice choice = CandidateRanking.pickStrategy(acked);
        if (choice.isConflict()) {
            return ElectionStep.failed(FailureReason.STRATEGY_CONFLICT, choice.conflict(), requeue);
        }
        String strategy = choice.strategy();
        if (!handles(strategy)) {
            return ElectionStep.notManaged("strategy " + strategy + " is left to another controller");
        }
        boolean ranked = LeaseStrategy.of(strategy).ranked();
        String electee = bestKeepingValidHolder(strategy, acked, unavailable, lease, now, expiry)
                .map(CandidateRecord::name)
                .orElse(null);
        if (ranked && electee == null) {
            return ElectionStep.failed(
                    FailureReason.NO_VALID_CANDIDATE,
                    "no acked candidate has parsable binaryVersion and emulationVersion",
                    requeue);
        }

        electee = preferredHolderOfReleasedLease(strategy, lease, acked, unavailable, now, expiry)
                .orElse(electee);

        if (lease == null) {
            LeaseRecord created = new LeaseRecord(
                    electee, timing.leaseDurationSeconds(), null, now, 0, strategy, null, List.of(), null);
            return ElectionStep.write(
                    Outcome.CREATE_LEASE,
                    created,
                    true,
                    electee == null
                            ? "creating lease without holder for strategy " + strategy
                            : "creating lease for " + electee,
                    requeue);
        }
        return updateStep(lease, strategy, electee, now, requeue, expiry);
    }

    /**
     * MaintenanceAware: a Lease released (or expired) while it names a preferredHolder goes to that candidate when it
     * has acked and its node is available. The holder let go because of that name, and the name was chosen with the
     * draining node excluded; ranking again here could give the Lease straight back to a candidate on that node when
     * the node cache has not yet seen the cordon (Nodes and Leases come on different watches). Once someone holds
     * the Lease the usual ranking applies again, so a better candidate still gets it by the next preferredHolder.
     */
    private Optional<String> preferredHolderOfReleasedLease(
            String strategy,
            LeaseRecord lease,
            List<CandidateRecord> acked,
            Set<String> unavailable,
            Instant now,
            LeaseExpiry expiry) {
        if (!LeaseStrategy.of(strategy).avoidsUnavailableNodes()
                || lease == null
                || !lease.hasPreferredHolder()
                || (lease.hasHolder() && !expiry.expired(lease, now))
                || unavailable.contains(lease.preferredHolder())) {
            return Optional.empty();
        }
        return acked.stream()
                .filter(c -> c.name().equals(lease.preferredHolder()))
                .filter(CandidateRanking::validForOldestEmulationVersion)
                .map(CandidateRecord::name)
                .findFirst();
    }

    /** The Lease with a new holder as CLE writes it: renewed now, no acquireTime, no preferredHolder. */
    private static LeaseRecord withHolder(LeaseRecord lease, String holder, Instant renew, int durationSeconds) {
        return lease.withHolderIdentity(holder)
                .withPreferredHolder(null)
                .withRenewTime(renew)
                .withLeaseDurationSeconds(durationSeconds)
                .withAcquireTime(null);
    }

    private ElectionStep updateStep(
            LeaseRecord lease, String strategy, String electee, Instant now, Duration requeue, LeaseExpiry expiry) {
        LeaseRecord desired = lease;
        Outcome outcome = Outcome.NO_CHANGE;
        String detail = "lease already has the best holder " + lease.holderIdentity();
        if (!strategy.equals(lease.strategy())) {
            desired = desired.withStrategy(strategy);
            outcome = Outcome.SET_STRATEGY;
            detail = "strategy changed to " + strategy;
        }
        if (electee != null) {
            boolean expired = expiry.expired(lease, now);
            if (!lease.hasHolder() || (expired && !lease.holderIdentity().equals(electee))) {
                desired = withHolder(desired, electee, now, timing.leaseDurationSeconds());
                outcome = Outcome.SET_HOLDER;
                detail = (lease.hasHolder() ? "lease of " + lease.holderIdentity() + " expired" : "lease had no holder")
                        + ", holder set to " + electee;
            } else if (!lease.holderIdentity().equals(electee)) {
                if (!electee.equals(lease.preferredHolder())) {
                    desired = desired.withPreferredHolder(electee);
                    outcome = Outcome.SET_PREFERRED_HOLDER;
                    detail = "held by " + lease.holderIdentity() + ", should be held by " + electee;
                }
            } else if (lease.hasPreferredHolder() && LeaseStrategy.of(strategy).avoidsUnavailableNodes()) {
                // the holder's node is back from maintenance; OldestEmulationVersion keeps upstream's behaviour
                // (a preferredHolder stays until the holder changes), so a handover request is not undone
                desired = desired.withPreferredHolder(null);
                outcome = Outcome.CLEAR_PREFERRED_HOLDER;
                detail = "holder " + electee + " is the best again; preferredHolder " + lease.preferredHolder()
                        + " withdrawn";
            }
        }
        if (desired.equals(lease)) {
            return ElectionStep.noChange(detail, requeue);
        }
        return ElectionStep.write(outcome, desired, false, detail, requeue);
    }

    private boolean electionNeeded(
            List<CandidateRecord> candidates,
            LeaseRecord lease,
            String strategy,
            Set<String> unavailable,
            Instant now,
            LeaseExpiry expiry) {
        if (lease == null || !lease.hasHolder() || expiry.expired(lease, now)) {
            return true;
        }
        // every reelectionInterval all candidates are pinged, so live ones never reach candidateValidity
        for (CandidateRecord c : candidates) {
            if (c.renewTime().plus(timing.reelectionInterval()).isBefore(now)) {
                return true;
            }
        }
        Optional<CandidateRecord> best = bestKeepingValidHolder(strategy, candidates, unavailable, lease, now, expiry);
        if (best.isEmpty()) {
            return false;
        }
        if (best.get().name().equals(lease.holderIdentity())) {
            return LeaseStrategy.of(strategy).avoidsUnavailableNodes()
                    && lease.hasPreferredHolder()
                    && !lease.preferredHolder().equals(lease.holderIdentity());
        }
        return true;
    }

    /**
     * {@link #bestFor}, except that a valid holder tied with the best on emulation and binary version stays the
     * best: upstream's last tie-break (the older LeaseCandidate object) would otherwise move leadership between two
     * equally good candidates each time an older candidate comes back, a handover that buys nothing. Under
     * MaintenanceAware the holder only ties when its node is available or every candidate's node is unavailable
     * (then the best is picked among all of them). An expired or missing Lease is elected by the full ordering.
     */
    private static Optional<CandidateRecord> bestKeepingValidHolder(
            String strategy,
            List<CandidateRecord> candidates,
            Set<String> unavailable,
            LeaseRecord lease,
            Instant now,
            LeaseExpiry expiry) {
        Optional<CandidateRecord> best = bestFor(strategy, candidates, unavailable);
        if (best.isEmpty() || lease == null || !lease.hasHolder() || expiry.expired(lease, now)) {
            return best;
        }
        CandidateRecord b = best.get();
        boolean avoidsUnavailable = LeaseStrategy.of(strategy).avoidsUnavailableNodes();
        return candidates.stream()
                .filter(c -> c.name().equals(lease.holderIdentity()))
                .filter(CandidateRanking::validForOldestEmulationVersion)
                .filter(h -> CandidateRanking.sameVersions(h, b))
                .filter(h -> !avoidsUnavailable || !unavailable.contains(h.name()) || unavailable.contains(b.name()))
                .findFirst()
                .or(() -> best);
    }

    /**
     * Candidates that may still answer: those of {@code admissible} that did not let a ping go unanswered (pinged,
     * the window closed, no renewal since). A workload whose candidates were all killed keeps them admissible for
     * {@link ElectionTiming#candidateValidity()}; this count is 0 for it as soon as a ping goes unanswered.
     */
    public int liveCandidates(List<CandidateRecord> admissible, Instant now) {
        Duration window = timing.electionWindow();
        return (int) admissible.stream()
                .filter(c -> c.pingTime() == null
                        || c.renewTime() == null
                        || !c.renewTime().isBefore(c.pingTime())
                        || c.pingTime().plus(window).isAfter(now))
                .count();
    }

    /** Pings candidates that have not proven life within the window, or waits for pings already out. */
    private Optional<ElectionStep> pingStep(List<CandidateRecord> candidates, Instant now) {
        Duration window = timing.electionWindow();
        List<String> toPing = new ArrayList<>();
        Instant firstDeadline = null;
        for (CandidateRecord c : candidates) {
            if (awaitingAck(c, now)) {
                Instant deadline = c.pingTime().plus(window);
                firstDeadline = firstDeadline == null || deadline.isBefore(firstDeadline) ? deadline : firstDeadline;
                continue;
            }
            if (acked(c, now)) {
                continue;
            }
            // a candidate that ignored its last ping is not pinged again until it renews by itself (upstream); a
            // renewTime equal to the pingTime is not "ignored" (upstream re-pings it)
            if (c.pingTime() == null
                    || (c.pingTime().plus(window).isBefore(now) && !c.pingTime().isAfter(c.renewTime()))) {
                toPing.add(c.name());
            }
        }
        // Upstream's fast track: once a ping round has closed with answers, elect among those who answered rather
        // than ping again, so a candidate that cannot be pinged at all (its ping fails every time) blocks nothing.
        boolean roundClosedWithAnswers = candidates.stream().anyMatch(c -> answeredClosedRound(c, now));
        if (!toPing.isEmpty() && !roundClosedWithAnswers) {
            toPing.sort(Comparator.naturalOrder());
            return Optional.of(ElectionStep.ping(toPing, window));
        }
        if (firstDeadline != null) {
            return Optional.of(ElectionStep.awaitAcks(
                    "waiting for acks until " + firstDeadline, Duration.between(now, firstDeadline)));
        }
        return Optional.empty();
    }

    /** Answered a ping whose window has closed, within the two windows its round stays open. */
    private boolean answeredClosedRound(CandidateRecord c, Instant now) {
        Duration window = timing.electionWindow();
        return c.pingTime() != null
                && c.renewTime() != null
                && !c.pingTime().isAfter(c.renewTime())
                && !c.pingTime().plus(window).isAfter(now)
                && c.pingTime().plus(window.multipliedBy(2)).isAfter(now);
    }

    private boolean awaitingAck(CandidateRecord c, Instant now) {
        return c.pingTime() != null
                && c.pingTime().plus(timing.electionWindow()).isAfter(now)
                && c.renewTime() != null
                && c.renewTime().isBefore(c.pingTime());
    }

    /** Renewed within the window, or answered the current ping round (until two windows after the ping). */
    boolean acked(CandidateRecord c, Instant now) {
        Duration window = timing.electionWindow();
        if (c.renewTime() == null) {
            return false;
        }
        if (c.renewTime().plus(window).isAfter(now)) {
            return true;
        }
        return c.pingTime() != null
                && c.pingTime().isBefore(c.renewTime())
                && c.pingTime().plus(window.multipliedBy(2)).isAfter(now);
    }

    /**
     * Since when the Lease has had no valid holder, or empty while it has one. A missing Lease counts from the
     * oldest candidate's creation (the Lease has been wanted since then).
     */
    public static Optional<Instant> leaderlessSince(
            LeaseRecord lease, Collection<CandidateRecord> candidates, Instant now) {
        if (lease == null) {
            return candidates.stream()
                    .map(CandidateRecord::creationTimestamp)
                    .filter(Objects::nonNull)
                    .min(Comparator.naturalOrder())
                    .or(() -> Optional.of(now));
        }
        if (lease.hasHolder() && !isLeaseExpired(lease, now)) {
            return Optional.empty();
        }
        if (lease.renewTime() == null || lease.leaseDurationSeconds() == null) {
            return Optional.of(now);
        }
        Instant expiry = lease.renewTime().plusSeconds(lease.leaseDurationSeconds());
        return Optional.of(expiry.isAfter(now) ? now : expiry);
    }
}
