package dev.tenure.operator;

import dev.tenure.coordination.CoordinationController;
import dev.tenure.election.ElectorHealth;
import dev.tenure.election.ExecutorScheduler;
import dev.tenure.election.LeaderElector;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.kube.KubeLeaseStore;
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
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntConsumer;
import org.jboss.logging.Logger;

/**
 * Operator HA: the replicas elect a leader on Lease {@code tenure-operator} with the core's
 * {@link LeaderElector}; only the leader runs reconcilers. The JOSDK {@link Operator} is not
 * started by the extension ({@code quarkus.operator-sdk.start-operator=false}) but here, when
 * leading. Losing leadership exits the process (non-zero) so Kubernetes restarts the pod as a
 * fresh contender: reconcilers and their caches are never half-stopped and reused.
 */
@ApplicationScoped
public class OperatorLeadership {
    private static final Logger LOG = Logger.getLogger(OperatorLeadership.class);
    /** Exit code when leadership is lost (distinct from crashes, visible in pod status). */
    public static final int LOST_LEADERSHIP_EXIT_CODE = 3;
    static final String SERVICE_ACCOUNT_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

    private final Operator operator;
    private final KubernetesClient client;
    private final LeaderElectionConfig config;
    private final MeterRegistry registry;
    /** The LeaseCandidate controller runs on the leader only, like the reconcilers (null in plain unit tests). */
    @Inject
    Instance<CoordinationController> coordination;
    /** How the process exits on lost leadership; replaced in tests. */
    IntConsumer exit = Quarkus::asyncExit;

    private volatile LeaderElector elector;
    private volatile boolean reconcilersStarted;
    private volatile boolean shuttingDown;
    private volatile boolean lost;
    private ExecutorScheduler scheduler;
    private ExecutorService callbacks;
    private KubernetesClient electionClient;

    @Inject
    public OperatorLeadership(Operator operator, KubernetesClient client, TenureConfig config, MeterRegistry registry) {
        this(operator, client, config.leaderElection(), registry);
    }

    OperatorLeadership(Operator operator, KubernetesClient client, LeaderElectionConfig config, MeterRegistry registry) {
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
        // Election requests get their own client with a timeout well inside leaseDuration - renewDeadline:
        // a leader stuck in a slow request only notices its deadline when the request returns.
        Duration timeout = le.leaseDuration().minus(le.renewDeadline()).dividedBy(2);
        electionClient = new KubernetesClientBuilder().withConfig(new ConfigBuilder(client.getConfiguration())
                .withRequestTimeout((int) Math.max(500, timeout.toMillis())).build()).build();
        scheduler = new ExecutorScheduler("tenure-leader-election");
        callbacks = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "tenure-leadership-callbacks");
            t.setDaemon(true);
            return t;
        });
        elector = LeaderElector.builder()
                .lease(lease).identity(identity)
                .leaseDuration(le.leaseDuration()).renewDeadline(le.renewDeadline()).retryPeriod(le.retryPeriod())
                .healthGrace(le.healthGrace())
                .store(new KubeLeaseStore(electionClient)).scheduler(scheduler)
                .clock(Clock.systemUTC()).random(new SecureRandom())
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
        if (reconcilersStarted && operator.getRegisteredControllersNumber() > 0) {
            try {
                operator.stop();
            } catch (RuntimeException e) {
                LOG.warn("stopping reconcilers failed", e);
            }
        }
        reconcilersStarted = false;
    }

    private void leadershipLost() {
        if (shuttingDown || !reconcilersStarted) {
            return; // stop() fires onStoppedLeading too; and a standby has nothing to give up
        }
        lost = true;
        LOG.errorf("lost leadership of %s: stopping reconcilers and exiting with %d so the pod restarts",
                elector.lease(), LOST_LEADERSHIP_EXIT_CODE);
        stopReconcilers();
        exit.accept(LOST_LEADERSHIP_EXIT_CODE);
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

    /** Ready = leading with reconcilers started, or standing by; not ready once leadership was lost (exiting). */
    public boolean ready() {
        LeaderElector e = elector;
        if (e == null) {
            return reconcilersStarted;
        }
        if (lost || shuttingDown) {
            return false;
        }
        return !e.isLeader() || reconcilersStarted;
    }

    public Optional<ElectorHealth> health() {
        return elector().map(LeaderElector::health);
    }

    static String namespace(LeaderElectionConfig le) {
        return le.namespace()
                .or(() -> Optional.ofNullable(System.getenv("POD_NAMESPACE")).filter(s -> !s.isBlank()))
                .or(OperatorLeadership::serviceAccountNamespace)
                .orElse("tenure-system");
    }

    private static Optional<String> serviceAccountNamespace() {
        Path p = Path.of(SERVICE_ACCOUNT_NAMESPACE);
        try {
            return Files.isReadable(p) ? Optional.of(Files.readString(p).trim()).filter(s -> !s.isEmpty()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    static String defaultIdentity() {
        String host = Optional.ofNullable(System.getenv("POD_NAME"))
                .or(() -> Optional.ofNullable(System.getenv("HOSTNAME")))
                .filter(s -> !s.isBlank()).orElse("tenure");
        String alphabet = "bcdfghjklmnpqrstvwxz2456789";
        SecureRandom r = new SecureRandom();
        StringBuilder suffix = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            suffix.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return host + "_" + suffix;
    }
}
