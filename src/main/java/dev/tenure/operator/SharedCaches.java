package dev.tenure.operator;

import dev.tenure.kube.NodeCache;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The caches both jobs read: one Node watch for the annotation door and the maintenance-aware election. */
@ApplicationScoped
public class SharedCaches {

    @Produces
    @Singleton
    NodeCache nodeCache(KubernetesClient client) {
        return new NodeCache(client);
    }
}
