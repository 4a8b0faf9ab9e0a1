package dev.tenure.election;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.random.RandomGenerator;

/**
 * The client side of coordinated leader election (client-go {@code leasecandidate.go} parity):
 * <ul>
 *   <li>creates and renews a LeaseCandidate {@code <namespace>/<identity>} for {@code leaseName}
 *   every {@code renewInterval} (5 min), and at once when the controller pings it
 *   (pingTime after renewTime, seen through a watch);</li>
 *   <li>follows the Lease the controller assigns with a coordinated {@link LeaderElector}: it never
 *   creates or acquires the Lease, renews it while it names this candidate, and releases it at
 *   once (holder cleared) when preferredHolder names another candidate, so the controller can
 *   hand it to the preferred one.</li>
 * </ul>
 */
public final class Candidate {
    private static final Logger LOG = Logger.getLogger(Candidate.class.getName());
    /** Label carrying the node a candidate runs on (downward API), read by the maintenance-aware strategy. */
    public static final String NODE_LABEL = CandidateRecord.NODE_LABEL;

    public static final String OLDEST_EMULATION_VERSION = "OldestEmulationVersion";

    private final LeaseKey candidate;
    private final CandidateRecord desired;
    private final LeaseCandidateStore candidates;
    private final Scheduler scheduler;
    private final InstantSource clock;
    private final Duration renewInterval;
    private final Duration retryPeriod;
    private final LeaderElector elector;

    private boolean running;
    private Scheduler.Scheduled pending;
    private LeaseStore.LeaseWatch watch;

    private Candidate(Builder b, LeaderElector elector) {
        this.candidate = LeaseKey.of(b.namespace, b.identity);
        this.desired = new CandidateRecord(
                b.namespace,
                b.identity,
                b.leaseName,
                b.binaryVersion,
                b.emulationVersion,
                b.strategy,
                null,
                null,
                null,
                b.nodeName == null ? Map.of() : Map.of(NODE_LABEL, b.nodeName),
                null);
        this.candidates = b.candidateStore;
        this.scheduler = b.scheduler;
        this.clock = b.clock;
        this.renewInterval = b.renewInterval;
        this.retryPeriod = b.retryPeriod;
        this.elector = elector;
    }

    public static Builder builder() {
        return new Builder();
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        try {
            watch = candidates.watch(
                    candidate,
                    event -> event.filter(CandidateRecord::pinged)
                            .ifPresent(pinged -> scheduler.schedule(Duration.ZERO, this::renewCandidate)));
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "cannot watch LeaseCandidate " + candidate + "; pings are answered at the next renew",
                    e);
        }
        next(Duration.ZERO);
        elector.start();
    }

    /** Stops renewing the candidate and releases the Lease if held. The LeaseCandidate is left for the controller to expire. */
    public synchronized void stop() {
        running = false;
        if (pending != null) {
            pending.cancel();
        }
        if (watch != null) {
            watch.close();
        }
        elector.stop();
    }

    public boolean isLeader() {
        return elector.isLeader();
    }

    public Optional<String> leader() {
        return elector.leader();
    }

    public ElectorHealth health() {
        return elector.health();
    }

    public String identity() {
        return candidate.name();
    }

    public LeaseKey candidate() {
        return candidate;
    }

    private synchronized void renewCandidate() {
        if (!running) {
            return;
        }
        try {
            Optional<CandidateRecord> current = find();
            CandidateRecord next = desired.withRenewTime(clock.instant());
            if (current.isEmpty()) {
                candidates.create(candidate, next);
            } else {
                candidates.update(
                        candidate,
                        next.withPingTime(current.get().pingTime())
                                .withResourceVersion(current.get().resourceVersion()));
            }
            next(renewInterval);
        } catch (LeaseStoreException e) {
            LOG.info("renewing LeaseCandidate " + candidate + " failed, retrying: " + e.getMessage());
            next(retryPeriod);
        }
    }

    private Optional<CandidateRecord> find() {
        try {
            return Optional.of(candidates.get(candidate));
        } catch (LeaseNotFound e) {
            return Optional.empty();
        }
    }

    private void next(Duration delay) {
        if (pending != null) {
            pending.cancel();
        }
        pending = scheduler.schedule(delay, this::renewCandidate);
    }

    /** Builds a {@link Candidate}. */
    public static final class Builder {
        private String namespace;
        private String identity;
        private String leaseName;
        private String binaryVersion;
        private String emulationVersion;
        private String strategy = OLDEST_EMULATION_VERSION;
        private String nodeName;
        private LeaseCandidateStore candidateStore;
        private LeaseStore leaseStore;
        private Scheduler scheduler;
        private InstantSource clock;
        private InstantSource monotonic;
        private Scheduler fenceScheduler;
        private java.util.concurrent.ExecutorService storeCalls;
        private RandomGenerator random;
        private Duration renewInterval = Duration.ofMinutes(5);
        private Duration leaseDuration = Duration.ofSeconds(15);
        private Duration renewDeadline = Duration.ofSeconds(10);
        private Duration retryPeriod = Duration.ofSeconds(2);
        private Executor callbackExecutor = Runnable::run;
        private Runnable onStartedLeading = () -> {};
        private Runnable onStoppedLeading = () -> {};
        private Consumer<String> onNewLeader = id -> {};
        private ElectionMetrics metrics = ElectionMetrics.NONE;

        private Builder() {}

        public Builder namespace(String v) {
            this.namespace = v;
            return this;
        }
        /** LeaseCandidate name and lease holder identity. */
        public Builder identity(String v) {
            this.identity = v;
            return this;
        }

        public Builder leaseName(String v) {
            this.leaseName = v;
            return this;
        }

        public Builder binaryVersion(String v) {
            this.binaryVersion = v;
            return this;
        }

        public Builder emulationVersion(String v) {
            this.emulationVersion = v;
            return this;
        }

        public Builder strategy(String v) {
            this.strategy = v;
            return this;
        }
        /** Adds the {@value #NODE_LABEL} label (from the downward API); null for none. */
        public Builder nodeName(String v) {
            this.nodeName = v;
            return this;
        }

        public Builder candidateStore(LeaseCandidateStore v) {
            this.candidateStore = v;
            return this;
        }

        public Builder leaseStore(LeaseStore v) {
            this.leaseStore = v;
            return this;
        }

        public Builder scheduler(Scheduler v) {
            this.scheduler = v;
            return this;
        }
        /** Wall clock: renewTime/pingTime written into objects. */
        public Builder clock(InstantSource v) {
            this.clock = v;
            return this;
        }
        /** Interval clock of the lease's elector ({@link LeaderElector.Builder#monotonic}). */
        public Builder monotonic(InstantSource v) {
            this.monotonic = v;
            return this;
        }
        /** See {@link LeaderElector.Builder#fenceScheduler}. */
        public Builder fenceScheduler(Scheduler v) {
            this.fenceScheduler = v;
            return this;
        }
        /** See {@link LeaderElector.Builder#storeCalls}. */
        public Builder storeCalls(java.util.concurrent.ExecutorService v) {
            this.storeCalls = v;
            return this;
        }

        public Builder random(RandomGenerator v) {
            this.random = v;
            return this;
        }

        public Builder renewInterval(Duration v) {
            this.renewInterval = v;
            return this;
        }

        public Builder leaseDuration(Duration v) {
            this.leaseDuration = v;
            return this;
        }

        public Builder renewDeadline(Duration v) {
            this.renewDeadline = v;
            return this;
        }

        public Builder retryPeriod(Duration v) {
            this.retryPeriod = v;
            return this;
        }

        public Builder callbackExecutor(Executor v) {
            this.callbackExecutor = v;
            return this;
        }

        public Builder onStartedLeading(Runnable v) {
            this.onStartedLeading = v;
            return this;
        }

        public Builder onStoppedLeading(Runnable v) {
            this.onStoppedLeading = v;
            return this;
        }

        public Builder onNewLeader(Consumer<String> v) {
            this.onNewLeader = v;
            return this;
        }

        public Builder metrics(ElectionMetrics v) {
            this.metrics = v;
            return this;
        }

        public Candidate build() {
            req(namespace != null && !namespace.isBlank(), "namespace must be non-empty");
            req(leaseName != null && !leaseName.isBlank(), "leaseName must be non-empty");
            req(binaryVersion != null && !binaryVersion.isBlank(), "binaryVersion must be non-empty");
            req(emulationVersion != null && !emulationVersion.isBlank(), "emulationVersion must be non-empty");
            req(candidateStore != null, "candidateStore must be set");
            req(
                    renewInterval != null && renewInterval.compareTo(Duration.ZERO) > 0,
                    "renewInterval must be greater than 0");
            LeaderElector elector = LeaderElector.builder()
                    .lease(LeaseKey.of(namespace, leaseName))
                    .identity(identity)
                    .coordinated(true)
                    .leaseDuration(leaseDuration)
                    .renewDeadline(renewDeadline)
                    .retryPeriod(retryPeriod)
                    .store(leaseStore)
                    .scheduler(scheduler)
                    .fenceScheduler(fenceScheduler)
                    .storeCalls(storeCalls)
                    .clock(clock)
                    .monotonic(monotonic)
                    .random(random)
                    .callbackExecutor(callbackExecutor)
                    .onStartedLeading(onStartedLeading)
                    .onStoppedLeading(onStoppedLeading)
                    .onNewLeader(onNewLeader)
                    .metrics(metrics)
                    .build();
            return new Candidate(this, elector);
        }

        private static void req(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException("candidate config: " + message);
            }
        }
    }
}
