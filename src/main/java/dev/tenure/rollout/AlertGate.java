package dev.tenure.rollout;

import java.util.Objects;

/**
 * The alert gate's state as Prometheus's answer gives it: open, or closed with a reason and a message a person reads.
 * The planner reads it as one {@link GateState} of the whole rollout ({@link #asGate()}): while it is closed no waiting
 * node starts (nodes in flight go on to their end), and closed for gateTimeout it pauses the rollout. Pure; {@link AlertFilter} builds it from
 * Prometheus's answer and {@code PrometheusAlertSource} from a failed question.
 *
 * @param reason null when open; {@value #ALERTS_FIRING} (an alert that counts is active) or {@value #UNREACHABLE}
 *     (Prometheus could not be asked, or answered with an error or what is not a query result)
 * @param message what closed it, naming the alerts (at most {@link #MAX_NAMED}) or why Prometheus could not be asked
 */
public record AlertGate(boolean open, String reason, String message) {

    public static final String ALERTS_FIRING = "AlertsFiring";
    public static final String UNREACHABLE = "PrometheusUnreachable";
    /** Alerts named in a message at most, as Kured's log line (its first 10, then "..."). */
    public static final int MAX_NAMED = 10;

    /** Its name as a {@link GateState}, in status.gates and messages ("gate Alerts is closed: AlertsFiring: ..."). */
    public static final String GATE_NAME = "Alerts";

    /** The open gate: nodes may start. */
    public static final AlertGate OPEN = new AlertGate(true, null, null);

    public AlertGate {
        if (open != (reason == null)) {
            throw new IllegalArgumentException("an open gate has no reason, a closed one has one");
        }
    }

    /** Closed by Prometheus not answering as a Prometheus does: {@code why} says what happened. */
    public static AlertGate unreachable(String why) {
        return new AlertGate(false, UNREACHABLE, UNREACHABLE + ": " + Objects.requireNonNull(why, "why"));
    }

    /** Closed by alerts that count, {@code message} naming them. */
    static AlertGate firing(String message) {
        return new AlertGate(false, ALERTS_FIRING, message);
    }

    /**
     * The alert gate as one gate of the whole rollout ({@link GateState} with no node): its message, which starts
     * with its reason ({@value #ALERTS_FIRING} or {@value #UNREACHABLE}), is what the planner's WaitingForGate and
     * GateTimeout messages carry.
     */
    public GateState asGate() {
        return open ? GateState.open(GATE_NAME, null) : GateState.closed(GATE_NAME, null, message);
    }

    /** The state's label for metrics and events: {@code Open}, {@value #ALERTS_FIRING} or {@value #UNREACHABLE}. */
    public String state() {
        return open ? "Open" : reason;
    }
}
