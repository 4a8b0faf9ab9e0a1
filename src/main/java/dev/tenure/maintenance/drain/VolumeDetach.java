package dev.tenure.maintenance.drain;

import dev.tenure.maintenance.api.GoDuration;
import dev.tenure.maintenance.api.TimeoutOutcome;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * After the drain: whether the node's volumes are detached, decided from the VolumeAttachments that name it (Cluster
 * API's wait for volume detach, {@code nodeVolumeDetachTimeout}): only attached ones hold the node, not those whose
 * volume a pod staying on the node uses, and nothing when the node is unreachable. Unlike Cluster API, the node's
 * {@code status.volumesAttached} is not read: a volume attached without a VolumeAttachment (an in-tree plugin not
 * migrated to CSI) is not waited for. Pure: the caller lists, the caller waits.
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

    /**
     * What the node's volumes look like after the drain, as Cluster API's wait reads them: the attachments that are
     * attached ({@code status.attached}; one still attaching or already detached holds nothing) and whose volume no pod
     * staying on the node uses.
     *
     * @param attachments those that hold the node
     * @param keptByPods attachments left out because a pod the drain leaves (DaemonSet, mirror, Skip) still uses their
     *     volume: they detach only when that pod goes, which the maintenance does not ask for
     * @param unreachable the node's Ready condition is Unknown: its kubelet cannot detach anything, so nothing is waited
     *     for (Cluster API skips the wait for an unreachable node for the same reason)
     */
    public record OnNode(List<Attachment> attachments, int keptByPods, boolean unreachable) {
        public OnNode {
            attachments = List.copyOf(attachments);
        }

        /** Attachments that all hold the node (no pod keeps one, the node reachable). */
        public static OnNode holding(List<Attachment> attachments) {
            return new OnNode(attachments, 0, false);
        }
    }

    /**
     * Reads {@link OnNode} from what the caller listed.
     *
     * @param node the node (its Ready condition); null when gone
     * @param attachments the VolumeAttachments naming the node
     * @param claims each PersistentVolume's claim ({@code namespace/name}), by volume name; a volume missing here is
     *     one no staying pod can be shown to use
     * @param podsOnNode the pods bound to the node now; those not terminating are the ones the drain leaves
     */
    public static OnNode onNode(
            Node node, List<VolumeAttachment> attachments, Map<String, String> claims, List<Pod> podsOnNode) {
        Set<String> kept = new HashSet<>();
        for (Pod pod : podsOnNode) {
            if (pod.getMetadata().getDeletionTimestamp() != null
                    || pod.getSpec().getVolumes() == null) {
                continue;
            }
            for (Volume v : pod.getSpec().getVolumes()) {
                if (v.getPersistentVolumeClaim() != null) {
                    kept.add(pod.getMetadata().getNamespace() + "/"
                            + v.getPersistentVolumeClaim().getClaimName());
                }
            }
        }
        List<Attachment> holding = new ArrayList<>();
        int keptByPods = 0;
        for (VolumeAttachment va : attachments) {
            if (va.getStatus() == null || !Boolean.TRUE.equals(va.getStatus().getAttached())) {
                continue;
            }
            String pv = va.getSpec().getSource() == null
                    ? null
                    : va.getSpec().getSource().getPersistentVolumeName();
            if (pv != null && kept.contains(claims.get(pv))) {
                keptByPods++;
                continue;
            }
            holding.add(new Attachment(va.getMetadata().getName(), va.getSpec().getAttacher(), pv));
        }
        return new OnNode(holding, keptByPods, unreachable(node));
    }

    /** Cluster API's IsNodeUnreachable: the Ready condition is Unknown (the node controller's mark of a silent kubelet). */
    static boolean unreachable(Node node) {
        return node != null
                && node.getStatus() != null
                && node.getStatus().getConditions() != null
                && node.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "Unknown".equals(c.getStatus()));
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
            String nodeName, OnNode onNode, Options options, Instant drainedAt, Duration pollInterval, Instant now) {
        if (onNode.unreachable()) {
            return new Verdict.Detached("node " + nodeName + " is unreachable (Ready Unknown): its kubelet cannot"
                    + " detach volumes, so they are not waited for");
        }
        List<Attachment> holding = onNode.attachments().stream()
                .filter(a -> !options.ignoredAttachers().contains(a.attacher()))
                .toList();
        int ignored = onNode.attachments().size() - holding.size();
        if (holding.isEmpty()) {
            List<String> left = new ArrayList<>();
            if (ignored > 0) {
                left.add(ignored + " by ignored attachers left");
            }
            if (onNode.keptByPods() > 0) {
                left.add(onNode.keptByPods() + " used by pods that stay on the node");
            }
            return new Verdict.Detached("no attached volume holds node " + nodeName
                    + (left.isEmpty() ? "" : " (" + String.join(", ", left) + ")"));
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
