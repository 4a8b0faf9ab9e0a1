package dev.tenure.maintenance.machine;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.SurgeStatus;
import dev.tenure.maintenance.drain.BlockedPods;
import dev.tenure.maintenance.drain.DrainPlan;
import dev.tenure.maintenance.drain.PodDrain;
import dev.tenure.maintenance.drain.PodFilters;
import dev.tenure.maintenance.drain.SurgePlanner;
import dev.tenure.maintenance.drain.SurgeProgress;
import dev.tenure.maintenance.drain.SurgeRecord;
import dev.tenure.maintenance.machine.MaintenanceMetrics.SurgeLeft;
import dev.tenure.maintenance.machine.MaintenanceMetrics.SurgeOutcome;
import dev.tenure.placement.PlacementForecast;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.autoscaling.v1.ScaleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.ScalableResource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The surge's act (issue 51, {@code spec.drain.evacuation: Surge}), one bounded step per drain step: each surge of
 * the maintenance moves on by what {@link SurgeProgress} decides (raise, wait for the eviction, give back, leave), and
 * a pod the drain waits on because its budget has no spare replica ({@link BlockedPods.Cause#NO_SPARE_REPLICA}) and
 * whose workload can surge ({@link SurgePlanner}) gets its surge recorded: the record {@value SurgeRecord#ANNOTATION}
 * on the workload (a merge patch at the resourceVersion read) and in {@code status.surges}; the scale is written only
 * in a later step, from the status as written, so a restarted operator or a new leader always finds the record first.
 * Every write is resourceVersion-conditional (the scale, a PUT of the workload's Scale, shares its resourceVersion) and
 * goes through the operator's fenced client ({@link dev.tenure.kube.FencedWrites}), as the drain's evictions do. The
 * entry in status keeps the workload's {@code metadata.generation} as the record's write left it, so a raise whose
 * status was lost and that someone then put back is told from a surge never raised ({@link SurgeProgress#next}). The
 * eviction itself is the drain's, as it is: the Eviction API lets the pod go once the budget counts the new pods.
 */
final class SurgeStep {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final PodDrain drain;
    private final SurgeReads reads;
    private final MaintenanceMetrics metrics;

    SurgeStep(KubernetesClient client, PodDrain drain, SurgeReads reads, MaintenanceMetrics metrics) {
        this.client = client;
        this.drain = drain;
        this.reads = reads;
        this.metrics = metrics;
    }

    /**
     * Moves the maintenance's surges on one step and records new ones; {@code ending}: the drain ends now (its
     * timeout), so every surge gives back what is still its own and none starts.
     *
     * @return whether a surge is still in flight (its replicas not yet given back), and the pods whose eviction the
     *     drain holds until their surge's new pods are available
     */
    Surging advance(
            MaintenanceRequest request,
            MaintenanceState prior,
            MaintenanceState.Builder s,
            List<Pod> podsOnNode,
            DrainPlan plan,
            Map<String, BlockedPods.Blocked> blocked,
            boolean ending,
            Forecast forecast,
            Instant now,
            MaintenanceEvents events) {
        Optional<MaintenanceRequest.Owner> owner = request.owner();
        if (owner.isEmpty()) {
            return new Surging(false, Set.of()); // the annotation door never surges
        }
        List<SurgeStatus> out = new ArrayList<>();
        Set<String> evictable = new java.util.HashSet<>();
        for (SurgeStatus e : prior.surges()) {
            if (e.getLeft() != null && !recordPending(e)) {
                out.add(e); // kept: the workload is not surged again by this maintenance
                continue;
            }
            try {
                Moved moved = progress(request, owner.get(), e, podsOnNode, ending, events);
                moved.kept().ifPresent(out::add);
                if (moved.evictable()) {
                    evictable.add(e.getNamespace() + "/" + e.getReplicaSet());
                }
            } catch (KubernetesClientException ex) {
                out.add(e); // read or written again at the next step
                s.lastError("surge of " + shown(e) + ": " + ex.getMessage());
            }
        }
        if (!ending) {
            try {
                start(request, owner.get(), out, podsOnNode, plan, blocked, forecast, now, events);
            } catch (KubernetesClientException ex) {
                s.lastError("surge: " + ex.getMessage());
            }
        }
        s.surges(out);
        Set<String> held = podsOnNode.stream()
                .filter(p -> {
                    OwnerReference c = PodFilters.controllerOf(p);
                    if (c == null) {
                        return false;
                    }
                    String rs = p.getMetadata().getNamespace() + "/" + c.getName();
                    return !evictable.contains(rs)
                            && out.stream()
                                    .anyMatch(e -> e.getLeft() == null
                                            && !recordPending(e)
                                            && (e.getNamespace() + "/" + e.getReplicaSet()).equals(rs));
                })
                .map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())
                .collect(Collectors.toSet());
        return new Surging(out.stream().anyMatch(e -> e.getLeft() == null || recordPending(e)), held);
    }

    /**
     * The placement forecast of the node's drain, by pod ("namespace/name"), made when asked: only when a surge is
     * about to be recorded, since it reads every pod of the cluster.
     */
    @FunctionalInterface
    interface Forecast {
        /** No forecast: no view to make one with, or spec.drain.placement Ignore (the planner then does not ask). */
        Forecast NONE = Map::of;

        /**
         * Makes the forecast now: each pod's verdict and message by "namespace/name".
         *
         * @throws KubernetesClientException when the pods cannot be listed (no surge starts on a forecast not made)
         */
        Map<String, PlacementForecast.PodForecast> pods();
    }

    /**
     * After a step: whether a surge is in flight, and the pods ("namespace/name") whose eviction waits for their
     * surge's new pods to be available.
     */
    record Surging(boolean inFlight, Set<String> held) {}

    /** One surge moved on: its entry kept in status (empty: over), and whether its pods may be evicted now. */
    private record Moved(Optional<SurgeStatus> kept, boolean evictable) {
        static Moved over() {
            return new Moved(Optional.empty(), false);
        }

        static Moved kept(SurgeStatus e) {
            return new Moved(Optional.of(e), false);
        }
    }

    /**
     * One surge's next act, decided again from a fresh read when a conditional write conflicts (client-go's {@code
     * retry.RetryOnConflict}): the workload's controller writes its status right after a scale, which moves the
     * resourceVersion the scale or the record's removal names, so a 409 is the common case on a live cluster, not a
     * foreign change; a foreign change is seen in the fresh read and decided as such ({@link SurgeProgress.Leave}).
     *
     * @throws KubernetesClientException when the API server refuses otherwise, or still conflicts at the {@value
     *     #CONFLICT_ATTEMPTS}th try
     */
    private Moved progress(
            MaintenanceRequest request,
            MaintenanceRequest.Owner owner,
            SurgeStatus e,
            List<Pod> podsOnNode,
            boolean ending,
            MaintenanceEvents events) {
        for (int attempt = 1; ; attempt++) {
            try {
                return progressOnce(request, owner, e, podsOnNode, ending, events);
            } catch (KubernetesClientException ex) {
                if (ex.getCode() != HTTP_CONFLICT || attempt == CONFLICT_ATTEMPTS) {
                    throw ex;
                }
            }
        }
    }

    /** One surge's next act, from one read of its workload. */
    private Moved progressOnce(
            MaintenanceRequest request,
            MaintenanceRequest.Owner owner,
            SurgeStatus e,
            List<Pod> podsOnNode,
            boolean ending,
            MaintenanceEvents events) {
        SurgeRecord record =
                new SurgeRecord(owner.uid(), owner.name(), request.nodeName(), e.getReplicas(), e.getAdded());
        HasMetadata workload =
                resource(e.getKind(), e.getNamespace(), e.getName()).get();
        if (recordPending(e)) {
            return removePendingRecord(request, owner, e, workload, events);
        }
        int onNode = (int) podsOnNode.stream()
                .filter(p -> e.getNamespace().equals(p.getMetadata().getNamespace()))
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .filter(p -> {
                    OwnerReference c = PodFilters.controllerOf(p);
                    return c != null
                            && "ReplicaSet".equals(c.getKind())
                            && e.getReplicaSet().equals(c.getName());
                })
                .count();
        SurgeProgress.Next next = SurgeProgress.next(
                record,
                Boolean.TRUE.equals(e.getRaised()),
                e.getGeneration(),
                new SurgeProgress.Seen(
                        workload == null ? null : replicasOf(workload),
                        onNode,
                        ending,
                        availableOf(workload),
                        workload == null ? null : workload.getMetadata().getGeneration()));
        String node = request.nodeName();
        if (next instanceof SurgeProgress.Raise raise) {
            scale(e, workload, raise.to());
            metrics.surge(SurgeOutcome.started, SurgeLeft.none);
            events.emit(
                    false,
                    MaintenanceEvents.SURGE,
                    "scaled " + shown(e) + " from " + e.getReplicas() + " to " + raise.to()
                            + " replicas (spec.drain.evacuation Surge): its " + e.getAdded() + " pod(s) on node " + node
                            + " are evicted once the new ones are available elsewhere, then the replicas are given back");
            e.setRaised(true);
            return Moved.kept(e);
        } else if (next instanceof SurgeProgress.Wait wait) {
            if (wait.seenRaised()) {
                e.setRaised(true);
            }
            return new Moved(Optional.of(e), wait.evictable());
        } else if (next instanceof SurgeProgress.GiveBack back) {
            workload = scale(e, workload, back.to());
            metrics.surge(ending ? SurgeOutcome.given_back : SurgeOutcome.completed, SurgeLeft.none);
            events.emit(
                    false,
                    MaintenanceEvents.SURGE,
                    "gave back " + shown(e) + "'s replicas: " + e.getReplicas() + " (from " + record.target() + ")"
                            + (ending
                                    ? ", the drain of node " + node + " ending first"
                                    : ", its pods off node " + node));
            // the replicas are settled: from here on only the record is removed, never decided again (a count
            // someone sets now, even the surge's own target, is theirs)
            unrecordSettled(request, owner, e, workload, events);
            return recordPending(e) ? Moved.kept(e) : Moved.over();
        } else if (next instanceof SurgeProgress.Release) {
            unrecordSettled(request, owner, e, workload, events);
            return recordPending(e) ? Moved.kept(e) : Moved.over();
        } else if (next instanceof SurgeProgress.Leave leave) {
            metrics.surge(SurgeOutcome.left, leave.reverted() ? SurgeLeft.reverted : SurgeLeft.changed);
            events.emit(
                    true,
                    MaintenanceEvents.SURGE_LEFT,
                    "surge of " + shown(e) + " for node " + node + ": " + leave.why());
            e.setLeft(leave.why());
            unrecordSettled(request, owner, e, workload, events);
            return Moved.kept(e);
        }
        metrics.surge(SurgeOutcome.left, SurgeLeft.gone);
        events.emit(
                true,
                MaintenanceEvents.SURGE_LEFT,
                "surge of " + shown(e) + " for node " + node + ": the workload is gone");
        return Moved.over();
    }

    /**
     * Records a surge for each pod the drain waits on for a budget with no spare replica, one per workload, when the
     * planner says its workload can surge; a workload another maintenance has surged is left to it while that
     * maintenance exists, and its record garbage-collected when it does not ({@link #notOurs}). Before a surge is
     * recorded, the planner is asked again with the placement forecast: a pod whose replacement fits on no node that
     * stays schedulable (or that a volume pins) would give a surge pod that stays Pending, so the surge is not started
     * ({@link SurgePlanner.Reason#WOULD_NOT_FIT}): said once in a {@code SurgeLeft} Warning with the scheduler's
     * message, kept in {@code status.surges} as left (never raised, no record on the workload), and the pod is evicted
     * as with Evict.
     */
    private void start(
            MaintenanceRequest request,
            MaintenanceRequest.Owner owner,
            List<SurgeStatus> out,
            List<Pod> podsOnNode,
            DrainPlan plan,
            Map<String, BlockedPods.Blocked> blocked,
            Forecast forecast,
            Instant now,
            MaintenanceEvents events) {
        Set<String> waiting = blocked.values().stream()
                .filter(b -> b.cause() == BlockedPods.Cause.NO_SPARE_REPLICA)
                .map(BlockedPods.Blocked::pod)
                .collect(Collectors.toSet());
        Map<String, Pod> byKey = podsOnNode.stream()
                .collect(Collectors.toMap(
                        p -> p.getMetadata().getNamespace() + "/"
                                + p.getMetadata().getName(),
                        p -> p,
                        (a, b) -> a));
        waiting = waiting.stream()
                .filter(k -> byKey.containsKey(k) && !surged(out, byKey.get(k)))
                .collect(Collectors.toSet());
        if (waiting.isEmpty()) {
            return;
        }
        List<Pod> candidates = waiting.stream().map(byKey::get).toList();
        Map<String, List<io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget>> budgets =
                drain.budgetsOf(candidates);
        Map<String, SurgePlanner.Decision> decisions = reads.decide(plan, podsOnNode, waiting, budgets, Map.of(), now);
        Set<String> surging = decisions.entrySet().stream()
                .filter(d -> d.getValue() instanceof SurgePlanner.Surge)
                .map(Map.Entry::getKey)
                .collect(Collectors.toSet());
        if (surging.isEmpty()) {
            return;
        }
        // asked again with the forecast, made now: the planner's rule, not a second one here
        Map<String, PlacementForecast.PodForecast> forecastPods = forecast.pods();
        Map<String, SurgePlanner.Decision> withForecast = Map.of();
        if (!forecastPods.isEmpty()) {
            Map<String, PlacementForecast.Verdict> fits = new java.util.HashMap<>();
            forecastPods.forEach((k, f) -> fits.put(k, f.verdict()));
            withForecast = reads.decide(plan, podsOnNode, surging, budgets, fits, now);
        }
        for (Map.Entry<String, SurgePlanner.Decision> d : decisions.entrySet()) {
            if (!(d.getValue() instanceof SurgePlanner.Surge surge)) {
                continue;
            }
            Pod pod = byKey.get(d.getKey());
            if (surged(out, pod)) {
                continue; // another pod of the same workload was recorded (or refused) in this step
            }
            SurgePlanner.Target t = surge.target();
            HasMetadata workload = resource(t.kind(), t.namespace(), t.name()).get();
            if (workload == null) {
                continue;
            }
            SurgeRecord record =
                    new SurgeRecord(owner.uid(), owner.name(), request.nodeName(), surge.replicas(), surge.add());
            String existing = workload.getMetadata().getAnnotations() == null
                    ? null
                    : workload.getMetadata().getAnnotations().get(SurgeRecord.ANNOTATION);
            Optional<SurgeRecord> found = existing == null ? Optional.empty() : parsed(existing);
            if (existing != null && found.isEmpty()) {
                continue; // a record it cannot read: left as it is
            }
            if (found.isPresent() && !owner.uid().equals(found.get().maintenanceUid())) {
                Optional<HasMetadata> freed = notOurs(request, pod, surge, workload, found.get(), out, events);
                if (freed.isEmpty()) {
                    continue; // another maintenance's surge, or one left for a person
                }
                // an orphaned record removed: decided afresh from the workload as that removal left it
                workload = freed.get();
                found = Optional.empty();
            }
            Long generation;
            if (found.isPresent()) {
                record = found.get(); // written by this maintenance before a restart: adopted as it stands
                // never raised (a raise is written only from a status that lists the surge), so the generation read
                // now is one no raise of the surge's has moved
                generation = workload.getMetadata().getGeneration();
            } else if (withForecast.get(d.getKey()) instanceof SurgePlanner.CannotSurge no
                    && no.reason() == SurgePlanner.Reason.WOULD_NOT_FIT) {
                out.add(notStarted(request, pod, surge, no, forecastPods.get(d.getKey()), events));
                continue;
            } else if (withForecast.containsKey(d.getKey())
                    && !(withForecast.get(d.getKey()) instanceof SurgePlanner.Surge)) {
                continue; // the workload changed between the two reads: decided again at the next step
            } else if (replicasOf(workload) != surge.replicas()) {
                continue; // changed since the planner's read: decided again at the next step
            } else {
                // the generation as the record's write left it (a Deployment's moves with its annotations)
                generation = annotate(
                                t.kind(),
                                t.namespace(),
                                t.name(),
                                workload.getMetadata().getResourceVersion(),
                                record.toJson())
                        .getMetadata()
                        .getGeneration();
            }
            SurgeStatus entry = entry(t, pod, record.replicas(), record.added(), null);
            entry.setGeneration(generation);
            out.add(entry);
        }
    }

    /**
     * Another maintenance's record on a workload this one would surge. While that maintenance exists the surge is its
     * own: left to it, said once (its end gives back and removes the record). When it no longer exists (read by name
     * now: absent, or another UID, as Kubernetes' garbage collector reads an ownerReference's owner), nothing else will
     * ever remove the record: deleted once its pods had left the node, or its give-back refused for good. With the
     * replicas at the owner's count its surge is not in flight, so the record is removed (at the version read, so only
     * while it names that UID with those replicas) and this maintenance decides afresh; otherwise nothing is written,
     * a {@code SurgeLeft} Warning tells an admin what to do, and the pod is evicted as with Evict, as a surge not
     * started ({@link #notStarted}). One GET of the NodeMaintenance per such workload and step.
     *
     * @return the workload as the record's removal left it; empty when it is left as it is
     */
    private Optional<HasMetadata> notOurs(
            MaintenanceRequest request,
            Pod pod,
            SurgePlanner.Surge surge,
            HasMetadata workload,
            SurgeRecord record,
            List<SurgeStatus> out,
            MaintenanceEvents events) {
        NodeMaintenance named = client.resources(NodeMaintenance.class)
                .withName(record.maintenance())
                .get();
        SurgeRecord.NotOurs decision =
                record.notOurs(named == null ? null : named.getMetadata().getUid(), replicasOf(workload));
        SurgePlanner.Target t = surge.target();
        String podShown =
                pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
        if (decision instanceof SurgeRecord.OwnersSurge) {
            String said = t.shown() + " carries the surge record " + SurgeRecord.ANNOTATION + " of NodeMaintenance "
                    + record.maintenance() + " (uid " + record.maintenanceUid() + ", node " + record.node()
                    + "): its surge is left to it; pod " + podShown + " on node " + request.nodeName()
                    + " waits on its budget until that maintenance gives the replicas back and removes the record";
            drain.firstWarnings(List.of(said)).forEach(m -> events.emit(false, MaintenanceEvents.SURGE, m));
            return Optional.empty();
        }
        if (decision instanceof SurgeRecord.OrphanedSurge left) {
            out.add(leftUnstarted(request, pod, surge, left.why(), events));
            return Optional.empty();
        }
        SurgeStatus e = entry(t, pod, record.replicas(), record.added(), null);
        HasMetadata written;
        try {
            written = unrecord(e, workload);
        } catch (KubernetesClientException ex) {
            if (ex.getCode() == HTTP_CONFLICT) {
                return Optional.empty(); // the workload written since the read: decided again at the next step
            }
            throw ex;
        }
        events.emit(
                false,
                MaintenanceEvents.SURGE,
                "removed the record " + SurgeRecord.ANNOTATION + " from " + t.shown() + " (node " + request.nodeName()
                        + "): " + record.gone() + "; its surge was not in flight (replicas " + record.replicas()
                        + ", the owner's count), so this maintenance decides afresh");
        return Optional.of(written);
    }

    /**
     * A surge the forecast refuses: kept in status as left (never raised, nothing written on the workload), so the
     * workload is not tried again by this maintenance, and said once.
     */
    private SurgeStatus notStarted(
            MaintenanceRequest request,
            Pod pod,
            SurgePlanner.Surge planned,
            SurgePlanner.CannotSurge no,
            PlacementForecast.PodForecast forecast,
            MaintenanceEvents events) {
        return leftUnstarted(
                request,
                pod,
                planned,
                no.reason().shown() + " ("
                        + (forecast == null ? no.detail() : forecast.verdict() + ": " + forecast.message()) + ")",
                events);
    }

    /**
     * A surge not started for {@code reason}: said once in a {@code SurgeLeft} Warning, and its status entry, left
     * (never raised, nothing written on the workload), so its pods are evicted as with Evict.
     */
    private static SurgeStatus leftUnstarted(
            MaintenanceRequest request, Pod pod, SurgePlanner.Surge planned, String reason, MaintenanceEvents events) {
        SurgePlanner.Target t = planned.target();
        String why = "not started: " + reason + "; its pods are evicted as with evacuation Evict";
        events.emit(
                true,
                MaintenanceEvents.SURGE_LEFT,
                "surge of " + t.shown() + " for node " + request.nodeName() + " (pod "
                        + pod.getMetadata().getNamespace() + "/"
                        + pod.getMetadata().getName() + "): " + why);
        return entry(t, pod, planned.replicas(), planned.add(), why);
    }

    /** The status entry of a surge of {@code t} for {@code pod}'s ReplicaSet; {@code left}: why it stopped, or null. */
    private static SurgeStatus entry(SurgePlanner.Target t, Pod pod, int replicas, int added, String left) {
        return new SurgeStatus(
                t.kind(),
                t.namespace(),
                t.name(),
                PodFilters.controllerOf(pod).getName(),
                replicas,
                added,
                false,
                left);
    }

    /**
     * The maintenance ends before its drain finished its surges (deleted, its window over): each surge still in flight
     * gives back what is still its own, now. One whose API call failed in a way a later try can get past (a conflict
     * still at the last try, 429, a 5xx, no answer, the operator's term over) is returned, to be tried again from the
     * status that still holds it (or by the next leader): the end waits for it, as it waits for the node's restore.
     * One the API server refuses for good (403: the role unbound meanwhile; 422) is said in a {@code SurgeLeft}
     * Warning naming the workload, whose record stays on it naming this maintenance.
     *
     * @return the surges not given back yet, to try again
     */
    List<SurgeStatus> giveBackAtEnd(MaintenanceRequest request, List<SurgeStatus> surges, MaintenanceEvents events) {
        if (request.owner().isEmpty()) {
            return List.of();
        }
        List<SurgeStatus> again = new ArrayList<>();
        for (SurgeStatus e : surges) {
            if (e.getLeft() != null && !recordPending(e)) {
                continue;
            }
            try {
                Moved moved = progress(request, request.owner().get(), e, List.of(), true, events);
                if (moved.kept().filter(SurgeStep::recordPending).isPresent()) {
                    again.add(e); // replicas settled, the record's removal put off: the end waits for it
                }
            } catch (KubernetesClientException ex) {
                if (retriable(ex)) {
                    again.add(e);
                    continue;
                }
                metrics.surge(SurgeOutcome.left, SurgeLeft.changed);
                events.emit(
                        true,
                        MaintenanceEvents.SURGE_LEFT,
                        "surge of " + shown(e) + " for node " + request.nodeName() + ": could not give back "
                                + e.getAdded() + " replica(s) at the maintenance's end (" + ex.getMessage()
                                + "); the record " + SurgeRecord.ANNOTATION + " stays on it: give back by hand");
            }
        }
        return again;
    }

    /**
     * The maintenance ends: removes the records of this maintenance that {@code listed} (its {@code status.surges})
     * does not name, from the workloads of the pods still on its node. Such a record was written by a step whose status
     * was never written (the leader killed, or its term over, between the record's patch and the status write, the
     * window {@link #start} leaves since the record goes first): nothing else finds it once the maintenance is gone, as
     * the drain's next step would adopt it. Its surge was never raised (the scale is written only from the status as
     * written, in a later step), so only the record is removed, from the read, while it still names this maintenance;
     * the replicas are never touched. One GET per ReplicaSet of the node's pods and per Deployment owning one; none when
     * the opt-in role's rights are missing (a 403: nothing is read further).
     *
     * @throws KubernetesClientException when a read or removal failed for now ({@link #retriable}): the caller tries
     *     again before the node's end; a removal refused for good is said in a {@code SurgeLeft} Warning instead
     */
    void unrecordUnlisted(MaintenanceRequest request, List<SurgeStatus> listed, MaintenanceEvents events) {
        Optional<MaintenanceRequest.Owner> owner = request.owner();
        if (owner.isEmpty()) {
            return; // the annotation door never surges
        }
        String uid = owner.get().uid();
        Set<String> seen = new java.util.HashSet<>();
        List<Pod> pods = drain.podsOn(request.nodeName());
        try {
            for (Pod pod : pods) {
                unrecordUnlisted(request, listed, uid, pod, seen, events);
            }
        } catch (KubernetesClientException ex) {
            if (ex.getCode() != 403) {
                throw ex;
            }
            // no right to read the workloads: the opt-in role is not bound, so nothing further is read
        }
    }

    /** {@link #unrecordUnlisted} for the workload of one pod on the node (once per ReplicaSet, by {@code seen}). */
    private void unrecordUnlisted(
            MaintenanceRequest request,
            List<SurgeStatus> listed,
            String uid,
            Pod pod,
            Set<String> seen,
            MaintenanceEvents events) {
        OwnerReference c = PodFilters.controllerOf(pod);
        String ns = pod.getMetadata().getNamespace();
        if (c == null || !"ReplicaSet".equals(c.getKind()) || !seen.add(ns + "/" + c.getName())) {
            return;
        }
        HasMetadata rs = resource("ReplicaSet", ns, c.getName()).get();
        if (rs == null) {
            return;
        }
        HasMetadata workload = rs;
        Optional<OwnerReference> up = workload.getMetadata().getOwnerReferences().stream()
                .filter(o -> Boolean.TRUE.equals(o.getController()) && "Deployment".equals(o.getKind()))
                .findFirst();
        if (up.isPresent()) {
            workload = resource("Deployment", ns, up.get().getName()).get();
            if (workload == null) {
                return;
            }
        }
        String kind = workload.getKind() != null ? workload.getKind() : up.isPresent() ? "Deployment" : "ReplicaSet";
        String name = workload.getMetadata().getName();
        boolean inStatus = listed.stream()
                .anyMatch(e -> kind.equals(e.getKind()) && ns.equals(e.getNamespace()) && name.equals(e.getName()));
        if (inStatus || !recordedBy(workload, uid)) {
            return;
        }
        SurgeRecord record =
                SurgeRecord.parse(workload.getMetadata().getAnnotations().get(SurgeRecord.ANNOTATION));
        SurgeStatus e = new SurgeStatus(kind, ns, name, c.getName(), record.replicas(), record.added(), false, null);
        try {
            unrecordOurs(e, workload, uid);
        } catch (KubernetesClientException ex) {
            if (retriable(ex)) {
                throw ex;
            }
            recordStays(request, e, ex, events);
            return;
        }
        events.emit(
                false,
                MaintenanceEvents.SURGE,
                "removed the record " + SurgeRecord.ANNOTATION + " from " + shown(e) + " (node "
                        + request.nodeName() + "): written before the operator stopped, not yet in status, its "
                        + "surge never raised; the replicas are not touched");
    }

    /**
     * A failure a later try can get past: a conflict, 429, a 5xx, or no HTTP answer at all (code 0: a timeout, the
     * connection, the fence refusing a write outside the operator's term).
     */
    static boolean retriable(KubernetesClientException ex) {
        int code = ex.getCode();
        return code == 0 || code == HTTP_CONFLICT || code == 429 || code >= 500;
    }

    private static boolean surged(List<SurgeStatus> out, Pod pod) {
        OwnerReference c = PodFilters.controllerOf(pod);
        return c != null
                && out.stream()
                        .anyMatch(e -> e.getNamespace().equals(pod.getMetadata().getNamespace())
                                && e.getReplicaSet().equals(c.getName()));
    }

    private static Optional<SurgeRecord> parsed(String value) {
        try {
            return Optional.of(SurgeRecord.parse(value));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The workload's replicas, resourceVersion-conditional on the version read; the workload as written. */
    private HasMetadata scale(SurgeStatus e, HasMetadata read, int to) {
        resource(e.getKind(), e.getNamespace(), e.getName())
                .scale(new ScaleBuilder()
                        .withNewMetadata()
                        .withName(e.getName())
                        .withNamespace(e.getNamespace())
                        .withResourceVersion(read.getMetadata().getResourceVersion())
                        .endMetadata()
                        .withNewSpec()
                        .withReplicas(to)
                        .endSpec()
                        .build());
        return resource(e.getKind(), e.getNamespace(), e.getName()).get();
    }

    /**
     * Removes the record from the workload, at the version read.
     *
     * @return the workload as written (as read when it carried no record)
     */
    private HasMetadata unrecord(SurgeStatus e, HasMetadata workload) {
        if (workload == null
                || workload.getMetadata().getAnnotations() == null
                || !workload.getMetadata().getAnnotations().containsKey(SurgeRecord.ANNOTATION)) {
            return workload;
        }
        return annotate(
                e.getKind(),
                e.getNamespace(),
                e.getName(),
                workload.getMetadata().getResourceVersion(),
                null);
    }

    /**
     * Removes the record of a surge whose replicas are settled, at the version read, while it is this maintenance's;
     * on a conflict (the workload written since: its controller's status right after a scale, or the very change
     * that made the surge leave) read again and retried, up to {@value #UNRECORD_ATTEMPTS} times. Never removes
     * another maintenance's record.
     *
     * @throws KubernetesClientException when the API server refuses otherwise, or still conflicts at the last try
     */
    private void unrecordOurs(SurgeStatus e, HasMetadata read, String maintenanceUid) {
        HasMetadata workload = read;
        for (int attempt = 1; ; attempt++) {
            if (!recordedBy(workload, maintenanceUid)) {
                return; // gone, or another maintenance's now
            }
            try {
                unrecord(e, workload);
                return;
            } catch (KubernetesClientException ex) {
                if (ex.getCode() != HTTP_CONFLICT || attempt == UNRECORD_ATTEMPTS) {
                    throw ex;
                }
            }
            workload = resource(e.getKind(), e.getNamespace(), e.getName()).get();
        }
    }

    /** Whether {@code workload} carries a surge record of maintenance {@code maintenanceUid}. */
    private static boolean recordedBy(HasMetadata workload, String maintenanceUid) {
        String value = workload == null || workload.getMetadata().getAnnotations() == null
                ? null
                : workload.getMetadata().getAnnotations().get(SurgeRecord.ANNOTATION);
        return value != null
                && parsed(value)
                        .filter(r -> maintenanceUid.equals(r.maintenanceUid()))
                        .isPresent();
    }

    /**
     * The replicas of surge {@code e} are settled (given back, or left as someone else set them): removes its record
     * from the workload ({@link #unrecordOurs}: a fresh read after each conflict, only while the record is this
     * maintenance's). When every try conflicts or fails for now ({@link #retriable}), the record stays, {@code e} is
     * marked {@code recordPending} and a Warning says so: a later step (or the maintenance's end) removes it, and the
     * replicas are not decided again. When the API server refuses for good (403: the role unbound meanwhile; 422), a
     * Warning says the record stays for a person to remove, and the surge is let go.
     */
    private void unrecordSettled(
            MaintenanceRequest request,
            MaintenanceRequest.Owner owner,
            SurgeStatus e,
            HasMetadata workload,
            MaintenanceEvents events) {
        try {
            unrecordOurs(e, workload, owner.uid());
            e.setRecordPending(null);
        } catch (KubernetesClientException ex) {
            if (retriable(ex)) {
                e.setRecordPending(true);
                events.emit(
                        true,
                        MaintenanceEvents.SURGE,
                        "the record " + SurgeRecord.ANNOTATION + " stays on " + shown(e) + " for now (node "
                                + request.nodeName() + "): its removal failed at every try (" + ex.getMessage()
                                + "); removed at a later step, the replicas are not touched again");
            } else {
                e.setRecordPending(null);
                recordStays(request, e, ex, events);
            }
        }
    }

    /**
     * Only the record of surge {@code e} is left to remove ({@code recordPending}), from this fresh read: removed when
     * still this maintenance's; a conflict is thrown (read again and tried again by {@link #progress}, else at the next
     * step), a refusal for good said once and let go.
     */
    private Moved removePendingRecord(
            MaintenanceRequest request,
            MaintenanceRequest.Owner owner,
            SurgeStatus e,
            HasMetadata workload,
            MaintenanceEvents events) {
        if (recordedBy(workload, owner.uid())) {
            try {
                unrecord(e, workload);
            } catch (KubernetesClientException ex) {
                if (retriable(ex)) {
                    throw ex;
                }
                recordStays(request, e, ex, events);
            }
        }
        e.setRecordPending(null);
        return e.getLeft() == null ? Moved.over() : Moved.kept(e);
    }

    private void recordStays(
            MaintenanceRequest request, SurgeStatus e, KubernetesClientException ex, MaintenanceEvents events) {
        events.emit(
                true,
                MaintenanceEvents.SURGE_LEFT,
                "surge of " + shown(e) + " for node " + request.nodeName() + ": its record "
                        + SurgeRecord.ANNOTATION + " could not be removed (" + ex.getMessage()
                        + "); it stays on the workload naming this maintenance: remove it by hand");
    }

    /** Whether only the record's removal from the workload is left of surge {@code e}. */
    static boolean recordPending(SurgeStatus e) {
        return Boolean.TRUE.equals(e.getRecordPending());
    }

    private static final int HTTP_CONFLICT = 409;

    private static final int UNRECORD_ATTEMPTS = 3;

    /** Tries of one surge's act against conflicting writes (each a fresh read and decision). */
    private static final int CONFLICT_ATTEMPTS = 3;

    /**
     * Sets ({@code value}) or removes (null) the record, as a merge patch naming the resourceVersion read.
     *
     * @return the workload as written
     */
    private HasMetadata annotate(String kind, String namespace, String name, String resourceVersion, String value) {
        ObjectNode patch = JSON.createObjectNode();
        ObjectNode meta = patch.putObject("metadata");
        meta.put("resourceVersion", resourceVersion);
        ObjectNode annotations = meta.putObject("annotations");
        if (value == null) {
            annotations.putNull(SurgeRecord.ANNOTATION);
        } else {
            annotations.put(SurgeRecord.ANNOTATION, value);
        }
        return resource(kind, namespace, name).patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
    }

    private ScalableResource<? extends HasMetadata> resource(String kind, String namespace, String name) {
        if ("Deployment".equals(kind)) {
            return client.apps().deployments().inNamespace(namespace).withName(name);
        }
        return client.apps().replicaSets().inNamespace(namespace).withName(name);
    }

    private static int replicasOf(HasMetadata workload) {
        Integer replicas = workload instanceof Deployment d
                ? (d.getSpec() == null ? null : d.getSpec().getReplicas())
                : workload instanceof ReplicaSet rs
                        ? (rs.getSpec() == null ? null : rs.getSpec().getReplicas())
                        : null;
        return Objects.requireNonNullElse(replicas, 1);
    }

    /** The workload's {@code status.availableReplicas}, as its controller counts them; null when not reported. */
    private static Integer availableOf(HasMetadata workload) {
        if (workload instanceof Deployment d) {
            return d.getStatus() == null ? null : d.getStatus().getAvailableReplicas();
        }
        if (workload instanceof ReplicaSet rs) {
            return rs.getStatus() == null ? null : rs.getStatus().getAvailableReplicas();
        }
        return null;
    }

    private static String shown(SurgeStatus e) {
        return e.getKind() + " " + e.getNamespace() + "/" + e.getName();
    }
}
