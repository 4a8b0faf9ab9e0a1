package dev.tenure.maintenance.annotation;

import dev.tenure.election.LeaseRecord;
import java.time.Instant;

/** What the annotation protocol says to do for one Node now; from {@link AnnotationProtocol#decide}. */
public sealed interface AnnotationDecision {

    /** Malformed request: report {@code invalid: why} and a Warning event; touch nothing else. */
    record Refuse(String why) implements AnnotationDecision {}

    /** Someone else validly holds the node's lease until {@code until}: report {@code waiting}, look again then. */
    record Wait(String holder, Instant until) implements AnnotationDecision {}

    /**
     * Write {@code lease} ({@code create}: it does not exist yet) and report {@code status}; then decide again
     * from the written lease (which leads to {@link Maintain} or {@link End}).
     */
    record WriteLease(LeaseRecord lease, boolean create, String status) implements AnnotationDecision {}

    /** The lease is ours and the window open: one step of the maintenance machine; the window closes at {@code endsAt}. */
    record Maintain(Instant endsAt) implements AnnotationDecision {}

    /**
     * The maintenance is over: report {@code ended} ({@code removeRequest}: and delete the request, in the same
     * patch), undo the node, stop the drain, unset the lease duration; each step only while the lease lasts
     * ({@code leaseEnd}), errors requeue.
     */
    record End(boolean removeRequest, Instant leaseEnd) implements AnnotationDecision {}

    /**
     * The request is gone and our lease ran out before the undo finished: take {@code lease} (ours, extended by
     * the padding, written only if nobody wrote in between), then {@link End}.
     */
    record Reclaim(LeaseRecord lease) implements AnnotationDecision {}

    /**
     * Nothing of ours to undo. {@code status}: what the status annotation should say ({@code null}: remove it);
     * our state record is dropped. Used when a withdrawn request was only waiting or invalid, and when another
     * holder took the lease after ours ran out (its node marks are now that holder's to undo).
     */
    record Settle(String status) implements AnnotationDecision {}
}
