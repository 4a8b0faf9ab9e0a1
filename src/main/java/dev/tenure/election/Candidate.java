package dev.tenure.election;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

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
        ElectionConfig election = elector.config();
        this.candidate = LeaseKey.of(b.namespace, election.identity());
        this.desired = new CandidateRecord(
                b.namespace,
                election.identity(),
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
        this.scheduler = election.scheduler();
        this.clock = election.clock();
        this.renewInterval = b.renewInterval;
        this.retryPeriod = election.retryPeriod();
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

    /**
     * Stops renewing the candidate and releases the Lease if held (see {@link LeaderElector#stop()}, which also ends
     * the threads the elector started for itself). The LeaseCandidate is left for the controller to expire.
     */
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

    /**
     * Builds a {@link Candidate}: the LeaseCandidate's fields here, the elector's settings (identity, timing, store,
     * schedulers, clocks, callbacks) from {@link ElectionConfig.Settings}, checked by the same rules as any elector's.
     * The identity is both the LeaseCandidate's name and the lease holder identity.
     */
    public static final class Builder extends ElectionConfig.Settings<Builder> {
        private String namespace;
        private String leaseName;
        private String binaryVersion;
        private String emulationVersion;
        private String strategy = OLDEST_EMULATION_VERSION;
        private String nodeName;
        private LeaseCandidateStore candidateStore;
        private Duration renewInterval = Duration.ofMinutes(5);

        private Builder() {}

        @Override
        Builder self() {
            return this;
        }

        public Builder namespace(String v) {
            this.namespace = v;
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
        /** The store of the Lease the controller assigns (the elector's {@link #store}). */
        public Builder leaseStore(LeaseStore v) {
            return store(v);
        }

        public Builder renewInterval(Duration v) {
            this.renewInterval = v;
            return this;
        }

        /** Checks the candidate's own fields, then the elector's (a coordinated one on {@code namespace/leaseName}). */
        public Candidate build() {
            req(namespace != null && !namespace.isBlank(), "namespace must be non-empty");
            req(leaseName != null && !leaseName.isBlank(), "leaseName must be non-empty");
            req(binaryVersion != null && !binaryVersion.isBlank(), "binaryVersion must be non-empty");
            req(emulationVersion != null && !emulationVersion.isBlank(), "emulationVersion must be non-empty");
            req(candidateStore != null, "candidateStore must be set");
            req(
                    renewInterval != null && renewInterval.compareTo(Duration.ZERO) > 0,
                    "renewInterval must be greater than 0");
            return new Candidate(this, elector(LeaseKey.of(namespace, leaseName), true, null));
        }

        private static void req(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException("candidate config: " + message);
            }
        }
    }
}
