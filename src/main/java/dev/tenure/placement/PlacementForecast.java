package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A placement forecast: for each pod a drain will evict, taken in the order the drain evicts them (wave order), will
 * its replacement fit on a node that stays schedulable? It forecasts "fits somewhere", never where the scheduler will
 * put the pod: the scheduler scores the nodes that pass its filters, the forecast only asks whether one passes
 * (placing each replacement, so that it takes room from the next, on the least loaded node that passes).
 *
 * <p>The filters are kube-scheduler's, in its default profile's order ({@code NodeUnschedulable},
 * {@code TaintToleration}, {@code NodeAffinity}, {@code NodePorts}, {@code NodeResourcesFit}, {@code VolumeBinding},
 * {@code VolumeZone}, {@code PodTopologySpread}, {@code InterPodAffinity}; each a class of this package); a node is
 * refused by the first filter that refuses it, and a pod that fits nowhere gets the scheduler's message
 * ({@code FitError} of {@code framework/types.go}: {@code 0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had
 * untolerated taint {k: v}.}). Not modelled: preemption (a higher-priority replacement may evict others), volume
 * limits per node, dynamic provisioning of unbound claims, scheduler profiles and extenders, DRA claims.
 *
 * <p>The model, after the autoscalers' simulations' known pitfalls (kubernetes/autoscaler #8162, #9110; karpenter
 * #457): every drained node, node in maintenance and node ahead in the queue stays in the cluster, cordoned (it
 * still is a topology domain); each placed replacement takes its room for the pods after it, across all drains
 * forecast together; a bare pod (no controller owner) is not recreated and takes no room; a pod whose bound
 * PersistentVolume is local, or whose node affinity selects only nodes the forecast cordons, is pinned: it cannot run
 * until its node returns (unless it tolerates the cordon's taint {@code node.kubernetes.io/unschedulable}: then,
 * as NodeUnschedulable lets it, its replacement may go back to the cordoned node, and the filters decide). Pods not bound to a node (already Pending) are not in the cluster and take no room.
 */
public record PlacementForecast(
        List<PodForecast> pods, List<String> volumesNotRead, Optional<String> namespacesNotRead) {

    /**
     * @param pods the answer per evicted pod, in wave order
     * @param volumesNotRead the claims the caller could not read ({@link PlacementCluster#claimNotRead}), as {@code
     *     namespace/name: why}: the pods mounting them were forecast without their volumes
     * @param namespacesNotRead why the namespaces' labels could not be read ({@link
     *     PlacementCluster#namespacesNotRead}): the affinity terms that select namespaces by label were left out
     */
    public PlacementForecast {
        pods = List.copyOf(pods);
        volumesNotRead = List.copyOf(volumesNotRead);
        namespacesNotRead = namespacesNotRead == null ? Optional.empty() : namespacesNotRead;
    }

    /** A forecast that read the namespace labels it needed. */
    public PlacementForecast(List<PodForecast> pods, List<String> volumesNotRead) {
        this(pods, volumesNotRead, Optional.empty());
    }

    /** A forecast that read every volume and namespace label it needed. */
    public PlacementForecast(List<PodForecast> pods) {
        this(pods, List.of());
    }

    /** The answer for one pod. */
    public enum Verdict {
        /** Its replacement passes every filter on at least one node that stays schedulable. */
        FITS,
        /** No node takes its replacement; the message says why, node by node, as the scheduler would. */
        DOES_NOT_FIT,
        /** A volume ties it to a node the forecast cordons: it runs again only when that node returns. */
        PINNED,
        /** No controller owns it: nothing recreates it, so it needs no room. */
        NOT_RECREATED
    }

    /** One evicted pod's forecast: where it runs now, the verdict, and the message (the reason, or where it fits). */
    public record PodForecast(String namespace, String name, String node, Verdict verdict, String message) {
        public PodForecast {
            Objects.requireNonNull(verdict, "verdict");
            Objects.requireNonNull(message, "message");
        }
    }

    /** One node's drain: the node and the pods it will evict, in the order it evicts them. */
    public record Drain(String nodeName, List<Pod> evictions) {
        public Drain {
            Objects.requireNonNull(nodeName, "nodeName");
            evictions = List.copyOf(evictions);
        }
    }

    /** The filters, in the default scheduler profile's order. */
    static final List<FilterPlugin> FILTERS = List.of(
            new NodeUnschedulable(),
            new TaintToleration(),
            new NodeAffinity(),
            new NodePorts(),
            new NodeResourcesFit(),
            new VolumeBinding(),
            new VolumeZone(),
            new PodTopologySpread(),
            new InterPodAffinity());

    /**
     * Forecasts {@code drains} one after another on {@code cluster} (which it changes: evicted pods leave, placed
     * replacements arrive, the drained nodes and {@code alsoCordoned} are cordoned).
     *
     * @param alsoCordoned nodes that will not take pods either: in maintenance now, or ahead in the queue
     */
    public static PlacementForecast of(PlacementCluster cluster, List<Drain> drains, Collection<String> alsoCordoned) {
        drains.forEach(d -> cluster.node(d.nodeName()).ifPresent(PlacementNode::cordon));
        alsoCordoned.forEach(n -> cluster.node(n).ifPresent(PlacementNode::cordon));
        List<PodForecast> out = new ArrayList<>();
        for (Drain drain : drains) {
            for (Pod pod : drain.evictions()) {
                out.add(place(cluster, drain.nodeName(), pod));
            }
        }
        return new PlacementForecast(out, cluster.claimsNotRead(), cluster.namespacesNotRead());
    }

    /** The pods whose replacements fit nowhere. */
    public List<PodForecast> doesNotFit() {
        return pods.stream().filter(p -> p.verdict() == Verdict.DOES_NOT_FIT).toList();
    }

    /** The pods that fit nowhere or are pinned: a drain of them leaves their workloads short. */
    public List<PodForecast> stranded() {
        return pods.stream()
                .filter(p -> p.verdict() == Verdict.DOES_NOT_FIT || p.verdict() == Verdict.PINNED)
                .toList();
    }

    private static PodForecast place(PlacementCluster cluster, String nodeName, Pod pod) {
        String ns = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        cluster.node(nodeName).ifPresent(n -> n.remove(ns, name));
        if (controller(pod).isEmpty()) {
            return new PodForecast(ns, name, nodeName, Verdict.NOT_RECREATED, "no controller recreates it");
        }
        Optional<String> pin = pinnedBy(pod, cluster);
        if (pin.isPresent()) {
            return new PodForecast(ns, name, nodeName, Verdict.PINNED, pin.get());
        }
        List<FilterPlugin.NodeFilter> filters = new ArrayList<>();
        FILTERS.forEach(f -> filters.add(f.prepare(pod, cluster)));
        Map<String, Integer> reasons = new TreeMap<>();
        PlacementNode best = null;
        int fits = 0;
        for (PlacementNode node : cluster.nodes()) {
            List<String> refused = List.of();
            for (FilterPlugin.NodeFilter f : filters) {
                refused = f.filter(node);
                if (!refused.isEmpty()) {
                    break;
                }
            }
            if (refused.isEmpty()) {
                fits++;
                if (best == null || node.load() < best.load()) {
                    best = node;
                }
            } else {
                refused.forEach(r -> reasons.merge(r, 1, Integer::sum));
            }
        }
        if (best == null) {
            return new PodForecast(ns, name, nodeName, Verdict.DOES_NOT_FIT, fitError(cluster.size(), reasons));
        }
        best.add(cluster.placed(replacement(pod, best.name())));
        return new PodForecast(ns, name, nodeName, Verdict.FITS, "fits on " + fits + "/" + cluster.size() + " nodes");
    }

    /**
     * The scheduler's {@code FitError.Error()}: {@code 0/N nodes are available: } and the reasons, each with the
     * number of nodes that gave it, sorted as strings, then a full stop.
     */
    static String fitError(int nodes, Map<String, Integer> reasons) {
        List<String> parts = new ArrayList<>();
        reasons.forEach((reason, count) -> parts.add(count + " " + reason));
        parts.sort(null);
        return "0/" + nodes + " nodes are available: " + String.join(", ", parts) + ".";
    }

    /**
     * A bound volume that ties the pod to nodes it may not go to: a local volume, or one whose node affinity selects
     * only cordoned nodes. A pod that tolerates the cordon's taint is not tied by a cordon (NodeUnschedulable lets it
     * through, {@code plugins/nodeunschedulable/node_unschedulable.go}): its replacement may go back to its volume's
     * node, and the filters decide.
     */
    private static Optional<String> pinnedBy(Pod pod, PlacementCluster cluster) {
        FilterPlugin.NodeFilter cordon = new NodeUnschedulable().prepare(pod, cluster);
        for (PersistentVolume pv : VolumeBinding.boundVolumes(pod, cluster)) {
            String pvName = pv.getMetadata().getName();
            boolean affinity = pv.getSpec() != null && pv.getSpec().getNodeAffinity() != null;
            boolean open = affinity
                    && cluster.nodes().stream()
                            .anyMatch(n -> cordon.filter(n).isEmpty() && VolumeBinding.selects(pv, n));
            if (pv.getSpec() != null && pv.getSpec().getLocal() != null && !open) {
                return Optional.of("pinned by local PersistentVolume " + pvName);
            }
            if (affinity && !open) {
                return Optional.of("pinned by PersistentVolume " + pvName + ": its node affinity selects no node"
                        + " that stays schedulable");
            }
        }
        return Optional.empty();
    }

    private static Optional<OwnerReference> controller(Pod pod) {
        return Resources.list(pod.getMetadata().getOwnerReferences()).stream()
                .filter(o -> Boolean.TRUE.equals(o.getController()))
                .findFirst();
    }

    /** The pod its controller creates again, bound to {@code node}: same spec and labels, not terminating. */
    private static Pod replacement(Pod pod, String node) {
        return new PodBuilder(pod)
                .editMetadata()
                .withDeletionTimestamp(null)
                .endMetadata()
                .editSpec()
                .withNodeName(node)
                .endSpec()
                .withStatus(null)
                .build();
    }
}
