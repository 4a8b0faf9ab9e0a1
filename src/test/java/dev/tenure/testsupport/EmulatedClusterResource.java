package dev.tenure.testsupport;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * Starts one emulated cluster for a {@code @QuarkusTest} and points the operator's Kubernetes client at it:
 * <pre>
 * &#64;QuarkusTest
 * &#64;QuarkusTestResource(EmulatedClusterResource.class)
 * class DrainIT {
 *   EmulatedCluster cluster = EmulatedClusterResource.cluster();
 * }
 * </pre>
 */
public class EmulatedClusterResource implements QuarkusTestResourceLifecycleManager {
    private static volatile EmulatedCluster current;

    /** The cluster the running Quarkus test application talks to (seed, request log, faults, kubelets). */
    public static EmulatedCluster cluster() {
        EmulatedCluster c = current;
        if (c == null) {
            throw new IllegalStateException("no emulated cluster: annotate the test with "
                    + "@QuarkusTestResource(EmulatedClusterResource.class)");
        }
        return c;
    }

    private final EmulatedCluster.Options options = EmulatedCluster.Options.forTests();

    @Override
    public Map<String, String> start() {
        current = EmulatedCluster.start(options);
        current.seed().namespace("tenure-system");
        return Map.of(
                "quarkus.kubernetes-client.api-server-url", current.url(),
                "quarkus.kubernetes-client.trust-certs", "true",
                "quarkus.kubernetes-client.namespace", "tenure-system",
                "quarkus.kubernetes-client.devservices.enabled", "false",
                "quarkus.kubernetes-client.request-retry-backoff-limit", "0",
                "quarkus.operator-sdk.enable-ssa", "false",
                // Several test JVMs share these machines: a random HTTP port never collides.
                "quarkus.http.test-port", "0");
    }

    @Override
    public void stop() {
        if (current != null) {
            current.close();
            current = null;
        }
    }
}
