package dev.tenure.maintenance.admission;

import dev.tenure.maintenance.api.NodeMaintenance;
import dev.tenure.maintenance.api.NodeMaintenanceSpec;
import dev.tenure.maintenance.api.WrittenFields;
import dev.tenure.maintenance.machine.MaintenanceHooks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Shared requests (spec.join): what a joiner may ask for. The owner of the node's maintenance runs it alone — one drain,
 * one window, one handover, one set of hooks — so a joiner whose spec asks for something else would be ignored in that.
 * Rather than merge (KEP-4212 proposes the most conservative of each field; a merge rule per field is a second drain
 * semantics to learn and test), a joiner that differs is refused, naming the field: at the webhook, and by the
 * reconciler for one that got past it or was edited since (phase Failed, it leaves the share).
 *
 * <p>Must equal the owner's, as written: {@code spec.window}, {@code spec.drain}, {@code spec.handover},
 * {@code spec.hooks}, and {@code spec.schedule} when the joiner sets one. May differ: {@code spec.reason} (each
 * request's own), {@code spec.priority} (a joiner takes no place in the queue), {@code spec.join}, {@code spec.schedule}
 * left unset. A joiner carries no hook annotations: its hooks would hold nothing, so they go on the owner.
 */
public final class JoinedSpecs {

    /** The fields that must be equal, in the order they are reported. */
    private static final List<Map.Entry<String, Function<NodeMaintenanceSpec, Object>>> EQUAL = List.of(
            Map.entry("spec.window", NodeMaintenanceSpec::getWindow),
            Map.entry("spec.drain", NodeMaintenanceSpec::getDrain),
            Map.entry("spec.handover", NodeMaintenanceSpec::getHandover),
            Map.entry("spec.hooks", NodeMaintenanceSpec::getHooks));

    private JoinedSpecs() {}

    /**
     * Why {@code joiner} may not share the maintenance of {@code owner} (one line naming every field that differs), or
     * empty when it may.
     */
    public static Optional<String> refusal(NodeMaintenance joiner, NodeMaintenance owner) {
        NodeMaintenanceSpec mine = joiner.getSpec() == null ? new NodeMaintenanceSpec() : joiner.getSpec();
        NodeMaintenanceSpec theirs = owner.getSpec() == null ? new NodeMaintenanceSpec() : owner.getSpec();
        List<String> fields = new ArrayList<>();
        for (Map.Entry<String, Function<NodeMaintenanceSpec, Object>> field : EQUAL) {
            if (!WrittenFields.same(
                    field.getValue().apply(mine), field.getValue().apply(theirs))) {
                fields.add(field.getKey());
            }
        }
        if (mine.getSchedule() != null && !WrittenFields.same(mine.getSchedule(), theirs.getSchedule())) {
            fields.add("spec.schedule");
        }
        List<String> hooks = hookAnnotations(joiner.getMetadata().getAnnotations());
        String ownerName = owner.getMetadata().getName();
        if (fields.isEmpty() && hooks.isEmpty()) {
            return Optional.empty();
        }
        List<String> why = new ArrayList<>();
        if (!fields.isEmpty()) {
            why.add(String.join(", ", fields) + ": must equal those of NodeMaintenance " + ownerName
                    + ", whose maintenance of the node it joins (spec.join) and which alone runs it");
        }
        if (!hooks.isEmpty()) {
            why.add("metadata.annotations: " + String.join(", ", hooks) + ": a joining NodeMaintenance carries no"
                    + " hooks (they would hold nothing); put them on " + ownerName);
        }
        return Optional.of(String.join("; ", why));
    }

    /**
     * The webhook's word on a CREATE: {@code verdict} (the validator's), or a refusal when the candidate joins a
     * maintenance of its node among {@code ahead} and differs from it. The reconciler refuses the same joiner when it
     * follows the owner (the door's {@code SharedRequests}), so it is not asked again in the admission it shares with
     * the webhook.
     */
    public static NodeMaintenanceValidator.Verdict review(
            NodeMaintenance candidate, NodeMaintenanceValidator.Verdict verdict, List<NodeMaintenance> ahead) {
        String node = NodeMaintenanceValidator.nodeOf(candidate);
        if (!verdict.refusals().isEmpty()
                || node == null
                || !Boolean.TRUE.equals(candidate.getSpec().getJoin())) {
            return verdict;
        }
        List<NodeMaintenance> sameNode = ahead.stream()
                .filter(nm -> node.equals(NodeMaintenanceValidator.nodeOf(nm)))
                .toList();
        return refusal(candidate, sameNode, ahead)
                .map(r ->
                        new NodeMaintenanceValidator.Verdict(List.of(r), List.of(), Optional.empty(), Optional.empty()))
                .orElse(verdict);
    }

    /**
     * {@link #refusal} for a request that joins the maintenance of {@code sameNode}'s first (its owner, found among
     * {@code ahead} when that first joined another); empty when there is nothing to join.
     */
    static Optional<String> refusal(
            NodeMaintenance joiner, List<NodeMaintenance> sameNode, List<NodeMaintenance> ahead) {
        return sameNode.stream().findFirst().flatMap(first -> {
            // status.joinedTo read here, not asked of the validator: one reconcile enters each file at most twice
            NodeMaintenance owner = Optional.ofNullable(first.getStatus())
                    .map(st -> st.getJoinedTo())
                    .filter(name -> !name.isBlank())
                    .flatMap(name -> ahead.stream()
                            .filter(nm -> name.equals(nm.getMetadata().getName()))
                            .findFirst())
                    .orElse(first);
            return refusal(joiner, owner);
        });
    }

    /** The hook annotations (of any point) among {@code annotations}, sorted. */
    static List<String> hookAnnotations(Map<String, String> annotations) {
        if (annotations == null) {
            return List.of();
        }
        return annotations.keySet().stream()
                .filter(k ->
                        isHook(k, MaintenanceHooks.PRE_DRAIN_PREFIX) || isHook(k, MaintenanceHooks.PRE_UNCORDON_PREFIX))
                .sorted()
                .toList();
    }

    private static boolean isHook(String key, String prefix) {
        return key.startsWith(prefix) && key.length() > prefix.length();
    }
}
