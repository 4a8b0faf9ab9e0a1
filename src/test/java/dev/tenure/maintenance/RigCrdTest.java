package dev.tenure.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which NodeMaintenance CRD the rig stores: the build's copy only while no class was compiled after it. */
class RigCrdTest {
    private static final Optional<FileTime> T0 = Optional.of(FileTime.from(Instant.parse("2026-11-30T02:00:00Z")));
    private static final Optional<FileTime> T1 = Optional.of(FileTime.from(Instant.parse("2026-11-30T02:00:01Z")));

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(
                        "no build copy (fast tier, no package yet)", Optional.empty(), T0, RigCrd.Source.GENERATED),
                Arguments.of(
                        "a class compiled after the package (API types edited since)", T0, T1, RigCrd.Source.GENERATED),
                Arguments.of("packaged after the last compile (make bench)", T1, T0, RigCrd.Source.BUILT),
                Arguments.of("written in the same instant as the newest class", T0, T0, RigCrd.Source.BUILT),
                Arguments.of(
                        "no compiled classes found: freshness unknown", T1, Optional.empty(), RigCrd.Source.GENERATED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void choose(String name, Optional<FileTime> built, Optional<FileTime> newestClass, RigCrd.Source expected) {
        assertThat(RigCrd.choose(built, newestClass)).isEqualTo(expected);
    }

    @Test
    void newestClassIsTheLatestClassFileAnywhereBelow(@TempDir Path dir) throws IOException {
        Path a = Files.createDirectories(dir.resolve("dev/tenure/maintenance/api"))
                .resolve("A.class");
        Path b = Files.createDirectories(dir.resolve("dev/tenure/maintenance/drain"))
                .resolve("B.class");
        Path notAClass = dir.resolve("application.properties");
        for (Path f : new Path[] {a, b, notAClass}) {
            Files.writeString(f, "x");
        }
        Files.setLastModifiedTime(a, T0.orElseThrow());
        Files.setLastModifiedTime(b, T1.orElseThrow());
        Files.setLastModifiedTime(notAClass, FileTime.from(Instant.parse("2027-01-01T00:00:00Z")));

        assertThat(RigCrd.newestClass(dir)).isEqualTo(T1);
        assertThat(RigCrd.newestClass(dir.resolve("absent"))).isEmpty();
    }

    /** The premise of reading the build's copy: quarkus-operator-sdk writes exactly what the generator writes. */
    @Test
    void aCurrentBuildCopyIsWhatTheGeneratorWrites() throws IOException {
        Assumptions.assumeTrue(
                RigCrd.choose(
                                Files.isRegularFile(RigCrd.BUILT)
                                        ? Optional.of(Files.getLastModifiedTime(RigCrd.BUILT))
                                        : Optional.empty(),
                                RigCrd.newestClass(RigCrd.CLASSES))
                        == RigCrd.Source.BUILT,
                "no current build copy of the CRD (" + RigCrd.BUILT + "): nothing to compare");
        assertThat(Files.readString(RigCrd.BUILT)).isEqualTo(RigCrd.generated());
    }
}
