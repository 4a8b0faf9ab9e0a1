package dev.tenure.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.WorkFence;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.NodeCache;
import dev.tenure.maintenance.MaintenanceOperatorRig;
import dev.tenure.maintenance.admission.MaintenanceLimits;
import dev.tenure.maintenance.api.DrainBehavior;
import dev.tenure.maintenance.api.DrainRule;
import dev.tenure.maintenance.api.DrainSpec;
import dev.tenure.maintenance.api.HooksSpec;
import dev.tenure.maintenance.api.MalformedFields;
import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import dev.tenure.maintenance.api.Phase;
import dev.tenure.maintenance.api.RecurringWindowSpec;
import dev.tenure.maintenance.api.ScheduleSpec;
import dev.tenure.maintenance.api.TimeoutOutcome;
import dev.tenure.maintenance.door.NodeMaintenanceReconciler;
import dev.tenure.maintenance.drain.DrainRules;
import dev.tenure.maintenance.machine.EventRecorder;
import dev.tenure.maintenance.machine.LeadershipHandover;
import dev.tenure.maintenance.machine.MaintenanceHooks;
import dev.tenure.maintenance.machine.MaintenanceMachine;
import dev.tenure.maintenance.machine.MaintenanceMetrics;
import dev.tenure.maintenance.machine.MaintenanceSettings;
import dev.tenure.maintenance.machine.NodeMarks;
import dev.tenure.testsupport.ApiRequest;
import dev.tenure.testsupport.ClusterSeed;
import dev.tenure.testsupport.EmulatedCluster;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.processing.retry.GenericRetry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The NodeMaintenance door under chaos (issue 37): the real {@link NodeMaintenanceReconciler} and machine in a JOSDK
 * {@link Operator} on the emulated cluster, with the suite's faults on the operator's requests (409/429/500, slow
 * answers) and operator restarts, driving maintenances whose specs use what a platform team writes: drain rules (waves
 * by order, Skip by namespace, WaitCompleted by pod selector), the pod label {@code tenure.dev/drain} in any case, a
 * pre-drain hook whose owner holds then releases it, pre-drain hooks nobody releases with each {@code onTimeout}
 * (Fail, Restore, Proceed), a second NodeMaintenance joining one, {@code max-nodes-in-maintenance} above 1 with more
 * requests than it, and recurring windows (one open now, one closed now) in a drawn time zone.
 *
 * <p>The oracle is the spec, written down before the run ({@link Role}: what each pod is to its node's drain), and
 * every eviction is judged as it reaches the API server (before it is served). Checked per maintenance, at the end its
 * spec states: {@code Succeeded} with every Drain pod of its node evicted and gone and every Skip, WaitCompleted,
 * DaemonSet and mirror pod still there and never evicted, pods listed by the node's field selector; no pod of a later
 * wave evicted while a pod of an earlier wave (a running WaitCompleted pod included) is still on the node; no eviction
 * before a pre-drain hook is released; a hook timeout with {@code Fail} ends {@code Failed} with the node cordoned, the
 * lease held and nothing evicted; with {@code Restore} {@code Ended} with the node as it was and the lease released;
 * with {@code Proceed} {@code Succeeded}; a joiner ends with its owner's phase and the node stays cordoned while either
 * remains; a closed window keeps its maintenance {@code Scheduled} with the node never touched; never more nodes
 * unavailable than the cap (sampled); after each deletion the node exactly as it was and no lease held by Tenure.
 */
final class DoorChaos {
    static final String AGENT = "chaos-door-operator";
    static final String LEASES = "tenure-system";
    static final String HOLDER = "tenure";
    /** A bound only: a run takes 20-60 s, the longer on the loaded shared cores. */
    static final Duration CONVERGE_WITHIN = Duration.ofSeconds(150);

    static final MaintenanceSettings SETTINGS = new MaintenanceSettings(
            LEASES,
            "node-",
            HOLDER,
            Duration.ofSeconds(8),
            Duration.ofSeconds(30),
            Duration.ofSeconds(1),
            4,
            Duration.ofMillis(100),
            Duration.ofSeconds(1));
    /** The backstop look of a held request; the queue is woken by events. */
    static final Duration QUEUE_LOOK = Duration.ofSeconds(5);

    static final List<String> NODES = List.of("d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
    static final List<String> ZONES =
            List.of("UTC", "Europe/Berlin", "Asia/Kolkata", "America/New_York", "Australia/Lord_Howe");
    static final List<String> DAYS = List.of("mon", "tue", "wed", "thu", "fri", "sat", "sun");
    static final String RELEASING_OWNER = "storage";
    static final String ABSENT_OWNER = "gone";
    static final DateTimeFormatter HH_MM = DateTimeFormatter.ofPattern("HH:mm");

    /** What a maintenance's spec asks for, and so the end it must reach. */
    enum Kind {
        /** Drain rules and pod labels: Succeeded. */
        RULES,
        /** A pre-drain hook its owner releases: Succeeded, nothing evicted before the release. */
        HOOK_RELEASED,
        /** A pre-drain hook nobody releases, with an onTimeout: Failed, Ended or Succeeded. */
        HOOK_TIMEOUT,
        /** Nothing special, one more request for the queue: Succeeded. */
        PLAIN,
        /** A recurring window open now: Succeeded, its window's close recorded. */
        WINDOW_OPEN,
        /** A recurring window closed now: Scheduled for the whole run, its node never touched. */
        WINDOW_CLOSED,
        /** spec.join on another's node: the owner's phase; the node stays until the last one ends. */
        JOINER
    }

    /** What a pod is to its node's drain, as the spec and the pod's own label say. */
    enum Role {
        DRAIN,
        SKIP,
        WAIT,
        DAEMON,
        MIRROR
    }

    record PodRole(String node, Role role, int wave) {}

    enum Stage {
        NOT_CREATED,
        ACTIVE,
        ENDED,
        DELETING,
        GONE
    }

    /** One NodeMaintenance of the run and where the driver is with it. */
    static final class M {
        final String name;
        final String node;
        final Kind kind;
        final NodeMaintenanceSpec spec;
        final Map<String, String> annotations;
        final TimeoutOutcome onTimeout;
        M owner;
        M joiner;
        boolean ownerDeletedFirst;
        long delayNanos;
        Stage stage = Stage.ACTIVE;
        Phase endPhase;
        long markNanos;
        long deletedAt;

        M(
                String name,
                String node,
                Kind kind,
                NodeMaintenanceSpec spec,
                Map<String, String> annotations,
                TimeoutOutcome onTimeout) {
            this.name = name;
            this.node = node;
            this.kind = kind;
            this.spec = spec;
            this.annotations = annotations;
            this.onTimeout = onTimeout;
        }

        Phase expected() {
            if (kind == Kind.HOOK_TIMEOUT) {
                return switch (onTimeout) {
                    case Fail -> Phase.Failed;
                    case Restore -> Phase.Ended;
                    case Proceed -> Phase.Succeeded;
                };
            }
            return kind == Kind.JOINER ? owner.endPhase : Phase.Succeeded;
        }

        /** Whether the spec lets this maintenance evict anything. */
        boolean drains() {
            return kind != Kind.WINDOW_CLOSED && (kind != Kind.HOOK_TIMEOUT || onTimeout == TimeoutOutcome.Proceed);
        }

        @Override
        public String toString() {
            return name + " (" + kind + (onTimeout == null ? "" : " onTimeout " + onTimeout) + " on " + node + ")";
        }
    }

    /** The operator process: machine, reconciler and JOSDK operator; a restart is close and a new one. */
    static final class DoorOperator implements AutoCloseable {
        private final MaintenanceMachine machine;
        private final Operator operator;
        private final ExecutorService evictions = Executors.newFixedThreadPool(SETTINGS.evictionParallelism());
        private final ExecutorScheduler heartbeats = new ExecutorScheduler("chaos-door-heartbeats");

        DoorOperator(KubernetesClient work, MaintenanceLimits limits) {
            Clock clock = Clock.systemUTC();
            MaintenanceMetrics metrics = new MaintenanceMetrics(new SimpleMeterRegistry());
            machine = new MaintenanceMachine(
                    work,
                    new KubeLeaseStore(work),
                    (node, started, now) -> LeadershipHandover.Outcome.complete("no leader-elected workloads"),
                    metrics,
                    SETTINGS,
                    evictions,
                    heartbeats,
                    clock);
            NodeMaintenanceReconciler reconciler = new NodeMaintenanceReconciler(
                    machine,
                    work,
                    new EventRecorder(work, clock),
                    metrics,
                    limits,
                    Map::of,
                    new NodeCache(work),
                    WorkFence.alwaysOpen(),
                    clock,
                    QUEUE_LOOK);
            operator = new Operator(o -> o.withKubernetesClient(work)
                    .withCloseClientOnStop(false)
                    .withUseSSAToPatchPrimaryResource(false)
                    .withStopOnInformerErrorDuringStartup(false));
            // JOSDK's backoff (2 s, x1.5) scaled down with the rest of the run's times; never given up.
            operator.register(
                    reconciler,
                    c -> c.withRetry(new GenericRetry()
                            .setInitialInterval(200)
                            .setIntervalMultiplier(1.5)
                            .setMaxInterval(2000)
                            .withoutMaxAttempts()));
            operator.start();
        }

        @Override
        public void close() {
            operator.stop();
            machine.close();
            evictions.shutdownNow();
            heartbeats.close();
        }
    }

    private final long seed;
    private final Random rnd;
    private final EmulatedCluster cluster;
    private final KubernetesClient checker;
    private final int cap;
    private final List<M> plan = new ArrayList<>();
    private final Map<String, M> ownerOf = new HashMap<>();
    private final Map<String, PodRole> roles = new ConcurrentHashMap<>();
    private final Set<String> evicted = ConcurrentHashMap.newKeySet();
    private final Set<String> hookReleased = ConcurrentHashMap.newKeySet();
    private final List<String> problems = new CopyOnWriteArrayList<>();
    private final Map<String, MaintenanceChaosTest.Prior> prior = new LinkedHashMap<>();
    private final List<Long> restartsAt = new ArrayList<>();
    private final String zone;
    private int restarts;
    /** The operator process running now (replaced at each restart). */
    private volatile DoorOperator operator;

    private int maxUnavailableSeen;
    private boolean queueSeen;
    private long waveZeroGoneAt;
    private boolean waitPodsCompleted;
    private long startedAt;

    private DoorChaos(long seed, EmulatedCluster cluster) {
        this.seed = seed;
        this.rnd = new Random(mixed(seed));
        this.cluster = cluster;
        this.checker = cluster.client();
        this.cap = 2 + rnd.nextInt(2);
        this.zone = ZONES.get(rnd.nextInt(ZONES.size()));
    }

    /**
     * The seed mixed (SplitMix64's finalizer) before it seeds the draws: {@link Random}'s first draws of neighbouring
     * seeds (make chaos runs base, base + 1, …) are alike, and every run drew the same cap and time zone.
     */
    static long mixed(long seed) {
        long z = seed + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static void run(long seed) {
        System.out.println(
                "door chaos: seed " + seed + " (replay: -Dtenure.chaos.seed=" + seed + " -Dtenure.chaos.runs=1)");
        EmulatedCluster.Options options = EmulatedCluster.Options.forTests()
                .nodeLeaseDurationSeconds(2)
                .terminationDelay(p -> Duration.ofMillis(400));
        try (EmulatedCluster cluster = EmulatedCluster.start(options)) {
            new DoorChaos(seed, cluster).run();
        }
    }

    private void run() {
        MaintenanceOperatorRig.installCrd(checker);
        seedCluster();
        for (String n : NODES) {
            prior.put(
                    n, MaintenanceChaosTest.Prior.of(checker.nodes().withName(n).get()));
        }
        planMaintenances();
        cluster.requests().observe(this::judge);
        ChaosFaults faults = ChaosFaults.install(
                cluster.faults(),
                seed ^ 0x5DEECE66DL,
                r -> r.userAgent().equals(AGENT)
                        && r.isResourceRequest()
                        && !"watch".equals(r.verb())
                        && !("list".equals(r.verb()) && "nodemaintenances".equals(r.resource())));
        // one or two restarts, a few seconds apart, while the maintenances are under way
        long at = Duration.ofMillis(2000 + rnd.nextInt(4000)).toNanos();
        restartsAt.add(at);
        if (rnd.nextBoolean()) {
            restartsAt.add(at + Duration.ofMillis(3000 + rnd.nextInt(4000)).toNanos());
        }
        ObjectMapper mapper = new ObjectMapper();
        mapper.registerModule(new MalformedFields());
        String timedOut = null;
        try (KubernetesClient work = EmulatedCluster.clientBuilder()
                .withConfig(new ConfigBuilder(cluster.clientConfig())
                        .withUserAgent(AGENT)
                        .build())
                .withKubernetesSerialization(new KubernetesSerialization(mapper, true))
                .build()) {
            MaintenanceLimits limits = new MaintenanceLimits(OptionalInt.of(cap), OptionalInt.empty());
            operator = new DoorOperator(work, limits);
            try {
                startedAt = System.nanoTime();
                List<M> creation = new ArrayList<>(
                        plan.stream().filter(m -> m.kind != Kind.JOINER).toList());
                Collections.shuffle(creation, rnd);
                creation.forEach(this::create);
                try {
                    await().atMost(CONVERGE_WITHIN)
                            .pollDelay(Duration.ZERO)
                            .pollInterval(Duration.ofMillis(50))
                            .until(() -> {
                                maybeRestart(work, limits);
                                return round();
                            });
                } catch (ConditionTimeoutException e) {
                    timedOut = plan.stream()
                            .filter(m -> m.stage != Stage.GONE)
                            .map(m -> m + ": " + m.stage + ", " + describe(get(m.name)))
                            .collect(Collectors.joining("; "));
                }
            } finally {
                operator.close();
                cluster.faults().clear();
            }
        }
        String ends = plan.stream()
                .map(m -> m.name + "=" + m.endPhase + (m.kind == Kind.WINDOW_CLOSED ? "(Scheduled)" : ""))
                .collect(Collectors.joining(" "));
        System.out.printf(
                "door chaos seed %d: cap %d, zone %s, %s; %d restarts, max %d node(s) unavailable at once, "
                        + "queue seen %s, %d evictions, %d faults injected %s%n",
                seed, cap, zone, ends, restarts, maxUnavailableSeen, queueSeen, evicted.size(), faults.total(), faults);
        assertThat(timedOut)
                .as("maintenances that did not reach their end and go within " + CONVERGE_WITHIN + " (seed " + seed
                        + "); problems so far: " + problems)
                .isNull();
        assertThat(problems)
                .as("maintenances that did not end as their spec says (seed " + seed + ")")
                .isEmpty();
        assertThat(faults.total()).as("faults were injected").isPositive();
        assertThat(queueSeen)
                .as("a request was held in the queue with a place (cap " + cap + ", seed " + seed + ")")
                .isTrue();
        assertThat(maxUnavailableSeen)
                .as("the cap above 1 was used: nodes in maintenance at once (seed " + seed + ")")
                .isGreaterThan(1);
    }

    // ------------------------------------------------------------------ the cluster and the plan

    private void seedCluster() {
        ClusterSeed seed = cluster.seed();
        for (String n : NODES) {
            var node = seed.node(n).role("worker");
            if (n.equals("d7")) {
                node.taint("example.com/dedicated", "db", "NoSchedule"); // an admin's taint, which must stay
            }
            node.create();
        }
        seed.node("spare").role("worker").create();
        for (String n : NODES) {
            seed.deployment("web-" + n)
                    .namespace("shop")
                    .replicas(3)
                    .onNodes(n)
                    .gracePeriod(1)
                    .create();
            seed.pdb("web-" + n)
                    .namespace("shop")
                    .selector("app", "web-" + n)
                    .maxUnavailable(1)
                    .create();
            seed.mirrorPod("static-" + n).namespace("kube-system").onNodes(n).create();
        }
        seed.daemonSet("agent").namespace("kube-system").gracePeriod(1).create();
        // d0's extra pods, for its rules and labels
        seed.deployment("front").namespace("shop").onNodes("d0").gracePeriod(1).create();
        seed.deployment("api")
                .namespace("shop")
                .replicas(2)
                .onNodes("d0")
                .gracePeriod(1)
                .annotation(DrainRules.ORDER_ANNOTATION, "-100") // ignored: a pod does not reorder the drain
                .create();
        seed.deployment("batch").namespace("shop").onNodes("d0").create();
        seed.deployment("cache")
                .namespace("shop")
                .onNodes("d0")
                .label(DrainRules.SKIP_LABEL, anyCase(DrainRules.SKIP_VALUE))
                .create();
        seed.deployment("job")
                .namespace("shop")
                .onNodes("d0")
                .label(DrainRules.SKIP_LABEL, anyCase(DrainRules.WAIT_VALUE))
                .create();
        seed.object(new NamespaceBuilder()
                .withMetadata(new ObjectMetaBuilder()
                        .withName("team-x")
                        .addToLabels("team", "x")
                        .build())
                .withNewStatus()
                .withPhase("Active")
                .endStatus()
                .build());
        seed.deployment("tool").namespace("team-x").onNodes("d0").create();
        seed.pod("scratch").namespace("default").onNodes("d0").gracePeriod(1).create(); // unmanaged: force
        seed.namespace(LEASES);

        for (Pod p : checker.pods().inAnyNamespace().list().getItems()) {
            String node = p.getSpec().getNodeName();
            if (!NODES.contains(node)) {
                continue;
            }
            String key = key(p);
            boolean daemon = p.getMetadata().getOwnerReferences() != null
                    && p.getMetadata().getOwnerReferences().stream().anyMatch(o -> "DaemonSet".equals(o.getKind()));
            boolean mirror = p.getMetadata().getAnnotations() != null
                    && p.getMetadata().getAnnotations().containsKey(ClusterSeed.MIRROR_ANNOTATION);
            String app = p.getMetadata().getLabels() == null
                    ? ""
                    : p.getMetadata().getLabels().getOrDefault("app", "");
            PodRole role;
            if (daemon) {
                role = new PodRole(node, Role.DAEMON, 0);
            } else if (mirror) {
                role = new PodRole(node, Role.MIRROR, 0);
            } else {
                role = switch (app) {
                    case "front" -> new PodRole(node, Role.DRAIN, -3);
                    case "api" -> new PodRole(node, Role.DRAIN, 5);
                    case "batch", "job" -> new PodRole(node, Role.WAIT, 0);
                    case "cache", "tool" -> new PodRole(node, Role.SKIP, 0);
                    default -> new PodRole(node, Role.DRAIN, 0);
                };
            }
            roles.put(key, role);
        }
        assertThat(roles.values().stream().filter(r -> r.node().equals("d0")).map(PodRole::role))
                .as("d0 carries every kind of pod")
                .contains(Role.DRAIN, Role.SKIP, Role.WAIT, Role.DAEMON, Role.MIRROR);
    }

    private String anyCase(String value) {
        return switch (rnd.nextInt(3)) {
            case 0 -> value;
            case 1 -> value.toUpperCase(java.util.Locale.ROOT);
            default -> Character.toUpperCase(value.charAt(0)) + value.substring(1);
        };
    }

    private static LabelSelector labels(String key, String value) {
        return new LabelSelectorBuilder().addToMatchLabels(key, value).build();
    }

    private NodeMaintenanceSpec spec(String node) {
        NodeMaintenanceSpec spec = new NodeMaintenanceSpec(node, "chaos " + node);
        DrainSpec drain = new DrainSpec();
        drain.setEvictionRetryDelay("300ms");
        drain.setTimeout("60s");
        spec.setDrain(drain);
        spec.setPriority(rnd.nextInt(3) - 1);
        return spec;
    }

    private void planMaintenances() {
        // d0: rules (shuffled; they select disjoint pods) and the pods' own labels
        NodeMaintenanceSpec rules = spec("d0");
        List<DrainRule> ruleList = new ArrayList<>(List.of(
                new DrainRule(null, labels("app", "front"), DrainBehavior.Drain, -3),
                new DrainRule(null, labels("app", "api"), DrainBehavior.Drain, 5),
                new DrainRule(null, labels("app", "batch"), DrainBehavior.WaitCompleted, null),
                new DrainRule(labels("team", "x"), null, DrainBehavior.Skip, null)));
        Collections.shuffle(ruleList, rnd);
        rules.getDrain().setRules(ruleList);
        add(new M("rules-d0", "d0", Kind.RULES, rules, Map.of(), null));
        add(new M(
                "hook-d1",
                "d1",
                Kind.HOOK_RELEASED,
                spec("d1"),
                Map.of(MaintenanceHooks.PRE_DRAIN_PREFIX + RELEASING_OWNER, "set noout first"),
                null));
        List<TimeoutOutcome> outcomes = new ArrayList<>(List.of(TimeoutOutcome.values()));
        Collections.shuffle(outcomes, rnd);
        for (int i = 0; i < outcomes.size(); i++) {
            String node = "d" + (2 + i);
            NodeMaintenanceSpec s = spec(node);
            HooksSpec hooks = new HooksSpec();
            hooks.setTimeout((1 + rnd.nextInt(3)) + "s");
            hooks.setOnTimeout(outcomes.get(i));
            s.setHooks(hooks);
            add(new M(
                    "timeout-" + outcomes.get(i).name().toLowerCase(java.util.Locale.ROOT) + "-" + node,
                    node,
                    Kind.HOOK_TIMEOUT,
                    s,
                    Map.of(MaintenanceHooks.PRE_DRAIN_PREFIX + ABSENT_OWNER, "never removed"),
                    outcomes.get(i)));
        }
        ZonedDateTime local = ZonedDateTime.now(ZoneId.of(zone));
        NodeMaintenanceSpec open = spec("d5");
        open.setSchedule(window(local.minusHours(3), local.plusHours(3)));
        add(new M("open-window-d5", "d5", Kind.WINDOW_OPEN, open, Map.of(), null));
        NodeMaintenanceSpec closed = spec("d6");
        closed.setSchedule(window(local.plusHours(3), local.plusHours(4)));
        add(new M("closed-window-d6", "d6", Kind.WINDOW_CLOSED, closed, Map.of(), null));
        add(new M("plain-d7", "d7", Kind.PLAIN, spec("d7"), Map.of(), null));

        List<M> owners = plan.stream()
                .filter(m -> m.kind == Kind.RULES
                        || m.kind == Kind.HOOK_RELEASED
                        || m.kind == Kind.PLAIN
                        || m.kind == Kind.WINDOW_OPEN)
                .toList();
        M owner = owners.get(rnd.nextInt(owners.size()));
        NodeMaintenanceSpec same = checker.getKubernetesSerialization()
                .unmarshal(checker.getKubernetesSerialization().asJson(owner.spec), NodeMaintenanceSpec.class);
        same.setJoin(true);
        same.setReason("joined " + owner.name);
        same.setPriority(rnd.nextInt(3) - 1);
        M joiner = new M("joiner-" + owner.node, owner.node, Kind.JOINER, same, Map.of(), null);
        joiner.owner = owner;
        joiner.stage = Stage.NOT_CREATED;
        joiner.delayNanos = Duration.ofMillis(rnd.nextInt(800)).toNanos();
        owner.joiner = joiner;
        owner.ownerDeletedFirst = rnd.nextBoolean();
        plan.add(joiner);
        System.out.println("door chaos plan: cap " + cap + ", zone " + zone + ", " + plan + ", "
                + (owner.ownerDeletedFirst ? "owner" : "joiner") + " deleted first");
    }

    private void add(M m) {
        plan.add(m);
        ownerOf.put(m.node, m);
    }

    private ScheduleSpec window(ZonedDateTime start, ZonedDateTime end) {
        RecurringWindowSpec w = new RecurringWindowSpec();
        w.setDays(DAYS);
        w.setStart(start.format(HH_MM));
        w.setEnd(end.format(HH_MM));
        w.setTimeZone(zone);
        ScheduleSpec s = new ScheduleSpec();
        s.setWindow(w);
        return s;
    }

    private void create(M m) {
        NodeMaintenance nm = new NodeMaintenance(m.name, m.spec);
        if (!m.annotations.isEmpty()) {
            nm.getMetadata().setAnnotations(new HashMap<>(m.annotations));
        }
        checker.resource(nm).create();
        m.stage = Stage.ACTIVE;
    }

    // ------------------------------------------------------------------ the witness of every eviction

    /** Judges each eviction or pod delete as it reaches the API server, before it is served. */
    private void judge(ApiRequest r) {
        try {
            judgeEviction(r);
        } catch (RuntimeException e) {
            problem("the witness failed on " + r + ": " + e);
        }
    }

    private void judgeEviction(ApiRequest r) {
        boolean eviction = r.is("create", "pods", "eviction");
        if ((!eviction && !r.is("delete", "pods")) || !AGENT.equals(r.userAgent())) {
            return;
        }
        String key = r.namespace() + "/" + r.name();
        String what = (eviction ? "eviction" : "delete") + " of " + key + " by " + r.userAgent();
        PodRole role = roles.get(key);
        if (role == null) {
            problem(what + ": a pod of no maintained node");
            return;
        }
        evicted.add(key);
        M m = ownerOf.get(role.node());
        if (role.role() != Role.DRAIN) {
            problem(what + ": a " + role.role() + " pod of " + role.node() + ", never to be evicted");
        }
        if (!m.drains()) {
            problem(what + ": the spec of " + m + " evicts nothing");
        }
        if (m.kind == Kind.HOOK_RELEASED && !hookReleased.contains(m.node)) {
            problem(what + ": before the pre-drain hook " + RELEASING_OWNER + " of " + m.name + " was released");
        }
        if (role.role() == Role.DRAIN) {
            roles.forEach((other, theirs) -> {
                if (!theirs.node().equals(role.node()) || theirs.wave() >= role.wave()) {
                    return;
                }
                Optional<Pod> stored = stored(other);
                boolean holds = theirs.role() == Role.DRAIN
                        ? stored.isPresent()
                        : theirs.role() == Role.WAIT && stored.isPresent() && running(stored.get());
                if (holds) {
                    problem(what + " (wave " + role.wave() + ") while " + other + " (" + theirs.role() + ", wave "
                            + theirs.wave() + ") is still on the node");
                }
            });
        }
    }

    private Optional<Pod> stored(String key) {
        int slash = key.indexOf('/');
        return cluster.stored(Pod.class, key.substring(0, slash), key.substring(slash + 1));
    }

    private static boolean running(Pod p) {
        String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
        return !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    private void problem(String p) {
        if (problems.size() < 40) {
            problems.add(p);
        }
    }

    // ------------------------------------------------------------------ the driver

    private void maybeRestart(KubernetesClient work, MaintenanceLimits limits) {
        if (!restartsAt.isEmpty() && System.nanoTime() - startedAt >= restartsAt.get(0)) {
            restartsAt.remove(0);
            operator.close();
            restarts++;
            operator = new DoorOperator(work, limits);
        }
    }

    /** One look at the cluster: sample the invariants, move each maintenance on. True once all are done. */
    private boolean round() {
        long now = System.nanoTime();
        Map<String, Node> nodes = checker.nodes().list().getItems().stream()
                .collect(Collectors.toMap(n -> n.getMetadata().getName(), Function.identity()));
        Map<String, NodeMaintenance> nms = checker.resources(NodeMaintenance.class).list().getItems().stream()
                .collect(Collectors.toMap(nm -> nm.getMetadata().getName(), Function.identity()));
        Map<String, Lease> leases = checker.leases().inNamespace(LEASES).list().getItems().stream()
                .collect(Collectors.toMap(l -> l.getMetadata().getName(), Function.identity()));
        sample(nodes, nms, leases);
        completeWaitCompletedPods(nms, now);
        for (M m : plan) {
            advance(m, nms, nodes, leases, now);
        }
        return !problems.isEmpty() || plan.stream().allMatch(m -> m.stage == Stage.GONE);
    }

    private void sample(Map<String, Node> nodes, Map<String, NodeMaintenance> nms, Map<String, Lease> leases) {
        long unavailable = NODES.stream()
                .map(nodes::get)
                .filter(n -> unschedulable(n) || tainted(n))
                .count();
        maxUnavailableSeen = (int) Math.max(maxUnavailableSeen, unavailable);
        if (unavailable > cap) {
            problem(unavailable + " nodes unavailable at once, over max-nodes-in-maintenance=" + cap + ": "
                    + NODES.stream()
                            .filter(n -> unschedulable(nodes.get(n)) || tainted(nodes.get(n)))
                            .toList());
        }
        for (NodeMaintenance nm : nms.values()) {
            if (nm.getStatus() != null && nm.getStatus().getQueuePosition() != null) {
                queueSeen = true;
            }
        }
        for (M m : plan) {
            if (m.kind == Kind.WINDOW_CLOSED) {
                Node n = nodes.get(m.node);
                if (unschedulable(n) || tainted(n) || heldByUs(leases.get("node-" + m.node))) {
                    problem(m + ": its node touched while its window is closed: " + MaintenanceChaosTest.Prior.of(n)
                            + ", lease " + holder(leases.get("node-" + m.node)));
                }
                Phase phase = phase(nms.get(m.name));
                if (phase != null && phase != Phase.Scheduled) {
                    problem(m + ": phase " + phase + " while its window is closed");
                }
            }
            // A joined pair, one of them deleted, the other not yet: the node stays in maintenance.
            if (m.joiner != null && joinedWaitOpen(m)) {
                Node n = nodes.get(m.node);
                if (!unschedulable(n) || !tainted(n)) {
                    problem(m + ": node " + m.node + " restored while a request that joined it remains");
                }
            }
        }
    }

    /** One of the pair deleted, the other not yet asked to go. */
    private static boolean joinedWaitOpen(M owner) {
        M joiner = owner.joiner;
        return owner.ownerDeletedFirst
                ? owner.stage == Stage.DELETING && joiner.stage == Stage.ENDED
                : joiner.stage.compareTo(Stage.DELETING) >= 0 && owner.stage == Stage.ENDED;
    }

    /**
     * The WaitCompleted pods of d0 complete a while after every Drain pod of wave 0 and before is gone: long enough
     * that a drain which does not wait for them would evict the later wave first (the witness sees it).
     */
    private void completeWaitCompletedPods(Map<String, NodeMaintenance> nms, long now) {
        if (waitPodsCompleted || phase(nms.get("rules-d0")) != Phase.Running) {
            return;
        }
        boolean waveZeroGone = roles.entrySet().stream()
                .filter(e -> e.getValue().node().equals("d0")
                        && e.getValue().role() == Role.DRAIN
                        && e.getValue().wave() <= 0)
                .allMatch(e -> stored(e.getKey()).isEmpty());
        if (!waveZeroGone) {
            return;
        }
        if (waveZeroGoneAt == 0) {
            waveZeroGoneAt = now;
            return;
        }
        if (now - waveZeroGoneAt < Duration.ofMillis(1000).toNanos()) {
            return;
        }
        boolean all = true;
        for (var e : roles.entrySet()) {
            if (e.getValue().role() != Role.WAIT) {
                continue;
            }
            Pod p = stored(e.getKey()).orElse(null);
            if (p == null || !running(p)) {
                continue;
            }
            all = false;
            p.getStatus().setPhase("Succeeded");
            try {
                checker.pods()
                        .inNamespace(p.getMetadata().getNamespace())
                        .resource(p)
                        .updateStatus();
            } catch (KubernetesClientException conflict) {
                // the kubelet wrote the pod meanwhile: again at the next round
            }
        }
        waitPodsCompleted = all;
    }

    private void advance(
            M m, Map<String, NodeMaintenance> nms, Map<String, Node> nodes, Map<String, Lease> leases, long now) {
        NodeMaintenance nm = nms.get(m.name);
        switch (m.stage) {
            case NOT_CREATED -> {
                // joins once its owner has started, a drawn while later
                Phase ownerPhase = phase(nms.get(m.owner.name));
                if (m.markNanos == 0 && (ownerPhase == Phase.Running || ownerPhase == Phase.Succeeded)) {
                    m.markNanos = now;
                }
                if (m.markNanos != 0 && now - m.markNanos >= m.delayNanos) {
                    create(m);
                }
            }
            case ACTIVE -> active(m, nm, nodes, leases, now);
            case ENDED -> ended(m, nodes, leases, now);
            case DELETING -> {
                if (nm == null) {
                    gone(m);
                }
            }
            case GONE -> {}
        }
    }

    private void active(M m, NodeMaintenance nm, Map<String, Node> nodes, Map<String, Lease> leases, long now) {
        if (nm == null) {
            problem(m + ": gone before it was deleted");
            m.stage = Stage.GONE;
            return;
        }
        NodeMaintenanceStatus status = nm.getStatus();
        Phase phase = phase(nm);
        if (m.kind == Kind.HOOK_RELEASED) {
            releaseWhenWaitedFor(m, status, now);
        }
        if (m.kind == Kind.WINDOW_CLOSED) {
            if (plan.stream().allMatch(o -> o == m || o.stage == Stage.GONE)) {
                checkStillScheduled(m, nm, nodes.get(m.node), leases);
                m.endPhase = phase;
                delete(m);
            }
            return;
        }
        if (phase != Phase.Succeeded && phase != Phase.Failed && phase != Phase.Ended) {
            return;
        }
        if (m.kind == Kind.JOINER) {
            if (m.owner.stage == Stage.ACTIVE || m.owner.endPhase != phase) {
                return; // its phase follows the owner's: wait until the owner has ended and it shows that end
            }
            if (!m.owner.name.equals(status.getJoinedTo())) {
                problem(m + ": status.joinedTo " + status.getJoinedTo() + ", not its owner " + m.owner.name);
            }
            m.endPhase = phase;
            m.stage = Stage.ENDED;
            return;
        }
        m.endPhase = phase;
        m.stage = Stage.ENDED;
        if (phase != m.expected()) {
            problem(m + ": ended " + phase + ", its spec says " + m.expected() + " (lastError: " + status.getLastError()
                    + ")");
            return;
        }
        // read again: this round's node was read before the phase, and an end that restores does so first
        checkEnd(m, status, checker.nodes().withName(m.node).get(), lease(m.node));
    }

    private void releaseWhenWaitedFor(M m, NodeMaintenanceStatus status, long now) {
        boolean waiting = status != null
                && status.getHooks() != null
                && status.getHooks().getWaitingFor() != null
                && status.getHooks().getWaitingFor().contains(RELEASING_OWNER);
        if (m.markNanos == Long.MAX_VALUE) {
            return;
        }
        if (m.markNanos == 0) {
            if (waiting) {
                m.markNanos = now;
                m.delayNanos = Duration.ofMillis(200 + rnd.nextInt(800)).toNanos();
            }
            return;
        }
        if (now - m.markNanos < m.delayNanos) {
            return;
        }
        hookReleased.add(m.node); // before the release reaches the API server: an eviction may follow at once
        checker.resources(NodeMaintenance.class)
                .withName(m.name)
                .patch(
                        PatchContext.of(PatchType.JSON),
                        "[{\"op\":\"remove\",\"path\":\"/metadata/annotations/"
                                + (MaintenanceHooks.PRE_DRAIN_PREFIX + RELEASING_OWNER).replace("/", "~1") + "\"}]");
        m.markNanos = Long.MAX_VALUE; // released
    }

    private void ended(M m, Map<String, Node> nodes, Map<String, Lease> leases, long now) {
        if (m.kind == Kind.JOINER) {
            if (!m.owner.ownerDeletedFirst && m.owner.stage == Stage.ENDED) {
                delete(m);
            } else if (m.owner.ownerDeletedFirst && m.owner.stage == Stage.DELETING) {
                // the owner was deleted and waits for this joiner: it must say so, and hold the node
                NodeMaintenance owner = get(m.owner.name);
                String lastError = owner == null ? null : owner.getStatus().getLastError();
                boolean says = lastError != null && lastError.contains("stays in maintenance until");
                if (says || now - m.owner.deletedAt > Duration.ofSeconds(5).toNanos()) {
                    if (owner == null) {
                        problem(m.owner + ": gone while " + m.name + ", which joined it, remains");
                    } else if (!says) {
                        problem(m.owner + ": deleted with " + m.name + " joined, but lastError does not say it"
                                + " waits for it: " + lastError);
                    }
                    Node n = nodes.get(m.node);
                    if (!unschedulable(n) || !heldByUs(leases.get("node-" + m.node))) {
                        problem(m.owner + ": deleted with " + m.name + " joined, node " + m.node
                                + " no longer in maintenance: " + MaintenanceChaosTest.Prior.of(n) + ", lease "
                                + holder(leases.get("node-" + m.node)));
                    }
                    delete(m);
                }
            }
            return;
        }
        if (m.joiner == null) {
            delete(m);
        } else if (m.ownerDeletedFirst ? m.joiner.stage == Stage.ENDED : m.joiner.stage == Stage.GONE) {
            delete(m);
        }
    }

    private void delete(M m) {
        checker.resources(NodeMaintenance.class).withName(m.name).delete();
        m.stage = Stage.DELETING;
        m.deletedAt = System.nanoTime();
    }

    /**
     * Deleted and gone: the node exactly as it was (read now: the undo comes before the finalizer goes), unless the
     * other request of a joined pair is still there.
     */
    private void gone(M m) {
        m.stage = Stage.GONE;
        Node node = checker.nodes().withName(m.node).get();
        M other = m.kind == Kind.JOINER ? m.owner : m.joiner;
        if (other != null && other.stage != Stage.GONE) {
            if (other.stage != Stage.DELETING) {
                // the other one was not deleted: the node stays in maintenance for it
                if (m.kind != Kind.JOINER) {
                    problem(m + ": gone while " + other.name + ", which joined it, remains");
                } else if (!unschedulable(node) || !tainted(node)) {
                    problem(m + ": its deletion restored node " + m.node + " while its owner " + other.name
                            + " remains");
                }
            }
            return; // the last of the pair to go checks the restore
        }
        checkRestored(m, node, lease(m.node));
    }

    // ------------------------------------------------------------------ the ends the specs state

    private void checkEnd(M m, NodeMaintenanceStatus status, Node node, Lease lease) {
        List<String> evictedHere = evictedOn(m.node);
        switch (m.endPhase) {
            case Succeeded -> {
                if (!unschedulable(node) || !tainted(node)) {
                    problem(m + ": Succeeded, but node not cordoned and tainted: "
                            + MaintenanceChaosTest.Prior.of(node));
                }
                if (!heldByUs(lease)) {
                    problem(m + ": Succeeded, but the node lease is held by " + holder(lease));
                }
                roles.forEach((key, role) -> {
                    if (!role.node().equals(m.node)) {
                        return;
                    }
                    boolean there = stored(key).isPresent();
                    if (role.role() == Role.DRAIN && (there || !evicted.contains(key))) {
                        problem(m + ": Succeeded, but Drain pod " + key + (there ? " is still on the node" : "")
                                + (evicted.contains(key) ? "" : " was never evicted"));
                    }
                    if (role.role() != Role.DRAIN && !there) {
                        problem(m + ": Succeeded, and its " + role.role() + " pod " + key + " is gone");
                    }
                });
                boolean listedByNode = cluster.requests().all().stream()
                        .anyMatch(r -> AGENT.equals(r.userAgent())
                                && r.is("list", "pods")
                                && ("spec.nodeName=" + m.node).equals(r.query().get("fieldSelector")));
                if (!listedByNode) {
                    problem(m + ": Succeeded without listing the pods of node " + m.node + " by spec.nodeName");
                }
                if (m.kind == Kind.HOOK_RELEASED && !hookReleased.contains(m.node)) {
                    problem(m + ": Succeeded while its pre-drain hook " + RELEASING_OWNER + " was still on it");
                }
                if (m.kind == Kind.HOOK_TIMEOUT
                        && (status.getTimeoutsPassed() == null
                                || status.getTimeoutsPassed().stream().noneMatch(t -> t.startsWith("PreDrainHooks")))) {
                    problem(m + ": went on past its hook timeout (onTimeout Proceed) without saying so in"
                            + " status.timeoutsPassed: " + status.getTimeoutsPassed());
                }
                if (m.kind == Kind.WINDOW_OPEN
                        && (status.getSchedule() == null || status.getSchedule().getWindowCloses() == null)) {
                    problem(m + ": started in its window but status.schedule.windowCloses is not set: "
                            + status.getSchedule());
                }
            }
            case Failed -> {
                if (!unschedulable(node) || !tainted(node)) {
                    problem(m + ": Failed at its hook timeout (onTimeout Fail), the node must stay cordoned: "
                            + MaintenanceChaosTest.Prior.of(node));
                }
                if (!heldByUs(lease)) {
                    problem(m + ": Failed (onTimeout Fail), the node lease must stay held, is " + holder(lease));
                }
                if (!evictedHere.isEmpty()) {
                    problem(m + ": Failed at its pre-drain hook timeout, yet evicted " + evictedHere);
                }
                if (status.getLastError() == null || !status.getLastError().contains(ABSENT_OWNER)) {
                    problem(m + ": Failed without naming the hook that timed out: " + status.getLastError());
                }
            }
            case Ended -> {
                checkRestored(m, node, lease);
                if (!evictedHere.isEmpty()) {
                    problem(m + ": Ended at its pre-drain hook timeout (onTimeout Restore), yet evicted "
                            + evictedHere);
                }
                if (status.getLastError() == null || !status.getLastError().contains(ABSENT_OWNER)) {
                    problem(m + ": Ended without naming the hook that timed out: " + status.getLastError());
                }
            }
            default -> problem(m + ": ended in phase " + m.endPhase);
        }
    }

    private void checkStillScheduled(M m, NodeMaintenance nm, Node node, Map<String, Lease> leases) {
        NodeMaintenanceStatus status = nm.getStatus();
        if (phase(nm) != Phase.Scheduled) {
            problem(m + ": phase " + phase(nm) + " at the end of the run, its window is closed: Scheduled");
            return;
        }
        String next = status.getSchedule() == null ? null : status.getSchedule().getNextStart();
        if (next == null || !Instant.parse(next).isAfter(Instant.now().plus(Duration.ofHours(2)))) {
            problem(m + ": Scheduled, but status.schedule.nextStart is " + next + ", not the window's opening");
        }
        if (!MaintenanceChaosTest.Prior.of(node).equals(prior.get(m.node)) || heldByUs(leases.get("node-" + m.node))) {
            problem(m + ": its node was touched while it waited for its window");
        }
    }

    private void checkRestored(M m, Node node, Lease lease) {
        MaintenanceChaosTest.Prior now = MaintenanceChaosTest.Prior.of(node);
        if (!now.equals(prior.get(m.node))) {
            problem(m + ": node " + m.node + " not restored exactly: was " + prior.get(m.node) + ", now " + now);
        }
        if (node.getStatus().getConditions().stream().anyMatch(c -> NodeMarks.CONDITION_TYPE.equals(c.getType()))) {
            problem(m + ": condition " + NodeMarks.CONDITION_TYPE + " left on " + m.node);
        }
        Map<String, String> annotations = node.getMetadata().getAnnotations();
        if (annotations != null && annotations.containsKey(NodeMarks.PRIOR_STATE)) {
            problem(m + ": annotation " + NodeMarks.PRIOR_STATE + " left on " + m.node);
        }
        if (heldByUs(lease)) {
            problem(m + ": node lease of " + m.node + " still held by " + holder(lease));
        }
    }

    private List<String> evictedOn(String node) {
        return evicted.stream()
                .filter(k -> roles.get(k) != null && roles.get(k).node().equals(node))
                .sorted()
                .toList();
    }

    // ------------------------------------------------------------------ reading

    private Lease lease(String node) {
        return checker.leases().inNamespace(LEASES).withName("node-" + node).get();
    }

    private NodeMaintenance get(String name) {
        return checker.resources(NodeMaintenance.class).withName(name).get();
    }

    private static Phase phase(NodeMaintenance nm) {
        return nm == null || nm.getStatus() == null ? null : nm.getStatus().getPhase();
    }

    private static String describe(NodeMaintenance nm) {
        if (nm == null) {
            return "gone";
        }
        NodeMaintenanceStatus s = nm.getStatus();
        return s == null ? "no status" : s.getPhase() + " (" + s.getLastError() + ")";
    }

    private static boolean unschedulable(Node n) {
        return Boolean.TRUE.equals(n.getSpec().getUnschedulable());
    }

    private static boolean tainted(Node n) {
        return n.getSpec().getTaints() != null
                && n.getSpec().getTaints().stream()
                        .anyMatch(t -> NodeMarks.DRAIN_TAINT.getKey().equals(t.getKey()));
    }

    private static boolean heldByUs(Lease lease) {
        String holder = holder(lease);
        return holder != null && (holder.equals(HOLDER) || holder.startsWith(HOLDER + "/"));
    }

    private static String holder(Lease lease) {
        return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    }

    private static String key(Pod p) {
        return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
    }
}
