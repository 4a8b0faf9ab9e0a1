package dev.tenure.operator;

import dev.tenure.kube.BudgetCache;
import dev.tenure.kube.NodeCache;
import dev.tenure.maintenance.admission.AdmissionCaches;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The caches both jobs read: one Node watch for the annotation door and the maintenance-aware election, and the
 * admission caches (Nodes, NodeMaintenances) every replica runs, leader or standby, for the webhook it serves.
 */
@ApplicationScoped
public class SharedCaches {

    private static final Logger LOG = Logger.getLogger(SharedCaches.class);
    static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    static final Duration LAST_RETRY = Duration.ofSeconds(30);

    private ScheduledExecutorService starter;

    @Produces
    @Singleton
    NodeCache nodeCache(KubernetesClient client) {
        return new NodeCache(client);
    }

    /** The one PodDisruptionBudget watch; the leader's NodeMaintenance controller opens it (issue 51). */
    @Produces
    @Singleton
    BudgetCache budgetCache(KubernetesClient client) {
        return new BudgetCache(client);
    }

    @Produces
    @Singleton
    AdmissionCaches admissionCaches(KubernetesClient client, NodeCache nodes) {
        return new AdmissionCaches(client, nodes);
    }

    /**
     * Starts the admission caches off the startup thread, retried with backoff while the API server refuses: until
     * they run, admission reads the API server as before, so a replica serves reviews from its first second.
     */
    void onStart(@Observes StartupEvent event, AdmissionCaches caches) {
        starter = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tenure-admission-caches");
            t.setDaemon(true);
            return t;
        });
        starter.execute(() -> start(caches, FIRST_RETRY));
    }

    // start() catches and logs its own failures and schedules its retry: the retry's future holds nothing to check
    @SuppressWarnings("FutureReturnValueIgnored")
    private void start(AdmissionCaches caches, Duration retry) {
        try {
            caches.start();
            LOG.info("admission caches synced: the webhook reads Nodes and NodeMaintenances from them");
        } catch (RuntimeException e) {
            LOG.warnf(
                    "admission caches could not start (%s); reviews read the API server, retry in %d s",
                    e.getMessage(), retry.toSeconds());
            Duration next = retry.multipliedBy(2).compareTo(LAST_RETRY) > 0 ? LAST_RETRY : retry.multipliedBy(2);
            if (!starter.isShutdown()) {
                starter.schedule(() -> start(caches, next), retry.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    void onStop(@Observes ShutdownEvent event, AdmissionCaches caches) {
        if (starter != null) {
            starter.shutdownNow();
        }
        caches.close();
    }
}
