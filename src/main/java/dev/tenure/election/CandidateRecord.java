package dev.tenure.election;

import java.time.Instant;
import java.util.Map;

/**
 * A {@code coordination.k8s.io} LeaseCandidate (v1beta1, or v1alpha2 where that is what the API server serves): its
 * namespace and name (the holder identity it is elected as), its spec, and the metadata elections read (creation
 * time, labels, resourceVersion). The one candidate model of the election core, the coordination controller and the
 * adapters. Times are {@code null} when the object does not carry them.
 */
public record CandidateRecord(
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

    public CandidateRecord {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    /** Where the candidate object lives (namespace and candidate name). */
    public LeaseKey key() {
        return new LeaseKey(namespace, name);
    }

    public boolean hasLeaseKey() {
        return namespace != null && !namespace.isBlank() && leaseName != null && !leaseName.isBlank();
    }

    /** The Lease the candidate stands for (same namespace). */
    public LeaseKey leaseKey() {
        return new LeaseKey(namespace, leaseName);
    }

    /** The node named by {@link #NODE_LABEL}, or {@code null}. */
    public String nodeLabel() {
        return labels.get(NODE_LABEL);
    }

    /** The controller asked us to confirm we are alive (pingTime after our last renew). */
    public boolean pinged() {
        return pingTime != null && (renewTime == null || pingTime.isAfter(renewTime));
    }

    public CandidateRecord withRenewTime(Instant value) {
        return new CandidateRecord(
                namespace,
                name,
                leaseName,
                binaryVersion,
                emulationVersion,
                strategy,
                value,
                pingTime,
                creationTimestamp,
                labels,
                resourceVersion);
    }

    public CandidateRecord withPingTime(Instant value) {
        return new CandidateRecord(
                namespace,
                name,
                leaseName,
                binaryVersion,
                emulationVersion,
                strategy,
                renewTime,
                value,
                creationTimestamp,
                labels,
                resourceVersion);
    }

    public CandidateRecord withResourceVersion(String value) {
        return new CandidateRecord(
                namespace,
                name,
                leaseName,
                binaryVersion,
                emulationVersion,
                strategy,
                renewTime,
                pingTime,
                creationTimestamp,
                labels,
                value);
    }
}
