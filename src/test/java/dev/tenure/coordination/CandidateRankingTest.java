package dev.tenure.coordination;

import static dev.tenure.coordination.CandidateFixture.NOW;
import static dev.tenure.coordination.CandidateFixture.cand;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.election.CandidateRecord;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Upstream election_test.go, restated as tables (one row per upstream case, same names). */
class CandidateRankingTest {

    private static final String OEV = OldestEmulationVersion.NAME;
    private static final Duration HOUR = Duration.ofHours(1);

    static Stream<Arguments> pickBestLeaderOldestEmulationVersion() {
        return Stream.of(
                Arguments.of("empty", List.of(), null),
                Arguments.of(
                        "single candidate",
                        List.of(cand("candidate1").versions("0.1.0", "0.1.0").created(NOW)),
                        "candidate1"),
                Arguments.of(
                        "multiple candidates, different emulation versions",
                        List.of(
                                cand("candidate1").versions("0.1.0", "0.1.0").created(NOW.minus(HOUR)),
                                cand("candidate2").versions("0.2.0", "0.2.0").created(NOW)),
                        "candidate1"),
                Arguments.of(
                        "multiple candidates, same emulation versions, different binary versions",
                        List.of(
                                cand("candidate1").versions("0.1.0", "0.1.0").created(NOW.minus(HOUR)),
                                cand("candidate2").versions("0.1.0", "0.2.0").created(NOW)),
                        "candidate1"),
                Arguments.of(
                        "multiple candidates, same emulation versions, same binary versions, different creation"
                                + " timestamps",
                        List.of(
                                cand("candidate1").versions("0.1.0", "0.1.0").created(NOW.minus(HOUR)),
                                cand("candidate2").versions("0.1.0", "0.1.0").created(NOW)),
                        "candidate1"),
                // from the older upstream TestPickLeader table
                Arguments.of(
                        "same compatibility version, newer binary version",
                        List.of(
                                cand("component-identity-1").versions("1.19.0", "1.20.0"),
                                cand("component-identity-2").versions("1.19.0", "1.19.0")),
                        "component-identity-2"),
                Arguments.of(
                        "same binary version, newer compatibility version",
                        List.of(
                                cand("component-identity-1").versions("1.19.0", "1.20.0"),
                                cand("component-identity-2").versions("1.20.0", "1.20.0")),
                        "component-identity-1"),
                // Tenure additions: unparsable versions are skipped, not ranked as 0.0.0
                Arguments.of(
                        "unparsable emulation version is skipped",
                        List.of(
                                cand("bad").versions("invalid", "0.1.0").created(NOW.minus(HOUR)),
                                cand("good").versions("0.2.0", "0.2.0").created(NOW)),
                        "good"),
                Arguments.of(
                        "only unparsable versions elect nobody",
                        List.of(cand("bad").versions("xyz", "xyz")),
                        null),
                Arguments.of(
                        "order of the list does not matter",
                        List.of(
                                cand("candidate2").versions("0.1.0", "0.1.0").created(NOW),
                                cand("candidate1").versions("0.1.0", "0.1.0").created(NOW.minus(HOUR))),
                        "candidate1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void pickBestLeaderOldestEmulationVersion(String name, List<CandidateFixture> candidates, String expected) {
        assertThat(CandidateRanking.pickBest(build(candidates))
                        .map(CandidateRecord::name)
                        .orElse(null))
                .isEqualTo(expected);
    }

    static Stream<Arguments> validLeaseCandidateForOldestEmulationVersion() {
        return Stream.of(
                Arguments.of("valid emulation and binary versions", "0.1.0", "0.1.0", true),
                Arguments.of("invalid emulation version", "invalid", "0.1.0", false),
                Arguments.of("invalid binary version", "0.1.0", "invalid", false),
                Arguments.of("missing versions", null, null, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void validLeaseCandidateForOldestEmulationVersion(String name, String emulation, String binary, boolean valid) {
        assertThat(CandidateRanking.validForOldestEmulationVersion(
                        cand("c").versions(emulation, binary).build()))
                .isEqualTo(valid);
    }

    static Stream<Arguments> versionOrZero() {
        return Stream.of(
                Arguments.of("valid emulation version", "0.1.0", null, "0.1.0", "0.0.0"),
                Arguments.of("valid binary version", null, "0.3.0", "0.0.0", "0.3.0"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void versionOrZero(String name, String emulation, String binary, String expectedEmulation, String expectedBinary) {
        CandidateRecord c = cand("c").versions(emulation, binary).build();
        assertThat(CandidateRanking.emulationVersionOrZero(c)).hasToString(expectedEmulation);
        assertThat(CandidateRanking.binaryVersionOrZero(c)).hasToString(expectedBinary);
    }

    static Stream<Arguments> compare() {
        return Stream.of(
                Arguments.of(
                        "identical versions earlier timestamp",
                        cand("l").versions("1.20.0", "1.21.0").created(NOW.plusNanos(1)),
                        cand("r").versions("1.20.0", "1.21.0").created(NOW),
                        1),
                Arguments.of("no lhs version", cand("l"), cand("r").versions("1.20.0", "1.21.0"), -1),
                Arguments.of("no rhs version", cand("l").versions("1.20.0", "1.21.0"), cand("r"), 1),
                Arguments.of(
                        "invalid lhs version",
                        cand("l").versions("xyz", "xyz"),
                        cand("r").versions("1.20.0", "1.21.0"),
                        -1),
                Arguments.of(
                        "invalid rhs version",
                        cand("l").versions("1.20.0", "1.21.0"),
                        cand("r").versions("xyz", "xyz"),
                        1),
                Arguments.of(
                        "lhs less than rhs",
                        cand("l").versions("1.19.0", "1.20.0"),
                        cand("r").versions("1.20.0", "1.20.0"),
                        -1),
                Arguments.of(
                        "rhs less than lhs",
                        cand("l").versions("1.20.0", "1.20.0"),
                        cand("r").versions("1.19.0", "1.20.0"),
                        1),
                Arguments.of(
                        "lhs less than rhs, lexographical order check",
                        cand("l").versions("1.2.0", "1.20.0"),
                        cand("r").versions("1.19.0", "1.20.0"),
                        -1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void compare(String name, CandidateFixture lhs, CandidateFixture rhs, int expected) {
        assertThat(CandidateRanking.compare(lhs.build(), rhs.build())).isEqualTo(expected);
    }

    static Stream<Arguments> shouldReelect() {
        return Stream.of(
                Arguments.of(
                        "candidate with newer binary version",
                        List.of(
                                cand("component-identity-1").versions("1.19.0", "1.19.0"),
                                cand("component-identity-2").versions("1.19.0", "1.20.0")),
                        cand("component-identity-1").versions("1.19.0", "1.19.0"),
                        false),
                Arguments.of(
                        "no newer candidates",
                        List.of(
                                cand("component-identity-1").versions("1.19.0", "1.19.0"),
                                cand("component-identity-2").versions("1.19.0", "1.19.0")),
                        cand("component-identity-1").versions("1.19.0", "1.19.0"),
                        false),
                Arguments.of(
                        "no candidates", List.of(), cand("component-identity-1").versions("1.19.0", "1.19.0"), false),
                Arguments.of(
                        "candidate with older emulation version (Tenure addition)",
                        List.of(
                                cand("component-identity-1").versions("1.20.0", "1.20.0"),
                                cand("component-identity-2").versions("1.19.0", "1.20.0")),
                        cand("component-identity-1").versions("1.20.0", "1.20.0"),
                        true));
    }

    /** Upstream's test-only shouldReelect: the picked leader ranks strictly before the current one. */
    @ParameterizedTest(name = "{0}")
    @MethodSource
    void shouldReelect(String name, List<CandidateFixture> candidates, CandidateFixture current, boolean expected) {
        boolean reelect = CandidateRanking.pickBest(build(candidates))
                .map(picked -> CandidateRanking.compare(current.build(), picked) > 0)
                .orElse(false);
        assertThat(reelect).isEqualTo(expected);
    }

    static Stream<Arguments> pickBestStrategy() {
        return Stream.of(
                Arguments.of(
                        "single candidate, single preferred strategy",
                        List.of(cand("candidate1").strategy(OEV)),
                        OEV,
                        false),
                Arguments.of(
                        "multiple candidates, different preferred strategies should fail",
                        List.of(
                                cand("candidate1").strategy(OEV),
                                cand("candidate2").strategy("foo.com/bar")),
                        null,
                        true),
                Arguments.of(
                        "multiple candidates, different preferred strategy different binary version should"
                                + " resolve",
                        List.of(
                                cand("candidate1").binary("1.32.0").strategy(OEV),
                                cand("candidate2").binary("1.31.0").strategy("foo.com/bar")),
                        OEV,
                        false),
                Arguments.of(
                        "multiple candidates, different preferred strategy different binary version should"
                                + " resolve, order agnostic",
                        List.of(
                                cand("candidate2").binary("1.31.0").strategy("foo.com/bar"),
                                cand("candidate1").binary("1.32.0").strategy(OEV)),
                        OEV,
                        false),
                Arguments.of(
                        "multiple candidates, different preferred strategy different binary version string"
                                + " comparison check",
                        List.of(
                                cand("candidate1").binary("1.1.10").strategy(OEV),
                                cand("candidate2").binary("1.1.2").strategy("foo.com/bar")),
                        OEV,
                        false),
                Arguments.of(
                        "multiple candidates, same preferred strategy",
                        List.of(
                                cand("candidate1").binary("1.31.0").strategy(OEV),
                                cand("candidate2").binary("1.31.0").strategy(OEV)),
                        OEV,
                        false),
                Arguments.of(
                        "multiple candidates, conflicting preferred strategy",
                        List.of(
                                cand("candidate1").binary("1.31.0").strategy(OEV),
                                cand("candidate2").binary("1.31.0").strategy("foo.com/bar")),
                        null,
                        true),
                // Tenure addition: a conflict is found wherever it sits in the list
                Arguments.of(
                        "conflict at the highest version is found regardless of order",
                        List.of(
                                cand("candidate1").binary("1.32.0").strategy(OEV),
                                cand("candidate2").binary("1.31.0").strategy(OEV),
                                cand("candidate3").binary("1.32.0").strategy("foo.com/bar")),
                        null,
                        true),
                Arguments.of(
                        "conflict below the highest version does not matter",
                        List.of(
                                cand("candidate1").binary("1.31.0").strategy(OEV),
                                cand("candidate2").binary("1.31.0").strategy("foo.com/bar"),
                                cand("candidate3").binary("1.32.0").strategy(MaintenanceAware.NAME)),
                        MaintenanceAware.NAME,
                        false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void pickBestStrategy(String name, List<CandidateFixture> candidates, String expected, boolean conflict) {
        CandidateRanking.StrategyChoice choice = CandidateRanking.pickStrategy(build(candidates));
        assertThat(choice.isConflict()).as("conflict").isEqualTo(conflict);
        if (!conflict) {
            assertThat(choice.strategy()).isEqualTo(expected);
        }
    }

    static List<CandidateRecord> build(List<CandidateFixture> fixtures) {
        return fixtures.stream().map(CandidateFixture::build).toList();
    }
}
