package dev.tenure.coordination;

import dev.tenure.election.CandidateRecord;
import dev.tenure.election.LeaseConflict;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseRules;
import dev.tenure.election.LeaseStoreException;
import dev.tenure.election.ObservedLease;
import dev.tenure.election.WorkFence;
import dev.tenure.election.kube.KubeLeaseCandidateStore;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.KeyedWorkQueue;
import dev.tenure.kube.NodeCache;
import dev.tenure.kube.SharedInformerCache;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.ReducedStateItemStore;
import io.fabric8.kubernetes.client.informers.cache.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * The coordinated leader election controller: informers on LeaseCandidates, Leases and Nodes feed a work queue
 * keyed by (namespace, leaseName); each step reads the caches, asks {@link ElectionPlanner} for a decision, and
 * carries out its one write. Nothing about an election is kept in memory: a restart resumes from the objects.
 * Also runs the candidate garbage collector and answers the NodeMaintenance handover
 * ({@link #requestHandover}, {@link #handedOver}).
 *
 * <p>{@link #start()} and {@link #stop()} are for the operator's own leader election: only the leading replica
 * runs the controller. Both are idempotent; the controller can be started again after a stop.
 *
 * <p>One file over ~500 lines, on purpose (issue 27's size rule): its four roles — start/stop, the reconcile, the
 * handover answers, candidate garbage collection — all read one {@code Running} generation (queue, scheduler,
 * informer caches) that start and stop swap under this object's lock, so that a stop and a later start never mix
 * generations. The decisions are already out, pure and table-tested ({@link ElectionPlanner}, {@link
 * HandoverPlanner}); what is left is each role's reads and its one write. Splitting by role would pass that
 * generation and its lock between classes, which is where a mixed-generation bug would hide.
 */
public final class CoordinationController {

    /** Where kubelets keep their node heartbeat Leases; never a coordinated election's. */
    static final String NODE_LEASE_NAMESPACE = "kube-node-lease";

    private static final Logger LOG = Logger.getLogger(CoordinationController.class);

    private final KubernetesClient client;
    /** The observer view of each Lease's expiry (see {@link #expiryAsSeen}); dropped when the Lease goes. */
    private final Map<LeaseKey, ObservedLease> seen = new ConcurrentHashMap<>();
    /** The failure last logged at WARN for each Lease whose election fails, so that it is said once per change. */
    private final Map<LeaseKey, String> warnedFailures = new ConcurrentHashMap<>();
    /** A step whose write or ping failed is retried after this (upstream: defaultRequeueInterval, 5 s). */
    private final Duration retryAfterFailure = ElectionTiming.UPSTREAM.requeueInterval();
    /** Each reconcile holds a permit of it (the operator's leadership term); open by default (tests). */
    private volatile WorkFence fence = WorkFence.alwaysOpen();
    /** Every Lease write goes through the election adapter. */
    private final KubeLeaseStore leaseStore;

    private final ElectionPlanner planner;
    private final Clock clock;
    private final LeaseCandidateApi api;
    private final CoordinationMetrics metrics;
    private final Duration gcPeriod;
    private final CandidateEvents events;
    /** The operator's shared Node watch: this controller reads node availability from it. */
    private final NodeCache nodeCache;

    private Running running;
    private String startFailure;

    /** Everything one start() creates, so that stop() and a later start() cannot mix generations. */
    private record Running(
            KeyedWorkQueue<LeaseKey> queue,
            ScheduledExecutorService scheduler,
            SharedIndexInformer<GenericKubernetesResource> candidates,
            SharedIndexInformer<Lease> leases,
            SharedIndexInformer<Pod> pods,
            SharedInformerCache<Node>.Subscription nodes) {}

    public CoordinationController(
            KubernetesClient client,
            KubeLeaseStore leaseStore,
            ElectionPlanner planner,
            Clock clock,
            LeaseCandidateApi api,
            CoordinationMetrics metrics,
            Duration gcPeriod,
            NodeCache nodeCache) {
        this.client = Objects.requireNonNull(client, "client");
        this.nodeCache = Objects.requireNonNull(nodeCache, "nodeCache");
        this.leaseStore = Objects.requireNonNull(leaseStore, "leaseStore");
        this.planner = Objects.requireNonNull(planner, "planner");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.api = Objects.requireNonNull(api, "api");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        if (gcPeriod == null || gcPeriod.isZero() || gcPeriod.isNegative()) {
            throw new IllegalArgumentException("tenure.coordination.gc-period must be > 0, was " + gcPeriod);
        }
        this.gcPeriod = gcPeriod;
        this.events = api.served() ? new CandidateEvents(client, clock, api.apiVersion()) : null;
    }

    public LeaseCandidateApi api() {
        return api;
    }

    public synchronized boolean isRunning() {
        return running != null;
    }

    /** One line for the readiness check. */
    public synchronized String status() {
        if (!api.served()) {
            return "inactive: " + api.detail();
        }
        if (running == null && startFailure != null) {
            return "failed to start: " + startFailure + ", " + api.detail();
        }
        return (running != null ? "running" : "stopped (not leading)") + ", " + api.detail();
    }

    /** Runs every reconcile under a permit of {@code fence}: the operator's term, which a stop waits out. */
    public void fencedBy(WorkFence fence) {
        this.fence = fence;
    }

    /** Starts informers, the election worker and the candidate garbage collector; no-op when running. */
    // the garbage collection task catches and logs its own failures (collectGarbageSafely) and ends with the
    // scheduler, which stop() shuts down: its future holds nothing to check
    @SuppressWarnings("FutureReturnValueIgnored")
    public synchronized void start() {
        if (running != null) {
            return;
        }
        if (!api.served()) {
            LOG.warnf(
                    "Coordinated leader election is inactive: %s. The rest of the operator is unaffected.",
                    api.detail());
            return;
        }
        ScheduledExecutorService scheduler =
                Executors.newScheduledThreadPool(1, r -> daemon(r, "tenure-coordination-scheduler"));
        KeyedWorkQueue<LeaseKey> queue =
                new KeyedWorkQueue<>("coordination", scheduler, Duration.ofMillis(50), Duration.ofSeconds(30));

        SharedIndexInformer<GenericKubernetesResource> candidates = client.genericKubernetesResources(api.context())
                .inAnyNamespace()
                .runnableInformer(0);
        candidates.addEventHandler(candidateEvents(queue));
        // Every kubelet renews its heartbeat Lease in kube-node-lease every 10 s (500 updates/s at 5,000 nodes), and
        // no coordinated election uses that namespace: the API server filters them out, so they are never sent,
        // decoded or scanned against the candidates here.
        SharedIndexInformer<Lease> leases = client.resources(Lease.class)
                .inAnyNamespace()
                .withoutField("metadata.namespace", NODE_LEASE_NAMESPACE)
                .runnableInformer(0);
        leases.addEventHandler(leaseEvents(queue, candidates));
        // where a candidate without a node label runs: its Pod's node, from a watch of every Pod kept trimmed to its
        // name and node (a few dozen bytes a Pod), not a GET per candidate per reconcile
        SharedIndexInformer<Pod> pods = client.pods()
                .inAnyNamespace()
                .runnableInformer(0)
                .itemStore(new ReducedStateItemStore<>(
                        ReducedStateItemStore.NAME_KEY_STATE,
                        Pod.class,
                        client.getKubernetesSerialization(),
                        "spec.nodeName"));
        SharedInformerCache<Node>.Subscription nodes;
        try {
            leases.run();
            pods.run();
            candidates.run();
            nodes = nodeCache.open(nodeEvents(queue, candidates));
        } catch (RuntimeException e) {
            leases.close();
            pods.close();
            candidates.close();
            scheduler.shutdownNow();
            startFailure = e.getMessage();
            throw e;
        }
        startFailure = null;
        running = new Running(queue, scheduler, candidates, leases, pods, nodes);
        queue.startWorkers(1, "tenure-coordination-worker", fence, this::reconcile);
        enqueueAll();
        scheduler.scheduleWithFixedDelay(
                this::collectGarbageSafely, gcPeriod.toMillis(), gcPeriod.toMillis(), TimeUnit.MILLISECONDS);
        LOG.infof(
                "Coordinated leader election started (%s, strategies: %s%s)",
                api.detail(),
                MaintenanceAware.NAME,
                planner.handles(OldestEmulationVersion.NAME) ? ", " + OldestEmulationVersion.NAME : "");
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Candidate changes enqueue their Lease; a candidate just pinged has nothing new to say until it acks. */
    private static ResourceEventHandler<GenericKubernetesResource> candidateEvents(KeyedWorkQueue<LeaseKey> queue) {
        return handler(obj -> enqueue(queue, KubeLeaseCandidateStore.toRecord(obj)), (oldObj, newObj) -> {
            CandidateRecord c = KubeLeaseCandidateStore.toRecord(newObj);
            // upstream enqueueCandidate
            if (c.pingTime() == null || c.renewTime() == null || !c.renewTime().isBefore(c.pingTime())) {
                enqueue(queue, c);
            }
        });
    }

    /** Every Lease event passes here; only Leases that have candidates are enqueued. */
    private static ResourceEventHandler<Lease> leaseEvents(
            KeyedWorkQueue<LeaseKey> queue, SharedIndexInformer<GenericKubernetesResource> candidates) {
        Consumer<Lease> enqueueIfCandidates = l -> {
            LeaseKey key =
                    new LeaseKey(l.getMetadata().getNamespace(), l.getMetadata().getName());
            if (hasCandidates(candidates.getStore(), key)) {
                queue.add(key);
            }
        };
        return handler(enqueueIfCandidates, (oldObj, newObj) -> enqueueIfCandidates.accept(newObj));
    }

    /** A node becoming (un)available re-runs the MaintenanceAware elections; other node updates do not. */
    private static ResourceEventHandler<Node> nodeEvents(
            KeyedWorkQueue<LeaseKey> queue, SharedIndexInformer<GenericKubernetesResource> candidates) {
        return handler(obj -> enqueueMaintenanceAware(queue, candidates), (oldObj, newObj) -> {
            if (!NodeAvailability.unavailableReason(oldObj).equals(NodeAvailability.unavailableReason(newObj))) {
                enqueueMaintenanceAware(queue, candidates);
            }
        });
    }

    /** A handler calling {@code addedOrDeleted} on add and delete, {@code updated} on update. */
    private static <T> ResourceEventHandler<T> handler(Consumer<T> addedOrDeleted, BiConsumer<T, T> updated) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                addedOrDeleted.accept(obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                updated.accept(oldObj, newObj);
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                addedOrDeleted.accept(obj);
            }
        };
    }

    /** The controller's informers by name (empty when not running), for the liveness probe. */
    public Map<String, SharedIndexInformer<?>> informers() {
        Running r = current();
        if (r == null) {
            return Map.of();
        }
        Map<String, SharedIndexInformer<?>> informers = new LinkedHashMap<>();
        informers.put("coordination/leasecandidates", r.candidates());
        informers.put("coordination/leases", r.leases());
        informers.put("coordination/pods", r.pods());
        return informers;
    }

    /** Stops everything start() began; safe to call when stopped. */
    public void stop() {
        Running r;
        synchronized (this) {
            r = running;
            running = null;
        }
        if (r == null) {
            return;
        }
        r.candidates().close();
        r.leases().close();
        r.pods().close();
        r.nodes().close(); // this controller's handler; the shared watch stays while another job uses it
        // the queue first: a reconcile finishing now asks for a re-add, which a shut-down queue drops
        r.queue().shutDownAndWait(Duration.ofSeconds(5));
        r.scheduler().shutdownNow();
        LOG.info("Coordinated leader election stopped");
    }

    /** Queues every Lease that has candidates (after start, and when something outside the objects changed). */
    public void enqueueAll() {
        Running r = current();
        if (r == null) {
            return;
        }
        for (GenericKubernetesResource g : r.candidates().getStore().list()) {
            enqueue(r.queue(), KubeLeaseCandidateStore.toRecord(g));
        }
    }

    /** The API server requires spec.leaseName; a candidate without one is skipped rather than failing a handler. */
    private static void enqueue(KeyedWorkQueue<LeaseKey> queue, CandidateRecord c) {
        if (c.hasLeaseKey()) {
            queue.add(c.leaseKey());
        }
    }

    private static void enqueueMaintenanceAware(
            KeyedWorkQueue<LeaseKey> queue, SharedIndexInformer<GenericKubernetesResource> candidates) {
        for (GenericKubernetesResource g : candidates.getStore().list()) {
            CandidateRecord c = KubeLeaseCandidateStore.toRecord(g);
            if (LeaseStrategy.of(c.strategy()).avoidsUnavailableNodes()) {
                enqueue(queue, c);
            }
        }
    }

    private synchronized Running current() {
        return running;
    }

    // ------------------------------------------------------------------ election step

    /**
     * The Lease's expiry as this controller can judge it: by its timestamps (upstream) and by the observer view — not
     * before a whole lease duration has passed on our clock since we last saw the record change (client-go). A holder
     * whose clock runs behind writes renewTimes that look stale; its renewals still arrive, so it keeps the Lease. The
     * price: a record first seen (after a restart of the operator) counts as changed then, so a dead holder's Lease
     * is given on at most one lease duration later than its timestamps alone would allow.
     */
    private ElectionPlanner.LeaseExpiry expiryAsSeen(LeaseKey key, LeaseRecord lease, Instant now) {
        if (lease == null) {
            seen.remove(key);
            return ElectionPlanner::isLeaseExpired;
        }
        ObservedLease observed = LeaseRules.observe(seen.get(key), lease, now);
        seen.put(key, observed);
        return (l, at) -> ElectionPlanner.isLeaseExpired(l, at)
                && LeaseRules.observerExpired(observed, at, Duration.ofSeconds(5));
    }

    /** The record of {@code key} as this controller last saw it change, and when (its clock); empty before then. */
    Optional<ObservedLease> observed(LeaseKey key) {
        return Optional.ofNullable(seen.get(key));
    }

    /** One election step for {@code key}: read caches, decide, write; returns when to look again. */
    Optional<Duration> reconcile(LeaseKey key) {
        Running r = current();
        if (r == null) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        List<CandidateRecord> candidates = candidatesOf(r, key);
        Lease cached = r.leases().getStore().getByKey(key.namespace() + "/" + key.name());
        LeaseRecord lease = cached == null ? null : KubeLeaseStore.toRecord(cached);
        Set<String> unavailable =
                candidates.stream().anyMatch(c -> LeaseStrategy.of(c.strategy()).avoidsUnavailableNodes())
                        ? unavailableCandidates(r, candidates)
                        : Set.of();

        ElectionStep decision = planner.decide(key, candidates, lease, unavailable, now, expiryAsSeen(key, lease, now));
        String strategy =
                decision.leaseWrite().map(LeaseRecord::strategy).orElse(lease == null ? null : lease.strategy());
        Optional<Instant> leaderless =
                ElectionPlanner.leaderlessSince(lease, planner.admissible(key, candidates, now), now);
        metrics.stepDecided(key, decision, strategy, leaderless, now);
        metrics.liveCandidates(key, decision, planner.liveCandidates(planner.admissible(key, candidates, now), now));
        reportBadInput(planner.admissible(key, candidates, now), decision);
        try {
            apply(r, key, decision, cached, now);
            log(key, decision);
        } catch (KubernetesClientException e) {
            // upstream CLE: the error is reported and the step retried after the fixed requeue interval (5 s), not
            // a growing backoff
            metrics.failure(e.getCode() == 409 ? CoordinationMetrics.WRITE_CONFLICT : CoordinationMetrics.API_ERROR);
            LOG.debugf(
                    "%s: %s not written (%d %s); retrying in %s",
                    key, decision.outcome(), e.getCode(), e.getMessage(), retryAfterFailure);
            return Optional.of(retryAfterFailure);
        } catch (LeaseStoreException e) {
            metrics.failure(
                    e instanceof LeaseConflict ? CoordinationMetrics.WRITE_CONFLICT : CoordinationMetrics.API_ERROR);
            LOG.debugf(
                    "%s: %s not written (%s); retrying in %s",
                    key, decision.outcome(), e.getMessage(), retryAfterFailure);
            return Optional.of(retryAfterFailure);
        }
        metrics.written(key, decision, strategy, leaderless, now);
        return decision.requeue();
    }

    private void apply(Running r, LeaseKey key, ElectionStep decision, Lease cached, Instant now) {
        // every ping is attempted, and the failures reported together (upstream, since pings went parallel): one
        // candidate whose ping keeps failing (RBAC, a webhook, its namespace going away) must not starve the others
        List<String> failed = new ArrayList<>();
        KubernetesClientException first = null;
        for (String name : decision.ping()) {
            try {
                ping(r, key.namespace(), name, now);
            } catch (KubernetesClientException e) {
                failed.add(name + " (" + e.getCode() + " " + e.getMessage() + ")");
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw new KubernetesClientException(
                    "ping of " + failed.size() + " of " + decision.ping().size() + " candidates of " + key + " failed: "
                            + String.join("; ", failed),
                    first.getCode(),
                    first.getStatus());
        }
        if (decision.lease() == null) {
            return;
        }
        if (decision.createLease()) {
            leaseStore.create(key, decision.lease());
        } else {
            // conditional on the cached resourceVersion: a holder renewing meanwhile makes this a 409, not a loss
            leaseStore.update(key, decision.lease(), cached);
        }
    }

    private void ping(Running r, String namespace, String name, Instant now) {
        GenericKubernetesResource cached = r.candidates().getStore().getByKey(namespace + "/" + name);
        String rv = cached == null ? null : cached.getMetadata().getResourceVersion();
        String patch = "{\"metadata\":{" + (rv == null ? "" : "\"resourceVersion\":\"" + rv + "\"")
                + "},\"spec\":{\"pingTime\":\"" + KubeObjects.microTime(now) + "\"}}";
        client.genericKubernetesResources(api.context())
                .inNamespace(namespace)
                .withName(name)
                .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }

    /** Warning Events for what users must fix in their candidates; operational failures stay in logs/metrics. */
    private void reportBadInput(List<CandidateRecord> admissible, ElectionStep decision) {
        boolean conflict = decision.failure() == ElectionStep.FailureReason.STRATEGY_CONFLICT;
        for (CandidateRecord c : admissible) {
            if (conflict) {
                events.warn(c, CandidateEvents.CONFLICTING_STRATEGY, decision.detail());
            } else {
                events.resolved(c, CandidateEvents.CONFLICTING_STRATEGY);
            }
            if (LeaseStrategy.of(c.strategy()).ranked()
                    && decision.outcome() != ElectionStep.Outcome.NOT_MANAGED
                    && !CandidateRanking.validForOldestEmulationVersion(c)) {
                events.warn(
                        c,
                        CandidateEvents.INVALID_VERSION,
                        "binaryVersion \"" + c.binaryVersion()
                                + "\" and emulationVersion \"" + c.emulationVersion()
                                + "\" must both be semantic versions (major.minor.patch); this candidate cannot be elected");
            } else {
                events.resolved(c, CandidateEvents.INVALID_VERSION);
            }
        }
    }

    /**
     * A failed election (a strategy conflict, no candidate) is a WARN once per change, not once per pass: the step
     * fails again at every requeue until someone fixes the candidates, and the Warning Events and the failures metric
     * already count the passes. The same failure again is at DEBUG (ping rounds between two failed votes included); a
     * different one, or one after a vote that did not fail, is a WARN again.
     */
    private void log(LeaseKey key, ElectionStep d) {
        switch (d.outcome()) {
            case CREATE_LEASE, SET_HOLDER, SET_PREFERRED_HOLDER, CLEAR_PREFERRED_HOLDER, SET_STRATEGY ->
                LOG.infof("Lease %s: %s", key, d.detail());
            case FAILED -> {
                String failure = d.failure().label() + ": " + d.detail();
                if (failure.equals(warnedFailures.put(key, failure))) {
                    LOG.debugf(
                            "Lease %s: no election (%s): %s (as before)",
                            key, d.failure().label(), d.detail());
                } else {
                    LOG.warnf("Lease %s: no election (%s): %s", key, d.failure().label(), d.detail());
                }
            }
            default -> LOG.debugf("Lease %s: %s: %s", key, d.outcome(), d.detail());
        }
        // a ping round between two failed votes is no change: only a vote that did not fail ends the condition
        if (d.outcome() != ElectionStep.Outcome.FAILED
                && d.outcome() != ElectionStep.Outcome.PING
                && d.outcome() != ElectionStep.Outcome.AWAIT_ACKS) {
            warnedFailures.remove(key);
        }
    }

    private static List<CandidateRecord> candidatesOf(Running r, LeaseKey key) {
        return candidatesOf(r.candidates().getStore(), key);
    }

    /**
     * The candidates of the Lease {@code key}, by a scan of the informer's store, not an informer index: fabric8
     * updates an index entry by removing the object's key and adding it back, and index reads take no lock, so a
     * read during any rewrite of a candidate (a relist, or a watch restart re-sending unchanged objects, which
     * notifies no handler) can see none. An election step that saw no candidates ends without a requeue, and the
     * Lease then waits for its next event: the stall behind three CoordinationControllerIT flakes (3 in 900
     * controller starts, right after start, as the watch re-sent the listed candidate). The store replaces an
     * entry in place, so a scan sees every object at all times; a few hundred candidates cost microseconds.
     */
    static List<CandidateRecord> candidatesOf(Store<GenericKubernetesResource> store, LeaseKey key) {
        return store.list().stream()
                .filter(g -> isCandidateOf(g, key))
                .map(KubeLeaseCandidateStore::toRecord)
                .toList();
    }

    private static boolean hasCandidates(Store<GenericKubernetesResource> store, LeaseKey key) {
        return store.list().stream().anyMatch(g -> isCandidateOf(g, key));
    }

    /** Cheaper than parsing the whole candidate: every Lease event in the cluster passes through here. */
    private static boolean isCandidateOf(GenericKubernetesResource g, LeaseKey key) {
        return key.namespace().equals(g.getMetadata().getNamespace())
                && key.name().equals(KubeObjects.leaseName(g));
    }

    // ------------------------------------------------------------------ nodes

    /**
     * Names of candidates whose node is cordoned or in maintenance, or not known: a candidate whose Pod the cache
     * cannot place yet is not elected as if its node were fine (it was, when a failed GET read as "no node").
     */
    private Set<String> unavailableCandidates(Running r, List<CandidateRecord> candidates) {
        Set<String> out = new HashSet<>();
        for (CandidateRecord c : candidates) {
            CandidatePlace place = placeOf(r, c);
            if (!place.known()
                    || place.node()
                            .map(n -> r.nodes().informer().getStore().getByKey(n))
                            .flatMap(NodeAvailability::unavailableReason)
                            .isPresent()) {
                out.add(c.name());
            }
        }
        return out;
    }

    /**
     * Where a candidate runs, as the caches tell: on {@code node}, on none ({@code known} and no node: no Pod of its
     * name, or one not yet scheduled), or not known ({@code known} false: the Pod cache has not listed yet).
     */
    record CandidatePlace(Optional<String> node, boolean known) {
        static final CandidatePlace NOWHERE = new CandidatePlace(Optional.empty(), true);
        static final CandidatePlace UNKNOWN = new CandidatePlace(Optional.empty(), false);

        static CandidatePlace on(String node) {
            return new CandidatePlace(Optional.of(node), true);
        }
    }

    /**
     * The node a candidate runs on: label {@code tenure.dev/node}, else the node of the Pod named like it, read from
     * the Pod cache ({@code pods}, a watch of every Pod trimmed to its name and node), never from the API server at
     * each reconcile; {@code synced}: the cache has listed.
     */
    static CandidatePlace placeOf(CandidateRecord c, Store<Pod> pods, boolean synced) {
        String label = c.nodeLabel();
        if (label != null && !label.isEmpty()) {
            return CandidatePlace.on(label);
        }
        if (!synced) {
            return CandidatePlace.UNKNOWN;
        }
        Pod pod = pods.getByKey(c.namespace() + "/" + c.name());
        String node =
                pod == null || pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        return node == null || node.isEmpty() ? CandidatePlace.NOWHERE : CandidatePlace.on(node);
    }

    private static CandidatePlace placeOf(Running r, CandidateRecord c) {
        return placeOf(c, r.pods().getStore(), r.pods().hasSynced());
    }

    /**
     * The node of a candidate for a handover off {@code node}: one whose place is not known counts as on the node
     * being drained, so it neither lets the drain think its Lease has moved off nor is chosen to take a Lease over.
     */
    private static java.util.function.Function<CandidateRecord, Optional<String>> nodeForHandoverOff(
            Running r, String node) {
        return c -> {
            CandidatePlace place = placeOf(r, c);
            return place.known() ? place.node() : Optional.of(node);
        };
    }

    private Set<String> unavailableNodes(Running r) {
        Set<String> out = new LinkedHashSet<>();
        for (Node n : r.nodes().informer().getStore().list()) {
            if (NodeAvailability.unavailableReason(n).isPresent()) {
                out.add(n.getMetadata().getName());
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ handover (NodeMaintenance)

    public List<LeaseKey> leasesHeldOn(String node) {
        Running r = requireRunning();
        List<CandidateRecord> candidates = allCandidates(r);
        return HandoverPlanner.leasesHeldOn(
                node,
                coordinatedLeases(r),
                HandoverPlanner.byIdentity(candidates),
                nodeForHandoverOff(r, node),
                clock.instant());
    }

    public List<HandoverPlanner.HandoverStep> requestHandover(String node) {
        Running r = requireRunning();
        Instant now = clock.instant();
        List<HandoverPlanner.HandoverStep> steps = HandoverPlanner.plan(
                node,
                coordinatedLeases(r),
                allCandidates(r),
                unavailableNodes(r),
                nodeForHandoverOff(r, node),
                planner,
                now);
        for (HandoverPlanner.HandoverStep step : steps) {
            if (step.successor().isEmpty()) {
                LOG.warnf(
                        "Lease %s: held by %s on node %s, and no candidate off the node can take it",
                        step.lease(), step.holder(), node);
                continue;
            }
            Lease cached = r.leases()
                    .getStore()
                    .getByKey(step.lease().namespace() + "/" + step.lease().name());
            if (cached == null
                    || cached.getSpec() == null
                    || step.successor().get().equals(cached.getSpec().getPreferredHolder())) {
                continue;
            }
            // a merge patch of the one field: the holder renews every few seconds, and a conditional update
            // would keep losing to it; preferredHolder is the controller's field, nobody else writes it
            leaseStore.setPreferredHolder(step.lease(), step.successor().get());
            LOG.infof(
                    "Lease %s: handover off node %s requested, preferredHolder %s",
                    step.lease(), node, step.successor().get());
        }
        return steps;
    }

    public boolean handedOver(String node) {
        return leasesHeldOn(node).isEmpty();
    }

    private Running requireRunning() {
        Running r = current();
        if (r == null) {
            throw new IllegalStateException("coordination controller is not running: " + status());
        }
        return r;
    }

    private static List<CandidateRecord> allCandidates(Running r) {
        return r.candidates().getStore().list().stream()
                .map(KubeLeaseCandidateStore::toRecord)
                .toList();
    }

    /**
     * Leases whose strategy this controller runs: a handover only moves those (an OldestEmulationVersion Lease is
     * left alone unless Tenure runs that strategy, since another controller would then own its preferredHolder).
     */
    private Map<LeaseKey, LeaseRecord> coordinatedLeases(Running r) {
        Map<LeaseKey, LeaseRecord> out = new LinkedHashMap<>();
        for (Lease l : r.leases().getStore().list()) {
            LeaseRecord record = KubeLeaseStore.toRecord(l);
            if (planner.handles(record.strategy())) {
                out.put(
                        LeaseKey.of(
                                l.getMetadata().getNamespace(), l.getMetadata().getName()),
                        record);
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ garbage collection

    /**
     * Deletes candidates expired in the cache and again on a fresh read (upstream leasecandidategc): a candidate
     * that renewed since the cache saw it survives. Returns how many were deleted.
     */
    public int collectGarbage() {
        Running r = current();
        if (r == null) {
            return 0;
        }
        return collectGarbage(allCandidates(r), clock.instant());
    }

    /** {@link #collectGarbage()} over a given view of the cache. */
    int collectGarbage(List<CandidateRecord> cachedCandidates, Instant now) {
        int deleted = 0;
        for (CandidateRecord cached : cachedCandidates) {
            if (!planner.isCandidateExpired(cached, now)) {
                continue;
            }
            var resource = client.genericKubernetesResources(api.context())
                    .inNamespace(cached.namespace())
                    .withName(cached.name());
            GenericKubernetesResource fresh = resource.get();
            if (fresh == null || !planner.isCandidateExpired(KubeLeaseCandidateStore.toRecord(fresh), now)) {
                continue;
            }
            resource.delete();
            deleted++;
            LOG.infof(
                    "LeaseCandidate %s/%s expired (last renewed %s): deleted",
                    cached.namespace(), cached.name(), cached.renewTime());
        }
        return deleted;
    }

    private void collectGarbageSafely() {
        try {
            collectGarbage();
        } catch (RuntimeException e) {
            LOG.warnf(e, "LeaseCandidate garbage collection failed; next run in %s", gcPeriod);
        }
    }
}
