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
 * maintenance for ({@link AwaitedPods#NONE} when it does not hold), so the door's pod watch wakes it on them.
 */
public record PlacementView(
        Supplier<Collection<Node>> nodes, Supplier<Collection<String>> alsoCordoned, Consumer<AwaitedPods> awaiting) {

    /** A view whose forecasts tell no one what they await. */
    public PlacementView(Supplier<Collection<Node>> nodes, Supplier<Collection<String>> alsoCordoned) {
        this(nodes, alsoCordoned, awaited -> {});
    }
}
