package dev.tenure.operator;

import dev.tenure.coordination.CoordinationController;
import dev.tenure.election.ElectorHealth;
import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.HolderProcess;
import dev.tenure.election.LeaderElector;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.MonotonicClock;
import dev.tenure.election.WorkFence;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.election.kube.KubeProcessEvidence;
import dev.tenure.maintenance.annotation.AnnotationDoor;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.function.IntConsumer;
import org.jboss.logging.Logger;

/**
 * Operator HA: the replicas elect a leader on Lease {@code tenure-operator} with the core's
 * {@link LeaderElector}; only the leader runs reconcilers. The JOSDK {@link Operator} is not
 * started by the extension ({@code quarkus.operator-sdk.start-operator=false}) but here, when
 * leading. Losing leadership exits the process (non-zero) so Kubernetes restarts the pod as a
 * fresh contender: reconcilers and their caches are never half-stopped and reused.
 *
 * <p>The fence is on the work, not only on the belief that we lead. A term opens the {@link WorkFence}: every
 * reconcile and queue item holds a permit of it, and every write the operator's clients send passes it
 * ({@code FencedWrites}: refused outside the term, timed out before its end). When the elector ends the term (a timer
 * at lastRenewStart + renewDeadline, whatever the API calls are doing) {@link #leadershipLost} closes the fence at
 * once, preempts a start still in progress, stops the reconcilers, the annotation door and coordination, and waits
 * until no permit is left; only then does it return, and only then may the elector release the lease. Past half the
 * margin (leaseDuration − renewDeadline) it halts the JVM instead, without a release: a stopped process is the one
 * fence nothing outlives, and the lease then expires. Shutdown (SIGTERM) does the same before it releases.
 *
 * <p>Starting runs on a thread of its own, so a slow start (informer cache sync) never delays a stop. A start that
 * fails (RBAC refusal, missing CRD, cache-sync timeout) is undone and the process exits with
 * {@link #START_FAILED_EXIT_CODE}; the shutdown releases the lease so another replica can try, and Kubernetes
 * restarts this one with its crash-loop backoff.
 *
 * <p>One file over ~500 lines, on purpose (issue 27's size rule): start, stop, leadership loss and shutdown are one
 * state machine over the same volatile fields (the term open, the starter thread, the work running, lost, shutting
 * down), whose orderings are what issue 24's fencing proves ("a stop preempts a start", "no release before the work
 * is stopped"); here they read top to bottom in one place. The pieces with no share in that ordering are already
 * their own classes ({@code WorkFence}, {@code FencedWrites}, {@code ElectorHealth}).
 */
@ApplicationScoped
public class OperatorLeadership {
    private static final Logger LOG = Logger.getLogger(OperatorLeadership.class);
    /** Exit code when leadership is lost (distinct from crashes, visible in pod status). */
    public static final int LOST_LEADERSHIP_EXIT_CODE = 3;
    /** Exit code when the reconcilers could not be started while leading. */
    public static final int START_FAILED_EXIT_CODE = 4;

    /** Something that runs only while leading; stopped in the reverse order of starting. */
    interface LeaderWork {
        String name();

        void start();

        void stop();

        /** A failed start of essential work ends the term; the add-ons' failure only is logged. */
        boolean essential();
    }

    private final Operator operator;
    private final KubernetesClient client;
    private final LeaderElectionConfig config;
    private final MeterRegistry registry;
    private final WorkFence fence;
    /** The LeaseCandidate controller runs on the leader only, like the reconcilers (null in plain unit tests). */
    @Inject
    Instance<CoordinationController> coordination;
    /** The annotation door, likewise leader-only (null in plain unit tests). */
    @Inject
    Instance<AnnotationDoor> annotationDoor;
    /** How the process exits on lost leadership; replaced in tests. */
    IntConsumer exit = Quarkus::asyncExit;
    /**
     * How the process stops at once when reconcilers do not stop in time. Under {@code @QuarkusTest} the JVM is the
     * test runner's, so there it is logged instead of done.
     */
    IntConsumer halt = io.quarkus.runtime.LaunchMode.current() == io.quarkus.runtime.LaunchMode.TEST
            ? code -> LOG.errorf("(test run: not halting the test JVM with %d)", code)
            : code -> Runtime.getRuntime().halt(code);
    /** Told the System.nanoTime() at which each term opened the fence (tests check work against it). */
    java.util.function.LongConsumer termOpened = t -> {};

    /**
     * Tests that start many operator instances in one JVM share one HTTP client factory: each fabric8 client built
     * with its own keeps ~10 file descriptors after it is closed. Null: the election's own ({@link ElectionHttpClients},
     * a Vert.x instance of its own, so renewals never queue behind the informers' work on the application's).
     */
    io.fabric8.kubernetes.client.http.HttpClient.Factory electionHttpClients;
    /**
     * The pod and container this process runs in, for evidence of death; null: from the downward API
     * ({@code POD_NAME}, {@code POD_UID}, {@code POD_NAMESPACE}) and the configured container name (tests set it).
     */
    HolderProcess process;
    /** Work run besides the operator's own (tests); started after it. */
    final List<LeaderWork> extraWork = new CopyOnWriteArrayList<>();

    private volatile LeaderElector elector;
    private volatile boolean reconcilersStarted;
    private volatile boolean shuttingDown;
    private volatile boolean lost;
    /** Set when a term opened; cleared once its work has stopped. */
    private volatile boolean termOpen;
    /** When the current term began (System.nanoTime), for the liveness check of a start that never completes. */
    private volatile long termOpenedAt;

    private volatile Thread starter;
    private final Deque<LeaderWork> running = new ConcurrentLinkedDeque<>();
    private ExecutorScheduler scheduler;
    private ExecutorScheduler fenceScheduler;
    private ExecutorService storeCalls;
    private ExecutorService callbacks;
    private KubernetesClient electionClient;
    /** The election client's own transport, when tests did not give one (closed after the client). */
    private ElectionHttpClients ownHttpClients;

    private KubeProcessEvidence evidence;

    private final String identity;

    @Inject
    public OperatorLeadership(
            Operator operator,
            KubernetesClient client,
            TenureConfig config,
            MeterRegistry registry,
            WorkFence fence,
            OperatorInstance instance) {
        this(operator, client, config.leaderElection(), registry, fence, instance.identity());
    }

    /** A replica whose work is not fenced by its clients (unit tests of the election wiring). */
    OperatorLeadership(
            Operator operator, KubernetesClient client, LeaderElectionConfig config, MeterRegistry registry) {
        this(
                operator,
                client,
                config,
                registry,
                WorkFence.closed(),
                OperatorInstance.of(config).identity());
    }

    OperatorLeadership(
            Operator operator,
            KubernetesClient client,
            LeaderElectionConfig config,
            MeterRegistry registry,
            WorkFence fence,
            String identity) {
        this.operator = operator;
        this.client = client;
        this.config = config;
        this.registry = registry;
        this.fence = fence;
        this.identity = identity;
    }

    void onStart(@Observes @Priority(jakarta.interceptor.Interceptor.Priority.LIBRARY_AFTER + 100) StartupEvent event) {
        LeaderElectionConfig le = config;
        if (!le.enabled()) {
            LOG.info("leader election disabled (tenure.leader-election.enabled=false): starting reconcilers now");
            termOpen = true;
            termOpenedAt = System.nanoTime();
            startWork();
            return;
        }
        LeaseKey lease = LeaseKey.of(namespace(le), le.leaseName());
        KubernetesClientBuilder election =
                new KubernetesClientBuilder().withConfig(electionClientConfig(client.getConfiguration(), le));
        if (client.getKubernetesSerialization() != null) {
            // the application's (thread-safe; its deserializers and table of kinds built once): a client with one of
            // its own builds them again during its first renewals
            election.withKubernetesSerialization(client.getKubernetesSerialization());
        }
        if (electionHttpClients != null) {
            election.withHttpClientFactory(electionHttpClients);
        } else {
            ownHttpClients = new ElectionHttpClients();
            election.withHttpClientFactory(ownHttpClients);
        }
        electionClient = election.build();
        scheduler = new ExecutorScheduler("tenure-leader-election");
        fenceScheduler = new ExecutorScheduler("tenure-leader-fence");
        storeCalls = Executors.newCachedThreadPool(daemon("tenure-leader-election-calls"));
        callbacks = Executors.newSingleThreadExecutor(daemon("tenure-leadership-callbacks"));
        KubeLeaseStore leases = KubeLeaseStore.withFinalizer(electionClient, LEASE_FINALIZER);
        if (le.evidenceOfDeath().enabled()) {
            Optional<HolderProcess> self = Optional.ofNullable(process)
                    .or(() -> processFromEnvironment(
                            identity, le.evidenceOfDeath().containerName()));
            if (self.isPresent()) {
                leases = leases.announcing(self.get());
            } else {
                LOG.info("evidence of death: POD_NAME/POD_UID not set, so this replica's lease is always waited out");
            }
            evidence = new KubeProcessEvidence(
                            electionClient, OperatorNamespace.current(), leases, identity, Clock.systemUTC())
                    .start();
        }
        elector = LeaderElector.builder()
                .lease(lease)
                .identity(identity)
                .leaseDuration(le.leaseDuration())
                .renewDeadline(le.renewDeadline())
                .retryPeriod(le.retryPeriod())
                .healthGrace(le.healthGrace())
                .store(leases)
                .processEvidence(evidence)
                .scheduler(scheduler)
                .fenceScheduler(fenceScheduler)
                .storeCalls(storeCalls)
                .clock(Clock.systemUTC())
                .monotonic(MonotonicClock.system())
                .random(new SecureRandom())
                .callbackExecutor(callbacks)
                .onStartedLeading(this::termStarted)
                .onStoppedLeading(this::leadershipLost)
                .onNewLeader(holder -> LOG.infof("leader of %s is now %s", lease, holder))
                .metrics(new MicrometerElectionMetrics(registry, lease))
                .build();
        warmUp(electionClient, lease);
        buildTypeTable(client);
        buildTypeTable(electionClient);
        LOG.infof("contending for lease %s as %s", lease, identity);
        elector.start();
    }

    void onStop(@Observes ShutdownEvent event) {
        shuttingDown = true;
        // Work first, then the lease: releasing earlier would let the next leader overlap with us. Past the budget,
        // halt without releasing: the lease then expires.
        if (!stopWork(stopBudget(config))) {
            LOG.errorf(
                    "shutting down: work did not stop within %d ms; halting (exit %d) without releasing the lease",
                    stopBudget(config).toMillis(), LOST_LEADERSHIP_EXIT_CODE);
            halt.accept(LOST_LEADERSHIP_EXIT_CODE);
        }
        if (elector != null) {
            elector.stop();
        }
        if (scheduler != null) {
            scheduler.close();
        }
        if (fenceScheduler != null) {
            fenceScheduler.close();
        }
        if (storeCalls != null) {
            storeCalls.shutdownNow();
        }
        if (callbacks != null) {
            callbacks.shutdownNow();
        }
        if (evidence != null) {
            evidence.close();
        }
        if (electionClient != null) {
            electionClient.close();
        }
        if (ownHttpClients != null) {
            ownHttpClients.close();
        }
    }

    /**
     * One read of the lease before contending: the first request of a fresh client pays for connection set-up and
     * class loading (seconds on a busy two-core machine), and an acquire that slow starts a term with its fence
     * almost due. Errors are left to the elector, which reports them.
     */
    private static void warmUp(KubernetesClient electionClient, LeaseKey lease) {
        try {
            new KubeLeaseStore(electionClient).find(lease);
        } catch (RuntimeException e) {
            LOG.debugf(e, "warm-up read of %s", lease);
        }
    }

    /**
     * Builds the client's table of Kubernetes kinds now, before contending. fabric8 builds it the first time the client
     * decodes an object whose class it is not told, i.e. the first watch event of an informer, on the event loop that
     * received it and under a lock: seconds on a busy two-core machine. The admission caches' informers start with the
     * operator, so a new leader's first renewals fell in that stall (seen: a leader fenced 3.4 s after it won, its
     * event loop blocked in KubernetesDeserializer's class-path scan, when the election client still shared the
     * application's event loops). The election client has a Vert.x of its own since ({@link ElectionHttpClients}), but
     * it shares the application's serialization, and so that lock: the table is still built first.
     */
    static void buildTypeTable(KubernetesClient client) {
        client.getKubernetesSerialization().unmarshal("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\"}");
    }

    /**
     * onStartedLeading: opens the fence for this term and starts the work on a thread of its own, so that the
     * callback thread is free for the stop, which must be able to preempt a slow start.
     */
    private void termStarted() {
        if (shuttingDown) {
            return;
        }
        if (lost) {
            // this process is exiting after a lost term (or a failed start): its elector may still win a new term
            // before the shutdown stops it, but the work must not start again in a process on its way out
            LOG.warn("won a new term while exiting after a lost one: not starting the work; the shutdown releases");
            return;
        }
        LeaderElector e = elector;
        fence.open(e::timeLeft);
        termOpenedAt = System.nanoTime();
        termOpened.accept(termOpenedAt);
        termOpen = true;
        Thread t = daemon("tenure-reconcilers-start").newThread(this::startWork);
        starter = t;
        t.start();
    }

    private void startWork() {
        try {
            for (LeaderWork w : work()) {
                if (Thread.currentThread().isInterrupted() || (!fence.isOpen() && elector != null)) {
                    LOG.info("leadership ended while starting: not starting " + w.name());
                    return;
                }
                try {
                    LOG.infof("leading: starting %s", w.name());
                    running.push(w);
                    w.start();
                } catch (RuntimeException ex) {
                    if (w.essential()) {
                        throw ex;
                    }
                    running.remove(w);
                    // an add-on (the annotation door, coordination): its failure must not keep the reconcilers down
                    LOG.error(w.name() + " could not start", ex);
                }
            }
            reconcilersStarted = true;
        } catch (RuntimeException ex) {
            if (!fence.isOpen() && elector != null) {
                LOG.info("leadership ended while starting; the start was abandoned: " + ex);
                return;
            }
            startFailed(ex);
        }
    }

    /** An essential start failed: undo what started, then exit so the lease is released and the pod restarts. */
    private void startFailed(RuntimeException cause) {
        LOG.errorf(
                cause,
                "could not start the reconcilers while leading; stopping what started and exiting with %d so another"
                        + " replica can lead and this one restarts with backoff",
                START_FAILED_EXIT_CODE);
        lost = true;
        fence.close();
        stopStarted();
        exit.accept(START_FAILED_EXIT_CODE);
    }

    /** What runs while leading, in start order: the JOSDK reconcilers, the annotation door, coordination. */
    private List<LeaderWork> work() {
        List<LeaderWork> all = new ArrayList<>();
        if (operator.getRegisteredControllersNumber() == 0) {
            LOG.warn("no reconcilers registered; nothing to start");
        } else {
            all.add(work("reconcilers", true, operator::start, operator::stop));
        }
        if (annotationDoor != null && annotationDoor.isResolvable()) {
            AnnotationDoor door = annotationDoor.get();
            all.add(work("the annotation door", false, door::start, door::stop));
        }
        if (coordination != null && coordination.isResolvable()) {
            CoordinationController c = coordination.get();
            all.add(work("coordinated leader election", false, c::start, c::stop));
        }
        all.addAll(extraWork);
        return all;
    }

    static LeaderWork work(String name, boolean essential, Runnable start, Runnable stop) {
        return new LeaderWork() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void start() {
                start.run();
            }

            @Override
            public void stop() {
                stop.run();
            }

            @Override
            public boolean essential() {
                return essential;
            }
        };
    }

    /** Stops what started, newest first; one failing stop does not keep the others running. */
    private void stopStarted() {
        LeaderWork w;
        while ((w = running.poll()) != null) {
            try {
                w.stop();
            } catch (RuntimeException e) {
                LOG.warn("stopping " + w.name() + " failed", e);
            }
        }
        reconcilersStarted = false;
    }

    /**
     * Closes the fence, preempts a start in progress, stops every started piece of work and waits until no permit
     * is left, all within {@code budget}. True when the work has really stopped.
     */
    private boolean stopWork(Duration budget) {
        fence.close();
        if (!termOpen) {
            return fence.running() == 0;
        }
        long deadline = System.nanoTime() + budget.toNanos();
        Thread stopper = daemon("tenure-reconcilers-stop").newThread(() -> {
            Thread s = starter;
            if (s != null) {
                s.interrupt();
                try {
                    s.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            stopStarted();
        });
        stopper.start();
        try {
            stopper.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            Thread s = starter;
            // a start deaf to the interrupt may still start work after the stop: not idle until it has ended too
            boolean idle = !stopper.isAlive()
                    && (s == null || !s.isAlive())
                    && fence.awaitIdle(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            if (idle) {
                termOpen = false;
            }
            return idle;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * onStoppedLeading: returns only when the work has stopped (fence closed, reconcilers, the annotation door and
     * coordination stopped, no reconcile or queue item still running), so the elector may release the lease after
     * it. When that takes longer than half the margin the JVM is halted instead: the fence must hold before any
     * contender can see the lease expire.
     */
    void leadershipLost() {
        if (shuttingDown || !termOpen) {
            fence.close();
            return; // stop() fires onStoppedLeading too; and a standby has nothing to give up
        }
        lost = true;
        Duration budget = stopBudget(config);
        LOG.errorf(
                "lost leadership of %s: stopping reconcilers (at most %d ms) and exiting with %d so the pod restarts",
                elector.lease(), budget.toMillis(), LOST_LEADERSHIP_EXIT_CODE);
        if (!stopWork(budget)) {
            LOG.errorf(
                    "work did not stop within %d ms (%d unit(s) still running): halting the JVM (exit %d) so no work"
                            + " outlives leadership",
                    budget.toMillis(), fence.running(), LOST_LEADERSHIP_EXIT_CODE);
            halt.accept(LOST_LEADERSHIP_EXIT_CODE);
        }
        exit.accept(LOST_LEADERSHIP_EXIT_CODE);
    }

    /** Half the margin between the fence (renewDeadline) and the earliest takeover (leaseDuration). */
    static Duration stopBudget(LeaderElectionConfig le) {
        return le.leaseDuration().minus(le.renewDeadline()).dividedBy(2);
    }

    /**
     * The election client: no hidden retries (fabric8 would retry up to 10 times with backoff and honour
     * Retry-After), and a request and connect timeout of half the margin, so an abandoned call ends on its own
     * long before a contender could take over. The elector bounds each call by its attempt's budget as well.
     */
    static io.fabric8.kubernetes.client.Config electionClientConfig(
            io.fabric8.kubernetes.client.Config base, LeaderElectionConfig le) {
        Duration timeout = stopBudget(le);
        if (timeout.compareTo(Duration.ofMillis(500)) < 0) {
            throw new IllegalArgumentException("tenure.leader-election: leaseDuration (" + le.leaseDuration()
                    + ") - renewDeadline (" + le.renewDeadline() + ") must be at least 1s: half of it bounds each"
                    + " election request and the time reconcilers get to stop after the fence");
        }
        return new ConfigBuilder(base)
                .withRequestRetryBackoffLimit(0)
                .withRequestTimeout((int) timeout.toMillis())
                .withConnectionTimeout((int) timeout.toMillis())
                .build();
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /** Whether this replica leads (and so runs reconcilers). */
    public boolean isLeader() {
        LeaderElector e = elector;
        return e == null ? reconcilersStarted : e.isLeader();
    }

    /** Empty when leader election is disabled. */
    public Optional<LeaderElector> elector() {
        return Optional.ofNullable(elector);
    }

    Operator operatorForTests() {
        return operator;
    }

    public boolean reconcilersStarted() {
        return reconcilersStarted;
    }

    /**
     * Ready = leading with reconcilers started, or standing by; not ready while stepping down (reconcilers
     * still stopping) or once leadership was lost (exiting).
     */
    public boolean ready() {
        LeaderElector e = elector;
        if (e == null) {
            return reconcilersStarted;
        }
        if (lost || shuttingDown) {
            return false;
        }
        return switch (role()) {
            case LEADING -> reconcilersStarted;
            case STANDING_BY -> true;
            case STEPPING_DOWN -> false;
        };
    }

    /**
     * What this replica is doing: leading; standing by; or stepping down — the elector gave leadership up (or
     * the fence ended it) and reconcilers are still running or its stop callback has not finished.
     */
    public LeaderElector.Role role() {
        LeaderElector e = elector;
        if (e == null) {
            return reconcilersStarted ? LeaderElector.Role.LEADING : LeaderElector.Role.STANDING_BY;
        }
        LeaderElector.Role r = e.role();
        if (r == LeaderElector.Role.STANDING_BY && reconcilersStarted) {
            return LeaderElector.Role.STEPPING_DOWN;
        }
        return r;
    }

    public Optional<ElectorHealth> health() {
        return elector().map(LeaderElector::health);
    }

    /**
     * How long this replica has led without its reconcilers started (empty when not leading, or started): a start
     * that never completes (an informer that never syncs) makes liveness fail once this passes its limit.
     */
    public Optional<Duration> leadingWithoutReconcilers() {
        if (!termOpen || reconcilersStarted || lost || shuttingDown) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(System.nanoTime() - termOpenedAt));
    }

    /**
     * Kept on the operator's Lease while a replica holds it: deleting the Lease then only requests its deletion, which
     * the leader sees, answers by stopping its work, and then lets go (contenders wait meanwhile).
     */
    public static final String LEASE_FINALIZER = "tenure.dev/leader-lease";

    static String namespace(LeaderElectionConfig le) {
        return le.namespace().orElseGet(OperatorNamespace::current);
    }

    /**
     * This process's pod and container from the downward API (POD_NAME, POD_UID, POD_NAMESPACE): what a standby needs
     * to tie this holder to a container run. Empty outside a pod.
     */
    static Optional<HolderProcess> processFromEnvironment(String identity, String container) {
        String pod = System.getenv("POD_NAME");
        String uid = System.getenv("POD_UID");
        if (pod == null || pod.isBlank() || uid == null || uid.isBlank()) {
            return Optional.empty();
        }
        return Optional.of(new HolderProcess(identity, OperatorNamespace.current(), pod, uid, container, null));
    }

    static String defaultIdentity() {
        String host = Optional.ofNullable(System.getenv("POD_NAME"))
                .or(() -> Optional.ofNullable(System.getenv("HOSTNAME")))
                .filter(s -> !s.isBlank())
                .orElse("tenure");
        String alphabet = "bcdfghjklmnpqrstvwxz2456789";
        SecureRandom r = new SecureRandom();
        StringBuilder suffix = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            suffix.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return host + "_" + suffix;
    }
}
