package dev.tenure.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.machine.MaintenanceMetrics;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 19.4: drains take minutes to hours and handovers up to their timeout; a histogram whose top
 * finite bucket is Micrometer's default 30 s puts all of them past it, and histogram_quantile (the
 * dashboard's p50/p95) has nothing to interpolate. Each duration must land in a finite bucket that is
 * not more than a factor of ~2.5 above it.
 */
class HistogramBucketsTest {

    @ParameterizedTest(name = "drain of {0}")
    @CsvSource({"PT3S", "PT45S", "PT7M", "PT50M", "PT3H", "PT20H"})
    void drainDurationsLandInAFiniteBucketNearThem(Duration took) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new MaintenanceMetrics(registry).drained(took);
        assertTightFiniteBucket(registry.scrape(), "tenure_maintenance_drain_duration_seconds", took);
    }

    @ParameterizedTest(name = "handover of {0}")
    @CsvSource({"PT0.3S", "PT4S", "PT45S", "PT4M", "PT20M"})
    void handoverDurationsLandInAFiniteBucketNearThem(Duration took) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new MaintenanceMetrics(registry).handover(MaintenanceMetrics.HandoverOutcome.completed, took);
        assertTightFiniteBucket(registry.scrape(), "tenure_maintenance_handover_duration_seconds", took);
    }

    @ParameterizedTest(name = "stage of {0}")
    @CsvSource({"PT2S", "PT45S", "PT7M", "PT50M", "PT3H", "PT20H", "P3D"})
    void stageDurationsLandInAFiniteBucketNearThem(Duration took) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        java.time.Instant from = java.time.Instant.parse("2026-03-01T00:00:00Z");
        new MaintenanceMetrics(registry)
                .stage(
                        MaintenanceMetrics.StageLabel.window_wait,
                        MaintenanceMetrics.StageOutcome.completed,
                        from,
                        from.plus(took));
        assertTightFiniteBucket(registry.scrape(), "tenure_maintenance_stage_duration_seconds", took);
    }

    /** The smallest finite bucket holding the observation is at most 2.5 × the observation (and exists). */
    private static void assertTightFiniteBucket(String scrape, String metric, Duration took) {
        double seconds = took.toNanos() / 1e9;
        Matcher m = Pattern.compile("(?m)^" + metric + "_bucket\\{[^}]*le=\"([0-9.e+E]+)\"[^}]*} ([0-9.]+)$")
                .matcher(scrape);
        Double smallest = null;
        while (m.find()) {
            double le = Double.parseDouble(m.group(1));
            if (Double.parseDouble(m.group(2)) >= 1 && (smallest == null || le < smallest)) {
                smallest = le;
            }
        }
        assertThat(smallest).as("finite bucket holding %s in%n%s", took, scrape).isNotNull();
        assertThat(smallest)
                .as("smallest finite bucket holding %s s", seconds)
                .isGreaterThanOrEqualTo(seconds)
                .isLessThanOrEqualTo(seconds * 2.5);
    }
}
