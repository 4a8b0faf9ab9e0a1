package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.coordination.CoordinationController;
import dev.tenure.coordination.CoordinationMetrics;
import dev.tenure.coordination.ElectionPlanner;
import dev.tenure.coordination.ElectionTiming;
import dev.tenure.coordination.LeaseCandidateApi;
import dev.tenure.coordination.MaintenanceAware;
import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.HolderProcess;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import dev.tenure.election.LeaseRules;
import dev.tenure.election.WorkFence;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.election.kube.KubeProcessEvidence;
import dev.tenure.kube.FencedWrites;
import dev.tenure.kube.NodeCache;
import dev.tenure.maintenance.admission.AdmissionCaches;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.annotation.AnnotatedNodes;
import dev.tenure.maintenance.annotation.AnnotationDoor;
import dev.tenure.maintenance.annotation.AnnotationSettings;
import dev.tenure.maintenance.annotation.MaintenanceAnnotation;
import dev.tenure.maintenance.api.DrainBehavior;
import dev.tenure.maintenance.api.DrainRule;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.VolumeDetachSpec;
import dev.tenure.maintenance.door.NodeMaintenanceReconciler;
import dev.tenure.maintenance.machine.EventRecorder;
import dev.tenure.maintenance.machine.MaintenanceHooks;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.Chaos;
import dev.tenure.testsupport.Conflicts;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.RequestLog;
import dev.tenure.testsupport.SeededTrials;
import dev.tenure.testsupport.SuiteCounts;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1beta1.LeaseCandidate;
import io.fabric8.kubernetes.api.model.coordination.v1beta1.LeaseCandidateBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Ignore;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The real operator twice (issue 24): two operator instances in one JVM, each with everything a replica runs while
 * leading — its own {@link WorkFence}, its own fenced clients ({@link FencedWrites} with its own identity), a JOSDK
 * {@link Operator} with the real {@link NodeMaintenanceReconciler} (built as {@code MaintenanceBeans} builds it), the
 * real {@link AnnotationDoor} and the real {@link CoordinationController} — each started and stopped by a real
 * {@link OperatorLeadership} on one shared operator Lease, on the emulated cluster, on real threads in real time.
 *
 * <p>Each trial (a seed) runs a workload — NodeMaintenances and an annotated node with pods to drain under a
 * PodDisruptionBudget, LeaseCandidates for coordination on the nodes — and one fault drawn from the seed, done to the
 * leader: a yield (preferredHolder), a SIGTERM, a slow or a failing start of the successor, an API stall past the
 * renew deadline, a clock step (besides the clock skew every instance has), deletion of the operator Lease, or a hand
 * edit of it (leaseDurationSeconds shortened, holder changed). An instance that exits is restarted as a fresh one, as
 * Kubernetes restarts the pod.
 *
 * <p>Checked on work, never on belief: (a) every write (POST/PUT/PATCH/DELETE) the emulator receives from an
 * instance's work clients carries the {@code Tenure-Term} header of that instance, and the span from the first to
 * the last write of one (instance, term) holds no write of another instance; (b) no reconcile of the real reconciler
 * (observed by a wrapper that only times it) overlaps another instance's reconcile or is still running when another
 * instance's term opens.
 *
 * <p>Staged trials (issue 29) fail the leader over in the three waits of one ordered drain — held by a pre-drain
 * hook, between two waves, waiting for a VolumeAttachment — and check the drain's work itself with a
 * {@link DrainWitness}: no pod evicted twice, none evicted that should not be, the node restored at the end.
 *
 * <p>{@code -Dtenure.chaos.operator.trials=N} ({@link SuiteCounts#OPERATOR_TRIALS} in {@code make test}, {@code make chaos} asks for
 * {@code OPERATOR_CHAOS_TRIALS}; staged trials are a third of it, at least one, or
 * {@code -Dtenure.chaos.operator.staged.trials=N}); {@code -Dtenure.chaos.seed=N} replays the trial seeds of a run;
 * {@code -Dtenure.chaos.trial=<seed>} makes every trial the one a failure names.
 */
@EndToEnd
@Chaos
class OperatorChaosIT {
    static final long BASE_SEED = Long.getLong("tenure.chaos.seed", System.nanoTime());
    static final int TRIALS = SuiteCounts.of(SuiteCounts.OPERATOR_TRIALS_PROPERTY, SuiteCounts.OPERATOR_TRIALS);
    static final Long REPLAY_TRIAL = Long.getLong("tenure.chaos.trial");
    /** One fault for every trial (a name of {@link Fault}), instead of one drawn from the seed. */
    static final String ONLY_FAULT = System.getProperty("tenure.chaos.operator.fault", "");
    /** Prints every trial's trace, not only a failing one's. */
    static final boolean TRACE = Boolean.getBoolean("tenure.chaos.operator.trace");

    static final LeaseKey LEASE = LeaseKey.of("tenure-system", "tenure-operator");
    /** Short terms so that a trial takes seconds; the stop budget is (LD - RD) / 2 = 1.5 s. */
    static final Duration LD = Duration.ofSeconds(6);

    static final Duration RD = Duration.ofSeconds(3);
    static final Duration RETRY = Duration.ofMillis(500);
    static final String WORK_NS = "work";
    static final String APPS_NS = "apps";
    static final List<String> NODES = List.of("n1", "n2", "n3", "n4");
    static final String AGENT_PREFIX = EmulatedCluster.OPERATOR_USER_AGENT + "/";
    static final String ELECTION_SUFFIX = "/election";
    /** The API groups whose POSTs are reviews (the surge's SelfSubjectAccessReviews): not writes, never fenced. */
    static final Set<String> REVIEW_GROUPS = Set.of("authorization.k8s.io", "authentication.k8s.io");

    static final MaintenanceSettings SETTINGS = new MaintenanceSettings(
            LEASE.namespace(),
            "node-",
            "tenure",
            Duration.ofSeconds(60),
            Duration.ofSeconds(30),
            Duration.ofSeconds(1),
            10,
            Duration.ofMillis(200),
            Duration.ofSeconds(1));
    /**
     * The staged trials' settings: a node lease of 10 min, renewed every 2.5 min, so that no heartbeat wakes a
     * maintenance held by a hook during a trial; only the hook-change event source does (not forwarded, the trial
     * would wait minutes for the hook's removal to take effect).
     */
    static final MaintenanceSettings STAGED_SETTINGS = new MaintenanceSettings(
            LEASE.namespace(),
            "node-",
            "tenure",
            Duration.ofMinutes(10),
            Duration.ofSeconds(30),
            Duration.ofSeconds(1),
            10,
            Duration.ofMillis(200),
            Duration.ofSeconds(1));

    static final AnnotationSettings ANNOTATIONS = new AnnotationSettings(
            "tenure-annotation", Duration.ofSeconds(30), Duration.ofHours(720), LEASE.namespace(), "node-");

    enum Fault {
        YIELD,
        SIGTERM,
        SLOW_START,
        FAILING_START,
        API_STALL,
        CLOCK_STEP,
        LEASE_DELETED,
        DURATION_SHORTENED,
        HOLDER_CHANGED
    }

    record Interval(String instance, long start, long end) {
        boolean overlaps(Interval o) {
            return start < o.end && o.start < end;
        }
    }

    /** One write the emulator received from an instance's work clients: arrival time, sender, term header. */
    record Write(long at, String instance, String term, String what) {}

    /** A clock that runs at system speed, off by an offset that the trial steps. */
    static final class SkewedClock extends Clock {
        volatile Duration offset;

        SkewedClock(Duration offset) {
            this.offset = offset;
        }

        @Override
        public Instant instant() {
            return Clock.systemUTC().instant().plus(offset);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    /**
     * The real reconciler, timed: calls it and records when it ran, nothing else. A reconcile the fence refused
     * ({@link WorkFence.OutsideTerm} before any work) is not work and is not recorded.
     */
    @Ignore // a test double: not one of the application's reconcilers
    @ControllerConfiguration(name = NodeMaintenanceReconciler.NAME)
    static final class TimedReconciler implements Reconciler<NodeMaintenance>, Cleaner<NodeMaintenance> {
        final NodeMaintenanceReconciler real;
        final String instance;
        final ConcurrentLinkedQueue<Interval> out;

        TimedReconciler(NodeMaintenanceReconciler real, String instance, ConcurrentLinkedQueue<Interval> out) {
            this.real = real;
            this.instance = instance;
            this.out = out;
        }

        @Override
        public UpdateControl<NodeMaintenance> reconcile(NodeMaintenance nm, Context<NodeMaintenance> context) {
            long start = System.nanoTime();
            boolean refused = false;
            try {
                return real.reconcile(nm, context);
            } catch (WorkFence.OutsideTerm e) {
                refused = refusedAtTheDoor(e);
                throw e;
            } finally {
                if (!refused) {
                    out.add(new Interval(instance, start, System.nanoTime()));
                }
            }
        }

        /** The real reconciler's own event sources (the hook-change informer), as JOSDK registers them for it. */
        @Override
        public List<EventSource<?, NodeMaintenance>> prepareEventSources(EventSourceContext<NodeMaintenance> context) {
            return real.prepareEventSources(context);
        }

        @Override
        public DeleteControl cleanup(NodeMaintenance nm, Context<NodeMaintenance> context) {
            long start = System.nanoTime();
            boolean refused = false;
            try {
                return real.cleanup(nm, context);
            } catch (WorkFence.OutsideTerm e) {
                refused = refusedAtTheDoor(e);
                throw e;
            } finally {
                if (!refused) {
                    out.add(new Interval(instance, start, System.nanoTime()));
                }
            }
        }
    }

    /** The fence refused the reconcile before it began (not a write refused midway, after work was done). */
    static boolean refusedAtTheDoor(WorkFence.OutsideTerm e) {
        return Stream.of(e.getStackTrace())
                .anyMatch(f -> f.getClassName().equals(WorkFence.class.getName())
                        && f.getMethodName().equals("enter"));
    }

    /** One trial: a cluster, the instances, what they did. */
    static final class Trial implements AutoCloseable {
        final long seed;
        final Random rnd;
        final long t0 = System.nanoTime();
        final EmulatedCluster cluster;
        final List<Instance> instances = new CopyOnWriteArrayList<>();
        final ConcurrentLinkedQueue<Interval> reconciles = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Interval> termStarts = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Write> writes = new ConcurrentLinkedQueue<>();
        /** Writes of a halted instance after its halt: a halted JVM sends none, so they are left out of the check. */
        final ConcurrentLinkedQueue<Write> afterHalt = new ConcurrentLinkedQueue<>();

        final ConcurrentLinkedQueue<String> trace = new ConcurrentLinkedQueue<>();

        /** One write of an instance's election (its Lease), traced with the answer it got ({@link #traceText}). */
        record ElectionWrite(long at, String what, ApiRequest request) {}

        final ConcurrentLinkedQueue<ElectionWrite> electionWrites = new ConcurrentLinkedQueue<>();
        final AtomicInteger generation = new AtomicInteger();
        final List<Thread> shutdowns = new CopyOnWriteArrayList<>();
        volatile boolean ending;
        final KubeLeaseStore harnessLeases;

        /** The maintenance settings of every instance of the trial. */
        final MaintenanceSettings settings;

        /** The annotation door's settings of every instance of the trial. */
        volatile AnnotationSettings annotations = ANNOTATIONS;

        /**
         * Each instance runs in a pod of its own node whose container the emulated kubelet reports running since 2 s
         * before the instance starts ({@code OperatorLeadership.process}): the evidence-of-death trials.
         */
        volatile boolean inPods;

        /** The processes behind the coordinated Lease apps/app, when the trial runs them; closed with the trial. */
        volatile AppProcesses apps;

        /** Called with every checked write as it arrives (on the emulator's thread); null: none. */
        volatile java.util.function.Consumer<Write> onWrite;

        Trial(long seed) {
            this(seed, SETTINGS);
        }

        Trial(long seed, MaintenanceSettings settings) {
            this(seed, settings, EmulatedCluster.Options.forTests());
        }

        /** A trial on a cluster of {@code options} (the upgrade suite's living cluster). */
        Trial(long seed, MaintenanceSettings settings, EmulatedCluster.Options options) {
            this.cluster = EmulatedCluster.start(options);
            this.seed = seed;
            this.settings = settings;
            // mixed: java.util.Random's first draws of neighbouring seeds are alike, and trial seeds are neighbours
            this.rnd = new Random(new SplittableRandom(seed).nextLong());
            harnessLeases = new KubeLeaseStore(cluster.client());
            cluster.requests().observe(r -> {
                if (!r.isWrite() || !r.userAgent().startsWith(AGENT_PREFIX)) {
                    return;
                }
                long at = System.nanoTime();
                String sender = r.userAgent().substring(AGENT_PREFIX.length());
                String what = r.method() + " " + r.resourceWithSubresource() + " " + r.name();
                if (sender.endsWith(ELECTION_SUFFIX)) {
                    // the election's own lease writes: unfenced by design; traced with the answer each got
                    electionWrites.add(new ElectionWrite(at, sender + " " + what, r));
                    return;
                }
                if (r.method().equals("POST") && REVIEW_GROUPS.contains(r.apiGroup())) {
                    return; // a review asks a question and changes nothing: FencedWrites leaves it unfenced by design
                }
                Write w = new Write(at, sender, r.term(), what);
                Instance from = byId(sender);
                if (from != null && from.haltedAt != 0) {
                    afterHalt.add(w);
                } else {
                    writes.add(w);
                    java.util.function.Consumer<Write> hook = onWrite;
                    if (hook != null) {
                        hook.accept(w);
                    }
                }
            });
        }

        void note(String text) {
            note(System.nanoTime(), text);
        }

        void note(long at, String text) {
            trace.add(String.format("%7d ms  %s", TimeUnit.NANOSECONDS.toMillis(at - t0), text));
        }

        Instance byId(String id) {
            return instances.stream().filter(i -> i.id.equals(id)).findFirst().orElse(null);
        }

        List<Instance> alive() {
            return instances.stream().filter(i -> !i.gone && !i.stopping).toList();
        }

        Optional<Instance> leader() {
            return alive().stream()
                    .filter(i -> i.leadership.reconcilersStarted())
                    .findFirst();
        }

        Instance awaitLeader(Predicate<Instance> which, Duration within) {
            Instance[] found = new Instance[1];
            await().atMost(within).pollInterval(Duration.ofMillis(20)).until(() -> {
                Optional<Instance> l = leader().filter(which);
                l.ifPresent(i -> found[0] = i);
                return l.isPresent();
            });
            return found[0];
        }

        Instance start(String slot, Duration skew) {
            Instance i = new Instance(this, slot + generation.incrementAndGet(), skew);
            instances.add(i);
            if (inPods) {
                i.leadership.process = startPod(i);
            }
            note(i.id + " starts (clock " + skew.toMillis() + " ms off)");
            i.leadership.onStart(null);
            return i;
        }

        static final String OPERATOR_CONTAINER = "tenure-operator";

        static String podOf(Instance i) {
            return "tenure-operator-" + i.id;
        }

        static String nodeOf(Instance i) {
            return "operator-node-" + i.id;
        }

        /** {@code i}'s pod on a node of its own, its container reported running since 2 s ago; its binding. */
        HolderProcess startPod(Instance i) {
            String uid = cluster.client()
                    .pods()
                    .resource(new io.fabric8.kubernetes.api.model.PodBuilder()
                            .withNewMetadata()
                            .withName(podOf(i))
                            .withNamespace(LEASE.namespace())
                            .endMetadata()
                            .withNewSpec()
                            .withNodeName(nodeOf(i))
                            .addNewContainer()
                            .withName(OPERATOR_CONTAINER)
                            .withImage("tenure")
                            .endContainer()
                            .endSpec()
                            .build())
                    .create()
                    .getMetadata()
                    .getUid();
            cluster.startContainer(
                    LEASE.namespace(),
                    podOf(i),
                    OPERATOR_CONTAINER,
                    Clock.systemUTC().instant().minusSeconds(2));
            return new HolderProcess(i.id, LEASE.namespace(), podOf(i), uid, OPERATOR_CONTAINER, null);
        }

        /**
         * kill -9 of {@code i}'s process: nothing of it reaches the cluster any more (as {@code halt}), no release; its
         * container ends (137) and the kubelet reports it {@code lag} later — or never during the trial when
         * {@code withheld} (its node's kubelet is down first).
         */
        void kill(Instance i, boolean withheld, Duration lag) {
            if (withheld) {
                cluster.markKubeletDown(nodeOf(i));
            }
            i.haltedAt = System.nanoTime();
            cluster.faults().failNext(Integer.MAX_VALUE, r -> r.userAgent().startsWith(i.agent), 503);
            i.gone = true;
            note(i.id + " KILLED (-9); kubelet report " + (withheld ? "withheld" : lag.toMillis() + " ms late"));
            cluster.endContainer(LEASE.namespace(), podOf(i), OPERATOR_CONTAINER, 137, "Error", lag);
        }

        /** The Lease events that record a takeover on evidence of death. */
        long evidenceTakeovers() {
            return cluster.client().v1().events().inNamespace(LEASE.namespace()).list().getItems().stream()
                    .filter(e -> KubeProcessEvidence.TAKEOVER_REASON.equals(e.getReason()))
                    .count();
        }

        /** The process ends (an exit or a SIGTERM): the shutdown stops the work and releases; a fresh pod follows. */
        void shutdown(Instance i, boolean restart) {
            if (i.stopping) {
                return;
            }
            i.stopping = true;
            Thread t = new Thread(
                    () -> {
                        i.leadership.onStop(null);
                        i.gone = true;
                        note(i.id + " shut down");
                        i.close();
                        if (restart && !ending) {
                            start(i.id.substring(0, 1), i.clock.offset);
                        }
                    },
                    "chaos-shutdown-" + i.id);
            t.setDaemon(true);
            shutdowns.add(t);
            t.start();
        }

        void seedWorkload() {
            cluster.seed().namespace(LEASE.namespace());
            cluster.seed().namespace(WORK_NS);
            cluster.seed().namespace(APPS_NS);
            NODES.forEach(n -> cluster.seed().node(n).create());
            // drains that outlast the fault: pods take ~2 s to terminate, one at a time under the budget, and the
            // evictions the budget refuses are retried every 250 ms (NodeMaintenance spec): a steady stream of writes
            cluster.seed()
                    .deployment("web")
                    .namespace(WORK_NS)
                    .replicas(8)
                    .onNodes("n1")
                    .gracePeriod(200)
                    .create();
            cluster.seed()
                    .pdb("web")
                    .namespace(WORK_NS)
                    .selector("app", "web")
                    .maxUnavailable(1)
                    .create();
            cluster.seed()
                    .deployment("db")
                    .namespace(WORK_NS)
                    .replicas(3)
                    .onNodes("n2")
                    .gracePeriod(100)
                    .create();
            cluster.seed()
                    .pdb("db")
                    .namespace(WORK_NS)
                    .selector("app", "db")
                    .maxUnavailable(1)
                    .create();
            cluster.seed()
                    .deployment("batch")
                    .namespace(WORK_NS)
                    .replicas(3)
                    .onNodes("n3")
                    .gracePeriod(100)
                    .create();
            for (String node : List.of("n1", "n4")) {
                cluster.workloadClient()
                        .resources(LeaseCandidate.class)
                        .inNamespace(APPS_NS)
                        .resource(new LeaseCandidateBuilder()
                                .withNewMetadata()
                                .withName("app-" + node)
                                .withNamespace(APPS_NS)
                                .withLabels(Map.of("tenure.dev/node", node))
                                .endMetadata()
                                .withNewSpec()
                                .withLeaseName("app")
                                .withEmulationVersion("1.31.0")
                                .withBinaryVersion("1.31.0")
                                .withStrategy(MaintenanceAware.NAME)
                                .withRenewTime(
                                        new MicroTime(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
                                                .withZone(ZoneOffset.UTC)
                                                .format(Instant.now())))
                                .endSpec()
                                .build())
                        .create();
            }
        }

        void createMaintenance(String name, String node) {
            NodeMaintenanceSpec spec = new NodeMaintenanceSpec(node, "chaos " + seed);
            DrainSpec drain = new DrainSpec();
            drain.setEvictionRetryDelay("250ms");
            spec.setDrain(drain);
            cluster.client().resource(new NodeMaintenance(name, spec)).create();
            note("harness: NodeMaintenance " + name + " on " + node);
        }

        // ---- issue 29: a failover mid-hook, mid-wave and mid-detach ---------------------------------------------

        /**
         * Issue 29's drain on n1: two waves by rule (early, order 1; late, order 2), a Skip pod, a WaitCompleted pod
         * and a VolumeAttachment naming the node; the witness judges every eviction as it arrives.
         */
        DrainWitness seedStagedWorkload() {
            cluster.seed().namespace(LEASE.namespace());
            cluster.seed().namespace(WORK_NS);
            NODES.forEach(n -> cluster.seed().node(n).create());
            Map<String, Integer> waves = new LinkedHashMap<>();
            // the first wave terminates slowly, so that the successor still finds it terminating: a hand-edited
            // holder leads only once the edited record's 6 s have run out, and 2.5 s and 6 s both left 0 of 3 pods
            seedPods("early", 3, Duration.ofSeconds(10)).forEach(p -> waves.put(p, -2));
            seedPods("late", 2, Duration.ofMillis(800)).forEach(p -> waves.put(p, -1));
            List<String> untouchable = new ArrayList<>(seedPods("keep", 1, Duration.ofMillis(300)));
            untouchable.addAll(seedPods("job", 1, Duration.ofMillis(300)));
            cluster.client()
                    .storage()
                    .v1()
                    .volumeAttachments()
                    .resource(new io.fabric8.kubernetes.api.model.storage.VolumeAttachmentBuilder()
                            .withNewMetadata()
                            .withName(VOLUME)
                            .endMetadata()
                            .withNewSpec()
                            .withAttacher("ebs.csi.aws.com")
                            .withNodeName("n1")
                            .withNewSource()
                            .withPersistentVolumeName("pv-" + VOLUME)
                            .endSource()
                            .endSpec()
                            .withNewStatus()
                            .withAttached(true)
                            .endStatus()
                            .build())
                    .create();
            return DrainWitness.watch(cluster, WORK_NS, waves, Set.copyOf(untouchable), this::ms);
        }

        List<String> seedPods(String app, int replicas, Duration termination) {
            return cluster
                    .seed()
                    .deployment(app)
                    .namespace(WORK_NS)
                    .replicas(replicas)
                    .onNodes("n1")
                    .terminationDelay(termination)
                    .create()
                    .stream()
                    .map(p -> p.getMetadata().getName())
                    .toList();
        }

        /** Rules giving the two waves, Skip and WaitCompleted; a volume detach wait; held by a pre-drain hook. */
        void createStagedMaintenance(String name, String node) {
            NodeMaintenanceSpec spec = new NodeMaintenanceSpec(node, "staged chaos " + seed);
            DrainSpec drain = new DrainSpec();
            drain.setRules(List.of(
                    new DrainRule(null, app("keep"), DrainBehavior.Skip, null),
                    new DrainRule(null, app("job"), DrainBehavior.WaitCompleted, null),
                    // below the WaitCompleted pod's wave 0 (Cluster API's: it holds every later wave), so the
                    // drain waits for the job once both waves are gone
                    new DrainRule(null, app("early"), DrainBehavior.Drain, -2),
                    new DrainRule(null, app("late"), DrainBehavior.Drain, -1)));
            drain.setVolumeDetach(new VolumeDetachSpec());
            spec.setDrain(drain);
            NodeMaintenance nm = new NodeMaintenance(name, spec);
            nm.getMetadata().setAnnotations(new LinkedHashMap<>(Map.of(HOOK, "held by the chaos harness")));
            cluster.client().resource(nm).create();
            note("harness: NodeMaintenance " + name + " on " + node + " (hook " + HOOK + ")");
        }

        Optional<NodeMaintenanceStatus> status(String name) {
            return Optional.ofNullable(cluster.client()
                            .resources(NodeMaintenance.class)
                            .withName(name)
                            .get())
                    .map(NodeMaintenance::getStatus);
        }

        /** A failover of the present leader by {@code fault}; waits until another instance leads. */
        void failover(Fault fault, String stage) {
            Instance leader = awaitLeader(i -> true, Duration.ofSeconds(30));
            Instance[] standby = new Instance[1];
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        standby[0] = alive().stream()
                                .filter(i -> i != leader)
                                .findFirst()
                                .orElse(null);
                        return standby[0] != null;
                    });
            note("failover " + stage + ": " + fault);
            apply(fault, leader, standby[0]);
            Instance next = awaitLeader(i -> i != leader, Duration.ofSeconds(40));
            note(next.id + " leads after the failover " + stage);
        }

        /** Waits for {@code what}; on a timeout names the step in {@code stuck} and returns false. */
        boolean reach(String step, Duration within, java.util.concurrent.Callable<Boolean> what, List<String> stuck) {
            try {
                await().atMost(within)
                        .pollInterval(Duration.ofMillis(20))
                        .ignoreExceptions()
                        .until(what);
                note("reached: " + step);
                return true;
            } catch (ConditionTimeoutException e) {
                stuck.add("not reached within " + within.toSeconds() + " s: " + step);
                note("STUCK: " + step);
                return false;
            }
        }

        /** The driver's edit of the operator Lease, retried while the leader's renews conflict with it. */
        void editLease(String what, java.util.function.UnaryOperator<LeaseRecord> edit) {
            await().atMost(Duration.ofSeconds(10))
                    .ignoreExceptions()
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        harnessLeases.update(LEASE, edit.apply(harnessLeases.get(LEASE)));
                        return true;
                    });
            note("harness: " + what);
        }

        Predicate<ApiRequest> from(String agent) {
            return r -> r.userAgent().equals(agent);
        }

        /** Applies the trial's fault to {@code leader}, with {@code standby} the other live instance. */
        void apply(Fault fault, Instance leader, Instance standby) {
            note("FAULT " + fault + " on leader " + leader.id);
            switch (fault) {
                case YIELD -> editLease("preferredHolder " + standby.id, r -> r.withPreferredHolder(standby.id));
                case SIGTERM -> shutdown(leader, true);
                case SLOW_START -> {
                    // the standby's caches sync slowly: its informers' lists are answered late
                    Duration slow = Duration.ofMillis(1000 + rnd.nextInt(2500));
                    cluster.faults()
                            .delayNext(8, from(standby.agent).and(r -> r.verb().equals("list")), slow);
                    note("standby " + standby.id + "'s lists answered " + slow.toMillis() + " ms late");
                    shutdown(leader, true);
                    if (rnd.nextBoolean()) {
                        // and its leadership ends while it is still starting: the stop must preempt the start
                        await().atMost(Duration.ofSeconds(20))
                                .until(() -> standby.termsOpened.get() > 0 || standby.gone);
                        sleepMillis(200 + rnd.nextInt(500));
                        editLease(
                                "holder changed to intruder during " + standby.id + "'s start",
                                r -> LeaseRules.heldRecord(r, "intruder", Instant.now(), Duration.ofSeconds(2)));
                    }
                }
                case FAILING_START -> {
                    standby.leadership.extraWork.add(OperatorLeadership.work(
                            "a controller whose CRD is missing",
                            true,
                            () -> {
                                throw new IllegalStateException("the server could not find the requested resource");
                            },
                            () -> {}));
                    note("standby " + standby.id + "'s start will fail");
                    shutdown(leader, true);
                }
                case API_STALL -> {
                    Duration stall = RD.plus(Duration.ofMillis(500 + rnd.nextInt(2000)));
                    // the leader's work waits for its answers: a reconcile is in an eviction or a status write
                    cluster.faults().delayNext(4, from(leader.agent).and(ApiRequest::isWrite), stall);
                    if (rnd.nextBoolean()) {
                        // and its renews stall past the renew deadline: the fence ends the term
                        cluster.faults()
                                .delayNext(
                                        6,
                                        from(leader.agent + ELECTION_SUFFIX)
                                                .and(r -> r.resource().equals("leases")),
                                        stall);
                        note("leader " + leader.id + "'s lease requests and writes answered " + stall.toMillis()
                                + " ms late");
                    } else {
                        // and a rolling update sends it SIGTERM while it waits for an eviction's answer: the stop
                        // must outwait (or interrupt) the stalled work before it releases
                        long since = System.nanoTime();
                        cluster.faults()
                                .delayNext(
                                        4,
                                        from(leader.agent)
                                                .and(r -> r.subresource().equals("eviction")),
                                        stall);
                        try {
                            await().atMost(Duration.ofSeconds(5))
                                    .pollInterval(Duration.ofMillis(10))
                                    .until(() -> writes.stream()
                                            .anyMatch(w -> w.at() > since
                                                    && w.instance().equals(leader.id)
                                                    && w.what().contains("eviction")));
                        } catch (ConditionTimeoutException e) {
                            note("no eviction by " + leader.id + " within 5 s (its drain is done)");
                        }
                        note("leader " + leader.id + "'s evictions answered " + stall.toMillis() + " ms late; SIGTERM");
                        shutdown(leader, true);
                    }
                }
                case CLOCK_STEP -> {
                    Duration step = Duration.ofSeconds(rnd.nextBoolean() ? 30 : -30);
                    leader.clock.offset = leader.clock.offset.plus(step);
                    standby.clock.offset = standby.clock.offset.minus(Duration.ofSeconds(rnd.nextInt(8)));
                    editLease(
                            "preferredHolder " + standby.id + " after a clock step",
                            r -> r.withPreferredHolder(standby.id));
                }
                case LEASE_DELETED -> {
                    cluster.client()
                            .resources(Lease.class)
                            .inNamespace(LEASE.namespace())
                            .withName(LEASE.name())
                            .delete();
                    note("harness: operator Lease deleted");
                }
                case DURATION_SHORTENED -> editLease("leaseDurationSeconds 1", r -> r.withLeaseDurationSeconds(1));
                case HOLDER_CHANGED ->
                    editLease("holder " + standby.id, r -> LeaseRules.heldRecord(r, standby.id, Instant.now(), LD));
            }
        }

        /** Every finding of the trial: untagged or mislabelled writes, overlapping spans, overlapping reconciles. */
        List<String> violations() {
            List<String> bad = new ArrayList<>();
            List<Write> all =
                    writes.stream().sorted(Comparator.comparingLong(Write::at)).toList();
            for (Write w : all) {
                if (w.term().isEmpty()) {
                    bad.add("untagged write by " + w.instance() + " at " + ms(w.at()) + ": " + w.what());
                } else if (!w.term().startsWith(w.instance() + ";")) {
                    bad.add("write by " + w.instance() + " tagged " + w.term() + ": " + w.what());
                }
            }
            Map<String, List<Write>> byTerm =
                    all.stream().collect(Collectors.groupingBy(Write::term, LinkedHashMap::new, Collectors.toList()));
            for (Map.Entry<String, List<Write>> term : byTerm.entrySet()) {
                List<Write> own = term.getValue();
                long first = own.get(0).at();
                long last = own.get(own.size() - 1).at();
                String instance = own.get(0).instance();
                for (Write w : all) {
                    if (!w.instance().equals(instance) && first <= w.at() && w.at() <= last) {
                        bad.add("write of " + w.term() + " (" + w.what() + ") at " + ms(w.at()) + " inside the span of "
                                + term.getKey() + " [" + ms(first) + ", " + ms(last) + "]");
                    }
                }
            }
            // a halted JVM runs nothing: the test cannot stop a halted instance's threads, so its reconciles are cut
            // at the halt (the halt itself is checked: it must come before any other instance's term)
            List<Interval> work = reconciles.stream()
                    .map(this::untilHalt)
                    .flatMap(Optional::stream)
                    .toList();
            for (Interval a : work) {
                for (Interval b : work) {
                    if (!a.instance().equals(b.instance()) && a.overlaps(b) && a.start() <= b.start()) {
                        bad.add("reconcile of " + a.instance() + " [" + ms(a.start()) + ", " + ms(a.end())
                                + "] overlaps one of " + b.instance() + " [" + ms(b.start()) + ", " + ms(b.end())
                                + "]");
                    }
                }
                for (Interval t : termStarts) {
                    if (!a.instance().equals(t.instance()) && a.start() <= t.start() && t.start() < a.end()) {
                        bad.add("reconcile of " + a.instance() + " [" + ms(a.start()) + ", " + ms(a.end())
                                + "] still ran when " + t.instance() + "'s term opened at " + ms(t.start()));
                    }
                }
            }
            return bad;
        }

        /**
         * The closest approach: the least time from the last write of one instance's term to the first write of the
         * next term of another instance (negative when they interleave); empty with one term of writes.
         */
        Optional<Duration> closestHandover() {
            Map<String, List<Write>> byTerm = writes.stream()
                    .sorted(Comparator.comparingLong(Write::at))
                    .collect(Collectors.groupingBy(Write::term, LinkedHashMap::new, Collectors.toList()));
            List<List<Write>> spans = new ArrayList<>(byTerm.values());
            Optional<Duration> closest = Optional.empty();
            for (int i = 1; i < spans.size(); i++) {
                List<Write> before = spans.get(i - 1);
                List<Write> after = spans.get(i);
                if (!before.get(0).instance().equals(after.get(0).instance())) {
                    Duration gap = Duration.ofNanos(
                            after.get(0).at() - before.get(before.size() - 1).at());
                    closest = closest.filter(c -> c.compareTo(gap) <= 0).or(() -> Optional.of(gap));
                }
            }
            return closest;
        }

        /** The longest reconcile of the real reconciler. */
        Duration longestReconcile() {
            return Duration.ofNanos(reconciles.stream()
                    .mapToLong(i -> i.end() - i.start())
                    .max()
                    .orElse(0));
        }

        Optional<Interval> untilHalt(Interval i) {
            Instance of = byId(i.instance());
            long halted = of == null ? 0 : of.haltedAt;
            if (halted == 0 || i.end() <= halted) {
                return Optional.of(i);
            }
            return i.start() >= halted ? Optional.empty() : Optional.of(new Interval(i.instance(), i.start(), halted));
        }

        String ms(long nanos) {
            return TimeUnit.NANOSECONDS.toMillis(nanos - t0) + " ms";
        }

        /** The trial's events and, per term, its writes, in time order. */
        String traceText() {
            List<String> lines = new ArrayList<>(trace);
            // each election write with the status the emulator answered (a 409 is a conditional write that lost; a
            // 200 whose writer did not lead is an answer it did not see in time), or "no answer" while none was sent
            // by identity: two requests alike in every field are still two requests
            java.util.IdentityHashMap<ApiRequest, RequestLog.Answer> answers = new java.util.IdentityHashMap<>();
            cluster.requests().answers().forEach(a -> answers.putIfAbsent(a.request(), a));
            for (ElectionWrite w : electionWrites) {
                RequestLog.Answer a = answers.get(w.request());
                String answer = a == null ? "no answer" : a.status() + (a.injected() ? " (injected)" : "");
                lines.add(String.format(
                        "%7d ms  %s -> %s", TimeUnit.NANOSECONDS.toMillis(w.at() - t0), w.what(), answer));
            }
            Map<String, List<Write>> byTerm = writes.stream()
                    .collect(Collectors.groupingBy(Write::term, LinkedHashMap::new, Collectors.toList()));
            byTerm.forEach((term, ws) -> lines.add(String.format(
                    "%7d ms  writes of [%s]: %d until %s",
                    TimeUnit.NANOSECONDS.toMillis(ws.get(0).at() - t0),
                    term,
                    ws.size(),
                    ms(ws.get(ws.size() - 1).at()))));
            lines.sort(Comparator.comparingLong(
                    l -> Long.parseLong(l.substring(0, 7).trim())));
            return String.join("\n", lines);
        }

        @Override
        public void close() {
            ending = true;
            for (Thread t : shutdowns) {
                try {
                    t.join(TimeUnit.SECONDS.toMillis(10));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            // standbys first, so that the leader's release is taken by nobody
            List<Instance> order = new ArrayList<>(instances);
            order.sort(Comparator.comparing(i -> i.leadership.reconcilersStarted()));
            for (Instance i : order) {
                i.stopping = true;
                if (!i.closed) {
                    i.leadership.onStop(null);
                    i.gone = true;
                    i.close();
                }
            }
            if (apps != null) {
                apps.close();
            }
            cluster.close();
        }
    }

    /** One operator process: what the Quarkus beans build, by hand, around one fence and one identity. */
    static final class Instance {
        final Trial trial;
        final String id;
        final String agent;
        final SkewedClock clock;
        final WorkFence fence = WorkFence.closed();
        final KubernetesClient work;
        final KubernetesClient machineClient;
        final KubernetesClient electionBase;
        final NodeCache nodes;
        final ExecutorService evictions;
        final ExecutorScheduler heartbeats;
        final MaintenanceMachine machine;
        final CoordinationController coordination;
        final AnnotationDoor door;
        final Operator operator;
        final OperatorLeadership leadership;
        final AtomicInteger termsOpened = new AtomicInteger();
        volatile boolean gone;
        volatile boolean stopping;
        volatile boolean closed;
        volatile long haltedAt;
        AdmissionCaches caches;

        Instance(Trial trial, String id, Duration skew) {
            this.trial = trial;
            this.id = id;
            this.agent = AGENT_PREFIX + id;
            this.clock = new SkewedClock(skew);
            EmulatedCluster cluster = trial.cluster;
            // WorkFenceBeans: the client every piece of work uses, fenced, tagged with this instance
            work = FencedWrites.client(
                    new ConfigBuilder(cluster.operatorClientConfig())
                            .withUserAgent(agent)
                            .build(),
                    SERIALIZATION,
                    fence,
                    id,
                    HTTP_CLIENTS);
            // MaintenanceBeans: the machine's own fenced client, without retries
            machineClient = FencedWrites.client(
                    new ConfigBuilder(work.getConfiguration())
                            .withRequestRetryBackoffLimit(0)
                            .build(),
                    SERIALIZATION,
                    fence,
                    id,
                    HTTP_CLIENTS);
            // the election builds its own unfenced client from this one's configuration
            electionBase = EmulatedCluster.clientBuilder()
                    .withConfig(new ConfigBuilder(cluster.operatorClientConfig())
                            .withUserAgent(agent + ELECTION_SUFFIX)
                            .build())
                    .withHttpClientFactory(HTTP_CLIENTS)
                    .withKubernetesSerialization(SERIALIZATION)
                    .build();
            nodes = new NodeCache(work);
            AtomicInteger n = new AtomicInteger();
            evictions = Executors.newFixedThreadPool(trial.settings.evictionParallelism(), r -> {
                Thread t = new Thread(r, "chaos-eviction-" + id + "-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            heartbeats = new ExecutorScheduler("chaos-heartbeats-" + id);
            // CoordinationBeans
            coordination = new CoordinationController(
                    work,
                    new KubeLeaseStore(work),
                    new ElectionPlanner(ElectionTiming.UPSTREAM, false),
                    clock,
                    LeaseCandidateApi.of("v1beta1"),
                    new CoordinationMetrics(new SimpleMeterRegistry(), clock),
                    Duration.ofMinutes(30),
                    nodes);
            coordination.fencedBy(fence);
            machine = new MaintenanceMachine(
                    machineClient,
                    new KubeLeaseStore(machineClient),
                    new CoordinatedLeadershipHandover(coordination),
                    new MaintenanceMetrics(new SimpleMeterRegistry()),
                    trial.settings,
                    evictions,
                    heartbeats,
                    clock);
            EventRecorder recorder = new EventRecorder(work, clock);
            // SharedCaches: the admission caches (not started here: until synced they read the API, as on start)
            caches = new AdmissionCaches(work, nodes);
            door = new AnnotationDoor(
                    work,
                    new KubeLeaseStore(work),
                    nodes,
                    caches,
                    machine,
                    recorder,
                    trial.settings,
                    MaintenanceLimits.none(),
                    trial.annotations,
                    clock);
            door.fencedBy(fence);
            NodeMaintenanceReconciler real = new NodeMaintenanceReconciler(
                    machine,
                    work,
                    recorder,
                    new MaintenanceMetrics(new SimpleMeterRegistry()),
                    MaintenanceLimits.none(),
                    new AnnotatedNodes(caches),
                    nodes,
                    new dev.tenure.kube.BudgetCache(work),
                    fence,
                    clock);
            // as the extension configures JOSDK: the client is a bean (not closed by JOSDK), no SSA
            operator = new Operator(o ->
                    o.withKubernetesClient(work).withCloseClientOnStop(false).withUseSSAToPatchPrimaryResource(false));
            operator.register(new TimedReconciler(real, id, trial.reconciles));
            leadership = new OperatorLeadership(
                    operator,
                    electionBase,
                    OperatorLeadershipLossTest.config(id, LD, RD, RETRY),
                    new SimpleMeterRegistry(),
                    fence,
                    id);
            leadership.electionHttpClients = HTTP_CLIENTS;
            // OperatorLeadership.work(): the reconcilers, then the door, then coordination (add-ons: not essential)
            leadership.extraWork.add(OperatorLeadership.work("the annotation door", false, door::start, door::stop));
            leadership.extraWork.add(OperatorLeadership.work(
                    "coordinated leader election", false, coordination::start, coordination::stop));
            leadership.termOpened = t -> {
                termsOpened.incrementAndGet();
                trial.termStarts.add(new Interval(id, t, t));
                trial.note(t, id + " term " + fence.term() + " opened");
            };
            leadership.exit = code -> {
                trial.note(id + " exits " + code);
                trial.shutdown(this, true);
            };
            leadership.halt = code -> {
                // a real halt ends the process at once: nothing of it reaches the cluster any more, no release
                haltedAt = System.nanoTime();
                trial.note(id + " HALTS " + code + " (" + fence.running() + " unit(s) still running)");
                trial.cluster
                        .faults()
                        .failNext(Integer.MAX_VALUE, r -> r.userAgent().startsWith(agent), 503);
                gone = true;
                while (!trial.ending) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // this thread would not exist
                }
            };
        }

        synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            machine.close();
            heartbeats.close();
            evictions.shutdownNow();
            machineClient.close();
            work.close();
            electionBase.close();
        }
    }

    /**
     * One Vert.x for every client of every instance of every trial: a fabric8 client built on a factory of its own
     * keeps ~10 file descriptors after close (measured), and 200 trials of ~15 clients ran out of them.
     */
    static final io.fabric8.kubernetes.client.http.HttpClient.Factory HTTP_CLIENTS = EmulatedCluster.HTTP_CLIENTS;

    /**
     * One serialization for every client of every instance, as the application shares its one bean among its
     * clients: a client with a serialization of its own builds its deserializers and its table of kinds again, which
     * was a quarter of a kill trial's CPU.
     */
    static final io.fabric8.kubernetes.client.utils.KubernetesSerialization SERIALIZATION =
            new io.fabric8.kubernetes.client.utils.KubernetesSerialization();

    /** This JVM's open file descriptors (Linux), to watch a trial for leaks; -1 elsewhere. */
    static long openFiles() {
        try (Stream<java.nio.file.Path> fds = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    static void sleepMillis(long ms) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    static Stream<Long> seeds() {
        System.out.println("OperatorChaosIT base seed " + BASE_SEED + " (replay: -Dtenure.chaos.seed=" + BASE_SEED
                + "; one failing trial: -Dtenure.chaos.trial=<its seed>), " + TRIALS + " trials");
        return SeededTrials.seeds(BASE_SEED * 31, TRIALS, REPLAY_TRIAL).stream();
    }

    @ParameterizedTest(name = "trial {0}")
    @MethodSource("seeds")
    void noWorkOfTwoOperatorInstancesOverlapsWhateverEndsALeadersTerm(long seed) throws Exception {
        Fault fault;
        List<String> violations;
        String trace;
        int terms;
        boolean leaderKeptItsLease; // DURATION_SHORTENED: its renew wrote its duration back first
        int writes;
        int afterHalt;
        int reconciles;
        String closest;
        long longest;
        long took = System.nanoTime();
        try (Trial trial = new Trial(seed)) {
            Random rnd = trial.rnd;
            fault = List.of(Fault.values()).get(rnd.nextInt(Fault.values().length));
            if (!ONLY_FAULT.isEmpty()) {
                fault = Fault.valueOf(ONLY_FAULT);
            }
            trial.note("seed " + seed + ": fault " + fault);
            trial.seedWorkload();
            // clocks skewed between the instances (the cluster's clock is the system's)
            List<Duration> skews = List.of(Duration.ZERO, Duration.ofSeconds(3), Duration.ofSeconds(-7));
            Instance a = trial.start("a", skews.get(rnd.nextInt(skews.size())));
            Instance b = trial.start("b", skews.get(rnd.nextInt(skews.size())));
            trial.createMaintenance("m1", "n1");
            Conflicts.retry(() -> trial.cluster.client().nodes().withName("n3").edit(n -> {
                n.getMetadata().getAnnotations().put(MaintenanceAnnotation.REQUEST, "60");
                return n;
            }));
            trial.note("harness: n3 annotated for maintenance");
            Instance leader = trial.awaitLeader(i -> true, Duration.ofSeconds(30));
            Instance standby = leader == a ? b : a;
            // the leader is at work (cordons, evictions, status) when the fault strikes
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> trial.writes.stream()
                                    .filter(w -> w.instance().equals(leader.id))
                                    .count()
                            >= 5);
            sleepMillis(rnd.nextInt(1500));
            trial.apply(fault, leader, standby);
            // a successor leads (another instance, or a restart of the first) — or, when the edit shortened the
            // duration, the leader may have written its own duration back first: its optimistic renew lost to the
            // edit (409), read it and renewed (seed 549453037195461, 1 trial in 200). No contender saw the short record
            // stand for its 1 s, so none took over; the leader goes on, which is as safe as stepping down.
            Instance previous = leader;
            Instance next = fault == Fault.DURATION_SHORTENED
                    ? trial.awaitLeader(
                            i -> i != previous
                                    || trial.harnessLeases
                                            .get(LEASE)
                                            .leaseDuration()
                                            .map(d -> d.compareTo(Duration.ofSeconds(1)) > 0)
                                            .orElse(false),
                            Duration.ofSeconds(40))
                    : trial.awaitLeader(i -> i != previous, Duration.ofSeconds(40));
            leaderKeptItsLease = next == previous;
            trial.note(next.id + " leads");
            // work for the successor: a new maintenance, and the first one ended (cleanup: uncordon, lease release)
            trial.createMaintenance("m2", "n2");
            trial.cluster
                    .client()
                    .resources(NodeMaintenance.class)
                    .withName("m1")
                    .delete();
            trial.note("harness: NodeMaintenance m1 deleted");
            sleepMillis(800 + rnd.nextInt(1200));
            violations = trial.violations();
            trace = trial.traceText();
            terms = trial.termStarts.size();
            writes = trial.writes.size();
            afterHalt = trial.afterHalt.size();
            reconciles = trial.reconciles.size();
            closest = trial.closestHandover().map(d -> d.toMillis() + " ms").orElse("-");
            longest = trial.longestReconcile().toMillis();
        }
        System.out.printf(
                "operator chaos trial %d: fault %s, %d terms, %d reconciles and %d tagged writes checked, %d after a"
                        + " halt, %d violations; closest handover of writes %s, longest reconcile %d ms; %d ms; %d open"
                        + " files%n",
                seed,
                fault,
                terms,
                reconciles,
                writes,
                afterHalt,
                violations.size(),
                closest,
                longest,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - took),
                openFiles());
        if (TRACE) {
            System.out.println(trace);
        }
        if (!violations.isEmpty()) {
            System.out.println("OVERLAP seed " + seed + " (" + fault + "):\n  "
                    + String.join("\n  ", violations.subList(0, Math.min(20, violations.size()))) + "\n" + trace);
        }
        assertThat(terms).as("leadership moved").isGreaterThanOrEqualTo(leaderKeptItsLease ? 1 : 2);
        assertThat(reconciles).as("the real reconciler ran").isPositive();
        assertThat(writes).as("the operator's work wrote").isPositive();
        assertThat(violations)
                .as(
                        "work of two operator instances overlapped (seed %d, fault %s; replay: -Dtenure.chaos.trial=%d)\n%s",
                        seed, fault, seed, trace)
                .isEmpty();
    }

    // ---- issue 40: kill -9 of the leader, the kubelet's report delivered or withheld
    // ----------------------------------

    /**
     * Kill trials: {@code -Dtenure.chaos.operator.kill.trials=N} ({@link SuiteCounts#KILL_TRIALS} in {@code make test}; {@code make chaos}:
     * {@code OPERATOR_KILL_TRIALS}), {@code -Dtenure.chaos.operator.kill.parallel=P} of them at a time (each on an
     * emulated cluster of its own, with its own two operators; see {@link #KILL_PARALLEL}). A trial lasts ~4-6 s of
     * wall time alone, ~10 s with the report withheld (the 6 s lease waited out); most of it is waiting, so a few run
     * side by side on two cores. {@code -Dtenure.chaos.trial=<seed>} replays one trial (once, unless the trial count
     * is given too: then that many times, side by side).
     */
    static final int KILL_TRIALS =
            SuiteCounts.of(SuiteCounts.KILL_TRIALS_PROPERTY, REPLAY_TRIAL != null ? 1 : SuiteCounts.KILL_TRIALS);

    /**
     * Trials run side by side. Each trial checks safety on its own cluster and its own instances, so running several
     * at once loses nothing of what one checks; it only makes each slower (a busier machine: later renewals, slower
     * starts, which the trials are meant to survive). 4 keeps two cores busy without starving a leader past its
     * 3 s renew deadline (measured: see docs/development.md).
     */
    static final int KILL_PARALLEL = Integer.getInteger("tenure.chaos.operator.kill.parallel", 4);

    /** One kill point for every trial (a name of {@link KillPoint}), instead of one drawn from the seed. */
    static final String ONLY_KILL_POINT = System.getProperty("tenure.chaos.operator.kill.point", "");

    /** Where in the leader's work the kill strikes. */
    enum KillPoint {
        /** While it drains (evictions under the budget, their retries), a random moment after its first eviction. */
        MID_DRAIN,
        /**
         * While its maintenance hands leadership of the coordinated Lease {@code apps/app} off the node: at the
         * arrival of its first, second or third write (the preferredHolder request itself, a status write saying
         * "waiting for 1 lease(s) to move off node n1", an event) made while that Lease's holder still runs on n1.
         */
        MID_HANDOVER,
        /** Right as one of its status writes reaches the API server. */
        MID_STATUS_WRITE
    }

    /** What one kill trial saw; {@code problems} empty when it passed. */
    record KillTrial(
            long seed,
            KillPoint point,
            boolean withheld,
            boolean struckAtThePoint,
            boolean leadingAtTheKill,
            boolean holdingAtTheKill,
            boolean provable,
            long takeovers,
            int writes,
            long millis,
            List<String> problems,
            String trace)
            implements SeededTrials.Outcome {

        String report() {
            return withheld ? "withheld" : "delivered";
        }
    }

    static List<Long> killSeeds() {
        System.out.println("OperatorChaosIT kill trials: base seed " + BASE_SEED + " (replay: -Dtenure.chaos.seed="
                + BASE_SEED + "; one trial: -Dtenure.chaos.trial=<its seed>), " + KILL_TRIALS + " trials, "
                + KILL_PARALLEL + " at a time");
        return SeededTrials.seeds(BASE_SEED * 37, KILL_TRIALS, REPLAY_TRIAL);
    }

    /**
     * Issue 40's chaos variant: two operators, kill -9 of the leader mid-drain, mid-handover or mid-status-write, its
     * kubelet's report of the kill delivered (up to 1 s late) or withheld (the kubelet down). Checked per trial: no
     * work of two instances overlaps, the successor works on, the Lease {@code apps/app} leaves n1 before any pod on n1
     * is evicted, and the early takeover is used exactly when the report reached the API server. Every trial runs;
     * the failing ones are listed at the end, each with its replay line and trace.
     */
    @Test
    void aKilledLeaderIsTakenOverOnItsKubeletsWordOrWaitedOutAndNoWorkOverlaps() throws Exception {
        List<Long> seeds = killSeeds();
        long cpuBefore = processCpuNanos();
        double loadBefore = java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                .getSystemLoadAverage();
        SeededTrials trials = new SeededTrials("operator kill", "chaos-kill-trial-", KILL_PARALLEL);
        SeededTrials.Ran<KillTrial> ran =
                trials.run(seeds, OperatorChaosIT::killTrial, OperatorChaosIT::printKillTrial);
        long cpu = TimeUnit.NANOSECONDS.toMillis(processCpuNanos() - cpuBefore);
        long[] millis = ran.sortedMillis();
        System.out.printf(
                "operator kill trials: %s; %d at a time: %d ms of wall time, trials %d ms median, %d ms p95, %d ms"
                        + " longest, %d ms of process CPU (%d per trial); load average %.1f before, %.1f after%n",
                killSummary(ran.outcomes()),
                ran.parallel(),
                ran.wallMillis(),
                millis[millis.length / 2],
                millis[(int) Math.min(millis.length - 1, Math.round(millis.length * 0.95))],
                millis[millis.length - 1],
                cpu,
                cpu / millis.length,
                loadBefore,
                java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                        .getSystemLoadAverage());
        trials.assertAllPassed(ran, seeds.size(), t -> t.point() + ", report " + t.report());
    }

    static void printKillTrial(KillTrial t, java.util.Collection<KillTrial> done) {
        System.out.printf(
                "operator kill trial %d: %s%s, report %s, %d evidence takeover(s), %d tagged writes checked,"
                        + " %d problem(s); %d ms (so far %s)%n",
                t.seed(),
                t.point(),
                t.struckAtThePoint() ? "" : " (struck after the point)",
                t.report(),
                t.takeovers(),
                t.writes(),
                t.problems().size(),
                t.millis(),
                killSummary(done));
        if (TRACE) {
            System.out.println(t.trace());
        }
    }

    static String killSummary(java.util.Collection<KillTrial> kills) {
        long delivered = kills.stream().filter(k -> !k.withheld()).count();
        long provable = kills.stream()
                .filter(k -> !k.withheld() && k.leadingAtTheKill() && k.provable())
                .count();
        long early =
                kills.stream().filter(k -> !k.withheld() && k.takeovers() > 0).count();
        long failed = kills.stream().filter(k -> !k.problems().isEmpty()).count();
        Map<KillPoint, Long> points = kills.stream()
                .collect(Collectors.groupingBy(
                        KillTrial::point, () -> new java.util.EnumMap<>(KillPoint.class), Collectors.counting()));
        long handovers = kills.stream()
                .filter(k -> k.point() == KillPoint.MID_HANDOVER && k.struckAtThePoint())
                .count();
        long starved = kills.stream().filter(k -> !k.leadingAtTheKill()).count();
        return kills.size() + " trials " + points + " (" + handovers + " killed with apps/app still held on n1), "
                + delivered + " with the report delivered (" + provable + " of them proving the leader's end), " + early
                + " taken over early, " + starved
                + " whose leader's term had ended before the kill, " + failed + " failed";
    }

    /** The JVM's CPU time so far (all threads), or 0 where the platform does not say. */
    static long processCpuNanos() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                        instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime()
                : 0;
    }

    /** One kill trial; never throws: what goes wrong is one of its problems. */
    static KillTrial killTrial(long seed) {
        long took = System.nanoTime();
        KillRun run = new KillRun();
        String trace;
        long takeovers = -1;
        int writes = 0;
        try (Trial trial = new Trial(seed)) {
            try {
                run.run(trial);
            } catch (Exception | AssertionError e) {
                run.problems.add("did not finish: " + e);
                trial.note("FAILED: " + e);
            }
            try {
                takeovers = trial.evidenceTakeovers();
            } catch (RuntimeException e) {
                run.problems.add("the takeover events could not be read: " + e);
            }
            run.problems.addAll(trial.violations());
            run.problems.addAll(run.handoverViolations);
            trace = trial.traceText();
            writes = trial.writes.size();
        } catch (RuntimeException e) {
            run.problems.add("the trial could not be set up or closed: " + e);
            trace = "";
        }
        if (run.killed && takeovers >= 0) {
            if (run.withheld && takeovers != 0) {
                run.problems.add("taken over " + takeovers + " time(s) on evidence that never reached the API server");
            } else if (!run.withheld && run.leadingAtKill && run.provable && takeovers != 1) {
                run.problems.add(
                        "the kubelet reported the kill of the leader, yet " + takeovers + " evidence takeover(s)");
            } else if (!run.withheld && run.unprovable && takeovers != 0) {
                run.problems.add("taken over " + takeovers + " time(s) on a report of an end in the second the"
                        + " lease was acquired, which cannot prove the holder's run ended after it");
            } else if (!run.withheld && !run.holdingAtKill && takeovers != 0) {
                run.problems.add("taken over " + takeovers + " time(s) on the death of a process that did not"
                        + " hold the lease");
            } else if (takeovers > 1) {
                run.problems.add(takeovers + " evidence takeovers after one kill");
            }
        }
        return new KillTrial(
                seed,
                run.point,
                run.withheld,
                run.struck,
                run.leadingAtKill,
                run.holdingAtKill,
                run.provable,
                takeovers,
                writes,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - took),
                List.copyOf(run.problems),
                trace);
    }

    /** The steps of one kill trial, and what they saw. */
    static final class KillRun {
        KillPoint point;
        boolean withheld;
        /** The kill struck at its point (for MID_HANDOVER: while the Lease apps/app was still held on n1). */
        volatile boolean struck = true;

        volatile boolean killed;
        /** The killed instance's term was open at the kill (its last renewal less than the renew deadline ago). */
        volatile boolean leadingAtKill;
        /** The operator Lease named the killed instance at the kill. */
        volatile boolean holdingAtKill;
        /**
         * The kill fell in a later whole second than the holder's acquisition, so its report (finishedAt in whole
         * seconds) can prove the end ({@code ProcessEndRule}: a finish in the acquisition's second is refused).
         */
        volatile boolean provable;
        /** The kill fell in the second of the acquisition, or no acquisition was stored: the report proves nothing. */
        volatile boolean unprovable;

        final List<String> problems = new ArrayList<>();
        /** Pods on n1 evicted while the coordinated Lease's holder still ran there (the handover skipped). */
        final List<String> handoverViolations = new CopyOnWriteArrayList<>();

        void run(Trial trial) throws Exception {
            Random rnd = trial.rnd;
            trial.inPods = true;
            point = List.of(KillPoint.values()).get(rnd.nextInt(KillPoint.values().length));
            if (!ONLY_KILL_POINT.isEmpty()) {
                point = KillPoint.valueOf(ONLY_KILL_POINT);
            }
            withheld = rnd.nextInt(3) == 0;
            Duration lag = Duration.ofMillis(withheld ? 0 : rnd.nextInt(1000));
            // the holder of apps/app lets go this long after preferredHolder names another: long enough, mid-handover,
            // for the leader to write while it waits
            Duration letGo =
                    Duration.ofMillis(point == KillPoint.MID_HANDOVER ? 1000 + rnd.nextInt(1500) : rnd.nextInt(500));
            trial.note("seed " + trial.seed + ": kill " + point + ", report "
                    + (withheld ? "withheld" : lag.toMillis() + " ms late") + "; app-n1 lets go of apps/app "
                    + letGo.toMillis() + " ms after a handover is asked");
            trial.seedWorkload();
            trial.apps = new AppProcesses(trial.cluster.workloadClient(), letGo, String.valueOf(trial.seed));
            trial.cluster.requests().observe(r -> {
                if (r.subresource().equals("eviction") && r.userAgent().startsWith(AGENT_PREFIX)) {
                    Instance from = trial.byId(r.userAgent().substring(AGENT_PREFIX.length()));
                    if (from != null && from.haltedAt != 0) {
                        return; // a killed process sends nothing: the emulator refuses what its threads still try
                    }
                    boolean onN1 = trial.cluster
                            .stored(Pod.class, r.namespace(), r.name())
                            .map(p -> "n1".equals(p.getSpec().getNodeName()))
                            .orElse(false);
                    if (onN1 && "app-n1".equals(appHolder(trial))) {
                        handoverViolations.add("pod " + r.name() + " on n1 evicted at " + trial.ms(System.nanoTime())
                                + " while app-n1 (on n1) still held apps/app");
                    }
                }
            });
            trial.start("a", Duration.ZERO);
            trial.start("b", Duration.ZERO);
            Instance leader = trial.awaitLeader(i -> true, Duration.ofSeconds(30));
            // the coordinated Lease held on n1 before the maintenance: its handover has something to move
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> "app-n1".equals(appHolder(trial)));
            trial.note("apps/app held by app-n1");
            java.util.concurrent.CompletableFuture<Void> killed = new java.util.concurrent.CompletableFuture<>();
            if (point == KillPoint.MID_HANDOVER) {
                int strikeAt = 1 + rnd.nextInt(3);
                AtomicInteger during = new AtomicInteger();
                trial.onWrite = w -> {
                    if (!w.instance().equals(leader.id) || killed.isDone()) {
                        return;
                    }
                    Optional<Lease> app = trial.cluster.stored(Lease.class, APPS_NS, "app");
                    boolean heldOnN1 = app.map(l -> "app-n1".equals(l.getSpec().getHolderIdentity()))
                            .orElse(false);
                    boolean asked = w.what().endsWith("leases app")
                            || app.map(l -> l.getSpec().getPreferredHolder() != null)
                                    .orElse(false);
                    if (heldOnN1 && asked) {
                        if (during.incrementAndGet() == strikeAt) {
                            trial.onWrite = null;
                            trial.note("mid-handover: " + w.what() + " (write " + strikeAt + " of the handover)");
                            kill(trial, leader, lag, killed);
                        }
                    } else if (during.get() > 0) {
                        // apps/app left n1 before the chosen write: the nearest point after it
                        struck = false;
                        trial.onWrite = null;
                        trial.note("the handover ended after " + during.get() + " write(s): killed at " + w.what());
                        kill(trial, leader, lag, killed);
                    }
                };
            }
            trial.createMaintenance("m1", "n1");
            switch (point) {
                case MID_HANDOVER -> {
                    if (!awaitPoint(leader, killed::isDone)) {
                        trial.onWrite = null;
                        struck = false;
                        trial.note("no handover write by " + leader.id + ": killed now");
                        kill(trial, leader, lag, killed);
                    }
                }
                case MID_DRAIN -> {
                    int moment = rnd.nextInt(1500); // the kill's moment in the drain, drawn from the seed
                    if (awaitPoint(
                            leader,
                            () -> trial.writes.stream()
                                    .anyMatch(w -> w.instance().equals(leader.id)
                                            && w.what().contains("eviction")))) {
                        sleepMillis(moment);
                    } else {
                        struck = false;
                    }
                    kill(trial, leader, lag, killed);
                }
                case MID_STATUS_WRITE -> {
                    awaitPoint(
                            leader,
                            () -> trial.writes.stream()
                                            .filter(w -> w.instance().equals(leader.id))
                                            .count()
                                    >= 5);
                    trial.onWrite = w -> {
                        if (w.instance().equals(leader.id) && w.what().contains("/status") && !killed.isDone()) {
                            trial.onWrite = null;
                            kill(trial, leader, lag, killed);
                        }
                    };
                    if (!awaitPoint(leader, killed::isDone)) {
                        trial.onWrite = null;
                        struck = false;
                        trial.note("no status write by " + leader.id + ": killed now");
                        kill(trial, leader, lag, killed);
                    }
                }
            }
            long killedAt = leader.haltedAt;
            Instance next = trial.awaitLeader(i -> i != leader, Duration.ofSeconds(40));
            trial.note(next.id + " leads");
            trial.createMaintenance("m2", "n2");
            // the work goes on: the successor's writes after the kill, m2's among them (what the overlap check reads)
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> trial.writes.stream()
                                            .filter(w -> w.at() > killedAt
                                                    && !w.instance().equals(leader.id))
                                            .count()
                                    >= 3
                            && trial.writes.stream()
                                    .anyMatch(w -> w.at() > killedAt && w.what().endsWith(" m2")));
            trial.note("the successor's work goes on");
        }

        /**
         * Waits until {@code reached}, or until {@code leader}'s term ends first (a leader starved past its renew
         * deadline lets go by itself: the kill then strikes a process that no longer leads, and the trial says so).
         */
        static boolean awaitPoint(Instance leader, java.util.concurrent.Callable<Boolean> reached) throws Exception {
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> reached.call() || !leader.fence.isOpen());
            return reached.call();
        }

        /** The holder of the coordinated Lease apps/app as stored (null: none, or no Lease yet). */
        static String appHolder(Trial trial) {
            return trial.cluster
                    .stored(Lease.class, APPS_NS, "app")
                    .map(l -> l.getSpec().getHolderIdentity())
                    .orElse(null);
        }

        /** Kills {@code leader} once (the first caller wins), noting whether its term was still open. */
        void kill(Trial trial, Instance leader, Duration lag, java.util.concurrent.CompletableFuture<Void> killed) {
            synchronized (killed) {
                if (killed.isDone()) {
                    return;
                }
                leadingAtKill = leader.fence.isOpen();
                Optional<Lease> lease = trial.cluster.stored(Lease.class, LEASE.namespace(), LEASE.name());
                holdingAtKill = lease.map(l -> leader.id.equals(l.getSpec().getHolderIdentity()))
                        .orElse(false);
                // the kubelet reports the end in whole seconds: that second must lie after the holder's first write
                // (the binding's since, the acquisition) for the report to prove the holder's run ended; it is the
                // second of the kill, read here and again after it (a second may begin in between)
                Instant latest = lease.flatMap(l -> Optional.ofNullable(
                                        l.getSpec().getAcquireTime())
                                .map(java.time.ZonedDateTime::toInstant)
                                .flatMap(acquired -> Optional.ofNullable(
                                                l.getMetadata().getAnnotations())
                                        .map(a -> a.get(HolderProcess.ANNOTATION))
                                        .flatMap(HolderProcess::parse)
                                        .map(HolderProcess::since)
                                        .map(since -> since.isAfter(acquired) ? since : acquired)))
                        .orElse(null);
                Instant before = Instant.now().truncatedTo(ChronoUnit.SECONDS);
                if (!leadingAtKill) {
                    struck = false;
                    trial.note(leader.id + "'s term ended before the kill (" + (holdingAtKill ? "" : "not ")
                            + "named by the Lease): a busy machine starved it");
                }
                trial.kill(leader, withheld, lag);
                Instant after = Instant.now().truncatedTo(ChronoUnit.SECONDS);
                provable = latest != null && before.isAfter(latest);
                unprovable = latest == null || !after.isAfter(latest);
                if (unprovable) {
                    trial.note("killed in the second of " + leader.id + "'s acquisition: its report cannot prove"
                            + " the holder's run ended after it (the Lease is waited out)");
                }
                this.killed = true;
                killed.complete(null);
            }
        }
    }

    /**
     * Stand-in for the processes behind the LeaseCandidates app-n1 and app-n4 (client-go's candidate and elector, as
     * {@code SimulatedCandidates} in the coordination tests): they answer the controller's pings, the holder renews
     * {@code apps/app} and lets go {@code letGo} after preferredHolder names another (a client-go release: no
     * holder, 1 s). Polls every 100 ms on a thread of its own; stops with the trial.
     */
    static final class AppProcesses implements AutoCloseable {
        final KubernetesClient client;
        final Duration letGo;
        final java.util.concurrent.ScheduledExecutorService loop;
        long askedAt;
        long renewedAt;

        AppProcesses(KubernetesClient client, Duration letGo, String name) {
            this.client = client;
            this.letGo = letGo;
            this.loop = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "chaos-apps-" + name);
                t.setDaemon(true);
                return t;
            });
            loop.scheduleWithFixedDelay(this::tick, 0, 100, TimeUnit.MILLISECONDS);
        }

        void tick() {
            try {
                answerPings();
                actOnLease();
            } catch (RuntimeException conflictOrGone) {
                // the next tick sees the new state
            }
        }

        void answerPings() {
            for (LeaseCandidate c : client.resources(LeaseCandidate.class)
                    .inNamespace(APPS_NS)
                    .list()
                    .getItems()) {
                Instant ping = instant(c.getSpec().getPingTime());
                Instant renew = instant(c.getSpec().getRenewTime());
                if (ping != null && (renew == null || renew.isBefore(ping))) {
                    Instant answer = Instant.now().isAfter(ping) ? Instant.now() : ping.plusNanos(1000);
                    client.resources(LeaseCandidate.class)
                            .inNamespace(APPS_NS)
                            .withName(c.getMetadata().getName())
                            .patch(
                                    io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                                            io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                                    "{\"spec\":{\"renewTime\":\"" + MICRO.format(answer) + "\"}}");
                }
            }
        }

        void actOnLease() {
            Lease lease = client.resources(Lease.class)
                    .inNamespace(APPS_NS)
                    .withName("app")
                    .get();
            if (lease == null || lease.getSpec() == null || lease.getSpec().getHolderIdentity() == null) {
                askedAt = 0;
                return;
            }
            var spec = lease.getSpec();
            long now = System.nanoTime();
            boolean asked = spec.getPreferredHolder() != null
                    && !spec.getPreferredHolder().isEmpty()
                    && !spec.getPreferredHolder().equals(spec.getHolderIdentity());
            if (!asked) {
                askedAt = 0;
            } else if (askedAt == 0) {
                askedAt = now;
            }
            if (asked && now - askedAt >= letGo.toNanos()) {
                spec.setHolderIdentity(null);
                spec.setLeaseDurationSeconds(1);
            } else if (now - renewedAt < TimeUnit.SECONDS.toNanos(1)) {
                return; // renewed within the last second: the 5 s lease has plenty left
            }
            spec.setRenewTime(Instant.now().atZone(ZoneOffset.UTC));
            client.resources(Lease.class).inNamespace(APPS_NS).resource(lease).update();
            renewedAt = now;
        }

        static Instant instant(MicroTime t) {
            return t == null || t.getTime() == null ? null : Instant.parse(t.getTime());
        }

        @Override
        public void close() {
            loop.shutdownNow();
        }
    }

    static final DateTimeFormatter MICRO =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

    // ---- issue 29: operator failover mid-hook, mid-wave and mid-detach ---------------------------------------------

    /** How a staged trial's leader is made to go: a restart, a yield, a hand edit of the operator Lease. */
    static final List<Fault> FAILOVERS = List.of(Fault.SIGTERM, Fault.YIELD, Fault.HOLDER_CHANGED);
    /**
     * Staged trials take ~4x an ordinary one (three failovers and a whole ordered drain): a third as many, at least one.
     */
    static final int STAGED_TRIALS = Integer.getInteger("tenure.chaos.operator.staged.trials", Math.max(1, TRIALS / 3));

    static final String HOOK = MaintenanceHooks.PRE_DRAIN_PREFIX + "chaos";
    static final String VOLUME = "chaos-data";

    static LabelSelector app(String name) {
        return new LabelSelectorBuilder().addToMatchLabels("app", name).build();
    }

    static Stream<Long> stagedSeeds() {
        System.out.println("OperatorChaosIT staged: base seed " + BASE_SEED + " (replay: -Dtenure.chaos.seed="
                + BASE_SEED + "; one trial: -Dtenure.chaos.trial=<its seed>), " + STAGED_TRIALS + " trials");
        return SeededTrials.seeds(BASE_SEED * 37 + 7, STAGED_TRIALS, REPLAY_TRIAL).stream();
    }

    /**
     * Issue 29's chaos variant: one NodeMaintenance held by a pre-drain hook, then drained in two waves (orders -2 and
     * -1) before the WaitCompleted pod's wave 0 (with a Skip pod on the node too), then waiting for a VolumeAttachment; the leader fails over in each of the
     * three waits (the hook released, the first wave's pods gone, the attachment deleted only after the successor
     * leads). Checked per trial: no pod evicted twice (an eviction of a pod already terminating or gone), none
     * evicted that should not be (Skip, WaitCompleted, a later wave's pod while an earlier wave's is stored), every
     * Drain pod evicted, the WaitCompleted pod waited for, and the node restored exactly once the maintenance is
     * deleted (no cordon, no taint, no node lease held); and, as in every trial, no work of two instances overlaps.
     */
    @ParameterizedTest(name = "trial {0}")
    @MethodSource("stagedSeeds")
    // the stages run in order and end at the first one not reached: one labelled block says so in one place
    @SuppressWarnings("LabelledBreakTarget")
    void aFailoverMidHookMidWaveAndMidDetachNeitherRepeatsNorSkipsAnEviction(long seed) throws Exception {
        List<String> violations = new ArrayList<>();
        List<String> stuck = new ArrayList<>();
        String trace;
        Map<String, Fault> faults = new LinkedHashMap<>();
        int evicted;
        int terms;
        int firstWaveLeft = -1;
        long took = System.nanoTime();
        try (Trial trial = new Trial(seed, STAGED_SETTINGS)) {
            Random rnd = trial.rnd;
            for (String stage : List.of("mid-hook", "mid-wave", "mid-detach")) {
                faults.put(
                        stage,
                        ONLY_FAULT.isEmpty()
                                ? FAILOVERS.get(rnd.nextInt(FAILOVERS.size()))
                                : Fault.valueOf(ONLY_FAULT));
            }
            trial.note("seed " + seed + ": failovers " + faults);
            DrainWitness witness = trial.seedStagedWorkload();
            List<Duration> skews = List.of(Duration.ZERO, Duration.ofSeconds(3), Duration.ofSeconds(-7));
            trial.start("a", skews.get(rnd.nextInt(skews.size())));
            trial.start("b", skews.get(rnd.nextInt(skews.size())));
            trial.awaitLeader(i -> true, Duration.ofSeconds(30));
            trial.createStagedMaintenance("m1", "n1");
            KubernetesClient harness = trial.cluster.client();
            stages:
            {
                // 1. mid-hook: cordoned, held by the pre-drain hook, nothing evicted
                if (!trial.reach(
                        "the pre-drain hook holds the maintenance",
                        Duration.ofSeconds(30),
                        () -> trial.status("m1")
                                .map(st -> st.getHooks() != null
                                        && st.getHooks().getWaitingFor() != null
                                        && !st.getHooks().getWaitingFor().isEmpty())
                                .orElse(false),
                        stuck)) {
                    break stages;
                }
                sleepMillis(rnd.nextInt(500));
                trial.failover(faults.get("mid-hook"), "mid-hook");
                if (witness.evictedPods() > 0) {
                    violations.add("pods evicted while the pre-drain hook held the maintenance");
                }
                Conflicts.retry(() -> harness.resources(NodeMaintenance.class)
                        .withName("m1")
                        .edit(nm -> {
                            nm.getMetadata().getAnnotations().remove(HOOK);
                            return nm;
                        }));
                trial.note("harness: hook " + HOOK + " removed");
                // 2. mid-wave: the first wave's evictions have reached the server, its pods are terminating
                if (!trial.reach(
                        "the first wave's evictions", Duration.ofSeconds(30), () -> witness.evictedPods() > 0, stuck)) {
                    break stages;
                }
                sleepMillis(rnd.nextInt(800));
                trial.failover(faults.get("mid-wave"), "mid-wave");
                firstWaveLeft = (int) witness.stillStored().stream()
                        .filter(p -> p.startsWith("early-"))
                        .count();
                trial.note(firstWaveLeft + " first-wave pod(s) still on n1 as the successor leads");
                // the WaitCompleted pod holds the drain once both waves are gone; then it completes by itself
                if (!trial.reach(
                        "both waves gone, the drain waiting for the WaitCompleted pod",
                        Duration.ofSeconds(40),
                        () -> witness.stillStored().isEmpty()
                                && trial.status("m1")
                                        .map(st -> st.getDrainPlan() != null
                                                && st.getDrainPlan().getWaitingForCompletion() != null
                                                && !st.getDrainPlan()
                                                        .getWaitingForCompletion()
                                                        .isEmpty())
                                        .orElse(false),
                        stuck)) {
                    break stages;
                }
                for (String job : witness.untouchable()) {
                    if (job.startsWith("job-")) {
                        Conflicts.retry(() -> harness.pods()
                                .inNamespace(WORK_NS)
                                .withName(job)
                                .editStatus(pod -> {
                                    pod.getStatus().setPhase("Succeeded");
                                    return pod;
                                }));
                        trial.note("harness: " + job + " completed");
                    }
                }
                // 3. mid-detach: drained, waiting for the VolumeAttachment
                if (!trial.reach(
                        "the maintenance waits for the VolumeAttachment",
                        Duration.ofSeconds(30),
                        () -> trial.status("m1")
                                .map(st -> st.getDrainPlan() != null
                                        && st.getDrainPlan().getVolumeAttachments() != null
                                        && !st.getDrainPlan()
                                                .getVolumeAttachments()
                                                .isEmpty())
                                .orElse(false),
                        stuck)) {
                    break stages;
                }
                sleepMillis(rnd.nextInt(500));
                trial.failover(faults.get("mid-detach"), "mid-detach");
                if (trial.status("m1")
                        .map(st -> st.getPhase() == Phase.Succeeded)
                        .orElse(false)) {
                    violations.add("Succeeded while the VolumeAttachment " + VOLUME + " still named the node");
                }
                harness.storage().v1().volumeAttachments().withName(VOLUME).delete();
                trial.note("harness: VolumeAttachment " + VOLUME + " deleted");
                if (!trial.reach(
                        "Succeeded",
                        Duration.ofSeconds(30),
                        () -> trial.status("m1")
                                .map(st -> st.getPhase() == Phase.Succeeded)
                                .orElse(false),
                        stuck)) {
                    break stages;
                }
                harness.resources(NodeMaintenance.class).withName("m1").delete();
                trial.note("harness: NodeMaintenance m1 deleted");
                trial.reach(
                        "n1 restored: not cordoned, no taint, its node lease not held, m1 gone",
                        Duration.ofSeconds(30),
                        () -> {
                            Node n1 = harness.nodes().withName("n1").get();
                            Lease lease = harness.leases()
                                    .inNamespace(LEASE.namespace())
                                    .withName(SETTINGS.leaseNamePrefix() + "n1")
                                    .get();
                            return !Boolean.TRUE.equals(n1.getSpec().getUnschedulable())
                                    && (n1.getSpec().getTaints() == null
                                            || n1.getSpec().getTaints().isEmpty())
                                    && (lease == null || lease.getSpec().getHolderIdentity() == null)
                                    && harness.resources(NodeMaintenance.class)
                                                    .withName("m1")
                                                    .get()
                                            == null;
                        },
                        stuck);
            }
            violations.addAll(stuck);
            violations.addAll(witness.violations());
            if (stuck.isEmpty() && !witness.stillStored().isEmpty()) {
                violations.add("Drain pods never evicted: " + witness.stillStored());
            }
            for (String pod : witness.untouchable()) {
                if (trial.cluster.stored(Pod.class, WORK_NS, pod).isEmpty()) {
                    violations.add("the Skip/WaitCompleted pod " + pod + " is gone");
                }
            }
            violations.addAll(trial.violations());
            trace = trial.traceText();
            evicted = witness.evictedPods();
            terms = trial.termStarts.size();
        }
        System.out.printf(
                "operator chaos staged trial %d: failovers %s, %d terms, %d pods evicted, %d first-wave pod(s) still on"
                        + " the node when the mid-wave successor led, %d violations; %d ms%n",
                seed,
                faults,
                terms,
                evicted,
                firstWaveLeft,
                violations.size(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - took));
        if (TRACE || !violations.isEmpty()) {
            System.out.println(trace);
        }
        assertThat(violations)
                .as("staged trial %d (failovers %s; replay: -Dtenure.chaos.trial=%d)\n%s", seed, faults, seed, trace)
                .isEmpty();
        assertThat(terms).as("leadership moved at each stage").isGreaterThanOrEqualTo(4);
        assertThat(evicted).as("the five Drain pods, each once").isEqualTo(5);
    }
}
