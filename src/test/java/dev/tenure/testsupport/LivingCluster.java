package dev.tenure.testsupport;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
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
import java.util.Comparator;
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
 * {@code <name>-<ordinal>} recreated once the old one is gone), pkg/scheduler framework plugins NodeUnschedulable,
 * TaintToleration, NodeAffinity (nodeSelector); and the disruption controller's PodDisruptionBudget status ({@link
 * DisruptionController}). Not emulated: Deployment rollouts (the seeded ReplicaSet is the
 * current one), DaemonSets, resources and affinity, preemption.
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
            String namespace) {
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
            replicaSets(pods);
            statefulSets(pods);
            schedule(store.list(collection("/api/v1", "pods"), Pod.class));
            java.time.Instant now = clock.instant();
            readyAt.forEach((path, at) -> {
                if (!now.isBefore(at)) {
                    readyAt.remove(path);
                    setStatus(path, "Running", true);
                }
            });
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
            if (active >= want) {
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
        Map<String, Integer> load = new HashMap<>();
        pods.stream()
                .filter(LivingCluster::active)
                .filter(p -> p.getSpec() != null && p.getSpec().getNodeName() != null)
                .forEach(p -> load.merge(p.getSpec().getNodeName(), 1, Integer::sum));
        for (Pod pod : pending) {
            Optional<Node> node = nodes.stream()
                    .filter(n -> fits(pod, n))
                    .min(Comparator.comparing((Node n) ->
                                    load.getOrDefault(n.getMetadata().getName(), 0))
                            .thenComparing(n -> n.getMetadata().getName()));
            if (node.isEmpty()) {
                continue; // stays Pending, as upstream: unschedulable until a node fits
            }
            String nodeName = node.get().getMetadata().getName();
            load.merge(nodeName, 1, Integer::sum);
            bind(pod, nodeName);
        }
    }

    /** NodeUnschedulable, NodeReady, TaintToleration (NoSchedule, NoExecute) and nodeSelector. */
    static boolean fits(Pod pod, Node node) {
        if (node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
            boolean toleratesCordon = tolerations(pod).stream()
                    .anyMatch(
                            t -> tolerates(t, new Taint("NoSchedule", "node.kubernetes.io/unschedulable", null, null)));
            if (!toleratesCordon) {
                return false;
            }
        }
        boolean ready = node.getStatus() != null
                && node.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        if (!ready) {
            return false;
        }
        List<Taint> taints = node.getSpec() == null || node.getSpec().getTaints() == null
                ? List.of()
                : node.getSpec().getTaints();
        for (Taint taint : taints) {
            if (("NoSchedule".equals(taint.getEffect()) || "NoExecute".equals(taint.getEffect()))
                    && tolerations(pod).stream().noneMatch(t -> tolerates(t, taint))) {
                return false;
            }
        }
        Map<String, String> selector = pod.getSpec().getNodeSelector();
        Map<String, String> labels = node.getMetadata().getLabels() == null
                ? Map.of()
                : node.getMetadata().getLabels();
        return selector == null
                || selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
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

    private static List<Toleration> tolerations(Pod pod) {
        return pod.getSpec().getTolerations() == null
                ? List.of()
                : pod.getSpec().getTolerations();
    }

    /** Binds the pod (pods/binding) and starts it: Running at once, Ready after the readiness delay. */
    private void bind(Pod pod, String nodeName) {
        String path = ClusterStore.path(pod);
        pod.getSpec().setNodeName(nodeName);
        if (store.update(path, pod).code() >= 300) {
            return; // changed meanwhile: the next round looks again
        }
        setStatus(path, "Running", false);
        readyAt.put(path, clock.instant().plus(readinessDelay));
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
