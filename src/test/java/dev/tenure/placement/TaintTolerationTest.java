package dev.tenure.placement;

import static dev.tenure.placement.Fixtures.taint;
import static dev.tenure.placement.Fixtures.tainted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rows from kubernetes {@code pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go}
 * ({@code TestTaintTolerationFilter}, same names), and the matching rules of {@code k8s.io/api/core/v1/toleration_test.go}.
 */
class TaintTolerationTest {

    private static Pod tolerating(Toleration... tolerations) {
        return Fixtures.pod("p")
                .editSpec()
                .withTolerations(tolerations)
                .endSpec()
                .build();
    }

    private static Toleration toleration(String key, String operator, String value, String effect) {
        return new Toleration(effect, key, operator, null, value);
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                arguments(
                        "A pod having no tolerations can't be scheduled onto a node with nonempty taints",
                        tolerating(),
                        tainted("n1", taint("dedicated", "user1", "NoSchedule")),
                        List.of("node(s) had untolerated taint {dedicated: user1}")),
                arguments(
                        "A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
                        tolerating(toleration("dedicated", "Equal", "user1", "NoSchedule")),
                        tainted("n1", taint("dedicated", "user1", "NoSchedule")),
                        List.of()),
                arguments(
                        "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
                        tolerating(toleration("dedicated", "Equal", "user2", "NoSchedule")),
                        tainted("n1", taint("dedicated", "user1", "NoSchedule")),
                        List.of("node(s) had untolerated taint {dedicated: user1}")),
                arguments(
                        "A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates"
                                + " the taints on the node",
                        tolerating(toleration("foo", "Exists", null, "NoSchedule")),
                        tainted("n1", taint("foo", "bar", "NoSchedule")),
                        List.of()),
                arguments(
                        "A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod"
                                + " can be scheduled onto the node",
                        tolerating(
                                toleration("dedicated", "Equal", "user2", "NoSchedule"),
                                toleration("foo", "Exists", null, "NoSchedule")),
                        tainted("n1", taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")),
                        List.of()),
                arguments(
                        "A pod has a toleration that keys and values match the taint on the node, but (non-empty)"
                                + " effect doesn't match, can't be scheduled onto the node",
                        tolerating(toleration("foo", "Equal", "bar", "PreferNoSchedule")),
                        tainted("n1", taint("foo", "bar", "NoSchedule")),
                        List.of("node(s) had untolerated taint {foo: bar}")),
                arguments(
                        "The pod has a toleration that keys and values match the taint on the node, the effect of"
                                + " toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled"
                                + " onto the node",
                        tolerating(toleration("foo", "Equal", "bar", null)),
                        tainted("n1", taint("foo", "bar", "NoSchedule")),
                        List.of()),
                arguments(
                        "The pod has a toleration that key and value don't match the taint on the node, but the"
                                + " effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
                        tolerating(toleration("dedicated", "Equal", "user2", "NoSchedule")),
                        tainted("n1", taint("dedicated", "user1", "PreferNoSchedule")),
                        List.of()),
                arguments(
                        "The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be"
                                + " scheduled onto the node",
                        tolerating(),
                        tainted("n1", taint("dedicated", "user1", "PreferNoSchedule")),
                        List.of()),
                arguments(
                        "The pod has no toleration, but the effect of taint on node is NoExecute. Pod can't be"
                                + " scheduled",
                        tolerating(),
                        tainted("n1", taint("dedicated", "user1", "NoExecute")),
                        List.of("node(s) had untolerated taint {dedicated: user1}")),
                // Tenure's rows: toleration_test.go's wildcard, and the message of a taint without a value
                arguments(
                        "an empty key with operator Exists tolerates every taint",
                        tolerating(toleration(null, "Exists", null, null)),
                        tainted("n1", taint("a", "b", "NoSchedule"), taint("c", null, "NoExecute")),
                        List.of()),
                arguments(
                        "a taint without a value is named with an empty value",
                        tolerating(),
                        tainted("n1", taint("node-role.kubernetes.io/control-plane", null, "NoSchedule")),
                        List.of("node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void filter(String name, Pod pod, Node node, List<String> reasons) {
        assertThat(Fixtures.filter(new TaintToleration(), pod, node)).isEqualTo(reasons);
    }
}
