package dev.tenure.rollout;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * A selected node as the planner reads it.
 *
 * @param domain the value of the topology key ("" when the node has none)
 * @param orderKey the value of the order label, null when the node has none (it goes last)
 * @param readySince when its Ready condition last turned True; null when unknown or not Ready
 * @param cordoned {@code spec.unschedulable}, by anyone
 * @param blockedBy why it may not start now although a slot is free (a blocking pod, another maintenance); null when
 *     nothing holds it. A held node takes no slot unless it is unavailable anyway.
 */
public record PoolNode(
        String name,
        String domain,
        String orderKey,
        boolean ready,
        Instant readySince,
        boolean cordoned,
        String bootID,
        String kubeletVersion,
        String osImage,
        Map<String, String> labels,
        Map<String, String> annotations,
        String blockedBy) {

    public PoolNode {
        Objects.requireNonNull(name, "name");
        domain = domain == null ? "" : domain;
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
    }

    /** Cordoned or not Ready: it takes a slot of the limits whoever made it so (Kured #63, rancher#25861). */
    public boolean unavailable() {
        return cordoned || !ready;
    }
}
