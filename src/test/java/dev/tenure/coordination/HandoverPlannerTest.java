package dev.tenure.coordination;

import static dev.tenure.coordination.CandidateFixture.NOW;
import static dev.tenure.coordination.CandidateFixture.ago;
import static dev.tenure.coordination.CandidateFixture.cand;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.coordination.HandoverPlanner.HandoverStep;
import dev.tenure.election.CandidateRecord;
import dev.tenure.election.LeaseKey;
import dev.tenure.election.LeaseRecord;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class HandoverPlannerTest {

    private static final ElectionPlanner PLANNER = new ElectionPlanner(ElectionTiming.UPSTREAM, false);
    private static final LeaseKey A = new LeaseKey("default", "component-A");

    static LeaseRecord heldBy(String holder, java.time.Instant renew) {
        return new LeaseRecord(holder, 5, null, renew, 0, MaintenanceAware.NAME, null, List.of(), "1");
    }

    static Stream<Arguments> plan() {
        CandidateFixture onN1 =
                cand("c1").versions("1.19.0", "1.19.0").renewed(NOW).onNode("n1");
        CandidateFixture onN2 =
                cand("c2").versions("1.20.0", "1.20.0").renewed(NOW).onNode("n2");
        CandidateFixture onN3 =
                cand("c3").versions("1.21.0", "1.21.0").renewed(NOW).onNode("n3");
        return Stream.of(
                Arguments.of(
                        "lease held on the node moves to the best candidate elsewhere",
                        List.of(onN1, onN2, onN3),
                        heldBy("c1", NOW),
                        Set.of(),
                        List.of(new HandoverStep(A, "c1", Optional.of("c2")))),
                Arguments.of(
                        "successor skips nodes that are themselves unavailable",
                        List.of(onN1, onN2, onN3),
                        heldBy("c1", NOW),
                        Set.of("n2"),
                        List.of(new HandoverStep(A, "c1", Optional.of("c3")))),
                Arguments.of(
                        "nobody off the node: step without successor",
                        List.of(onN1),
                        heldBy("c1", NOW),
                        Set.of(),
                        List.of(new HandoverStep(A, "c1", Optional.empty()))),
                Arguments.of(
                        "lease held on another node is not touched",
                        List.of(onN1, onN2),
                        heldBy("c2", NOW),
                        Set.of(),
                        List.of()),
                Arguments.of(
                        "expired lease is not held by anyone",
                        List.of(onN1, onN2),
                        heldBy("c1", ago(Duration.ofMinutes(1))),
                        Set.of(),
                        List.of()),
                Arguments.of(
                        "holder that is not a candidate is not known to be on the node",
                        List.of(onN1, onN2),
                        heldBy("pod-xyz_1234", NOW),
                        Set.of(),
                        List.of()),
                Arguments.of(
                        "expired candidate is no successor",
                        List.of(
                                onN1,
                                cand("c2")
                                        .versions("1.20.0", "1.20.0")
                                        .renewed(ago(Duration.ofMinutes(31)))
                                        .onNode("n2")),
                        heldBy("c1", NOW),
                        Set.of(),
                        List.of(new HandoverStep(A, "c1", Optional.empty()))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void plan(
            String name,
            List<CandidateFixture> fixtures,
            LeaseRecord lease,
            Set<String> unavailableNodes,
            List<HandoverStep> expected) {
        List<CandidateRecord> candidates =
                fixtures.stream().map(CandidateFixture::build).toList();
        List<HandoverStep> steps = HandoverPlanner.plan(
                "n1",
                Map.of(A, lease),
                candidates,
                unavailableNodes,
                c -> Optional.ofNullable(c.nodeLabel()),
                PLANNER,
                NOW);
        assertThat(steps).containsExactlyElementsOf(expected);
    }
}
