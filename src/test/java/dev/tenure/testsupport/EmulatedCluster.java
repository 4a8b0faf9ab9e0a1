package dev.tenure.testsupport;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * An emulated Kubernetes API server shared by the tests, the benchmark and {@code make run}: the fabric8 mock
 * API server in CRUD mode, plus eviction with PodDisruptionBudgets, graceful pod termination by simulated
 * kubelets (with node leases), field selectors, discovery for kubectl, a request log and a fault hook; and, as
 * kube-apiserver, status subresources, merge and strategic merge patches, name validation and an ownerReference
 * garbage collector ({@link EmulatorConformanceTest} is the table of these contracts).
 *
 * <pre>
 * try (EmulatedCluster cluster = EmulatedCluster.start()) {
 *   cluster.seed().node("w1").role("worker").create();
 *   cluster.seed().deployment("web").namespace("app").replicas(3).onNodes("w1").create();
 *   cluster.client().pods().inNamespace("app").withName(...).evict();
 * }
 * </pre>
 */
public final class EmulatedCluster implements AutoCloseable {

    /** User-Agent of {@link #client()}: requests the RBAC check does not charge to the operator. */
    public static final String HARNESS_USER_AGENT = "emulated-cluster-test-client";
    /** User-Agent of {@link #operatorClient()}. */
    public static final String OPERATOR_USER_AGENT = "tenure-operator-under-test";
    /** User-Agent of {@link #workloadClient()}: requests the RBAC check does not charge to the operator either. */
    public static final String WORKLOAD_USER_AGENT = "emulated-cluster-workload";

    /** Settings of one emulated cluster; every setter returns this. */
    public static final class Options {
        private Clock clock = Clock.systemUTC();
        private double gracePeriodScale = 0.01;
        private Function<Pod, Duration> terminationDelay;
        private Duration nodeLeaseRenewInterval = Duration.ofMillis(200);
        private int nodeLeaseDurationSeconds = 40;
        private List<String> leaseCandidateVersions = List.of("v1beta1", "v1alpha2");
        private int port;
        private int watchCacheSize = 1000;
        private Duration readinessDelay;
        private Duration controllerInterval = Duration.ofMillis(200);

        /** Fast kubelets for tests: 30 s grace → 300 ms, node leases renewed every 200 ms. */
        public static Options forTests() {
            return new Options();
        }

        /** Kubelets at a humane pace for {@code make run}: grace × 0.1, node leases renewed every 10 s. */
        public static Options forDemo() {
            return new Options().gracePeriodScale(0.1).nodeLeaseRenewInterval(Duration.ofSeconds(10));
        }

        /** Clock for deletionTimestamp and node lease renewTime (a fake clock makes leases stale at will). */
        public Options clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** A terminating pod is removed after gracePeriodSeconds × scale (0 = at once). */
        public Options gracePeriodScale(double scale) {
            if (scale < 0) {
                throw new IllegalArgumentException("gracePeriodScale must be >= 0, was " + scale);
            }
            this.gracePeriodScale = scale;
            return this;
        }

        /** Absolute termination delay per pod, instead of the scaled grace period (benchmarks). */
        public Options terminationDelay(Function<Pod, Duration> delay) {
            this.terminationDelay = delay;
            return this;
        }

        public Options nodeLeaseRenewInterval(Duration interval) {
            if (interval.isZero() || interval.isNegative()) {
                throw new IllegalArgumentException("nodeLeaseRenewInterval must be positive, was " + interval);
            }
            this.nodeLeaseRenewInterval = interval;
            return this;
        }

        public Options nodeLeaseDurationSeconds(int seconds) {
            this.nodeLeaseDurationSeconds = seconds;
            return this;
        }

        /** coordination.k8s.io versions that serve LeaseCandidate in discovery (empty = the API is absent). */
        public Options leaseCandidateVersions(String... versions) {
            this.leaseCandidateVersions = List.of(versions);
            return this;
        }

        /**
         * Changes kept per resource for watches from a resourceVersion; a watch from one older gets 410 Gone
         * (kube-apiserver keeps at least 100 per resource, more when they are younger than 75 s).
         */
        public Options watchCacheSize(int changes) {
            if (changes < 1) {
                throw new IllegalArgumentException("watchCacheSize must be >= 1, was " + changes);
            }
            this.watchCacheSize = changes;
            return this;
        }

        /**
         * A living cluster ({@link LivingCluster}): ReplicaSets and StatefulSets replace deleted and evicted pods, a
         * scheduler binds new pods to nodes that fit, and a bound pod becomes Ready {@code readinessDelay} later (on
         * {@link #clock}). Off by default: a test's cluster changes only as the test and the operator change it.
         */
        public Options living(Duration readinessDelay) {
            if (readinessDelay.isNegative()) {
                throw new IllegalArgumentException("readinessDelay must be >= 0, was " + readinessDelay);
            }
            this.readinessDelay = readinessDelay;
            return this;
        }

        /** How often the living cluster's controllers look (default 200 ms). */
        public Options controllerInterval(Duration interval) {
            if (interval.isZero() || interval.isNegative()) {
                throw new IllegalArgumentException("controllerInterval must be positive, was " + interval);
            }
            this.controllerInterval = interval;
            return this;
        }

        /** The readiness delay of a living cluster; null when the cluster is not living. */
        public Duration readinessDelay() {
            return readinessDelay;
        }

        public int watchCacheSize() {
            return watchCacheSize;
        }

        /** Port to listen on (0 = any free port). */
        public Options port(int port) {
            this.port = port;
            return this;
        }

        public Clock clock() {
            return clock;
        }

        public double gracePeriodScale() {
            return gracePeriodScale;
        }

        public Function<Pod, Duration> terminationDelay() {
            return terminationDelay;
        }

        public Duration nodeLeaseRenewInterval() {
            return nodeLeaseRenewInterval;
        }

        public int nodeLeaseDurationSeconds() {
            return nodeLeaseDurationSeconds;
        }

        public List<String> leaseCandidateVersions() {
            return leaseCandidateVersions;
        }
    }

    private final Options options;
    private final MockWebServer server;
    private final ClusterStore store;
    private final RequestLog requests = new RequestLog();
    private final Faults faults = new Faults();
    private final ScheduledExecutorService executor;
    /** Seeding a workload and a living cluster's controller round exclude each other (no pod created twice). */
    private final java.util.concurrent.locks.ReentrantLock workloads = new java.util.concurrent.locks.ReentrantLock();
    /** Writes that call admission webhooks run here, not on the mock server's event loop. */
    private final java.util.concurrent.ExecutorService admissionCallers;

    private final KubeletSimulator kubelets;
    private final String url;
    private final Path kubeconfig;
    /**
     * The serialization of every cluster's clients: thread-safe, and a client built with a new one decodes its first
     * objects slowly (it builds its deserializers and its table of kinds again).
     */
    private static final io.fabric8.kubernetes.client.utils.KubernetesSerialization CLIENT_SERIALIZATION =
            new io.fabric8.kubernetes.client.utils.KubernetesSerialization();

    /**
     * One Vert.x under every client the tests build against an emulated cluster. fabric8 7.3.1's Vert.x client factory
     * gives each client a Vert.x of its own, and {@code KubernetesClient.close()} leaves it running: measured, a full
     * {@code make test} JVM ended with 755 of them (5,258 threads, event loops and blocked-thread checkers), and every
     * young collection had to walk those threads' stacks (80 s of GC by the last test class, whose run took 4 times as
     * long as alone). One shared, daemon Vert.x; each client still gets its own connection pool on it.
     */
    public static final io.fabric8.kubernetes.client.http.HttpClient.Factory HTTP_CLIENTS =
            new io.fabric8.kubernetes.client.vertx.VertxHttpClientFactory(
                    io.vertx.core.Vertx.vertx(new io.vertx.core.VertxOptions().setUseDaemonThread(true)));

    /** A client builder on the shared {@link #HTTP_CLIENTS}: every test's client of an emulated cluster starts here. */
    public static KubernetesClientBuilder clientBuilder() {
        return new KubernetesClientBuilder().withHttpClientFactory(HTTP_CLIENTS);
    }

    /**
     * fabric8's mock server logs one INFO line per request it answers (~68,000 in a {@code make test}, each carried by
     * surefire's output channel to Maven's JVM and into the reports). Held so the level sticks. At WARNING unless
     * {@value #LOG_REQUESTS_PROPERTY} is true: a test that needs the requests reads {@link #requests()}, the RBAC check
     * its recordings; the mock server's warnings and errors still print.
     */
    private static final java.util.logging.Logger MOCK_SERVER_LOG =
            java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    /** {@code -Dtenure.emulator.log-requests=true}: the mock server's line per request again, to read a red run. */
    public static final String LOG_REQUESTS_PROPERTY = "tenure.emulator.log-requests";

    /** One client per User-Agent, built on first use (harness, operator under test, workloads). */
    private final Map<String, KubernetesClient> clients = new ConcurrentHashMap<>();

    private EmulatedCluster(Options options) {
        this.options = options;
        // before the server serves: the first CRD-schema check must not initialise CEL on the event loop
        StructuralSchema.warmUp();
        IndexedCrudDispatcher crud = new IndexedCrudDispatcher(options.watchCacheSize);
        this.store = new ClusterStore(crud);
        TableView tables = new TableView(store, options.clock);
        EmulatorDispatcher dispatcher = new EmulatorDispatcher(
                crud,
                store,
                tables,
                new Discovery(store.json, options.leaseCandidateVersions),
                requests,
                faults,
                options.clock);
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "emulated-kubelets");
            t.setDaemon(true);
            return t;
        });
        // set at each start, not once: a Quarkus application's logging setup may set levels in between
        MOCK_SERVER_LOG.setLevel(
                Boolean.getBoolean(LOG_REQUESTS_PROPERTY)
                        ? java.util.logging.Level.INFO
                        : java.util.logging.Level.WARNING);
        this.server = new MockWebServer();
        this.admissionCallers = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "emulated-admission");
            t.setDaemon(true);
            return t;
        });
        HttpWatchStreams.install(
                server,
                (event, accept, includeObject) ->
                        TableView.wanted(accept) ? tables.watchEvent(event, includeObject) : event,
                request -> request.method() != io.vertx.core.http.HttpMethod.GET
                        && dispatcher.webhooks().any(),
                dispatcher,
                admissionCallers);
        server.setDispatcher(dispatcher);
        server.start(InetAddress.getLoopbackAddress(), options.port);
        OperatorRequestRecorder.forCluster(server.getPort()).ifPresent(r -> requests.observe(r::record));
        this.url = "http://127.0.0.1:" + server.getPort();
        this.kubelets = new KubeletSimulator(store, executor, options);
        if (options.readinessDelay != null) {
            new LivingCluster(
                    store,
                    executor,
                    options.clock,
                    options.controllerInterval,
                    options.readinessDelay,
                    workloads,
                    null,
                    heldNotReady);
        }
        dispatcher.kubelets(kubelets);
        dispatcher.living(ns -> options.readinessDelay != null || livingNamespaces.contains(ns));
        crud.onOrphans(orphan -> executor.execute(() -> dispatcher.collect(orphan)));
        this.dispatcher = dispatcher;
        this.crud = crud;
        try {
            this.kubeconfig = writeKubeconfig(Files.createTempFile("emulated-cluster-", ".kubeconfig"));
            kubeconfig.toFile().deleteOnExit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private final EmulatorDispatcher dispatcher;
    private final IndexedCrudDispatcher crud;

    /** One namespace living until {@link Living#close()} ({@link #living(String, Duration)}). */
    public interface Living extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Makes the workloads of {@code namespace} live from now until the returned handle is closed, as {@link
     * Options#living} makes a whole cluster's from its start: its ReplicaSets and StatefulSets replace deleted and
     * evicted pods, the scheduler binds the new pods to nodes that fit (every pod bound in the cluster takes its room), and a bound
     * pod is Ready {@code readinessDelay} later. For a test on a cluster it shares with others (one Quarkus
     * application's): the other namespaces change only as their tests and the operator change them.
     */
    public Living living(String namespace, Duration readinessDelay) {
        if (options.readinessDelay != null) {
            throw new IllegalStateException("this cluster is living already (Options.living)");
        }
        if (readinessDelay.isNegative()) {
            throw new IllegalArgumentException("readinessDelay must be >= 0, was " + readinessDelay);
        }
        LivingCluster living = new LivingCluster(
                store,
                executor,
                options.clock,
                options.controllerInterval,
                readinessDelay,
                workloads,
                Objects.requireNonNull(namespace, "namespace"),
                heldNotReady);
        livingNamespaces.add(namespace);
        return () -> {
            living.stop();
            livingNamespaces.remove(namespace);
        };
    }

    /** The namespaces made living one by one ({@link #living(String, Duration)}), until their handle is closed. */
    private final java.util.Set<String> livingNamespaces = ConcurrentHashMap.newKeySet();

    /** "namespace/key=value" of the pods held not Ready ({@link #holdReadiness}). */
    private final java.util.Set<String> heldNotReady = ConcurrentHashMap.newKeySet();

    /**
     * A living cluster's kubelets keep the pods of {@code namespace} labelled {@code key=value} not Ready (Running,
     * Ready False) until the returned handle is closed, as a readiness probe that fails would; then they turn Ready at
     * the next round. Pods Ready already stay so.
     */
    public Living holdReadiness(String namespace, String key, String value) {
        String held = namespace + "/" + key + "=" + value;
        heldNotReady.add(held);
        return () -> heldNotReady.remove(held);
    }

    /** Watch events the emulated API server has sent so far, to every watching client. */
    public long watchEventsSent() {
        return dispatcher.watchEventsSent();
    }

    /** Starts an emulated cluster with test settings. */
    public static EmulatedCluster start() {
        return start(Options.forTests());
    }

    public static EmulatedCluster start(Options options) {
        return new EmulatedCluster(options);
    }

    /**
     * The test harness's client (default namespace "default", no request retries): seeding, faults, checking
     * results. Production code under test gets {@link #operatorClient()}, so that the RBAC check sees its requests
     * and not the harness's.
     */
    public KubernetesClient client() {
        return clientAs(HARNESS_USER_AGENT);
    }

    /** A client for production code under test (reconcilers, machines, electors built by a plain test). */
    public KubernetesClient operatorClient() {
        return clientAs(OPERATOR_USER_AGENT);
    }

    /**
     * A client for workloads the test runs in the cluster (not the operator, with RBAC of their own), e.g. the
     * replicas that take part in coordinated leader election through election-core Candidates: they create and renew
     * their LeaseCandidates and Leases, which the operator itself never needs to.
     */
    public KubernetesClient workloadClient() {
        return clientAs(WORKLOAD_USER_AGENT);
    }

    /** The client of this cluster that identifies itself as {@code userAgent} (what {@link RequestOrigin} reads). */
    private KubernetesClient clientAs(String userAgent) {
        return clients.computeIfAbsent(
                userAgent,
                agent -> clientBuilder()
                        .withConfig(new ConfigBuilder(clientConfig())
                                .withUserAgent(agent)
                                .build())
                        .withKubernetesSerialization(CLIENT_SERIALIZATION)
                        .build());
    }

    /**
     * A harness client (User-Agent {@link #HARNESS_USER_AGENT}) for whatever API server {@code config} points at: for
     * a {@code @QuarkusTest} that seeds or checks through the server its application's client uses.
     */
    public static KubernetesClient harnessClient(Config config) {
        return clientBuilder()
                .withConfig(new ConfigBuilder(config)
                        .withUserAgent(HARNESS_USER_AGENT)
                        .build())
                .build();
    }

    /** The harness client's configuration, for callers that build their own client. */
    public Config clientConfig() {
        return new ConfigBuilder(Config.empty())
                .withMasterUrl(url)
                .withTrustCerts(true)
                .withNamespace("default")
                .withRequestRetryBackoffLimit(0)
                .withUserAgent(HARNESS_USER_AGENT)
                .build();
    }

    /**
     * The configuration of {@link #operatorClient()}. A client built from it with another User-Agent still counts
     * as the operator; only {@link #HARNESS_USER_AGENT} and kubectl do not ({@link RequestOrigin}).
     */
    public Config operatorClientConfig() {
        return new ConfigBuilder(clientConfig())
                .withUserAgent(OPERATOR_USER_AGENT)
                .build();
    }

    /** The API server URL, e.g. {@code http://127.0.0.1:38211}. */
    public String url() {
        return url;
    }

    /** A kubeconfig for this cluster written at start (a temp file deleted on exit). */
    public Path kubeconfig() {
        return kubeconfig;
    }

    /** Writes a kubeconfig (context "emulated", namespace "default") pointing at this cluster. */
    public Path writeKubeconfig(Path file) {
        String yaml = """
        apiVersion: v1
        kind: Config
        clusters:
        - name: emulated
          cluster:
            server: %s
        users:
        - name: emulated
          user:
            token: emulated
        contexts:
        - name: emulated
          context:
            cluster: emulated
            user: emulated
            namespace: default
        current-context: emulated
        """.formatted(url);
        try {
            Files.writeString(file, yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /** Fluent creation of nodes, workloads, pods, PDBs and namespaces (not recorded in the request log). */
    public ClusterSeed seed() {
        return new ClusterSeed(store, kubelets, options.clock, workloads);
    }

    /** An object as stored, read without an API request (so also from inside a request observer). */
    public <T extends HasMetadata> Optional<T> stored(Class<T> type, String namespace, String name) {
        return store.get(
                ClusterStore.collectionPath(HasMetadata.getApiVersion(type), HasMetadata.getPlural(type), namespace)
                        + "/" + name,
                type);
    }

    public RequestLog requests() {
        return requests;
    }

    public Faults faults() {
        return faults;
    }

    /** The node's kubelet stops: its terminating pods stay terminating, its node lease stops being renewed. */
    public void markKubeletDown(String node) {
        kubelets.markDown(node);
    }

    /** The node's kubelet is back: pending terminations finish and its lease is renewed again. */
    public void markKubeletUp(String node) {
        kubelets.markUp(node);
    }

    public boolean isKubeletDown(String node) {
        return kubelets.isDown(node);
    }

    /**
     * The pod's kubelet starts a run of {@code container} that began at {@code startedAt} (no earlier than the
     * previous run's end) and reports it running: a new container ID, and after a previous run, {@code restartCount + 1}
     * with that run in {@code lastState}. Returns the container ID.
     */
    public String startContainer(String namespace, String pod, String container, java.time.Instant startedAt) {
        return kubelets.startContainer("/api/v1/namespaces/" + namespace + "/pods/" + pod, container, startedAt);
    }

    /**
     * The running run of {@code container} ends now (exit code and reason as the kubelet words them: 137 "Error" for a
     * kill -9, "OOMKilled", 0 "Completed"); its kubelet reports {@code state.terminated} {@code reportLag} later, or
     * only once it is back up if its node's kubelet is down ({@link #markKubeletDown}) at that time.
     */
    public void endContainer(
            String namespace, String pod, String container, int exitCode, String reason, Duration reportLag) {
        kubelets.endContainer(
                "/api/v1/namespaces/" + namespace + "/pods/" + pod, container, exitCode, reason, reportLag);
    }

    /** The boot ID of {@code node}'s {@code boot}th boot (0: the one it was created with), as the emulator writes it. */
    public static String bootId(String node, int boot) {
        return java.util
                .UUID
                .nameUUIDFromBytes((node + "/" + boot).getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .toString();
    }

    /** Boots per node since it was created ({@link #reboot}). */
    private final Map<String, Integer> boots = new ConcurrentHashMap<>();

    /**
     * The node reboots, as a maintenance agent (Kured, a firmware job) reboots it: at once its Ready condition turns
     * False (reason KubeletNotReady) and {@code status.nodeInfo.bootID} changes, as the kubelet reports after a restart;
     * {@code readyAfter} later Ready turns True again, with a new lastTransitionTime. Other conditions are kept; each
     * write is an update with the read resourceVersion, tried again on a conflict (the operator writes node conditions
     * too). Returns the new boot ID.
     */
    public String reboot(String node, Duration readyAfter) {
        String[] bootId = new String[1];
        nodeStatus(node, n -> {
            int boot = boots.merge(node, 1, Integer::sum);
            bootId[0] = bootId(node, boot);
            n.getStatus().getNodeInfo().setBootID(bootId[0]);
            ready(n, false);
        });
        executor.schedule(() -> nodeStatus(node, n -> ready(n, true)), readyAfter.toMillis(), TimeUnit.MILLISECONDS);
        return bootId[0];
    }

    private void ready(io.fabric8.kubernetes.api.model.Node node, boolean ready) {
        String now = java.time.format.DateTimeFormatter.ISO_INSTANT.format(
                options.clock().instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        node.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType()))
                .forEach(c -> {
                    c.setStatus(ready ? "True" : "False");
                    c.setReason(ready ? "KubeletReady" : "KubeletNotReady");
                    c.setMessage(ready ? "kubelet is posting ready status" : "node is rebooting");
                    c.setLastTransitionTime(now);
                    c.setLastHeartbeatTime(now);
                });
    }

    private void nodeStatus(String node, java.util.function.Consumer<io.fabric8.kubernetes.api.model.Node> change) {
        KubernetesClient client = client();
        for (int attempt = 0; attempt < 20; attempt++) {
            io.fabric8.kubernetes.api.model.Node read =
                    client.nodes().withName(node).get();
            if (read == null) {
                return;
            }
            change.accept(read);
            try {
                client.resource(read).updateStatus();
                return;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
            }
        }
        throw new IllegalStateException("node " + node + ": status update kept conflicting");
    }

    /**
     * Whether custom resources are pruned, defaulted and validated against their CRD's schema and CEL rules (on by
     * default, as kube-apiserver). Off emulates an API server that enforces neither (a CRD applied without its
     * schema, or validation rules on a server too old for them), for tests of the operator's own input checks.
     */
    public void enforceCrdSchemas(boolean enforce) {
        dispatcher.enforceCrdSchemas(enforce);
    }

    /**
     * How many watches of {@code resource} (a plural, e.g. {@code nodemaintenances}) are open: started, sent their
     * initial events, and sent every change from now on.
     */
    public long openWatches(String resource) {
        return crud.openWatches(resource);
    }

    /**
     * Every watch of {@code resource} (a plural) is sent each change {@code lag} after it happened, in order: the
     * informers' caches run behind the API server, as on a busy cluster, so a controller may read a version older
     * than its own last write. Reads (GET, LIST) are not delayed. {@link Duration#ZERO} ends the lag.
     */
    public void lagWatches(String resource, Duration lag) {
        crud.lagWatches(resource, lag);
    }

    /**
     * The API server ends every watch, as kube-apiserver does when a watch reaches its request timeout: a watch that
     * asked for bookmarks is sent one first; clients watch again from the resourceVersion they last saw (and are told
     * 410 Gone if the watch cache no longer has it).
     */
    public void closeWatches() {
        crud.closeWatches();
    }

    /** Every watch's connection is lost (no bookmark first): clients watch again from the last event they saw. */
    public void dropWatches() {
        crud.dropWatches();
    }

    /** Sends each watch that asked for bookmarks one now, as kube-apiserver does about once a minute. */
    public void sendBookmarks() {
        crud.sendBookmarks();
    }

    /**
     * Where a ValidatingWebhookConfiguration's {@code clientConfig.service} {@code namespace/name} is reached, e.g. the
     * {@code @QuarkusTest} application's base URL (the emulated cluster has no Service network).
     */
    public void serviceUrl(String namespace, String name, String baseUrl) {
        dispatcher.webhooks().serviceUrl(namespace, name, baseUrl);
    }

    public Options options() {
        return options;
    }

    @Override
    public void close() {
        executor.shutdownNow();
        admissionCallers.shutdownNow();
        clients.values().forEach(KubernetesClient::close);
        server.shutdown();
    }
}
