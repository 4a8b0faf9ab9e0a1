package dev.tenure.maintenance.door;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.maintenance.door.PinnedNode.Candidate;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The node a NodeMaintenance whose status is not the door's own is pinned to: the one whose lease this operator holds
 * for it, never the node a foreign status names (GeneratedInputIT, seed 3780571230079580367: a foreign
 * {@code status.nodeName: w5} on the maintenance of w1).
 */
class PinnedNodeTest {

    /** This operator instance ({@code tenure/b}) or an earlier one ({@code tenure/a}). */
    static final Predicate<String> OURS = h -> h.equals("tenure/b") || h.equals("tenure/a");

    static Candidate lease(String node, String holder) {
        return new Candidate(node, Optional.ofNullable(holder), false);
    }

    static Candidate heldForAnother(String node, String holder) {
        return new Candidate(node, Optional.of(holder), true);
    }

    static Stream<Arguments> pins() {
        return Stream.of(
                Arguments.of(
                        "a foreign status names another node: the spec's node, whose lease we hold",
                        Optional.of("w5"),
                        "w1",
                        List.of(lease("w1", "tenure/b"), lease("w5", null)),
                        new PinnedNode(Optional.of("w1"), true)),
                Arguments.of(
                        "it names a node we hold for another maintenance: still the spec's node",
                        Optional.of("w5"),
                        "w1",
                        List.of(lease("w1", "tenure/b"), heldForAnother("w5", "tenure/b")),
                        new PinnedNode(Optional.of("w1"), true)),
                Arguments.of(
                        "spec.nodeName edited after the start (its node held for another): the node whose lease it holds",
                        Optional.of("w5"),
                        "w1",
                        List.of(heldForAnother("w1", "tenure/b"), lease("w5", "tenure/b")),
                        new PinnedNode(Optional.of("w5"), true)),
                Arguments.of(
                        "held by an earlier instance of this operator (before a restart): ours",
                        Optional.of("w5"),
                        "w1",
                        List.of(lease("w1", "tenure/a"), lease("w5", null)),
                        new PinnedNode(Optional.of("w1"), true)),
                Arguments.of(
                        "no lease of ours (another holder has it): the spec's node, not the status's",
                        Optional.of("w5"),
                        "w1",
                        List.of(lease("w1", "medik8s"), lease("w5", "tenure-annotation")),
                        new PinnedNode(Optional.of("w1"), false)),
                Arguments.of(
                        "the status names a node that does not exist: the spec's node",
                        Optional.of("ghost"),
                        "w1",
                        List.of(lease("w1", "tenure/b"), lease("ghost", null)),
                        new PinnedNode(Optional.of("w1"), true)),
                Arguments.of(
                        "the status names the spec's node, the lease ours: pinned, and the undo ours",
                        Optional.of("w1"),
                        "w1",
                        List.of(lease("w1", "tenure/b")),
                        new PinnedNode(Optional.of("w1"), true)),
                Arguments.of(
                        "the status names no node and no lease of ours: not pinned (admitted as any new one)",
                        Optional.empty(),
                        "w1",
                        List.of(lease("w1", null)),
                        new PinnedNode(Optional.empty(), false)),
                Arguments.of(
                        "no spec node and no lease of ours: not pinned to what the status says",
                        Optional.of("w5"),
                        null,
                        List.of(lease("w5", null)),
                        new PinnedNode(Optional.empty(), false)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pins")
    void pinnedToTheNodeWhoseLeaseItHolds(
            String name, Optional<String> recorded, String specNode, List<Candidate> read, PinnedNode expected) {
        assertThat(PinnedNode.judge(recorded, specNode, read, OURS)).isEqualTo(expected);
    }

    static Stream<Arguments> candidates() {
        String longest = "n" + "0".repeat(252);
        return Stream.of(
                Arguments.of("spec's node first, then the status's", Optional.of("w5"), "w1", List.of("w1", "w5")),
                Arguments.of("the same node: read once", Optional.of("w1"), "w1", List.of("w1")),
                Arguments.of("no status node: the spec's only", Optional.empty(), "w1", List.of("w1")),
                Arguments.of("no spec node: the status's only", Optional.of("w5"), null, List.of("w5")),
                Arguments.of("253 characters: a Node name", Optional.of(longest), "w1", List.of("w1", longest)),
                Arguments.of(
                        "254 characters: no Node has it, nothing read",
                        Optional.of(longest + "0"),
                        "w1",
                        List.of("w1")),
                Arguments.of("not a Node name: nothing read", Optional.of("W 5"), "w1", List.of("w1")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("candidates")
    void readsTheLeasesOfTheSpecsNodeAndTheStatussNode(
            String name, Optional<String> recorded, String specNode, List<String> expected) {
        assertThat(PinnedNode.candidates(recorded, specNode)).isEqualTo(expected);
    }

    @org.junit.jupiter.api.Test
    void aPinThatDiffersFromTheStatusIsWhereItStandsAdmitted() {
        dev.tenure.maintenance.admission.NodeMaintenanceAdmission.Standing recorded =
                new dev.tenure.maintenance.admission.NodeMaintenanceAdmission.Standing(
                        Optional.of("w5"), "w5", false, 3);
        assertThat(new PinnedNode(Optional.of("w5"), true).standing(recorded)).contains(recorded);
        assertThat(new PinnedNode(Optional.of("w1"), true).standing(recorded))
                .contains(new dev.tenure.maintenance.admission.NodeMaintenanceAdmission.Standing(
                        Optional.of("w1"), "w1", false, 3));
        assertThat(new PinnedNode(Optional.empty(), false).standing(recorded))
                .as("no node: the admission rules say where it stands")
                .isEmpty();
    }
}
