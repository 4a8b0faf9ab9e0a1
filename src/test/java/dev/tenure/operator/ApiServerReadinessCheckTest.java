package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testsupport.EndToEnd;
import dev.tenure.testsupport.RefusingPort;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.VersionInfo;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.IOException;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient
@EndToEnd
class ApiServerReadinessCheckTest {

    KubernetesMockServer server;
    KubernetesClient client;

    @Test
    void upWithTheServerVersionWhenTheApiAnswers() {
        server.setVersionInfo(new VersionInfo.Builder()
                .withMajor("1")
                .withMinor("32")
                .withGitVersion("v1.32.1")
                .build());
        HealthCheckResponse response = check(client).call();
        assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(response.getData().orElseThrow())
                .containsEntry("version", "v1.32.1")
                .containsKey("server");
    }

    @Test
    void downWithTheServerAndTheErrorWhenTheApiIsUnreachable() throws IOException {
        // Held while the check runs: a port let go could be taken by another process's API server (RefusingPort).
        try (RefusingPort closed = RefusingPort.hold();
                KubernetesClient unreachable = new KubernetesClientBuilder()
                        .withConfig(new ConfigBuilder()
                                .withMasterUrl(closed.url())
                                .withRequestRetryBackoffLimit(0)
                                .withConnectionTimeout(1000)
                                .withRequestTimeout(1000)
                                .build())
                        .build()) {
            HealthCheckResponse response = check(unreachable).call();
            assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
            assertThat(response.getData().orElseThrow().get("server").toString())
                    .startsWith(closed.url());
            assertThat(response.getData().orElseThrow().get("detail").toString())
                    .startsWith("GET /version failed: ");
        }
    }

    @SuppressWarnings("UnnecessaryAssignment") // no CDI here: the test injects the client by hand
    private static ApiServerReadinessCheck check(KubernetesClient client) {
        ApiServerReadinessCheck check = new ApiServerReadinessCheck();
        check.client = client;
        return check;
    }
}
