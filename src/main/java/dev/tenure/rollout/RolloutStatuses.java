package dev.tenure.rollout;

import dev.tenure.rollout.RolloutPlanner.RolloutPlan;
import dev.tenure.rollout.api.GateStatus;
import dev.tenure.rollout.api.NodeRecord;
import dev.tenure.rollout.api.RolloutPhase;
import dev.tenure.rollout.api.RolloutStatus;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/** The planner's records and answer as the rollout's status, and back: the status is the rollout's memory. */
final class RolloutStatuses {

    private RolloutStatuses() {}

    static List<NodeProgress> records(RolloutStatus status) {
        if (status == null || status.getNodes() == null) {
            return List.of();
        }
        return status.getNodes().stream()
                .filter(r -> r.getName() != null && r.getState() != null)
                .map(r -> new NodeProgress(
                        r.getName(),
                        r.getState(),
                        r.getBootIDBefore(),
                        time(r.getStartedAt()),
                        time(r.getDrainedAt()),
                        time(r.getDoneAt()),
                        time(r.getEndedAt()),
                        r.getMessage(),
                        workloads(r.getWorkloads())))
                .toList();
    }

    /** The closed gates the status recorded, with when each was first seen closed. */
    static List<GateState> gates(RolloutStatus status) {
        if (status == null || status.getGates() == null) {
            return List.of();
        }
        return status.getGates().stream()
                .filter(g -> g.getName() != null)
                .map(g -> new GateState(g.getName(), g.getNode(), false, time(g.getSince()), g.getMessage()))
                .toList();
    }

    /** References as the planner keeps them; one without a kind or name (a hand edit) is left out. */
    static List<WorkloadRef> workloads(List<ObjectReference> refs) {
        if (refs == null) {
            return List.of();
        }
        return refs.stream()
                .filter(r -> r != null && r.getKind() != null && r.getName() != null)
                .map(r -> new WorkloadRef(r.getApiVersion(), r.getKind(), r.getNamespace(), r.getName()))
                .distinct()
                .toList();
    }

    static RolloutStatus of(RolloutPlan plan, long generation) {
        RolloutStatus s = new RolloutStatus();
        s.setPhase(plan.phase());
        s.setReason(plan.reason());
        s.setMessage(plan.message());
        s.setTotal(plan.total());
        s.setDone(plan.done());
        s.setInProgress(plan.inProgress());
        s.setWaiting(plan.waiting());
        s.setFailed(plan.failed());
        s.setCurrentBatch(plan.batch());
        s.setEta(plan.eta() == null ? null : plan.eta().toString());
        s.setNodes(plan.records().stream().map(RolloutStatuses::record).toList());
        s.setObservedGeneration(generation);
        // absent when none is closed: the status is replaced whole (WholeStatus), so an opened gate leaves it
        s.setGates(
                plan.gates().isEmpty()
                        ? null
                        : plan.gates().stream()
                                .map(g -> new GateStatus(g.name(), g.node(), text(g.closedSince()), g.message()))
                                .toList());
        return s;
    }

    /** A spec that cannot run: nothing starts, the records stay. */
    static RolloutStatus invalid(RolloutStatus before, String message, long generation) {
        RolloutStatus s = new RolloutStatus();
        s.setPhase(RolloutPhase.Invalid);
        s.setReason("InvalidSpec");
        s.setMessage(message);
        if (before != null) {
            s.setNodes(before.getNodes());
            s.setTotal(before.getTotal());
            s.setDone(before.getDone());
            s.setInProgress(before.getInProgress());
            s.setWaiting(before.getWaiting());
            s.setFailed(before.getFailed());
            s.setCurrentBatch(before.getCurrentBatch());
        }
        s.setObservedGeneration(generation);
        return s;
    }

    private static NodeRecord record(NodeProgress p) {
        NodeRecord r = new NodeRecord(p.name(), p.state());
        r.setBootIDBefore(p.bootIDBefore());
        r.setStartedAt(text(p.startedAt()));
        r.setDrainedAt(text(p.drainedAt()));
        r.setDoneAt(text(p.doneAt()));
        r.setEndedAt(text(p.endedAt()));
        r.setMessage(p.message());
        r.setWorkloads(
                p.workloads().isEmpty()
                        ? null
                        : p.workloads().stream()
                                .map(w -> new ObjectReferenceBuilder()
                                        .withApiVersion(w.apiVersion())
                                        .withKind(w.kind())
                                        .withNamespace(w.namespace())
                                        .withName(w.name())
                                        .build())
                                .toList());
        return r;
    }

    private static String text(Instant t) {
        return t == null ? null : t.toString();
    }

    private static Instant time(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
