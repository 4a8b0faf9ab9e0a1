package dev.tenure.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * spec.health.blockingPodSelector read as Kured reads --blocking-pod-selector (kured {@code pkg/blockers/
 * kubernetespod.go}: field selector {@code spec.nodeName=<node>,status.phase!=Succeeded,status.phase!=Failed,
 * status.phase!=Unknown}). Each row: one pod of the selector, and whether it holds worker-1.
 */
class BlockingPodsTest {

    static Pod pod(String node, String phase) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("backup")
                .withName("job-1")
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec()
                .withNewStatus()
                .withPhase(phase)
                .endStatus()
                .build();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            kured: a Running pod on the node blocks it                          | worker-1 | Running   | true
            kured: a Pending pod bound to the node blocks it                    | worker-1 | Pending   | true
            kured: a pod with no phase yet on the node blocks it                | worker-1 | -         | true
            kured: status.phase!=Succeeded                                      | worker-1 | Succeeded | false
            kured: status.phase!=Failed                                         | worker-1 | Failed    | false
            kured: status.phase!=Unknown                                        | worker-1 | Unknown   | false
            kured: spec.nodeName=<node>: a pod on another node holds this none  | worker-2 | Running   | false
            kured: an unscheduled pod is on no node and holds none              | -        | Pending   | false
            """)
    void blocksTheNodeItRunsOnAsKuredDoes(String name, String node, String phase, boolean blocksWorker1) {
        var blocked = BlockingPods.byNode(List.of(pod(node, phase)));
        if (blocksWorker1) {
            assertThat(blocked).containsEntry("worker-1", "blocking pod backup/job-1 runs on it");
        } else {
            assertThat(blocked).doesNotContainKey("worker-1");
        }
        assertThat(blocked.keySet())
                .as("only the node the pod is bound to")
                .isSubsetOf(node == null ? List.of() : List.of(node));
    }
}
