package dev.tenure.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 19: Micrometer's default histogram ends at 30 s, so every real drain landed past the last finite bucket
 * and the dashboard's p50/p95 (histogram_quantile over _bucket) had nothing to interpolate.
 */
class MaintenanceMetricsTest {

    @Test
    void drainAndHandoverHistogramsHaveFiniteBucketsFromSecondsToHours() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MaintenanceMetrics metrics = new MaintenanceMetrics(registry);
        metrics.drained(Duration.ofMinutes(90));
        metrics.handover(MaintenanceMetrics.HandoverOutcome.values()[0], Duration.ofMillis(40));
        String scrape = registry.scrape();
        // a 90-minute drain lands in the 2 h bucket, not only in +Inf (the simpleclient format ends labels with ",")
        assertThat(scrape).containsPattern(bucket("drain", "7200.0", "", "1.0"))
                .containsPattern(bucket("drain", "3600.0", "", "0.0"))
                .containsPattern(bucket("drain", "43200.0", "", "1.0"))
                .containsPattern(bucket("drain", "5.0", "", "0.0"));
        assertThat(scrape).containsPattern(bucket("handover", "0.05", "outcome=\"completed\",", "1.0"))
                .containsPattern(bucket("handover", "0.01", "outcome=\"completed\",", "0.0"))
                .containsPattern(bucket("handover", "600.0", "outcome=\"completed\",", "1.0"));
    }

    private static String bucket(String timer, String le, String more, String count) {
        return "tenure_maintenance_" + timer + "_duration_seconds_bucket\\{" + more + "le=\""
                + java.util.regex.Pattern.quote(le) + "\",?\\} " + java.util.regex.Pattern.quote(count);
    }
}
