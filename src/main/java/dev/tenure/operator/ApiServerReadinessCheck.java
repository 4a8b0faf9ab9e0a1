package dev.tenure.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness: the Kubernetes API answers. A replica that cannot reach it can neither lead nor
 * stand by usefully, and the detail says which server it tried and what went wrong.
 */
@Readiness
@ApplicationScoped
public class ApiServerReadinessCheck implements HealthCheck {

    static final String NAME = "Kubernetes API reachable";

    @Inject
    KubernetesClient client;

    @Override
    public HealthCheckResponse call() {
        String server = String.valueOf(client.getMasterUrl());
        try {
            VersionInfo version = client.getKubernetesVersion();
            return HealthCheckResponse.named(NAME)
                    .up()
                    .withData("server", server)
                    .withData(
                            "version",
                            version.getGitVersion() != null
                                    ? version.getGitVersion()
                                    : version.getMajor() + "." + version.getMinor())
                    .build();
        } catch (RuntimeException e) {
            return HealthCheckResponse.named(NAME)
                    .down()
                    .withData("server", server)
                    .withData(
                            "detail",
                            "GET /version failed: " + rootMessage(e)
                                    + " (check the API server address, network policies and the service account token)")
                    .build();
        }
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
