package dev.tenure.maintenance;

import dev.tenure.maintenance.api.NodeMaintenance;
import io.fabric8.crdv2.generator.CRDGenerator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The NodeMaintenance CRD's YAML for {@link MaintenanceOperatorRig}: the copy the build wrote ({@link #BUILT}, by
 * quarkus-operator-sdk, which runs the same fabric8 {@link CRDGenerator}: the two are byte for byte the same, {@code
 * RigCrdTest} checks it) when it is at least as new as every compiled main class, else generated from the
 * API types here. Generating costs a JVM 10 s of CPU at first use (24 s of a bench row's setup on a loaded machine);
 * {@code make bench} packages first, so its rows read the file.
 */
public final class RigCrd {
    /** Where quarkus-operator-sdk writes the CRD at package time (and when a {@code @QuarkusTest} builds the app). */
    public static final Path BUILT = Path.of("target/kubernetes/nodemaintenances.tenure.dev-v1.yml");

    /** The compiled main classes the CRD is generated from (its types live in more than one package). */
    static final Path CLASSES = Path.of("target/classes");

    /** Where the YAML came from, as the bench's notes say it. */
    public enum Source {
        BUILT("the build's " + RigCrd.BUILT),
        GENERATED("generated from the API types (CRDGenerator)");

        public final String description;

        Source(String description) {
            this.description = description;
        }
    }

    /**
     * The YAML, where it came from, and the seconds it took to read or generate.
     *
     * @param seconds wall time of reading the file or running the generator, in seconds
     */
    public record Loaded(String yaml, Source source, double seconds) {}

    private RigCrd() {}

    /**
     * The build's copy is used only when it exists and no main class was compiled after it: a change to the API types
     * recompiled without a package would otherwise give the rig a schema the code no longer has.
     *
     * @param built the build's copy's modification time, empty when it is absent
     * @param newestClass the newest compiled main class's modification time, empty when none is found
     */
    static Source choose(Optional<FileTime> built, Optional<FileTime> newestClass) {
        if (built.isEmpty() || newestClass.isEmpty()) {
            return Source.GENERATED;
        }
        return built.get().compareTo(newestClass.get()) >= 0 ? Source.BUILT : Source.GENERATED;
    }

    /** Reads or generates the YAML, as {@link #choose} decides for the files in the working directory. */
    static Loaded load() {
        long t0 = System.nanoTime();
        try {
            Source source = choose(modified(BUILT), newestClass(CLASSES));
            String yaml = source == Source.BUILT ? Files.readString(BUILT) : generated();
            return new Loaded(yaml, source, (System.nanoTime() - t0) / 1e9);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Optional<FileTime> modified(Path file) throws IOException {
        return Files.isRegularFile(file) ? Optional.of(Files.getLastModifiedTime(file)) : Optional.empty();
    }

    static Optional<FileTime> newestClass(Path classes) throws IOException {
        if (!Files.isDirectory(classes)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.walk(classes)) {
            Optional<FileTime> newest = Optional.empty();
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                FileTime t = Files.getLastModifiedTime(f);
                if (newest.isEmpty() || t.compareTo(newest.get()) > 0) {
                    newest = Optional.of(t);
                }
            }
            return newest;
        }
    }

    /** The generator's output, as the build generates it. */
    public static String generated() throws IOException {
        Path dir = Files.createTempDirectory("tenure-crd");
        try {
            new CRDGenerator()
                    .inOutputDir(dir.toFile())
                    .forCRDVersions("v1")
                    .customResourceClasses(NodeMaintenance.class)
                    .generate();
            return Files.readString(dir.resolve("nodemaintenances.tenure.dev-v1.yml"));
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(dir);
        }
    }
}
