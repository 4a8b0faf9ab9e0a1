package dev.tenure.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.MockResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What the kubelets would do: finish terminating pods once their grace period (scaled) has passed, renew each node's
 * lease in {@code kube-node-lease}, and report the runs of the containers a test starts and ends in their pods' status
 * (pkg/kubelet/kubelet_pods.go convertToAPIContainerStatuses: {@code state.running}, then {@code state.terminated}
 * with the exit code and reason, a restart with a new container ID, {@code restartCount + 1} and the ended run in
 * {@code lastState}; times in whole seconds). A kubelet marked down does none of it: its pods stay terminating, its
 * lease goes stale, and what happened to its containers is reported only once it is back, as on a node that lost
 * power or a kubelet that stopped.
 */
final class KubeletSimulator {
    static final String NODE_LEASE_NAMESPACE = "kube-node-lease";
    /** Per-pod override of the termination delay, in milliseconds (benchmarks). */
    static final String TERMINATION_DELAY_ANNOTATION = "emulated.tenure.dev/termination-delay-ms";
    /** Held by the simulated kubelet while a pod terminates. */
    static final String FINALIZER = "emulated.tenure.dev/kubelet";

    private static final Logger LOG = Logger.getLogger(KubeletSimulator.class.getName());
    private static final DateTimeFormatter MICRO_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'");

    private final ClusterStore store;
    private final ScheduledExecutorService executor;
    private final Clock clock;
    private final double gracePeriodScale;
    private final Function<Pod, Duration> terminationDelayOverride;
    private final int leaseDurationSeconds;
    private final Set<String> down = ConcurrentHashMap.newKeySet();
    /** Pods whose termination is due but whose kubelet is down: node → pod paths. */
    private final Map<String, Set<String>> stuck = new ConcurrentHashMap<>();
    /** Container reports held back while their node's kubelet is down: node → reports, in order. */
    private final Map<String, java.util.Queue<Runnable>> heldReports = new ConcurrentHashMap<>();

    KubeletSimulator(ClusterStore store, ScheduledExecutorService executor, EmulatedCluster.Options options) {
        this.store = store;
        this.executor = executor;
        this.clock = options.clock();
        this.gracePeriodScale = options.gracePeriodScale();
        this.terminationDelayOverride = options.terminationDelay();
        this.leaseDurationSeconds = options.nodeLeaseDurationSeconds();
        Duration renew = options.nodeLeaseRenewInterval();
        executor.scheduleWithFixedDelay(this::renewLeases, 0, renew.toMillis(), TimeUnit.MILLISECONDS);
    }

    void markDown(String node) {
        down.add(node);
    }

    void markUp(String node) {
        down.remove(node);
        java.util.Queue<Runnable> reports = heldReports.remove(node);
        if (reports != null) {
            executor.execute(() -> reports.forEach(Runnable::run));
        }
        Set<String> pods = stuck.remove(node);
        if (pods != null) {
            pods.forEach(path -> executor.execute(() -> finish(path, node)));
        }
        executor.execute(this::renewLeases);
    }

    boolean isDown(String node) {
        return down.contains(node);
    }

    /** How long the kubelet takes to stop {@code pod} once it is terminating. */
    Duration terminationDelay(Pod pod, long gracePeriodSeconds) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        if (annotations != null && annotations.containsKey(TERMINATION_DELAY_ANNOTATION)) {
            return Duration.ofMillis(Long.parseLong(annotations.get(TERMINATION_DELAY_ANNOTATION)));
        }
        if (terminationDelayOverride != null) {
            return terminationDelayOverride.apply(pod);
        }
        return Duration.ofMillis(Math.round(gracePeriodSeconds * 1000 * gracePeriodScale));
    }

    /**
     * Puts a pod into termination (deletionTimestamp = now + grace) and schedules its removal. The CRUD store
     * deletes an object at once when deletionTimestamp is set without finalizers, so the kubelet holds a
     * finalizer of its own while the pod terminates (as the real kubelet holds the pod until its containers stop).
     */
    Pod terminate(Pod pod, long gracePeriodSeconds) {
        String path = ClusterStore.path(pod);
        String deletionTimestamp = ZonedDateTime.now(clock)
                .plusSeconds(gracePeriodSeconds)
                .withNano(0)
                .format(DateTimeFormatter.ISO_INSTANT);
        var patch = store.json.createObjectNode();
        var meta = patch.putObject("metadata");
        meta.put("deletionTimestamp", deletionTimestamp).put("deletionGracePeriodSeconds", gracePeriodSeconds);
        if (!pod.getMetadata().getFinalizers().contains(FINALIZER)) {
            // the CRUD store's merge patch appends a list to the stored one: only the kubelet's finalizer is sent
            // (sending the pod's own again listed each of them twice)
            meta.putArray("finalizers").add(FINALIZER);
        }
        var response = store.mergePatch(path, patch.toString());
        if (response.code() >= 300) { // the CRUD store answers 202 to a patch that sets deletionTimestamp
            throw new IllegalStateException(
                    "could not mark " + path + " terminating: " + response.code() + " " + ClusterStore.body(response));
        }
        Pod terminating = store.serialization.unmarshal(ClusterStore.body(response), Pod.class);
        scheduleRemoval(terminating, gracePeriodSeconds);
        return terminating;
    }

    /** Schedules removal of a pod that is terminating. */
    private void scheduleRemoval(Pod pod, long gracePeriodSeconds) {
        String path = ClusterStore.path(pod);
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        executor.schedule(
                () -> finish(path, node),
                terminationDelay(pod, gracePeriodSeconds).toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private void finish(String path, String node) {
        try {
            if (node != null && down.contains(node)) {
                stuck.computeIfAbsent(node, n -> ConcurrentHashMap.newKeySet()).add(path);
                if (!down.contains(node)) { // marked up meanwhile
                    markUp(node);
                }
                return;
            }
            store.get(path, Pod.class).filter(DisruptionBudgets::isTerminating).ifPresent(p -> {
                // Dropping the kubelet's finalizer lets the store delete the pod (others' finalizers still hold it).
                List<String> rest = p.getMetadata().getFinalizers().stream()
                        .filter(f -> !f.equals(FINALIZER))
                        .toList();
                p.getMetadata().setFinalizers(rest);
                store.update(path, p); // a merge patch cannot drop it once deletionTimestamp is set; an update can
                if (rest.isEmpty() && store.get(path, Pod.class).isPresent()) {
                    store.delete(path);
                }
            });
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "kubelet simulation could not remove " + path, e);
        }
    }

    // ---- container runs ---------------------------------------------------------------------------------------

    /**
     * Starts a run of {@code container} in the pod at {@code path} that began at {@code startedAt} (at the earliest
     * when the previous run ended: runs of one container never overlap), and reports it at once: {@code state.running}
     * with a new container ID; a previous run that ended moves to {@code lastState} and {@code restartCount} grows by
     * one. Returns the run's container ID.
     */
    String startContainer(String path, String container, java.time.Instant startedAt) {
        String id = "containerd://" + java.util.UUID.randomUUID().toString().replace("-", "");
        Pod[] written = {null};
        writeStatus(path, pod -> {
            io.fabric8.kubernetes.api.model.ContainerStatus previous = containerStatus(pod, container);
            java.time.Instant start = startedAt;
            io.fabric8.kubernetes.api.model.ContainerState last = previous == null ? null : previous.getLastState();
            int restarts = 0;
            if (previous != null && previous.getState() != null) {
                restarts = previous.getRestartCount() == null ? 0 : previous.getRestartCount() + 1;
                if (previous.getState().getTerminated() != null) {
                    last = previous.getState();
                    java.time.Instant ended = java.time.Instant.parse(
                            previous.getState().getTerminated().getFinishedAt());
                    start = start.isBefore(ended) ? ended : start;
                }
            }
            io.fabric8.kubernetes.api.model.ContainerStatus status =
                    new io.fabric8.kubernetes.api.model.ContainerStatusBuilder()
                            .withName(container)
                            .withContainerID(id)
                            .withImage(container)
                            .withRestartCount(restarts)
                            .withReady(true)
                            .withStarted(true)
                            .withNewState()
                            .withNewRunning(seconds(start))
                            .endState()
                            .withLastState(last == null ? new io.fabric8.kubernetes.api.model.ContainerState() : last)
                            .build();
            replaceContainerStatus(pod, status);
            written[0] = pod;
        });
        return written[0] == null ? null : id;
    }

    /**
     * The run of {@code container} now running in the pod at {@code path} ends now (killed, OOM-killed, exited); the
     * kubelet reports it {@code lag} later ({@code state.terminated} with that run's ID and start, the finish time
     * now), or, while the pod's node's kubelet is down, once it is back.
     */
    void endContainer(String path, String container, int exitCode, String reason, Duration lag) {
        String finishedAt = seconds(clock.instant());
        Runnable report = () -> writeStatus(path, pod -> {
            io.fabric8.kubernetes.api.model.ContainerStatus current = containerStatus(pod, container);
            if (current == null
                    || current.getState() == null
                    || current.getState().getRunning() == null) {
                return; // nothing running to end
            }
            current.setReady(false);
            current.setStarted(false);
            current.setState(new io.fabric8.kubernetes.api.model.ContainerStateBuilder()
                    .withNewTerminated()
                    .withContainerID(current.getContainerID())
                    .withStartedAt(current.getState().getRunning().getStartedAt())
                    .withFinishedAt(finishedAt)
                    .withExitCode(exitCode)
                    .withReason(reason)
                    .endTerminated()
                    .build());
        });
        executor.schedule(() -> reportUnlessDown(path, report), lag.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void reportUnlessDown(String path, Runnable report) {
        String node = store.get(path, Pod.class)
                .map(p -> p.getSpec() == null ? null : p.getSpec().getNodeName())
                .orElse(null);
        if (node != null && down.contains(node)) {
            heldReports
                    .computeIfAbsent(node, n -> new java.util.concurrent.ConcurrentLinkedQueue<>())
                    .add(report);
            return;
        }
        report.run();
    }

    /** Edits the pod's status (PUT .../status) until it sticks; a pod that is gone has no status to report. */
    private void writeStatus(String path, java.util.function.Consumer<Pod> edit) {
        for (int attempt = 0; attempt < 20; attempt++) {
            Optional<Pod> found = store.get(path, Pod.class);
            if (found.isEmpty()) {
                return;
            }
            Pod pod = found.get();
            if (pod.getStatus() == null) {
                pod.setStatus(new io.fabric8.kubernetes.api.model.PodStatus());
            }
            edit.accept(pod);
            int code = store.update(path + "/status", pod).code();
            if (code != 409) {
                if (code >= 300) {
                    LOG.warning("emulated kubelet: status of " + path + " refused: " + code);
                }
                return;
            }
        }
    }

    private static io.fabric8.kubernetes.api.model.ContainerStatus containerStatus(Pod pod, String container) {
        return pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null
                ? null
                : pod.getStatus().getContainerStatuses().stream()
                        .filter(c -> container.equals(c.getName()))
                        .findFirst()
                        .orElse(null);
    }

    private static void replaceContainerStatus(Pod pod, io.fabric8.kubernetes.api.model.ContainerStatus status) {
        List<io.fabric8.kubernetes.api.model.ContainerStatus> all = new java.util.ArrayList<>(
                pod.getStatus().getContainerStatuses() == null
                        ? List.of()
                        : pod.getStatus().getContainerStatuses());
        all.removeIf(c -> status.getName().equals(c.getName()));
        all.add(status);
        pod.getStatus().setContainerStatuses(all);
    }

    /** The API's metav1.Time: RFC 3339 in whole seconds. */
    static String seconds(java.time.Instant t) {
        return DateTimeFormatter.ISO_INSTANT.format(t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
    }

    static String microTime(ZonedDateTime t) {
        return MICRO_TIME.format(t.withZoneSameInstant(ZoneOffset.UTC));
    }

    private void renewLeases() {
        try {
            String now = microTime(ZonedDateTime.now(clock));
            // Names and uids straight from the list's JSON: unmarshalling every Node each round cost more than the
            // renewals.
            for (JsonNode node : store.tree(ClusterStore.body(store.send(HttpMethod.GET, "/api/v1/nodes", null, null)))
                    .path("items")) {
                String name = node.path("metadata").path("name").asText();
                if (!down.contains(name)) {
                    renew(name, node.path("metadata").path("uid").asText(), now);
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "kubelet lease renewal failed", e);
        }
    }

    /**
     * A node was just registered: its kubelet creates its lease now, as the real one does when it registers, so a
     * kubelet marked down right after has a lease that goes stale (not none, which reads as "no node leases here").
     */
    void registered(Node node) {
        renew(node.getMetadata().getName(), node.getMetadata().getUid(), microTime(ZonedDateTime.now(clock)));
    }

    /** Renews the node's lease, creating it (owned by the node) if it has none. */
    private void renew(String name, String uid, String now) {
        String path = "/apis/coordination.k8s.io/v1/namespaces/" + NODE_LEASE_NAMESPACE + "/leases/" + name;
        if (store.mergePatch(path, "{\"spec\":{\"renewTime\":\"" + now + "\"}}").code() != 404) {
            return;
        }
        Lease lease = new LeaseBuilder()
                .withMetadata(new ObjectMetaBuilder()
                        .withName(name)
                        .withNamespace(NODE_LEASE_NAMESPACE)
                        .addNewOwnerReference()
                        .withApiVersion("v1")
                        .withKind("Node")
                        .withName(name)
                        .withUid(uid)
                        .endOwnerReference()
                        .build())
                .withNewSpec()
                .withHolderIdentity(name)
                .withLeaseDurationSeconds(leaseDurationSeconds)
                .withRenewTime(ZonedDateTime.now(clock))
                .endSpec()
                .build();
        MockResponse created = store.send(
                HttpMethod.POST,
                "/apis/coordination.k8s.io/v1/namespaces/" + NODE_LEASE_NAMESPACE + "/leases",
                "application/json",
                store.serialization.asJson(lease));
        if (created.code() >= 300 && created.code() != 409) { // 409: a renewal round beside this one made it
            throw new IllegalStateException("creating node lease " + name + ": " + created.code());
        }
    }
}
