package dev.tenure.maintenance.machine;

import dev.tenure.maintenance.api.GoDuration;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Lifecycle hooks (Cluster API's Machine pre-drain and pre-terminate hooks): other controllers add an annotation
 * {@code pre-drain.hooks.tenure.dev/<owner>} or {@code pre-uncordon.hooks.tenure.dev/<owner>} to a NodeMaintenance,
 * and the maintenance waits at that point until every such annotation is gone, for at most the hooks' timeout. Pure:
 * which hooks an object carries, and what waiting on them means at {@code now}.
 */
public final class MaintenanceHooks {

    public static final String PRE_DRAIN_PREFIX = "pre-drain.hooks.tenure.dev/";
    public static final String PRE_UNCORDON_PREFIX = "pre-uncordon.hooks.tenure.dev/";
    /** How long a maintenance waits at a hook point by default ({@code spec.hooks.timeout}). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofHours(1);

    private MaintenanceHooks() {}

    /** Where a maintenance waits for hooks. */
    public enum Point {
        /** Cordoned and handed over, before the first eviction. */
        PreDrain(PRE_DRAIN_PREFIX),
        /** Ending (deleted, its window over, or its pre-drain hooks timed out), before the node is restored and the lease released. */
        PreUncordon(PRE_UNCORDON_PREFIX);

        private final String prefix;

        Point(String prefix) {
            this.prefix = prefix;
        }

        public String prefix() {
            return prefix;
        }
    }

    /**
     * The hooks a maintenance waits on: which point, whose (the annotations' owners), since when.
     */
    public record Wait(Point point, List<String> owners, Instant since) {
        public Wait {
            owners = List.copyOf(owners);
        }
    }

    /**
     * The hooks of every point one request carries, how long it waits at a point at most, and what a pre-drain wait
     * does at that timeout ({@code onTimeout}; null: {@link MaintenanceStages.TimedStage#PRE_DRAIN_HOOKS}'s default).
     */
    public record Hooks(
            List<String> preDrain,
            List<String> preUncordon,
            Duration timeout,
            dev.tenure.maintenance.api.TimeoutOutcome onTimeout) {
        public static final Hooks NONE = new Hooks(List.of(), List.of(), DEFAULT_TIMEOUT);

        public Hooks(List<String> preDrain, List<String> preUncordon, Duration timeout) {
            this(preDrain, preUncordon, timeout, null);
        }

        /** These settings with the hooks that {@code annotations} carry now. */
        public Hooks withAnnotations(Map<String, String> annotations) {
            return new Hooks(
                    owners(annotations, Point.PreDrain), owners(annotations, Point.PreUncordon), timeout, onTimeout);
        }

        public Hooks {
            preDrain = preDrain.stream().sorted().toList();
            preUncordon = preUncordon.stream().sorted().toList();
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("spec.hooks.timeout: must be more than 0, was " + timeout);
            }
        }

        public List<String> at(Point point) {
            return point == Point.PreDrain ? preDrain : preUncordon;
        }

        /** The hooks in {@code annotations}, waited on for at most {@code timeout}. */
        public static Hooks of(Map<String, String> annotations, Duration timeout) {
            return new Hooks(owners(annotations, Point.PreDrain), owners(annotations, Point.PreUncordon), timeout);
        }
    }

    /** The owners of the hooks of {@code point} in {@code annotations}, sorted. */
    public static List<String> owners(Map<String, String> annotations, Point point) {
        if (annotations == null) {
            return List.of();
        }
        return annotations.keySet().stream()
                .filter(k -> k.startsWith(point.prefix())
                        && k.length() > point.prefix().length())
                .map(k -> k.substring(point.prefix().length()))
                .sorted()
                .toList();
    }

    /** Whether the hooks (of any point) differ between two versions of an object's annotations. */
    public static boolean changed(Map<String, String> before, Map<String, String> after) {
        for (Point p : Point.values()) {
            if (!owners(before, p).equals(owners(after, p))) {
                return true;
            }
        }
        return false;
    }

    /** What waiting at a hook point means now. */
    public sealed interface Verdict {
        /** No hook holds this point: go on. */
        record Clear() implements Verdict {}

        /** Hooks hold it: wait (as {@code wait} says) and look again after {@code recheck} at the latest. */
        record Hold(Wait waiting, Duration recheck, String message) implements Verdict {}

        /** The hooks held it for the whole timeout: give up at this point, as {@code message} says. */
        record TimedOut(Wait waiting, String message) implements Verdict {}
    }

    /**
     * Whether {@code point} may be passed at {@code now}.
     *
     * @param prior the wait recorded so far (its {@code since} is kept while the same point waits), or null
     */
    public static Verdict decide(Point point, Hooks hooks, Wait prior, Instant now) {
        List<String> owners = hooks.at(point);
        if (owners.isEmpty()) {
            return new Verdict.Clear();
        }
        Instant since = prior != null && prior.point() == point ? prior.since() : now;
        Wait wait = new Wait(point, owners, since);
        Instant deadline = since.plus(hooks.timeout());
        String names =
                String.join(", ", owners.stream().map(o -> point.prefix() + o).toList());
        if (!now.isBefore(deadline)) {
            return new Verdict.TimedOut(
                    wait,
                    point + " hook(s) " + names + " still present after " + GoDuration.format(hooks.timeout())
                            + " (spec.hooks.timeout)");
        }
        return new Verdict.Hold(
                wait,
                Duration.between(now, deadline),
                "waiting for " + point + " hook(s) " + names + " to be removed (until " + deadline + ")");
    }

    /**
     * The wait a maintenance goes on from when its status was written by another client (a patch of {@code
     * status.hooks}, a backup restored): status written by others moves no deadline. {@code spec.hooks.timeout} counts
     * from the wait this operator recorded, so when it has written a status of this maintenance, that status's wait is
     * the one (a foreign {@code since} moved forward, back, or erased is not taken); without one (a new operator
     * instance: its memory of its writes starts empty), the recorded wait is taken, but never starting after {@code
     * now} (a start in the future never happened, and would only push the deadline out).
     *
     * @param recorded the wait the foreign status says, or null
     * @param ownKnown whether this operator has written (or stood by) a status of this maintenance
     * @param own the wait of that status, or null when it waited on no hook
     */
    public static Wait notMovedByOthers(Wait recorded, boolean ownKnown, Wait own, Instant now) {
        if (ownKnown) {
            return own;
        }
        if (recorded == null || !recorded.since().isAfter(now)) {
            return recorded;
        }
        return new Wait(recorded.point(), recorded.owners(), now);
    }

    /** The wait a verdict leaves, if any. */
    public static Optional<Wait> waitOf(Verdict v) {
        if (v instanceof Verdict.Hold h) {
            return Optional.of(h.waiting());
        }
        if (v instanceof Verdict.TimedOut t) {
            return Optional.of(t.waiting());
        }
        return Optional.empty();
    }
}
