package dev.tenure.coordination;

import dev.tenure.election.LeaseKey;
import java.time.Instant;
import java.util.Map;

/**
 * A LeaseCandidate as the controller saw it, independent of the served API version (v1beta1 or v1alpha2 have
 * the same spec). Times are {@code null} when the object does not carry them.
 */
public record ObservedCandidate(
        String namespace,
        String name,
        String leaseName,
        String binaryVersion,
        String emulationVersion,
        String strategy,
        Instant renewTime,
        Instant pingTime,
        Instant creationTimestamp,
        Map<String, String> labels,
        String resourceVersion) {

    /** Label a candidate may carry (downward API) to name the node it runs on. */
    public static final String NODE_LABEL = "tenure.dev/node";

    public ObservedCandidate {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    public boolean hasLeaseKey() {
        return namespace != null && !namespace.isBlank() && leaseName != null && !leaseName.isBlank();
    }

    public LeaseKey leaseKey() {
        return new LeaseKey(namespace, leaseName);
    }

    public String nodeLabel() {
        return labels.get(NODE_LABEL);
    }

    public ObservedCandidate withRenewTime(Instant renew) {
        return new ObservedCandidate(namespace, name, leaseName, binaryVersion, emulationVersion, strategy, renew,
                pingTime, creationTimestamp, labels, resourceVersion);
    }

    public ObservedCandidate withPingTime(Instant ping) {
        return new ObservedCandidate(namespace, name, leaseName, binaryVersion, emulationVersion, strategy, renewTime,
                ping, creationTimestamp, labels, resourceVersion);
    }
}
