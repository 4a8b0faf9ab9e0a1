package dev.tenure.operator;

import dev.tenure.coordination.CoordinationController;
import dev.tenure.kube.NodeCache;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.RegisteredController;
import io.javaoperatorsdk.operator.health.InformerHealthIndicator;
import io.javaoperatorsdk.operator.health.InformerWrappingEventSourceHealthIndicator;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;

/**
 * Liveness: the leader's watches are alive — every informer of the JOSDK reconcilers, the shared Node cache and the
 * coordination controller is running, synced and watching, or has not been otherwise for longer than
 * {@code tenure.health.watch-grace}. A standby replica runs no watches and is live.
 */
@Liveness
@ApplicationScoped
public class WatchLivenessCheck implements HealthCheck {
    static final String NAME = "tenure-watches";
    /** The shared Node cache's watch, as the probe names it. */
    static final String NODES = "nodes";

    private final Operator operator;
    private final OperatorLeadership leadership;
    private final Instance<CoordinationController> coordination;
    private final NodeCache nodes;
    private final Clock clock;
    private final WatchLiveness liveness;

    @Inject
    public WatchLivenessCheck(
            Operator operator,
            OperatorLeadership leadership,
            Instance<CoordinationController> coordination,
            NodeCache nodes,
            Instance<Clock> clocks,
            TenureConfig config) {
        this.operator = operator;
        this.nodes = nodes;
        this.leadership = leadership;
        this.coordination = coordination;
        // the wiring supplies the clock: a Clock bean if the application has one, else the system clock
        this.clock = clocks.isResolvable() ? clocks.get() : Clock.systemUTC();
        this.liveness = new WatchLiveness(config.health().watchGrace());
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named(NAME);
        if (!leadership.reconcilersStarted()) {
            return b.up().withData("detail", "standing by: the leader runs the watches")
                    .build();
        }
        List<WatchLiveness.Watch> watches =
                new ArrayList<>(reconcilerWatches(operator.getRuntimeInfo().getRegisteredControllers()));
        nodes.informer().ifPresent(i -> watches.addAll(informerWatches(Map.of(NODES, i))));
        if (coordination.isResolvable()) {
            watches.addAll(informerWatches(coordination.get().informers()));
        }
        WatchLiveness.Verdict verdict = liveness.assess(watches, clock.instant());
        b.status(verdict.live());
        verdict.details().forEach(b::withData);
        return b.build();
    }

    /** Plain fabric8 informers (the shared Node cache, the coordination controller's), one watch each. */
    static List<WatchLiveness.Watch> informerWatches(Map<String, ? extends SharedIndexInformer<?>> informers) {
        List<WatchLiveness.Watch> out = new ArrayList<>();
        informers.forEach((name, informer) -> out.add(
                new WatchLiveness.Watch(name, informer.isRunning(), informer.isWatching(), informer.hasSynced())));
        return out;
    }

    /** JOSDK's informer health, one watch per (controller, event source, namespace). */
    static List<WatchLiveness.Watch> reconcilerWatches(Collection<RegisteredController> controllers) {
        List<WatchLiveness.Watch> out = new ArrayList<>();
        for (RegisteredController<?> controller : controllers) {
            String name = controller.getConfiguration().getName();
            Map<String, InformerWrappingEventSourceHealthIndicator> sources =
                    controller.getControllerHealthInfo().informerEventSourceHealthIndicators();
            sources.forEach((source, indicator) -> {
                Map<String, InformerHealthIndicator> informers = indicator.informerHealthIndicators();
                informers.forEach((namespace, i) -> out.add(new WatchLiveness.Watch(
                        name + "/" + source + (informers.size() > 1 ? "@" + namespace : ""),
                        i.isRunning(),
                        i.isWatching(),
                        i.hasSynced())));
            });
        }
        return out;
    }
}
