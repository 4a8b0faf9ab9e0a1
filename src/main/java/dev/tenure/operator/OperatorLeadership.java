package dev.tenure.operator;

import dev.tenure.coordination.CoordinationController;
import dev.tenure.election.ElectorHealth;
import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.LeaderElector;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.MonotonicClock;
import dev.tenure.election.kube.KubeLeaseStore;
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
import java.util.Optional;
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
 * <p>The elector fences leadership in real time (a timer ends the term at lastRenewStart +
 * renewDeadline whatever the API calls are doing) and calls {@link #leadershipLost} then; that
 * callback returns only once the reconcilers have stopped. It gives them half the margin
 * (leaseDuration − renewDeadline) and halts the JVM when they take longer: a stopped process is the
 * one fence nothing can outlive. Election requests use their own client with no retries and a
 * request timeout derived from the same margin, and the elector bounds every call by the time its
 * attempt has left.
 */
@ApplicationScoped
public class OperatorLeadership {
    private static final Logger LOG = Logger.getLogger(OperatorLeadership.class);
    /** Exit code when leadership is lost (distinct from crashes, visible in pod status). */
    public static final int LOST_LEADERSHIP_EXIT_CODE = 3;

    private final Operator operator;
    private final KubernetesClient client;
    private final LeaderElectionConfig config;
    private final MeterRegistry registry;
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

    private volatile LeaderElector elector;
    private volatile boolean reconcilersStarted;
    private volatile boolean shuttingDown;
    private volatile boolean lost;
    private ExecutorScheduler scheduler;
    private ExecutorScheduler fenceScheduler;
    private ExecutorService storeCalls;
    private ExecutorService callbacks;
    private KubernetesClient electionClient;

    @Inject
    public OperatorLeadership(Operator operator, KubernetesClient client, TenureConfig config, MeterRegistry registry) {
        this(operator, client, config.leaderElection(), registry);
    }

    OperatorLeadership(
            Operator operator, KubernetesClient client, LeaderElectionConfig config, MeterRegistry registry) {
        this.operator = operator;
        this.client = client;
        this.config = config;
        this.registry = registry;
    }

    void onStart(@Observes @Priority(jakarta.interceptor.Interceptor.Priority.LIBRARY_AFTER + 100) StartupEvent event) {
        LeaderElectionConfig le = config;
        if (!le.enabled()) {
            LOG.info("leader election disabled (tenure.leader-election.enabled=false): starting reconcilers now");
            startReconcilers();
            return;
        }
        LeaseKey lease = LeaseKey.of(namespace(le), le.leaseName());
        String identity = le.identity().orElseGet(OperatorLeadership::defaultIdentity);
        electionClient = new KubernetesClientBuilder()
                .withConfig(electionClientConfig(client.getConfiguration(), le))
                .build();
        scheduler = new ExecutorScheduler("tenure-leader-election");
        fenceScheduler = new ExecutorScheduler("tenure-leader-fence");
        storeCalls = Executors.newCachedThreadPool(daemon("tenure-leader-election-calls"));
        callbacks = Executors.newSingleThreadExecutor(daemon("tenure-leadership-callbacks"));
        elector = LeaderElector.builder()
                .lease(lease)
                .identity(identity)
                .leaseDuration(le.leaseDuration())
                .renewDeadline(le.renewDeadline())
                .retryPeriod(le.retryPeriod())
                .healthGrace(le.healthGrace())
                .store(new KubeLeaseStore(electionClient))
                .scheduler(scheduler)
                .fenceScheduler(fenceScheduler)
                .storeCalls(storeCalls)
                .clock(Clock.systemUTC())
                .monotonic(MonotonicClock.system())
                .random(new SecureRandom())
                .callbackExecutor(callbacks)
                .onStartedLeading(this::startReconcilers)
                .onStoppedLeading(this::leadershipLost)
                .onNewLeader(holder -> LOG.infof("leader of %s is now %s", lease, holder))
                .metrics(new MicrometerElectionMetrics(registry, lease))
                .build();
        LOG.infof("contending for lease %s as %s", lease, identity);
        elector.start();
    }

    void onStop(@Observes ShutdownEvent event) {
        shuttingDown = true;
        // Reconcilers first, then the lease: releasing earlier would let the next leader overlap with us.
        stopReconcilers();
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
        if (electionClient != null) {
            electionClient.close();
        }
    }

    private synchronized void startReconcilers() {
        if (reconcilersStarted || shuttingDown) {
            return;
        }
        if (operator.getRegisteredControllersNumber() == 0) {
            LOG.warn("no reconcilers registered; nothing to start");
        } else {
            LOG.info("leading: starting reconcilers");
            operator.start();
        }
        if (annotationDoor != null && annotationDoor.isResolvable()) {
            try {
                annotationDoor.get().start();
            } catch (RuntimeException e) {
                // like coordination: the NodeMaintenance door must not go down with it
                LOG.error("the annotation door could not start (no Node watch)", e);
            }
        }
        if (coordination != null && coordination.isResolvable()) {
            try {
                coordination.get().start();
            } catch (RuntimeException e) {
                // coordinated election is an add-on: its failure must not keep the reconcilers down
                LOG.error("coordinated leader election could not start", e);
            }
        }
        reconcilersStarted = true;
    }

    private synchronized void stopReconcilers() {
        // only after a start: touching the bean otherwise would create it (and run discovery) during shutdown
        if (reconcilersStarted && coordination != null && coordination.isResolvable()) {
            coordination.get().stop();
        }
        if (reconcilersStarted && annotationDoor != null && annotationDoor.isResolvable()) {
            annotationDoor.get().stop();
        }
        if (reconcilersStarted && operator.getRegisteredControllersNumber() > 0) {
            try {
                operator.stop();
            } catch (RuntimeException e) {
                LOG.warn("stopping reconcilers failed", e);
            }
        }
        reconcilersStarted = false;
    }

    /**
     * onStoppedLeading: returns only when the reconcilers have stopped (JOSDK stopped: event sources closed,
     * in-flight reconciles finished or interrupted), so the elector may release the lease after it. When they
     * take longer than half the margin the JVM is halted instead: the fence must hold before any contender can
     * see the lease expire.
     */
    void leadershipLost() {
        if (shuttingDown || !reconcilersStarted) {
            return; // stop() fires onStoppedLeading too; and a standby has nothing to give up
        }
        lost = true;
        Duration budget = stopBudget(config);
        LOG.errorf(
                "lost leadership of %s: stopping reconcilers (at most %d ms) and exiting with %d so the pod restarts",
                elector.lease(), budget.toMillis(), LOST_LEADERSHIP_EXIT_CODE);
        Thread stopper = daemon("tenure-reconcilers-stop").newThread(this::stopReconcilers);
        stopper.start();
        try {
            stopper.join(budget.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (stopper.isAlive()) {
            LOG.errorf(
                    "reconcilers did not stop within %d ms: halting the JVM (exit %d) so no work outlives leadership",
                    budget.toMillis(), LOST_LEADERSHIP_EXIT_CODE);
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

    static String namespace(LeaderElectionConfig le) {
        return le.namespace().orElseGet(OperatorNamespace::current);
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
