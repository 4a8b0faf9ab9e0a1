package dev.tenure.operator;

import dev.tenure.election.WorkFence;
import dev.tenure.kube.FencedWrites;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The fence of the operator's work and the client every piece of it uses. This client replaces the extension's
 * default one, so JOSDK (finalizers), the reconcilers (status), the event recorder, the annotation door and
 * coordination all send their writes through {@link FencedWrites}; the election has a client of its own, unfenced
 * (it writes the lease that opens the term).
 */
@ApplicationScoped
public class WorkFenceBeans {
    private KubernetesClient client;

    @Produces
    @Singleton
    OperatorInstance instance(TenureConfig config) {
        return OperatorInstance.of(config.leaderElection());
    }

    /** Closed until a term opens it; always open without leader election (one replica). */
    @Produces
    @Singleton
    WorkFence fence(TenureConfig config) {
        return config.leaderElection().enabled() ? WorkFence.closed() : WorkFence.alwaysOpen();
    }

    @Produces
    @Singleton
    KubernetesClient client(
            Config config, KubernetesSerialization serialization, WorkFence fence, OperatorInstance instance) {
        client = FencedWrites.client(config, serialization, fence, instance.identity());
        return client;
    }

    @PreDestroy
    void close() {
        if (client != null) {
            client.close();
        }
    }
}
