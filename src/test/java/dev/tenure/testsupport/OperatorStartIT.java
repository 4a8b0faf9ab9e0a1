package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/** Smoke test: the operator starts against the emulated cluster and reports ready. */
@QuarkusTest
@QuarkusTestResource(EmulatedClusterResource.class)
@EndToEnd
class OperatorStartIT {

    @TestHTTPResource("/q/health/ready")
    URI ready;

    @Test
    void operatorStartsAgainstTheEmulatedClusterAndIsReady() {
        HttpClient http = HttpClient.newHttpClient();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            HttpResponse<String> r =
                    http.send(HttpRequest.newBuilder(ready).GET().build(), HttpResponse.BodyHandlers.ofString());
            // 503 until a reconciler exists (JOSDK reports DOWN when it has no controller to start); then 200.
            assertThat(r.statusCode()).as(r.body()).isIn(200, 503);
            assertThat(r.body()).contains("\"checks\"");
        });
        // The application is wired to the emulated API server, not to some other cluster.
        assertThat(ConfigProvider.getConfig().getValue("quarkus.kubernetes-client.api-server-url", String.class))
                .isEqualTo(EmulatedClusterResource.cluster().url());
    }
}
