package dev.tenure.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The archive the upgrade suite builds the previous release from when the checkout lacks its commit (a shallow clone)
 * is that commit's tree, byte for byte.
 */
class PreviousReleaseTest {

    static final PreviousRelease RELEASE = PreviousRelease.V0_1_0;

    @Test
    void theArchiveIsTheReleasesTree() {
        Path archive = RELEASE.archive();
        assertThat(archive).isRegularFile();
        String properties = PreviousRelease.run(
                Path.of("."), List.of("tar", "-xzOf", archive.toString(), "src/main/olm/release.properties"));
        assertThat(properties).contains("version=0.1.0").contains("created-at=2026-11-24T03:40:00Z");
    }

    @Test
    void theArchiveHoldsExactlyWhatGitHasForTheCommit() {
        var repo = PreviousRelease.repository();
        assumeTrue(repo.isPresent() && RELEASE.hasCommit(repo.get()), "a checkout with the release's commit");
        // both are git archive's output: the same files in the same order, so their contents concatenate alike
        String fromArchive = PreviousRelease.run(
                Path.of("."),
                List.of("bash", "-c", "tar -xzOf " + RELEASE.archive().toAbsolutePath() + " | sha256sum"));
        String fromGit = PreviousRelease.run(
                repo.get(),
                List.of("bash", "-c", "git archive --format=tar " + RELEASE.commit + " | tar -xO | sha256sum"));
        String listed = PreviousRelease.run(
                Path.of("."),
                List.of("tar", "-tzf", RELEASE.archive().toAbsolutePath().toString()));
        String listedByGit = PreviousRelease.run(
                repo.get(), List.of("bash", "-c", "git archive --format=tar " + RELEASE.commit + " | tar -t"));

        assertThat(listed).isEqualTo(listedByGit);
        assertThat(fromArchive).isEqualTo(fromGit);
    }
}
