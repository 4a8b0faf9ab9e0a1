package dev.tenure.maintenance;

import dev.tenure.testsupport.EmulatedCluster;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/** Starts an emulated cluster for a @QuarkusTest and points the operator's client at it. */
public class EmulatedClusterResource implements QuarkusTestResourceLifecycleManager {

    private static volatile EmulatedCluster cluster;

    static EmulatedCluster cluster() {
        return cluster;
    }

    @Override
    public Map<String, String> start() {
        cluster = EmulatedCluster.start();
        return Map.of("quarkus.kubernetes-client.api-server-url", cluster.url(),
                "quarkus.kubernetes-client.trust-certs", "true",
                "quarkus.kubernetes-client.namespace", "default",
                "quarkus.kubernetes-client.devservices.enabled", "false");
    }

    @Override
    public void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }
}
