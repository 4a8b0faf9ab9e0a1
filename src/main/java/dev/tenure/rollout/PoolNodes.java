package dev.tenure.rollout;

import dev.tenure.rollout.api.RolloutSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;

/** A cached Node read as the planner's {@link PoolNode}: the edge between fabric8 and the pure planner. */
final class PoolNodes {

    private PoolNodes() {}

    /** {@code blockedBy}: why it may not start now (a blocking pod, another maintenance), or null. */
    static PoolNode of(Node node, RolloutSpec spec, String blockedBy) {
        Map<String, String> labels = node.getMetadata().getLabels() == null
                ? Map.of()
                : node.getMetadata().getLabels();
        NodeCondition ready = node.getStatus() == null || node.getStatus().getConditions() == null
                ? null
                : node.getStatus().getConditions().stream()
                        .filter(c -> "Ready".equals(c.getType()))
                        .findFirst()
                        .orElse(null);
        boolean isReady = ready != null && "True".equals(ready.getStatus());
        var info = node.getStatus() == null ? null : node.getStatus().getNodeInfo();
        return new PoolNode(
                node.getMetadata().getName(),
                labels.get(RolloutSpecs.topologyKey(spec)),
                labels.get(RolloutSpecs.orderLabel(spec)),
                isReady,
                isReady ? time(ready.getLastTransitionTime()) : null,
                Boolean.TRUE.equals(
                        node.getSpec() == null ? null : node.getSpec().getUnschedulable()),
                info == null ? null : info.getBootID(),
                info == null ? null : info.getKubeletVersion(),
                info == null ? null : info.getOsImage(),
                labels,
                node.getMetadata().getAnnotations(),
                blockedBy);
    }

    /** An RFC 3339 time; a missing or unreadable one reads as the distant past (Ready "since always"). */
    static Instant time(String text) {
        if (text == null) {
            return Instant.EPOCH;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return Instant.EPOCH;
        }
    }
}
