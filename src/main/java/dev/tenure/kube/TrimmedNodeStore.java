package dev.tenure.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.informers.cache.ReducedStateItemStore;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * The item store of the operator's one Node informer ({@link NodeCache}): fabric8's {@link ReducedStateItemStore} keeping only what
 * the operator reads from a cached Node — metadata (name, uid, resourceVersion, labels, annotations, deletion), spec
 * (unschedulable, taints), the status conditions (the maintenance condition) and {@code status.allocatable} (the
 * room the placement forecast, {@code dev.tenure.placement}, counts: cpu, memory, pods, ephemeral-storage and any
 * extended resources, a few quantities a Node) and three strings of {@code status.nodeInfo} (bootID, kubeletVersion,
 * osImage: the rollout's done signals, {@code dev.tenure.rollout}). The rest of the status (~40 image names and digests, addresses, capacity, node info: most of a
 * Node's bytes) is dropped before caching, so a cache of
 * 5,000 Nodes costs a fraction of the full objects. Whoever needs the whole Node reads it from the API server (the
 * reconcilers do, before acting).
 */
public final class TrimmedNodeStore extends ReducedStateItemStore<Node> {

    /** The fields kept, as dotted paths. */
    static final String[] KEPT = {
        "metadata",
        "spec",
        "status.conditions",
        "status.allocatable",
        // the pool rollout's done signals (issue 52): a reboot (Kured's boot ID), a kubelet or OS image reached
        "status.nodeInfo.bootID",
        "status.nodeInfo.kubeletVersion",
        "status.nodeInfo.osImage"
    };

    public TrimmedNodeStore() {
        super(NAME_KEY_STATE, Node.class, new KubernetesSerialization(), KEPT);
    }
}
