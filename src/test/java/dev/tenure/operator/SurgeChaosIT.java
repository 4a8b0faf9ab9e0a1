package dev.tenure.operator;

import static org.awaitility.Awaitility.await;

import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.Evacuation;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.drain.SurgeRecord;
import dev.tenure.maintenance.machine.MaintenanceEvents;
import dev.tenure.operator.OperatorChaosIT.Instance;
import dev.tenure.operator.OperatorChaosIT.Trial;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.Chaos;
import dev.tenure.testsupport.Conflicts;
import dev.tenure.testsupport.EmulatedCluster;
import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.RequestLog;
import dev.tenure.testsupport.RequestOrigin;
import dev.tenure.testsupport.SeededTrials;
import dev.tenure.testsupport.ShippedSurgeRole;
import dev.tenure.testsupport.SuiteCounts;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Issue 51's chaos: surge evacuation ({@code spec.drain.evacuation: Surge}) under faults, with the real operator twice
 * ({@link OperatorChaosIT}'s {@link Trial}: two instances on one operator Lease, the real reconciler, machine and
 * fenced clients) on an emulated cluster whose namespace {@value #NS} lives (its Deployments' controllers, the
 * scheduler, the kubelets' readiness, the budgets' status).
 *
 * <p>Each trial (a seed) puts 1-3 single-replica Deployments on node n1, each held by a budget that allows no eviction:
 * the first by {@code minAvailable: 1}, the others by it or by {@code maxUnavailable: 0} (which no surge frees: such a
 * Deployment is never written, and the maintenance is deleted once only its pods are left on n1), binds the opt-in role {@code tenure-operator-surge} as
 * shipped, and creates a maintenance of n1 with {@code evacuation: Surge}. At one point of one Deployment's surge,
 * drawn from the seed — the record's write arriving, the raise arriving after the record, the new pod starting after
 * the raise, the old pod evicted, the give-back's scale arriving — it does one fault, drawn from the seed: kill -9 of
 * the leading instance (its kubelet's report of the kill delivered or withheld; the standby takes over), a {@code
 * scale} of that Deployment by another client, or an HPA created for it whose stand-in writes its replicas through
 * {@code /scale} as the HPA controller does and keeps them there. A foreign write at an arrival point lands before
 * the operator's write: that write is refused with a conflict until the foreign one is stored (as the API server
 * refuses a write naming the resourceVersion it read). Then the maintenance ends (Succeeded, or Failed on its drain
 * timeout when a left surge leaves a pod to the budget; a quarter of the trials delete it right after the fault) and is
 * deleted.
 *
 * <p>Checked from the API server, per trial: every Deployment's replicas are its original 1, or the foreign value
 * when another client changed them (never less: no replica lost, none left over); no operator scale of that
 * Deployment took effect after the foreign write, none was written to a Deployment held by {@code maxUnavailable: 0} (a foreign change is never overwritten), and the HPA's stand-in never
 * had to put its replicas back; no surge record ({@value SurgeRecord#ANNOTATION}) left on a Deployment unless a
 * {@code SurgeLeft} event on the maintenance names it; n1 uncordoned and untainted, its node lease not held; no work
 * of the two instances overlaps ({@link Trial#violations()}); when the drain succeeded, n1's pods were listed by node
 * and each Deployment's pod there evicted through the Eviction API. Every request of the operator is recorded for the
 * build's least-privilege check ({@code RbacLeastPrivilegeCheck}), the opt-in role's rights included.
 *
 * <p>{@code -Dtenure.chaos.surge.trials=N} ({@link SuiteCounts#SURGE_TRIALS} in {@code make test}, {@code make chaos}:
 * {@code SURGE_CHAOS_TRIALS}), {@code -Dtenure.chaos.surge.parallel=P} at a time (4); {@code -Dtenure.chaos.seed=N}
 * replays a run's seeds, {@code -Dtenure.chaos.trial=<seed>} one trial; {@code -Dtenure.chaos.surge.point=} and
 * {@code -Dtenure.chaos.surge.fault=} fix the point or the fault.
 */
@EndToEnd
@Chaos
class SurgeChaosIT {
    static final long BASE_SEED = OperatorChaosIT.BASE_SEED;
    static final Long REPLAY_TRIAL = OperatorChaosIT.REPLAY_TRIAL;
    static final int TRIALS =
            SuiteCounts.of(SuiteCounts.SURGE_TRIALS_PROPERTY, REPLAY_TRIAL != null ? 1 : SuiteCounts.SURGE_TRIALS);
    static final int PARALLEL = Integer.getInteger("tenure.chaos.surge.parallel", 4);
    static final String ONLY_POINT = System.getProperty("tenure.chaos.surge.point", "");
    static final String ONLY_FAULT = System.getProperty("tenure.chaos.surge.fault", "");

    static final String NS = "surge";
    static final String MAINTENANCE = "m1";
    static final String NODE = "n1";
    /** A surge pod is Ready this long after it is bound (the living kubelets' readiness). */
    static final Duration READINESS = Duration.ofMillis(500);
    /**
     * The drain's timeout: a bound on a trial that goes wrong, far above a surge's own time (a few seconds, ~10 s
     * through a takeover whose report is withheld) even on the shared cores at load 20 (where a drain step takes
     * seconds: 15 s timed out before the raise). A surge the fault leaves (replicas put back to the owner's 1) leaves
     * its pod to the budget, and the drain ends on this timeout.
     */
    static final String DRAIN_TIMEOUT = "60s";

    /** How long a trial waits for its point before it strikes anyway (counted as struck after the point). */
    static final Duration POINT_WITHIN = Duration.ofSeconds(60);

    static final String HPA_AGENT = "horizontal-pod-autoscaler";

    /** Where in one Deployment's surge the fault strikes. */
    enum Point {
        /** The operator's write of the surge record arrives (before it is stored). */
        BEFORE_RECORD,
        /** The raise arrives: the record is stored, the replicas are still the owner's. */
        AFTER_RECORD,
        /** The replicas are raised, the new pod starting (a moment drawn within its readiness). */
        AFTER_SCALE,
        /** The old pod on n1 was evicted (terminating or gone), the replicas still raised. */
        AFTER_EVICTION,
        /** The give-back's scale arrives (before it is stored). */
        BEFORE_GIVE_BACK
    }

    enum Fault {
        /** kill -9 of the leading instance; the standby takes over. */
        KILL,
        /** {@code kubectl scale} of the Deployment by another client, once. */
        SCALE,
        /** An HPA created for the Deployment; its controller's stand-in sets the replicas and keeps them. */
        HPA
    }

    /** What one trial saw; {@code problems} empty when it passed. */
    record Outcome(
            long seed,
            Point point,
            Fault fault,
            String faults,
            boolean struck,
            String end,
            long millis,
            List<String> problems,
            String trace)
            implements SeededTrials.Outcome {}

    static List<Long> seeds() {
        System.out.println("SurgeChaosIT: base seed " + BASE_SEED + " (replay: -Dtenure.chaos.seed=" + BASE_SEED
                + "; one trial: -Dtenure.chaos.trial=<its seed>), " + TRIALS + " trials, " + PARALLEL + " at a time");
        return SeededTrials.seeds(BASE_SEED * 41, TRIALS, REPLAY_TRIAL);
    }

    @Test
    void noReplicaIsLostAndNoSurgeIsLeftUnsaidWhateverStrikesMidSurge() throws Exception {
        List<Long> seeds = seeds();
        SeededTrials trials = new SeededTrials("surge chaos", "chaos-surge-trial-", PARALLEL);
        SeededTrials.Ran<Outcome> ran = trials.run(seeds, SurgeChaosIT::trial, (o, done) -> {
            System.out.printf(
                    "surge chaos trial %d: %s at %s%s (%s), ended %s, %d problem(s); %d ms (%d of %d)%n",
                    o.seed(),
                    o.fault(),
                    o.point(),
                    o.struck() ? "" : " (not reached: struck at the end)",
                    o.faults(),
                    o.end(),
                    o.problems().size(),
                    o.millis(),
                    done.size(),
                    seeds.size());
            if (OperatorChaosIT.TRACE) {
                System.out.println(o.trace());
            }
        });
        List<Outcome> done = ran.outcomes();
        long[] millis = ran.sortedMillis();
        Map<String, Long> pairs = done.stream()
                .collect(Collectors.groupingBy(
                        o -> o.fault() + "@" + o.point() + (o.struck() ? "" : "(late)"),
                        java.util.TreeMap::new,
                        Collectors.counting()));
        System.out.printf(
                "surge chaos: %d trials, %d at a time, %d ms of wall time; trials %d ms median, %d ms longest;"
                        + " %d struck after their point; %s%n",
                done.size(),
                ran.parallel(),
                ran.wallMillis(),
                millis[millis.length / 2],
                millis[millis.length - 1],
                done.stream().filter(o -> !o.struck()).count(),
                pairs);
        trials.assertAllPassed(ran, seeds.size(), o -> o.fault() + " at " + o.point() + ", " + o.faults());
    }

    /** One trial; never throws: what goes wrong is one of its problems. */
    static Outcome trial(long seed) {
        long took = System.nanoTime();
        SurgeRun run = new SurgeRun();
        String trace;
        try (Trial trial = new Trial(seed)) {
            try {
                run.run(trial);
            } catch (Exception | AssertionError e) {
                run.problems.add("did not finish: " + e);
                trial.note("FAILED: " + e);
            } finally {
                run.stopAutoscaler();
            }
            try {
                run.check(trial);
            } catch (RuntimeException e) {
                run.problems.add("could not be checked: " + e);
            }
            run.problems.addAll(trial.violations());
            trace = trial.traceText();
            if (run.living != null) {
                run.living.close();
            }
        } catch (RuntimeException e) {
            run.problems.add("the trial could not be set up or closed: " + e);
            trace = "";
        }
        return new Outcome(
                seed,
                run.point,
                run.fault,
                run.faults,
                run.struck,
                run.end,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - took),
                List.copyOf(run.problems),
                trace);
    }

    /** The steps of one trial, and what they saw. */
    static final class SurgeRun {
        Point point;
        Fault fault;
        String faults = "";
        volatile boolean struck = true;
        String end = "not reached";
        final List<String> problems = new ArrayList<>();

        EmulatedCluster.Living living;
        final List<String> deployments = new ArrayList<>();
        /** Held by {@code minAvailable: 1}: a surge frees them. */
        final List<String> surgeable = new ArrayList<>();
        /** Held by {@code maxUnavailable: 0}: no surge frees them; never scaled. */
        final List<String> forbidden = new ArrayList<>();
        /** The Deployment the fault is aimed at. */
        String target;
        /** The replicas the foreign client (or the HPA) set; null: none set. */
        volatile Integer foreign;

        final CompletableFuture<Instance> reached = new CompletableFuture<>();
        final AtomicBoolean foreignStored = new AtomicBoolean();
        ScheduledExecutorService autoscaler;
        final AtomicInteger autoscalerCorrections = new AtomicInteger();
        boolean withheld;
        Duration lag = Duration.ZERO;
        Instance killed;

        void run(Trial trial) throws Exception {
            Random rnd = trial.rnd;
            point = List.of(Point.values()).get(rnd.nextInt(Point.values().length));
            fault = List.of(Fault.values()).get(rnd.nextInt(Fault.values().length));
            if (!ONLY_POINT.isEmpty()) {
                point = Point.valueOf(ONLY_POINT);
            }
            if (!ONLY_FAULT.isEmpty()) {
                fault = Fault.valueOf(ONLY_FAULT);
            }
            int count = 1 + rnd.nextInt(3);
            List<Boolean> maxUnavailableZero = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                deployments.add("app" + (i + 1));
                // the first can always surge; a maxUnavailable 0 budget refuses every eviction whatever the replicas,
                // so its Deployment is never surged (SurgePlanner: budget forbids it) and never the fault's target
                maxUnavailableZero.add(i > 0 && rnd.nextBoolean());
            }
            for (int i = 0; i < count; i++) {
                (maxUnavailableZero.get(i) ? forbidden : surgeable).add(deployments.get(i));
            }
            target = surgeable.get(rnd.nextInt(surgeable.size()));
            int value = foreignValue(rnd);
            withheld = rnd.nextInt(4) == 0;
            lag = Duration.ofMillis(rnd.nextInt(500));
            boolean deleteMidway = rnd.nextInt(4) == 0;
            long momentMillis = rnd.nextInt((int) READINESS.toMillis() + 200);
            faults = fault + " at " + point + " of " + target + (fault == Fault.KILL ? "" : " to " + value)
                    + (fault == Fault.KILL ? ", report " + (withheld ? "withheld" : lag.toMillis() + " ms late") : "")
                    + "; " + count + " Deployment(s), budgets "
                    + maxUnavailableZero.stream()
                            .map(z -> z ? "maxUnavailable 0" : "minAvailable 1")
                            .toList()
                    + (deleteMidway ? "; deleted right after the fault" : "; waited to its end");
            trial.note("seed " + trial.seed + ": " + faults);

            EmulatedCluster cluster = trial.cluster;
            KubernetesClient harness = cluster.client();
            cluster.seed().namespace(OperatorChaosIT.LEASE.namespace());
            cluster.seed().namespace(NS);
            for (String n : List.of("n1", "n2", "n3")) {
                cluster.seed().node(n).role("worker").create();
            }
            bindShippedSurgeRole(harness);
            for (int i = 0; i < count; i++) {
                String d = deployments.get(i);
                cluster.seed()
                        .deployment(d)
                        .namespace(NS)
                        .replicas(1)
                        .onNodes(NODE)
                        .terminationDelay(Duration.ofMillis(200))
                        .create();
                var pdb = cluster.seed().pdb(d).namespace(NS).selector("app", d);
                (maxUnavailableZero.get(i) ? pdb.maxUnavailable(0) : pdb.minAvailable(1)).create();
            }
            living = cluster.living(NS, READINESS);
            for (String d : deployments) {
                awaitRolledOut(harness, d);
            }
            trial.note("harness: " + count + " Deployment(s) rolled out on n1, each held by its budget");

            watchForThePoint(trial);
            trial.inPods = true;
            trial.start("a", Duration.ZERO);
            trial.start("b", Duration.ZERO);
            trial.awaitLeader(i -> true, Duration.ofSeconds(30));
            createMaintenance(trial);

            Instance at;
            try {
                at = switch (point) {
                    case BEFORE_RECORD, AFTER_RECORD, BEFORE_GIVE_BACK ->
                        reached.get(POINT_WITHIN.toSeconds(), TimeUnit.SECONDS);
                    case AFTER_SCALE -> {
                        awaitStored(trial, () -> raised(cluster) && recorded(cluster), POINT_WITHIN);
                        OperatorChaosIT.sleepMillis(momentMillis);
                        yield trial.leader().orElse(null);
                    }
                    case AFTER_EVICTION -> {
                        awaitStored(trial, () -> raised(cluster) && originalPodEvicted(cluster), POINT_WITHIN);
                        yield trial.leader().orElse(null);
                    }
                };
            } catch (java.util.concurrent.TimeoutException | ConditionTimeoutException e) {
                struck = false;
                trial.note("the point " + point + " was not reached within " + POINT_WITHIN.toSeconds()
                        + " s: the fault strikes now");
                at = trial.leader().orElse(null);
                if (fault != Fault.KILL) {
                    foreignStoredFirst(trial); // nothing of the operator's to hold back any more
                }
            }
            trial.note("at " + point + (at == null ? "" : " (leader " + at.id + ")"));
            switch (fault) {
                case KILL -> {
                    if (killed == null && at != null) {
                        kill(trial, at);
                    }
                    if (killed != null) {
                        Instance gone = killed;
                        Instance next = trial.awaitLeader(i -> i != gone, Duration.ofSeconds(40));
                        trial.note(next.id + " leads after the kill");
                    }
                }
                case SCALE -> foreignScale(trial, value);
                case HPA -> startAutoscaler(trial, value);
            }

            if (!deleteMidway) {
                try {
                    await().atMost(Duration.ofSeconds(90))
                            .pollInterval(Duration.ofMillis(50))
                            .until(() -> trial.status(MAINTENANCE)
                                            .map(s -> s.getPhase() == Phase.Succeeded || s.getPhase() == Phase.Failed)
                                            .orElse(false)
                                    || leftToItsBudget(trial)
                                    || onlyForbiddenLeft(trial));
                } catch (ConditionTimeoutException e) {
                    problems.add("the maintenance neither succeeded nor failed within 90 s: status "
                            + trial.status(MAINTENANCE).orElse(null));
                }
            }
            end = trial.status(MAINTENANCE)
                    .map(s -> String.valueOf(s.getPhase()))
                    .orElse("no status");
            trial.note("maintenance " + end + "; harness: deletes it");
            harness.resources(NodeMaintenance.class).withName(MAINTENANCE).delete();
            try {
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> harness.resources(NodeMaintenance.class)
                                        .withName(MAINTENANCE)
                                        .get()
                                == null);
                trial.note("maintenance gone");
            } catch (ConditionTimeoutException e) {
                problems.add("the maintenance was not gone within 60 s of its deletion: status "
                        + trial.status(MAINTENANCE).orElse(null));
            }
        }

        /**
         * The target's surge was left (its replicas put back to the owner's 1) with its pod still on n1: the budget
         * holds that pod until the drain's timeout, so the harness ends the maintenance now (a deletion mid-drain).
         */
        boolean leftToItsBudget(Trial trial) {
            boolean left = trial.status(MAINTENANCE)
                    .map(s -> s.getSurges() != null
                            && s.getSurges().stream().anyMatch(e -> target.equals(e.getName()) && e.getLeft() != null))
                    .orElse(false);
            if (left && Integer.valueOf(1).equals(foreign) && !originalPodEvicted(trial.cluster)) {
                trial.note("the surge of " + target + " was left with its pod on n1 to the budget: deleted now");
                return true;
            }
            return false;
        }

        /**
         * Every Deployment a surge can move is off n1 and no surge is in flight: what is left on n1 is held by
         * {@code maxUnavailable: 0} budgets until the drain's timeout, so the harness ends the maintenance now.
         */
        boolean onlyForbiddenLeft(Trial trial) {
            if (forbidden.isEmpty()) {
                return false;
            }
            boolean inFlight = trial.status(MAINTENANCE)
                    .map(s -> s.getSurges() != null && s.getSurges().stream().anyMatch(e -> e.getLeft() == null))
                    .orElse(true);
            if (inFlight || surgeable.stream().anyMatch(d -> onN1(trial.cluster, d))) {
                return false;
            }
            trial.note("only pods held by maxUnavailable 0 are left on n1: deleted now");
            return true;
        }

        /**
         * The foreign replicas: never the surge's own target (2: SurgeRecord counts replicas found at the owner's plus
         * the added as the surge's; nothing at the API server tells them apart), and before the raise never the
         * owner's 1 (a write that changes nothing). An HPA sets 3 or 4 (its minReplicas is 1).
         */
        int foreignValue(Random rnd) {
            if (fault == Fault.HPA) {
                return 3 + rnd.nextInt(2);
            }
            List<Integer> values = point == Point.BEFORE_RECORD || point == Point.AFTER_RECORD
                    ? List.of(0, 3, 4)
                    : List.of(0, 1, 3, 4);
            return values.get(rnd.nextInt(values.size()));
        }

        /**
         * The arrival points: the operator's write of the record, its raise, its give-back, to the target Deployment.
         * At the point, kill -9 refuses that very write (the process is gone); a foreign fault holds it and every
         * later operator write to the Deployment with a conflict until the foreign write is stored.
         */
        void watchForThePoint(Trial trial) {
            EmulatedCluster cluster = trial.cluster;
            trial.cluster.requests().observe(r -> {
                if (reached.isDone()
                        || !isOperatorWriteToTarget(r)
                        || !r.userAgent().startsWith(OperatorChaosIT.AGENT_PREFIX)) {
                    return;
                }
                Instance from = trial.byId(r.userAgent().substring(OperatorChaosIT.AGENT_PREFIX.length()));
                if (from == null || from.haltedAt != 0) {
                    return;
                }
                Optional<Deployment> d = cluster.stored(Deployment.class, NS, target);
                boolean hasRecord = d.flatMap(SurgeChaosIT::record).isPresent();
                int replicas = d.map(x -> x.getSpec().getReplicas()).orElse(-1);
                boolean at = switch (point) {
                    case BEFORE_RECORD -> r.is("patch", "deployments") && !hasRecord;
                    case AFTER_RECORD -> r.is("update", "deployments", "scale") && hasRecord && replicas == 1;
                    case BEFORE_GIVE_BACK -> r.is("update", "deployments", "scale") && replicas == 2;
                    default -> false;
                };
                if (!at) {
                    return;
                }
                trial.note("point " + point + ": " + r.method() + " " + r.resourceWithSubresource() + " " + r.name()
                        + " by " + from.id);
                if (fault == Fault.KILL) {
                    kill(trial, from);
                } else {
                    foreignStoredFirst(trial);
                }
                reached.complete(from);
            });
        }

        /** Refuses the operator's writes to the target with a conflict until the foreign write is stored. */
        void foreignStoredFirst(Trial trial) {
            trial.cluster
                    .faults()
                    .failNext(Integer.MAX_VALUE, r -> !foreignStored.get() && isOperatorWriteToTarget(r), 409);
        }

        boolean isOperatorWriteToTarget(ApiRequest r) {
            return RequestOrigin.of(r) == RequestOrigin.OPERATOR
                    && r.isWrite()
                    && r.resource().equals("deployments")
                    && NS.equals(r.namespace())
                    && target.equals(r.name());
        }

        synchronized void kill(Trial trial, Instance leader) {
            if (killed != null) {
                return;
            }
            killed = leader;
            trial.kill(leader, withheld, lag);
        }

        void foreignScale(Trial trial, int value) {
            Conflicts.retry(() -> trial.cluster
                    .client()
                    .apps()
                    .deployments()
                    .inNamespace(NS)
                    .withName(target)
                    .scale(value));
            foreignDone(trial, value, "harness: another client scaled " + target + " to " + value);
        }

        void foreignDone(Trial trial, int value, String note) {
            foreign = value;
            foreignStored.set(true);
            trial.note(note);
        }

        /**
         * An HPA for the target (minReplicas 1, maxReplicas 5) and the stand-in of its controller: every 200 ms it reads
         * the Deployment's replicas and writes {@code value} through {@code /scale} when they differ, as the HPA
         * controller does at each sync. Its first write is the change; a later one would put back what someone
         * (the operator) changed after it, and is counted.
         */
        void startAutoscaler(Trial trial, int value) {
            KubernetesClient hpa = trial.cluster.workloadClient();
            hpa.autoscaling()
                    .v2()
                    .horizontalPodAutoscalers()
                    .inNamespace(NS)
                    .resource(new HorizontalPodAutoscalerBuilder()
                            .withNewMetadata()
                            .withName(target)
                            .withNamespace(NS)
                            .endMetadata()
                            .withNewSpec()
                            .withNewScaleTargetRef()
                            .withApiVersion("apps/v1")
                            .withKind("Deployment")
                            .withName(target)
                            .endScaleTargetRef()
                            .withMinReplicas(1)
                            .withMaxReplicas(5)
                            .endSpec()
                            .build())
                    .create();
            setReplicas(hpa, value);
            foreignDone(
                    trial, value, "harness: HPA " + target + " created; its controller set the replicas to " + value);
            autoscaler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "chaos-surge-hpa-" + trial.seed);
                t.setDaemon(true);
                return t;
            });
            autoscaler.scheduleWithFixedDelay(
                    () -> {
                        try {
                            Deployment d = hpa.apps()
                                    .deployments()
                                    .inNamespace(NS)
                                    .withName(target)
                                    .get();
                            if (d != null && d.getSpec().getReplicas() != value) {
                                autoscalerCorrections.incrementAndGet();
                                trial.note("HPA: replicas " + d.getSpec().getReplicas() + ", put back to " + value);
                                setReplicas(hpa, value);
                            }
                        } catch (RuntimeException e) {
                            trial.note("HPA: " + e.getMessage()); // as a controller: tried again at the next sync
                        }
                    },
                    200,
                    200,
                    TimeUnit.MILLISECONDS);
        }

        void setReplicas(KubernetesClient hpa, int value) {
            Conflicts.retry(() ->
                    hpa.apps().deployments().inNamespace(NS).withName(target).scale(value));
        }

        void stopAutoscaler() {
            if (autoscaler != null) {
                autoscaler.shutdownNow();
                try {
                    autoscaler.awaitTermination(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        void createMaintenance(Trial trial) {
            NodeMaintenanceSpec spec = new NodeMaintenanceSpec(NODE, "surge chaos " + trial.seed);
            DrainSpec drain = new DrainSpec();
            drain.setEvacuation(Evacuation.Surge);
            drain.setTimeout(DRAIN_TIMEOUT);
            drain.setEvictionRetryDelay("250ms");
            spec.setDrain(drain);
            trial.cluster
                    .client()
                    .resource(new NodeMaintenance(MAINTENANCE, spec))
                    .create();
            trial.note("harness: NodeMaintenance " + MAINTENANCE + " on " + NODE + " (evacuation Surge)");
        }

        boolean raised(EmulatedCluster cluster) {
            return cluster.stored(Deployment.class, NS, target)
                    .map(d -> d.getSpec().getReplicas() == 2)
                    .orElse(false);
        }

        boolean recorded(EmulatedCluster cluster) {
            return cluster.stored(Deployment.class, NS, target)
                    .flatMap(SurgeChaosIT::record)
                    .isPresent();
        }

        /** The target's pod on n1 is terminating or gone (its first pod, the one the drain moves). */
        boolean originalPodEvicted(EmulatedCluster cluster) {
            return !onN1(cluster, target);
        }

        /** A pod of {@code deployment} on n1, not terminating. */
        static boolean onN1(EmulatedCluster cluster, String deployment) {
            return cluster.client().pods().inNamespace(NS).withLabel("app", deployment).list().getItems().stream()
                    .anyMatch(p -> NODE.equals(p.getSpec().getNodeName())
                            && p.getMetadata().getDeletionTimestamp() == null);
        }

        void awaitStored(Trial trial, java.util.concurrent.Callable<Boolean> what, Duration within) {
            await().atMost(within).pollInterval(Duration.ofMillis(10)).until(what);
        }

        /** The trial's invariants, from the API server. */
        void check(Trial trial) {
            EmulatedCluster cluster = trial.cluster;
            KubernetesClient harness = cluster.client();
            List<io.fabric8.kubernetes.api.model.Event> events =
                    harness.v1().events().inAnyNamespace().list().getItems();
            for (String name : deployments) {
                Deployment d = harness.apps()
                        .deployments()
                        .inNamespace(NS)
                        .withName(name)
                        .get();
                if (d == null) {
                    problems.add("Deployment " + name + " is gone");
                    continue;
                }
                int replicas = d.getSpec().getReplicas();
                Integer changed = name.equals(target) ? foreign : null;
                int expected = changed != null ? changed : 1;
                if (replicas != expected) {
                    problems.add("Deployment " + name + " has " + replicas + " replica(s), not "
                            + (changed != null
                                    ? "the " + changed + " another client set (the owner had 1)"
                                    : "the owner's 1"));
                }
                Optional<String> left = record(d);
                if (left.isPresent()) {
                    String shown = "Deployment " + NS + "/" + name;
                    boolean said = events.stream()
                            .anyMatch(e -> MaintenanceEvents.SURGE_LEFT.equals(e.getReason())
                                    && e.getInvolvedObject() != null
                                    && MAINTENANCE.equals(e.getInvolvedObject().getName())
                                    && e.getMessage() != null
                                    && e.getMessage().contains(shown));
                    if (!said) {
                        problems.add("the surge record " + left.get() + " is left on " + shown
                                + " with no SurgeLeft event of " + MAINTENANCE + " naming it");
                    }
                }
            }
            for (String name : forbidden) {
                List<String> scaled = cluster.requests().answers().stream()
                        .filter(a -> RequestOrigin.of(a.request()) == RequestOrigin.OPERATOR
                                && a.request().isWrite()
                                && a.request().resource().equals("deployments")
                                && name.equals(a.request().name()))
                        .map(a -> a.request() + " " + a.status())
                        .toList();
                if (!scaled.isEmpty()) {
                    problems.add(
                            "Deployment " + name + " (maxUnavailable 0: no surge frees it) was written: " + scaled);
                }
            }
            if (foreign != null) {
                // answers are logged in the order given: the first foreign write's, then any operator scale after it
                List<RequestLog.Answer> answers = cluster.requests().answers();
                int first = -1;
                for (int i = 0; i < answers.size() && first < 0; i++) {
                    RequestLog.Answer a = answers.get(i);
                    if (RequestOrigin.of(a.request()) != RequestOrigin.OPERATOR
                            && a.request().is("update", "deployments", "scale")
                            && target.equals(a.request().name())
                            && a.status() < 300) {
                        first = i;
                    }
                }
                List<String> after = first < 0
                        ? List.of()
                        : answers.subList(first + 1, answers.size()).stream()
                                .filter(a -> isOperatorWriteToTarget(a.request())
                                        && a.request().is("update", "deployments", "scale")
                                        && a.status() < 300)
                                .map(a -> a.request() + " " + a.status())
                                .toList();
                if (first < 0) {
                    problems.add("no foreign scale of " + target + " in the request log, yet one was sent");
                }
                if (!after.isEmpty()) {
                    problems.add("the operator scaled " + target + " after another client set it to " + foreign + ": "
                            + after);
                }
            }
            if (autoscalerCorrections.get() > 0) {
                problems.add("the HPA's stand-in had to put " + target + "'s replicas back "
                        + autoscalerCorrections.get() + " time(s): someone overwrote them");
            }
            Node n1 = harness.nodes().withName(NODE).get();
            if (Boolean.TRUE.equals(n1.getSpec().getUnschedulable())) {
                problems.add("node n1 is left cordoned");
            }
            if (n1.getSpec().getTaints() != null && !n1.getSpec().getTaints().isEmpty()) {
                problems.add("node n1 is left tainted: " + n1.getSpec().getTaints());
            }
            Lease lease = harness.leases()
                    .inNamespace(OperatorChaosIT.LEASE.namespace())
                    .withName("node-" + NODE)
                    .get();
            if (lease != null
                    && lease.getSpec().getHolderIdentity() != null
                    && !lease.getSpec().getHolderIdentity().isEmpty()) {
                problems.add("the node lease of n1 is left held by "
                        + lease.getSpec().getHolderIdentity());
            }
            if ("Succeeded".equals(end)) {
                if (cluster.requests()
                                .count(r -> RequestOrigin.of(r) == RequestOrigin.OPERATOR
                                        && r.is("list", "pods")
                                        && String.valueOf(r.query().get("fieldSelector"))
                                                .contains("spec.nodeName=" + NODE))
                        == 0) {
                    problems.add("the drain succeeded without listing n1's pods by node");
                }
                for (String name : surgeable) {
                    if (name.equals(target) && Integer.valueOf(0).equals(foreign)) {
                        continue; // scaled to 0 by another client: its pod went with the ReplicaSet, not evicted
                    }
                    boolean evicted = cluster.requests().answers().stream()
                            .anyMatch(a -> RequestOrigin.of(a.request()) == RequestOrigin.OPERATOR
                                    && a.request().is("create", "pods", "eviction")
                                    && NS.equals(a.request().namespace())
                                    && a.request().name().startsWith(name + "-")
                                    && a.status() < 300);
                    if (!evicted) {
                        problems.add("the drain succeeded, yet no pod of " + name + " was evicted");
                    }
                }
            }
        }
    }

    static Optional<String> record(HasMetadata d) {
        return Optional.ofNullable(d.getMetadata().getAnnotations()).map(a -> a.get(SurgeRecord.ANNOTATION));
    }

    /** The Deployment controller has written its status and the budget counts its pod healthy, none allowed. */
    static void awaitRolledOut(KubernetesClient client, String name) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    Deployment d = client.apps()
                            .deployments()
                            .inNamespace(NS)
                            .withName(name)
                            .get();
                    var pdb = client.policy()
                            .v1()
                            .podDisruptionBudget()
                            .inNamespace(NS)
                            .withName(name)
                            .get();
                    return d.getStatus() != null
                            && Integer.valueOf(1).equals(d.getStatus().getAvailableReplicas())
                            && pdb != null
                            && pdb.getStatus() != null
                            && Integer.valueOf(1).equals(pdb.getStatus().getCurrentHealthy())
                            && Integer.valueOf(0).equals(pdb.getStatus().getDisruptionsAllowed());
                });
    }

    /** The opt-in ClusterRole exactly as shipped in deploy/, bound to the operator's account as an admin would. */
    static void bindShippedSurgeRole(KubernetesClient client) {
        ShippedSurgeRole.bind(client, OperatorChaosIT.LEASE.namespace(), "tenure-operator");
    }
}
