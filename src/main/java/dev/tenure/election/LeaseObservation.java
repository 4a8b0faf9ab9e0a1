package dev.tenure.election;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;

/**
 * What one elector knows of its Lease, by the observer view: the record last seen and when it was seen to change
 * (on the monotonic clock), the record of a lease deleted while held (honoured until it expires), a holder the watch
 * delivered that the loop has not handled yet, and the resourceVersion of our own last write. {@link #decide} turns
 * it into the next {@link ElectionDecision}.
 *
 * <p>Guarded by the election loop's lock, except the heard holder (set from the watch thread) and the holder
 * snapshot (read by anyone).
 */
final class LeaseObservation {
    private static final Logger LOG = Logger.getLogger(LeaderElector.class.getName());

    private final ElectionConfig config;

    private ObservedLease observed;
    /**
     * The latest record naming a holder that the watch delivered and the loop has not handled yet (the loop may be
     * busy in a slow call while events queue behind it): a read that finds the lease gone must not take it for a
     * free lease when a holder was heard meanwhile — that holder may still be working until its fence.
     */
    private final AtomicReference<LeaseRecord> heardHolder = new AtomicReference<>();
    /**
     * The last observation of a lease that was then deleted while held: its term is honoured until it expires on our
     * clock, unless a read or a later watch event shows a newer record, or we write.
     */
    private ObservedLease vanished;
    /** How many watch events had been heard when {@link #vanished} was last set: those are no newer than it. */
    private long vanishedAfter;
    /** Watch events heard so far (set on the watch thread). */
    private final AtomicLong heardCount = new AtomicLong();
    /** resourceVersion of the last record we saw ourselves write. */
    private String ownVersion;

    private volatile String holderView;
    private String reportedLeader;

    LeaseObservation(ElectionConfig config) {
        this.config = config;
    }

    /** The holder last observed (possibly ourselves), empty when none was seen. Lock-free. */
    Optional<String> holder() {
        String h = holderView;
        return h == null || h.isEmpty() ? Optional.empty() : Optional.of(h);
    }

    /** The holder last observed, as seen ("" or null when none). Lock-free. */
    String holderSeen() {
        return holderView;
    }

    /** The record last observed, or null when the lease is not known to exist. */
    LeaseRecord record() {
        return observed == null ? null : observed.record();
    }

    /** The last record observed names us. */
    boolean heldByUs() {
        return observed != null && observed.record().isHeldBy(config.identity());
    }

    // ------------------------------------------------------------------ the watch

    /** On the watch thread: an event arrived and is queued for the loop. Returns its count, in the watch's order. */
    long heard(Optional<LeaseRecord> event) {
        event.filter(LeaseRecord::hasHolder).ifPresent(heardHolder::set);
        return heardCount.incrementAndGet();
    }

    /** On the loop: the loop now handles {@code event}. */
    void handling(Optional<LeaseRecord> event) {
        event.ifPresent(rec -> heardHolder.compareAndSet(rec, null));
    }

    /** A later event naming a holder is queued behind the one the loop handles. */
    boolean holderHeardSince() {
        return heardHolder.get() != null;
    }

    // ------------------------------------------------------------------ what was seen

    /** Observes {@code rec}, read: newer than any event heard so far. */
    void observe(LeaseRecord rec) {
        observe(rec, Long.MAX_VALUE);
    }

    /**
     * Observes {@code rec}, the watch event counted {@code heardAs} by {@link #heard}. An event heard before a vanished
     * holder was honoured leaves it honoured: it was queued behind the read that found the lease gone (or behind the
     * deletion) and may be older than that holder — a renew and release of an earlier holder, run oldest first — so
     * it proves nothing about that holder's work. Anything newer (a read, a later event) replaces it as before.
     */
    void observe(LeaseRecord rec, long heardAs) {
        if (heardAs > vanishedAfter) {
            vanished = null;
        }
        observed = LeaseRules.observe(observed, rec, config.monotonic().instant());
        noteHolder(rec.holderIdentity());
    }

    /** We wrote {@code rec}: it is what we observe now, and a record with its version is ours. */
    void wrote(LeaseRecord rec) {
        LOG.fine(() -> config.identity() + ": wrote " + config.lease() + " holder=" + rec.holderIdentity() + " rv="
                + rec.resourceVersion());
        ownVersion = rec.resourceVersion();
        vanished = null;
        observed = new ObservedLease(rec, config.monotonic().instant());
        noteHolder(rec.holderIdentity());
    }

    /** We finished a deletion the holder had left: nothing is left to honour. */
    void letGo() {
        observed = null;
        vanished = null;
    }

    /**
     * A call found the lease gone (404): {@link #forget()} it, counting as its last holder the one the watch delivered
     * and the loop has not handled yet, if any, rather than the one we observed before — even when what we observed
     * was our own record (a fenced leader whose successor's events are still queued behind its read). Only when the
     * heard record names us while we observed someone else does the observation stand: another holder is the safe
     * side. (A deletion event is handled by forget() alone: a holder heard then is queued behind it.)
     */
    void foundGone() {
        LeaseRecord heard = heardHolder.getAndSet(null);
        boolean observedAnother = observed != null
                && observed.record().hasHolder()
                && !observed.record().isHeldBy(config.identity());
        if (heard != null && !(heard.isHeldBy(config.identity()) && observedAnother)) {
            observed = new ObservedLease(heard, config.monotonic().instant());
        }
        forget();
    }

    /**
     * The lease is gone while its last record named a holder: that holder may still be working, so the deletion
     * counts as a change seen now and the lease is free only a whole leaseDuration later. (Counting from when the
     * record was first seen would trust a view that missed the holder's latest renews, as a watch can.)
     */
    void forget() {
        if (observed != null && observed.record().hasHolder()) {
            honour(new ObservedLease(observed.record(), config.monotonic().instant()));
        }
        observed = null;
    }

    /**
     * Honours {@code gone} as a vanished holder, unless the one honoured already is another's that runs out later on
     * our clock: a record seen after a deletion may be older than the holder honoured then (our own included), and
     * must not shorten that wait.
     */
    private void honour(ObservedLease gone) {
        String identity = config.identity();
        Duration d = config.leaseDuration();
        if (vanished == null
                || vanished.record().isHeldBy(identity)
                || (!gone.record().isHeldBy(identity)
                        && !LeaseRules.observerExpiry(vanished, d).isAfter(LeaseRules.observerExpiry(gone, d)))) {
            vanished = gone;
        }
        vanishedAfter = heardCount.get();
    }

    /**
     * Our create lost to another contender's: someone holds the lease now, though we have not read it yet. Until
     * we do, count it as held from now, so a deletion before that read cannot make it look free.
     */
    void lostCreateRace(LeaseConflict e) {
        if (e.alreadyExists() && observed == null) {
            honour(new ObservedLease(
                    LeaseRecord.heldBy(
                            "(another contender)",
                            config.leaseDuration(),
                            config.clock().instant()),
                    config.monotonic().instant()));
        }
    }

    private void noteHolder(String holder) {
        holderView = holder;
        if (!holder.isEmpty() && !holder.equals(reportedLeader)) {
            reportedLeader = holder;
            config.callbackExecutor().execute(() -> config.onNewLeader().accept(holder));
        }
    }

    // ------------------------------------------------------------------ judging a record

    /** Names us, with no deletion requested and no other preferred holder: nothing in it asks us to let go. */
    boolean heldWithoutRival(LeaseRecord rec) {
        return rec.isHeldBy(config.identity())
                && !rec.deletionRequested()
                && (rec.preferredHolder() == null || rec.preferredHolder().equals(config.identity()));
    }

    /** A record naming us that we did not write, with a lease duration shorter than ours (not in coordinated mode). */
    boolean shortenedByAnother(LeaseRecord rec) {
        return !config.coordinated()
                && !Objects.equals(rec.resourceVersion(), ownVersion)
                && rec.leaseDuration()
                        .map(d -> d.compareTo(config.leaseDuration()) < 0)
                        .orElse(false);
    }

    /** What to do now ({@code now} on the monotonic clock), given what was observed and whether we lead. */
    ElectionDecision decide(Instant now, boolean leading) {
        String identity = config.identity();
        if (!config.coordinated()
                && !leading
                && observed != null
                && observed.record().isHeldBy(identity)
                && !Objects.equals(observed.record().resourceVersion(), ownVersion)
                && !LeaseRules.observerExpired(observed, now, config.leaseDuration())) {
            // A record naming us that we never saw ourselves write: an abandoned write that landed late, or an earlier
            // process under our name. Whoever led until then may still be stopping, so it is honoured like anyone
            // else's record until it expires. (Coordinated: the controller names the holder, and only on a free or
            // expired lease, so its assignment is what we act on.)
            return new ElectionDecision.Wait(identity, LeaseRules.observerExpiry(observed, config.leaseDuration()));
        }
        if (!config.coordinated() // the controller assigns the holder; an assignment is acted on as before
                && !leading
                && vanished != null
                && !vanished.record().isHeldBy(identity)
                && !LeaseRules.observerExpired(vanished, now, config.leaseDuration())) {
            return new ElectionDecision.Wait(
                    vanished.record().holderIdentity(), LeaseRules.observerExpiry(vanished, config.leaseDuration()));
        }
        Instant wall = config.clock().instant();
        return config.coordinated()
                ? LeaseRules.decideCoordinated(identity, observed, now, wall, config.leaseDuration())
                : LeaseRules.decide(identity, observed, now, wall, config.leaseDuration());
    }
}
