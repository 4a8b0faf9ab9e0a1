package dev.tenure.maintenance.drain;

import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The controllers of the pods a drain removed, each once ({@code status.drainedWorkloads}): read from each pod's
 * controller ownerReference (the one with {@code controller: true}, as kubectl drain's filter reads it), with the
 * pod's namespace. At most {@link NodeMaintenanceStatus#DRAINED_WORKLOADS_LISTED} are listed, so the status of a node
 * with hundreds of workloads stays small; the others are counted in {@code notListed}. What a rollout's
 * "workloads whole again" gate reads before the node's slot goes to the next node.
 *
 * @param listed the controllers listed, in the order their first pod was removed
 * @param notListed controllers seen beyond the listed ones (a controller may be counted once per batch it came in)
 */
public record DrainedWorkloads(List<ObjectReference> listed, int notListed) {

    public static final DrainedWorkloads NONE = new DrainedWorkloads(List.of(), 0);

    public DrainedWorkloads {
        listed = listed == null ? List.of() : List.copyOf(listed);
        if (notListed < 0) {
            throw new IllegalArgumentException("notListed must be >= 0, was " + notListed);
        }
    }

    /** These plus the controllers of {@code removed} (pods without a controller add nothing). */
    public DrainedWorkloads with(List<Pod> removed) {
        List<ObjectReference> out = new ArrayList<>(listed);
        int more = notListed;
        for (Pod pod : removed) {
            OwnerReference controller = PodFilters.controllerOf(pod);
            if (controller == null) {
                continue;
            }
            ObjectReference ref = new ObjectReferenceBuilder()
                    .withApiVersion(controller.getApiVersion())
                    .withKind(controller.getKind())
                    .withNamespace(pod.getMetadata().getNamespace())
                    .withName(controller.getName())
                    .withUid(controller.getUid())
                    .build();
            if (out.stream().anyMatch(r -> same(r, ref))) {
                continue;
            }
            if (out.size() < NodeMaintenanceStatus.DRAINED_WORKLOADS_LISTED) {
                out.add(ref);
            } else {
                more++;
            }
        }
        return more == notListed && out.size() == listed.size() ? this : new DrainedWorkloads(out, more);
    }

    private static boolean same(ObjectReference a, ObjectReference b) {
        return Objects.equals(a.getKind(), b.getKind())
                && Objects.equals(a.getNamespace(), b.getNamespace())
                && Objects.equals(a.getName(), b.getName());
    }
}
