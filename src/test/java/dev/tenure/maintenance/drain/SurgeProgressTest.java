package dev.tenure.maintenance.drain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What one surge does next (issue 51 item 2): owner's replicas 1, surge adds 1, so the surge's count is 2. */
class SurgeProgressTest {

    static final SurgeRecord RECORD = new SurgeRecord("uid", "m", "w2", 1, 1);

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("recorded, not raised yet: raise", false, 1, 1, false, new SurgeProgress.Raise(2)),
                Arguments.of(
                        "raised by us before a restart (status not yet saying so): wait, now seen raised",
                        false,
                        2,
                        1,
                        false,
                        new SurgeProgress.Wait(true, true)),
                Arguments.of(
                        "raised, the pod still on the node: wait",
                        true,
                        2,
                        1,
                        false,
                        new SurgeProgress.Wait(false, true)),
                Arguments.of(
                        "raised, the pod off the node: give back", true, 2, 0, false, new SurgeProgress.GiveBack(1)),
                Arguments.of(
                        "raised, the drain ends first (timeout): give back",
                        true,
                        2,
                        1,
                        true,
                        new SurgeProgress.GiveBack(1)),
                Arguments.of(
                        "given back before a restart: only the record goes",
                        true,
                        1,
                        0,
                        false,
                        new SurgeProgress.Release()),
                Arguments.of(
                        "never raised, the drain ends: only the record goes",
                        false,
                        1,
                        1,
                        true,
                        new SurgeProgress.Release()),
                Arguments.of("workload gone", true, null, 1, false, new SurgeProgress.Gone()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void next(String name, boolean raised, Integer replicasNow, int onNode, boolean ending, SurgeProgress.Next want) {
        assertThat(SurgeProgress.next(RECORD, raised, new SurgeProgress.Seen(replicasNow, onNode, ending)))
                .isEqualTo(want);
    }

    @ParameterizedTest(name = "someone else's count: {0} replicas, raised {1}, on node {2}")
    @MethodSource("foreign")
    void aForeignCountIsLeft(int replicasNow, boolean raised, int onNode) {
        assertThat(SurgeProgress.next(RECORD, raised, new SurgeProgress.Seen(replicasNow, onNode, false)))
                .isInstanceOfSatisfying(
                        SurgeProgress.Leave.class,
                        l -> assertThat(l.why())
                                .contains("replicas are " + replicasNow)
                                .contains("left as they are"));
    }

    static Stream<Arguments> foreign() {
        return Stream.of(
                Arguments.of(5, true, 1),
                Arguments.of(5, false, 1),
                Arguments.of(0, true, 0),
                Arguments.of(3, true, 0));
    }

    /** Raised, the new pod Ready but not yet for minReadySeconds: the drain holds the eviction. */
    @org.junit.jupiter.api.Test
    void theEvictionWaitsForTheNewPodsAvailable() {
        assertThat(SurgeProgress.next(RECORD, true, new SurgeProgress.Seen(2, 1, false, 1)))
                .isEqualTo(new SurgeProgress.Wait(false, false));
        assertThat(SurgeProgress.next(RECORD, true, new SurgeProgress.Seen(2, 1, false, 2)))
                .isEqualTo(new SurgeProgress.Wait(false, true));
    }

    /**
     * Replicas at the owner's count, the status not saying raised: the workload's generation tells a surge never raised
     * (generation as the record's write left it, 7) from a raise put back by someone else after its status was lost
     * (7, then 8 by the raise, 9 by the put-back). A record of the release before (no generation) is raised as it was.
     */
    static Stream<Arguments> ownersCountNotSeenRaised() {
        return Stream.of(
                Arguments.of("generation as recorded: never raised", 7L, 7L, new SurgeProgress.Raise(2)),
                Arguments.of("generation moved on: raised, then put back", 7L, 9L, null),
                Arguments.of("one write since (a spec or annotation change)", 7L, 8L, null),
                Arguments.of(
                        "recorded by the previous release: raised, as it was", null, 9L, new SurgeProgress.Raise(2)),
                Arguments.of("generation not reported: raised", 7L, null, new SurgeProgress.Raise(2)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ownersCountNotSeenRaised")
    void aPutBackRaiseWhoseStatusWasLostIsNotRaisedAgain(
            String name, Long recorded, Long now, SurgeProgress.Next want) {
        SurgeProgress.Next next =
                SurgeProgress.next(RECORD, false, recorded, new SurgeProgress.Seen(1, 1, false, null, now));
        if (want != null) {
            assertThat(next).isEqualTo(want);
            return;
        }
        assertThat(next).isInstanceOfSatisfying(SurgeProgress.Leave.class, l -> {
            assertThat(l.reverted()).isTrue();
            assertThat(l.why())
                    .startsWith("replicas were put back to 1 (the owner's)")
                    .contains("metadata.generation " + recorded + " then, " + now + " now")
                    .contains("not raised again");
        });
    }

    /** The generation decides only the owner's count not seen raised: the surge's own count waits, whatever moved it. */
    @org.junit.jupiter.api.Test
    void theSurgesOwnCountWaitsWhateverTheGeneration() {
        assertThat(SurgeProgress.next(RECORD, false, 7L, new SurgeProgress.Seen(2, 1, false, 2, 8L)))
                .isEqualTo(new SurgeProgress.Wait(true, true));
        assertThat(SurgeProgress.next(RECORD, false, 7L, new SurgeProgress.Seen(1, 0, false, 1, 9L)))
                .as("the pods off the node: nothing to give back, only the record goes")
                .isEqualTo(new SurgeProgress.Release());
    }

    /** A GitOps controller puts the owner's count back while the surge waits: not raised again, said once. */
    @org.junit.jupiter.api.Test
    void aRevertWhileWaitingIsLeftNotFought() {
        assertThat(SurgeProgress.next(RECORD, true, new SurgeProgress.Seen(1, 1, false)))
                .isInstanceOfSatisfying(SurgeProgress.Leave.class, l -> {
                    assertThat(l.why()).startsWith("replicas were put back to 1");
                    assertThat(l.reverted()).isTrue();
                });
    }
}
