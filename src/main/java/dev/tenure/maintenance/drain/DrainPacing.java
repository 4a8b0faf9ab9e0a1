package dev.tenure.maintenance.drain;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * When a draining node is looked at again, decided from what the step just did and what is left. Pure.
 *
 * <ul>
 *   <li>Pods still to evict beyond the batch just sent, and that batch met no API error: at once. Each
 *       reconcile still sends one bounded batch; only the wait between batches goes (kubectl drain sends all
 *       its evictions at once, paced only by its client's rate limit).</li>
 *   <li>Pods terminating: as long again as the node has waited since its last batch went out, at least
 *       {@link #FIRST_LOOK} and at most {@code drain-poll-interval}, so pods that stop promptly are seen
 *       promptly and slow ones cost one list per poll interval.</li>
 *   <li>Pods refused by a PodDisruptionBudget: no later than the first may be retried
 *       ({@code evictionRetryDelay} after its refusal); when nothing else is going on, exactly then.</li>
 *   <li>API errors: {@code drain-poll-interval}, never at once (a failing eviction is retried, not hammered).</li>
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
     */
    public record Progress(
            int leftToSend,
            boolean batchFailed,
            boolean terminating,
            Optional<Instant> lastBatchAt,
            Optional<Instant> firstRetryAt,
            Optional<Instant> deadline) {}

    private DrainPacing() {}

    public static Duration next(Progress p, Duration pollInterval, Instant now) {
        if (p.leftToSend() > 0 && !p.batchFailed()) {
            return NEXT_BATCH;
        }
        Duration next = pollInterval;
        if (p.terminating()) {
            Duration waited =
                    p.lastBatchAt().map(at -> Duration.between(at, now)).orElse(pollInterval);
            next = min(pollInterval, max(FIRST_LOOK, waited));
        } else if (p.firstRetryAt().isPresent() && !p.batchFailed()) {
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
