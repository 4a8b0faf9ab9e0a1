package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.maintenance.drain.DrainPlan;
import dev.tenure.maintenance.drain.DrainPlan.Action;
import dev.tenure.maintenance.drain.DrainPlan.PodVerdict;
import dev.tenure.maintenance.drain.DrainReport;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The decisions of one node's maintenance, pure: what the request, the state kept so far and what was observed
 * ({@link DrainPlan}, a handover's outcome) mean at {@code now}. {@link MaintenanceMachine} is the executor: it reads
 * the cluster, asks here, and carries out the one step decided (as {@code ElectionPlanner} and the coordination
 * controller split the election).
 */
public final class MaintenancePlanner {

    /** How often a handover in progress is looked at: it reads informer caches, and the drain waits on it. */
    static final Duration HANDOVER_CHECK = Duration.ofMillis(500);
    /** Start of the LeadersHandedOver message when the step gave up; the condition's reason is then TimedOut. */
    static final String HANDOVER_TIMED_OUT = "handover did not finish within ";
    /** Start of lastError when WaitCompleted pods outlived their timeout: the named failure. */
    static final String WAIT_COMPLETED_TIMED_OUT = "WaitCompletedTimedOut: pods did not complete within ";

    /** Start of lastError when the drain outlived spec.drain.timeout: the named failure. */
    static final String DRAIN_TIMED_OUT = "DrainTimedOut: ";

    private static final Duration MIN_RENEW_LOOK = Duration.ofMillis(100);

    private MaintenancePlanner() {}

    // ------------------------------------------------------------------ lease and window

    /** When the request's window ends, counted from when the lease was first held; empty without a window. */
    static Optional<Instant> windowEnd(MaintenanceRequest request, MaintenanceState prior) {
        return request.window()
                .flatMap(w -> Optional.ofNullable(prior.leaseAcquiredAt()).map(a -> a.plus(w)));
    }

    /**
     * Until when the node lease is claimed: a window's end plus padding (fixed: renewals keep it), else a rolling
     * lease duration from now.
     */
    static Instant leaseUntil(
            MaintenanceRequest request, MaintenanceState prior, MaintenanceSettings settings, Instant now) {
        return request.window()
                .map(w -> Optional.ofNullable(prior.leaseAcquiredAt())
                        .orElse(now)
                        .plus(w)
                        .plus(settings.windowPadding()))
                .orElse(now.plus(settings.leaseDuration()));
    }

    /** Backoff after {@code errors} failed lease claims in a row: 2 s doubling to 60 s. */
    static Duration leaseErrorBackoff(int errors) {
        return Duration.ofSeconds(Math.min(60, 1L << Math.min(errors, 6)));
    }

    /** When to look again to keep our lease fresh (and to notice the end of the window). */
    static Duration renewIn(
            MaintenanceRequest request, MaintenanceState prior, MaintenanceSettings settings, Instant now) {
        Duration next = settings.renewEvery();
        Optional<Instant> windowEnd = request.window()
                .map(w ->
                        Optional.ofNullable(prior.leaseAcquiredAt()).orElse(now).plus(w));
        if (windowEnd.isPresent()) {
            next = min(next, Duration.between(now, windowEnd.get()));
        }
        return next.compareTo(MIN_RENEW_LOOK) < 0 ? MIN_RENEW_LOOK : next;
    }

    // ------------------------------------------------------------------ handover

    /** What the handover step's outcome means: carry on to the drain, or look again. */
    public sealed interface HandoverVerdict {
        /** Handed over (or given up on: {@code timedOut}); the drain may start. */
        record Done(String message, boolean timedOut) implements HandoverVerdict {}

        /** Still moving; look again after {@code requeueAfter}. */
        record Pending(String message, Duration requeueAfter) implements HandoverVerdict {}
    }

    /**
     * @param started when the handover step began
     * @param outcome what the handover port reported this time
     */
    static HandoverVerdict handover(
            HandoverOptions options,
            Instant started,
            LeadershipHandover.Outcome outcome,
            Duration pollInterval,
            Instant now) {
        if (outcome.done()) {
            return new HandoverVerdict.Done(outcome.message(), false);
        }
        Instant deadline = started.plus(options.timeout());
        if (!now.isBefore(deadline)) {
            return new HandoverVerdict.Done(
                    HANDOVER_TIMED_OUT + GoDuration.format(options.timeout()) + " (" + outcome.message()
                            + "); draining anyway",
                    true);
        }
        return new HandoverVerdict.Pending(
                outcome.message(), min(min(pollInterval, HANDOVER_CHECK), Duration.between(now, deadline)));
    }

    // ------------------------------------------------------------------ drain

    /** What one drain step does, from the node's {@link DrainPlan}. */
    public sealed interface DrainVerdict {
        /** A pod cannot be drained under these options: the maintenance fails, nothing is evicted. */
        record Refused(String message) implements DrainVerdict {}

        /** Every pod to drain is gone. */
        record Complete(String message) implements DrainVerdict {}

        /** {@code spec.drain.timeout} passed with pods still on the node. */
        record TimedOut(String message) implements DrainVerdict {}

        /** {@code spec.drain.waitCompletedTimeout} passed with WaitCompleted pods still running. */
        record WaitCompletedTimedOut(String message) implements DrainVerdict {}

        /** Send {@code batch} (evictions, or deletions where the options say so); {@code left} wait for later. */
        record Send(List<PodVerdict> batch, int left) implements DrainVerdict {}
    }

    static DrainVerdict drain(
            String nodeName,
            DrainPlan plan,
            DrainOptions options,
            int evictionPods,
            Instant started,
            int parallelism,
            Instant now) {
        return drain(nodeName, plan, options, evictionPods, started, parallelism, now, Map.of());
    }

    /**
     * As above; {@code held} ("ns/name" → cause class and budgets, {@link dev.tenure.maintenance.drain.BlockedPods})
     * explains each held pod in the timeout message.
     */
    static DrainVerdict drain(
            String nodeName,
            DrainPlan plan,
            DrainOptions options,
            int evictionPods,
            Instant started,
            int parallelism,
            Instant now,
            Map<String, String> held) {
        if (plan.refused()) {
            String why = plan.with(Action.REFUSE).stream()
                    .map(v -> v.key() + " (" + v.reason() + ")")
                    .collect(Collectors.joining(", "));
            return new DrainVerdict.Refused("cannot drain node " + nodeName + ": " + why);
        }
        if (plan.complete()) {
            return new DrainVerdict.Complete(
                    "node " + nodeName + " drained: " + evictionPods + " pod(s) evicted or gone");
        }
        Optional<Duration> waitLimit = options.waitCompletedTimeout();
        List<PodVerdict> running = plan.with(Action.WAIT_COMPLETED);
        if (!running.isEmpty() && waitCompletedTimedOut(options, started, now)) {
            return new DrainVerdict.WaitCompletedTimedOut(WAIT_COMPLETED_TIMED_OUT + GoDuration.format(waitLimit.get())
                    + " on node " + nodeName + ": "
                    + running.stream().map(PodVerdict::key).collect(Collectors.joining(", "))
                    + " (behaviour WaitCompleted by spec.drain.rules: never evicted)");
        }
        Optional<Duration> timeout = options.timeout();
        if (timeout.isPresent() && !now.isBefore(started.plus(timeout.get()))) {
            String blocking = String.join(
                    ", ",
                    DrainReport.listed(plan.pending().stream()
                            .map(v -> v.key() + " (" + DrainReport.describe(v, held) + ")")
                            .toList()));
            List<String> budgets = plan.blockingBudgets();
            return new DrainVerdict.TimedOut(DRAIN_TIMED_OUT + "drain of node " + nodeName + " did not finish within "
                    + GoDuration.format(timeout.get()) + "; pods still on it: " + blocking
                    + (budgets.isEmpty()
                            ? ""
                            : "; the last evictions were refused by PodDisruptionBudget "
                                    + String.join(", ", budgets)));
        }
        List<PodVerdict> toSend = plan.toSend();
        List<PodVerdict> batch = toSend.stream().limit(parallelism).toList();
        return new DrainVerdict.Send(batch, toSend.size() - batch.size());
    }

    /** {@code spec.drain.waitCompletedTimeout} has passed since the drain {@code started}. */
    static boolean waitCompletedTimedOut(DrainOptions options, Instant started, Instant now) {
        return options.waitCompletedTimeout()
                .filter(limit -> !now.isBefore(started.plus(limit)))
                .isPresent();
    }

    /**
     * lastError after a batch: an API error first, else a PodDisruptionBudget's refusal (no failure, but the user
     * must see which one, as kubectl drain prints it), kept until an answer replaces it.
     */
    static String lastErrorAfterBatch(String error, String blocked, boolean removed, String priorLastError) {
        if (error != null) {
            return error;
        }
        if (blocked != null) {
            return blocked;
        }
        // pods refused or backing off after an error are not sent again yet: what held them still holds
        return !removed && (blockedBefore(priorLastError) || failedBefore(priorLastError)) ? priorLastError : null;
    }

    private static boolean blockedBefore(String lastError) {
        return lastError != null && lastError.startsWith("eviction of pod ");
    }

    private static boolean failedBefore(String lastError) {
        return lastError != null && lastError.startsWith("removing pod ");
    }

    /**
     * The Warning that explains a drain waiting on pods that outlived their grace period, naming {@code firstSeen}
     * (the stuck pods not reported before: each pod once, not at every poll); empty when there are none.
     */
    static Optional<String> stuckTerminating(String nodeName, List<PodVerdict> firstSeen) {
        if (firstSeen.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("pods still on node " + nodeName + " past the end of their grace period: "
                + firstSeen.stream()
                        .map(v -> v.key() + " (grace period ended " + v.graceEnded() + ")")
                        .collect(Collectors.joining(", "))
                + "; the drain waits for them (something holds them: a finalizer, an unreachable kubelet, a container "
                + "that does not stop)");
    }

    public static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    public static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
