package dev.tenure.maintenance.drain;

import static dev.tenure.maintenance.drain.DrainModel.STEP;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.TimeoutOutcome;
import dev.tenure.maintenance.drain.DrainModel.Fate;
import dev.tenure.maintenance.drain.DrainModel.Judged;
import dev.tenure.maintenance.drain.DrainModel.Kind;
import dev.tenure.maintenance.drain.DrainModel.OptionSpec;
import dev.tenure.maintenance.drain.DrainModel.PodSpec;
import dev.tenure.maintenance.drain.DrainModel.RuleSpec;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMachineIT;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMaintenanceStatuses;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.MutableClock;
import dev.tenure.testsupport.SuiteCounts;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * The drain model's bridge to the cluster (issue 37, "the real planner and machine on the emulated cluster"): the
 * plans {@link DrainModel} generates — pods of every kind with their labels, rules, budgets and drain options — are
 * created on a node of an {@link EmulatedCluster}, the real {@link MaintenanceMachine} drains the node for a
 * NodeMaintenance spec written from the case (read from JSON, as the API server hands it to the operator), and the
 * model's oracle ({@link DrainModel#judge}, {@link DrainModel#refuses}) judges what reaches the API server:
 *
 * <ul>
 *   <li>each eviction as it arrives (before it is served): of a pod the oracle drains, through the Eviction API (a
 *       delete only with disableEviction), and no pod of an earlier wave — a running WaitCompleted pod included —
 *       still on the node;
 *   <li>pods are listed by the node's field selector (spec.nodeName);
 *   <li>the end: a refused plan Failed with nothing evicted; without timeouts Succeeded with every pod the oracle drains
 *       gone, every WaitCompleted pod completed and every Skip, WaitCompleted, DaemonSet and mirror pod still there;
 *       with timeouts, Succeeded that way or ended by a timeout that was due, with the outcome its onTimeout states.
 * </ul>
 *
 * <p>One cluster per case (a few dozen milliseconds to start once the JVM is warm). The node runs on the model's
 * time: a step is {@value #STEP_SECONDS} s of a {@link MutableClock}, one reconcile
 * per step; pods complete at their step (phase Succeeded) and an evicted pod goes its terminationSteps later (a
 * finalizer of the test holds it until then), as in {@link DrainModelPropertyTest}'s simulated node; the node's
 * kubelet lease lasts an hour, so that a clock running ahead of real time never makes the kubelet look stale. Windows and time
 * zones stay in the model. A finished pod keeps its Ready condition, so that the emulated budgets count as the model's
 * do (a finished pod spends no budget).
 *
 * <p>Tries: {@value #TRIES_PROPERTY} (default {@value #DEFAULT_TRIES}; {@code make chaos} passes more). A failure
 * prints jqwik's seed and the shrunk case; {@code @Property(seed = "<seed>")} replays it.
 */
@EndToEnd
class DrainModelOnClusterIT {

    static final String TRIES_PROPERTY = SuiteCounts.CLUSTER_PLANS_PROPERTY;
    static final int DEFAULT_TRIES = SuiteCounts.CLUSTER_PLANS;
    static final long STEP_SECONDS = 5;
    /** A plan whose pods all complete or go ends well within this many steps; one with timeouts by its timeout. */
    static final int MAX_STEPS = 250;

    static final String NS = "ns";
    static final String NODE = "n1";
    static final String FINALIZER = "model.tenure.dev/hold";

    /** The tries from {@value #TRIES_PROPERTY}: jqwik.tries.default is the simulated model's count. */
    public static final class Tries implements AroundPropertyHook {
        @Override
        public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
            context.attributes().setTries(Integer.getInteger(TRIES_PROPERTY, DEFAULT_TRIES));
            return property.execute();
        }

        /** Outermost: the tries are read when the property starts. */
        @Override
        public int aroundPropertyProximity() {
            return -100;
        }
    }

    /** One generated plan on the cluster: the model's pods, rules, options and budgets, and the two onTimeouts. */
    record Case(
            List<PodSpec> pods,
            List<RuleSpec> rules,
            OptionSpec options,
            List<Integer> budgetLimits,
            TimeoutOutcome onTimeout,
            TimeoutOutcome waitCompletedOnTimeout) {
        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("Case[\n");
            for (int i = 0; i < pods.size(); i++) {
                b.append("  ")
                        .append(name(pods.get(i), i))
                        .append(": ")
                        .append(pods.get(i))
                        .append('\n');
            }
            return b.append("  rules ")
                    .append(rules)
                    .append("\n  ")
                    .append(options)
                    .append(", budget limits ")
                    .append(budgetLimits)
                    .append(", onTimeout ")
                    .append(onTimeout)
                    .append(", waitCompletedOnTimeout ")
                    .append(waitCompletedOnTimeout)
                    .append("\n]")
                    .toString();
        }
    }

    @Provide
    Arbitrary<Case> cases() {
        return Combinators.combine(
                        DrainModel.pods().list().ofMinSize(1).ofMaxSize(8),
                        DrainModel.rules(),
                        DrainModel.options(),
                        DrainModel.budgetLimits(),
                        Arbitraries.of(TimeoutOutcome.class),
                        Arbitraries.of(TimeoutOutcome.class))
                .as(Case::new);
    }

    static String name(PodSpec p, int i) {
        return p.kind().name().toLowerCase(Locale.ROOT).replace('_', '-') + "-" + i;
    }

    /** A generated pod on the cluster, and where the model's time has it. */
    static final class ModelPod {
        final PodSpec spec;
        final Judged judged;
        final String name;
        boolean completed;
        Integer terminatingSince;
        int goneAt = Integer.MAX_VALUE;

        ModelPod(PodSpec spec, Judged judged, String name) {
            this.spec = spec;
            this.judged = judged;
            this.name = name;
            this.completed = spec.kind() == Kind.COMPLETED;
        }

        boolean neverEnds() {
            return spec.kind().neverEnds();
        }

        String key() {
            return NS + "/" + name;
        }

        @Override
        public String toString() {
            return key() + " (" + judged.fate() + ", wave " + judged.wave() + ")";
        }
    }

    @Property
    @AddLifecycleHook(Tries.class)
    void theMachineOnTheClusterKeepsTheOracle(@ForAll("cases") Case c) {
        MutableClock clock = MutableClock.atSystemTime();
        try (EmulatedCluster cluster = EmulatedCluster.start(EmulatedCluster.Options.forTests()
                        .clock(clock)
                        .terminationDelay(p -> Duration.ZERO)
                        .nodeLeaseDurationSeconds(3600));
                Rig rig = new Rig(cluster, clock)) {
            new Run(c, cluster, clock, rig.machine).run();
        }
    }

    /** The real machine on the cluster, as StageTimeoutsIT builds it; a node lease longer than a few steps. */
    static final class Rig implements AutoCloseable {
        final ExecutorService pool = Executors.newFixedThreadPool(4);
        final ExecutorScheduler heartbeats = new ExecutorScheduler("model-heartbeats");
        final MaintenanceMachine machine;

        Rig(EmulatedCluster cluster, MutableClock clock) {
            MaintenanceSettings s = MaintenanceMachineIT.SETTINGS;
            KubernetesClient operator = cluster.operatorClient();
            machine = new MaintenanceMachine(
                    operator,
                    new KubeLeaseStore(operator),
                    (node, started, now) -> LeadershipHandover.Outcome.complete("nothing held"),
                    new MaintenanceMetrics(new SimpleMeterRegistry()),
                    new MaintenanceSettings(
                            s.leaseNamespace(),
                            s.leaseNamePrefix(),
                            s.holder(),
                            Duration.ofMinutes(5),
                            s.windowPadding(),
                            s.leaseWaitRetry(),
                            s.evictionParallelism(),
                            s.drainPollInterval(),
                            s.staleNodeSkipWait(),
                            s.guardNamespaces()),
                    pool,
                    heartbeats,
                    clock);
        }

        @Override
        public void close() {
            machine.close();
            heartbeats.close();
            pool.shutdownNow();
        }
    }

    /** One case on one cluster. */
    static final class Run {
        final Case c;
        final OptionSpec o;
        final EmulatedCluster cluster;
        final KubernetesClient client;
        final MutableClock clock;
        final MaintenanceMachine machine;
        final Map<String, ModelPod> pods = new LinkedHashMap<>();
        final boolean oracleRefuses;
        final List<String> problems = new CopyOnWriteArrayList<>();
        final Set<String> evicted = ConcurrentHashMap.newKeySet();
        final List<String> events = new CopyOnWriteArrayList<>();
        volatile MaintenanceState state = MaintenanceState.initial();
        /** When a stage's timeout ended or passed it, and the pods that held the drain then; null until it does. */
        record TimedOut(Instant at, List<ModelPod> holding) {}

        TimedOut drainTimeout;
        TimedOut waitTimeout;

        /** The pods the oracle says hold the drain now: Drain pods on the node, WaitCompleted pods running. */
        List<ModelPod> holding(java.util.Collection<ModelPod> all) {
            Instant now = clock.instant();
            return all.stream()
                    .filter(m -> stored(m)
                            .filter(p -> !goneBySkipWait(p, now))
                            .map(p -> m.judged.fate() == Fate.DRAIN
                                    || (m.judged.fate() == Fate.WAIT_COMPLETED && running(p)))
                            .orElse(false))
                    .toList();
        }

        /** When the machine began the drain (status keeps it only while draining). */
        volatile Instant drainStarted;

        Run(Case c, EmulatedCluster cluster, MutableClock clock, MaintenanceMachine machine) {
            this.c = c;
            this.o = c.options();
            this.cluster = cluster;
            this.client = cluster.client();
            this.clock = clock;
            this.machine = machine;
            for (int i = 0; i < c.pods().size(); i++) {
                PodSpec p = c.pods().get(i);
                ModelPod m = new ModelPod(p, DrainModel.judge(p, c.rules(), o), name(p, i));
                pods.put(m.key(), m);
            }
            oracleRefuses = pods.values().stream().anyMatch(m -> DrainModel.refuses(m.spec, m.judged, o));
        }

        void run() {
            seed();
            cluster.requests().observe(this::judge);
            MaintenanceRequest request = request();
            MaintenanceEvents sink = (warning, reason, message) -> events.add(reason + ": " + message);
            int step = 0;
            for (; step < MAX_STEPS && !ended(state.phase()); step++) {
                int k = step;
                for (ModelPod m : pods.values()) {
                    if (m.goneAt <= k) {
                        release(m);
                        m.goneAt = Integer.MAX_VALUE;
                    }
                }
                for (ModelPod m : pods.values()) {
                    if (!m.neverEnds() && !m.completed && m.terminatingSince == null && m.spec.completesAt() <= k) {
                        m.completed = true;
                        complete(m);
                    }
                }
                MaintenanceState next =
                        machine.advance(request, state, false, sink).state();
                state = NodeMaintenanceStatuses.toState(
                        NodeMaintenanceStatuses.toStatus(next, null, 1, clock.instant()));
                if (drainStarted == null) {
                    drainStarted = next.drainStartedAt();
                }
                String lastError = Optional.ofNullable(state.lastError()).orElse("");
                if (drainTimeout == null
                        && (lastError.startsWith("DrainTimedOut")
                                || state.timeoutsPassed().stream().anyMatch(l -> l.startsWith("Drain: ")))) {
                    drainTimeout = new TimedOut(clock.instant(), holding(pods.values()));
                }
                if (waitTimeout == null
                        && (lastError.startsWith("WaitCompletedTimedOut")
                                || state.timeoutsPassed().stream().anyMatch(l -> l.startsWith("WaitCompleted: ")))) {
                    waitTimeout = new TimedOut(clock.instant(), holding(pods.values()));
                }
                for (ModelPod m : pods.values()) {
                    if (m.terminatingSince == null
                            && stored(m)
                                    .map(p -> p.getMetadata().getDeletionTimestamp() != null)
                                    .orElse(false)) {
                        m.terminatingSince = k;
                        m.goneAt = k + m.spec.terminationSteps();
                    }
                }
                assertThat(problems).as("evictions the oracle forbids").isEmpty();
                clock.advance(STEP);
            }
            judgeTheEnd(step);
        }

        static boolean ended(Phase phase) {
            return phase == Phase.Succeeded || phase == Phase.Failed || phase == Phase.Ended;
        }

        /** The node, its DaemonSet, the budgets and the case's pods, each held by the test's finalizer. */
        void seed() {
            cluster.seed().node(NODE).role("worker").create();
            cluster.seed()
                    .object(new DaemonSetBuilder()
                            .withNewMetadata()
                            .withNamespace(NS)
                            .withName("ds")
                            .endMetadata()
                            .withNewSpec()
                            .withNewSelector()
                            .addToMatchLabels("ds", "ds")
                            .endSelector()
                            .endSpec()
                            .build());
            for (int b = 1; b <= c.budgetLimits().size(); b++) {
                cluster.seed()
                        .pdb("b" + b)
                        .namespace(NS)
                        .selector("budget", "b" + b)
                        .maxUnavailable(c.budgetLimits().get(b - 1))
                        .create();
            }
            for (ModelPod m : pods.values()) {
                Pod pod = DrainModel.pod(m.spec, NS, m.name, null, NODE, m.completed, null);
                pod.getMetadata().setFinalizers(new ArrayList<>(List.of(FINALIZER)));
                ready(pod);
                cluster.seed().object(pod);
                if (m.spec.kind() == Kind.TERMINATING) {
                    client.pods().inNamespace(NS).withName(m.name).delete();
                    m.terminatingSince = 0;
                    m.goneAt = m.spec.terminationSteps() + 1;
                }
            }
        }

        /** A finished pod stays Ready: the emulated budget then counts what the model's does. */
        static void ready(Pod pod) {
            pod.getStatus().getConditions().forEach(cond -> cond.setStatus("True"));
        }

        MaintenanceRequest request() {
            Map<String, Object> drain = new LinkedHashMap<>();
            if (o.drainTimeoutSteps() > 0) {
                drain.put("timeout", seconds(o.drainTimeoutSteps()));
            }
            drain.put("onTimeout", c.onTimeout().name());
            drain.put("ignoreDaemonSets", o.ignoreDaemonSets());
            drain.put("deleteEmptyDirData", o.deleteEmptyDirData());
            drain.put("force", o.force());
            drain.put("disableEviction", o.disableEviction());
            drain.put("evictionRetryDelay", seconds(1));
            if (o.skipWait()) {
                drain.put("skipWaitForDeleteTimeout", seconds(2));
            }
            if (o.waitCompletedTimeoutSteps() > 0) {
                drain.put("waitCompletedTimeout", seconds(o.waitCompletedTimeoutSteps()));
            }
            drain.put("waitCompletedOnTimeout", c.waitCompletedOnTimeout().name());
            List<Map<String, Object>> rules = new ArrayList<>();
            for (RuleSpec r : c.rules()) {
                Map<String, Object> rule = new LinkedHashMap<>();
                if (r.app() != null) {
                    rule.put("podSelector", Map.of("matchLabels", Map.of("app", r.app())));
                }
                rule.put("behavior", r.behavior().name());
                if (r.order() != null) {
                    rule.put("order", r.order());
                }
                rules.add(rule);
            }
            drain.put("rules", rules);
            Map<String, Object> spec = Map.of("nodeName", NODE, "reason", "drain model", "drain", drain);
            NodeMaintenanceSpec parsed = client.getKubernetesSerialization()
                    .unmarshal(client.getKubernetesSerialization().asJson(spec), NodeMaintenanceSpec.class);
            return MaintenanceRequest.from(parsed);
        }

        static String seconds(int steps) {
            return steps * STEP_SECONDS + "s";
        }

        Optional<Pod> stored(ModelPod m) {
            return cluster.stored(Pod.class, NS, m.name);
        }

        /** The pod's containers finished: phase Succeeded, as the kubelet writes it. */
        void complete(ModelPod m) {
            writeStatus(m, p -> {
                p.getStatus().setPhase("Succeeded");
                return p;
            });
        }

        /**
         * The test's finalizer off, and the pod deleted again so that the kubelet finishes it: a terminating pod goes.
         * A JSON patch, as an update that empties the list would send none (fabric8 leaves an empty list out).
         */
        void release(ModelPod m) {
            var pod = client.pods().inNamespace(NS).withName(m.name);
            if (stored(m).isEmpty()) {
                return;
            }
            pod.patch(
                    io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                            io.fabric8.kubernetes.client.dsl.base.PatchType.JSON),
                    "[{\"op\":\"replace\",\"path\":\"/metadata/finalizers\",\"value\":[]}]");
            if (stored(m).isPresent()) {
                pod.withGracePeriod(0).delete();
            }
        }

        void writeStatus(ModelPod m, UnaryOperator<Pod> change) {
            for (int i = 0; i < 20; i++) {
                Optional<Pod> p = stored(m);
                if (p.isEmpty()) {
                    return;
                }
                try {
                    client.pods()
                            .inNamespace(NS)
                            .resource(change.apply(p.get()))
                            .updateStatus();
                    return;
                } catch (KubernetesClientException conflict) {
                    // the kubelet wrote the pod meanwhile: again
                }
            }
            throw new AssertionError("could not write the status of " + m);
        }

        // ------------------------------------------------------------ the witness of every eviction

        void judge(ApiRequest r) {
            try {
                judgeRequest(r);
            } catch (RuntimeException e) {
                problems.add("the witness failed on " + r + ": " + e);
            }
        }

        void judgeRequest(ApiRequest r) {
            if (!EmulatedCluster.OPERATOR_USER_AGENT.equals(r.userAgent())) {
                return;
            }
            if (r.is("list", "pods") || r.is("watch", "pods")) {
                String field = r.query() == null ? null : r.query().get("fieldSelector");
                if (field == null || !field.contains("spec.nodeName=" + NODE)) {
                    problems.add("pods listed without the node's field selector: " + r);
                }
                return;
            }
            boolean eviction = r.is("create", "pods", "eviction");
            if (!eviction && !r.is("delete", "pods")) {
                return;
            }
            String key = r.namespace() + "/" + r.name();
            String what = (eviction ? "eviction" : "delete") + " of " + key + " at " + clock.instant();
            ModelPod m = pods.get(key);
            if (m == null) {
                problems.add(what + ": not a pod of the case");
                return;
            }
            evicted.add(key);
            if (eviction == o.disableEviction()) {
                problems.add(what + ": disableEviction is " + o.disableEviction()
                        + " (pods go through the Eviction API unless it is set)");
            }
            if (oracleRefuses) {
                problems.add(what + ": the oracle refuses this drain (nothing may be evicted)");
            }
            if (m.judged.fate() != Fate.DRAIN) {
                problems.add(what + ": it is " + m.judged.fate()
                        + " (a Skip or WaitCompleted pod is never evicted; DaemonSet and mirror pods are never"
                        + " touched)");
                return;
            }
            Instant now = clock.instant();
            boolean waitPassed = c.waitCompletedOnTimeout() == TimeoutOutcome.Proceed
                    && o.waitCompletedTimeoutSteps() > 0
                    && drainStarted != null
                    && !now.isBefore(drainStarted.plus(STEP.multipliedBy(o.waitCompletedTimeoutSteps())));
            for (ModelPod h : pods.values()) {
                if (h.judged.wave() >= m.judged.wave()) {
                    continue;
                }
                Optional<Pod> p = stored(h);
                if (p.isEmpty() || goneBySkipWait(p.get(), now)) {
                    continue;
                }
                boolean holds = h.judged.fate() == Fate.DRAIN
                        || (h.judged.fate() == Fate.WAIT_COMPLETED && running(p.get()) && !waitPassed);
                if (holds) {
                    problems.add(what + " (wave " + m.judged.wave() + ") while " + h + " is still on the node");
                }
            }
        }

        /** kubectl's skipDeletedFilter: a pod terminating for longer than skipWaitForDeleteTimeout counts as gone. */
        boolean goneBySkipWait(Pod p, Instant now) {
            String deleted = p.getMetadata().getDeletionTimestamp();
            return o.skipWait()
                    && deleted != null
                    && Instant.parse(deleted).plus(STEP.multipliedBy(2)).isBefore(now);
        }

        static boolean running(Pod p) {
            String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
            return !"Succeeded".equals(phase) && !"Failed".equals(phase);
        }

        // ------------------------------------------------------------ the end

        void judgeTheEnd(int steps) {
            Phase phase = state.phase();
            String end = "ended " + phase + " after " + steps + " steps, lastError " + state.lastError()
                    + ", timeoutsPassed " + state.timeoutsPassed() + ", evicted " + evicted + "; on the node "
                    + pods.values().stream()
                            .map(m -> stored(m)
                                    .map(p -> m.name + " " + p.getStatus().getPhase() + " deleted "
                                            + p.getMetadata().getDeletionTimestamp() + " "
                                            + p.getMetadata().getFinalizers())
                                    .orElse(m.name + " gone"))
                            .toList()
                    + "; events " + events;
            assertThat(ended(phase)).as("no plan waits forever: %s", end).isTrue();
            boolean cordoned = Boolean.TRUE.equals(
                    client.nodes().withName(NODE).get().getSpec().getUnschedulable());
            Map<String, Pod> left = new HashMap<>();
            pods.values().forEach(m -> stored(m).ifPresent(p -> left.put(m.key(), p)));
            for (ModelPod m : pods.values()) {
                if (m.judged.fate() != Fate.DRAIN && m.spec.kind() != Kind.TERMINATING) {
                    assertThat(left).as("%s stays on the node: %s", m, end).containsKey(m.key());
                }
            }
            if (oracleRefuses) {
                assertThat(phase).as("a pod refuses the drain: %s", end).isEqualTo(Phase.Failed);
                assertThat(evicted).as("refused: nothing evicted").isEmpty();
                assertThat(cordoned).as("Failed: the node stays cordoned").isTrue();
                return;
            }
            boolean drainTimedOut = drainTimeout != null;
            boolean waitTimedOut = waitTimeout != null;
            Instant now = clock.instant();
            if (drainTimedOut) {
                assertThat(o.drainTimeoutSteps())
                        .as("a drain timeout without one: %s", end)
                        .isPositive();
                assertThat(drainStarted.plus(STEP.multipliedBy(o.drainTimeoutSteps())))
                        .as("the drain timed out before its timeout: %s", end)
                        .isBeforeOrEqualTo(drainTimeout.at());
                assertThat(drainTimeout.holding())
                        .as("the drain timed out with nothing left to drain or wait for: %s", end)
                        .isNotEmpty();
                assertThat(phase)
                        .as("the drain's onTimeout %s: %s", c.onTimeout(), end)
                        .isEqualTo(outcome(c.onTimeout()));
            }
            if (waitTimedOut) {
                assertThat(o.waitCompletedTimeoutSteps())
                        .as("a WaitCompleted timeout without one: %s", end)
                        .isPositive();
                assertThat(drainStarted.plus(STEP.multipliedBy(o.waitCompletedTimeoutSteps())))
                        .as("WaitCompleted timed out before its timeout: %s", end)
                        .isBeforeOrEqualTo(waitTimeout.at());
                assertThat(waitTimeout.holding().stream()
                                .filter(h -> h.judged.fate() == Fate.WAIT_COMPLETED)
                                .toList())
                        .as("WaitCompleted timed out with no WaitCompleted pod running: %s", end)
                        .isNotEmpty();
                if (!drainTimedOut) {
                    assertThat(phase)
                            .as("the WaitCompleted onTimeout %s: %s", c.waitCompletedOnTimeout(), end)
                            .isEqualTo(outcome(c.waitCompletedOnTimeout()));
                }
            }
            if (o.drainTimeoutSteps() == 0 && o.waitCompletedTimeoutSteps() == 0) {
                assertThat(phase)
                        .as("without timeouts, a plan whose pods all complete or are evictable succeeds: %s", end)
                        .isEqualTo(Phase.Succeeded);
            }
            if (phase == Phase.Ended) {
                assertThat(cordoned).as("Restore: the node uncordoned: %s", end).isFalse();
            } else {
                assertThat(cordoned).as("%s: the node stays cordoned", phase).isTrue();
            }
            if (phase != Phase.Succeeded || drainTimedOut) {
                assertThat(drainTimedOut || waitTimedOut)
                        .as("ended %s without a refusal or a timeout: %s", phase, end)
                        .isTrue();
                return;
            }
            List<String> notDrained = pods.values().stream()
                    .filter(m -> m.judged.fate() == Fate.DRAIN)
                    .filter(m -> left.containsKey(m.key()) && !goneBySkipWait(left.get(m.key()), now))
                    .map(ModelPod::toString)
                    .toList();
            assertThat(notDrained)
                    .as("Succeeded with pods to drain still on the node: %s", end)
                    .isEmpty();
            if (!waitTimedOut) {
                List<String> running = pods.values().stream()
                        .filter(m -> m.judged.fate() == Fate.WAIT_COMPLETED)
                        .filter(m -> left.containsKey(m.key())
                                && running(left.get(m.key()))
                                && !goneBySkipWait(left.get(m.key()), now))
                        .map(ModelPod::toString)
                        .toList();
                assertThat(running)
                        .as("Succeeded with a WaitCompleted pod still running: %s", end)
                        .isEmpty();
            }
            assertThat(pods.values().stream()
                            .filter(m -> m.judged.fate() == Fate.DRAIN && m.spec.kind() != Kind.TERMINATING)
                            .filter(m -> !evicted.contains(m.key()))
                            .map(ModelPod::toString)
                            .collect(Collectors.toList()))
                    .as("drained without an eviction: %s", end)
                    .isEmpty();
        }

        static Phase outcome(TimeoutOutcome onTimeout) {
            return switch (onTimeout) {
                case Fail -> Phase.Failed;
                case Proceed -> Phase.Succeeded;
                case Restore -> Phase.Ended;
            };
        }
    }
}
