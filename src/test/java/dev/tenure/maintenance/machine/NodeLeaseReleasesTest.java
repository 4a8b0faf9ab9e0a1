package dev.tenure.maintenance.machine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.ZonedDateTime;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which node-lease changes wake a request waiting for the lease at the other door ({@link NodeLeaseReleases}). */
class NodeLeaseReleasesTest {

    static final ZonedDateTime T0 = ZonedDateTime.parse("2026-01-01T12:00:00Z");

    static Lease lease(String holder, Integer seconds, ZonedDateTime renewed) {
        return new LeaseBuilder()
                .withNewMetadata()
                .withNamespace("tenure-system")
                .withName("node-w1")
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(holder)
                .withLeaseDurationSeconds(seconds)
                .withRenewTime(renewed)
                .endSpec()
                .build();
    }

    static Stream<Arguments> changes() {
        Lease held = lease("tenure-annotation", 3630, T0);
        return Stream.of(
                Arguments.of(
                        "the annotation protocol's release: duration unset",
                        held,
                        lease("tenure-annotation", null, T0),
                        true),
                Arguments.of("duration 0", held, lease("tenure-annotation", 0, T0), true),
                Arguments.of("holder cleared (LeaseRules.releasedRecord)", held, lease("", 1, T0), true),
                Arguments.of("holder null", held, lease(null, 1, T0), true),
                Arguments.of("taken over by another holder", held, lease("tenure/b", 60, T0), true),
                Arguments.of(
                        "a renewal of the same holder",
                        held,
                        lease("tenure-annotation", 3630, T0.plusSeconds(20)),
                        false),
                Arguments.of("a longer duration, same holder", held, lease("tenure-annotation", 7230, T0), false),
                Arguments.of(
                        "a released lease written again released",
                        lease("", 1, T0),
                        lease("", 1, T0.plusSeconds(1)),
                        false),
                Arguments.of("a released lease taken", lease("", 1, T0), lease("tenure", 60, T0), true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("changes")
    void frees(String name, Lease before, Lease after, boolean frees) {
        assertThat(NodeLeaseReleases.frees(before, after)).isEqualTo(frees);
    }
}
