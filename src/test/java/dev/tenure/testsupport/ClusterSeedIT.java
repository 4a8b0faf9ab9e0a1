package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import org.junit.jupiter.api.Test;

/** What the seeds create is an object kube-apiserver would keep, so every later write of it is judged on its own. */
@EndToEnd
class ClusterSeedIT {

    @Test
    void aNodeWithTheLongestNameCanBeCordonedItsHostnameLabelIsALabelValue() {
        String name = ("n" + "0123456789abcdef".repeat(16)).substring(0, 253);
        try (EmulatedCluster cluster = EmulatedCluster.start()) {
            Node seeded = cluster.seed().node(name).create();
            assertThat(seeded.getMetadata().getLabels().get("kubernetes.io/hostname"))
                    .hasSize(63)
                    .isEqualTo(name.substring(0, 63));
            // a cordon as kubectl and Tenure send it: the emulator validates the patched node, labels included
            Node cordoned = cluster.client()
                    .nodes()
                    .withName(name)
                    .patch(
                            PatchContext.of(PatchType.JSON),
                            "[{\"op\":\"add\",\"path\":\"/spec/unschedulable\",\"value\":true}]");
            assertThat(cordoned.getSpec().getUnschedulable()).isTrue();
        }
    }
}
