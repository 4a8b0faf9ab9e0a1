package dev.tenure.kube;

import dev.tenure.election.WorkFence;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Every write the operator's work sends passes the {@link WorkFence}: a POST, PUT, PATCH or DELETE goes out only
 * while the leadership term is open, with a request timeout no longer than the time the term has left, so its answer
 * (or its abandonment) comes before the fence. Reads and watches are not fenced: a standby may read. A header
 * ({@value #TERM_HEADER}: {@code <identity>; term <n>}) names the instance and the term of each write.
 *
 * <p>What this cannot fence: a write the server received in time but applies after the fence (a stalled API server).
 * Writes whose target the successor changes first fail on their resourceVersion or UID precondition (node patches,
 * evictions); the rest are bounded by the request timeout, which ends before any contender can take the lease.
 */
public final class FencedWrites implements Interceptor {
    static final String NAME = "tenure-work-fence";
    /** Names the instance and term of every write: {@code <identity>; term <n>}. */
    public static final String TERM_HEADER = "Tenure-Term";

    private static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH", "DELETE");

    private final WorkFence fence;
    private final String instance;

    public FencedWrites(WorkFence fence, String instance) {
        this.fence = fence;
        this.instance = instance;
    }

    /** A client on {@code config} whose writes pass {@code fence}. */
    public static KubernetesClient client(
            Config config, KubernetesSerialization serialization, WorkFence fence, String instance) {
        return client(config, serialization, fence, instance, null);
    }

    /** {@link #client(Config, KubernetesSerialization, WorkFence, String)} on {@code httpClients} (null: default). */
    public static KubernetesClient client(
            Config config,
            KubernetesSerialization serialization,
            WorkFence fence,
            String instance,
            io.fabric8.kubernetes.client.http.HttpClient.Factory httpClients) {
        KubernetesClientBuilder builder = new KubernetesClientBuilder().withConfig(config);
        if (httpClients != null) {
            builder.withHttpClientFactory(httpClients);
        }
        if (serialization != null) {
            builder.withKubernetesSerialization(serialization);
        }
        return builder.withHttpClientBuilderConsumer(
                        b -> b.addOrReplaceInterceptor(NAME, new FencedWrites(fence, instance)))
                .build();
    }

    /**
     * API groups whose POSTs ask a question and change nothing (SubjectAccessReview, TokenReview): the admission
     * webhook asks them on every replica, standbys included, so they are not writes to fence.
     */
    private static final Set<String> REVIEW_PATHS =
            Set.of("/apis/authorization.k8s.io/", "/apis/authentication.k8s.io/");

    /**
     * CustomResourceDefinitions: written only by the extension's CRD apply at start in dev and test runs (off in
     * production, where the operator's RBAC can only read them). That apply runs at start, whether or not this
     * replica leads yet, and is not the work of a term: fenced, it was refused whenever the start outran the first
     * election, and the cluster was left without the CRD.
     */
    private static final String CRD_PATH = "/apis/apiextensions.k8s.io/";

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        if (!WRITES.contains(request.method())
                || isReview(request)
                || request.uri().getPath().startsWith(CRD_PATH)) {
            return;
        }
        Duration budget = fence.writeBudget(); // throws OutsideTerm: the write is not sent
        if (builder instanceof HttpRequest.Builder b) {
            b.timeout(budget.toMillis(), TimeUnit.MILLISECONDS);
        }
        builder.setHeader(TERM_HEADER, instance + "; term " + fence.term());
    }

    private static boolean isReview(HttpRequest request) {
        String path = request.uri().getPath();
        return request.method().equals("POST") && REVIEW_PATHS.stream().anyMatch(path::startsWith);
    }
}
