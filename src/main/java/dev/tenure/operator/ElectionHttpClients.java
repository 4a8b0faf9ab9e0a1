package dev.tenure.operator;

import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientBuilder;
import io.quarkus.runtime.ResettableSystemProperties;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;

/**
 * The HTTP transport of the operator's election client: fabric8's Vert.x HTTP client ({@link VertxHttpClientBuilder},
 * the same builder quarkus-kubernetes-client's {@code QuarkusHttpClientFactory} gives the operator's main client, so
 * TLS, proxy, token and timeouts come from the same {@code Config} the same way) on a Vert.x instance of its own.
 *
 * <p>Why not the application's Vert.x, which every other fabric8 client of the process uses: an HTTP request's I/O
 * runs on one of that instance's event loops, and so does the informers' work (a list response decoded on the loop,
 * watch events, class loading on first use). A renewal queued behind it waits, and a leader whose renewals wait for
 * longer than renewDeadline is fenced and exits (bench row 15: the packaged operator, started beside heavy load, lost
 * its lease while its loops were blocked 2–5 s at a time; {@code ElectionClientIsolationIT} blocks every loop of the
 * application's Vert.x for longer than renewDeadline and the leader still renews). One event loop is enough for the
 * lease reads, writes and watch and the evidence-of-death pod informer of the operator's namespace; its threads are
 * daemons, like fabric8's own instance's.
 *
 * <p>Not {@code io.fabric8.kubernetes.client.vertx.VertxHttpClientFactory}: quarkus-kubernetes-client deletes that
 * class from native images; {@code VertxHttpClientBuilder} is what its own factory uses there. Created with
 * {@code new} (no service loading, no reflection), so the native build needs nothing registered for it.
 */
final class ElectionHttpClients implements HttpClient.Factory, AutoCloseable {
    private final Vertx vertx;

    ElectionHttpClients() {
        this.vertx = createVertx();
    }

    /**
     * Settings as quarkus-kubernetes-client's and fabric8's own instances (no file caching or class-path resolving,
     * the JDK's resolver instead of Vert.x's DNS client), with one event loop and daemon threads.
     */
    private static Vertx createVertx() {
        try (var ignored = ResettableSystemProperties.of("vertx.disableDnsResolver", "true")) {
            return Vertx.vertx(new VertxOptions()
                    .setEventLoopPoolSize(1)
                    .setWorkerPoolSize(1)
                    .setInternalBlockingPoolSize(1)
                    .setUseDaemonThread(true)
                    .setFileSystemOptions(
                            new FileSystemOptions().setFileCachingEnabled(false).setClassPathResolvingEnabled(false)));
        }
    }

    @Override
    public VertxHttpClientBuilder<ElectionHttpClients> newBuilder() {
        return new VertxHttpClientBuilder<>(this, vertx);
    }

    /** Closes the Vert.x instance: after the election client, whose connections run on it. */
    @Override
    public void close() {
        vertx.close();
    }
}
