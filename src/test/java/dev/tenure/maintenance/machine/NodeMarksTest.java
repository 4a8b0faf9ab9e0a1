package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.zjsonpatch.JsonPatch;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeMarksTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");

    static Node node(boolean unschedulable, Taint... taints) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName("n1")
                .withResourceVersion("7")
                .endMetadata()
                .withNewSpec()
                .withUnschedulable(unschedulable ? true : null)
                .withTaints(taints)
                .endSpec()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .addNewCondition()
                .withType("example.com/Other")
                .withStatus("False")
                .endCondition()
                .endStatus()
                .build();
    }

    static Taint taint(String key, String effect) {
        Taint t = new Taint();
        t.setKey(key);
        t.setEffect(effect);
        return t;
    }

    /** Applies a patch as the API server would, bumping the resourceVersion. */
    static Node apply(Node node, Optional<String> patch) throws Exception {
        if (patch.isEmpty()) {
            return node;
        }
        var tree = JsonPatch.apply(JSON.readTree(patch.get()), JSON.valueToTree(node));
        Node out = JSON.treeToValue(tree, Node.class);
        out.getMetadata()
                .setResourceVersion(
                        String.valueOf(Long.parseLong(node.getMetadata().getResourceVersion()) + 1));
        return out;
    }

    static Node maintain(Node n) throws Exception {
        Node marked = apply(n, NodeMarks.markPatch(n));
        return apply(marked, NodeMarks.conditionPatch(marked, "NodeMaintenance", "kernel upgrade", NOW));
    }

    static Node endMaintenance(Node n) throws Exception {
        Node cleared = apply(n, NodeMarks.conditionRemovalPatch(n));
        return apply(cleared, NodeMarks.restorePatch(cleared));
    }

    static Stream<Arguments> priorStates() {
        return Stream.of(
                Arguments.of("schedulable, no taints", node(false)),
                Arguments.of("admin-cordoned", node(true, taint("node.kubernetes.io/unschedulable", "NoSchedule"))),
                Arguments.of("cordoned without the taint", node(true)),
                Arguments.of(
                        "foreign taints", node(false, taint("gpu", "NoSchedule"), taint("team", "PreferNoSchedule"))),
                Arguments.of("our drain taint already there", node(false, taint("tenure.dev/drain", "NoSchedule"))),
                Arguments.of("same key, other effect", node(false, taint("tenure.dev/drain", "NoExecute"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("priorStates")
    void maintenanceThenEndRestoresExactly(String name, Node before) throws Exception {
        Node during = maintain(before);
        assertThat(during.getSpec().getUnschedulable()).isTrue();
        assertThat(during.getSpec().getTaints())
                .anySatisfy(t -> assertThat(NodeMarks.key(t)).isEqualTo("tenure.dev/drain:NoSchedule"))
                .anySatisfy(t -> assertThat(NodeMarks.key(t)).isEqualTo("node.kubernetes.io/unschedulable:NoSchedule"));
        assertThat(during.getStatus().getConditions())
                .extracting(NodeCondition::getType)
                .containsExactly("Ready", "example.com/Other", NodeMarks.CONDITION_TYPE);

        Node after = endMaintenance(during);
        assertThat(Boolean.TRUE.equals(after.getSpec().getUnschedulable()))
                .isEqualTo(Boolean.TRUE.equals(before.getSpec().getUnschedulable()));
        assertThat(after.getSpec().getTaints())
                .extracting(NodeMarks::key)
                .containsExactlyElementsOf(before.getSpec().getTaints().stream()
                        .map(NodeMarks::key)
                        .toList());
        assertThat(after.getStatus().getConditions())
                .extracting(NodeCondition::getType)
                .containsExactly("Ready", "example.com/Other");
        assertThat(after.getMetadata().getAnnotations()).doesNotContainKey(NodeMarks.PRIOR_STATE);
        assertThat(NodeMarks.marked(after)).isFalse();
    }

    /** A taint added during the maintenance, as an admin adds it with kubectl taint. */
    static Node tainted(Node n, String key, String value, String effect) {
        Taint t = taint(key, effect);
        t.setValue(value);
        Node copy = new NodeBuilder(n).build();
        java.util.List<Taint> taints = new java.util.ArrayList<>(copy.getSpec().getTaints());
        taints.add(t);
        copy.getSpec().setTaints(taints);
        return copy;
    }

    static Stream<Arguments> marksMadeDuringTheMaintenance() {
        return Stream.of(
                // name, before, the mark added during the maintenance (key, value, effect; or an annotation), kept?
                Arguments.of(
                        "an admin's NoSchedule taint",
                        node(false),
                        "example.com/disk-fault",
                        "sdb",
                        "NoSchedule",
                        true),
                Arguments.of(
                        "an admin's NoExecute taint", node(false), "example.com/disk-fault", "", "NoExecute", true),
                Arguments.of(
                        "a PreferNoSchedule taint", node(false), "example.com/soft", "", "PreferNoSchedule", false),
                Arguments.of(
                        "the node lifecycle controller's taint",
                        node(false),
                        "node.kubernetes.io/not-ready",
                        "",
                        "NoExecute",
                        false),
                Arguments.of(
                        "a taint that was there before, added again",
                        node(false, taint("gpu", "NoSchedule")),
                        null,
                        null,
                        null,
                        false),
                Arguments.of(
                        "the keep-cordoned annotation", node(false), NodeMarks.KEEP_CORDONED, "disk sdb", null, true));
    }

    /**
     * Issue 50, item 3: what someone else marks during the maintenance is not undone behind their back: a NoSchedule or
     * NoExecute taint (not node.kubernetes.io/*), or the keep-cordoned annotation, keeps the node cordoned; the
     * taint stays, ours goes; a taint that was there before keeps nothing.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("marksMadeDuringTheMaintenance")
    void aMarkMadeDuringTheMaintenanceKeepsTheNodeCordoned(
            String name, Node before, String key, String value, String effect, boolean kept) throws Exception {
        Node during = maintain(before);
        if (effect != null) {
            during = tainted(during, key, value, effect);
        } else if (key != null) {
            during.getMetadata().getAnnotations().put(key, value);
        }
        assertThat(NodeMarks.keptCordoned(during)).as("why it is kept").hasSize(kept ? 1 : 0);
        Node after = endMaintenance(during);
        assertThat(Boolean.TRUE.equals(after.getSpec().getUnschedulable()))
                .as("cordoned after the end")
                .isEqualTo(kept);
        assertThat(after.getSpec().getTaints())
                .extracting(NodeMarks::key)
                .doesNotContain("tenure.dev/drain:NoSchedule");
        if (effect != null) {
            assertThat(after.getSpec().getTaints()).extracting(NodeMarks::key).contains(key + ":" + effect);
        }
        assertThat(after.getSpec().getTaints().stream()
                        .anyMatch(t -> NodeMarks.key(t).equals("node.kubernetes.io/unschedulable:NoSchedule")))
                .as("the unschedulable taint goes with the cordon")
                .isEqualTo(kept);
        assertThat(NodeMarks.marked(after)).as("nothing of Tenure's left").isFalse();
    }

    @Test
    void markingTwiceChangesNothingTheSecondTime() throws Exception {
        Node during = maintain(node(false));
        assertThat(NodeMarks.markPatch(during)).isEmpty();
        assertThat(NodeMarks.conditionPatch(during, "NodeMaintenance", "kernel upgrade", NOW.plusSeconds(60)))
                .isEmpty();
        assertThat(NodeMarks.restorePatch(endMaintenance(during))).isEmpty();
    }

    @Test
    void theFirstRecordedPriorStateWins() throws Exception {
        Node during = maintain(node(false));
        // An admin cordons during maintenance; a repeated mark must not record "was cordoned".
        assertThat(NodeMarks.PriorState.fromNode(during))
                .get()
                .extracting(NodeMarks.PriorState::unschedulable)
                .isEqualTo(false);
        assertThat(NodeMarks.markPatch(during)).isEmpty();
    }

    @Test
    void patchesAreGuardedByTheResourceVersionTheyWereComputedFrom() throws Exception {
        Node n = node(false);
        String patch = NodeMarks.markPatch(n).orElseThrow();
        assertThat(patch).contains("{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"7\"}");
        Node newer = new NodeBuilder(n)
                .editMetadata()
                .withResourceVersion("8")
                .endMetadata()
                .build();
        assertThatThrownBy(() -> JsonPatch.apply(JSON.readTree(patch), JSON.valueToTree(newer)))
                .hasMessageContaining("Expected value \"7\"");
    }

    @Test
    void conditionKeepsItsTransitionTimeWhileTrue() throws Exception {
        Node during = maintain(node(false));
        Node later = apply(
                during, NodeMarks.conditionPatch(during, "NodeMaintenance", "other message", NOW.plusSeconds(60)));
        assertThat(NodeMarks.conditionOf(later)).get().satisfies(c -> {
            assertThat(c.getLastTransitionTime()).isEqualTo(NOW.toString());
            assertThat(c.getMessage()).isEqualTo("other message");
        });
    }

    @Test
    void withoutARecordOnlyOurDrainTaintIsRemovedAndTheCordonKept() throws Exception {
        Node n = node(
                true, taint("node.kubernetes.io/unschedulable", "NoSchedule"), taint("tenure.dev/drain", "NoSchedule"));
        Node after = apply(n, NodeMarks.restorePatch(n));
        assertThat(after.getSpec().getUnschedulable()).isTrue();
        assertThat(after.getSpec().getTaints())
                .extracting(NodeMarks::key)
                .containsExactly("node.kubernetes.io/unschedulable:NoSchedule");
    }
}
