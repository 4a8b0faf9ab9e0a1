package dev.tenure.maintenance.machine;

import dev.tenure.placement.AwaitedPods;
import io.fabric8.kubernetes.api.model.Node;
import java.util.Collection;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What the placement forecast reads besides the pods, as the front door supplies it (read only when a forecast is
 * made): every Node (the shared Node cache's trimmed copies, which keep labels, taints, unschedulable and
 * allocatable), and the nodes that will not take pods either: in maintenance now, or ahead in the queue. {@code
 * awaiting} hears, after each forecast, which pods' arrival may give room to the pods a {@code Wait} holds the
 * maintenance for ({@link AwaitedPods#NONE} when it does not hold), so the door's pod watch wakes it on them. {@code
 * policySetting} says, in the door's own terms, where the policy the forecast applies comes from, followed in messages
 * by the policy ({@link #SPEC_DRAIN_PLACEMENT} at the NodeMaintenance door): the Warning and the log name the setting
 * a person can change at that door, not another door's.
 */
public record PlacementView(
        Supplier<Collection<Node>> nodes,
        Supplier<Collection<String>> alsoCordoned,
        Consumer<AwaitedPods> awaiting,
        String policySetting) {

    /** The NodeMaintenance door's setting: the field of the request. */
    public static final String SPEC_DRAIN_PLACEMENT = "spec.drain.placement";

    public PlacementView {
        java.util.Objects.requireNonNull(policySetting, "policySetting");
    }

    /** A view of the NodeMaintenance door ({@value #SPEC_DRAIN_PLACEMENT}). */
    public PlacementView(
            Supplier<Collection<Node>> nodes,
            Supplier<Collection<String>> alsoCordoned,
            Consumer<AwaitedPods> awaiting) {
        this(nodes, alsoCordoned, awaiting, SPEC_DRAIN_PLACEMENT);
    }

    /** A view of the NodeMaintenance door whose forecasts tell no one what they await. */
    public PlacementView(Supplier<Collection<Node>> nodes, Supplier<Collection<String>> alsoCordoned) {
        this(nodes, alsoCordoned, awaited -> {});
    }
}
