package dev.tenure.election;

import java.util.List;

/**
 * What the API server shows of one pod for {@link ProcessEndRule}: its UID and the ended container runs its
 * status reports. Nothing else of the pod (deletion, phase, conditions, its node's readiness) is evidence of
 * anything, so nothing else is carried.
 */
public record PodReport(String namespace, String name, String uid, List<ContainerEnd> ended) {
    public PodReport {
        ended = ended == null ? List.of() : List.copyOf(ended);
    }
}
