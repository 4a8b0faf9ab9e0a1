package dev.tenure.maintenance.annotation;

import static org.awaitility.Awaitility.await;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.maintenance.machine.EventRecorder;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import dev.tenure.maintenance.machine.NodeMarks;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.MutableClock;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * One emulated cluster (fake clock) with worker w1, and the annotation protocol's controller on the
 * maintenance machine, as the operator wires them. {@link #restart()} builds new instances of both on
 * the same cluster: an operator restart.
 */
final class AnnotationFixture implements AutoCloseable {

    static final AnnotationSettings SETTINGS = AnnotationSettings.defaults();
    static final MaintenanceSettings MACHINE = new MaintenanceSettings(
            "tenure-system",
            "node-",
            "tenure",
            Duration.ofSeconds(60),
            Duration.ofSeconds(30),
            Duration.ofSeconds(10),
            4,
            Duration.ofMillis(100),
            Duration.ofSeconds(1));
    static final String NODE = "w1";
    static final LeaseKey LEASE = LeaseKey.of("tenure-system", "node-" + NODE);

    final MutableClock clock = MutableClock.atSystemTime();
    final EmulatedCluster cluster =
            EmulatedCluster.start(EmulatedCluster.Options.forTests().clock(clock));
    final KubernetesClient client = cluster.client();
    /** What the machine and controller use: the RBAC check charges its requests to the operator. */
    final KubernetesClient operatorClient = cluster.operatorClient();

    final KubeLeaseStore leases = new KubeLeaseStore(client);
    final ExecutorService pool = Executors.newFixedThreadPool(4);
    final ExecutorScheduler heartbeats = new ExecutorScheduler("test-heartbeats");
    MaintenanceMachine machine;
    MaintenanceAnnotationController controller;
    /** The limits the controller applies; set before {@link #restart()} to test them. */
    MaintenanceBudget budget = MaintenanceBudget.UNLIMITED;

    /** The protocol's settings; another placement policy comes with a placement forecast. */
    private final AnnotationSettings settings;

    AnnotationFixture() {
        this(SETTINGS);
    }

    /**
     * With {@code settings}; the controller forecasts placement before the cordon (every Node from the API server, no
     * other node cordoned, as {@link AnnotationDoor} supplies it from its caches) when their policy is not Ignore.
     */
    AnnotationFixture(AnnotationSettings settings) {
        this.settings = settings;
        cluster.seed().node(NODE).role("worker").create();
        cluster.seed().node("w2").role("worker").create();
        cluster.seed().namespace("tenure-system");
        restart();
    }

    /** New machine and controller instances on the same cluster (nothing carried over in memory). */
    void restart() {
        machine = new MaintenanceMachine(
                operatorClient,
                new KubeLeaseStore(operatorClient),
                (node, started, now) -> LeadershipHandover.Outcome.complete("nothing held"),
                new MaintenanceMetrics(new SimpleMeterRegistry()),
                MACHINE,
                pool,
                heartbeats,
                clock);
        controller = settings == SETTINGS
                ? new MaintenanceAnnotationController(
                        operatorClient,
                        new KubeLeaseStore(operatorClient),
                        machine,
                        new EventRecorder(operatorClient, clock),
                        settings,
                        budget,
                        clock)
                : new MaintenanceAnnotationController(
                        operatorClient,
                        new KubeLeaseStore(operatorClient),
                        machine,
                        new EventRecorder(operatorClient, clock),
                        settings,
                        budget,
                        node -> Optional.empty(),
                        node -> Optional.of(new dev.tenure.maintenance.machine.PlacementView(
                                () -> operatorClient.nodes().list().getItems(),
                                List::of,
                                awaited -> {},
                                AnnotationSettings.PLACEMENT_SETTING)),
                        MaintenanceAnnotationController.WAIT_RETRY,
                        clock);
    }

    Optional<Duration> reconcile() {
        return controller.reconcile(NODE);
    }

    /** Reconciles (100 ms of fake time apart) until {@code until} holds for the node. */
    Node drive(Predicate<Node> until) {
        AtomicReference<Node> seen = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    clock.advance(Duration.ofMillis(100));
                    reconcile();
                    seen.set(node());
                    return until.test(seen.get());
                });
        return seen.get();
    }

    Node node() {
        return client.nodes().withName(NODE).get();
    }

    void annotate(Map<String, String> annotations) {
        // a JSON writer, not string concatenation: a value may hold quotes, backslashes or control characters
        String json;
        try {
            json = new com.fasterxml.jackson.databind.ObjectMapper()
                    .writeValueAsString(Map.of("metadata", Map.of("annotations", annotations)));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        client.nodes().withName(NODE).patch(PatchContext.of(PatchType.JSON_MERGE), json);
    }

    void request(String seconds) {
        annotate(java.util.Collections.singletonMap(MaintenanceAnnotation.REQUEST, seconds));
    }

    void withdraw() {
        annotate(java.util.Collections.singletonMap(MaintenanceAnnotation.REQUEST, null));
    }

    String annotation(String key) {
        Map<String, String> a = node().getMetadata().getAnnotations();
        return a == null ? null : a.get(key);
    }

    String status() {
        return annotation(MaintenanceAnnotation.STATUS);
    }

    LeaseRecord lease() {
        return leases.find(LEASE).orElse(null);
    }

    void seedLease(LeaseRecord record) {
        leases.create(LEASE, record);
    }

    static LeaseRecord leaseOf(
            String holder, Integer durationSeconds, Instant acquire, Instant renew, int transitions) {
        return new LeaseRecord(holder, durationSeconds, acquire, renew, transitions, null, null, List.of(), null);
    }

    boolean cordoned() {
        Node n = node();
        return Boolean.TRUE.equals(n.getSpec().getUnschedulable()) || NodeMarks.marked(n);
    }

    /** The node as it was before any maintenance: schedulable, no taints, no Tenure record or condition. */
    boolean restored() {
        Node n = node();
        return !Boolean.TRUE.equals(n.getSpec().getUnschedulable())
                && !NodeMarks.marked(n)
                && (n.getSpec().getTaints() == null || n.getSpec().getTaints().isEmpty());
    }

    List<String> eventReasons() {
        return client.v1().events().inAnyNamespace().list().getItems().stream()
                .filter(e -> NODE.equals(e.getInvolvedObject().getName()))
                .map(Event::getReason)
                .toList();
    }

    List<Event> events(String reason) {
        return client.v1().events().inAnyNamespace().list().getItems().stream()
                .filter(e -> NODE.equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
                .toList();
    }

    List<Pod> podsOn(String node) {
        return client.pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName()))
                .toList();
    }

    boolean listedPodsByNode() {
        return cluster.requests()
                        .count(r -> r.is("list", "pods")
                                && ("spec.nodeName=" + NODE).equals(r.query().get("fieldSelector")))
                > 0;
    }

    long evictionsOf(String pod) {
        return cluster.requests().count(ApiRequest.resource("pods", "eviction").and(ApiRequest.named(pod)));
    }

    long evictions() {
        return cluster.requests().count(ApiRequest.resource("pods", "eviction"));
    }

    @Override
    public void close() {
        pool.shutdownNow();
        heartbeats.close();
        cluster.close();
    }
}
