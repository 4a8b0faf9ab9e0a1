package dev.tenure.coordination;

import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * The LeaseCandidate API version the cluster serves (coordination.k8s.io v1beta1, else v1alpha2), found by
 * discovery at start. Both versions have the same spec, so candidates are read as generic resources.
 *
 * @param version the served version, or {@code null} when neither is served
 * @param detail  one line for logs and the readiness check
 */
public record LeaseCandidateApi(String version, String detail) {

    public static final String GROUP = "coordination.k8s.io";
    public static final String PLURAL = "leasecandidates";
    /** Preferred first. */
    public static final List<String> VERSIONS = List.of("v1beta1", "v1alpha2");

    private static final Logger LOG = Logger.getLogger(LeaseCandidateApi.class);

    public boolean served() {
        return version != null;
    }

    public String apiVersion() {
        return GROUP + "/" + version;
    }

    public ResourceDefinitionContext context() {
        if (!served()) {
            throw new IllegalStateException("LeaseCandidate API is not served: " + detail);
        }
        return new ResourceDefinitionContext.Builder()
                .withGroup(GROUP)
                .withVersion(version)
                .withPlural(PLURAL)
                .withKind("LeaseCandidate")
                .withNamespaced(true)
                .build();
    }

    public static LeaseCandidateApi of(String version) {
        if (!VERSIONS.contains(version)) {
            throw new IllegalArgumentException("tenure.coordination.lease-candidate-version must be one of auto, "
                    + String.join(", ", VERSIONS) + "; was " + version);
        }
        return new LeaseCandidateApi(version, "LeaseCandidate " + GROUP + "/" + version + " (configured)");
    }

    /**
     * {@code configured} is {@code auto} (ask the API server) or one of {@link #VERSIONS} (trusted as is; tests
     * and API servers whose discovery is unreliable).
     */
    public static LeaseCandidateApi discover(KubernetesClient client, String configured) {
        if (configured != null && !"auto".equals(configured)) {
            return of(configured);
        }
        StringBuilder tried = new StringBuilder();
        for (String v : VERSIONS) {
            try {
                APIResourceList resources = client.getApiResources(GROUP + "/" + v);
                if (resources != null
                        && resources.getResources() != null
                        && resources.getResources().stream().anyMatch(r -> PLURAL.equals(r.getName()))) {
                    return new LeaseCandidateApi(v, "LeaseCandidate " + GROUP + "/" + v + " (discovered)");
                }
                tried.append(GROUP).append('/').append(v).append(" not served; ");
            } catch (RuntimeException e) {
                // an API server without the group answers 404 (null above); anything else is reported, not fatal
                LOG.debugf(e, "discovery of %s/%s failed", GROUP, v);
                String code = e instanceof KubernetesClientException k
                        ? String.valueOf(k.getCode())
                        : e.getClass().getSimpleName();
                tried.append(GROUP)
                        .append('/')
                        .append(v)
                        .append(" discovery failed (")
                        .append(code)
                        .append("); ");
            }
        }
        return new LeaseCandidateApi(
                null,
                "LeaseCandidate API not served (" + tried.toString().strip()
                        + " enable the CoordinatedLeaderElection feature gate and the API version on the API server)");
    }
}
