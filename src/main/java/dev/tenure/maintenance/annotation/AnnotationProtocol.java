package dev.tenure.maintenance.annotation;

import dev.tenure.election.AuthorityStatus;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseRules;
import dev.tenure.maintenance.annotation.MaintenanceAnnotation.Request;
import java.time.Duration;
import java.time.Instant;

/**
 * The node maintenance lease protocol ({@code lifecycle.metal3.io/maintenance}) as a pure function of what
 * is observed (the Node's annotations, the node's Lease), now and the settings. Follows the reference's order
 * of checks, with its review's defects fixed (each marked FIX below):
 *
 * <ol>
 *   <li>FIX (take-over of a valid lease): a lease held by another holder is never taken while it is valid by
 *       the authority view ({@code renewTime + leaseDuration}, the Kubernetes meaning, via
 *       {@link LeaseRules#authorityStatus}); "holder doesn't match" only takes a free or expired lease.</li>
 *   <li>FIX (unreachable {@code ended}): the reference deletes the request when it ends, so "request present
 *       and status ended" can only mean someone re-created the request afterwards. Tenure writes
 *       {@code ended} and the request's removal in one patch (no half state where our own failed delete looks
 *       like a re-creation), and checks {@code ended} before "interval changed" and "stale", which would
 *       otherwise catch the re-created request first and let it inherit the old window.</li>
 *   <li>FIX (stale vs. our own overrun): a lease past {@code acquireTime + leaseDuration} is a new request
 *       ({@code new, stale}) only when it is not the lease the maintenance we ran for this request was
 *       taken under (recorded on the Node); when it is, the window simply passed while we could not act (operator
 *       down, API errors), and the maintenance ends instead of starting over for another full interval.</li>
 *   <li>FIX (lost lease): when our lease ran out before the undo finished, it is re-taken for the padding only if
 *       it still names us (a conditional write); if another holder has it, the node marks are left to that
 *       holder (Tenure's marks restore only what was there before, so whoever ends last restores the node).</li>
 *   <li>Leases are measured as the reference says: the window by {@code acquireTime + leaseDuration}, the time
 *       left for the undo by {@code renewTime + leaseDuration} (after a re-take renewTime moved, acquireTime not).</li>
 *   <li>"Set LeaseDurationSeconds = 0" is written as an unset duration: the API server refuses 0
 *       ({@code must be greater than 0}); both mean "not held" to every reader.</li>
 * </ol>
 */
public final class AnnotationProtocol {

    /** renewTime further ahead than this is not trusted (same tolerance as the NodeMaintenance lease). */
    public static final Duration FUTURE_TOLERANCE = Duration.ofSeconds(10);

    private AnnotationProtocol() {}

    /**
     * What the controller observed.
     *
     * @param request the request annotation's raw value, {@code null} when absent
     * @param status the status annotation, {@code null} when absent
     * @param lease the node's lease, {@code null} when it does not exist
     * @param servedAcquireTime acquireTime of the lease the maintenance we ran for this Node was taken under
     *     (from {@link MaintenanceAnnotation#STATE}), {@code null} when none
     */
    public record Observed(String request, String status, LeaseRecord lease, Instant servedAcquireTime) {}

    public static AnnotationDecision decide(Observed o, Instant now, AnnotationSettings settings) {
        if (o.request() == null) {
            return withoutRequest(o, now, settings);
        }
        Request parsed = MaintenanceAnnotation.parse(o.request(), settings.maxDuration());
        if (parsed instanceof Request.Invalid invalid) {
            return new AnnotationDecision.Refuse(invalid.why());
        }
        long seconds = ((Request.Seconds) parsed).seconds();
        Duration padding = settings.leasePadding();
        Duration duration = Duration.ofSeconds(seconds).plus(padding);
        int durationSeconds = (int) duration.toSeconds();
        String holder = settings.holder();
        LeaseRecord lease = o.lease();

        // Valid lease, not ours: wait (never taken over while valid; FIX 1).
        if (lease != null
                && !lease.isHeldBy(holder)
                && LeaseRules.authorityStatus(lease, now, FUTURE_TOLERANCE) instanceof AuthorityStatus.Valid valid) {
            return new AnnotationDecision.Wait(valid.holder(), valid.expiresAt());
        }
        // No lease: create it (the reference counts this as the first transition).
        if (lease == null) {
            return new AnnotationDecision.WriteLease(
                    LeaseRules.createdRecord(holder, now, duration).withLeaseTransitions(1),
                    true,
                    MaintenanceAnnotation.NEW_CREATE);
        }
        // Free or expired lease of another holder: take it (transitions + 1, acquireTime now).
        if (!lease.isHeldBy(holder)) {
            return new AnnotationDecision.WriteLease(
                    LeaseRules.heldRecord(lease, holder, now, duration), false, MaintenanceAnnotation.NEW_ACQUIRED);
        }
        // Ours, but its duration was unset when our last maintenance finished: a new one.
        if (lease.leaseDuration().isEmpty()) {
            return new AnnotationDecision.WriteLease(
                    fresh(lease, now, durationSeconds).withLeaseTransitions(lease.leaseTransitions() + 1),
                    false,
                    MaintenanceAnnotation.NEW);
        }
        // Ours, still counting, yet we reported ended: the request was re-created before the undo finished (FIX 2).
        if (MaintenanceAnnotation.ENDED.equals(o.status())) {
            return new AnnotationDecision.WriteLease(
                    fresh(lease, now, durationSeconds), false, MaintenanceAnnotation.NEW_RECREATE);
        }
        // Interval changed: new duration from the same start (acquireTime kept), renewTime now.
        if (lease.leaseDurationSeconds() != durationSeconds) {
            return new AnnotationDecision.WriteLease(
                    lease.withLeaseDurationSeconds(durationSeconds).withRenewTime(now),
                    false,
                    MaintenanceAnnotation.UPDATED);
        }
        Instant windowEnd =
                lease.acquireTime() == null ? null : lease.acquireTime().plus(duration);
        boolean ranThisRequest =
                lease.acquireTime() != null && lease.acquireTime().equals(o.servedAcquireTime());
        // The lease records a previous window: a new request (FIX 3: unless it is the window we ran).
        if ((windowEnd == null || now.isAfter(windowEnd)) && !ranThisRequest) {
            return new AnnotationDecision.WriteLease(
                    fresh(lease, now, durationSeconds), false, MaintenanceAnnotation.NEW_STALE);
        }
        // (now + padding) > (acquireTime + duration): the requested seconds are over.
        if (now.plus(padding).isAfter(windowEnd)) {
            return new AnnotationDecision.End(true, leaseEnd(lease));
        }
        return new AnnotationDecision.Maintain(windowEnd.minus(padding));
    }

    private static AnnotationDecision withoutRequest(Observed o, Instant now, AnnotationSettings settings) {
        LeaseRecord lease = o.lease();
        boolean oursAndCounting = lease != null
                && lease.isHeldBy(settings.holder())
                && lease.leaseDuration().isPresent();
        if (oursAndCounting) {
            if (LeaseRules.authorityStatus(lease, now, FUTURE_TOLERANCE) instanceof AuthorityStatus.Valid valid) {
                return new AnnotationDecision.End(false, valid.expiresAt());
            }
            // Lost the lease before the undo finished (FIX 4): re-take it for the padding, then undo.
            return new AnnotationDecision.Reclaim(
                    lease.withLeaseDurationSeconds((int) settings.leasePadding().toSeconds())
                            .withRenewTime(now));
        }
        String status = o.status();
        if (status == null && o.servedAcquireTime() == null) {
            return new AnnotationDecision.Settle(null);
        }
        if (status == null
                || MaintenanceAnnotation.WAITING.equals(status)
                || status.startsWith(MaintenanceAnnotation.INVALID_PREFIX)) {
            // A withdrawn request that never held the node: nothing ended, nothing to report.
            return new AnnotationDecision.Settle(o.servedAcquireTime() == null ? null : MaintenanceAnnotation.ENDED);
        }
        return new AnnotationDecision.Settle(MaintenanceAnnotation.ENDED);
    }

    /** A new window from now: acquireTime, renewTime now, the requested duration; holder and transitions kept. */
    private static LeaseRecord fresh(LeaseRecord lease, Instant now, int durationSeconds) {
        return lease.withLeaseDurationSeconds(durationSeconds)
                .withAcquireTime(now)
                .withRenewTime(now);
    }

    /** Time left for the undo: the Kubernetes expiry of the lease. */
    static Instant leaseEnd(LeaseRecord lease) {
        Instant from = lease.renewTime() != null ? lease.renewTime() : lease.acquireTime();
        return from == null || lease.leaseDuration().isEmpty()
                ? Instant.MIN
                : from.plus(lease.leaseDuration().get());
    }
}
