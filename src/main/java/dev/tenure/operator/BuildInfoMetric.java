package dev.tenure.operator;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code tenure_build_info{version="…"} 1}: the usual Prometheus build-info series. It is always
 * present, so "is Prometheus scraping the operator at all" has an answer before any maintenance.
 */
@ApplicationScoped
public class BuildInfoMetric {

    static final String NAME = "tenure.build.info";

    void register(
            @Observes StartupEvent start,
            MeterRegistry registry,
            @ConfigProperty(name = "quarkus.application.version", defaultValue = "unknown") String version) {
        Gauge.builder(NAME, () -> 1)
                .description("Always 1; labels carry the operator version")
                .tag("version", version)
                .strongReference(true)
                .register(registry);
    }
}
