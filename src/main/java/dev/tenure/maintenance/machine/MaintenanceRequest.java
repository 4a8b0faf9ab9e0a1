package dev.tenure.maintenance.machine;

import dev.tenure.kube.UserText;
import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.HooksSpec;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.RecurringWindowSpec;
import dev.tenure.maintenance.api.ScheduleSpec;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.maintenance.drain.DrainReport;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the {@link MaintenanceMachine} is asked to do for one node, independent of where the request
 * came from (a NodeMaintenance, or the node annotation protocol).
 *
 * @param window maintenance ends by itself this long after the lease was acquired; empty = until removed
 * @param hooks the lifecycle hooks it waits on (the machine waits at pre-drain; the front door at pre-uncordon)
 * @param schedule when it may start (the front door holds it until then; the machine does not look at it)
 */
public record MaintenanceRequest(
        String nodeName,
        String reason,
        Optional<Duration> window,
        DrainOptions drain,
        HandoverOptions handover,
        MaintenanceHooks.Hooks hooks,
        MaintenanceSchedule schedule,
        Optional<Owner> owner) {

    /**
     * The NodeMaintenance asking (its UID and name), which a surge records on the workload it scales ({@code
     * tenure.dev/surged-by}); empty for the annotation door, which never surges.
     */
    public record Owner(String uid, String name) {
        public Owner {
            Objects.requireNonNull(uid, "uid");
            Objects.requireNonNull(name, "name");
        }
    }

    /** A request without an owner. */
    public MaintenanceRequest(
            String nodeName,
            String reason,
            Optional<Duration> window,
            DrainOptions drain,
            HandoverOptions handover,
            MaintenanceHooks.Hooks hooks,
            MaintenanceSchedule schedule) {
        this(nodeName, reason, window, drain, handover, hooks, schedule, Optional.empty());
    }

    private static final java.util.regex.Pattern NODE_NAME =
            java.util.regex.Pattern.compile(NodeMaintenanceSpec.NODE_NAME_PATTERN);

    public MaintenanceRequest {
        Objects.requireNonNull(nodeName, "nodeName");
        if (nodeName.isBlank()) {
            throw new IllegalArgumentException("spec.nodeName: must not be empty");
        }
        if (nodeName.length() > NodeMaintenanceSpec.MAX_NODE_NAME
                || !NODE_NAME.matcher(nodeName).matches()) {
            throw new IllegalArgumentException(
                    "spec.nodeName: must be a Node name (lowercase RFC 1123 subdomain, at most "
                            + NodeMaintenanceSpec.MAX_NODE_NAME + " characters), was " + DrainReport.shown(nodeName));
        }
        if (reason != null && reason.length() > NodeMaintenanceSpec.MAX_REASON) {
            throw new IllegalArgumentException("spec.reason: must be at most " + NodeMaintenanceSpec.MAX_REASON
                    + " characters, was " + reason.length());
        }
        reason = reason == null || reason.isBlank() ? "" : reason; // a blank reason says nothing: none given
        window = window == null ? Optional.empty() : window;
        drain = drain == null ? DrainOptions.defaults() : drain;
        handover = handover == null ? HandoverOptions.defaults() : handover;
        hooks = hooks == null ? MaintenanceHooks.Hooks.NONE : hooks;
        schedule = schedule == null ? MaintenanceSchedule.ANY_TIME : schedule;
        owner = owner == null ? Optional.empty() : owner;
    }

    /** What the Node condition says when spec.reason says nothing (absent, empty or blank). */
    public static final String DEFAULT_CONDITION_MESSAGE = "node is in maintenance";

    /**
     * The message of the Node condition: the reason given, its control characters escaped ({@link
     * UserText#printable}: one written before the CRD refused them, or by a door without that rule), else {@link
     * #DEFAULT_CONDITION_MESSAGE}.
     */
    public String conditionMessage() {
        return reason.isEmpty() ? DEFAULT_CONDITION_MESSAGE : UserText.printable(reason);
    }

    /** A request without hooks or schedule (the annotation door's, and most tests'). */
    public MaintenanceRequest(
            String nodeName, String reason, Optional<Duration> window, DrainOptions drain, HandoverOptions handover) {
        this(nodeName, reason, window, drain, handover, null, null);
    }

    /** This request waiting on {@code hooks}. */
    public MaintenanceRequest withHooks(MaintenanceHooks.Hooks hooks) {
        return new MaintenanceRequest(nodeName, reason, window, drain, handover, hooks, schedule, owner);
    }

    /** This request on behalf of the NodeMaintenance {@code name} with {@code uid}. */
    public MaintenanceRequest withOwner(String uid, String name) {
        return new MaintenanceRequest(
                nodeName, reason, window, drain, handover, hooks, schedule, Optional.of(new Owner(uid, name)));
    }

    /** Resolves a NodeMaintenance spec; throws {@link IllegalArgumentException} naming the bad field. */
    public static MaintenanceRequest from(NodeMaintenanceSpec spec) {
        return from(spec, spec == null ? null : spec.getNodeName());
    }

    /** The spec for {@code nodeName} (the node a started maintenance is pinned to, whatever spec.nodeName says). */
    public static MaintenanceRequest from(NodeMaintenanceSpec spec, String nodeName) {
        if (spec == null) {
            throw new IllegalArgumentException("spec: required (with spec.nodeName)");
        }
        Duration window = GoDuration.parseOrNull("spec.window", spec.getWindow());
        if (window != null && window.isZero()) {
            throw new IllegalArgumentException("spec.window: must be more than 0 (omit it for no window)");
        }
        return new MaintenanceRequest(
                nodeName == null ? "" : nodeName,
                spec.getReason(),
                Optional.ofNullable(window),
                DrainOptions.from(spec.getDrain()),
                HandoverOptions.from(spec.getHandover()),
                hooks(spec.getHooks()),
                schedule(spec.getSchedule()));
    }

    /** spec.hooks: the timeout and its outcome; the hooks themselves are annotations, added by the front door. */
    public static MaintenanceHooks.Hooks hooks(HooksSpec spec) {
        Duration timeout = spec == null ? null : GoDuration.parseOrNull("spec.hooks.timeout", spec.getTimeout());
        return new MaintenanceHooks.Hooks(
                List.of(),
                List.of(),
                timeout == null ? MaintenanceHooks.DEFAULT_TIMEOUT : timeout,
                spec == null ? null : spec.getOnTimeout());
    }

    private static MaintenanceSchedule schedule(ScheduleSpec spec) {
        if (spec == null) {
            return MaintenanceSchedule.ANY_TIME;
        }
        RecurringWindowSpec w = spec.getWindow();
        return w == null
                ? MaintenanceSchedule.parse(spec.getStartAt(), null, null, null, null)
                : MaintenanceSchedule.parse(spec.getStartAt(), w.getDays(), w.getStart(), w.getEnd(), w.getTimeZone());
    }
}
