package dev.tenure.testsupport;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What keeps a real cluster's workloads alive, reduced to what a drain meets: a ReplicaSet controller and a
 * StatefulSet controller that replace deleted and evicted pods, a scheduler that binds a new pod to a node that is
 * not cordoned, whose NoSchedule/NoExecute taints the pod tolerates and whose labels match its nodeSelector (fewest
 * pods first), and kubelets that make a bound pod Ready after a delay. So a PodDisruptionBudget recovers as
 * replacements come up elsewhere, and a drain paced by one goes on. Opt-in: the whole cluster from its start
 * ({@link EmulatedCluster.Options#living}), or one namespace's workloads from a moment on ({@link
 * EmulatedCluster#living}).
 *
 * <p>Each round looks at the whole cluster and acts on what it sees (level-triggered, as the upstream controllers):
 * pkg/controller/replicaset (active pods = not terminating; create the missing), pkg/controller/statefulset (pod
 * {@code <name>-<ordinal>} recreated once the old one is gone), the scheduler's default filter plugins ({@link
 * EmulatedScheduler}: a pod that fits nowhere stays Pending, PodScheduled False, Unschedulable, with the scheduler's
 * message); and the disruption controller's PodDisruptionBudget status ({@link
 * DisruptionController}). The controllers write their workloads' status as upstream counts it: a ReplicaSet's
 * {@code replicas} (active pods, Pending ones included), {@code readyReplicas}, {@code availableReplicas} (Ready;
 * {@code minReadySeconds} is not emulated, as 0), {@code observedGeneration} (pkg/controller/replicaset
 * replica_set_utils.go calculateStatus); a StatefulSet's {@code replicas} (created, not terminating),
 * {@code readyReplicas}, {@code availableReplicas}, {@code currentReplicas}, {@code updatedReplicas},
 * {@code observedGeneration} (pkg/controller/statefulset stateful_set_control.go). A test may hold the pods of a label
 * not Ready ({@link EmulatedCluster#holdReadiness}), as a failing readiness probe would. Not emulated: Deployment
 * rollouts (the seeded ReplicaSet is the current one), DaemonSets, preemption. A Deployment controller keeps its one
 * ReplicaSet's replicas and its status, and a ReplicaSet scale-down deletes the pod ranked first ({@link
 * #DELETION_ORDER}: the newest).
 */
final class LivingCluster {
    private static final Logger LOG = Logger.getLogger(LivingCluster.class.getName());

    private final ClusterStore store;
    private final Clock clock;
    private final Duration readinessDelay;
    private final java.util.concurrent.locks.Lock seeding;
    /** The namespace whose workloads live, or null for every namespace. */
    private final String namespace;
    /** Pods bound here and not Ready yet, by path: when (on the cluster's clock) they become Ready. */
    private final Map<String, java.time.Instant> readyAt = new java.util.concurrent.ConcurrentHashMap<>();

    /** "namespace/key=value": pods with that label in that namespace stay not Ready (a failing readiness probe). */
    private final java.util.Set<String> heldNotReady;

    private final java.util.concurrent.ScheduledFuture<?> rounds;
    /** Set under {@link #seeding}: no round acts after {@link #stop()} returns. */
    private boolean stopped;

    LivingCluster(
            ClusterStore store,
            ScheduledExecutorService executor,
            Clock clock,
            Duration interval,
            Duration readiness,
            java.util.concurrent.locks.Lock seeding,
            String namespace,
            java.util.Set<String> heldNotReady) {
        this.heldNotReady = heldNotReady;
        this.seeding = seeding;
        this.store = store;
        this.clock = clock;
        this.readinessDelay = readiness;
        this.namespace = namespace;
        this.rounds = executor.scheduleWithFixedDelay(
                this::round, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Ends the controllers, scheduler and readiness: once this returns, the cluster changes no more by itself. */
    void stop() {
        seeding.lock();
        try {
            stopped = true;
            rounds.cancel(false);
        } finally {
            seeding.unlock();
        }
    }

    /** A collection's path, within {@link #namespace} when there is one ({@code group}: "/api/v1", "/apis/apps/v1"). */
    private String collection(String group, String plural) {
        return namespace == null ? group + "/" + plural : group + "/namespaces/" + namespace + "/" + plural;
    }

    private void round() {
        seeding.lock();
        try {
            if (stopped) {
                return;
            }
            List<Pod> pods = store.list(collection("/api/v1", "pods"), Pod.class);
            deployments(pods, clock.instant());
            replicaSets(pods);
            statefulSets(pods);
            schedule(store.list(collection("/api/v1", "pods"), Pod.class));
            java.time.Instant now = clock.instant();
            readyAt.forEach((path, at) -> {
                if (!now.isBefore(at) && !heldNotReady(path)) {
                    readyAt.remove(path);
                    setStatus(path, "Running", true);
                }
            });
            List<Pod> after = store.list(collection("/api/v1", "pods"), Pod.class);
            replicaSetStatus(after);
            statefulSetStatus(after);
            DisruptionController.sync(store, namespace, now);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "emulated workload controllers: round failed", e);
        } finally {
            seeding.unlock();
        }
    }

    // ---- controllers ---------------------------------------------------------------------------------------------

    private void replicaSets(List<Pod> pods) {
        for (ReplicaSet rs : store.list(collection("/apis/apps/v1", "replicasets"), ReplicaSet.class)) {
            int want = rs.getSpec() == null || rs.getSpec().getReplicas() == null
                    ? 1
                    : rs.getSpec().getReplicas();
            long active = pods.stream()
                    .filter(p -> ownedBy(p, rs.getMetadata().getUid()))
                    .filter(LivingCluster::active)
                    .count();
            if (active > want) {
                scaleDown(pods, rs, (int) (active - want));
                continue;
            }
            if (active == want) {
                continue;
            }
            Optional<PodTemplateSpec> template = replicaSetTemplate(rs);
            if (template.isEmpty()) {
                continue;
            }
            for (long i = active; i < want; i++) {
                create(
                        template.get(),
                        rs.getMetadata().getNamespace(),
                        rs.getMetadata().getName() + "-" + suffix(),
                        Map.of(),
                        owner(rs, "ReplicaSet"));
            }
        }
    }

    /**
     * The Deployment controller, reduced to a Deployment with one ReplicaSet (pkg/controller/deployment sync and
     * syncDeploymentStatus; rollouts are not emulated, so a Deployment with several is left alone): the ReplicaSet's
     * {@code spec.replicas} follows the Deployment's (what a scale, ours or another's, changes), and the status counts
     * its active pods: {@code replicas}, {@code updatedReplicas} (the one ReplicaSet's), {@code readyReplicas},
     * {@code availableReplicas} (Ready for {@code minReadySeconds}, podutil.IsPodAvailable), {@code
     * observedGeneration}; written only when it differs.
     */
    private void deployments(List<Pod> pods, java.time.Instant now) {
        List<ReplicaSet> sets = store.list(collection("/apis/apps/v1", "replicasets"), ReplicaSet.class);
        for (Deployment d : store.list(collection("/apis/apps/v1", "deployments"), Deployment.class)) {
            List<ReplicaSet> owned = sets.stream()
                    .filter(rs -> rs.getMetadata().getOwnerReferences().stream()
                            .anyMatch(o -> Boolean.TRUE.equals(o.getController())
                                    && d.getMetadata().getUid().equals(o.getUid())))
                    .toList();
            if (owned.size() != 1) {
                continue;
            }
            ReplicaSet rs = owned.get(0);
            int want = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
            if (rs.getSpec() != null
                    && !Integer.valueOf(want).equals(rs.getSpec().getReplicas())) {
                rs.getSpec().setReplicas(want);
                store.update(ClusterStore.path(rs), rs); // a conflict: the next round looks again
            }
            int minReady =
                    d.getSpec().getMinReadySeconds() == null ? 0 : d.getSpec().getMinReadySeconds();
            List<Pod> active = pods.stream()
                    .filter(p -> ownedBy(p, rs.getMetadata().getUid()))
                    .filter(LivingCluster::active)
                    .toList();
            int ready = (int) active.stream().filter(DisruptionBudgets::isReady).count();
            int available = (int)
                    active.stream().filter(p -> available(p, minReady, now)).count();
            var status = new io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder()
                    .withObservedGeneration(d.getMetadata().getGeneration())
                    .withReplicas(active.size())
                    .withUpdatedReplicas(active.size())
                    .withReadyReplicas(ready)
                    .withAvailableReplicas(available)
                    .withUnavailableReplicas(Math.max(0, want - available))
                    .build();
            if (!status.equals(d.getStatus())) {
                d.setStatus(status);
                store.update(ClusterStore.path(d) + "/status", d);
            }
        }
    }

    /** podutil.IsPodAvailable: Ready, and for at least {@code minReadySeconds} since its Ready condition's change. */
    static boolean available(Pod pod, int minReadySeconds, java.time.Instant now) {
        Optional<io.fabric8.kubernetes.api.model.PodCondition> ready = readyCondition(pod);
        if (ready.isEmpty() || !"True".equals(ready.get().getStatus())) {
            return false;
        }
        if (minReadySeconds == 0) {
            return true;
        }
        String since = ready.get().getLastTransitionTime();
        return since != null
                && !java.time.Instant.parse(since).plusSeconds(minReadySeconds).isAfter(now);
    }

    private static Optional<io.fabric8.kubernetes.api.model.PodCondition> readyCondition(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getConditions() == null
                ? Optional.empty()
                : pod.getStatus().getConditions().stream()
                        .filter(c -> "Ready".equals(c.getType()))
                        .findFirst();
    }

    /**
     * The ReplicaSet controller's scale-down: the {@code surplus} active pods it ranks first are deleted
     * (pkg/controller/replicaset getPodsToDelete, controller.ActivePodsWithRanks: {@link #DELETION_ORDER}).
     */
    private void scaleDown(List<Pod> pods, ReplicaSet rs, int surplus) {
        pods.stream()
                .filter(p -> ownedBy(p, rs.getMetadata().getUid()))
                .filter(LivingCluster::active)
                .sorted(DELETION_ORDER)
                .limit(surplus)
                .forEach(p -> store.delete(ClusterStore.path(p)));
    }

    /**
     * Which active pod a ReplicaSet scaling down deletes first (pkg/controller/controller_utils.go
     * ActivePodsWithRanks.Less, without the co-location rank): not yet scheduled before scheduled; Pending before
     * Running; not Ready before Ready; lower {@code controller.kubernetes.io/pod-deletion-cost} before higher; Ready for
     * less time before Ready for longer; newer before older. In short: the newest pod goes first, unless a deletion
     * cost says otherwise.
     */
    static final java.util.Comparator<Pod> DELETION_ORDER = java.util.Comparator.<Pod>comparingInt(
                    p -> p.getSpec() == null
                                    || p.getSpec().getNodeName() == null
                                    || p.getSpec().getNodeName().isEmpty()
                            ? 0
                            : 1)
            .thenComparingInt(
                    p -> phaseRank(p.getStatus() == null ? null : p.getStatus().getPhase()))
            .thenComparingInt(p -> DisruptionBudgets.isReady(p) ? 1 : 0)
            .thenComparingInt(LivingCluster::deletionCost)
            .thenComparing(
                    p -> readyCondition(p)
                            .map(io.fabric8.kubernetes.api.model.PodCondition::getLastTransitionTime)
                            .orElse(""),
                    java.util.Comparator.reverseOrder())
            .thenComparing(
                    p -> Optional.ofNullable(p.getMetadata().getCreationTimestamp())
                            .orElse(""),
                    java.util.Comparator.reverseOrder());

    /** controller.kubernetes.io/pod-deletion-cost (an int32; unparsable counts as 0, as upstream's helper). */
    static final String DELETION_COST = "controller.kubernetes.io/pod-deletion-cost";

    private static int deletionCost(Pod p) {
        String v = p.getMetadata().getAnnotations() == null
                ? null
                : p.getMetadata().getAnnotations().get(DELETION_COST);
        try {
            return v == null ? 0 : Integer.parseInt(v);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static int phaseRank(String phase) {
        return switch (phase == null ? "" : phase) {
            case "Pending" -> 0;
            case "Running" -> 2;
            default -> 1; // Unknown
        };
    }

    /** The ReplicaSet's template, else its Deployment's with the ReplicaSet's pod-template-hash (the seeds'). */
    private Optional<PodTemplateSpec> replicaSetTemplate(ReplicaSet rs) {
        if (rs.getSpec() != null && rs.getSpec().getTemplate() != null) {
            return Optional.of(rs.getSpec().getTemplate());
        }
        return rs.getMetadata().getOwnerReferences().stream()
                .filter(o -> "Deployment".equals(o.getKind()))
                .findFirst()
                .flatMap(o -> store.get(
                        "/apis/apps/v1/namespaces/" + rs.getMetadata().getNamespace() + "/deployments/" + o.getName(),
                        Deployment.class))
                .map(d -> d.getSpec().getTemplate())
                .map(t -> {
                    PodTemplateSpec copy = store.serialization.clone(t);
                    String hash = rs.getMetadata().getLabels() == null
                            ? null
                            : rs.getMetadata().getLabels().get("pod-template-hash");
                    if (hash != null) {
                        Map<String, String> labels = new LinkedHashMap<>(
                                copy.getMetadata().getLabels() == null
                                        ? Map.of()
                                        : copy.getMetadata().getLabels());
                        labels.put("pod-template-hash", hash);
                        copy.getMetadata().setLabels(labels);
                    }
                    return copy;
                });
    }

    private void statefulSets(List<Pod> pods) {
        for (StatefulSet sts : store.list(collection("/apis/apps/v1", "statefulsets"), StatefulSet.class)) {
            int want = sts.getSpec().getReplicas() == null ? 1 : sts.getSpec().getReplicas();
            String namespace = sts.getMetadata().getNamespace();
            for (int ordinal = 0; ordinal < want; ordinal++) {
                String name = sts.getMetadata().getName() + "-" + ordinal;
                boolean exists = pods.stream()
                        .anyMatch(p -> p.getMetadata().getName().equals(name)
                                && namespace.equals(p.getMetadata().getNamespace()));
                if (!exists) { // a terminating pod still holds its identity: it is replaced once gone
                    create(
                            sts.getSpec().getTemplate(),
                            namespace,
                            name,
                            Map.of("statefulset.kubernetes.io/pod-name", name),
                            owner(sts, "StatefulSet"));
                }
            }
        }
    }

    private void create(
            PodTemplateSpec template,
            String namespace,
            String name,
            Map<String, String> extraLabels,
            OwnerReference owner) {
        Map<String, String> labels = new LinkedHashMap<>(
                template.getMetadata() == null || template.getMetadata().getLabels() == null
                        ? Map.of()
                        : template.getMetadata().getLabels());
        labels.putAll(extraLabels);
        String now = now();
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .withLabels(labels)
                .withOwnerReferences(owner)
                .endMetadata()
                .withSpec(store.serialization.clone(template.getSpec()))
                .withNewStatus()
                .withPhase("Pending")
                .addNewCondition()
                .withType("PodScheduled")
                .withStatus("False")
                .withLastTransitionTime(now)
                .endCondition()
                .endStatus()
                .build();
        pod.getSpec().setNodeName(null);
        store.create(pod);
    }

    // ---- workload status ---------------------------------------------------------------------------------------

    /** Each ReplicaSet's status as its controller computes it (calculateStatus), written when it changes. */
    private void replicaSetStatus(List<Pod> pods) {
        for (ReplicaSet rs : store.list(collection("/apis/apps/v1", "replicasets"), ReplicaSet.class)) {
            List<Pod> active = pods.stream()
                    .filter(p -> ownedBy(p, rs.getMetadata().getUid()))
                    .filter(LivingCluster::active)
                    .toList();
            int ready = (int) active.stream().filter(DisruptionBudgets::isReady).count();
            var status = new io.fabric8.kubernetes.api.model.apps.ReplicaSetStatusBuilder(
                            rs.getStatus() == null
                                    ? new io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus()
                                    : rs.getStatus())
                    .withReplicas(active.size())
                    .withFullyLabeledReplicas(active.size())
                    .withReadyReplicas(ready)
                    .withAvailableReplicas(ready)
                    .withObservedGeneration(rs.getMetadata().getGeneration())
                    .build();
            if (!status.equals(rs.getStatus())) {
                rs.setStatus(status);
                store.update(ClusterStore.path(rs) + "/status", rs);
            }
        }
    }

    /** Each StatefulSet's status as its controller computes it, written when it changes. */
    private void statefulSetStatus(List<Pod> pods) {
        for (StatefulSet sts : store.list(collection("/apis/apps/v1", "statefulsets"), StatefulSet.class)) {
            List<Pod> created = pods.stream()
                    .filter(p -> ownedBy(p, sts.getMetadata().getUid()))
                    .filter(p -> !DisruptionBudgets.isTerminating(p))
                    .toList();
            int ready =
                    (int) created.stream().filter(DisruptionBudgets::isReady).count();
            var status = new io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder(
                            sts.getStatus() == null
                                    ? new io.fabric8.kubernetes.api.model.apps.StatefulSetStatus()
                                    : sts.getStatus())
                    .withReplicas(created.size())
                    .withReadyReplicas(ready)
                    .withAvailableReplicas(ready)
                    .withCurrentReplicas(created.size())
                    .withUpdatedReplicas(created.size())
                    .withObservedGeneration(sts.getMetadata().getGeneration())
                    .build();
            if (!status.equals(sts.getStatus())) {
                sts.setStatus(status);
                store.update(ClusterStore.path(sts) + "/status", sts);
            }
        }
    }

    private boolean heldNotReady(String path) {
        if (heldNotReady.isEmpty()) {
            return false;
        }
        return store.get(path, Pod.class)
                .map(p -> {
                    Map<String, String> labels = p.getMetadata().getLabels() == null
                            ? Map.of()
                            : p.getMetadata().getLabels();
                    return labels.entrySet().stream()
                            .anyMatch(e -> heldNotReady.contains(
                                    p.getMetadata().getNamespace() + "/" + e.getKey() + "=" + e.getValue()));
                })
                .orElse(false);
    }

    // ---- scheduler and kubelet -----------------------------------------------------------------------------------

    private void schedule(List<Pod> pods) {
        List<Pod> pending = pods.stream()
                .filter(p -> p.getSpec() != null
                        && (p.getSpec().getNodeName() == null
                                || p.getSpec().getNodeName().isEmpty()))
                .filter(LivingCluster::active)
                .toList();
        if (pending.isEmpty()) {
            return;
        }
        List<Node> nodes = store.list("/api/v1/nodes", Node.class);
        // the scheduler's view is the whole cluster's, whatever namespace lives
        List<Pod> bound = new java.util.ArrayList<>(store.list("/api/v1/pods", Pod.class).stream()
                .filter(LivingCluster::active)
                .filter(p -> p.getSpec() != null
                        && p.getSpec().getNodeName() != null
                        && !p.getSpec().getNodeName().isEmpty())
                .toList());
        Map<String, PersistentVolumeClaim> claims = new HashMap<>();
        store.list("/api/v1/persistentvolumeclaims", PersistentVolumeClaim.class)
                .forEach(c -> claims.put(
                        c.getMetadata().getNamespace() + "/" + c.getMetadata().getName(), c));
        Map<String, PersistentVolume> volumes = new HashMap<>();
        store.list("/api/v1/persistentvolumes", PersistentVolume.class)
                .forEach(v -> volumes.put(v.getMetadata().getName(), v));
        Map<String, Map<String, String>> namespaceLabels = new HashMap<>();
        store.list("/api/v1/namespaces", io.fabric8.kubernetes.api.model.Namespace.class)
                .forEach(n -> namespaceLabels.put(
                        n.getMetadata().getName(),
                        n.getMetadata().getLabels() == null
                                ? Map.of()
                                : n.getMetadata().getLabels()));
        EmulatedScheduler.Reads view = new EmulatedScheduler.Reads(
                k -> Optional.ofNullable(claims.get(k)),
                k -> Optional.ofNullable(volumes.get(k)),
                ns -> namespaceLabels.getOrDefault(ns, Map.of()));
        for (Pod pod : pending) {
            EmulatedScheduler.Decision decision = EmulatedScheduler.schedule(pod, nodes, bound, view);
            if (decision instanceof EmulatedScheduler.Bind bind) {
                if (bind(pod, bind.nodeName())) {
                    bound.add(pod); // what it takes is taken for the next pod of this round
                }
            } else if (decision instanceof EmulatedScheduler.Unschedulable unschedulable) {
                unschedulable(pod, unschedulable.message()); // stays Pending until a node fits, as upstream
            }
        }
    }

    /**
     * The scheduler's mark on a pod that fits nowhere (pkg/scheduler/schedule_one.go handleSchedulingFailure):
     * phase Pending, PodScheduled False, reason Unschedulable, its message; written only when it changes.
     */
    private void unschedulable(Pod pod, String message) {
        var scheduled = pod.getStatus() == null || pod.getStatus().getConditions() == null
                ? Optional.<io.fabric8.kubernetes.api.model.PodCondition>empty()
                : pod.getStatus().getConditions().stream()
                        .filter(c -> "PodScheduled".equals(c.getType()))
                        .findFirst();
        if (scheduled.isPresent()
                && "Unschedulable".equals(scheduled.get().getReason())
                && message.equals(scheduled.get().getMessage())) {
            return;
        }
        pod.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder()
                .withPhase("Pending")
                .addNewCondition()
                .withType("PodScheduled")
                .withStatus("False")
                .withReason("Unschedulable")
                .withMessage(message)
                .withLastTransitionTime(now())
                .endCondition()
                .build());
        store.update(ClusterStore.path(pod) + "/status", pod);
    }

    /** NodeUnschedulable, NodeReady, TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit on this node alone. */
    static boolean fits(Pod pod, Node node) {
        return EmulatedScheduler.filter(pod, node, List.of(node), Map.of(), List.of(), EmulatedScheduler.Reads.none())
                .isEmpty();
    }

    /** k8s.io/api core/v1 Toleration.ToleratesTaint. */
    static boolean tolerates(Toleration t, Taint taint) {
        if (t.getEffect() != null && !t.getEffect().isEmpty() && !t.getEffect().equals(taint.getEffect())) {
            return false;
        }
        if (t.getKey() != null && !t.getKey().isEmpty() && !t.getKey().equals(taint.getKey())) {
            return false;
        }
        String operator = t.getOperator() == null || t.getOperator().isEmpty() ? "Equal" : t.getOperator();
        return switch (operator) {
            case "Exists" -> true;
            case "Equal" ->
                java.util.Objects.equals(
                        t.getValue() == null ? "" : t.getValue(), taint.getValue() == null ? "" : taint.getValue());
            default -> false;
        };
    }

    /** Binds the pod (pods/binding) and starts it: Running at once, Ready after the readiness delay. */
    private boolean bind(Pod pod, String nodeName) {
        String path = ClusterStore.path(pod);
        pod.getSpec().setNodeName(nodeName);
        if (store.update(path, pod).code() >= 300) {
            return false; // changed meanwhile: the next round looks again
        }
        setStatus(path, "Running", false);
        readyAt.put(path, clock.instant().plus(readinessDelay));
        return true;
    }

    private void setStatus(String path, String phase, boolean ready) {
        try {
            store.get(path, Pod.class).filter(LivingCluster::active).ifPresent(p -> {
                String now = now();
                p.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder()
                        .withPhase(phase)
                        .addNewCondition()
                        .withType("PodScheduled")
                        .withStatus("True")
                        .withLastTransitionTime(now)
                        .endCondition()
                        .addNewCondition()
                        .withType("Ready")
                        .withStatus(ready ? "True" : "False")
                        .withLastTransitionTime(now)
                        .endCondition()
                        .build());
                store.update(path + "/status", p);
            });
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "emulated kubelet: could not start " + path, e);
        }
    }

    // ---- helpers -------------------------------------------------------------------------------------------------

    /** Counted by its controller: not terminating and not finished (ReplicaSet controller's FilterActivePods). */
    static boolean active(Pod p) {
        String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
        return !DisruptionBudgets.isTerminating(p) && !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    private static boolean ownedBy(Pod p, String uid) {
        return p.getMetadata().getOwnerReferences().stream().anyMatch(o -> uid.equals(o.getUid()));
    }

    private static OwnerReference owner(io.fabric8.kubernetes.api.model.HasMetadata owner, String kind) {
        return new OwnerReferenceBuilder()
                .withApiVersion("apps/v1")
                .withKind(kind)
                .withName(owner.getMetadata().getName())
                .withUid(owner.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }

    private static String suffix() {
        String chars = "bcdfghjklmnpqrstvwxz2456789";
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            b.append(chars.charAt(ThreadLocalRandom.current().nextInt(chars.length())));
        }
        return b.toString();
    }

    private String now() {
        return ZonedDateTime.now(clock).withNano(0).format(DateTimeFormatter.ISO_INSTANT);
    }
}
