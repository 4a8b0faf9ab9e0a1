package dev.tenure.rollout;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The "workloads whole again" gate (issue 52, item 3): before a done node's slot goes to the next node, every
 * controller whose pods its drain removed counts all its pods available again, as that controller counts them in its
 * status. Pure: the reconciler reads each workload (one GET each) and this judges what it read.
 *
 * <p>Whole, per kind (the status fields as {@code k8s.io/api/apps/v1} defines them):
 *
 * <ul>
 *   <li><b>ReplicaSet</b> (a Deployment's pods belong to its ReplicaSet): {@code status.observedGeneration} is at
 *       least {@code metadata.generation} (the status describes the current spec), {@code status.availableReplicas}
 *       ("pods ready for at least minReadySeconds") equals {@code spec.replicas} (default 1), and
 *       {@code status.replicas} (the active pods the controller counts: not terminating, not Succeeded or Failed,
 *       Pending ones included; {@code pkg/controller/replicaset} {@code calculateStatus}) equals it too, so no pod of
 *       it is Pending or otherwise not available.
 *   <li><b>StatefulSet</b>: the same generation rule, {@code status.replicas} ("pods created by the controller")
 *       and {@code status.readyReplicas} equal {@code spec.replicas}, and {@code status.availableReplicas} too when
 *       the API server reports it (Kubernetes 1.22+).
 *   <li>Any other controller (a Job, whose pods run to completion; a ReplicationController; a custom controller with
 *       no common status) is not judged: it never holds the gate. DaemonSet pods are not drained.
 *   <li>A workload that is gone (404) is whole: there is nothing left to wait for. One that could not be read holds
 *       the gate, said as such.
 * </ul>
 */
final class WorkloadsWhole {

    /** The gate's name in status and messages. */
    static final String GATE = "WorkloadsWhole";

    private static final Set<String> JUDGED = Set.of("ReplicaSet", "StatefulSet");

    private WorkloadsWhole() {}

    /** What one GET of a workload gave: the object, or null and the error (both null: it is gone). */
    record Read(HasMetadata object, String error) {
        static Read gone() {
            return new Read(null, null);
        }
    }

    /** Whether the gate judges this kind of controller (and the reconciler reads it). */
    static boolean judged(WorkloadRef ref) {
        return "apps/v1".equals(ref.apiVersion()) && JUDGED.contains(ref.kind());
    }

    /**
     * The gate of {@code node}: open when every judged workload of {@code drained} is whole by {@code reads} (a
     * workload missing from {@code reads} was not read: it holds the gate).
     */
    static GateState gate(String node, List<WorkloadRef> drained, Map<WorkloadRef, Read> reads) {
        List<String> waiting = new ArrayList<>();
        for (WorkloadRef ref : drained) {
            if (!judged(ref)) {
                continue;
            }
            Read read = reads.get(ref);
            String why = read == null
                    ? "not read"
                    : read.error() != null ? "could not be read: " + read.error() : notWhole(read.object());
            if (why != null) {
                waiting.add(ref + ": " + why);
            }
        }
        if (waiting.isEmpty()) {
            return GateState.open(GATE, node);
        }
        String shown = waiting.size() <= 3
                ? String.join("; ", waiting)
                : String.join("; ", waiting.subList(0, 3)) + "; and " + (waiting.size() - 3) + " more";
        return GateState.closed(GATE, node, shown);
    }

    /** Why {@code workload} is not whole, or null when it is (or is gone, or is a kind not judged). */
    static String notWhole(HasMetadata workload) {
        if (workload == null) {
            return null;
        }
        long generation = Objects.requireNonNullElse(workload.getMetadata().getGeneration(), 0L);
        if (workload instanceof ReplicaSet rs) {
            int want = rs.getSpec() == null || rs.getSpec().getReplicas() == null
                    ? 1
                    : rs.getSpec().getReplicas();
            var s = rs.getStatus();
            if (s == null || Objects.requireNonNullElse(s.getObservedGeneration(), 0L) < generation) {
                return "its controller has not observed generation " + generation + " yet";
            }
            int available = Objects.requireNonNullElse(s.getAvailableReplicas(), 0);
            int active = Objects.requireNonNullElse(s.getReplicas(), 0);
            if (available != want || active != want) {
                return available + " of " + want + " available"
                        + (active > available ? ", " + (active - available) + " pod(s) Pending or not Ready" : "");
            }
            return null;
        }
        if (workload instanceof StatefulSet sts) {
            int want = sts.getSpec() == null || sts.getSpec().getReplicas() == null
                    ? 1
                    : sts.getSpec().getReplicas();
            var s = sts.getStatus();
            if (s == null || Objects.requireNonNullElse(s.getObservedGeneration(), 0L) < generation) {
                return "its controller has not observed generation " + generation + " yet";
            }
            int created = Objects.requireNonNullElse(s.getReplicas(), 0);
            int ready = Objects.requireNonNullElse(s.getReadyReplicas(), 0);
            int available = s.getAvailableReplicas() == null ? ready : s.getAvailableReplicas();
            if (created != want || ready != want || available != want) {
                return ready + " of " + want + " ready, " + available + " available, " + created + " created";
            }
            return null;
        }
        return null;
    }
}
