package dev.tenure.maintenance.machine;

import io.fabric8.kubernetes.api.model.Node;
import java.util.Collection;
import java.util.function.Supplier;

/**
 * What the placement forecast reads besides the pods, as the front door supplies it (read only when a forecast is
 * made): every Node (the shared Node cache's trimmed copies, which keep labels, taints, unschedulable and
 * allocatable), and the nodes that will not take pods either: in maintenance now, or ahead in the queue.
 */
public record PlacementView(Supplier<Collection<Node>> nodes, Supplier<Collection<String>> alsoCordoned) {}
