package dev.tenure.maintenance.machine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What Tenure puts on a Node in maintenance (cordon, two taints, a condition) and how to take exactly
 * that off again, as JSON patches guarded by a {@code test} of the resourceVersion they were computed
 * from: lists are replaced whole, so a concurrent writer's change makes the patch fail (409/422) rather
 * than be dropped (the virtual-kubelet lesson). Pure: the caller reads the node and sends the patch.
 *
 * <p>The node's state before maintenance is recorded in {@value #PRIOR_STATE} on the first patch and
 * restored from it: a node an admin had cordoned stays cordoned, a taint that was there stays.
 */
public final class NodeMarks {

    public static final String PRIOR_STATE = "tenure.dev/prior-state";
    public static final String CONDITION_TYPE = "tenure.dev/Maintenance";
    public static final Taint UNSCHEDULABLE_TAINT = taint("node.kubernetes.io/unschedulable");
    public static final Taint DRAIN_TAINT = taint("tenure.dev/drain");
    static final List<Taint> OUR_TAINTS = List.of(UNSCHEDULABLE_TAINT, DRAIN_TAINT);

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private NodeMarks() {}

    /**
     * A Node annotation an admin sets (any value: why) to end a maintenance leaving the node cordoned: the undo removes
     * Tenure's taint and condition and keeps {@code spec.unschedulable}; the admin uncordons the node when done (and
     * removes the annotation, which Tenure never touches).
     */
    public static final String KEEP_CORDONED = "tenure.dev/keep-cordoned";

    /**
     * What the node looked like before we touched it: cordoned or not, which of our taints it had, and (records written
     * since issue 50; null in older ones) the keys and effects of every other taint, so that a taint someone else adds
     * during the maintenance can be told from one that was there before.
     */
    public record PriorState(boolean unschedulable, List<String> taints, List<String> others) {
        public PriorState {
            taints = List.copyOf(taints);
            others = others == null ? null : List.copyOf(others);
        }

        PriorState(boolean unschedulable, List<String> taints) {
            this(unschedulable, taints, null);
        }

        String toJson() {
            try {
                Map<String, Object> fields = new java.util.LinkedHashMap<>();
                fields.put("unschedulable", unschedulable);
                fields.put("taints", taints);
                if (others != null) {
                    fields.put("others", others);
                }
                return JSON.writeValueAsString(fields);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }

        static Optional<PriorState> fromNode(Node node) {
            Map<String, String> a = node.getMetadata().getAnnotations();
            String raw = a == null ? null : a.get(PRIOR_STATE);
            if (raw == null) {
                return Optional.empty();
            }
            try {
                var tree = JSON.readTree(raw);
                List<String> taints = new ArrayList<>();
                tree.path("taints").forEach(t -> taints.add(t.asText()));
                List<String> others = tree.has("others") ? new ArrayList<>() : null;
                tree.path("others").forEach(t -> others.add(t.asText()));
                return Optional.of(new PriorState(tree.path("unschedulable").asBoolean(false), taints, others));
            } catch (JsonProcessingException e) {
                // Unreadable record: restore conservatively (keep cordon, drop only our drain taint).
                return Optional.of(new PriorState(true, List.of(key(UNSCHEDULABLE_TAINT))));
            }
        }
    }

    /** The patch that cordons and taints the node, or empty when it already is (idempotent). */
    public static Optional<String> markPatch(Node node) {
        ArrayNode ops = guard(node);
        boolean unschedulable = Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        List<Taint> taints = taintsOf(node);
        if (PriorState.fromNode(node).isEmpty()) {
            PriorState prior = new PriorState(
                    unschedulable,
                    OUR_TAINTS.stream()
                            .filter(t -> has(taints, t))
                            .map(NodeMarks::key)
                            .toList(),
                    taints.stream()
                            .filter(t -> OUR_TAINTS.stream().noneMatch(o -> same(o, t)))
                            .map(NodeMarks::key)
                            .toList());
            if (node.getMetadata().getAnnotations() == null
                    || node.getMetadata().getAnnotations().isEmpty()) {
                // fabric8 reads an absent map as empty: add the whole map, a pointer into it would fail
                ops.add(op("add", "/metadata/annotations", F.objectNode().put(PRIOR_STATE, prior.toJson())));
            } else {
                ops.add(op("add", "/metadata/annotations/" + escape(PRIOR_STATE), F.textNode(prior.toJson())));
            }
        }
        if (!unschedulable) {
            ops.add(op("add", "/spec/unschedulable", F.booleanNode(true)));
        }
        List<Taint> wanted = new ArrayList<>(taints);
        OUR_TAINTS.stream().filter(t -> !has(taints, t)).forEach(wanted::add);
        if (wanted.size() != taints.size()) {
            ops.add(op("add", "/spec/taints", JSON.valueToTree(wanted)));
        }
        return ops.size() > 1 ? Optional.of(ops.toString()) : Optional.empty();
    }

    /**
     * The patch that restores the recorded prior state and removes the record, or empty when there is
     * nothing of ours on the node. Without a record only our own drain taint is removed: whether the
     * node was cordoned before is unknown, and leaving it cordoned is the safe side.
     */
    public static Optional<String> restorePatch(Node node) {
        ArrayNode ops = guard(node);
        Optional<PriorState> recorded = PriorState.fromNode(node);
        PriorState prior = recorded.orElse(new PriorState(true, List.of(key(UNSCHEDULABLE_TAINT))));
        boolean unschedulable = Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        boolean keepCordoned = !keptCordoned(node).isEmpty();
        if (unschedulable && !prior.unschedulable() && !keepCordoned) {
            ops.add(op("add", "/spec/unschedulable", F.booleanNode(false)));
        }
        List<Taint> taints = taintsOf(node);
        // kept cordoned: the taint that says so (node.kubernetes.io/unschedulable) stays with the cordon
        List<Taint> kept = taints.stream()
                .filter(t -> !(OUR_TAINTS.stream().anyMatch(o -> same(o, t))
                        && !prior.taints().contains(key(t))
                        && !(keepCordoned && unschedulable && same(t, UNSCHEDULABLE_TAINT))))
                .toList();
        if (kept.size() != taints.size()) {
            ops.add(op("add", "/spec/taints", JSON.valueToTree(kept)));
        }
        if (recorded.isPresent()) {
            ops.add(op("remove", "/metadata/annotations/" + escape(PRIOR_STATE), null));
        }
        return ops.size() > 1 ? Optional.of(ops.toString()) : Optional.empty();
    }

    /**
     * Why the undo keeps this node cordoned though it was schedulable before the maintenance, one line each (empty:
     * nothing keeps it): the {@link #KEEP_CORDONED} annotation, and each NoSchedule or NoExecute taint someone else added
     * during the maintenance — not one of ours, not one the record says was there before, and not one of the
     * {@code node.kubernetes.io/*} taints the node lifecycle controller adds and removes by the node's conditions. A
     * record from before issue 50 does not list the other taints: then only the annotation counts.
     */
    public static List<String> keptCordoned(Node node) {
        Optional<PriorState> prior = PriorState.fromNode(node);
        List<String> why = new ArrayList<>();
        Map<String, String> a = node.getMetadata().getAnnotations();
        if (a != null && a.containsKey(KEEP_CORDONED)) {
            why.add("annotation " + KEEP_CORDONED + ": " + a.get(KEEP_CORDONED));
        }
        if (prior.isPresent() && prior.get().others() != null) {
            for (Taint t : taintsOf(node)) {
                boolean blocks = "NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect());
                if (blocks
                        && OUR_TAINTS.stream().noneMatch(o -> same(o, t))
                        && !t.getKey().startsWith("node.kubernetes.io/")
                        && !prior.get().others().contains(key(t))) {
                    why.add("taint " + t.getKey()
                            + (t.getValue() == null || t.getValue().isEmpty() ? "" : "=" + t.getValue()) + ":"
                            + t.getEffect() + " added during the maintenance");
                }
            }
        }
        return List.copyOf(why);
    }

    /** Whether the node still carries our record or condition (a drain taint may have been there before). */
    public static boolean marked(Node node) {
        return PriorState.fromNode(node).isPresent() || conditionOf(node).isPresent();
    }

    /**
     * The status patch that sets our Node condition; lastTransitionTime moves only when the status
     * changes. Empty when the condition already says this.
     */
    public static Optional<String> conditionPatch(Node node, String reason, String message, Instant now) {
        List<NodeCondition> conditions = conditionsOf(node);
        Optional<NodeCondition> current = conditionOf(node);
        if (current.isPresent()
                && "True".equals(current.get().getStatus())
                && reason.equals(current.get().getReason())
                && message.equals(current.get().getMessage())) {
            return Optional.empty();
        }
        String transition = current.filter(c -> "True".equals(c.getStatus()))
                .map(NodeCondition::getLastTransitionTime)
                .orElse(now.toString());
        NodeCondition ours = new NodeCondition(now.toString(), transition, message, reason, "True", CONDITION_TYPE);
        List<NodeCondition> next = new ArrayList<>();
        boolean replaced = false;
        for (NodeCondition c : conditions) {
            if (CONDITION_TYPE.equals(c.getType())) {
                next.add(ours);
                replaced = true;
            } else {
                next.add(c);
            }
        }
        if (!replaced) {
            next.add(ours);
        }
        ArrayNode ops = guard(node);
        ops.add(op("add", "/status/conditions", JSON.valueToTree(next)));
        return Optional.of(ops.toString());
    }

    /** The status patch that removes our Node condition, or empty when it is not there. */
    public static Optional<String> conditionRemovalPatch(Node node) {
        if (conditionOf(node).isEmpty()) {
            return Optional.empty();
        }
        List<NodeCondition> next = conditionsOf(node).stream()
                .filter(c -> !CONDITION_TYPE.equals(c.getType()))
                .toList();
        ArrayNode ops = guard(node);
        ops.add(op("add", "/status/conditions", JSON.valueToTree(next)));
        return Optional.of(ops.toString());
    }

    public static Optional<NodeCondition> conditionOf(Node node) {
        return conditionsOf(node).stream()
                .filter(c -> CONDITION_TYPE.equals(c.getType()))
                .findFirst();
    }

    static List<NodeCondition> conditionsOf(Node node) {
        return node.getStatus() == null || node.getStatus().getConditions() == null
                ? List.of()
                : node.getStatus().getConditions();
    }

    static List<Taint> taintsOf(Node node) {
        return node.getSpec() == null || node.getSpec().getTaints() == null
                ? List.of()
                : node.getSpec().getTaints();
    }

    static boolean has(List<Taint> taints, Taint wanted) {
        return taints.stream().anyMatch(t -> same(t, wanted));
    }

    static boolean same(Taint a, Taint b) {
        return a.getKey().equals(b.getKey()) && String.valueOf(a.getEffect()).equals(String.valueOf(b.getEffect()));
    }

    static String key(Taint t) {
        return t.getKey() + ":" + t.getEffect();
    }

    private static Taint taint(String key) {
        Taint t = new Taint();
        t.setKey(key);
        t.setEffect("NoSchedule");
        return t;
    }

    private static ArrayNode guard(Node node) {
        ArrayNode ops = F.arrayNode();
        ops.add(op(
                "test",
                "/metadata/resourceVersion",
                F.textNode(node.getMetadata().getResourceVersion())));
        return ops;
    }

    private static ObjectNode op(String op, String path, com.fasterxml.jackson.databind.JsonNode value) {
        ObjectNode o = F.objectNode().put("op", op).put("path", path);
        if (value != null) {
            o.set("value", value);
        }
        return o;
    }

    private static String escape(String pointerToken) {
        return pointerToken.replace("~", "~0").replace("/", "~1");
    }
}
