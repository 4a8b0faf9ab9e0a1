package dev.tenure.maintenance.annotation;

import dev.tenure.kube.UserText;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The Node annotations of the maintenance lease protocol (reference: the node maintenance lease protocol
 * gist), and the parse of the request value. Pure.
 */
public final class MaintenanceAnnotation {

    /** The request: {@code "<seconds>"} of maintenance, starting when the lease is taken. */
    public static final String REQUEST = "lifecycle.metal3.io/maintenance";
    /** Where the protocol's state is reported. */
    public static final String STATUS = "lifecycle.metal3.io/maintenance-status";
    /**
     * Tenure's own record of the maintenance it runs for the request (lease acquireTime it belongs to and the
     * machine's state), so a restarted operator continues from the Node alone.
     */
    public static final String STATE = "tenure.dev/maintenance-annotation-state";

    // The protocol's status values, written as the reference writes them ("new, create").
    public static final String WAITING = "waiting";
    public static final String NEW_CREATE = "new, create";
    public static final String NEW_ACQUIRED = "new, acquired";
    public static final String NEW = "new";
    public static final String UPDATED = "updated";
    public static final String NEW_STALE = "new, stale";
    public static final String NEW_RECREATE = "new, recreate";
    public static final String ACTIVE = "active";
    public static final String ENDED = "ended";
    /** Tenure's addition: a malformed request, {@code "invalid: <why>"}. */
    public static final String INVALID_PREFIX = "invalid: ";

    private static final Pattern DIGITS = Pattern.compile("[0-9]+");

    private MaintenanceAnnotation() {}

    /**
     * Whether a Node's annotations say the protocol holds it: our state record is on it (from the first
     * maintenance step until the undo is complete), or a request whose lease was written (a {@code new…},
     * {@code updated} or {@code active} status). A request that waits, is invalid or has ended does not hold it.
     */
    public static boolean holdsNode(Map<String, String> annotations) {
        if (annotations.get(STATE) != null) {
            return true;
        }
        String status = annotations.get(STATUS);
        return annotations.get(REQUEST) != null
                && status != null
                && (status.startsWith(NEW) || UPDATED.equals(status) || ACTIVE.equals(status));
    }

    /**
     * Whether a Node's annotations carry an active request: one that holds the node ({@link #holdsNode}) or waits to (a
     * request whose status is not {@code ended} and not {@code invalid: …}). A maintenance of the other door that
     * ends hands the node over to it.
     */
    public static boolean requestsNode(Map<String, String> annotations) {
        if (holdsNode(annotations)) {
            return true;
        }
        String status = annotations.get(STATUS);
        return annotations.get(REQUEST) != null
                && !ENDED.equals(status)
                && (status == null || !status.startsWith(INVALID_PREFIX));
    }

    /** A request as read from the annotation. */
    public sealed interface Request {
        /** Maintenance for this many seconds (at least 1). */
        record Seconds(long seconds) implements Request {}

        /** Not a request Tenure can honour; {@code why} names the rule. */
        record Invalid(String why) implements Request {}
    }

    /**
     * Parses the annotation's value: a whole number of seconds, at least 1 and at most {@code max}. Anything
     * else (units, fractions, signs, blanks) is refused with the rule it broke, so the requester sees why.
     */
    public static Request parse(String raw, Duration max) {
        String value = raw == null ? "" : raw;
        if (value.isBlank()) {
            return new Request.Invalid(REQUEST + " is empty; expected a whole number of seconds, e.g. \"3600\"");
        }
        if (value.startsWith("-") && DIGITS.matcher(value.substring(1)).matches()) {
            return new Request.Invalid(
                    REQUEST + " is negative (" + value + "); expected a whole number of seconds > 0");
        }
        if (!DIGITS.matcher(value).matches()) {
            // the value is user text on its way to events and this annotation: its control characters escaped
            return new Request.Invalid(
                    REQUEST + " is not a whole number of seconds: \"" + UserText.printable(value) + "\"");
        }
        long maxSeconds = max.toSeconds();
        // Compare as text length first: a 30-digit value must not overflow into something acceptable.
        String digits = value.replaceFirst("^0+(?=.)", "");
        if (digits.length() > 18 || Long.parseLong(digits) > maxSeconds) {
            return new Request.Invalid(REQUEST + " is too long: " + value + " s is more than the allowed " + maxSeconds
                    + " s (tenure.maintenance.annotation.max-duration)");
        }
        long seconds = Long.parseLong(digits);
        if (seconds == 0) {
            return new Request.Invalid(REQUEST + " is 0; expected a whole number of seconds > 0 (remove the annotation "
                    + "to end a maintenance)");
        }
        return new Request.Seconds(seconds);
    }
}
