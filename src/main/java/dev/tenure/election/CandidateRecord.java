package dev.tenure.election;

import java.time.Instant;
import java.util.Map;

/**
 * The spec of a {@code coordination.k8s.io} LeaseCandidate (v1beta1, or v1alpha2 where that is
 * what the API server serves) plus labels and resourceVersion.
 */
public record CandidateRecord(
        String leaseName,
        String binaryVersion,
        String emulationVersion,
        String strategy,
        Instant renewTime,
        Instant pingTime,
        Map<String, String> labels,
        String resourceVersion) {

    public CandidateRecord {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    /** The controller asked us to confirm we are alive (pingTime after our last renew). */
    public boolean pinged() {
        return pingTime != null && (renewTime == null || pingTime.isAfter(renewTime));
    }

    public CandidateRecord withRenewTime(Instant value) {
        return new CandidateRecord(leaseName, binaryVersion, emulationVersion, strategy, value, pingTime, labels, resourceVersion);
    }

    public CandidateRecord withPingTime(Instant value) {
        return new CandidateRecord(leaseName, binaryVersion, emulationVersion, strategy, renewTime, value, labels, resourceVersion);
    }

    public CandidateRecord withResourceVersion(String value) {
        return new CandidateRecord(leaseName, binaryVersion, emulationVersion, strategy, renewTime, pingTime, labels, value);
    }
}
