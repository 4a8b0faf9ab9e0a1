package dev.tenure.maintenance.door;

import dev.tenure.kube.UserText;
import dev.tenure.maintenance.api.HookStatus;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Optional;

/**
 * What a maintenance waits for, in a few words, for {@code status.waitingFor} and its printer column ({@code kubectl
 * get tnm}): derived from the rest of the status the door is about to write, so it says what the status says, never
 * more. Empty (null) while nothing holds it: done, failed, ended, or moving on its own. Pure.
 */
final class WaitReasons {

    /** The column stays one short line; the status's other fields carry the details. */
    static final int MAX = 80;

    private WaitReasons() {}

    static String of(NodeMaintenanceStatus s) {
        if (s == null || s.getPhase() == null) {
            return null;
        }
        String why = switch (s.getPhase()) {
            case Pending -> pending(s);
            case Scheduled ->
                "its schedule"
                        + (s.getSchedule() == null || s.getSchedule().getNextStart() == null
                                ? ""
                                : " (next start " + s.getSchedule().getNextStart() + ")");
            case Waiting ->
                s.getJoinedTo() != null
                        ? "the maintenance it joined, " + s.getJoinedTo()
                        : s.getLease() != null && s.getLease().getHolderIdentity() != null
                                ? "the node lease, held by " + s.getLease().getHolderIdentity()
                                : "the node lease";
            case Running -> running(s);
            case Succeeded, Failed, Ended -> null;
        };
        return why == null ? null : bounded(UserText.printable(why));
    }

    private static String pending(NodeMaintenanceStatus s) {
        if (s.getQueuePosition() != null) {
            return "the queue (position " + s.getQueuePosition() + ")";
        }
        if (NodeSlotWakeUps.waitsForPlacement(s)) {
            return "placement: " + s.getPlacement().stranded() + " pod(s) fit no other node";
        }
        return s.getLastError() == null || s.getLastError().isBlank() ? null : "admission: " + s.getLastError();
    }

    private static String running(NodeMaintenanceStatus s) {
        HookStatus hooks = s.getHooks();
        if (hooks != null
                && hooks.getWaitingFor() != null
                && !hooks.getWaitingFor().isEmpty()) {
            return (hooks.getPoint() == null ? "" : hooks.getPoint() + " ") + "hook: "
                    + String.join(", ", hooks.getWaitingFor());
        }
        Optional<Condition> cordoned = condition(s, NodeMaintenanceStatuses.CORDONED);
        if (cordoned.isPresent() && !"True".equals(cordoned.get().getStatus())) {
            return "the cordon";
        }
        Optional<Condition> handover = condition(s, NodeMaintenanceStatuses.LEADERS_HANDED_OVER);
        if (handover.isPresent()
                && "False".equals(handover.get().getStatus())
                && "InProgress".equals(handover.get().getReason())) {
            return "leadership handover";
        }
        Optional<Condition> drained = condition(s, NodeMaintenanceStatuses.DRAINED);
        if (drained.isPresent() && "True".equals(drained.get().getStatus())) {
            List<String> volumes =
                    s.getDrainPlan() == null ? null : s.getDrainPlan().getVolumeAttachments();
            return "volume detach" + (volumes == null || volumes.isEmpty() ? "" : " (" + volumes.size() + ")");
        }
        if (s.getLastError() != null && s.getLastError().startsWith("eviction of pod ")) {
            return "a PodDisruptionBudget";
        }
        int pending = s.getPendingPods() == null ? 0 : s.getPendingPods().size();
        return pending == 0 ? null : "drain (" + pending + " pod(s))";
    }

    private static Optional<Condition> condition(NodeMaintenanceStatus s, String type) {
        return s.getConditions() == null
                ? Optional.empty()
                : s.getConditions().stream()
                        .filter(c -> type.equals(c.getType()))
                        .findFirst();
    }

    private static String bounded(String text) {
        return text.length() <= MAX ? text : text.substring(0, MAX - 1) + "…";
    }
}
