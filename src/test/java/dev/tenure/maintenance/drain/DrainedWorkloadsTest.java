package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.api.NodeMaintenanceStatus;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The controllers of the pods a drain removed, as {@code status.drainedWorkloads} lists them. */
class DrainedWorkloadsTest {

    static Pod pod(String namespace, String name, String kind, String owner, boolean controller) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .withOwnerReferences(
                        owner == null
                                ? List.of()
                                : List.of(new OwnerReferenceBuilder()
                                        .withApiVersion("apps/v1")
                                        .withKind(kind)
                                        .withName(owner)
                                        .withUid("uid-" + owner)
                                        .withController(controller)
                                        .build()))
                .endMetadata()
                .build();
    }

    @Test
    void eachControllerOnceWithThePodsNamespaceBarePodsLeftOut() {
        DrainedWorkloads d = DrainedWorkloads.NONE.with(List.of(
                pod("shop", "web-a", "ReplicaSet", "web-5d8f", true),
                pod("shop", "web-b", "ReplicaSet", "web-5d8f", true),
                pod("shop", "bare", null, null, false),
                pod("shop", "adopted", "ReplicaSet", "other", false), // an owner that is not the controller
                pod("db", "db-0", "StatefulSet", "db", true)));
        assertThat(d.listed())
                .extracting(ObjectReference::getKind, ObjectReference::getNamespace, ObjectReference::getName)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("ReplicaSet", "shop", "web-5d8f"),
                        org.assertj.core.groups.Tuple.tuple("StatefulSet", "db", "db"));
        assertThat(d.listed().get(0).getApiVersion()).isEqualTo("apps/v1");
        assertThat(d.listed().get(0).getUid()).isEqualTo("uid-web-5d8f");
        assertThat(d.notListed()).isZero();
    }

    @Test
    void laterBatchesAddToWhatEarlierOnesListed() {
        DrainedWorkloads first = DrainedWorkloads.NONE.with(List.of(pod("shop", "web-a", "ReplicaSet", "web", true)));
        DrainedWorkloads second = first.with(List.of(
                pod("shop", "web-b", "ReplicaSet", "web", true), pod("shop", "api-a", "ReplicaSet", "api", true)));
        assertThat(second.listed()).extracting(ObjectReference::getName).containsExactly("web", "api");
        assertThat(first.with(List.of(pod("shop", "web-c", "ReplicaSet", "web", true))))
                .isSameAs(first);
    }

    @Test
    void pastTheBoundTheyAreCountedNotListed() {
        int bound = NodeMaintenanceStatus.DRAINED_WORKLOADS_LISTED;
        List<Pod> pods = IntStream.range(0, bound + 7)
                .mapToObj(i -> pod("shop", "p" + i, "ReplicaSet", "rs" + i, true))
                .toList();
        DrainedWorkloads d = DrainedWorkloads.NONE.with(pods);
        assertThat(d.listed()).hasSize(bound);
        assertThat(d.notListed()).isEqualTo(7);
    }
}
