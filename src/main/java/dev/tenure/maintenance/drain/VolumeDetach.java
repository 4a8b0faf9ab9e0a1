package dev.tenure.maintenance.drain;

import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.TimeoutOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * After the drain: whether the node's volumes are detached, decided from the VolumeAttachments that name it (Cluster
 * API's wait for volume detach, {@code nodeVolumeDetachTimeout}). Pure: the caller lists, the caller waits.
 */
public final class VolumeDetach {

    private VolumeDetach() {}

    /**
     * What the wait is asked to do ({@code spec.drain.volumeDetach}).
     *
     * @param enabled wait at all (the block is present in the spec)
     * @param timeout give up (phase Failed, attachments named) after this long from the end of the drain; empty = no
     *     limit
     * @param ignoredAttachers attachments by these CSI drivers ({@code spec.attacher}) do not hold the node
     * @param onTimeout what the timeout does ({@code spec.drain.volumeDetach.onTimeout}); null: the default (Fail)
     */
    public record Options(
            boolean enabled, Optional<Duration> timeout, Set<String> ignoredAttachers, TimeoutOutcome onTimeout) {
        public Options {
            timeout = timeout == null ? Optional.empty() : timeout;
            ignoredAttachers = ignoredAttachers == null ? Set.of() : Set.copyOf(ignoredAttachers);
        }

        public Options(boolean enabled, Optional<Duration> timeout, Set<String> ignoredAttachers) {
            this(enabled, timeout, ignoredAttachers, null);
        }

        public static Options off() {
            return new Options(false, Optional.empty(), Set.of());
        }
    }

    /** One VolumeAttachment that names the node ({@code spec.nodeName}). */
    public record Attachment(String name, String attacher, String persistentVolume) {
        String shown() {
            return name + (persistentVolume == null ? "" : " (" + persistentVolume + ")") + " by " + attacher;
        }
    }

    public sealed interface Verdict {
        /** No attachment left that holds the node. */
        record Detached(String message) implements Verdict {}

        /** Attachments left ({@code waitingFor}, shown); look again after {@code requeueAfter}. */
        record Waiting(List<String> waitingFor, Duration requeueAfter) implements Verdict {}

        /** The timeout passed with attachments left ({@code left}, shown): {@code onTimeout} decides what follows. */
        record TimedOut(String message, List<String> left) implements Verdict {}
    }

    /** Start of lastError when the wait gave up: the named failure. */
    static final String TIMED_OUT = "VolumeDetachTimedOut: ";

    public static Verdict decide(
            String nodeName,
            List<Attachment> onNode,
            Options options,
            Instant drainedAt,
            Duration pollInterval,
            Instant now) {
        List<Attachment> holding = onNode.stream()
                .filter(a -> !options.ignoredAttachers().contains(a.attacher()))
                .toList();
        int ignored = onNode.size() - holding.size();
        if (holding.isEmpty()) {
            return new Verdict.Detached("no VolumeAttachment names node " + nodeName
                    + (ignored == 0 ? "" : " (" + ignored + " by ignored attachers left)"));
        }
        List<String> shown = DrainReport.listed(
                holding.stream().map(Attachment::shown).sorted().toList());
        if (options.timeout().isPresent()) {
            Instant deadline = drainedAt.plus(options.timeout().get());
            if (!now.isBefore(deadline)) {
                return new Verdict.TimedOut(
                        TIMED_OUT + "volumes of node " + nodeName + " still attached "
                                + GoDuration.format(options.timeout().get()) + " after the drain: "
                                + String.join(", ", shown),
                        shown);
            }
            Duration left = Duration.between(now, deadline);
            return new Verdict.Waiting(shown, pollInterval.compareTo(left) <= 0 ? pollInterval : left);
        }
        return new Verdict.Waiting(shown, pollInterval);
    }
}
