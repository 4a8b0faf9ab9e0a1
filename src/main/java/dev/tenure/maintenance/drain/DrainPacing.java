package dev.tenure.maintenance.drain;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * When a draining node is looked at again, decided from what the step just did and what is left. Pure.
 *
 * <ul>
 *   <li>Pods still to evict beyond the batch just sent, and that batch met no API error and no fence: at once. Each
 *       reconcile still sends one bounded batch; only the wait between batches goes (kubectl drain sends all
 *       its evictions at once, paced only by its client's rate limit).</li>
 *   <li>Pods terminating: as long again as the node has waited since its last batch went out, at least
 *       {@link #FIRST_LOOK} and at most {@code drain-poll-interval}, so pods that stop promptly are seen
 *       promptly and slow ones cost one list per poll interval.</li>
 *   <li>Pods refused by a PodDisruptionBudget: no later than the first may be retried
 *       ({@code evictionRetryDelay} after its refusal); when nothing else is going on, exactly then.</li>
 *   <li>API errors: {@code drain-poll-interval}, never at once; the pod whose eviction failed is not evicted again
 *       before its back-off ({@link #errorBackoff}) has passed, so a failing eviction is retried, not hammered.</li>
 *   <li>Evictions the fence refused before they went out ({@link Progress#fenceRefused}: the operator's term, the
 *       node lease, the window): as after API errors, {@code drain-poll-interval} (2 s by default), never at once. The
 *       step could not act for a reason only time ends (a term not yet renewed, a window about to close), and a step
 *       at once would meet the same refusal back to back, each listing the node's pods (client-go's leader election
 *       waits its RetryPeriod, 2 s, when it could not act). No API error either: their pods are not backed off
 *       ({@link #after}): the first step after the wait that the fence lets through sends them.</li>
 *   <li>Never past the drain timeout, and, except between batches, never sooner than {@link #MIN_WAIT}.</li>
 * </ul>
 */
public final class DrainPacing {

    /** Between batches: nothing to wait for. */
    static final Duration NEXT_BATCH = Duration.ZERO;
    /** First look at pods evicted a moment ago (kubectl drain polls every 1 s). */
    public static final Duration FIRST_LOOK = Duration.ofMillis(250);
    /** Floor for every wait but the one between batches. */
    static final Duration MIN_WAIT = Duration.ofMillis(100);

    /**
     * What one drain step saw and did.
     *
     * @param leftToSend pods to evict or delete that did not fit in the batch just sent
     * @param batchFailed an eviction or delete of the batch failed with an API error
     * @param terminating pods are terminating (before this step, or evicted by it)
     * @param lastBatchAt when the last batch that removed pods went out ({@code empty} = unknown, e.g. after a restart)
     * @param firstRetryAt earliest time a pod refused by a PodDisruptionBudget may be retried
     * @param deadline when the drain times out
     * @param fenceRefused an eviction or delete of the batch was refused by the fence before it went out
     */
    public record Progress(
            int leftToSend,
            boolean batchFailed,
            boolean terminating,
            Optional<Instant> lastBatchAt,
            Optional<Instant> firstRetryAt,
            Optional<Instant> deadline,
            boolean fenceRefused) {}

    /** The longest back-off after failed evictions of a pod, and the most of a server's Retry-After honoured. */
    public static final Duration MAX_ERROR_BACKOFF = Duration.ofMinutes(5);

    private DrainPacing() {}

    /**
     * How long to wait before evicting a pod again after its {@code failures}-th eviction in a row failed with an
     * error other than a budget's refusal (a 500, a timeout, API Priority and Fairness's 429): {@code pollInterval}
     * doubled per failure after the first (client-go's exponential per-item back-off), never more than {@link
     * #MAX_ERROR_BACKOFF}, and never less than the server's {@code Retry-After} (itself capped by the same bound). A
     * budget's 429 is not an error: its pod is retried every {@code spec.drain.evictionRetryDelay}, as kubectl drain
     * retries it every 5 s.
     *
     * @param failures consecutive failed evictions of the pod, at least 1
     * @param retryAfter the server's Retry-After of the last failure, when it sent one
     */
    public static Duration errorBackoff(int failures, Optional<Duration> retryAfter, Duration pollInterval) {
        if (failures < 1) {
            throw new IllegalArgumentException("failures must be at least 1, was " + failures);
        }
        Duration backoff = pollInterval;
        for (int i = 1; i < failures && backoff.compareTo(MAX_ERROR_BACKOFF) < 0; i++) {
            backoff = backoff.multipliedBy(2);
        }
        Duration capped = min(backoff, MAX_ERROR_BACKOFF);
        return retryAfter.map(r -> max(min(r, MAX_ERROR_BACKOFF), capped)).orElse(capped);
    }

    /**
     * A pod's failed evictions in a row (not a budget's refusals) and the end of its back-off.
     *
     * @param failures consecutive evictions of the pod the API server failed, at least 1
     * @param notBefore the pod is not evicted again before this
     */
    public record Backoff(int failures, Instant notBefore) {}

    /** What one eviction (or delete) came to, as far as its pod's back-off goes. */
    public enum Attempt {
        /** The API server failed it (an error, no answer): the pod backs off. */
        FAILED,
        /** The fence refused it before it went out (the node lease, the window, the term): no answer at all. */
        NOT_SENT,
        /** Any answer other than an error: evicted, deleted, gone, refused by a budget. */
        ANSWERED
    }

    /**
     * A pod's back-off after its eviction came to {@code attempt} at {@code now} ({@code prior}: its back-off before;
     * {@code retryAfter}: the server's Retry-After of a failure): an error of the API server ({@link Attempt#FAILED})
     * counts one more failure and waits {@link #errorBackoff}; an eviction the fence refused before it went out
     * ({@link Attempt#NOT_SENT}: the step outlived the node lease it was sent under) is no answer of the API server, so
     * it neither counts nor clears: {@code prior} stays; any other answer ends the back-off (empty).
     */
    public static Optional<Backoff> after(
            Optional<Backoff> prior,
            Attempt attempt,
            Optional<Duration> retryAfter,
            Duration pollInterval,
            Instant now) {
        return switch (attempt) {
            case FAILED -> {
                int failures = prior.map(Backoff::failures).orElse(0) + 1;
                yield Optional.of(new Backoff(failures, now.plus(errorBackoff(failures, retryAfter, pollInterval))));
            }
            case NOT_SENT -> prior;
            case ANSWERED -> Optional.empty();
        };
    }

    /** When to look at the node again after this step. */
    public static Duration next(Progress p, Duration pollInterval, Instant now) {
        boolean sent = !p.batchFailed() && !p.fenceRefused(); // the whole batch went out and was answered
        if (p.leftToSend() > 0 && sent) {
            return NEXT_BATCH;
        }
        Duration next = pollInterval;
        if (p.terminating()) {
            Duration waited =
                    p.lastBatchAt().map(at -> Duration.between(at, now)).orElse(pollInterval);
            next = min(pollInterval, max(FIRST_LOOK, waited));
        } else if (p.firstRetryAt().isPresent() && sent) {
            next = Duration.between(now, p.firstRetryAt().get()); // only refused pods left: nothing to see before
        }
        if (p.firstRetryAt().isPresent()) {
            next = min(next, Duration.between(now, p.firstRetryAt().get()));
        }
        if (p.deadline().isPresent()) {
            next = min(next, Duration.between(now, p.deadline().get()));
        }
        return max(MIN_WAIT, next);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
