package dev.tenure.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testsupport.RealisticNodes;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

class TrimmedNodeStoreTest {

    @Test
    void aCachedNodeKeepsWhatTheOperatorReadsAndDropsImagesAddressesCapacity() {
        TrimmedNodeStore store = new TrimmedNodeStore();
        Node full = RealisticNodes.node("w1");
        store.put(store.getKey(full), full);

        Node cached = store.get("w1");
        assertThat(cached.getMetadata().getName()).isEqualTo("w1");
        assertThat(cached.getMetadata().getUid()).isEqualTo("uid-w1");
        assertThat(cached.getMetadata().getResourceVersion()).isEqualTo("42");
        assertThat(cached.getMetadata().getAnnotations()).containsKey("lifecycle.metal3.io/maintenance");
        assertThat(cached.getSpec().getUnschedulable()).isTrue();
        assertThat(cached.getSpec().getTaints()).extracting("key").containsExactly("tenure.dev/drain");
        assertThat(cached.getStatus().getConditions()).extracting("type").containsExactly("tenure.dev/Maintenance");
        assertThat(cached.getStatus().getImages()).isNullOrEmpty();
        assertThat(cached.getStatus().getAddresses()).isNullOrEmpty();
        assertThat(cached.getStatus().getCapacity()).isNullOrEmpty();
        // the placement forecast's room per node (issue 49): allocatable, as the kubelet reports it
        assertThat(cached.getStatus().getAllocatable())
                .containsOnlyKeys("cpu", "memory", "pods", "ephemeral-storage")
                .containsEntry("cpu", new io.fabric8.kubernetes.api.model.Quantity("7910m"));
        // the rollout's done signals (issue 52): three strings of nodeInfo, nothing else of it
        assertThat(cached.getStatus().getNodeInfo().getBootID())
                .isEqualTo(full.getStatus().getNodeInfo().getBootID());
        assertThat(cached.getStatus().getNodeInfo().getKubeletVersion())
                .isEqualTo(full.getStatus().getNodeInfo().getKubeletVersion());
        assertThat(cached.getStatus().getNodeInfo().getOsImage())
                .isEqualTo(full.getStatus().getNodeInfo().getOsImage());
        assertThat(cached.getStatus().getNodeInfo().getMachineID()).isNull();
        assertThat(cached.getStatus().getNodeInfo().getKernelVersion()).isNull();

        KubernetesSerialization json = new KubernetesSerialization();
        assertThat(json.asJson(cached).length())
                .as("cached bytes vs full")
                .isLessThan(json.asJson(full).length() / 5);
    }
}
