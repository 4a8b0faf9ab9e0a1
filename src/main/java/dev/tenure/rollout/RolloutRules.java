package dev.tenure.rollout;

import java.time.Duration;
import java.util.Objects;

/**
 * A rollout's spec resolved for the planner, for a pool of a given size ({@link RolloutSpecs#rules} builds it and
 * refuses a bad spec naming the field).
 *
 * @param maxUnavailable selected nodes that may be unavailable at once, at least 1
 * @param maxPerDomain selected nodes that may be unavailable at once in one topology domain ({@link Integer#MAX_VALUE}:
 *     no limit)
 * @param failureBudget failed nodes at which the rollout pauses, at least 1
 * @param soak how long a done node must have been Ready before its slot frees
 * @param soakTimeout a done node not soaked this long after it was done has failed
 * @param doneTimeout a node not done this long after it started has failed; null: no limit
 * @param gateTimeout a health gate closed this long pauses the rollout (reason GateTimeout) until it opens
 */
public record RolloutRules(
        int maxUnavailable,
        int maxPerDomain,
        int failureBudget,
        boolean paused,
        DoneSignal doneSignal,
        Duration soak,
        Duration soakTimeout,
        Duration doneTimeout,
        Duration gateTimeout) {

    /** {@code spec.health.gateTimeout}'s default. */
    public static final Duration DEFAULT_GATE_TIMEOUT = Duration.ofMinutes(30);

    /** Rules with the default gate timeout. */
    public RolloutRules(
            int maxUnavailable,
            int maxPerDomain,
            int failureBudget,
            boolean paused,
            DoneSignal doneSignal,
            Duration soak,
            Duration soakTimeout,
            Duration doneTimeout) {
        this(
                maxUnavailable,
                maxPerDomain,
                failureBudget,
                paused,
                doneSignal,
                soak,
                soakTimeout,
                doneTimeout,
                DEFAULT_GATE_TIMEOUT);
    }

    public RolloutRules {
        if (maxUnavailable < 1) {
            throw new IllegalArgumentException("maxUnavailable must be at least 1, was " + maxUnavailable);
        }
        if (maxPerDomain < 1) {
            throw new IllegalArgumentException("maxPerDomain must be at least 1, was " + maxPerDomain);
        }
        if (failureBudget < 1) {
            throw new IllegalArgumentException("failureBudget must be at least 1, was " + failureBudget);
        }
        Objects.requireNonNull(doneSignal, "doneSignal");
        Objects.requireNonNull(soak, "soak");
        Objects.requireNonNull(soakTimeout, "soakTimeout");
        Objects.requireNonNull(gateTimeout, "gateTimeout");
        if (gateTimeout.isNegative() || gateTimeout.isZero()) {
            throw new IllegalArgumentException("gateTimeout must be positive, was " + gateTimeout);
        }
    }

    /**
     * A count, or a percentage of {@code selected} rounded down, then 1 if that is 0. The rounding is apimachinery's
     * {@code intstr.GetScaledValueFromIntOrPercent} with {@code roundUp=false} (50% of 11 is 5, never 6), and the 1 is
     * the Deployment controller's {@code ResolveFenceposts} (kubernetes {@code pkg/controller/deployment/util}, the
     * same in Cluster API's {@code mdutil}) with maxSurge 0: there, 1 is used only when maxSurge and maxUnavailable
     * both resolve to 0; a rollout has no surge, so it always applies (a rollout with 0 would never start a node). The
     * failure budget takes the same rule; Cluster API's MachineHealthCheck rounds maxUnhealthy down with no minimum,
     * but it stops past its value while a budget pauses at it, so 0 would pause before the first node.
     */
    public static int scaled(int count, Integer percent, int selected) {
        if (percent == null) {
            return count;
        }
        return Math.max(1, (int) Math.floor(percent * (double) selected / 100.0));
    }
}
