package dev.tenure.operator;

import dev.tenure.coordination.CoordinationController;
import dev.tenure.coordination.CoordinationMetrics;
import dev.tenure.coordination.ElectionPlanner;
import dev.tenure.coordination.ElectionTiming;
import dev.tenure.coordination.LeaseCandidateApi;
import dev.tenure.election.WorkFence;
import dev.tenure.election.kube.KubeLeaseStore;
import dev.tenure.kube.NodeCache;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;

/**
 * Quarkus wiring of the coordination controller, built from config. {@code OperatorLeadership} starts it when
 * this replica leads (with the reconcilers) and stops it when leadership ends.
 */
@ApplicationScoped
public class CoordinationBeans {

    @Produces
    @ApplicationScoped
    CoordinationController coordinationController(
            KubernetesClient client,
            TenureConfig config,
            MeterRegistry registry,
            Clock clock,
            NodeCache nodes,
            WorkFence fence) {
        CoordinationConfig c = config.coordination();
        LeaseCandidateApi api = c.enabled()
                ? LeaseCandidateApi.discover(client, c.leaseCandidateVersion())
                : new LeaseCandidateApi(null, "disabled (tenure.coordination.enabled=false)");
        CoordinationController controller = new CoordinationController(
                client,
                // Lease writes on the shared client: optimistic (409 is not retried), transient failures retried
                new KubeLeaseStore(client),
                new ElectionPlanner(
                        ElectionTiming.UPSTREAM, c.oldestEmulationVersion().enabled()),
                clock,
                api,
                new CoordinationMetrics(registry, clock),
                c.gcPeriod(),
                nodes);
        controller.fencedBy(fence);
        return controller;
    }

    void onStop(@Observes ShutdownEvent event, CoordinationController controller) {
        controller.stop();
    }
}
