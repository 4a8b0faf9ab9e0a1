package dev.tenure.coordination;

import dev.tenure.operator.CoordinationConfig;
import dev.tenure.operator.TenureConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;
import org.jboss.logging.Logger;

/** Quarkus wiring of the coordination controller: built from config, started at boot unless told otherwise. */
@ApplicationScoped
public class CoordinationBeans {

    private static final Logger LOG = Logger.getLogger(CoordinationBeans.class);

    @Produces
    @ApplicationScoped
    CoordinationController coordinationController(KubernetesClient client, TenureConfig config,
            MeterRegistry registry, Instance<Clock> clocks) {
        CoordinationConfig c = config.coordination();
        // the wiring supplies the clock: a Clock bean if the application has one, else the system clock
        Clock clock = clocks.isResolvable() ? clocks.get() : Clock.systemUTC();
        LeaseCandidateApi api = c.enabled()
                ? LeaseCandidateApi.discover(client, c.leaseCandidateVersion())
                : new LeaseCandidateApi(null, "disabled (tenure.coordination.enabled=false)");
        return new CoordinationController(client, new ElectionPlanner(ElectionTiming.UPSTREAM,
                c.oldestEmulationVersion().enabled()), clock, api, new CoordinationMetrics(registry, clock),
                c.gcPeriod());
    }

    void onStart(@Observes StartupEvent event, TenureConfig config, CoordinationController controller) {
        if (!config.coordination().enabled() || !config.coordination().autostart()) {
            return;
        }
        try {
            controller.start();
        } catch (RuntimeException e) {
            // the rest of the operator keeps running; readiness carries the detail
            LOG.errorf(e, "Coordinated leader election could not start: %s", e.getMessage());
        }
    }

    void onStop(@Observes ShutdownEvent event, CoordinationController controller) {
        controller.stop();
    }
}
