package dev.tenure.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.DrainOptions;
import dev.tenure.maintenance.machine.HandoverOptions;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceRequest;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import dev.tenure.maintenance.machine.MaintenanceState;
import dev.tenure.maintenance.machine.NodeMarks;
import dev.tenure.testsupport.Chaos;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.RequestLog;
import dev.tenure.testsupport.SecondLane;
import dev.tenure.testsupport.SuiteCounts;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Node maintenance under chaos: five NodeMaintenances at once (MaintenanceMachine driven as the reconciler
 * drives it) on a cluster with PodDisruptionBudgets, nodes an admin had already cordoned or tainted, a
 * foreign lease that expires, while 10 % of the operator's requests fail (409/429/500) or are slow,
 * the operator restarts (a new MaintenanceMachine on the same cluster, heartbeats lost), status writes are
 * lost (a step's result dropped, so the next step repeats it) and kubelets go down mid-drain.
 *
 * <p>Invariants, checked on every run:
 * <ul>
 *   <li>every maintenance converges within a bound, and ends as its spec and the faults say: Succeeded, or Failed
 *   only where its one stage with a timeout Fail, the drain ({@code spec.drain.timeout} 20 s), timed out while a
 *   fault held each pod it left: an eviction refused by a PodDisruptionBudget or by an injected 409/429/500 during
 *   the drain (counted per pod from the emulated cluster's answers), or a kubelet taken down under a terminating
 *   pod;</li>
 *   <li>a Succeeded node is drained: nothing left on it but DaemonSet pods (and pods still terminating on a node
 *   whose kubelet is down, which count as gone after the stale-node wait);</li>
 *   <li>no PodDisruptionBudget is ever violated (sampled every ~20 ms while the operator runs; a
 *   disruption lasts at least the 400 ms termination, so none slips between samples);</li>
 *   <li>after every maintenance has ended: no node cordoned, tainted, conditioned or annotated by Tenure,
 *   each node exactly in its prior state (cordon and taints), no lease held by Tenure.</li>
 * </ul>
 * <p>The same chaos runs twice per seed: on the plain emulator, where an evicted pod is gone for good, and on a
 * living cluster ({@link EmulatedCluster.Options#living}), where ReplicaSets replace evicted pods, the scheduler puts
 * the replacements on the one node nobody maintains ({@code spare}), and they become Ready {@link #READINESS} later.
 * There each drain is paced by its PodDisruptionBudget as on a real cluster — an eviction, then a wait until the
 * replacement is Ready — and the budget is checked as the upstream disruption controller counts it: the expected pods
 * are the owning ReplicaSets' replicas, not the pods that happen to exist, and only Ready pods are healthy. A living
 * run also checks that every workload has all its replicas Ready again at the end: the drains moved it, lost none.
 *
 * <p>These runs drive the machine with kubectl drain's options only. The third runs the NodeMaintenance door (the real
 * reconciler in a JOSDK operator) under the same faults and restarts, with specs that use drain rules, the pod label,
 * hooks with each {@code onTimeout}, a join, a queue cap above 1 and windows, and checks that each maintenance ends as
 * its spec says, not merely that it ended ({@link DoorChaos}).
 *
 * <p>{@code -Dtenure.chaos.seed=N} replays the driver's decisions and fault draws; {@code -Dtenure.chaos.runs=N}.
 */
@Chaos
@SecondLane
class MaintenanceChaosTest {
    static final long BASE_SEED = Long.getLong("tenure.chaos.seed", System.nanoTime());
    static final int RUNS = SuiteCounts.of(SuiteCounts.CHAOS_RUNS_PROPERTY, SuiteCounts.CHAOS_RUNS);
    static final String OPERATOR_AGENT = "chaos-operator";
    static final String LEASE_NAMESPACE = "tenure-system";
    static final Duration CONVERGE_WITHIN = Duration.ofSeconds(60);
    static final MaintenanceSettings SETTINGS = new MaintenanceSettings(
            LEASE_NAMESPACE,
            "node-",
            "tenure",
            Duration.ofSeconds(4),
            Duration.ofSeconds(30),
            Duration.ofSeconds(1),
            4,
            Duration.ofMillis(100),
            Duration.ofSeconds(1));
    static final DrainOptions DRAIN = new DrainOptions(
            Optional.of(Duration.ofSeconds(20)),
            -1,
            true,
            true,
            true,
            null,
            Duration.ofMillis(300),
            Optional.empty(),
            false);

    /** How long a living cluster's replacement pod takes to become Ready once it is bound. */
    static final Duration READINESS = Duration.ofMillis(500);

    static Stream<Long> seeds() {
        System.out.println(
                "MaintenanceChaosTest base seed " + BASE_SEED + " (replay: -Dtenure.chaos.seed=" + BASE_SEED + ")");
        return LongStream.range(0, RUNS).mapToObj(i -> BASE_SEED + i);
    }

    /**
     * The door runs: half as many as the machine's (each runs every feature, the seed draws only the details), at
     * least one; {@code make test} runs one ({@link SuiteCounts#CHAOS_RUNS}), {@code make chaos} ten.
     */
    static Stream<Long> doorSeeds() {
        return seeds().limit(Math.max(1, RUNS / 2));
    }

    /** A node's state before maintenance, as the admin left it. */
    record Prior(boolean unschedulable, Set<String> taints) {
        static Prior of(Node n) {
            return new Prior(Boolean.TRUE.equals(n.getSpec().getUnschedulable()), MaintenanceChaosTest.taints(n));
        }
    }

    /** The operator process: a machine with its own eviction pool and heartbeat scheduler; restart = close + new. */
    static final class Operator implements AutoCloseable {
        final MaintenanceMachine machine;
        private final ExecutorService evictions = Executors.newFixedThreadPool(SETTINGS.evictionParallelism());
        private final ExecutorScheduler heartbeats = new ExecutorScheduler("chaos-heartbeats");

        Operator(KubernetesClient client) {
            machine = new MaintenanceMachine(
                    client,
                    new KubeLeaseStore(client),
                    (node, started, now) ->
                            LeadershipHandover.Outcome.complete("no leader-elected workloads on " + node),
                    new MaintenanceMetrics(new SimpleMeterRegistry()),
                    SETTINGS,
                    evictions,
                    heartbeats,
                    Clock.systemUTC());
        }

        @Override
        public void close() {
            machine.close();
            evictions.shutdownNow();
            heartbeats.close();
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyMaintenanceConvergesWithoutPdbViolationsAndEndsLeavingNoTrace(long seed) throws Exception {
        run(seed, false);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void onALivingClusterEveryDrainIsPacedByItsBudgetAndNoReplicaIsLost(long seed) throws Exception {
        run(seed, true);
    }

    /**
     * The NodeMaintenance door under the same faults and restarts, with specs that use rules, pod labels, hooks,
     * onTimeout, a join, a queue cap above 1 and windows; each maintenance checked against the end its spec states
     * ({@link DoorChaos}).
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("doorSeeds")
    void throughTheDoorEveryMaintenanceEndsAsItsSpecSays(long seed) {
        DoorChaos.run(seed);
    }

    private static void run(long seed, boolean living) throws Exception {
        System.out.println("maintenance chaos" + (living ? " (living cluster)" : "") + ": seed " + seed
                + " (replay: -Dtenure.chaos.seed=" + seed + " -Dtenure.chaos.runs=1)");
        Random rnd = new Random(seed);
        EmulatedCluster.Options options = EmulatedCluster.Options.forTests()
                .nodeLeaseDurationSeconds(2)
                .terminationDelay(p -> Duration.ofMillis(400));
        if (living) {
            options.living(READINESS);
        }
        try (EmulatedCluster cluster = EmulatedCluster.start(options);
                KubernetesClient operatorClient = EmulatedCluster.clientBuilder()
                        .withConfig(new ConfigBuilder(cluster.clientConfig())
                                .withUserAgent(OPERATOR_AGENT)
                                .build())
                        .build()) {
            KubernetesClient checker = cluster.client();
            List<String> nodes = List.of("n0", "n1", "n2", "n3", "n4");
            seed(cluster, nodes);
            Map<String, Prior> prior = new LinkedHashMap<>();
            for (String n : nodes) {
                prior.put(n, Prior.of(checker.nodes().withName(n).get()));
            }
            List<String> pdbViolations = new CopyOnWriteArrayList<>();
            Thread pdbWatch = pdbSampler(checker, pdbViolations, living);
            ChaosFaults faults = ChaosFaults.install(
                    cluster.faults(), seed, r -> r.userAgent().equals(OPERATOR_AGENT) && r.isResourceRequest());

            Map<String, MaintenanceState> states = new LinkedHashMap<>();
            Map<String, Failure> failures = new LinkedHashMap<>();
            Map<String, Long> due = new LinkedHashMap<>();
            for (String n : nodes) {
                states.put(n, MaintenanceState.initial());
                due.put(n, System.nanoTime()); // due at once
            }
            int restarts = 0;
            int lostWrites = 0;
            int kubeletsDown = 0;
            int steps = 0;
            long latest = 0; // the longest a due step waited to be sent, in ns
            Map<String, List<Instant>> stepped = new LinkedHashMap<>(); // when each node's steps ended
            Map<String, Set<String>> drained = new LinkedHashMap<>(); // each node's pods its drain ever waited on
            Operator operator = new Operator(operatorClient);
            ExecutorService reconciles = Executors.newFixedThreadPool(nodes.size());
            try {
                long deadline = System.nanoTime() + CONVERGE_WITHIN.toNanos();
                // Each maintenance steps on its own, as JOSDK reconciles each resource on its own: a node's next step
                // goes out when it is due, not when the slowest step of the others ends. Stepping in passes (all due
                // nodes, then wait for every one of them) made one node's slow step (a 1 s injected delay, a starved
                // CPU) every node's pace: on a busy machine n4's drain sent one batch in its 20 s and timed out with
                // pods never sent (seed 68727146370140). A restart waits for the steps in flight, as a rollout's new
                // pod takes over once the old one has stopped.
                Map<String, Future<MaintenanceMachine.Step>> stepping = new LinkedHashMap<>();
                boolean restartDue = false;
                while (!allSettled(states) && System.nanoTime() < deadline) {
                    for (String n : nodes) {
                        Future<MaintenanceMachine.Step> running = stepping.get(n);
                        if (running != null) {
                            if (!running.isDone()) {
                                continue;
                            }
                            stepping.remove(n);
                            Duration next;
                            try {
                                MaintenanceMachine.Step step = running.get();
                                steps++;
                                stepped.computeIfAbsent(n, k -> new ArrayList<>())
                                        .add(Instant.now());
                                drained.computeIfAbsent(n, k -> new TreeSet<>())
                                        .addAll(step.state().pendingPods());
                                if (rnd.nextDouble() < 0.1
                                        && !isSettled(step.state().phase())) {
                                    lostWrites++; // status write lost: the next reconcile starts from the old state
                                } else {
                                    states.put(n, step.state());
                                    if (step.state().phase() == Phase.Failed) {
                                        failures.put(n, Failure.seen(checker, cluster, n));
                                    }
                                }
                                next = step.requeueAfter().orElse(Duration.ofSeconds(1));
                            } catch (ExecutionException e) {
                                if (!(e.getCause() instanceof RuntimeException)) {
                                    throw e;
                                }
                                next = Duration.ofMillis(200); // a reconcile that threw is retried, as JOSDK does
                            }
                            // Requeue as asked, capped: the reconciler is also woken by events the machine cannot see.
                            due.put(
                                    n,
                                    System.nanoTime()
                                            + Math.min(
                                                    next.toNanos(),
                                                    Duration.ofMillis(500).toNanos()));
                            MaintenanceState now = states.get(n);
                            if (now.drainStartedAt() != null
                                    && now.phase() == Phase.Running
                                    && !cluster.isKubeletDown(n)
                                    && kubeletsDown < 2
                                    && rnd.nextDouble() < 0.15) {
                                cluster.markKubeletDown(
                                        n); // mid-drain: its terminating pods stay, its node lease goes stale
                                kubeletsDown++;
                            }
                            restartDue |= rnd.nextDouble() < 0.01;
                            continue;
                        }
                        if (restartDue || isSettled(states.get(n).phase()) || System.nanoTime() < due.get(n)) {
                            continue;
                        }
                        long late = System.nanoTime() - due.get(n);
                        latest = Math.max(latest, late);
                        MaintenanceState before = states.get(n);
                        MaintenanceMachine machine = operator.machine;
                        stepping.put(
                                n,
                                reconciles.submit(
                                        () -> machine.advance(request(n), before, false, MaintenanceEvents.NONE)));
                    }
                    if (restartDue && stepping.isEmpty()) {
                        operator.close();
                        operator = new Operator(operatorClient);
                        restarts++;
                        restartDue = false;
                    }
                    Thread.sleep(20);
                }
                Map<String, String> unsettled = states.entrySet().stream()
                        .filter(e -> !isSettled(e.getValue().phase()))
                        .collect(Collectors.toMap(
                                Map.Entry::getKey,
                                e -> e.getValue().phase() + ": " + e.getValue().lastError()));
                assertThat(unsettled)
                        .as("maintenances not converged within " + CONVERGE_WITHIN + " (seed " + seed + ")")
                        .isEmpty();
                assertFailedOnlyWhereAFaultHeldTheDrainPastItsTimeout(
                        states, failures, stepped, drained, cluster.requests().answers(), seed);

                assertSucceededNodesDrained(checker, states, cluster, seed);
                // End every maintenance (NodeMaintenance deleted), still under faults: end() throws and is retried.
                for (String n : nodes) {
                    endWithRetries(operator, n);
                }
            } finally {
                reconciles.shutdownNow();
                operator.close();
                pdbWatch.interrupt();
                pdbWatch.join(2000);
                cluster.faults().clear();
                nodes.forEach(cluster::markKubeletUp);
            }

            String phases = states.entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue().phase()
                            + (e.getValue().phase() == Phase.Failed
                                    ? " (" + abbreviate(e.getValue().lastError()) + ")"
                                    : ""))
                    .collect(Collectors.joining(" "));
            System.out.printf(
                    "seed %d: %s; %d steps (the latest %d ms after it was due), %d restarts, %d lost status writes, "
                            + "%d kubelets down, %d faults injected %s, %d PDB violations%n",
                    seed,
                    phases,
                    steps,
                    Duration.ofNanos(latest).toMillis(),
                    restarts,
                    lostWrites,
                    kubeletsDown,
                    faults.total(),
                    faults,
                    pdbViolations.size());
            assertThat(faults.total()).as("faults were injected").isPositive();
            assertThat(pdbViolations)
                    .as("PodDisruptionBudgets violated (seed " + seed + ")")
                    .isEmpty();
            assertNoTrace(checker, prior, seed);
            if (living) {
                assertEveryReplicaLivesOn(checker, states, seed);
            }
        }
    }

    /**
     * The moment the run saw a maintenance end Failed: when, and the pods then still on its node (DaemonSet pods
     * aside, which the drain leaves by its options), each with whether it was terminating on a node whose kubelet the
     * run had taken down.
     */
    record Failure(Instant at, List<LeftPod> left) {
        static Failure seen(KubernetesClient checker, EmulatedCluster cluster, String node) {
            Instant at = Instant.now();
            boolean kubeletDown = cluster.isKubeletDown(node);
            List<LeftPod> left =
                    checker.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems().stream()
                            .filter(p -> !isDaemonSetPod(p))
                            .map(p -> new LeftPod(
                                    p.getMetadata().getNamespace(),
                                    p.getMetadata().getName(),
                                    kubeletDown && p.getMetadata().getDeletionTimestamp() != null))
                            .toList();
            return new Failure(at, left);
        }
    }

    /** A pod a failed drain left on its node; {@code strandedByKubelet}: terminating where the kubelet is down. */
    record LeftPod(String namespace, String name, boolean strandedByKubelet) {
        @Override
        public String toString() {
            return namespace + "/" + name;
        }
    }

    /**
     * A maintenance ends Failed only as its spec and the faults say it can (issue 50 item 11). These requests have one
     * stage whose timeout fails, the drain ({@link #DRAIN}: 20 s, onTimeout Fail, with force, emptyDir and DaemonSet
     * options that refuse no pod), so a Failed one must have failed there: its lastError is the drain's timeout with
     * Fail, it was seen Failed no sooner than 20 s after its drain started, and it was judged by what the drain did, not
     * by the 20 s alone. Each pod it left on the node was held by a fault during the drain — its eviction refused at
     * least once between the drain's start and the failure, by a PodDisruptionBudget (the 429 with its {@code
     * DisruptionBudget} cause) or by a fault the run injected (the 409, 429 and 500 answers, after which the machine
     * backs off, doubling up to {@link dev.tenure.maintenance.drain.DrainPacing#MAX_ERROR_BACKOFF}), or it was
     * terminating on a node whose kubelet the run took down — or, for the pods no fault held, the drain was still at
     * work when its time ran out ({@link #stillEvicting}): a drain slowed down (a starved CPU makes each step take
     * seconds; the pods still to go are the ones it had not reached) fails there, a drain that stopped evicting does
     * not pass. Each eviction and refusal is read from the emulated cluster's answers, not from the machine's own
     * account. A Failed before the timeout or without a drain, or any other reason, is a finding.
     */
    private static void assertFailedOnlyWhereAFaultHeldTheDrainPastItsTimeout(
            Map<String, MaintenanceState> states,
            Map<String, Failure> failures,
            Map<String, List<Instant>> stepped,
            Map<String, Set<String>> drained,
            List<RequestLog.Answer> answers,
            long seed) {
        List<String> problems = new ArrayList<>();
        Duration timeout = DRAIN.timeout().orElseThrow();
        String failed = " (spec.drain.onTimeout Fail)";
        states.forEach((node, state) -> {
            if (state.phase() != Phase.Failed) {
                return;
            }
            String error = state.lastError() == null ? "" : state.lastError();
            String timedOut = "DrainTimedOut: drain of node " + node + " did not finish within "
                    + dev.tenure.maintenance.api.GoDuration.format(timeout) + "; pods still on it: ";
            if (!error.startsWith(timedOut) || !error.endsWith(failed)) {
                problems.add(node + ": Failed, but not at its drain timeout with onTimeout Fail: " + error);
                return;
            }
            Failure failure = failures.get(node);
            Instant started = state.drainStartedAt();
            if (started == null || failure == null) {
                problems.add(node + ": Failed at a drain timeout without a drain started: " + error);
                return;
            }
            if (failure.at().isBefore(started.plus(timeout))) {
                problems.add(node + ": Failed " + Duration.between(started, failure.at()) + " after its drain started,"
                        + " before its timeout " + timeout + ": " + error);
            }
            if (failure.left().isEmpty()) {
                problems.add(node + ": Failed at its drain timeout with no pod left on it: " + error);
            }
            List<String> unheld = new ArrayList<>();
            for (LeftPod pod : failure.left()) {
                if (pod.strandedByKubelet()) {
                    continue;
                }
                boolean refused = answers.stream()
                        .anyMatch(a -> isOperatorEviction(a, pod.toString())
                                && !a.at().isBefore(started)
                                && !a.at().isAfter(failure.at())
                                && (a.refusedByBudget() || a.injected()));
                if (!refused) {
                    unheld.add(pod.toString());
                }
            }
            if (unheld.isEmpty()) {
                return;
            }
            Set<String> pods = new TreeSet<>(drained.getOrDefault(node, Set.of()));
            failure.left().forEach(p -> pods.add(p.toString()));
            List<Instant> ended = stepped.getOrDefault(node, List.of());
            Optional<String> busy = stillEvicting(pods, ended, answers, started, failure.at(), timeout);
            if (busy.isEmpty()) {
                problems.add(node + ": Failed at its drain timeout with pods no fault held, " + unheld
                        + ", and a drain no longer evicting: none of the node's pods was sent an eviction in its last "
                        + LAST_STEPS + " steps or last " + timeout.dividedBy(4).toMillis() + " ms (" + started + " to "
                        + failure.at() + "; " + steps(ended, started, failure.at()) + "; the node's evictions: "
                        + answers.stream()
                                .filter(a -> pods.stream().anyMatch(p -> isOperatorEviction(a, p)))
                                .map(a -> a.request().name() + " " + a.status() + (a.injected() ? " injected" : "")
                                        + " at " + a.at())
                                .toList()
                        + "): " + error);
            } else {
                System.out.println(node + ": Failed at its drain timeout with pods no fault held, " + unheld
                        + ", while its drain was still evicting (" + busy.get() + ")");
            }
        });
        assertThat(problems)
                .as("maintenances Failed other than by a fault holding their drain past its timeout (seed " + seed
                        + ")")
                .isEmpty();
    }

    /** The drain steps before its failure that {@link #stillEvicting} looks at. */
    static final int LAST_STEPS = 3;

    /**
     * Whether a drain that timed out was still at work: an eviction of one of its node's {@code pods}
     * ("namespace/name") answered within its last {@link #LAST_STEPS} steps before the failure ({@code ended}: when the
     * node's steps ended, the failing one last), or within the last quarter of its {@code timeout}, whichever reaches
     * back further (a step of a starved operator takes seconds; a quick one, milliseconds). Empty when none was: the
     * drain had stopped evicting before its time ran out. Otherwise says how many evictions and when the last was.
     */
    static Optional<String> stillEvicting(
            Set<String> pods,
            List<Instant> ended,
            List<RequestLog.Answer> answers,
            Instant started,
            Instant failedAt,
            Duration timeout) {
        List<Instant> inDrain = ended.stream()
                .filter(t -> !t.isBefore(started) && !t.isAfter(failedAt))
                .toList();
        // the failing step sends nothing: the LAST_STEPS steps before it began after the end of the one before them
        Instant bySteps = inDrain.size() > LAST_STEPS + 1 ? inDrain.get(inDrain.size() - LAST_STEPS - 2) : started;
        Instant byTime = failedAt.minus(timeout.dividedBy(4));
        Instant from = bySteps.isBefore(byTime) ? bySteps : byTime;
        List<Instant> sent = answers.stream()
                .filter(a -> pods.stream().anyMatch(p -> isOperatorEviction(a, p))
                        && a.at().isAfter(from)
                        && !a.at().isAfter(failedAt))
                .map(RequestLog.Answer::at)
                .sorted()
                .toList();
        return sent.isEmpty()
                ? Optional.empty()
                : Optional.of(sent.size() + " evictions of the node's pods answered from " + from + ", the last at "
                        + sent.get(sent.size() - 1) + ", failed at " + failedAt);
    }

    /** {@code a} answers the operator's eviction of {@code pod} ("namespace/name"). */
    static boolean isOperatorEviction(RequestLog.Answer a, String pod) {
        return a.request().is("create", "pods", "eviction")
                && a.request().userAgent().equals(OPERATOR_AGENT)
                && pod.equals(a.request().namespace() + "/" + a.request().name());
    }

    /** What the driver gave a drain: its steps between {@code from} and {@code to}, and the longest time between two. */
    static String steps(List<Instant> ended, Instant from, Instant to) {
        List<Instant> in =
                ended.stream().filter(t -> !t.isBefore(from) && !t.isAfter(to)).toList();
        Duration longest = Duration.ZERO;
        Instant last = from;
        for (Instant t : in) {
            longest = Duration.between(last, t).compareTo(longest) > 0 ? Duration.between(last, t) : longest;
            last = t;
        }
        return in.size() + " steps of the node ended in the drain, at most " + longest.toMillis() + " ms apart";
    }

    static boolean isDaemonSetPod(Pod p) {
        return p.getMetadata().getOwnerReferences() != null
                && p.getMetadata().getOwnerReferences().stream().anyMatch(o -> "DaemonSet".equals(o.getKind()));
    }

    /**
     * Succeeded means drained (kubectl drain's options here: DaemonSet pods ignored, the rest evicted, unmanaged and
     * emptyDir pods included): on each Succeeded node nothing is left but DaemonSet pods, and pods still terminating on
     * a node whose kubelet went down (they count as gone after the stale-node wait). Each pod left is named.
     */
    private static void assertSucceededNodesDrained(
            KubernetesClient client, Map<String, MaintenanceState> states, EmulatedCluster cluster, long seed) {
        List<String> left = new ArrayList<>();
        for (Pod p : client.pods().inAnyNamespace().list().getItems()) {
            String node = p.getSpec().getNodeName();
            MaintenanceState state = states.get(node);
            if (state == null || state.phase() != Phase.Succeeded) {
                continue;
            }
            boolean daemon = isDaemonSetPod(p);
            boolean strandedByKubelet = p.getMetadata().getDeletionTimestamp() != null && cluster.isKubeletDown(node);
            if (!daemon && !strandedByKubelet) {
                left.add(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName() + " on " + node
                        + (p.getMetadata().getDeletionTimestamp() == null ? "" : " (terminating)"));
            }
        }
        assertThat(left)
                .as("pods left on nodes whose maintenance Succeeded (seed " + seed + ")")
                .isEmpty();
    }

    /**
     * On a living cluster the drains moved the workloads and lost none: every ReplicaSet has its replicas Ready again
     * (the last replacements may still be starting when the maintenances end), and each drained node's own workload
     * ({@code web-<node>}, seeded there) now runs wholly elsewhere — its pods were evicted and replaced, not left.
     */
    private static void assertEveryReplicaLivesOn(
            KubernetesClient client, Map<String, MaintenanceState> states, long seed) {
        List<String> problems = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        do {
            problems.clear();
            List<Pod> pods = client.pods().inNamespace("shop").list().getItems().stream()
                    .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                    .toList();
            for (ReplicaSet rs :
                    client.apps().replicaSets().inNamespace("shop").list().getItems()) {
                List<Pod> owned = pods.stream().filter(p -> ownedBy(p, rs)).toList();
                long ready =
                        owned.stream().filter(MaintenanceChaosTest::isReady).count();
                if (ready != rs.getSpec().getReplicas()) {
                    problems.add(rs.getMetadata().getName() + ": " + ready + " of "
                            + rs.getSpec().getReplicas() + " Ready");
                }
            }
            states.forEach((node, state) -> {
                if (state.phase() == Phase.Succeeded) {
                    pods.stream()
                            .filter(p -> node.equals(p.getSpec().getNodeName())
                                    && ("web-" + node)
                                            .equals(p.getMetadata().getLabels().get("app")))
                            .forEach(p -> problems.add(p.getMetadata().getName() + " still on drained " + node));
                }
            });
            if (problems.isEmpty()) {
                return;
            }
            LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        } while (System.nanoTime() < deadline);
        assertThat(problems)
                .as("workloads after the drains of a living cluster (seed " + seed + ")")
                .isEmpty();
    }

    /** The upstream disruption controller's expected count: the replicas of the pods' controllers, each once. */
    private static int expectedByScale(List<Pod> matching, List<ReplicaSet> replicaSets) {
        return replicaSets.stream()
                .filter(rs -> matching.stream().anyMatch(p -> ownedBy(p, rs)))
                .mapToInt(rs -> rs.getSpec().getReplicas())
                .sum();
    }

    static boolean ownedBy(Pod pod, ReplicaSet rs) {
        return pod.getMetadata().getOwnerReferences() != null
                && pod.getMetadata().getOwnerReferences().stream()
                        .anyMatch(o -> rs.getMetadata().getUid().equals(o.getUid()));
    }

    static boolean isReady(Pod pod) {
        return pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static void seed(EmulatedCluster cluster, List<String> nodes) {
        var seed = cluster.seed();
        seed.node("n0").role("worker").create();
        seed.node("n1").role("worker").unschedulable().create(); // admin cordoned
        seed.node("n2")
                .role("worker")
                .taint("example.com/dedicated", "db", "NoSchedule")
                .create(); // admin taint
        seed.node("n3")
                .role("worker")
                .unschedulable()
                .taint("example.com/gpu", "", "NoExecute")
                .create();
        seed.node("n4").role("worker").create();
        seed.node("spare").role("worker").create();
        for (String n : nodes) {
            seed.deployment("web-" + n)
                    .namespace("shop")
                    .replicas(5)
                    .onNodes(n)
                    .gracePeriod(1)
                    .create();
            seed.pdb("web-" + n)
                    .namespace("shop")
                    .selector("app", "web-" + n)
                    .maxUnavailable(1)
                    .create();
        }
        // One PDB spanning nodes: minAvailable 4 of 6 pods on n0, n2 and spare.
        seed.deployment("api")
                .namespace("shop")
                .replicas(6)
                .onNodes("n0", "n2", "spare")
                .gracePeriod(1)
                .emptyDir()
                .create();
        seed.pdb("api").namespace("shop").selector("app", "api").minAvailable(4).create();
        seed.daemonSet("agent").namespace("kube-system").gracePeriod(1).create();
        seed.pod("scratch").namespace("default").onNodes("n4").gracePeriod(1).create(); // unmanaged: needs force
        // A foreign holder on n4's lease, not renewed: Tenure waits, then takes it over once it expires.
        seed.namespace(LEASE_NAMESPACE);
        seed.object(new LeaseBuilder()
                .withNewMetadata()
                .withName("node-n4")
                .withNamespace(LEASE_NAMESPACE)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("node-maintenance-operator")
                .withLeaseDurationSeconds(3)
                .withAcquireTime(ZonedDateTime.now(ZoneId.systemDefault()))
                .withRenewTime(ZonedDateTime.now(ZoneId.systemDefault()))
                .endSpec()
                .build());
    }

    static MaintenanceRequest request(String node) {
        return new MaintenanceRequest(node, "chaos", Optional.empty(), DRAIN, HandoverOptions.defaults());
    }

    private static void endWithRetries(Operator operator, String node) throws InterruptedException {
        RuntimeException last = null;
        for (int i = 0; i < 50; i++) {
            try {
                operator.machine.end(node, MaintenanceEvents.NONE);
                return;
            } catch (RuntimeException e) {
                last = e;
                Thread.sleep(50);
            }
        }
        throw new AssertionError("ending maintenance of " + node + " kept failing", last);
    }

    /**
     * Polls every PDB: healthy matching pods must never drop below the desired count. On the plain emulator, where an
     * evicted pod never comes back, the expected count is the pods that exist (the emulator's own rule) and a pod is
     * healthy while not terminating; on a living cluster they are counted as upstream: expected from the ReplicaSets'
     * replicas, healthy = Ready and not terminating, so a replacement still starting does not count.
     */
    private static Thread pdbSampler(KubernetesClient client, List<String> violations, boolean living) {
        Thread t = new Thread(
                () -> {
                    List<PodDisruptionBudget> pdbs = client.policy()
                            .v1()
                            .podDisruptionBudget()
                            .inAnyNamespace()
                            .list()
                            .getItems();
                    while (!Thread.currentThread().isInterrupted()) {
                        try {
                            List<Pod> pods =
                                    client.pods().inNamespace("shop").list().getItems();
                            List<ReplicaSet> replicaSets = living
                                    ? client.apps()
                                            .replicaSets()
                                            .inNamespace("shop")
                                            .list()
                                            .getItems()
                                    : List.of();
                            for (PodDisruptionBudget pdb : pdbs) {
                                Map<String, String> sel =
                                        pdb.getSpec().getSelector().getMatchLabels();
                                List<Pod> matching = pods.stream()
                                        .filter(p -> p.getMetadata().getLabels() != null
                                                && sel.entrySet().stream()
                                                        .allMatch(e -> e.getValue()
                                                                .equals(p.getMetadata()
                                                                        .getLabels()
                                                                        .get(e.getKey()))))
                                        .toList();
                                int expected = living ? expectedByScale(matching, replicaSets) : matching.size();
                                long healthy = matching.stream()
                                        .filter(p -> p.getMetadata().getDeletionTimestamp() == null
                                                && (!living || isReady(p)))
                                        .count();
                                int desired = pdb.getSpec().getMaxUnavailable() != null
                                        ? expected
                                                - pdb.getSpec()
                                                        .getMaxUnavailable()
                                                        .getIntVal()
                                        : pdb.getSpec().getMinAvailable().getIntVal();
                                if (healthy < desired && violations.size() < 20) {
                                    violations.add(pdb.getMetadata().getName() + ": " + healthy + " healthy < "
                                            + desired + " desired at "
                                            + java.time.Instant.now() + " "
                                            + matching.stream()
                                                    .filter(p -> p.getMetadata().getDeletionTimestamp() != null)
                                                    .map(p -> p.getMetadata().getName())
                                                    .toList());
                                }
                            }
                            Thread.sleep(20);
                        } catch (InterruptedException e) {
                            return;
                        } catch (RuntimeException e) {
                            // the checker's own request failed (server shutting down): try again
                        }
                    }
                },
                "chaos-pdb-sampler");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void assertNoTrace(KubernetesClient client, Map<String, Prior> prior, long seed) {
        List<String> traces = new ArrayList<>();
        for (var e : prior.entrySet()) {
            Node node = client.nodes().withName(e.getKey()).get();
            Prior now = Prior.of(node);
            if (!now.equals(e.getValue())) {
                traces.add(e.getKey() + ": prior state " + e.getValue() + ", now " + now);
            }
            if (node.getStatus().getConditions().stream().anyMatch(c -> NodeMarks.CONDITION_TYPE.equals(c.getType()))) {
                traces.add(e.getKey() + ": condition " + NodeMarks.CONDITION_TYPE + " left");
            }
            Map<String, String> annotations = node.getMetadata().getAnnotations();
            if (annotations != null && annotations.containsKey(NodeMarks.PRIOR_STATE)) {
                traces.add(e.getKey() + ": annotation " + NodeMarks.PRIOR_STATE + " left");
            }
        }
        for (Lease lease : client.leases().inNamespace(LEASE_NAMESPACE).list().getItems()) {
            if ("tenure".equals(lease.getSpec().getHolderIdentity())) {
                traces.add("lease " + lease.getMetadata().getName() + " still held by tenure");
            }
        }
        assertThat(traces)
                .as("traces of maintenance after every maintenance ended (seed " + seed + ")")
                .isEmpty();
    }

    static Set<String> taints(Node n) {
        Set<String> out = new TreeSet<>();
        if (n.getSpec().getTaints() != null) {
            for (Taint t : n.getSpec().getTaints()) {
                out.add(t.getKey() + "=" + (t.getValue() == null ? "" : t.getValue()) + ":" + t.getEffect());
            }
        }
        return out;
    }

    private static String abbreviate(String s) {
        return s == null || s.length() <= 90 ? s : s.substring(0, 90) + "...";
    }

    static boolean isSettled(Phase phase) {
        return phase == Phase.Succeeded || phase == Phase.Failed || phase == Phase.Ended;
    }

    static boolean allSettled(Map<String, MaintenanceState> states) {
        return states.values().stream().allMatch(s -> isSettled(s.phase()));
    }
}
