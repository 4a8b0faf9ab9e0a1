package dev.tenure.placement;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * kube-scheduler's {@code VolumeBinding} filter for bound claims ({@code plugins/volumebinding/volume_binding.go},
 * {@code binder.go}: {@code checkBoundClaims}): a claim the pod mounts must exist, and the PersistentVolume it is
 * bound to must exist and its {@code spec.nodeAffinity.required} must select the node. An unbound claim passes:
 * whether a volume will be found or provisioned for it is not forecast (with {@code WaitForFirstConsumer} the
 * scheduler's binder picks or provisions one on the node it chooses). A claim the caller could not read ({@link
 * PlacementCluster#claimNotRead}) passes too. Messages as v1.32 writes them.
 */
final class VolumeBinding implements FilterPlugin {

    static final String NODE_CONFLICT = "node(s) had volume node affinity conflict";
    static final String PV_NOT_EXIST = "pvc(s) bound to non-existent pv(s)";

    @Override
    public String name() {
        return "VolumeBinding";
    }

    @Override
    public NodeFilter prepare(Pod pod, PlacementCluster cluster) {
        List<String> missing = new ArrayList<>();
        List<PersistentVolume> bound = new ArrayList<>();
        for (String claim : claimNames(pod)) {
            if (cluster.claimNotRead(pod.getMetadata().getNamespace(), claim)) {
                continue; // not read by the caller: its volume is not forecast (PlacementCluster#claimNotRead)
            }
            Optional<PersistentVolumeClaim> pvc =
                    cluster.claim(pod.getMetadata().getNamespace(), claim);
            if (pvc.isEmpty()) {
                missing.add("persistentvolumeclaim \"" + claim + "\" not found");
                continue;
            }
            String volumeName =
                    pvc.get().getSpec() == null ? null : pvc.get().getSpec().getVolumeName();
            if (volumeName == null || volumeName.isEmpty()) {
                continue;
            }
            cluster.volume(volumeName).ifPresentOrElse(bound::add, () -> missing.add(PV_NOT_EXIST));
        }
        if (!missing.isEmpty()) {
            List<String> first = List.of(missing.get(0));
            return node -> first;
        }
        return node -> bound.stream().allMatch(pv -> selects(pv, node)) ? List.of() : List.of(NODE_CONFLICT);
    }

    /** The PersistentVolumes bound to the claims the pod mounts (those the cluster holds). */
    static List<PersistentVolume> boundVolumes(Pod pod, PlacementCluster cluster) {
        List<PersistentVolume> volumes = new ArrayList<>();
        for (String claim : claimNames(pod)) {
            if (cluster.claimNotRead(pod.getMetadata().getNamespace(), claim)) {
                continue;
            }
            cluster.claim(pod.getMetadata().getNamespace(), claim)
                    .map(pvc -> pvc.getSpec() == null ? null : pvc.getSpec().getVolumeName())
                    .flatMap(cluster::volume)
                    .ifPresent(volumes::add);
        }
        return volumes;
    }

    static boolean selects(PersistentVolume pv, PlacementNode node) {
        var affinity = pv.getSpec() == null ? null : pv.getSpec().getNodeAffinity();
        return affinity == null || Selectors.matches(affinity.getRequired(), node.name(), node.labels());
    }

    static List<String> claimNames(Pod pod) {
        List<String> names = new ArrayList<>();
        if (pod.getSpec() != null) {
            for (Volume v : Resources.list(pod.getSpec().getVolumes())) {
                if (v.getPersistentVolumeClaim() != null
                        && v.getPersistentVolumeClaim().getClaimName() != null) {
                    names.add(v.getPersistentVolumeClaim().getClaimName());
                }
            }
        }
        return names;
    }
}
