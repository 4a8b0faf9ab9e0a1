package dev.tenure.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The footprint row measures the flags the image really runs with: the Dockerfile's JAVA_OPTS_APPEND. */
class ImageFlagsTest {

    @Test
    void theBenchsImageFlagsAreTheDockerfiles() throws Exception {
        String dockerfile = Files.readString(Path.of("src/main/docker/Dockerfile.jvm"));
        String append = dockerfile
                .lines()
                .filter(l -> l.startsWith("ENV JAVA_OPTS_APPEND="))
                .findFirst()
                .orElseThrow()
                .replaceFirst("^ENV JAVA_OPTS_APPEND=\"", "")
                .replaceFirst("\"$", "");
        List<String> imageFlags = List.of(append.split(" "));

        List<String> benchFlags = FootprintBench.imageFlags().stream()
                .filter(f -> !f.startsWith("-XX:MaxRAM=")) // the container's memory limit, not a flag of the image
                .map(f -> f.replace(FootprintBench.APP_CDS.toString(), "/deployments/app-cds.jsa"))
                .toList();
        assertThat(imageFlags).containsAll(benchFlags);
        assertThat(imageFlags.stream().filter(f -> f.startsWith("-XX:") || f.startsWith("-Xshare")))
                .containsExactlyInAnyOrderElementsOf(benchFlags);
    }
}
