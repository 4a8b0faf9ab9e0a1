package dev.tenure.rollout;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import dev.tenure.maintenance.admission.NodeMaintenanceAuthorizer;
import dev.tenure.maintenance.admission.NodeMaintenanceAuthorizer.Right;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.rollout.api.NodeMaintenanceRollout;
import dev.tenure.rollout.api.NodeRecord;
import dev.tenure.rollout.api.NodeState;
import dev.tenure.rollout.api.RolloutSpec;
import dev.tenure.rollout.api.RolloutStatus;
import io.fabric8.kubernetes.api.model.AnyType;
import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * What the rollout's admission webhook decides, pure: a spec's refusals (each wrong field named, a field the API does
 * not declare anywhere in the spec, a node another rollout would pick too), and the rights its requester must hold.
 *
 * <p>Rights: the operator creates each child NodeMaintenance with its own account, so NodeMaintenance's admission
 * cannot see who asked; the rollout is checked instead, for what its children will do, with the rights
 * {@link NodeMaintenanceAuthorizer#requiredRights} names for one NodeMaintenance (kubectl cordon + drain's).
 * A {@code spec.nodeSelector} is read live, so a node labelled later joins the pool and is maintained without a new
 * review: a selector therefore needs those rights on every node (a rule without {@code resourceNames}), present and
 * future. A node named in {@code spec.nodes} needs them on that node. Deleting a rollout ends the maintenances in
 * flight, so it needs {@link NodeMaintenanceAuthorizer#rightsToEnd} for each of their nodes.
 *
 * <p>Overlap: a node both this and another rollout would pick is refused, naming the other rollout and the node. Not
 * queued: which rollout maintained a node, with which template and done signal, would depend on timing, and one that
 * did not start it would maintain it again when the other finished (a second reboot); one owner per node keeps
 * {@code status.nodes} the whole truth.
 */
public final class RolloutAdmission {

    /** Overlapping nodes named per other rollout in a refusal; the rest are counted. */
    static final int NODES_NAMED = 5;

    /** Reads the API types' Jackson properties only (which fields a type declares); never reads or writes JSON. */
    private static final ObjectMapper INTROSPECTION = new ObjectMapper();

    private RolloutAdmission() {}

    /**
     * Why {@code spec} may not be stored as rollout {@code name}: {@link RolloutSpecs#problems}, each field of
     * {@code rawSpec} (the review's own JSON of {@code spec}, null when absent) that the API does not declare, at any
     * depth ({@link #unknownFields}), and each rollout of {@code others} (itself and rollouts being deleted skipped)
     * that would pick a node this one picks among {@code nodes} or names too. Empty: admitted, as far as the spec goes.
     */
    public static List<String> refusals(
            String name, RolloutSpec spec, JsonNode rawSpec, List<Node> nodes, List<NodeMaintenanceRollout> others) {
        List<String> out = new ArrayList<>(RolloutSpecs.problems(spec));
        out.addAll(unknownFields("spec", rawSpec, RolloutSpec.class));
        if (spec != null && out.isEmpty()) {
            out.addAll(overlaps(name, spec, nodes, others));
        }
        return List.copyOf(out);
    }

    /**
     * Each field of {@code raw} (JSON at path {@code at}) that {@code type} does not declare, at any depth: objects by
     * the Jackson properties of their class (ours and fabric8's model types), lists element by element
     * ({@code spec.nodeSelector.matchExpressions[0].operater}); maps and scalars are not looked into. Each is named
     * with the fields that exist there ({@code spec.health.alerts.prometheusUrl: unknown field (one of prometheusURL,
     * ...)}): the one-letter typo that Jackson, and the CRD's pruning, would drop without a word. A field set to null
     * is not one.
     */
    static List<String> unknownFields(String at, JsonNode raw, Class<?> type) {
        List<String> out = new ArrayList<>();
        unknownFields(at, raw, INTROSPECTION.constructType(type), out);
        return out;
    }

    private static void unknownFields(String at, JsonNode raw, JavaType type, List<String> out) {
        if (raw == null || type == null) {
            return;
        }
        if (raw.isArray() && type.isCollectionLikeType()) {
            for (int i = 0; i < raw.size(); i++) {
                unknownFields(at + "[" + i + "]", raw.get(i), type.getContentType(), out);
            }
            return;
        }
        if (!raw.isObject() || !declaresFields(type)) {
            return;
        }
        Map<String, JavaType> fields = new LinkedHashMap<>();
        for (BeanPropertyDefinition p :
                INTROSPECTION.getDeserializationConfig().introspect(type).findProperties()) {
            fields.put(p.getName(), p.getPrimaryType());
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = raw.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            if (field.getValue().isNull()) {
                continue;
            }
            JavaType fieldType = fields.get(field.getKey());
            if (fieldType == null) {
                out.add(at + "." + field.getKey() + ": unknown field (one of " + String.join(", ", fields.keySet())
                        + ")");
            } else {
                unknownFields(at + "." + field.getKey(), field.getValue(), fieldType, out);
            }
        }
    }

    /**
     * A type written as an object of declared fields: ours or fabric8's model, not a map, a list, a scalar, or a value
     * with a serializer of its own (fabric8's AnyType: {@code IntOrString}).
     */
    private static boolean declaresFields(JavaType type) {
        Class<?> c = type.getRawClass();
        return !type.isContainerType()
                && !type.isPrimitive()
                && !type.isEnumType()
                && !AnyType.class.isAssignableFrom(c)
                && (c.getName().startsWith("dev.tenure.")
                        || c.getName().startsWith("io.fabric8.kubernetes.api.model."));
    }

    /** Each other rollout that would pick a node this one picks: named with the nodes (a few) and the field. */
    static List<String> overlaps(String name, RolloutSpec spec, List<Node> nodes, List<NodeMaintenanceRollout> others) {
        List<String> out = new ArrayList<>();
        for (NodeMaintenanceRollout other : others) {
            if (Objects.equals(other.getMetadata().getName(), name)
                    || other.getMetadata().getDeletionTimestamp() != null
                    || other.getSpec() == null) {
                continue;
            }
            Map<String, String> shared = new LinkedHashMap<>();
            if (spec.getNodes() != null && other.getSpec().getNodes() != null) {
                for (int i = 0; i < spec.getNodes().size(); i++) {
                    String n = spec.getNodes().get(i);
                    if (other.getSpec().getNodes().contains(n)) {
                        shared.putIfAbsent(n, "spec.nodes[" + i + "]");
                    }
                }
            }
            for (Node node : nodes) {
                String n = node.getMetadata().getName();
                Map<String, String> labels = node.getMetadata().getLabels();
                if (!shared.containsKey(n)
                        && RolloutSpecs.selects(spec, n, labels)
                        && RolloutSpecs.selects(other.getSpec(), n, labels)) {
                    int i = spec.getNodes() == null ? -1 : spec.getNodes().indexOf(n);
                    shared.put(n, i >= 0 ? "spec.nodes[" + i + "]" : "spec.nodeSelector");
                }
            }
            if (shared.isEmpty()) {
                continue;
            }
            List<String> named =
                    shared.keySet().stream().sorted().limit(NODES_NAMED).toList();
            String more = shared.size() > NODES_NAMED ? " and " + (shared.size() - NODES_NAMED) + " more" : "";
            out.add(String.join(", ", new TreeSet<>(shared.values())) + ": node(s) " + String.join(", ", named) + more
                    + " would be picked by NodeMaintenanceRollout "
                    + other.getMetadata().getName()
                    + " too; a node is maintained by one rollout at a time (narrow the selection, or delete "
                    + other.getMetadata().getName() + " first)");
        }
        return out;
    }

    /**
     * The rights the requester of {@code spec} must hold: a child's ({@link NodeMaintenanceAuthorizer#requiredRights}
     * of the template) on every node for a selector, and on each node of {@code spec.nodes}; each right once.
     */
    public static List<Right> requiredRights(RolloutSpec spec) {
        Map<String, Right> rights = new LinkedHashMap<>();
        if (spec.getNodeSelector() != null) {
            for (Right r : NodeMaintenanceAuthorizer.requiredRights(childSpec(spec, null))) {
                rights.putIfAbsent(r.toString(), r);
            }
        }
        if (spec.getNodes() != null) {
            for (String node : spec.getNodes()) {
                for (Right r : NodeMaintenanceAuthorizer.requiredRights(childSpec(spec, node))) {
                    rights.putIfAbsent(r.toString(), r);
                }
            }
        }
        return List.copyOf(rights.values());
    }

    /** The rights deleting a rollout with {@code status} exercises: ending each maintenance in flight. */
    public static List<Right> rightsToDelete(RolloutStatus status) {
        List<Right> rights = new ArrayList<>();
        if (status == null || status.getNodes() == null) {
            return rights;
        }
        for (NodeRecord record : status.getNodes()) {
            if (record.getState() == NodeState.InProgress && record.getName() != null) {
                rights.addAll(NodeMaintenanceAuthorizer.rightsToEnd(record.getName()));
            }
        }
        return rights;
    }

    private static NodeMaintenanceSpec childSpec(RolloutSpec spec, String node) {
        return spec.getTemplate() == null
                ? new NodeMaintenanceSpec(node, "rollout")
                : spec.getTemplate().childSpec(node);
    }
}
