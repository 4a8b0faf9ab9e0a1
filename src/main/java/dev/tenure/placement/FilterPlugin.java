package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * One kube-scheduler filter plugin: "can this pod go on this node?". {@link #prepare} does what the plugin's
 * {@code PreFilter} does (read the whole cluster once for this pod), and the answer filters one node at a time,
 * as {@code Filter} does.
 */
interface FilterPlugin {

    /** The plugin's name in the scheduler's registry ({@code NodeResourcesFit}, ...). */
    String name();

    /** This plugin's filter for {@code pod} over the cluster as it is now. */
    NodeFilter prepare(Pod pod, PlacementCluster cluster);

    /** A prepared filter. */
    @FunctionalInterface
    interface NodeFilter {
        /** The reasons {@code node} is refused, in the scheduler's words; empty when the pod may go there. */
        List<String> filter(PlacementNode node);
    }
}
