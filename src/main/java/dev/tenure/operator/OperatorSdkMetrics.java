package dev.tenure.operator;

import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Java Operator SDK's metrics, bounded and described. quarkus-operator-sdk's default collects them per
 * resource: ~100 series for every NodeMaintenance ever reconciled, deleted ones included (a reconcile-time
 * histogram per name), so a scrape grows with the number of maintenances ever created. Here they are per
 * controller only (this bean replaces quarkus-operator-sdk's {@code @DefaultBean}); which maintenance is
 * slow is in its status and events, not in a label. The filter gives every {@code operator_sdk_*} metric the
 * HELP text JOSDK leaves out (and Quarkus' {@code http_server_active_requests} its own); Netty's allocator
 * metrics, also without HELP and of no use for running the operator, are off (application.properties).
 */
public final class OperatorSdkMetrics {

    /** JOSDK meter name (after {@code operator.sdk.}) → its HELP text; the first matching prefix wins. */
    static final Map<String, String> DESCRIPTIONS = descriptions();

    private static final String JOSDK_PREFIX = "operator.sdk.";

    @Produces
    @Singleton
    Metrics operatorSdkMetrics(MeterRegistry registry) {
        return MicrometerMetrics.withoutPerResourceMetrics(registry);
    }

    @Produces
    @Singleton
    MeterFilter operatorSdkDescriptions() {
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                String description = describe(id.getName());
                if (description == null
                        || (id.getDescription() != null && !id.getDescription().isBlank())) {
                    return id;
                }
                return new Meter.Id(
                        id.getName(),
                        io.micrometer.core.instrument.Tags.of(id.getTags()),
                        id.getBaseUnit(),
                        description,
                        id.getType());
            }
        };
    }

    /** The HELP text of a JOSDK meter (or one Quarkus leaves undescribed), {@code null} for any other. */
    static String describe(String meterName) {
        if (meterName.equals("http.server.active.requests")) {
            return "HTTP requests being served now";
        }
        if (!meterName.startsWith(JOSDK_PREFIX)) {
            return null;
        }
        String rest = meterName.substring(JOSDK_PREFIX.length());
        return DESCRIPTIONS.entrySet().stream()
                .filter(e -> rest.startsWith(e.getKey()))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElse("Java Operator SDK metric (per controller)");
    }

    private static Map<String, String> descriptions() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("events.received", "Events received by the controllers (informer and timer events)");
        d.put("events.delete", "Delete events received for primary resources");
        d.put("reconciliations.started", "Reconciliations started");
        d.put("reconciliations.retries.number", "Reconciliations started as a retry after a failure");
        d.put("reconciliations.retries.last", "Reconciliations started as the last retry allowed");
        d.put("reconciliations.success", "Reconciliations that finished without an exception");
        d.put("reconciliations.failed", "Reconciliations that ended in an exception");
        d.put("reconciliations.executions", "Reconciliations running now");
        d.put("reconciliations.queue.size", "Resources waiting for a reconcile");
        d.put("controllers.execution", "Controller executions (reconcile, cleanup) by controller");
        return java.util.Collections.unmodifiableMap(d);
    }
}
