package dev.tenure.election.kube;

import dev.tenure.election.LeaseConflict;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseNotFound;
import dev.tenure.election.LeaseStoreException;
import dev.tenure.election.LeaseStoreFailure;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;

/** Maps fabric8 errors onto the core's typed store errors. */
final class KubeErrors {
    private KubeErrors() {}

    static LeaseStoreException map(LeaseKey key, RuntimeException e, boolean creating) {
        if (e instanceof KubernetesClientException k) {
            return switch (k.getCode()) {
                case HttpURLConnection.HTTP_CONFLICT -> new LeaseConflict(key, creating, k);
                // On create, 404 means the namespace is missing, not the lease: a plain failure, not "absent".
                case HttpURLConnection.HTTP_NOT_FOUND ->
                    creating
                            ? new LeaseStoreFailure(key, 404, "namespace " + key.namespace() + " not found", k)
                            : new LeaseNotFound(key, k);
                default -> new LeaseStoreFailure(key, k.getCode(), String.valueOf(k.getMessage()), k);
            };
        }
        return new LeaseStoreFailure(key, 0, String.valueOf(e.getMessage()), e);
    }
}
