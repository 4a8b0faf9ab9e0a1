package dev.tenure.maintenance.annotation;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenure.election.LeaseClaims;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseOwner;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseStore;
import dev.tenure.election.LeaseStoreException;
import dev.tenure.maintenance.api.LeaseStatus;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.maintenance.machine.EventRecorder;
import dev.tenure.maintenance.machine.HandoverOptions;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import dev.tenure.maintenance.machine.PlacementView;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The annotation front door of the {@link MaintenanceMachine}: for one Node it reads the Node and its lease,
 * asks {@link AnnotationProtocol#decide}, does what that says, and returns when to look again. It remembers
 * nothing between calls; what it needs is on the Node ({@link MaintenanceAnnotation#STATE}) and in the Lease,
 * so a new instance (operator restart) continues where the last one stopped.
 *
 * <p>The lease is written here, by the protocol's field rules on the election core's records and store; the
 * node's cordon, taints, handover, drain and undo are the machine's ({@link MaintenanceMachine#advanceHeld},
 * {@link MaintenanceMachine#restoreNode}). Node annotations are written with JSON merge patches.
 */
public final class MaintenanceAnnotationController {

    private static final Logger LOG = Logger.getLogger(MaintenanceAnnotationController.class);
    static final Duration ERROR_RETRY = Duration.ofSeconds(5);
    /**
     * While waiting for a foreign lease, look again at least this often (a release wakes the door at once, {@link
     * AnnotationDoor}; this look is the backstop). The default of {@code tenure.maintenance.lease.wait-retry}.
     */
    static final Duration WAIT_RETRY = Duration.ofSeconds(10);

    private static final Duration MIN_REQUEUE = Duration.ofMillis(100);
    static final String REASON = "node annotation " + MaintenanceAnnotation.REQUEST;
    public static final String INVALID_EVENT = "InvalidMaintenanceRequest";
    public static final String ENDED_EVENT = "MaintenanceEnded";
    public static final String BUDGET_EVENT = "MaintenanceBudgetExceeded";
    /** A request held back by the limits is looked at again this often (as a refused NodeMaintenance is). */
    static final Duration BUDGET_RETRY = Duration.ofSeconds(30);

    private final KubernetesClient client;
    private final LeaseStore leases;
    private final LeaseClaims claims;
    private final MaintenanceMachine machine;
    private final EventRecorder recorder;
    private final AnnotationSettings settings;
    private final MaintenanceBudget budget;
    /** The other door's active request for a node, if any: the end hands the node over to it instead of restoring. */
    private final java.util.function.Function<String, Optional<String>> requestedElsewhere;
    /** What a node's placement forecast reads besides the pods; empty: no forecast. */
    private final java.util.function.Function<String, Optional<PlacementView>> placement;

    private final Clock clock;
    private final Duration waitRetry;

    public MaintenanceAnnotationController(
            KubernetesClient client,
            LeaseStore leases,
            MaintenanceMachine machine,
            EventRecorder recorder,
            AnnotationSettings settings,
            MaintenanceBudget budget,
            Clock clock) {
        this(client, leases, machine, recorder, settings, budget, node -> Optional.empty(), WAIT_RETRY, clock);
    }

    /**
     * As above, with the other door's active request for a node ({@code requestedElsewhere}) and how often a request
     * waiting for a foreign lease looks again at most ({@code waitRetry}, the NodeMaintenance's {@code
     * tenure.maintenance.lease.wait-retry}).
     */
    public MaintenanceAnnotationController(
            KubernetesClient client,
            LeaseStore leases,
            MaintenanceMachine machine,
            EventRecorder recorder,
            AnnotationSettings settings,
            MaintenanceBudget budget,
            java.util.function.Function<String, Optional<String>> requestedElsewhere,
            Duration waitRetry,
            Clock clock) {
        this(
                client,
                leases,
                machine,
                recorder,
                settings,
                budget,
                requestedElsewhere,
                node -> Optional.empty(),
                waitRetry,
                clock);
    }

    /**
     * As above, with what the placement forecast of a node's drain reads besides the pods ({@code placement}: empty,
     * no forecast). The annotation has no field for a policy: the forecast runs with the operator's {@link
     * AnnotationSettings#PLACEMENT_SETTING} (Warn by default) before the cordon (its result in the state record, a
     * Warning on the Node naming that setting when a pod fits nowhere; under Wait, nothing cordoned until the pods fit).
     */
    public MaintenanceAnnotationController(
            KubernetesClient client,
            LeaseStore leases,
            MaintenanceMachine machine,
            EventRecorder recorder,
            AnnotationSettings settings,
            MaintenanceBudget budget,
            java.util.function.Function<String, Optional<String>> requestedElsewhere,
            java.util.function.Function<String, Optional<PlacementView>> placement,
            Duration waitRetry,
            Clock clock) {
        this.requestedElsewhere = requestedElsewhere;
        this.placement = Objects.requireNonNull(placement, "placement");
        this.waitRetry = Objects.requireNonNull(waitRetry, "waitRetry");
        this.client = client;
        this.leases = leases;
        this.claims = new LeaseClaims(leases, clock);
        this.machine = machine;
        this.recorder = recorder;
        this.settings = settings;
        this.budget = budget;
        this.clock = clock;
    }

    /**
     * Whether the protocol has anything to do with this Node (the reconciler's event filter): a request, our
     * state record (kept until the undo is complete), or a status other than {@code ended}. A Node whose
     * maintenance ended and was undone is not reconciled again on every kubelet status update.
     */
    public static boolean concerns(Node node) {
        Map<String, String> a = node.getMetadata().getAnnotations();
        if (a == null) {
            return false;
        }
        String status = a.get(MaintenanceAnnotation.STATUS);
        return a.get(MaintenanceAnnotation.REQUEST) != null
                || a.get(MaintenanceAnnotation.STATE) != null
                || (status != null && !MaintenanceAnnotation.ENDED.equals(status));
    }

    /**
     * One reconcile of {@code nodeName}.
     *
     * @return when to look again; empty = only when the Node changes
     */
    public Optional<Duration> reconcile(String nodeName) {
        LeaseKey key = LeaseKey.of(settings.leaseNamespace(), settings.leaseName(nodeName));
        try {
            Node node = client.nodes().withName(nodeName).get();
            // A lease write is followed by a fresh decision on the written lease (then Maintain or End).
            for (int round = 0; round < 3 && node != null; round++) {
                Instant now = clock.instant();
                Map<String, String> a = annotationsOf(node);
                RecordedState recorded = RecordedState.read(a.get(MaintenanceAnnotation.STATE));
                LeaseRecord lease = leases.find(key).orElse(null);
                AnnotationDecision decision = AnnotationProtocol.decide(
                        new AnnotationProtocol.Observed(
                                a.get(MaintenanceAnnotation.REQUEST),
                                a.get(MaintenanceAnnotation.STATUS),
                                lease,
                                recorded.acquiredAt()),
                        now,
                        settings);
                LOG.debugf("node %s: %s", nodeName, decision);
                if (decision instanceof AnnotationDecision.WriteLease write) {
                    if (!MaintenanceAnnotation.holdsNode(a)) {
                        // a new maintenance: the cluster-wide cap and control-plane budget apply to this door too
                        List<String> refusals = budget.refusals(node);
                        if (!refusals.isEmpty()) {
                            return heldBack(node, String.join("; ", refusals));
                        }
                    }
                    if (!writeLease(key, node, write)) {
                        continue; // someone wrote in between: decide again from a fresh read
                    }
                    node = patch(node, changes(a, MaintenanceAnnotation.STATUS, write.status()), false);
                    continue;
                }
                return act(decision, node, key, lease, recorded, now);
            }
            return node == null ? Optional.empty() : Optional.of(MIN_REQUEUE);
        } catch (LeaseStoreException | KubernetesClientException e) {
            LOG.warnf(
                    "node %s: maintenance annotation protocol: %s; retrying in %s",
                    nodeName, e.getMessage(), ERROR_RETRY);
            return Optional.of(ERROR_RETRY);
        }
    }

    private Optional<Duration> act(
            AnnotationDecision decision,
            Node node,
            LeaseKey key,
            LeaseRecord lease,
            RecordedState recorded,
            Instant now) {
        Map<String, String> a = annotationsOf(node);
        MaintenanceEvents events = eventsOn(node);
        if (decision instanceof AnnotationDecision.Refuse refuse) {
            String status = MaintenanceAnnotation.INVALID_PREFIX + refuse.why();
            if (!status.equals(a.get(MaintenanceAnnotation.STATUS))) {
                events.emit(true, INVALID_EVENT, "node " + name(node) + ": " + refuse.why() + "; nothing was changed");
                patch(node, changes(a, MaintenanceAnnotation.STATUS, status), false);
            }
            return Optional.empty();
        } else if (decision instanceof AnnotationDecision.Wait wait) {
            if (!MaintenanceAnnotation.WAITING.equals(a.get(MaintenanceAnnotation.STATUS))) {
                events.emit(
                        false,
                        MaintenanceEvents.LEASE_WAITING,
                        "lease " + key + " is held by " + wait.holder()
                                + " until " + wait.until().truncatedTo(ChronoUnit.SECONDS)
                                + "; maintenance requested by "
                                + MaintenanceAnnotation.REQUEST + " waits for it");
                patch(node, changes(a, MaintenanceAnnotation.STATUS, MaintenanceAnnotation.WAITING), false);
            }
            return Optional.of(clamp(min(Duration.between(now, wait.until()).plusSeconds(1), waitRetry)));
        } else if (decision instanceof AnnotationDecision.Maintain maintain) {
            return maintain(node, key, lease, recorded, maintain.endsAt(), now, events);
        } else if (decision instanceof AnnotationDecision.End end) {
            return end(node, key, lease, end.removeRequest(), end.leaseEnd(), now, events);
        } else if (decision instanceof AnnotationDecision.Reclaim reclaim) {
            Optional<LeaseRecord> written = claims.write(key, reclaim.lease(), false, nodeOwner(node));
            if (written.isEmpty()) {
                return Optional.of(MIN_REQUEUE); // someone wrote in between: decide again (maybe not ours anymore)
            }
            LeaseRecord taken = written.get();
            LOG.infof(
                    "node %s: lease %s ran out before the maintenance was undone; re-taken for %s to finish",
                    name(node), key, settings.leasePadding());
            return end(node, key, taken, false, AnnotationProtocol.leaseEnd(taken), now, events);
        } else {
            AnnotationDecision.Settle settle = (AnnotationDecision.Settle) decision;
            Map<String, String> changes = changes(a, MaintenanceAnnotation.STATUS, settle.status());
            changes.putAll(changes(a, MaintenanceAnnotation.STATE, null));
            patch(node, changes, false);
            return Optional.empty();
        }
    }

    /** A request the limits do not allow now: reported as waiting, with the reason, and looked at again later. */
    private Optional<Duration> heldBack(Node node, String why) {
        Map<String, String> a = annotationsOf(node);
        if (!MaintenanceAnnotation.WAITING.equals(a.get(MaintenanceAnnotation.STATUS))) {
            eventsOn(node)
                    .emit(
                            true,
                            BUDGET_EVENT,
                            "node " + name(node) + ": maintenance requested by " + MaintenanceAnnotation.REQUEST
                                    + " waits: " + why + "; nothing was changed");
            patch(node, changes(a, MaintenanceAnnotation.STATUS, MaintenanceAnnotation.WAITING), false);
        }
        LOG.infof("node %s: maintenance request held back: %s", name(node), why);
        return Optional.of(BUDGET_RETRY);
    }

    private Optional<Duration> maintain(
            Node node,
            LeaseKey key,
            LeaseRecord lease,
            RecordedState recorded,
            Instant endsAt,
            Instant now,
            MaintenanceEvents events) {
        Map<String, String> a = annotationsOf(node);
        MaintenanceState prior = recorded.stateFor(lease.acquireTime());
        NodeMaintenanceStatus priorStatus = recorded.statusFor(lease.acquireTime());
        MaintenanceRequest request = new MaintenanceRequest(
                name(node), REASON, Optional.empty(), drainOptions(settings), HandoverOptions.defaults());
        MaintenanceMachine.Step step =
                machine.advanceHeld(request, prior, leaseStatus(key, lease), placement.apply(name(node)), events);
        NodeMaintenanceStatus next = NodeMaintenanceStatuses.toStatus(step.state(), priorStatus, 0, now);
        Map<String, String> changes = new LinkedHashMap<>();
        if (priorStatus == null || !next.equals(priorStatus)) {
            changes.put(
                    MaintenanceAnnotation.STATE,
                    RecordedState.of(lease.acquireTime(), next).toJson());
        }
        if (step.state().phase() == Phase.Succeeded) {
            changes.putAll(changes(a, MaintenanceAnnotation.STATUS, MaintenanceAnnotation.ACTIVE));
        }
        patch(node, changes, false);
        Duration untilEnd = Duration.between(now, endsAt);
        return Optional.of(clamp(step.requeueAfter().map(d -> min(d, untilEnd)).orElse(untilEnd)));
    }

    /**
     * The NodeMaintenance defaults, with the placement policy of {@link AnnotationSettings#PLACEMENT_SETTING}: the
     * annotation carries only a duration.
     */
    static DrainOptions drainOptions(AnnotationSettings settings) {
        dev.tenure.maintenance.api.DrainSpec spec = new dev.tenure.maintenance.api.DrainSpec();
        spec.setPlacement(settings.placement());
        return DrainOptions.from(spec);
    }

    /**
     * Ends the maintenance: {@code ended} (and the request's removal, in the same patch, guarded by the Node's
     * resourceVersion so a request changed meanwhile is not deleted), then, while the lease lasts, the undo of
     * the node, the end of the drain and the lease duration unset. A failed step is retried on the next
     * reconcile, at the latest when the lease runs out (then {@link AnnotationDecision.Reclaim} applies). The
     * reconcile thread never loops on a retry (the reference's "retry loop" would hold it for up to the padding).
     */
    private Optional<Duration> end(
            Node node,
            LeaseKey key,
            LeaseRecord lease,
            boolean removeRequest,
            Instant leaseEnd,
            Instant now,
            MaintenanceEvents events) {
        Map<String, String> a = annotationsOf(node);
        Map<String, String> ending = changes(a, MaintenanceAnnotation.STATUS, MaintenanceAnnotation.ENDED);
        if (removeRequest) {
            ending.putAll(changes(a, MaintenanceAnnotation.REQUEST, null));
        }
        if (!ending.isEmpty()) {
            node = patch(node, ending, removeRequest);
            events.emit(
                    false,
                    ENDED_EVENT,
                    "maintenance of node " + name(node) + " ended ("
                            + (removeRequest
                                    ? "the requested " + a.get(MaintenanceAnnotation.REQUEST) + " s are over"
                                    : MaintenanceAnnotation.REQUEST + " was removed")
                            + "); restoring the node");
        }
        if (!now.isBefore(leaseEnd)) {
            return Optional.of(MIN_REQUEUE); // lease ran out: the next reconcile re-takes it (if still ours) to finish
        }
        try {
            Optional<String> next = requestedElsewhere.apply(name(node));
            if (next.isPresent()) {
                machine.handOver(name(node), next.get(), events); // no gap: the next request keeps it cordoned
            } else {
                machine.restoreNode(name(node), events); // uncordon, untaint: only what maintenance added
            }
        } catch (KubernetesClientException e) {
            LOG.warnf("node %s: restoring after maintenance failed (%s); retrying", name(node), e.getMessage());
            return Optional.of(clamp(min(ERROR_RETRY, Duration.between(now, leaseEnd))));
        }
        // The drain is cancelled already: the machine evicts only inside a Maintain step, and none is decided
        // without a request in its window. The lease goes next ("LeaseDurationSeconds = 0"; the API refuses 0),
        // our record last, so an interrupted undo always leaves the record that keeps this Node reconciled.
        if (claims.write(key, lease.withLeaseDurationSeconds(null), false, Optional.empty())
                .isEmpty()) {
            return Optional.of(MIN_REQUEUE);
        }
        patch(node, changes(annotationsOf(node), MaintenanceAnnotation.STATE, null), false);
        LOG.infof("node %s: maintenance requested by %s ended and undone", name(node), MaintenanceAnnotation.REQUEST);
        return Optional.empty();
    }

    /** Writes the lease the protocol decided; false when another writer got in first (decide again). */
    private boolean writeLease(LeaseKey key, Node node, AnnotationDecision.WriteLease write) {
        if (claims.write(key, write.lease(), write.create(), nodeOwner(node)).isEmpty()) {
            return false;
        }
        LOG.infof("node %s: lease %s %s (%s)", name(node), key, write.create() ? "created" : "written", write.status());
        return true;
    }

    /** The lease's owner is the Node (garbage collected with it); an owner of an older Node of that name is dropped. */
    private static Optional<LeaseOwner> nodeOwner(Node node) {
        String uid = node.getMetadata().getUid();
        return uid == null || uid.isBlank() ? Optional.empty() : Optional.of(LeaseOwner.node(name(node), uid));
    }

    /**
     * JSON merge patch of the Node's annotations ({@code null} value = remove); {@code guarded}: only if the Node
     * is still at the resourceVersion it was read at. Returns the patched Node; sends nothing without changes.
     */
    private Node patch(Node node, Map<String, String> changes, boolean guarded) {
        if (changes.isEmpty()) {
            return node;
        }
        ObjectNode metadata = JsonNodeFactory.instance.objectNode();
        ObjectNode annotations = metadata.putObject("annotations");
        changes.forEach(annotations::put);
        if (guarded) {
            metadata.put("resourceVersion", node.getMetadata().getResourceVersion());
        }
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.set("metadata", metadata);
        Node patched =
                client.nodes().withName(name(node)).patch(PatchContext.of(PatchType.JSON_MERGE), body.toString());
        return patched == null ? node : patched;
    }

    /** The change that makes {@code key} say {@code value} ({@code null}: absent); empty when it already does. */
    private static Map<String, String> changes(Map<String, String> current, String key, String value) {
        Map<String, String> m = new LinkedHashMap<>();
        // A key with a null value counts as absent (the mock API server keeps merge-patched nulls).
        boolean same = Objects.equals(value, current.get(key));
        if (!same) {
            m.put(key, value);
        }
        return m;
    }

    private MaintenanceEvents eventsOn(Node node) {
        ObjectReference ref = new ObjectReferenceBuilder()
                .withApiVersion("v1")
                .withKind("Node")
                .withName(name(node))
                .withUid(node.getMetadata().getUid())
                .build();
        return (warning, reason, message) -> recorder.record(ref, warning ? "Warning" : "Normal", reason, message);
    }

    private static LeaseStatus leaseStatus(LeaseKey key, LeaseRecord r) {
        Instant expire = AnnotationProtocol.leaseEnd(r);
        return new LeaseStatus(
                key.name(),
                key.namespace(),
                r.holderIdentity(),
                text(r.acquireTime()),
                text(r.renewTime()),
                Instant.MIN.equals(expire) ? null : text(expire));
    }

    private static String text(Instant t) {
        return t == null ? null : t.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    static Map<String, String> annotationsOf(Node node) {
        return Objects.requireNonNullElse(node.getMetadata().getAnnotations(), Map.of());
    }

    private static String name(Node node) {
        return node.getMetadata().getName();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Duration clamp(Duration d) {
        return d.compareTo(MIN_REQUEUE) < 0 ? MIN_REQUEUE : d;
    }
}
