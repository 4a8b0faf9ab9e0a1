package dev.tenure.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The footprint row measures the flags the image really runs with: the Dockerfile's JAVA_OPTS. */
class ImageFlagsTest {

    private static final String DOCKERFILE = "src/main/docker/Dockerfile.jvm";

    @Test
    void theBenchsImageFlagsAreTheDockerfiles() throws Exception {
        String dockerfile = Files.readString(Path.of(DOCKERFILE));
        String opts = dockerfile
                .lines()
                .filter(l -> l.startsWith("ENV JAVA_OPTS="))
                .findFirst()
                .orElseThrow()
                .replaceFirst("^ENV JAVA_OPTS=\"", "")
                .replaceFirst("\"$", "");
        List<String> jvmFlags = List.of(opts.split(" ")).stream()
                .filter(f -> f.startsWith("-XX:"))
                .toList();

        List<String> benchFlags = FootprintBench.imageFlags(FootprintBench.IMAGE_DIR + "/app.aot");
        assertThat(jvmFlags).containsExactlyInAnyOrderElementsOf(benchFlags);
        // the training run writes the cache the image reads, with the same flags otherwise
        assertThat(FootprintBench.Launcher.container("docker", "x").path(FootprintBench.AOT_CACHE))
                .isEqualTo(FootprintBench.IMAGE_DIR + "/app.aot");
        assertThat(FootprintBench.trainingFlags("c").subList(1, benchFlags.size()))
                .isEqualTo(FootprintBench.imageFlags("c").subList(1, benchFlags.size()));
        assertThat(dockerfile).contains("COPY --chown=185 target/quarkus-app/app.aot /deployments/");
    }

    /** The AOT cache is only valid for the JDK build that wrote it: the training runs in the image's base. */
    @Test
    void makeImageTrainsTheCacheInTheDockerfilesBaseImage() throws Exception {
        String base = Files.readString(Path.of(DOCKERFILE))
                .lines()
                .filter(l -> l.startsWith("FROM "))
                .findFirst()
                .orElseThrow()
                .substring("FROM ".length())
                .trim();
        String makefile = Files.readString(Path.of("Makefile"));
        assertThat(makefile).contains("JVM_BASE_IMAGE ?= " + base);
        assertThat(makefile).contains("dev.tenure.bench.AotTraining $(ENGINE) $(JVM_BASE_IMAGE)");
        // the training the image build runs is build code (src/build/java), on the classpath make image runs it from
        assertThat(Path.of("src/build/java/dev/tenure/bench/AotTraining.java")).isRegularFile();
        assertThat(Path.of("src/test/java/dev/tenure/bench/AotTraining.java")).doesNotExist();
        assertThat(AotTraining.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .getPath())
                .endsWith("/test-classes/");
    }
}
